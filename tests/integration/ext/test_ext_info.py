"""build_info() / runtime_info() against what torch, nvcc and the loader say independently.

Uses the extension of the running torch (the AOT build of `pip install --no-build-isolation .`, or a JIT
build into TORCH_ENVCHECK_CACHE on first use).  The cases that need no compiled extension (unavailable,
build refused, torch missing) run in child processes with an empty cache.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import torch_envcheck  # noqa: E402
from torch_envcheck.ext import toolchain  # noqa: E402

from _ext_helpers import REPO, base_env, json_from, run_py  # noqa: E402


def _can_dlopen(name: str) -> bool:
    try:
        ctypes.CDLL(name)
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def binfo():
    info = torch_envcheck.build_info()
    assert info["available"], f"extension unavailable: {info.get('reason')}"
    return info


@pytest.fixture(scope="module")
def rinfo(binfo):
    info = torch_envcheck.runtime_info()
    assert info["available"], f"extension unavailable: {info.get('reason')}"
    return info


def _matching_nvcc():
    """An nvcc whose CUDA major version equals torch's, found independently of the build plan."""
    want = toolchain.major_minor(torch.version.cuda)
    for cand in toolchain.nvcc_candidates():
        if not cand["toolkit_found"]:
            continue
        out = subprocess.run([cand["path"], "--version"], capture_output=True, text=True).stdout
        version = toolchain.parse_nvcc_version(out)
        have = toolchain.major_minor(version)
        if have and want and have[0] == want[0]:
            return cand["path"], version
    return None, None


def test_build_info_is_json_and_has_extension_block(binfo):
    json.dumps(binfo)  # plain data only
    ext = binfo["extension"]
    assert ext["state"] == "ok"
    assert ext["mode"] in ("aot", "jit")
    assert ext["built_against"] == torch.__version__
    assert ext["rebuild_command"] == "torch-envcheck build"


def test_build_facts_match_running_torch_and_python(binfo):
    headers = binfo["torch_headers"]
    assert headers["version"] == torch.__version__.split("+")[0]
    assert headers["matches_running_torch"] is True
    assert binfo["python"]["headers_version"] == platform.python_version()
    assert binfo["built_as"] == "python-extension"
    # The C++ ABI flag must equal torch's, or the extension would not link against libtorch at all.
    assert binfo["compiler"]["glibcxx_use_cxx11_abi"] == int(torch._C._GLIBCXX_USE_CXX11_ABI)
    assert binfo["compiler"]["cplusplus"] >= 201703
    assert binfo["openmp"]["enabled"] is True  # buildcfg compiles with -fopenmp
    assert binfo["cpu_isa"]["arch"] == platform.machine().replace("arm64", "aarch64")
    if platform.machine() == "x86_64":
        assert "SSE2" in binfo["cpu_isa"]["host_code"]


def test_cuda_build_facts_agree_with_nvcc(binfo):
    meta_cuda = binfo["build_meta"]["cuda"]
    if torch.version.cuda is None:
        assert binfo["cuda_compiled"] is False
        assert binfo["cuda"] is None
        assert "CPU-only build" in binfo["cuda_reason"]
        return
    nvcc, version = _matching_nvcc()
    if nvcc is None or os.environ.get("TORCH_ENVCHECK_DISABLE_CUDA"):
        assert binfo["cuda_compiled"] is False
        assert binfo["cuda_reason"], "a CPU-only build of a CUDA torch must say why"
        pytest.skip(f"CUDA part not compiled here: {binfo['cuda_reason']}")
    assert binfo["cuda_compiled"] is True
    cuda = binfo["cuda"]
    # nvcc's own macros, compiled in, against `nvcc --version` run now.
    assert cuda["nvcc_version"] == version == meta_cuda["nvcc_version"]
    assert cuda["nvcc_version"].split(".")[0] == torch.version.cuda.split(".")[0]
    assert cuda["cuda_h_version"] // 1000 == int(torch.version.cuda.split(".")[0])
    # __CUDA_ARCH_LIST__ (virtual archs) equals the arches of the gencode plan (SASS and PTX together).
    gencode = cuda["gencode"]
    planned = {int(code.split("_")[1].rstrip("af")) * 10 for code in gencode["sass"] + gencode["ptx"]}
    assert set(cuda["arch_list"]) == planned
    assert binfo["cudnn_headers"]["found"] is True
    assert binfo["cudnn_headers"]["version_int"] // 10000 == torch.backends.cudnn.version() // 10000


def test_kernel_isa_merged_when_the_op_exists(binfo):
    kernels = binfo["cpu_isa"]["kernels"]
    try:
        op = torch.ops.envcheck.cpu_kernel_isa
    except (AttributeError, RuntimeError):
        assert kernels is None
        return
    assert kernels == json.loads(op())
    assert "compiled" in kernels and "selected" in kernels


def test_runtime_without_driver_is_a_fact_not_a_crash(rinfo):
    json.dumps(rinfo)
    if _can_dlopen("libcuda.so.1"):
        pytest.skip("an NVIDIA driver library is installed here; this test is for machines without one")
    assert rinfo["driver_present"] is False
    assert rinfo["driver"]["library"]["loaded"] is False
    assert "libcuda.so.1" in rinfo["driver"]["library"]["error"]
    assert rinfo["error"] is None
    if not rinfo["cuda_compiled"]:
        assert rinfo["cuda"] is None
        return
    cuda = rinfo["cuda"]
    assert cuda["driver_version"] == 0  # cudaDriverGetVersion: success, 0 without a driver
    assert cuda["device_count"] is None
    assert cuda["devices"] == []
    assert cuda["error"]["name"] == "cudaErrorInsufficientDriver"
    assert cuda["error"]["message"]


def test_runtime_libraries_are_torchs(rinfo):
    libs = rinfo["loaded_libraries"]
    assert libs["error"] is None
    torch_lib = os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib"))
    assert libs["c10"] and libs["libtorch"]
    for path in libs["c10"] + libs["libtorch"]:
        assert os.path.isfile(path)
        assert os.path.realpath(os.path.dirname(path)) == torch_lib
    if rinfo["cuda_compiled"]:
        # torch loaded its libcudart first; ours resolves to the same copy by soname.
        assert len(libs["cudart"]) == 1
        assert rinfo["cuda"]["runtime_version_string"] == torch.version.cuda


def test_runtime_cudnn_and_cublas(rinfo):
    cudnn, cublas = rinfo["cudnn"], rinfo["cublas"]
    if torch.version.cuda is None:
        assert cudnn["library"]["loaded"] == (_can_dlopen("libcudnn.so.9") or _can_dlopen("libcudnn.so"))
        if not cudnn["library"]["loaded"]:
            assert "libcudnn" in cudnn["library"]["error"]
            assert cudnn["handle_without_device"]["ok"] is False
        return
    # The same cuDNN torch uses, found by soname: the version must be torch's.
    assert cudnn["library"]["loaded"] and cudnn["library"]["already_loaded"]
    assert cudnn["version"] == torch.backends.cudnn.version()
    assert cudnn["library"]["path"] in rinfo["loaded_libraries"]["cudnn"]
    assert cudnn["cudart_version"] // 1000 == int(torch.version.cuda.split(".")[0])
    assert cublas["library"]["loaded"]
    assert cublas["library"]["path"] in rinfo["loaded_libraries"]["cublas"]
    assert cublas["version_string"].split(".")[0] == torch.version.cuda.split(".")[0]
    if not rinfo["driver_present"]:
        assert cudnn["handle_without_device"]["status"] == "CUDNN_STATUS_NOT_INITIALIZED"
        assert cublas["handle_without_device"]["status"] == "CUBLAS_STATUS_NOT_INITIALIZED"
    else:
        for dev in rinfo["cuda"]["devices"]:
            assert "ok" in dev["cudnn_handle"] and "ok" in dev["cublas_handle"]


def test_runtime_python_facts(rinfo):
    py = rinfo["python"]
    assert py["torch_version"] == torch.__version__
    assert py["torch_cuda"] == torch.version.cuda
    assert py["torch_cudnn"] == torch.backends.cudnn.version()


@pytest.mark.gpu
def test_kernel_image_on_each_device(rinfo):
    devices = rinfo["cuda"]["devices"]
    assert len(devices) == torch.cuda.device_count()
    for dev in devices:
        cc = torch.cuda.get_device_capability(dev["index"])
        assert (dev["major"], dev["minor"]) == cc
        image = dev["kernel_image"]
        if image["available"]:
            assert image["launch"]["ok"], image
        else:
            assert image["error"]["name"] == "cudaErrorNoKernelImageForDevice"


def _child(code: str, extra_env: dict | None = None, python: str = sys.executable, tmp_path=None):
    env = base_env(python, str(tmp_path / "cache"))
    env["TORCH_ENVCHECK_IGNORE_AOT"] = "1"  # no binary at all: neither installed nor cached
    env["PYTHONPATH"] = REPO
    env.update(extra_env or {})
    return run_py(python, code, env, cwd=str(tmp_path))


def test_import_is_cheap_and_creates_no_cuda_context(tmp_path):
    code = ("import sys, json, torch_envcheck; before = 'torch' in sys.modules; "
            "b = torch_envcheck.build_info(build=False); import torch; "
            "print(json.dumps({'torch_before': before, 'cuda_init': torch.cuda.is_initialized()}))")
    out = json_from(_child(code, tmp_path=tmp_path))
    assert out == {"torch_before": False, "cuda_init": False}


def test_unavailable_extension_is_reported_not_raised(tmp_path):
    code = ("import json, torch_envcheck as t; "
            "print(json.dumps([t.build_info(build=False), t.runtime_info(build=False)]))")
    b, r = json_from(_child(code, tmp_path=tmp_path))
    for part in (b, r):
        assert part["available"] is False
        assert "torch-envcheck build" in part["reason"]
        assert part["extension"]["state"] == "missing"
    assert r["python"]["torch_version"] == torch.__version__


def test_refused_build_is_build_failed(tmp_path):
    # Required and disabled at once: the build plan refuses before any compiler runs.
    env = {"TORCH_ENVCHECK_REQUIRE_CUDA": "1", "TORCH_ENVCHECK_DISABLE_CUDA": "1"}
    code = "import json, torch_envcheck as t; print(json.dumps(t.build_info(build=True)))"
    b = json_from(_child(code, env, tmp_path=tmp_path))
    assert b["available"] is False
    assert b["extension"]["state"] == "build-failed"
    assert "TORCH_ENVCHECK_REQUIRE_CUDA=1" in b["reason"]


def test_torch_missing(tmp_path):
    code = ("import sys, json; sys.modules['torch'] = None; import torch_envcheck as t; "
            "print(json.dumps([t.build_info(), t.runtime_info()]))")
    b, r = json_from(_child(code, tmp_path=tmp_path))
    assert b["available"] is False and b["extension"]["state"] == "torch-missing"
    assert "torch" in b["reason"]
    assert r["python"]["error"].startswith("torch is not importable")


def test_info_command(tmp_path):
    # The command module on its own (cli.main would import every other command's module too).
    code = ("import argparse; from torch_envcheck.commands import info as info_cli; p = argparse.ArgumentParser(); "
            "info_cli.add_arguments(p); raise SystemExit(info_cli.run(p.parse_args(['--no-build', '--compact'])))")
    proc = _child(code, tmp_path=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"build_info", "runtime_info"}
    assert "not available" in proc.stderr
