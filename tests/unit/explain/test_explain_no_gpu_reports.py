"""A program's own report that torch found no CUDA GPU (torch's autocast warning, Lightning's refusal, a program's
"no GPU found" / "running on CPU") reads as torch.cuda.is_available() returning False; in a text from a container it
is the container started without the GPU. The texts are written for these tests."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose


@pytest.mark.parametrize("text", [
    "UserWarning: User provided device_type of 'cuda', but CUDA is not available. Disabling",
    "lightning_fabric.utilities.exceptions.MisconfigurationException: GPUs requested but none are available.",
    "[!] CUDA ACCELERATION IS UNAVAILABLE",
    "No GPU found, using the CPU",
    "No CUDA GPUs were detected",
    "Warning: running on CPU now! Make sure your PyTorch version matches your CUDA.",
])
def test_a_program_reporting_no_gpu_is_torch_seeing_none(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "cuda-is-available-false" and r["layer"] == "torch-build", r


def test_the_same_words_from_a_container_are_the_container_without_the_gpu():
    r = diagnose.diagnose("I run the app with docker compose.\n/usr/local/lib/python3.10/site-packages/torch/amp/"
                          "autocast_mode.py:250: UserWarning: User provided device_type of 'cuda', but CUDA is not "
                          "available. Disabling")
    assert r["signature"] == "container-started-without-gpu" and r["layer"] == "container", r


def test_a_sentence_about_gpu_memory_is_not_a_missing_gpu():
    r = diagnose.diagnose("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                          "capacity of 23.65 GiB of which 1.02 GiB is free.")
    assert r["signature"] != "cuda-is-available-false", r
