"""The one list of ops (csrc/ops/op_list.h): the build units, the per-ISA include header and the CPU
kernel table's named entries all come from it, so a new op is its own files plus one line.  The slow test
adds a toy op to a copy of csrc/ that way, builds it and runs it on every ISA variant this CPU has."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from torch_envcheck.ext import buildcfg

OPS = {"bias_gelu", "roofline", "sgemm", "softmax", "sum", "triad", "vec_math"}

# A toy op, CPU only, with per-ISA kernels: y = s * x, and the vector width its kernel was compiled with.
TOY_LINE = "ENVCHECK_OP(toy_scale, CPU, NO_CUDA)"
TOY_FILES = {
    "ops/toy_scale.cpp": """
        // Schema of envcheck::toy_scale (a test's toy op).
        #include <torch/library.h>

        TORCH_LIBRARY_FRAGMENT(envcheck, m) {
          m.def("toy_scale(Tensor x, float s, str isa) -> Tensor");
          m.def("toy_scale_lanes(str isa) -> int");
        }
        """,
    "ops/cpu/toy_scale_kernel.h": """
        #pragma once
        #include <cstdint>

        namespace envcheck {
        namespace cpu_op {
        struct toy_scale {
          void (*run)(const float* x, float s, float* y, int64_t n);
          int lanes;
        };
        }  // namespace cpu_op
        }  // namespace envcheck
        """,
    "ops/cpu/toy_scale_kernel_isa.h": """
        #pragma once
        #include "ops/cpu/toy_scale_kernel.h"

        namespace envcheck {
        namespace CPU_CAPABILITY {
        namespace {

        void toy_scale_kernel(const float* x, float s, float* y, int64_t n) {
          int64_t i = 0;
          for (; i + Vec::size() <= n; i += Vec::size()) (Vec::loadu(x + i) * Vec(s)).store(y + i);
          for (; i < n; ++i) y[i] = x[i] * s;
        }

        const cpu_op::toy_scale toy_scale_kernels{.run = toy_scale_kernel, .lanes = static_cast<int>(Vec::size())};

        }  // namespace
        }  // namespace CPU_CAPABILITY
        }  // namespace envcheck
        """,
    "ops/cpu/toy_scale_kernel.cpp": """
        #define TORCH_ASSERT_ONLY_METHOD_OPERATORS
        #include <ATen/core/Tensor.h>
        #include <ATen/ops/empty.h>
        #include <torch/library.h>

        #include "ops/checks.h"
        #include "ops/cpu/kernels.h"
        #include "ops/cpu/toy_scale_kernel.h"

        namespace envcheck {
        namespace {

        const cpu_op::toy_scale& toy_variant(const std::string& isa) {
          const CpuKernels* k = cpu_kernels_for(isa);
          TORCH_CHECK(k != nullptr, "envcheck::toy_scale: this CPU cannot run ", isa);
          return *k->toy_scale;
        }

        at::Tensor toy_scale_cpu(const at::Tensor& x, double s, c10::string_view isa) {
          check_device("toy_scale", "x", x, c10::DeviceType::CPU);
          check_dtype_float("toy_scale", "x", x);
          const at::Tensor xc = x.contiguous();
          at::Tensor y = at::empty(x.sizes(), x.options());
          toy_variant(std::string(isa)).run(xc.data_ptr<float>(), static_cast<float>(s), y.data_ptr<float>(),
                                            y.numel());
          return y;
        }

        int64_t toy_scale_lanes(c10::string_view isa) { return toy_variant(std::string(isa)).lanes; }

        }  // namespace

        TORCH_LIBRARY_IMPL(envcheck, CPU, m) { m.impl("toy_scale", &toy_scale_cpu); }
        TORCH_LIBRARY_IMPL(envcheck, CompositeExplicitAutograd, m) { m.impl("toy_scale_lanes", &toy_scale_lanes); }

        }  // namespace envcheck
        """,
}


def snapshot(root) -> dict[str, bytes]:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            full = os.path.join(d, f)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, root).replace(os.sep, "/")] = fh.read()
    return out


def copy_csrc(repo_root, tmp_path) -> str:
    dst = str(tmp_path / "csrc")
    shutil.copytree(os.path.join(repo_root, "csrc"), dst, ignore=shutil.ignore_patterns("app"))
    return dst


def add_toy_op(csrc: str) -> None:
    """The whole change a new op needs: its own files and one line of the list."""
    for rel, text in TOY_FILES.items():
        with open(os.path.join(csrc, *rel.split("/")), "w", encoding="utf-8") as fh:
            fh.write(textwrap.dedent(text).lstrip())
    with open(os.path.join(csrc, "ops", "op_list.h"), "a", encoding="utf-8") as fh:
        fh.write(TOY_LINE + "\n")


def test_the_repository_lists_every_op_with_all_its_files(repo_root):
    ops = buildcfg.op_list(os.path.join(repo_root, "csrc"))  # raises on a missing or stray per-op file
    assert {op.name for op in ops} == OPS
    assert all(op.cpu for op in ops)
    assert {op.name for op in ops if not op.cuda} == {"vec_math"}
    triad = next(op for op in ops if op.name == "triad")
    assert set(triad.files()) == {"ops/triad.cpp", "ops/cpu/triad_kernel.h", "ops/cpu/triad_kernel_isa.h",
                                  "ops/cpu/triad_kernel.cpp", "ops/cuda/triad_kernel.h",
                                  "ops/cuda/triad_kernel.cu", "ops/cuda/triad_glue.cpp"}


def test_a_new_op_is_its_own_files_and_one_line(repo_root, tmp_path):
    csrc = copy_csrc(repo_root, tmp_path)
    before = snapshot(csrc)
    add_toy_op(csrc)
    after = snapshot(csrc)
    changed = {f for f in after if before.get(f) != after[f]}
    assert changed == set(TOY_FILES) | {"ops/op_list.h"}
    assert after["ops/op_list.h"] == before["ops/op_list.h"] + (TOY_LINE + "\n").encode()
    units = buildcfg.unit_texts(csrc, with_cuda=True)
    assert '#include "ops/toy_scale.cpp"' in units["ops/all_ops.cpp"]
    assert '#include "ops/cpu/toy_scale_kernel.cpp"' in units["ops/cpu/all_kernels.cpp"]
    assert '#include "ops/cpu/toy_scale_kernel_isa.h"' in units["ops/cpu/all_kernels_isa.h"]
    assert "toy_scale" not in units["ops/cuda/all_glue.cpp"]  # NO_CUDA
    for op in OPS:  # the listed ops keep their places
        assert (f'#include "ops/cuda/{op}_glue.cpp"' in units["ops/cuda/all_glue.cpp"]) == (op != "vec_math")
        assert f'#include "ops/cpu/{op}_kernel_isa.h"' in units["ops/cpu/all_kernels_isa.h"]
    # A CPU-only build generates no CUDA glue unit at all.
    assert "ops/cuda/all_glue.cpp" not in buildcfg.unit_texts(csrc, with_cuda=False)
    # What the build compiles: the toy's entry point and schema through the units, never alone.
    sources = buildcfg.build_units(csrc, False, str(tmp_path / "units"))
    assert not any("toy_scale" in os.path.basename(s) for s in sources)


@pytest.mark.parametrize("edit, message", [
    (lambda t: t + "ENVCHECK_OP(triad CPU)\n", "expected ENVCHECK_OP(name, CPU|NO_CPU, CUDA|NO_CUDA)"),
    (lambda t: t + "ENVCHECK_OP(triad, CPU, CUDA)\n", "'triad' is listed twice"),
    (lambda t: t + "ENVCHECK_OP(ghost, CPU, NO_CUDA)\n", "ops/ghost.cpp"),
    (lambda t: t.replace("ENVCHECK_OP(sum, CPU, CUDA)\n", ""), "ops/sum.cpp"),
    (lambda t: t.replace("ENVCHECK_OP(sum, CPU, CUDA)", "ENVCHECK_OP(sum, CPU, NO_CUDA)"), "ops/cuda/sum_glue.cpp"),
])
def test_a_list_that_does_not_match_the_files_is_refused_with_one_line(repo_root, tmp_path, edit, message):
    csrc = copy_csrc(repo_root, tmp_path)
    path = os.path.join(csrc, "ops", "op_list.h")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(edit(text))
    with pytest.raises(buildcfg.BuildConfigError) as exc:
        buildcfg.build_units(csrc, True, str(tmp_path / "units"))
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_a_toy_op_files_without_its_line_are_refused(repo_root, tmp_path):
    csrc = copy_csrc(repo_root, tmp_path)
    add_toy_op(csrc)
    path = os.path.join(csrc, "ops", "op_list.h")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(TOY_LINE + "\n", ""))
    with pytest.raises(buildcfg.BuildConfigError, match="ops/toy_scale.cpp.*no op"):
        buildcfg.op_list(csrc)


BUILD_AND_RUN = r"""
import json, sys
import torch
from torch.utils import cpp_extension
from torch_envcheck.ext import buildcfg
csrc, out = sys.argv[1], sys.argv[2]
units = out + "/units"
cpp_extension.load(name="toy_op_envcheck", sources=buildcfg.build_units(csrc, False, units),
                   extra_cflags=buildcfg.compile_args({"with_cuda": False})["cxx"],
                   extra_include_paths=[csrc, units], build_directory=out, with_cuda=False)
E = torch.ops.envcheck
info = json.loads(E.cpu_kernel_isa())
x = torch.randn(1003)
res = {"variants": ["DEFAULT"] + info["cpu_supports"], "ok": {}, "lanes": {},
       "triad": bool(torch.equal(E.triad(x, x, 1.0), x + x))}
for isa in res["variants"]:
    res["ok"][isa] = bool(torch.equal(E.toy_scale(x, 2.5, isa), x * 2.5))
    res["lanes"][isa] = int(E.toy_scale_lanes(isa))
print(json.dumps(res))
"""


# What every CUDA op's glue shares lives in ops/cuda/glue.h (launch(): the device guard and the launch
# check; with_out / impl_with_out: the functional variant of an out= op and the registration of both): a
# glue file written out by hand again is refused here.
SHARED_GLUE = {
    "c10::cuda::CUDAGuard": "the device guard: launch(t, [&] {...})",
    "C10_CUDA_KERNEL_LAUNCH_CHECK": "the launch check: launch(t, [&] {...})",
    "MemoryFormat::Contiguous": "the output of an out= op: with_out<&op_out> / empty_contiguous_like",
    '_out"': "the registration of both variants: impl_with_out<&op_out>(m, \"op\")",
}


def test_each_cuda_glue_holds_only_its_checks_and_its_launch(repo_root):
    ops = [op for op in buildcfg.op_list(os.path.join(repo_root, "csrc")) if op.cuda]
    assert len(ops) >= 6
    wrong = []
    for op in ops:
        with open(os.path.join(repo_root, "csrc", "ops", "cuda", f"{op.name}_glue.cpp"), encoding="utf-8") as fh:
            text = fh.read()
        wrong += [f"{op.name}_glue.cpp: {what} (use {how})" for what, how in SHARED_GLUE.items() if what in text]
        if "launch(" not in text:
            wrong.append(f"{op.name}_glue.cpp: no launch(...) of glue.h")
    assert not wrong, wrong
    with open(os.path.join(repo_root, "csrc", "ops", "cuda", "glue.h"), encoding="utf-8") as fh:
        glue = fh.read()
    assert all(what in glue for what in ("c10::cuda::CUDAGuard", "C10_CUDA_KERNEL_LAUNCH_CHECK", "impl_with_out"))


@pytest.mark.slow
def test_a_toy_op_added_by_its_files_and_one_line_builds_and_runs_on_every_isa(repo_root, tmp_path):
    csrc = copy_csrc(repo_root, tmp_path)
    add_toy_op(csrc)
    build = tmp_path / "build"
    build.mkdir()
    proc = subprocess.run([sys.executable, "-c", BUILD_AND_RUN, csrc, str(build)], capture_output=True,
                          text=True, timeout=1800, env={**os.environ, "MAX_JOBS": os.environ.get("MAX_JOBS", "2")})
    assert proc.returncode == 0, proc.stderr[-4000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["triad"]  # the listed ops still work beside it
    assert all(res["ok"].values()), res
    # each variant's entry was filled from that variant's own translation unit
    expected_lanes = {"AVX2": 8, "AVX512": 16}
    for isa, lanes in res["lanes"].items():
        assert lanes == expected_lanes.get(isa, lanes) and lanes >= 4, res
