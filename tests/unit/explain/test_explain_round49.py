"""explain's forty-ninth round, from test50's misses (inference runtimes and model export): ONNX Runtime's provider
library lacking a library it names (or a DLL on Windows) read with its release's CUDA/cuDNN majors, its TensorRT
provider, the TensorRT EP's engine decryption, torch.onnx's unsupported operators, OpenVINO's GPU plugin, and the
CPU-only reading of ONNX Runtime kept for the CPU package. The texts are written for these tests from the runtimes'
messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import inference_runtimes as rt
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")
_LINUX = ("[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] "
          "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
          "libonnxruntime_providers_cuda.so with error: {lib}: cannot open shared object file: No such file or directory")


@pytest.mark.parametrize("version, cuda, want", [
    ("1.17.1", "12", ("12.x", "8")), ("1.18.0", "12", ("12.x", "8")), ("1.18.1", "12", ("12.x", "9")),
    ("1.20.1", None, ("12.x", "9")), ("1.16.3", None, ("11.8", "8")), ("1.18.1", "11", ("11.8", "8")),
    ("1.11.0", None, ("11.4", "8")), ("1.3.0", None, ("10.1", "7")),
])
def test_the_requirements_table(version, cuda, want):
    b = rt.ort_cuda_build(version, cuda)
    assert (b["cuda"], b["cudnn"]) == want


@pytest.mark.parametrize("version, cuda", [("1.16.3", "12"), ("2.0.0", None), ("x", None), ("1.19.0", "10")])
def test_builds_that_do_not_exist(version, cuda):
    assert rt.ort_cuda_build(version, cuda) is None


@pytest.mark.parametrize("name, kind, major", [
    ("libcublasLt.so.11", "cuda", "11"), ("cublas64_12.dll", "cuda", "12"), ("libcudart.so.10.2", "cuda", "10"),
    ("libcufft.so.11", "cuda", None), ("libcudnn.so.8", "cudnn", "8"), ("cudnn_ops64_9.dll", "cudnn", "9"),
    ("libnvinfer.so.10", "tensorrt", "10"), ("libnvinfer_plugin.so.8.6.1", "tensorrt", "8"),
])
def test_library_names(name, kind, major):
    k = rt.library_kind(name)
    assert (k["kind"], k["major"]) == (kind, major)


def test_a_missing_cublas_names_the_builds_cuda():
    r = diagnose.diagnose(_LINUX.format(lib="libcublasLt.so.11"))
    assert r["signature"] == "onnxruntime-provider-needs-cuda-library" and r["layer"] == "libraries"
    assert "nvidia-cublas-cu11" in _fix(r) and "1.19 and later" in _fix(r)


def test_a_missing_cudnn_is_cudnn_and_its_major():
    r = diagnose.diagnose("I have CUDA 12.4\n" + _LINUX.format(lib="libcudnn.so.8"))
    assert r["signature"] == "onnxruntime-provider-needs-cudnn" and r["layer"] == "cudnn"
    assert 'nvidia-cudnn-cu12==8.*' in _fix(r)


def test_a_missing_tensorrt_library():
    text = _LINUX.format(lib="libnvinfer.so.10").replace("providers_cuda", "providers_tensorrt")
    r = diagnose.diagnose(text)
    assert r["signature"] == "onnxruntime-provider-needs-tensorrt" and "TensorRT 10" in _fix(r)


def test_the_cpu_reading_stays_for_a_list_without_cuda():
    r = diagnose.diagnose(">>> ort.get_available_providers()\n['AzureExecutionProvider', 'CPUExecutionProvider']\n"
                          "I installed onnxruntime-gpu but CUDA is not used")
    assert r["signature"] == "onnxruntime-without-cuda-provider"


def test_a_session_list_without_cuda_is_not_the_cpu_package():
    text = ("['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider']\n" +
            _LINUX.format(lib="libcublasLt.so.12") + "\nsession uses ['CPUExecutionProvider']")
    r = diagnose.diagnose(text)
    assert r["signature"] == "onnxruntime-provider-needs-cuda-library", r["signature"]


@pytest.mark.parametrize("spelling", ["LoadLibrary", "Loadlibrary"])
def test_windows_126_with_its_release_names_cudnn(spelling):
    text = ("onnxruntime-win-x64-cuda12-1.17.1 with cudnn 9\n" + spelling + " failed with error 126 \"\" when trying "
            "to load \"C:\\app\\onnxruntime_providers_cuda.dll\"")
    r = diagnose.diagnose(text)
    assert r["signature"] == "onnxruntime-provider-dll-dependency" and r["layer"] == "windows-runtime"
    assert "cuDNN 8" in _fix(r) and "1.18.1 and later" in _fix(r) and "PATH" in _fix(r)


def test_windows_127_says_another_version_came_first():
    r = diagnose.diagnose("LoadLibrary failed with error 127 \"\" when trying to load "
                          "\"D:\\x\\onnxruntime_providers_cuda.dll\"")
    assert r["signature"] == "onnxruntime-provider-dll-dependency" and "ERROR_PROC_NOT_FOUND" in r["explanation"]


def test_the_tensorrt_provider_alone():
    r = diagnose.diagnose("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance] "
                          "Failed to create TensorrtExecutionProvider. Please reference the requirements.")
    assert r["signature"] == "onnxruntime-tensorrt-provider-not-created" and "LD_LIBRARY_PATH" in _fix(r)


def test_the_tensorrt_provider_yields_to_cuda_failing_after_it():
    r = diagnose.diagnose("Failed to create TensorrtExecutionProvider. Please reference x\n"
                          "Failed to create CUDAExecutionProvider. Please reference y")
    assert r["signature"] != "onnxruntime-tensorrt-provider-not-created"


def test_engine_decryption_is_the_programs_option():
    r = diagnose.diagnose("tensorrt_execution_provider.cc:539 [ONNXRuntimeError] : 11 : EP_FAIL : TensorRT EP could "
                          "not open shared library from ")
    assert r["signature"] == "onnxruntime-trt-engine-decryption" and r["environment_problem"] is False
    assert "trt_engine_decryption_enable" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("text, op, added", [
    ("torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::unflatten' to ONNX opset version 11 "
     "is not supported. Please feel free to request support", "aten::unflatten", None),
    ("Exporting the operator 'aten::scaled_dot_product_attention' to ONNX opset version 11 is not supported. Support "
     "for this operator was added in version 14, try exporting with this version.",
     "aten::scaled_dot_product_attention", "14"),
    ("RuntimeError: Exporting the operator std_mean to ONNX opset version 12 is not supported. Please open a bug",
     "std_mean", None),
    ("RuntimeError: ONNX export failed: Couldn't export operator aten::upsample_bicubic2d", "aten::upsample_bicubic2d",
     None),
])
def test_onnx_export_operators(text, op, added):
    r = diagnose.diagnose(text)
    assert r["signature"] == "onnx-export-unsupported-operator" and r["layer"] == "not-environment", r
    assert op in r["title"] and not _INSTALL.search(_fix(r))
    if added:
        assert f"opset_version={added}" in _fix(r)
    assert "dynamo=True" in _fix(r)


def test_openvino_on_an_nvidia_gpu():
    r = diagnose.diagnose("failed to create engine: No OpenCL device found which would match provided configuration:\n"
                          "    NVIDIA GeForce RTX 3060: invalid vendor type")
    assert r["signature"] == "openvino-gpu-not-intel" and r["layer"] == "arch" and "CPU" in _fix(r)
    assert "RTX 3060" in r["title"]


@pytest.mark.parametrize("extra, layer", [("", "driver"), ("on an Intel(R) HD Graphics 4600 laptop\n", "arch")])
def test_openvino_without_an_opencl_platform(extra, layer):
    r = diagnose.diagnose(extra + "Failed to create plugin /opt/intel/openvino/lib/intel64/libclDNNPlugin.so for device "
                                  "GPU\n[CLDNN ERROR]. clGetPlatformIDs error -1001")
    assert r["signature"] == "openvino-no-opencl-platform" and r["layer"] == layer
    assert "intel-opencl-icd" in _fix(r) and "/dev/dri" in _fix(r)


def test_minus_1001_outside_openvino_is_not_this_rule():
    r = diagnose.diagnose("pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR -1001")
    assert r is None or r["signature"] != "openvino-no-opencl-platform"


def test_rusts_ort_crate_gets_its_own_fix():
    r = diagnose.diagnose("WARN apply_execution_providers: ort::execution_providers: An error occurred when attempting "
                          "to register `CUDAExecutionProvider`: CUDA execution provider is not enabled in this build.")
    assert r["signature"] == "onnxruntime-without-cuda-provider"
    assert "`cuda` Cargo feature" in _fix(r) and "ORT_LIB_LOCATION" in _fix(r) and "pip" not in _fix(r)
