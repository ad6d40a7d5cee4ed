"""explain's seventy-fifth round, from the misses of test100 (ONNX Runtime and TensorRT on the GPU): TensorRT's own
messages (a file that is not an engine, "Unsupported SM", libnvinfer not found, a serialization assertion under ONNX
Runtime), ONNX Runtime's older provider-library message, Triton's PTX table, a UTF-16 paste. The texts are written for
these tests from the tools' own message formats, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.match import clean
from explain_answers import fix_of as _fix


def test_an_engine_whose_version_reads_zero_is_not_an_engine():
    r = diagnose.diagnose("[TRT] The engine plan file is not compatible with this version of TensorRT, expecting library "
                          "version 8.6.1 got 0.0.0, please rebuild.")
    assert r["signature"] == "tensorrt-engine-file-not-an-engine" and r["environment_problem"] is False
    assert "binary" in _fix(r)
    other = diagnose.diagnose("The engine plan file is not compatible with this version of TensorRT, expecting library "
                              "version 8.6.1 got 8.5.3, please rebuild.")
    assert other["signature"] == "tensorrt-engine-from-another-version" and "onnxruntime" not in _fix(other)


@pytest.mark.parametrize("text, sm", [
    ("[TensorRT] ERROR: Internal Error(Unsupported SM: 0x807, Assertion engine != nullptr failed.)", "8.7"),
    ("[TensorRT] ERROR: Internal Error(Unsupported SM: 0x1200, Assertion engine != nullptr failed.)", None),
    ("ERROR: ../rtSafe/cuda/caskUtils.cpp (98) - Assertion Error in trtSmToCask: 0 (Unsupported SM.)", None),
])
def test_tensorrt_without_kernels_for_the_gpu(text, sm):
    r = diagnose.diagnose(text)
    assert r["signature"] == "tensorrt-unsupported-sm" and r["layer"] == "arch"
    assert "Upgrade TensorRT" in _fix(r)
    if sm:
        assert f"compute capability {sm}" in r["title"]


def test_unsupported_sm_outside_tensorrt_is_not_read_as_tensorrts():
    r = diagnose.diagnose("kernel.cu: Unsupported SM")
    assert r.get("signature") != "tensorrt-unsupported-sm"


def test_libnvinfer_not_found_names_tensorrt_and_its_major():
    r = diagnose.diagnose("ImportError: libnvinfer.so.10: cannot open shared object file: No such file or directory")
    assert r["signature"] == "tensorrt-library-not-found" and r["layer"] == "libraries"
    assert "TensorRT 10" in r["title"] and "LD_LIBRARY_PATH" in _fix(r) and "nvidia-cudnn" not in _fix(r)


def test_a_serialization_assertion_under_onnx_runtime_names_its_tensorrt_requirement():
    r = diagnose.diagnose("[E:onnxruntime:Default, tensorrt_execution_provider.h:77 log] [TRT] 1: [stdArchiveReader.cpp::"
                          "StdArchiveReader::40] Error Code 1: Serialization (Serialization assertion sizeRead == "
                          "static_cast<uint64_t>(mEnd - mCurrent) failed.Size specified in header does not match archive "
                          "size)")
    assert r["signature"] == "tensorrt-engine-from-another-version"
    assert "required by your onnxruntime-gpu" in _fix(r) and "trt_engine_cache_path" in _fix(r)


def test_onnx_runtimes_older_provider_library_message_on_windows():
    r = diagnose.diagnose("[E:onnxruntime:test, provider_bridge_ort.cc:640 onnxruntime::ProviderLibrary::ProviderLibrary] "
                          "Failed to load library, error code: 126\nOrtSessionOptionsAppendExecutionProvider_Cuda: Failed "
                          "to load shared library")
    assert r["signature"] == "onnxruntime-provider-dll-dependency" and r["layer"] == "windows-runtime"
    assert "onnxruntime_providers_cuda.dll" in r["title"]


def test_the_cuda_provider_warning_without_its_period():
    r = diagnose.diagnose("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance] Failed "
                          "to create CUDAExecutionProvider")
    assert r["signature"] == "onnxruntime-cuda-libraries-not-loaded" and "  " not in r["title"]


def test_a_triton_whose_ptx_table_ends_before_the_cuda():
    r = diagnose.diagnose("RuntimeError: Triton only support CUDA 10.0 or higher, but got CUDA version: 13.1")
    assert r["signature"] == "triton-older-than-cuda" and r["layer"] == "arch" and "13.1" in r["title"]
    assert "pip install -U triton" in _fix(r)


def test_a_utf16_paste_with_its_nuls_as_spaces_is_joined_up():
    spaced = " ".join("[E:onnxruntime:Default] LoadLibrary failed") + " "
    assert clean(spaced).strip() == "[E:onnxruntime:Default] LoadLibrary failed"
    prose = "a b c d e f g h i j k l m n o p q r s t u v w x y z and then ordinary words"
    assert clean(prose) == prose


@pytest.mark.parametrize("text, mod", [
    ("Lmod has detected the following error:  The following module(s) are unknown: \"cuda/12.4\"\n\nPlease check the "
     "spelling or version number. Also try \"module spider ...\"\nImportError: No module named torch", "cuda/12.4"),
    ("ERROR: Unable to locate a modulefile for 'anaconda3/2024.02'\n/var/spool/slurmd/job1/slurm_script: line 9: conda: "
     "command not found", "anaconda3/2024.02"),
])
def test_a_module_the_site_does_not_know_comes_before_what_fails_after_it(text, mod):
    r = diagnose.diagnose(text)
    assert r["signature"] == "environment-module-unknown" and r["layer"] == "env" and mod in r["title"]
    assert "module spider" in _fix(r)


def test_the_busy_or_unavailable_sentence_in_lower_case():
    r = diagnose.diagnose("cuda error: all cuda-capable devices are busy or unavailable(malloc at THCCachingAllocator.cpp)")
    assert r["signature"] == "cuda-devices-busy" and r["layer"] == "env"


def test_torch_sys_failing_to_compile_its_wrapper_is_tchs_libtorch_version():
    r = diagnose.diagnose("  cargo:warning=libtch/torch_api.cpp:120:5: error: no matching function for call to 'at::lu'\n"
                          "  error occurred: Command \"c++\" \"-c\" \"libtch/torch_api.cpp\" with args \"c++\" did not "
                          "execute successfully (status code exit status: 1).")
    assert r["layer"] == "toolchain" and "tch release" in _fix(r)


def test_a_python_extension_loaded_into_libtorch():
    r = diagnose.diagnose("java.lang.UnsatisfiedLinkError: /opt/venv/lib/python3.10/site-packages/torchvision/_C.so: "
                          "libtorch_python.so: cannot open shared object file: No such file or directory")
    assert r["layer"] == "toolchain" and "against LibTorch" in _fix(r)


def test_torchsharp_without_its_cuda_backend():
    r = diagnose.diagnose("System.InvalidOperationException: CUDA non available in the current machine.\n   at "
                          "TorchSharp.torch.InitializeDeviceType(DeviceType deviceType)")
    assert r["layer"] == "torch-build" and "TorchSharp-cuda-windows" in _fix(r)


def test_cuda_jl_failing_to_initialise():
    r = diagnose.diagnose("┌ Error: CUDA.jl failed to initialize\n└ @ CUDA\nERROR: CUDA.jl did not successfully initialize, "
                          "and is not usable.")
    assert r["signature"] == "cuda-jl-not-initialised" and r["layer"] == "driver" and "nvidia_uvm" in _fix(r)
