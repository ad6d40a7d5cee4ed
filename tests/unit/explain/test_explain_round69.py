"""explain's sixty-ninth round, from test84's and test85's misses (CUDA's math libraries, building GPU container
images): NVIDIA's rotated apt key, nvcc outside devel images, nvidia/cuda without a latest tag, a CUDA library's
function the headers no longer declare. The texts are written for these tests from the tools' own messages, not copied
from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_nvidias_rotated_key_in_an_image_build():
    r = diagnose.diagnose("#7 1.203 W: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2004/"
                          "x86_64  InRelease: The following signatures couldn't be verified because the public key is "
                          "not available: NO_PUBKEY A4B469963BF863CC")
    assert r["signature"] == "nvidia-repository-key-rotated" and r["layer"] == "container"
    assert "cuda-keyring" in _fix(r) and "Dockerfile" in _fix(r)


def test_nvidias_rotated_key_on_a_host():
    r = diagnose.diagnose("$ sudo apt-get update\nW: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/"
                          "ubuntu2204/x86_64  InRelease: NO_PUBKEY A4B469963BF863CC")
    assert r["signature"] == "nvidia-repository-key-rotated" and r["layer"] == "toolchain"
    assert "sudo dpkg -i" in _fix(r)


def test_another_repositorys_missing_key_is_not_nvidias():
    r = diagnose.diagnose("W: GPG error: http://ppa.launchpad.net/deadsnakes/ppa/ubuntu focal InRelease: NO_PUBKEY "
                          "BA6932366A755776")
    assert r["signature"] != "nvidia-repository-key-rotated"


def test_nvcc_exec_in_a_runtime_image():
    r = diagnose.diagnose('docker: Error response from daemon: failed to create task: OCI runtime create failed: '
                          'exec: "nvcc": executable file not found in $PATH: unknown.')
    assert r["signature"] == "nvcc-not-in-image" and r["layer"] == "container" and "devel" in _fix(r)


def test_nvidia_cuda_latest_names_a_version_tag():
    r = diagnose.diagnose("Error response from daemon: manifest for nvidia/cuda:latest not found: manifest unknown: "
                          "manifest unknown")
    assert r["signature"] == "cuda-image-tag-gone" and "nvidia/cuda:12.4.1-runtime-ubuntu22.04" in _fix(r)


@pytest.mark.parametrize("text", [
    'kernel.cu(40): error: identifier "cusparseScsrmv" is undefined',
    "sparse.cpp:12:5: error: 'cusparseDcsr2csc' was not declared in this scope",
    "Error\tC3861\t'cusparseSgthr': identifier not found\tproj\tC:\\src\\a.cpp\t10",
])
def test_a_cusparse_routine_the_headers_no_longer_declare(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "cuda-library-api-removed" and r["layer"] == "toolchain"
    assert "generic API" in _fix(r) and "CUDA 10.2" in _fix(r)


def test_a_cublas_function_undeclared_names_cublas():
    r = diagnose.diagnose('gemm.cu(8): error: identifier "cublasSgemmEx_64" is undefined')
    assert r["signature"] == "cuda-library-api-removed" and "cuBLAS" in r["title"]
