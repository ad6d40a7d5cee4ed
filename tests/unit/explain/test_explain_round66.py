"""explain's sixty-sixth round, from test74's misses (NVIDIA Jetson boards): a torch built without torch.distributed,
ONNX Runtime's older refusal of a CUDA provider it lacks, torch's own CMake not finding nvToolsExt. The texts are
written for these tests from the libraries' own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text", [
    "AttributeError: module 'torch.distributed' has no attribute 'init_process_group'",
    "AttributeError: module 'torch.distributed' has no attribute 'all_reduce'",
    ">>> torch._C._c10d_init()\nAttributeError: module 'torch._C' has no attribute '_c10d_init'",
])
def test_the_distributed_api_missing_is_a_build_without_it(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-built-without-distributed" and r["layer"] == "torch-build"
    assert "USE_DISTRIBUTED=1" in _fix(r) and "is_available()" in _fix(r)


@pytest.mark.parametrize("text", [
    # added to torch.distributed long after 1.0: a torch older than the code, not a build without distributed
    "AttributeError: module 'torch.distributed' has no attribute 'device_mesh'",
    # a private name of torch._C that is not distributed's registration
    "AttributeError: module 'torch._C' has no attribute '_jit_pass_foo'",
])
def test_other_missing_names_keep_their_reading(text):
    assert diagnose.diagnose(text)["signature"] != "torch-built-without-distributed"


def test_onnxruntimes_older_value_error_is_the_cpu_package():
    r = diagnose.diagnose("ValueError: Specified provider 'CUDAExecutionProvider' is unavailable. Available providers: "
                          "'CPUExecutionProvider'")
    assert r["signature"] == "onnxruntime-without-cuda-provider" and r["layer"] == "torch-build"
    assert "onnxruntime-gpu" in _fix(r)


def test_torchs_cmake_without_nvtoolsext_names_nvtx3():
    r = diagnose.diagnose("CMake Error at cmake/public/cuda.cmake:70 (message):\n  Failed to find nvToolsExt\n"
                          "Call Stack (most recent call first):\n  cmake/Dependencies.cmake:43 (include)")
    assert r["signature"] == "cmake-nvtoolsext-target-missing" and r["layer"] == "toolchain"
    assert "NVTX 3" in _fix(r) and "third_party/NVTX" in _fix(r)
