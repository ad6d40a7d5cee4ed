"""explain's hundred-and-sixth round, from the misses of test189 to test193 (Arch Linux, scientific ML backends, voice
apps, bio-image analysis, weather models): DeepXDE's backend check, Colab's GPU-memory warning (JAX's preallocation),
ONNX Runtime's provider bridge failing to load on Windows, and a CUDA message located in a .cu file. The texts are
written for these tests from the programs' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def _r(text):
    return diagnose.diagnose(text)


def test_deepxde_backend():
    a = _r("deepxde/backend/__init__.py\nNotImplementedError: Unsupported backend: mxnet")
    assert a["signature"] == "deepxde-backend-refused" and a["layer"] == "env" and "DDE_BACKEND" in a["fix"]
    b = _r("RuntimeError: Backend is set as pytorch, but 'pytorch' failed to import.")
    assert b["signature"] == "deepxde-backend-refused" and "not importable" in b["explanation"]


def test_colab_gpu_memory_warning():
    jax = _r("import jax\nGPU memory usage is close to the limit\nYour GPU is close to its memory limit.")
    assert jax["signature"] == "jax-preallocation" and "XLA_PYTHON_CLIENT_PREALLOCATE" in jax["fix"]
    plain = _r("Your GPU is close to its memory limit. You will not be able to use any additional memory in this session.")
    assert plain["signature"] == "notebook-gpu-memory-reserved" and plain["layer"] == "env"


def test_onnxruntime_provider_bridge_on_windows():
    r = _r("[E:onnxruntime:Default, provider_bridge_ort.cc:1000 onnxruntime::ProviderSharedLibrary::Ensure] Failed to "
           "load library, error code: 126\n[W:onnxruntime:Default, onnxruntime_pybind_state.cc:1600 "
           "onnxruntime::python::pybind11_init_onnxruntime_pybind11_state] Init provider bridge failed.")
    assert r["signature"] == "onnxruntime-provider-dll-dependency" and r["layer"] == "windows-runtime"


def test_a_cuda_message_located_in_a_cu_file():
    r = _r("Error in the first sweep: invalid device function from file /src/kernels.cu, line 206")
    assert r["layer"] == "arch" and "invaliddevicefunction" in r["signature"]
