"""explain's fifty-seventh round, from test58's misses (CUDA's libraries as Python wheels): a user's nvidia-* pin
against torch's, an index that does not serve an nvidia-* wheel torch depends on, and NCCL's kernels missing for the
GPU. The texts are written for these tests from pip's, uv's and NCCL's messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_users_nvidia_pin_against_torchs():
    r = diagnose.diagnose("ERROR: Cannot install torch==2.5.1 and nvidia-cublas-cu12==12.6.4.1 because these package "
                          "versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested "
                          "nvidia-cublas-cu12==12.6.4.1\n    torch 2.5.1 depends on nvidia-cublas-cu12==12.4.5.8; "
                          'platform_system == "Linux" and platform_machine == "x86_64"')
    assert r["signature"] == "nvidia-wheel-pin-conflict" and r["layer"] == "libraries"
    assert "Drop the nvidia-cublas-cu12 pin" in _fix(r) and "12.4.5.8" in r["title"]


def test_an_index_without_an_nvidia_wheel_torch_needs():
    r = diagnose.diagnose("  × No solution found when resolving dependencies\nAdditionally, some packages in these "
                          "conflicts have no matching distributions available for your environment:\n    nvidia-nvshmem-cu12")
    assert r["signature"] == "nvidia-wheel-not-served" and r["layer"] == "torch-build"
    assert "--extra-index-url https://pypi.org/simple" in _fix(r)


def test_nccl_without_the_gpus_architecture():
    r = diagnose.diagnose("node1:123:456 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'\n"
                          "node1:123:456 [0] NCCL INFO init.cc:1475 -> 1")
    assert r["signature"] == "nccl-without-gpu-arch" and r["layer"] == "arch"
    assert "NVCC_GENCODE" in _fix(r)


def test_a_cuda_named_symbol_error_outside_nccl_is_not_read_as_nccl():
    r = diagnose.diagnose("RuntimeError: CUDA error: named symbol not found")
    assert r is None or r["signature"] != "nccl-without-gpu-arch"
