"""explain's thirty-third round, from test33's misses (torch on accelerators other than NVIDIA's): MIOpen's status
codes decoded from its header, ROCm's libraries named by the package that ships them (installed but off the loader's
path under sudo, missing under WSL), CANN's libraries and its environment script, Intel's GPU stack (Level Zero
finding no GPU, its libraries, IPEX's torch check), glibc's static TLS reserve, the PyTorch index's ROCm builds on
Windows. The texts are written for these tests from each library's messages and documentation, not copied from the
corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import error_codes, native
from explain_answers import fix_of as _fix


def test_miopen_status_codes_come_from_its_header():
    code = error_codes.by_name("miopenStatusUnknownError")
    assert code is not None and code.value == 7 and code.layer == "rocm"
    assert "ROCm/MIOpen" in code.source
    assert error_codes.by_name("miopenStatusBadParm").layer == "not-environment"
    assert error_codes.by_name("miopenStatusSuccess").layer == "none"


def test_miopen_unknown_error_is_miopen_itself():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/conv.py\", line 549, in "
                          "_conv_forward\n    return F.conv2d(\nRuntimeError: miopenStatusUnknownError")
    assert r["layer"] == "rocm" and r["environment_problem"] is True, r
    assert "MIOPEN_LOG_LEVEL" in _fix(r) and "MIOPEN_USER_DB_PATH" in _fix(r), _fix(r)


def test_a_miopen_argument_error_is_the_program():
    r = diagnose.diagnose("RuntimeError: miopenStatusBadParm")
    assert r["layer"] == "not-environment" and r["environment_problem"] is False, r


@pytest.mark.parametrize("name, words", [
    ("libroctx64.so.4", "roctracer"), ("libamd_smi.so.26", "amd-smi-lib"), ("libamdhip64.so.6", "hip-runtime-amd"),
    ("librocm_smi64.so.7", "rocm-smi-lib"), ("libascendcl.so", "CANN"), ("libze_loader.so.1", "Level Zero"),
])
def test_accelerator_libraries_are_named_by_their_packages(name, words):
    info = native.library_provider(name)
    assert words in info["library"], info


def test_a_rocm_library_under_wsl_is_the_package_rocm_for_wsl_left_out():
    r = diagnose.diagnose("$ uname -r\n6.6.87.2-microsoft-standard-WSL2\n>>> import torch\nTraceback (most recent "
                          "call last):\n  File \"/home/u/venv/lib/python3.12/site-packages/torch/__init__.py\", line "
                          "427, in <module>\n    from torch._C import *\nImportError: librocprofiler64.so.1: cannot "
                          "open shared object file: No such file or directory")
    assert r["signature"] == "rocm-library-missing-wsl" and r["layer"] == "rocm", r
    assert "inside WSL" in _fix(r), _fix(r)


def test_a_rocm_library_lost_under_sudo_is_the_loader_path():
    r = diagnose.diagnose("$ export LD_LIBRARY_PATH=/opt/rocm/lib\n$ ./bench   # works\n$ sudo ./bench\n./bench: "
                          "error while loading shared libraries: libamdhip64.so.6: cannot open shared object file: No "
                          "such file or directory")
    assert r["signature"] == "rocm-library-not-on-loader-path" and r["layer"] == "env", r
    assert "ldconfig" in _fix(r) and "sudo env LD_LIBRARY_PATH" in _fix(r), _fix(r)


def test_a_rocm_library_simply_missing_keeps_the_rocm_answer():
    r = diagnose.diagnose("ImportError: libhipblaslt.so.0: cannot open shared object file: No such file or directory")
    assert r["signature"] == "rocm-library-missing" and r["layer"] == "rocm", r


def test_cann_libraries_want_the_toolkit_environment():
    r = diagnose.diagnose(">>> import torch_npu\nImportError: libhccl.so: cannot open shared object file: No such "
                          "file or directory")
    assert r["signature"] == "cann-library-not-found" and r["layer"] == "env", r
    assert "set_env.sh" in _fix(r) and "${HOME}" in _fix(r), _fix(r)


@pytest.mark.parametrize("line", [
    "Did NOT find matching ZE_DEVICE_TYPE_GPU device!",
    "terminate called after throwing an instance of 'sycl::_V1::runtime_error'\n  what():  No device of requested "
    "type available. -1 (PI_ERROR_DEVICE_NOT_FOUND)",
])
def test_oneapi_finding_no_gpu_is_the_compute_runtime(line):
    r = diagnose.diagnose(line)
    assert r["signature"] == "intel-gpu-not-found" and r["layer"] == "driver", r
    assert "libze-intel-gpu1" in _fix(r) and "render" in _fix(r), _fix(r)


def test_ipex_naming_its_torch_is_the_matching_release():
    r = diagnose.diagnose("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.3.*, but PyTorch "
                          "2.5.1+cxx11.abi is found. Please switch to the matching version and run again.")
    assert r["signature"] == "ipex-needs-other-torch" and r["layer"] == "toolchain", r
    assert "intel-extension-for-pytorch==2.5.*" in _fix(r) and "torch==2.3.*" in _fix(r), _fix(r)


def test_static_tls_preloads_the_library_the_message_names():
    r = diagnose.diagnose("  File \"/usr/lib/python3/dist-packages/cv2/__init__.py\", line 8, in <module>\n"
                          "ImportError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS "
                          "block")
    assert r["signature"] == "static-tls-exhausted" and r["layer"] == "env", r
    assert "LD_PRELOAD=/usr/lib/aarch64-linux-gnu/libgomp.so.1" in _fix(r), _fix(r)
    assert "optional_static_tls" in _fix(r), _fix(r)


def test_the_rocm_index_on_windows_is_linux_only():
    r = diagnose.diagnose("PS C:\\Users\\me> pip3 install torch --index-url https://download.pytorch.org/whl/rocm6.2\n"
                          "Looking in indexes: https://download.pytorch.org/whl/rocm6.2\nERROR: Could not find a version "
                          "that satisfies the requirement torch (from versions: none)\nERROR: No matching distribution "
                          "found for torch")
    assert r["signature"] == "torch-rocm-index-on-windows" and r["layer"] == "torch-build", r
    assert "WSL" in _fix(r) and "repo.radeon.com" in _fix(r), _fix(r)


def test_the_rocm_index_on_linux_is_not_the_windows_answer():
    r = diagnose.diagnose("$ pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\nERROR: Could not "
                          "find a version that satisfies the requirement torch (from versions: none)\nERROR: No "
                          "matching distribution found for torch")
    assert r is None or r["signature"] != "torch-rocm-index-on-windows", r


@pytest.mark.parametrize("op", ["addmm_impl_cpu_", "LayerNormKernelImpl"])
def test_a_cpu_kernel_without_half_is_the_model_in_half_precision_on_the_cpu(op):
    # with nothing in the text saying a GPU was meant and did not engage, the half-precision cast on the CPU is the
    # program's (the fifty-third round; test_explain_round53 covers the GPU-meant case)
    r = diagnose.diagnose("  File \"/app/venv/lib/python3.10/site-packages/torch/nn/modules/linear.py\", line 114, in "
                          f"forward\n    return F.linear(input, self.weight, self.bias)\nRuntimeError: \"{op}\" not "
                          "implemented for 'Half'")
    assert r["signature"] == "half-precision-on-cpu" and r["layer"] == "not-environment", r
    assert "float32" in _fix(r) and "model.to('cuda')" in _fix(r), _fix(r)


def test_a_dtype_missing_from_a_gpu_kernel_is_not_read_as_the_cpu():
    r = diagnose.diagnose("RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'")
    assert r is None or r["signature"] != "half-precision-on-cpu", r
