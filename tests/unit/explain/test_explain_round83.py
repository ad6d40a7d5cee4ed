"""explain's eighty-third round, from the misses of test121 (scientific and biology models): nvcc finding no host
compiler on PATH ahead of the failures that follow it, and a CUDA error number after an exclamation mark. The texts are
written for these tests from the tools' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_nvcc_without_cl_exe_is_the_developer_environment_before_the_module_that_never_built():
    r = diagnose.diagnose("nvcc fatal   : Cannot find compiler 'cl.exe' in PATH\nError loading CUDA module: "
                          "CUDA_ERROR_FILE_NOT_FOUND (301)")
    assert r["signature"] == "nvcc-host-compiler-not-found" and r["layer"] == "toolchain"
    assert "vcvars64.bat" in _fix(r) and "Desktop development with C++" in _fix(r)


def test_nvcc_without_its_linux_host_compiler_names_ccbin():
    r = diagnose.diagnose("nvcc fatal   : Cannot find compiler 'g++-12' in PATH")
    assert r["signature"] == "nvcc-host-compiler-not-found" and "NVCC_CCBIN" in _fix(r) and "g++-12" in _fix(r)


def test_a_cuda_error_number_after_an_exclamation_mark_decodes():
    r = diagnose.diagnose("solver: CUDA error! 2")
    assert r["signature"] == "code-cudaerror-memoryallocation" and r["environment_problem"] is False
