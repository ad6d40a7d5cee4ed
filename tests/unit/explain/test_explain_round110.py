"""explain's hundred-and-tenth round, from the misses of test209 to test213: an NGC container's start-up check for a
GPU newer than its release, and clap's (Rust command lines) refusal of a GPU device the build does not offer. The
texts are written for these tests from the programs' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_an_ngc_release_older_than_the_gpu():
    r = diagnose.diagnose("== PyTorch ==\nWARNING: Detected NVIDIA NVIDIA GeForce RTX 5090 GPU, which is not yet "
                          "supported in this version of the container\nERROR: No supported GPU(s) detected to run this "
                          "container")
    assert r["signature"] == "ngc-image-older-than-gpu" and r["layer"] == "arch" and r["environment_problem"]
    # the GPU's generation from the table: a Blackwell GeForce is sm_120, first built by CUDA 12.8
    assert "12.8" in r["fix"] and "nvcr.io/nvidia/" in r["fix"] and "NVIDIA_DISABLE_REQUIRE" in r["fix"]
    # a GPU the table does not know: still the container's release, without a made-up CUDA
    other = diagnose.diagnose("WARNING: Detected NVIDIA Frobnicator X GPU, which is not yet supported in this version "
                              "of the container")
    assert other["signature"] == "ngc-image-older-than-gpu" and "released after the GPU" in other["fix"]


def test_clap_refusing_a_gpu_device_the_build_lacks():
    r = diagnose.diagnose("error: invalid value 'cuda' for '--device <DEVICE>'\n  [possible values: cpu, cuda-12]\n\n"
                          "For more information, try '--help'.")
    assert r["signature"] == "gpu-choice-under-another-name"  # CUDA under another name: the program's question
    # another vendor's backend does not serve an NVIDIA GPU: the build lacks CUDA
    metal = diagnose.diagnose("error: invalid value 'cuda' for '--device <DEVICE>'\n  [possible values: cpu, metal]\n")
    assert metal["signature"] == "gpu-choice-not-offered"
    cpu_only = diagnose.diagnose("error: invalid value 'cuda' for '--device <DEVICE>'\n  [possible values: cpu]\n")
    assert cpu_only["signature"] == "gpu-choice-not-offered" and cpu_only["layer"] == "gpu-unused"
    assert "--features cuda" in cpu_only["fix"] and "onnxruntime" not in cpu_only["fix"]
