"""The build plan: nvcc discovery, the nvcc-vs-torch CUDA version check, the CPU-only fallback and
the arch list.  Uses fake nvcc scripts and a fake torch object; no compiler runs here."""

from __future__ import annotations

import fnmatch
import os
import stat
import types

import pytest

from torch_envcheck.ext import buildcfg
from torch_envcheck.ext import toolchain


def fake_toolkit(root, release: str, build: str) -> str:
    """A directory laid out like a CUDA toolkit whose bin/nvcc prints the given version."""
    bindir = root / "bin"
    bindir.mkdir(parents=True)
    (root / "include").mkdir()
    (root / "include" / "cuda_runtime.h").write_text("/* fake */\n")
    nvcc = bindir / "nvcc"
    nvcc.write_text("#!/bin/sh\n"
                    "echo 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                    f"echo 'Cuda compilation tools, release {release}, V{build}'\n")
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IEXEC)
    return str(root)


def fake_torch(cuda: str | None, version: str = "2.14.1+cu130", hip=None):
    return types.SimpleNamespace(
        __version__=version,
        version=types.SimpleNamespace(cuda=cuda, hip=hip),
        cuda=types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0),
    )


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No nvcc reachable unless a test puts one there."""
    for var in ("CUDA_HOME", "CUDA_PATH", "TORCH_CUDA_ARCH_LIST", "CONDA_PREFIX",
                buildcfg.ENV_REQUIRE_CUDA, buildcfg.ENV_DISABLE_CUDA):
        monkeypatch.delenv(var, raising=False)
    empty = tmp_path / "emptybin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv(toolchain.ENV_NVCC_DIRS, "")
    monkeypatch.setattr(toolchain, "_site_dirs", lambda: [])
    return monkeypatch


def test_parse_nvcc_version():
    text = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
            "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n")
    assert toolchain.parse_nvcc_version(text) == "13.0.88"
    assert toolchain.parse_nvcc_version("Cuda compilation tools, release 11.8") == "11.8"
    assert toolchain.parse_nvcc_version("garbage") is None


def test_nvcc_version_reports_unrunnable_binary(tmp_path):
    info = toolchain.nvcc_version(str(tmp_path / "missing-nvcc"))
    assert info["version"] is None and "could not run" in info["error"]


def test_cpu_torch_builds_cpu_only_and_says_why(clean_env):
    p = buildcfg.plan(fake_torch(None, "2.13.0+cpu"))
    assert p["with_cuda"] is False
    assert "CPU-only build" in p["cuda_reason"] and "2.13.0+cpu" in p["cuda_reason"]


def test_no_nvcc_falls_back_with_reason(clean_env):
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is False
    assert p["cuda_reason"].startswith("no nvcc found")


def test_require_cuda_turns_fallback_into_error(clean_env):
    clean_env.setenv(buildcfg.ENV_REQUIRE_CUDA, "1")
    with pytest.raises(buildcfg.BuildConfigError) as err:
        buildcfg.plan(fake_torch("13.0"))
    assert buildcfg.ENV_REQUIRE_CUDA in str(err.value) and "no nvcc found" in str(err.value)


def test_major_mismatch_is_refused_naming_both_versions(clean_env, tmp_path):
    clean_env.setenv("CUDA_HOME", fake_toolkit(tmp_path / "cuda-12.4", "12.4", "12.4.131"))
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is False
    assert "12.4.131" in p["cuda_reason"] and "13.0" in p["cuda_reason"]


def test_minor_mismatch_is_built_with_a_note(clean_env, tmp_path):
    home = fake_toolkit(tmp_path / "cuda-13.2", "13.2", "13.2.51")
    clean_env.setenv("CUDA_HOME", home)
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is True and p["cuda_home"] == home and p["nvcc_version"] == "13.2.51"
    assert any("13.2.51" in n and "minor" in n for n in p["notes"])


def test_matching_nvcc_later_in_the_search_wins_over_a_mismatched_first(clean_env, tmp_path):
    old = fake_toolkit(tmp_path / "old", "12.4", "12.4.131")
    new = fake_toolkit(tmp_path / "new", "13.0", "13.0.88")
    clean_env.setenv("PATH", os.path.join(old, "bin"))
    clean_env.setenv(toolchain.ENV_NVCC_DIRS, new)
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is True and p["cuda_home"] == new
    assert any("12.4.131" in n for n in p["notes"])


def test_cuda_home_without_nvcc_is_reported(clean_env, tmp_path):
    clean_env.setenv("CUDA_HOME", str(tmp_path / "nowhere"))
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is False and "CUDA_HOME" in p["cuda_reason"] and "nowhere" in p["cuda_reason"]


def test_disable_cuda(clean_env, tmp_path):
    clean_env.setenv("CUDA_HOME", fake_toolkit(tmp_path / "cuda", "13.0", "13.0.88"))
    clean_env.setenv(buildcfg.ENV_DISABLE_CUDA, "1")
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["with_cuda"] is False and buildcfg.ENV_DISABLE_CUDA in p["cuda_reason"]


def test_arch_list_env_is_honoured_and_default_is_small(clean_env, tmp_path):
    clean_env.setenv("CUDA_HOME", fake_toolkit(tmp_path / "cuda", "13.0", "13.0.88"))
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["torch_cuda_arch_list"] == buildcfg.DEFAULT_ARCH_LIST
    assert p["gencode"] == {"sass": ["sm_80", "sm_90"], "ptx": ["compute_90"]}
    clean_env.setenv("TORCH_CUDA_ARCH_LIST", "7.5 12.0+PTX")
    p = buildcfg.plan(fake_torch("13.0"))
    assert p["arch_list_source"] == "TORCH_CUDA_ARCH_LIST"
    assert p["gencode"] == {"sass": ["sm_75", "sm_120"], "ptx": ["compute_120"]}


def test_gencode_summary_arch_suffixes():
    assert buildcfg.gencode_summary("9.0a;10.0f+PTX") == {"sass": ["sm_90a", "sm_100f"], "ptx": ["compute_100f"]}


def test_wrapper_script_without_toolkit_is_not_preferred(clean_env, tmp_path):
    wrapper_bin = tmp_path / "wrapper" / "bin"
    wrapper_bin.mkdir(parents=True)
    real = fake_toolkit(tmp_path / "real", "13.0", "13.0.88")
    (wrapper_bin / "nvcc").write_text(f"#!/bin/sh\nexec {real}/bin/nvcc \"$@\"\n")
    (wrapper_bin / "nvcc").chmod(0o755)
    clean_env.setenv("PATH", str(wrapper_bin))
    clean_env.setenv(toolchain.ENV_NVCC_DIRS, real)
    cands = toolchain.nvcc_candidates()
    assert [c["toolkit_found"] for c in cands] == [False, True]
    assert buildcfg.plan(fake_torch("13.0"))["cuda_home"] == real


def test_sources_exclude_the_cpp_program_and_cuda_when_cpu_only(repo_root):
    csrc = os.path.join(repo_root, "csrc")
    cpu_only = buildcfg.sources(csrc, with_cuda=False)
    assert cpu_only and not any(os.sep + "cuda" + os.sep in s or os.sep + "app" + os.sep in s for s in cpu_only)
    assert not any(s.endswith(".cu") for s in cpu_only)
    with_cuda = buildcfg.sources(csrc, with_cuda=True)
    assert set(cpu_only) <= set(with_cuda)
    rel = {os.path.relpath(s, csrc).replace(os.sep, "/") for s in with_cuda}
    # The layout (csrc/ops/<op>.cpp, ops/cpu/<op>_kernel.cpp, ops/cuda/<op>_kernel.cu + <op>_glue.cpp, info/).
    for op in ("triad", "sum", "softmax", "bias_gelu", "sgemm"):
        assert {f"ops/{op}.cpp", f"ops/cpu/{op}_kernel.cpp", f"ops/cuda/{op}_kernel.cu", f"ops/cuda/{op}_glue.cpp"} <= rel
    assert {"bindings.cpp", "info/build_info.cpp", "info/runtime_info.cpp", "info/runtime_probe.cu"} <= rel
    # Every C++/CUDA file under csrc/ (but the program in app/) is compiled or included: none is forgotten.
    every = set()
    for root, _, files in os.walk(csrc):
        for f in files:
            path = os.path.relpath(os.path.join(root, f), csrc).replace(os.sep, "/")
            if f.endswith((".cpp", ".cu")) and not path.startswith("app/"):
                every.add(path)
    assert every == rel, sorted(every ^ rel)


def test_no_two_sources_compile_to_the_same_object_name(repo_root):
    # cpp_extension's JIT build puts every object in one folder named after the source's basename
    # (x.cpp -> x.o, x.cu -> x.cuda.o): csrc/ops/triad.cpp and a csrc/ops/cpu/triad.cpp would overwrite each other.
    srcs = buildcfg.sources(os.path.join(repo_root, "csrc"), with_cuda=True)
    objects = [os.path.splitext(os.path.basename(s))[0] + (".cuda.o" if s.endswith(".cu") else ".o") for s in srcs]
    assert len(objects) == len(set(objects)), sorted(objects)


def test_every_source_is_compiled_once_by_itself_or_inside_one_build_unit(repo_root, tmp_path):
    csrc = os.path.join(repo_root, "csrc")
    for with_cuda in (False, True):
        out = str(tmp_path / f"units-{with_cuda}")
        srcs = buildcfg.sources(csrc, with_cuda)
        units = buildcfg.build_units(csrc, with_cuda, out)
        generated = [u for u in units if u.startswith(out)]
        included = [m for u in generated for m in buildcfg.unit_members(u, csrc)]
        assert len(included) == len(set(included)), sorted(included)
        assert sorted([u for u in units if u not in generated] + included) == sorted(srcs)
        # the per-op files of each folder go through its unit: none is compiled alone
        rel = {os.path.relpath(u, csrc).replace(os.sep, "/") for u in units if u not in generated}
        per_op = ("ops/*.cpp", "ops/cpu/*_kernel.cpp", "ops/cuda/*_glue.cpp")
        alone = sorted(r for r in rel if any(fnmatch.fnmatch(r, p) and r.count("/") == p.count("/") for p in per_op))
        assert not alone, alone
        gen = {os.path.relpath(u, out).replace(os.sep, "/") for u in generated}
        assert gen == {"ops/all_ops.cpp", "ops/cpu/all_kernels.cpp"} | ({"ops/cuda/all_glue.cpp"} if with_cuda else set())
    objects = [os.path.splitext(os.path.basename(s))[0] + (".cuda.o" if s.endswith(".cu") else ".o")
               for s in buildcfg.build_units(csrc, True, str(tmp_path / "units-again"))]
    assert len(objects) == len(set(objects)), sorted(objects)
