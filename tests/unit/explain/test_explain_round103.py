"""explain's hundred-and-third round, from the misses of test174 to test178 (Hugging Face Spaces, Triton Inference
Server, ComfyUI's compiled dependencies, Rust ML, TensorFlow Lite): ZeroGPU's CUDA outside a task and a Space without
hardware, Triton's missing backend, TensorFlow Lite's delegates refusing a model, candle's nvcc without the GPU's
target, cudarc not knowing the toolkit, and a CUDA name a check compares against read as the error. The texts are
written for these tests from the programs' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract


def _r(text):
    return diagnose.diagnose(text)


def test_zerogpu_and_space_hardware():
    for text in ("RuntimeError: CUDA must not be initialized in the main process on Spaces with Stateless GPU "
                 "environment.", "RuntimeError: CUDA has been initialized before importing the `spaces` package"):
        r = _r(text)
        assert r["signature"] == "zerogpu-cuda-outside-task" and r["layer"] == "env", text
        assert "@spaces.GPU" in r["fix"] and "import spaces" in r["fix"]
    s = _r("Runtime error\nScheduling failure: not enough hardware capacity")
    assert s["signature"] == "space-hardware-unavailable" and s["layer"] == "container"


def test_triton_backend_and_tflite_delegates():
    t = _r("failed to load 'detector' version 1: Invalid argument: unable to find backend library for backend "
           "'pytorch', try specifying runtime on the model configuration.")
    assert t["signature"] == "triton-backend-missing" and t["layer"] == "container"
    assert "libtriton_pytorch.so" in t["explanation"] and "/opt/tritonserver/backends/pytorch/" in t["fix"]
    for text in ("java.lang.IllegalArgumentException: Internal error: Failed to apply delegate: Next operations are not "
                 "supported by GPU delegate:\n    GATHER: Operation is not supported.",
                 "E/tflite: Following operations are not supported by GPU delegate:\n    CAST: Not supported cast case",
                 "NN API returned error ANEURALNETWORKS_OP_FAILED at line 4000 while running computation."):
        r = _r(text)
        assert r["signature"] == "tflite-delegate-refused" and r["environment_problem"] is False, text
    # the delegate's exception outranks a graphics line logged beside it
    both = _r("E/libEGL: validate_display:99 error 3008 (EGL_BAD_DISPLAY)\nInternal error: Failed to apply delegate: "
              "ModifyGraphWithDelegate is disallowed when graph is immutable.")
    assert both["signature"] == "tflite-delegate-refused"


def test_rust_builds_candle_and_cudarc():
    c = _r("thread 'main' panicked at 'nvcc cannot target gpu arch 90. Available nvcc targets are [50, 52, 60, 61, 70, "
           "75, 80, 86].', candle-kernels/build.rs:145:17")
    assert c["signature"] == "nvcc-cannot-target-arch" and c["layer"] == "arch"
    assert "CUDA 11.8" in c["fix"] and "CUDA_COMPUTE_CAP" in c["fix"]
    d = _r("Unsupported cuda toolkit version: `13010`. Please raise a github issue.")
    assert d["signature"] == "cudarc-toolkit-unknown" and "13.1" in d["title"] and "cargo update -p cudarc" in d["fix"]


def test_a_name_a_check_compares_against_is_not_the_error():
    text = ("Check failed: (e == cudaSuccess || e == cudaErrorCudartUnloading) is false: CUDA: uncorrectable ECC error "
            "encountered")
    names = [c["name"] for c in extract.entities(text).codes]
    assert "cudaErrorCudartUnloading" not in names and "cudaErrorECCUncorrectable" in names
    assert _r(text)["layer"] == "driver"
