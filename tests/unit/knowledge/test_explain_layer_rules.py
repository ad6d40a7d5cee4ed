"""The layer rules (explain/layer_rules/) generalise: they read the structure of a text, so they answer for
packages, libraries and codes no example named.  The texts here are built from the naming schemes (a made-up
package, any CUDA major, any code of a decoded family), not copied from threads."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from torch_envcheck.explain import diagnose, owners
from torch_envcheck.knowledge import error_codes

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)


@pytest.mark.parametrize("module, package", [
    ("zorbax_cuda", "zorbax"), ("quillkit_ext", "quillkit"), ("_C", "fancyops"), ("mesh_render_2_cuda", "mesh_render"),
])
@pytest.mark.parametrize("symbol", ["_ZN3c104cuda9SetDeviceEi", "_ZNK2at6Tensor6deviceEv",
                                    "_ZN5torch8autograd12VariableInfoC1ERKN2at6TensorE"])
def test_any_package_with_a_torch_abi_symbol_is_built_for_another_torch(module, package, symbol):
    folder = f"/srv/env/lib/python3.11/site-packages/{package}/" if module == "_C" else "/srv/env/lib/python3.11/site-packages/"
    text = f"ImportError: {folder}{module}.cpython-311-x86_64-linux-gnu.so: undefined symbol: {symbol}"
    r = diagnose.diagnose(text)
    assert (r["signature"], r["layer"], r["environment_problem"]) == ("extension-abi-mismatch", "toolchain", True)
    assert package in r["fix"]
    assert not re.search(r"pip install[^\n]{0,80}\btorch\b(?![_-])", r["fix"]), r["fix"]  # never torch itself


def test_torch_s_own_library_missing_a_torch_symbol_is_two_torches():
    r = diagnose.diagnose("ImportError: /env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: "
                          "undefined symbol: _ZN3c1010TensorImpl12set_sizes_ENS_8ArrayRefIlEE")
    assert r["layer"] == "torch-build" and r["signature"] == "torch-libraries-mixed"


@pytest.mark.parametrize("pkg", ["xformers", "flashbake", "wavekit"])
def test_built_for_line_of_any_package(pkg):
    text = (f"{pkg} was built for:\n    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.4.1+cu121)\n"
            f"    Python  3.10.14 (you have 3.10.12)")
    r = diagnose.diagnose(text)
    assert r["layer"] == "toolchain" and pkg in r["fix"] and "2.4.1" in r["fix"]
    cpu = diagnose.diagnose(text.replace("2.4.1+cu121", "2.3.0+cpu"))
    assert cpu["layer"] == "torch-build" and "download.pytorch.org/whl/cu121" in cpu["fix"]


@pytest.mark.parametrize("lib, words", [
    ("libcublasLt.so.12", ["nvidia-cublas-cu12"]), ("libcusolver.so.12", ["nvidia-cusolver"]),
    ("libcufft.so.11", ["nvidia-cufft-cu12"]), ("libnvJitLink.so.13", ["nvidia-nvjitlink"]),
])
def test_missing_cuda_library_names_the_wheel_of_its_cuda_major(lib, words):
    r = diagnose.diagnose(f"OSError: {lib}: cannot open shared object file: No such file or directory")
    assert r["environment_problem"] and all(w in r["fix"] for w in words), r["fix"]


@pytest.mark.parametrize("lib, wheel", [("nccl", "nvidia-nccl-cu12"), ("cusparse", "nvidia-cusparse-cu12")])
def test_a_cuda_library_symbol_missing_is_two_versions_of_that_library(lib, wheel):
    sym = {"nccl": "ncclCommWindowRegister", "cusparse": "cusparseSpSV_updateMatrix"}[lib]
    r = diagnose.diagnose(f"ImportError: /env/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: {sym}\n"
                          "torch 2.7.0+cu126")
    assert r["layer"] == "libraries" and "LD_LIBRARY_PATH" in r["fix"] and wheel in r["fix"], r["fix"]


@pytest.mark.parametrize("tag, layer_word", [("GLIBCXX_3.4.31", "libstdc"), ("CXXABI_1.3.14", "libstdc"),
                                             ("GLIBC_2.34", "glibc")])
def test_symbol_version_tags_are_the_c_runtime(tag, layer_word):
    lib = "/usr/lib64/libstdc++.so.6" if not tag.startswith("GLIBC_") else "/lib64/libc.so.6"
    r = diagnose.diagnose(f"ImportError: {lib}: version `{tag}' not found (required by "
                          "/env/lib/python3.12/site-packages/shinyext/_core.cpython-312-x86_64-linux-gnu.so)")
    assert r["layer"] == "c-runtime" and layer_word in r["fix"]


# Every code of a decoded family is recognised: a made-up call site that prints its name.
CODES = [c for c in error_codes.all_codes()
         if c.family in ("cudaError_t", "CUresult", "cublasStatus_t", "cusparseStatus_t", "cusolverStatus_t",
                         "cufftResult", "curandStatus_t", "nvrtcResult", "cudnnStatus_t", "ncclResult_t",
                         "nvmlReturn_t", "hipError_t") and c.layer != "none"]


@pytest.mark.parametrize("code", CODES, ids=[c.name for c in CODES])
def test_every_code_is_recognised_with_its_layer(code):
    r = diagnose.diagnose(f"RuntimeError: mylib_call() failed: {code.name}")
    assert r["recognised"], code.name
    if r["signature"].startswith("code-"):
        want = code.layer
        assert r["layer"] == want or (code.family == "cudaError_t" and r["layer"] == "rocm")
        assert r["environment_problem"] == (want != "not-environment")
    if r["environment_problem"] is False:
        assert not REINSTALL.search(r["fix"] or ""), r["fix"]


NOT_ENV = [
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
    "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x7 and 9x3)",
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "IndexError: index 12 is out of bounds for dimension 0 with size 10",
    "RuntimeError: MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 2.00 GB, max allowed: 3.00 GB).",
    "NotImplementedError: The operator 'aten::foo' is not currently implemented for the MPS device.",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM",
]


@pytest.mark.parametrize("text", NOT_ENV)
def test_not_environment_errors_never_get_a_reinstall(text):
    r = diagnose.diagnose(text)
    assert r["recognised"] and r["environment_problem"] is False and r["machine"] == "not needed", r["signature"]
    assert not REINSTALL.search(r["fix"]), r["fix"]


def test_the_platform_changes_the_answer():
    mac = diagnose.diagnose("AssertionError: Torch not compiled with CUDA enabled\n"
                            "  File \"/Users/me/miniforge3/lib/python3.11/site-packages/torch/cuda/__init__.py\"")
    assert mac["environment_problem"] is False and "mps" in mac["fix"]
    amd = diagnose.diagnose("AMD Radeon RX 6750 XT\nRuntimeError: Found no NVIDIA driver on your system.")
    assert amd["layer"] == "torch-build" and "rocm" in amd["fix"]
    wsl = diagnose.diagnose("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
                            "object file: No such file or directory\nUbuntu 22.04 under WSL 2")
    assert wsl["layer"] == "wsl" and "/usr/lib/wsl/lib" in wsl["fix"]


def test_windows_codes_from_their_numbers():
    r = diagnose.diagnose('OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading "C:\\env\\Lib\\site-packages'
                          '\\torch\\lib\\shm.dll" or one of its dependencies.')
    assert r["layer"] == "windows-runtime" and "paging file" in r["fix"]


def test_the_owner_of_a_failing_file_from_the_machine(tmp_path, monkeypatch):
    # a distribution installed here (a dist-info with RECORD and Requires-Dist): the live lookup names it
    site = tmp_path / "site"
    (site / "zorbax").mkdir(parents=True)
    (site / "zorbax" / "__init__.py").write_text("")
    info = site / "zorbax-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zorbax\nVersion: 1.2.0\nRequires-Dist: torch==2.1.*\n")
    (info / "RECORD").write_text("zorbax/__init__.py,,\nzorbax_cuda.cpython-311-x86_64-linux-gnu.so,,\n"
                                 "zorbax-1.2.0.dist-info/METADATA,,\n")
    (info / "top_level.txt").write_text("zorbax\nzorbax_cuda\n")
    monkeypatch.syspath_prepend(str(site))
    got = owners.lookup_live(["zorbax", "zorbax_cuda"])
    assert got["distribution"] == "zorbax" and got["version"] == "1.2.0" and got["requires_torch"] == "torch==2.1.*"
    r = diagnose.diagnose(f"ImportError: {site}/zorbax_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
                          "_ZN3c104cuda9SetDeviceEi", owner=got)
    assert "zorbax 1.2.0 is installed; it requires torch==2.1.*" in r["fix"] and r["owner"]["distribution"] == "zorbax"


def test_the_owner_from_a_saved_report():
    report = {"snapshot": {"torch": {"version": "2.4.1+cu121"},
                           "packages": {"installed": {"xformers": "0.0.27"},
                                        "requires": [{"name": "xformers", "version": "0.0.27",
                                                      "requires": ["numpy", "torch==2.3.1"]}]}}}
    got = owners.lookup_report(report, ["xformers"])
    assert got == {"distribution": "xformers", "version": "0.0.27", "requires_torch": "torch==2.3.1",
                   "torch": "2.4.1+cu121", "how": "from-json", "module": "xformers"}
    assert owners.lookup_report(report, ["absent_pkg"]) is None


# --- platform markers and structural rules: texts built from each message's scheme ---------------------------------

@pytest.mark.parametrize("marker", ["Ubuntu 24.04 under WSL2", "Linux 6.6.36.6-microsoft-standard-WSL2",
                                    "export LD_LIBRARY_PATH=/usr/lib/wsl/lib", "windows 11 + wsl 2 (debian)",
                                    "| NVIDIA-SMI 560.35.02      Driver Version: 561.09     CUDA Version: 12.6 |"])
@pytest.mark.parametrize("failure", [
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
    "NumCudaDevices() that might have already set an error? Error 999: unknown error",
    "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
    "Failed to initialize NVML: Unknown Error",
])
def test_a_gpu_that_cannot_start_under_wsl_is_the_windows_driver(marker, failure):
    r = diagnose.diagnose(marker + "\n" + failure)
    assert r["layer"] == "wsl" and r["environment_problem"], (r["signature"], r["layer"])
    assert "Windows NVIDIA driver" in r["fix"]


def test_wsl1_and_a_gpu_the_host_does_not_expose():
    r = diagnose.diagnose("Linux version 4.4.0-22621-Microsoft (Microsoft@Microsoft.com)\n"
                          "CUDA error: CUDA driver version is insufficient for CUDA runtime version")
    assert r["layer"] == "wsl" and "wsl --set-version" in r["fix"]
    r = diagnose.diagnose("Ubuntu on WSL2\n$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system")
    assert r["layer"] == "wsl" and "WDDM" in r["fix"]
    # the same NVML code with no platform named: decoded from nvmlErrorString's words; nvml.h says the OS or cgroups
    # blocked the control device, and outside a container that is the host of a paravirtualised GPU (WSL 2)
    r = diagnose.diagnose("$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system")
    assert r["layer"] == "wsl" and "NVML_ERROR_OPERATING_SYSTEM" in str(r["entities"]["codes"])
    # in a container it is the runtime's cgroup setup, not WSL
    r = diagnose.diagnose("docker run --gpus all img nvidia-smi\n"
                          "Failed to initialize NVML: GPU access blocked by the operating system")
    assert r["layer"] != "wsl" and "cgroup" in r["fix"]


def test_tensorflow_newer_than_2_10_on_native_windows_has_no_gpu():
    text = ("C:\\Users\\me>python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"\n[]\n"
            "TensorFlow version: 2.{minor}.1\nWindows 11 Pro, RTX 3060")
    r = diagnose.diagnose(text.format(minor=15))
    assert r["layer"] == "tensorflow" and "WSL" in r["fix"] and "2.11" in r["fix"]
    assert diagnose.diagnose(text.format(minor=10))["signature"] != "tensorflow-windows-native-no-gpu"


@pytest.mark.parametrize("node, layer", [("/dev/kfd", "rocm"), ("/dev/dri/renderD129", "rocm"), ("/dev/nvidiactl", "driver")])
def test_a_refused_device_node_is_its_owners_groups(node, layer):
    r = diagnose.diagnose(f"open {node} failed: Permission denied")
    assert r["layer"] == layer and "usermod -aG render,video" in r["fix"] and not REINSTALL.search(r["fix"])


def test_a_resolver_without_torch_on_a_mac_is_the_last_intel_release():
    r = diagnose.diagnose("MacBook Pro 2019 (Intel), Python 3.11\nERROR: No matching distribution found for torch==2.6.0")
    assert r["layer"] == "macos" and "2.2.2" in r["fix"]


def test_rocblas_without_kernels_under_the_windows_hip_sdk():
    r = diagnose.diagnose("rocBLAS error: Cannot read D:\\AMD\\ROCm\\5.7\\bin\\rocblas\\library\\TensileLibrary.dat: "
                          "No such file or directory for GPU arch : gfx1036")
    assert r["layer"] == "rocm" and "gfx1036" in r["fix"] and "HIP SDK" in r["fix"] and "5.7" in r["fix"]


def test_debugger_warnings_are_not_failures():
    r = diagnose.diagnose("warning: Cuda API error detected: cudaMemPoolSetAttribute returned (0x1)\n"
                          "warning: Cuda API error detected: cudaDeviceEnablePeerAccess returned (0x2c0)")
    assert r["environment_problem"] is False and "harmless" in r["fix"] and not REINSTALL.search(r["fix"])


def test_peer_access_unsupported_under_nccl_is_p2p_not_the_program():
    r = diagnose.diagnose("node7:1:2 [3] NCCL WARN Cuda failure 217 'peer access is not supported between these two devices'\n"
                          "ncclUnhandledCudaError: Call to CUDA function failed.")
    assert r["layer"] == "distributed" and "NCCL_P2P_DISABLE=1" in r["fix"]


def test_a_kernel_that_cannot_run_under_a_torch_older_than_cuda_11_is_the_architecture():
    r = diagnose.diagnose("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\ntorch==1.5.1, GeForce RTX 3080")
    assert r["layer"] == "arch" and "CUDA 11" in r["fix"]


def test_markers_next_to_other_scripts_and_spaced_os_errors():
    mac = diagnose.diagnose("我的系统是macOS版本14\nAssertionError: Torch not compiled with CUDA enabled")
    assert mac["environment_problem"] is False and "mps" in mac["fix"]
    r = diagnose.diagnose("Server execution error: the paging file is too small ( os error 1455 )")
    assert r["layer"] == "windows-runtime" and "paging file" in r["fix"]


@pytest.mark.parametrize("text, sid", [
    ("gpu-07:11:12 [2] transport/nvls.cc:412 NCCL WARN Cuda failure 'operation not supported'", "nccl-nvls-cuda-failure"),
    ("/sbin/ldconfig: libcuda.so.1.1 is not a symbolic link", "wsl-ldconfig-not-symlink"),
    ("subprocess.CalledProcessError: Command '['/opt/venv/lib/python3.12/site-packages/triton/backends/nvidia/bin/ptxas', "
     "'-lineinfo', '--gpu-name=sm_103a', '/tmp/k.ptx']' returned non-zero exit status 255.", "ptxas-arch-unknown"),
    ("/src/aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [3,0,0], thread: [9,0,0] "
     "Assertion `input_val >= zero && input_val <= one` failed.", "device-side-assert"),
])
def test_sentences_read_their_structure_not_one_wording(text, sid):
    assert diagnose.diagnose(text)["signature"] == sid


def test_a_dll_that_cannot_load_under_zluda_is_the_hip_sdk_on_path():
    r = diagnose.diagnose('OSError: [WinError 126] The specified module could not be found. Error loading '
                          '"E:\\\\sd-zluda\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\cublas64_11.dll" or one of its dependencies.')
    assert r["layer"] == "windows-runtime" and "HIP SDK" in r["fix"] and "PATH" in r["fix"]
    plain = diagnose.diagnose('OSError: [WinError 126] The specified module could not be found. Error loading '
                              '"E:\\\\sd\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\cublas64_11.dll" or one of its dependencies.')
    assert "HIP SDK" not in plain["fix"]


def test_a_tcc_gpu_under_wsl_is_the_driver_model_not_a_linux_driver():
    text = ("running nvidia-smi inside WSL2\n"
            "|   1  NVIDIA A40                     TCC   |   00000000:3B:00.0 Off |                    0 |\n")
    r = diagnose.diagnose(text)
    assert r["layer"] == "wsl" and "WDDM" in r["fix"]
    # the same row without WSL in the text says nothing about WSL
    assert diagnose.diagnose(text.replace("inside WSL2", "on the host"))["signature"] != r["signature"]


@pytest.mark.parametrize("evidence", ["someone is member of video group",
                                      "crw-rw---- 1 root render 236, 0 Apr 28 19:23 /dev/kfd",
                                      "with sudo rocminfo works"])
def test_hsa_out_of_resources_with_the_nodes_group_shown_is_a_permission(evidence):
    r = diagnose.diagnose("ROCk module is loaded\n" + evidence + "\nhsa api call failure at: rocminfo.cc:1102\n"
                          "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
                          "resources.")
    assert r["layer"] == "rocm" and "render" in r["fix"] and "usermod" in r["fix"]


def test_hsa_out_of_resources_for_a_user_already_in_render_is_not_called_a_permission():
    r = diagnose.diagnose("ROCk module is loaded\nUnable to open /dev/kfd read-write: Cannot allocate memory\n"
                          "someone is member of render group\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES")
    assert r["signature"] != "rocm-kfd-permission"


@pytest.mark.parametrize("detail, sid, layer", [
    ("mount error: file creation failed: /var/lib/docker/overlay2/0a1b/merged/usr/lib/x86_64-linux-gnu/"
     "libnvidia-ml.so.1: file exists", "container-image-has-driver-files", "container"),
    ("mount error: stat failed: /proc/driver/nvidia/gpus/0000:3b:00.0: no such file or directory",
     "container-host-driver-stale", "driver"),
    ("initialization error: nvml error: driver/library version mismatch", "container-host-driver-stale", "driver"),
    ("initialization error: nvml error: driver not loaded", "container-host-driver-not-loaded", "driver"),
])
def test_the_container_cli_is_read_by_its_stage_and_object(detail, sid, layer):
    r = diagnose.diagnose('docker: Error response from daemon: failed to create task: OCI runtime create failed: '
                          'error running hook #0: exit status 1, stdout: , stderr: nvidia-container-cli: ' + detail + ': unknown.')
    assert (r["signature"], r["layer"]) == (sid, layer)


def test_a_registered_runtime_without_its_executable_is_the_container_toolkit():
    r = diagnose.diagnose('docker: Error response from daemon: exec: "nvidia-container-runtime": executable file not '
                          'found in $PATH: unknown.')
    assert r["layer"] == "container" and "nvidia-container-toolkit" in r["fix"]


def test_msvc_refused_by_an_older_nvcc_that_lists_its_versions():
    r = diagnose.diagnose("host_config.h(133): fatal error C1189: #error:  -- unsupported Microsoft Visual Studio "
                          "version! Only the versions 2012, 2013, 2015 and 2017 are supported!")
    assert r["signature"] == "msvc-unsupported-by-nvcc" and "2017" in r["fix"]


def test_tensorflow_finding_no_kernel_driver_is_the_module_not_the_code():
    r = diagnose.diagnose("E cuda_driver.cc:300] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
                          "I cuda_diagnostics.cc:86] kernel driver does not appear to be running on this host (box): "
                          "/proc/driver/nvidia/version does not exist")
    assert r["signature"] == "nvidia-kernel-module-not-loaded" and r["layer"] == "driver"


def test_tensorflow_names_the_cuda_its_missing_library_belongs_to():
    r = diagnose.diagnose("W dso_loader.cc:55] Could not load dynamic library 'cudart64_110.dll'; dlerror: "
                          "cudart64_110.dll not found")
    assert r["signature"] == "tensorflow-dlopen-library" and "CUDA 11.0" in r["fix"]


def test_a_private_top_level_module_belongs_to_the_package_that_imports_it():
    r = diagnose.diagnose('  File "/opt/venv/lib/python3.10/site-packages/soundlib/__init__.py", line 5, in <module>\n'
                          "    import _sox_io\n"
                          "ImportError: /opt/venv/lib/python3.10/site-packages/_sox_io.cpython-310-x86_64-linux-"
                          "gnu.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs")
    assert r["layer"] == "toolchain" and "soundlib" in r["fix"]


def test_pip_in_an_embedded_python_folder_that_installs_elsewhere():
    text = ("E:\\apps\\Tool\\python-3.10.11-embed-amd64>pip install onnxruntime-gpu\n"
            "Requirement already satisfied: onnxruntime-gpu in c:\\python310\\lib\\site-packages (1.17.0)\n")
    r = diagnose.diagnose(text)
    assert r["signature"] == "pip-of-another-python" and "-m pip" in r["fix"]
    same = text.replace("c:\\python310\\lib", "e:\\apps\\tool\\python-3.10.11-embed-amd64\\lib")
    assert diagnose.diagnose(same)["signature"] != "pip-of-another-python"
