"""explain's thirty-seventh round, from test37's misses (older GPUs and the releases that dropped them): a capability
floor stated after the GPU's own capability ("... with Cuda compute capability 3.0. The minimum required Cuda capability
is 3.5", "... (compute capability 7.0) is not supported on CUDA 13+ ... at least capability 7.5"), TensorFlow ignoring a
GPU older than its binaries, CUDA 13 dropping Maxwell, Pascal and Volta. The texts are written for these tests from
each message's form and NVIDIA's release notes, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_tensorflow_ignoring_an_older_gpu_is_its_build_floor():
    r = diagnose.diagnose("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1406] Ignoring visible gpu device (device: "
                          "0, name: GeForce GTX 780, pci bus id: 0000:02:00.0, compute capability: 3.5) with Cuda compute "
                          "capability 3.5. The minimum required Cuda capability is 5.2.")
    assert r["signature"] == "tensorflow-gpu-below-capability" and r["layer"] == "arch", r
    assert "TF_CUDA_COMPUTE_CAPABILITIES=3.5" in _fix(r) and "CUDA 11.8 or older" in _fix(r), _fix(r)


def test_cuda_13_dropping_pascal_is_a_cuda_12_build():
    r = diagnose.diagnose("Error: Your NVIDIA GeForce GTX 1080 GPU (compute capability 6.1) is not supported on CUDA 13+.\n"
                          "Please use a device with at least capability 7.5.")
    assert r["signature"] == "gpu-dropped-by-cuda-13" and r["layer"] == "arch", r
    assert "CUDA 12" in _fix(r) and "12.9" in r["explanation"], r


def test_a_gpu_at_the_floor_is_not_below_it():
    r = diagnose.diagnose("Found device with compute capability 7.5. The minimum required Cuda capability is 7.5.")
    assert r is None or r["signature"] not in ("tensorflow-gpu-below-capability", "gpu-below-capability-floor"), r
