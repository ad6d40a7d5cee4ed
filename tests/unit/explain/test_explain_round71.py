"""explain's seventy-first round, from test86's and test87's misses (AMD and Intel GPUs on Windows, choosing devices):
DirectML's E_INVALIDARG, ROCm under WSL 2, Triton's Intel backend without SYCL, torch 0.x's warning of a GPU newer than
its CUDA. The texts are written for these tests from the runtimes' own messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_directml_refusing_a_parameter_is_the_programs():
    r = diagnose.diagnose("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running Conv "
                          "node. Status Message: D:\\ort\\onnxruntime\\core\\providers\\dml\\DmlExecutionProvider\\src\\"
                          "DmlGraphFusionHelper.cpp(353)\\onnxruntime_pybind11_state.pyd!00007FF: 80070057 The parameter "
                          "is incorrect.")
    assert r["signature"] == "directml-parameter-refused" and r["layer"] == "not-environment"
    assert "enable_mem_pattern = False" in _fix(r)


def test_rocm_under_wsl_without_amdgpu():
    r = diagnose.diagnose("$ sudo modprobe amdgpu\nmodprobe: FATAL: Module amdgpu not found in directory "
                          "/lib/modules/6.6.36.6-microsoft-standard-WSL2")
    assert r["signature"] == "rocm-under-wsl" and r["layer"] == "wsl" and "--usecase=wsl,rocm" in _fix(r)


def test_rocm_not_loaded_outside_wsl_is_not_this_reading():
    r = diagnose.diagnose("$ rocminfo\nROCk module is NOT loaded, possibly no GPU devices")
    assert r["signature"] != "rocm-under-wsl"


def test_triton_intel_backend_without_sycl():
    r = diagnose.diagnose('  File "triton/backends/intel/driver.py", line 55, in find_sycl\nAssertionError: sycl headers '
                          "not found")
    assert r["signature"] == "triton-intel-without-sycl" and "intel-sycl-rt" in _fix(r)


def test_a_gpu_newer_than_the_builds_cuda():
    r = diagnose.diagnose("UserWarning: Found GPU0 NVIDIA TITAN V which requires CUDA_VERSION >= 9000 for\n     optimal "
                          "performance and fast startup time, but your PyTorch was compiled\n     with CUDA_VERSION 8000.")
    assert r["signature"] == "torch-cuda-older-than-gpu" and r["layer"] == "torch-build"
    assert "CUDA 9.0" in _fix(r) and "CUDA 8.0" in r["title"]
