"""The stand-alone LibTorch program (CMakeLists.txt, csrc/app): configure, build and run its CTest in a
temporary build directory, then compare what it prints with what torch says in Python.

With a CUDA torch the CUDA probes are compiled too (WITH_CUDA=ON): LibTorch's CMake config needs the
CUDA toolkit for a CUDA torch anyway."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

torch = pytest.importorskip("torch")

from torch_envcheck.ext import toolchain  # noqa: E402

from _ext_helpers import REPO  # noqa: E402

pytestmark = pytest.mark.slow


def _toolkit():
    want = toolchain.major_minor(torch.version.cuda)
    for cand in toolchain.nvcc_candidates():
        have = toolchain.major_minor(toolchain.nvcc_version(cand["path"])["version"])
        if cand["toolkit_found"] and have and want and have[0] == want[0]:
            return cand
    return None


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    cmake = shutil.which("cmake")
    ctest = shutil.which("ctest")
    if not cmake or not ctest:
        pytest.skip("cmake/ctest not on PATH (install CMake >= 3.19, e.g. pip install cmake)")
    build = tmp_path_factory.mktemp("cmake-build")
    import torch.utils  # noqa: PLC0415
    args = [cmake, "-S", REPO, "-B", str(build), f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}"]
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    with_cuda = torch.version.cuda is not None
    if with_cuda:
        kit = _toolkit()
        if kit is None:
            pytest.skip(f"a CUDA {torch.version.cuda} torch needs a matching CUDA toolkit for LibTorch's CMake "
                        "config; no matching nvcc found")
        args += ["-DWITH_CUDA=ON", f"-DCUDA_TOOLKIT_ROOT_DIR={kit['cuda_home']}",
                 f"-DCMAKE_CUDA_COMPILER={os.path.join(kit['cuda_home'], 'bin', 'nvcc')}"]
    env = dict(os.environ, MAX_JOBS="2")
    for step in (args, [cmake, "--build", str(build), "-j", "2"]):
        proc = subprocess.run(step, capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, f"{' '.join(step)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return build, with_cuda


def test_ctest_passes(program):
    build, _ = program
    proc = subprocess.run(["ctest", "--output-on-failure"], cwd=str(build), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "100% tests passed" in proc.stdout


def test_program_agrees_with_torch(program):
    build, with_cuda = program
    exe = os.path.join(str(build), "envcheck_info")
    out = json.loads(subprocess.run([exe], capture_output=True, text=True, check=True, timeout=120).stdout)
    b, r = out["build_info"], out["runtime_info"]
    assert b["built_as"] == "cpp-program"
    assert b["torch_headers"]["version"] == torch.__version__.split("+")[0]
    assert b["compiler"]["glibcxx_use_cxx11_abi"] == int(torch._C._GLIBCXX_USE_CXX11_ABI)
    assert b["cuda_compiled"] is with_cuda and r["cuda_compiled"] is with_cuda
    torch_lib = os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib"))
    assert all(os.path.realpath(os.path.dirname(p)) == torch_lib for p in r["loaded_libraries"]["c10"])
    assert out["libtorch"]["num_threads"] >= 1
    assert out["libtorch"]["cuda_is_available"] == torch.cuda.is_available()
    if with_cuda:
        assert b["cuda"]["nvcc_version"].split(".")[0] == torch.version.cuda.split(".")[0]
        # libtorch_cuda loads cuDNN through its RPATH; the program finds the same library by soname.
        assert r["cudnn"]["version"] == torch.backends.cudnn.version()
        assert r["cuda"]["devices"] == [] or len(r["cuda"]["devices"]) == torch.cuda.device_count()
