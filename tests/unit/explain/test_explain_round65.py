"""explain's sixty-fifth round, from test75's misses (building PyTorch itself from source): torch's GCC floor, CMake
not finding MKL, NCCL 1 where the build needs NCCL 2's API. The texts are written for these tests from the build's own
messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_torchs_gcc_floor_names_the_compiler_to_use():
    r = diagnose.diagnose('c10/util/C++17.h:27:2: error: #error "You\'re trying to build PyTorch with a too old version '
                          'of GCC. We need GCC 9 or later."')
    assert r["signature"] == "torch-build-gcc-too-old" and r["layer"] == "toolchain" and "CXX=g++-9" in _fix(r)


@pytest.mark.parametrize("text", [
    "-- Checking for [mkl_intel_lp64 - mkl_gnu_thread - mkl_core - gomp - pthread - m]\n--   Library mkl_intel_lp64: not found",
    "CMake Warning at cmake/Dependencies.cmake:150 (message):\n  MKL could not be found.  Defaulting to Eigen",
])
def test_cmake_not_finding_mkl(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "cmake-mkl-not-found" and r["layer"] == "libraries" and "CMAKE_PREFIX_PATH" in _fix(r)


@pytest.mark.parametrize("text", [
    "build/lib/libtorch_cuda.so: undefined reference to `ncclGroupStart'\ncollect2: error: ld returned 1 exit status",
    "ProcessGroupNCCL.cpp:30:15: error: 'ncclInt8' was not declared in this scope",
])
def test_an_nccl_1_where_the_build_needs_nccl_2(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "nccl1-where-nccl2-needed" and "USE_SYSTEM_NCCL" in _fix(r)
