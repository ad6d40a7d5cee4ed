"""explain answers from the structure of a text, not from the wording of the examples its rules were written for.

Each text here is a variant nobody collected: another library, another version, another GPU, another soname or host
name, printed the way that tool prints it.  The oracle is what the structure says (a version table, an error
enumeration, the owner of a file, a host name's scheme), written down before the code was run on the text."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)


def _d(text: str) -> dict:
    return diagnose.diagnose(text)


# --- a GPU newer than the CUDA its build was made with (capability table x first toolkit per sm) ---------------------

@pytest.mark.parametrize("text, sm, need", [
    # Blackwell consumer card (sm_120, first in CUDA 12.8) under a cu124 wheel
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
     "GPU 0: NVIDIA GeForce RTX 5080\ntorch 2.5.1+cu124", "sm_120", "12.8"),
    # Hopper (sm_90, CUDA 11.8) with collect_env's build line, failing inside cuDNN
    ("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\nCUDA used to build PyTorch: 11.7\n"
     "GPU models and configuration: GPU 0: NVIDIA H100 PCIe", "sm_90", "11.8"),
    # Ampere A100 (sm_80, CUDA 11.0) under a torch older than 1.7 (no CUDA 11 build existed)
    ("RuntimeError: CUDA error: invalid device function\nPyTorch version: 1.4.0\nGPU 0: A100-SXM4-40GB",
     "sm_80", "11.0"),
])
def test_a_gpu_newer_than_the_builds_cuda_is_the_architecture(text, sm, need):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("arch", True), (r["signature"], r["layer"])
    assert sm in r["fix"] and need in r["fix"], r["fix"]


def test_a_gpu_the_builds_cuda_knows_is_not_called_too_new():
    r = _d("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
           "GPU 0: NVIDIA GeForce RTX 4090\ntorch 2.4.0+cu121")
    assert r["signature"] != "gpu-newer-than-build-cuda"


def test_cufft_internal_error_from_another_library_is_the_gpu_against_cufft():
    # CuPy, not torch: the code's family decides, whoever raised it
    r = _d("cupy_backends.cuda.libs.cufft.CuFFTError: CUFFT_INTERNAL_ERROR")
    assert (r["layer"], r["environment_problem"]) == ("arch", True)
    assert "11.8" in r["fix"]


# --- NCCL: the CUDA code under its wrapper, and its own transports ------------------------------------------------

def test_ncclunhandledcudaerror_is_the_cuda_code_it_wraps():
    r = _d("gpu-node-3:5512:5601 [2] transport/p2p.cc:275 NCCL WARN Cuda failure 217 'peer access is not supported "
           "between these two devices'\nRuntimeError: NCCL communicator was aborted on rank 2. ncclUnhandledCudaError: "
           "Call to CUDA function failed.")
    assert r["layer"] == "distributed" and "NCCL_P2P_DISABLE" in r["fix"], (r["signature"], r["fix"])


@pytest.mark.parametrize("host, layer, word", [
    ("3f2a9c1b0d4e", "container", "--network=host"),  # Docker's default host name: the container id
    ("gpu-node-17", "distributed", "NCCL_SOCKET_IFNAME"),
])
def test_nccl_socket_failures_are_the_network(host, layer, word):
    r = _d(f"{host}:88:88 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.3.4<41229> failed : "
           "Connection refused\nRuntimeError: NCCL error: remote process exited or there was a network error")
    assert (r["layer"], r["environment_problem"]) == (layer, True), (r["signature"], r["layer"])
    assert word in r["fix"]


def test_nccl_shared_memory_segment_is_the_containers_shm():
    r = _d("node3:12:40 [1] NCCL WARN Error while creating shared memory segment /dev/shm/nccl-AbCdEf (size 9637888)\n"
           "torch.distributed.DistBackendError: NCCL error ... unhandled system error")
    assert r["layer"] == "container" and "--shm-size" in r["fix"]


# --- the loader: which name is missing, and whose ------------------------------------------------------------------

def test_the_unversioned_libcuda_is_a_link_not_a_missing_driver():
    r = _d('  File "/venv/lib/python3.12/site-packages/triton/backends/nvidia/driver.py", line 70, in libcuda_dirs\n'
           "OSError: libcuda.so: cannot open shared object file: No such file or directory")
    assert r["layer"] == "libraries" and "libcuda.so.1" in r["fix"] and "LD_LIBRARY_PATH" in r["fix"], r["fix"]


def test_the_same_from_a_windows_machines_linux_is_wsl():
    r = _d("me@LAPTOP-4F7K2Q9:~/proj$ python train.py\n"
           "OSError: libcuda.so: cannot open shared object file: No such file or directory")
    assert r["layer"] == "wsl" and "/usr/lib/wsl/lib" in r["fix"]


def test_a_container_without_the_gpu_runtime():
    r = _d("root@9c4e1f7a2b3d:/workspace# python -c 'import torch; torch.zeros(1).cuda()'\n"
           "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
           "a driver from http://www.nvidia.com/Download/index.aspx")
    assert r["layer"] == "container" and "--gpus" in r["fix"], (r["signature"], r["layer"])


def test_a_packages_own_native_library_missing_is_that_packages_build():
    r = _d("OSError: /env/lib/python3.10/site-packages/fastsparse/libfastsparse_cuda121.so: cannot open shared object "
           "file: No such file or directory")
    assert r["layer"] == "toolchain" and "fastsparse" in r["fix"], (r["signature"], r["fix"])


def test_a_cuda_runtime_symbol_missing_is_an_older_cudart_loaded():
    r = _d("ImportError: /env/site-packages/quickattn/_ops.so: undefined symbol: cudaStreamGetCaptureInfo_v3, "
           "version libcudart.so.12")
    assert r["layer"] == "libraries" and "nvidia-cuda-runtime-cu12" in r["fix"], r["fix"]


def test_a_glibc_tag_cut_before_not_found_is_still_the_c_runtime():
    r = _d("ImportError: /lib64/libc.so.6: version `GLIBC_2.28'")
    assert r["layer"] == "c-runtime" and "glibc" in r["fix"].lower()


# --- owners: the package whose file it is ----------------------------------------------------------------------------

def test_a_top_level_module_belongs_to_the_package_whose_frame_imports_it():
    r = _d('  File "/home/u/src/speedpkg/layers/attn.py", line 3, in <module>\n'
           "    import fastkern_cuda\n"
           "ImportError: /env/lib/python3.11/site-packages/fastkern_cuda.cpython-311-x86_64-linux-gnu.so: undefined "
           "symbol: _ZN3c104cuda9SetDeviceEi")
    assert r["layer"] == "toolchain" and "speedpkg" in r["fix"], r["fix"]


def test_winerror_127_in_a_packages_own_dll_is_two_versions_of_that_package():
    r = _d('OSError: [WinError 127] The specified procedure could not be found. Error loading '
           '"C:\\Users\\u\\venv\\Lib\\site-packages\\torchaudio\\lib\\libtorchaudio.pyd" or one of its dependencies.')
    assert r["layer"] == "windows-runtime" and "torchaudio" in r["fix"] and "uninstall" in r["fix"], r["fix"]


# --- vocabulary of a layer -------------------------------------------------------------------------------------------

def test_a_build_tool_that_is_not_installed_is_the_toolchain():
    r = _d("  File \"/usr/lib/python3.12/subprocess.py\", line 1955, in _execute_child\n"
           "FileNotFoundError: [Errno 2] No such file or directory: 'cmake'")
    assert r["layer"] == "toolchain" and "cmake" in r["fix"]


def test_another_packages_toolkit_check_is_the_toolkit_against_torchs_cuda():
    r = _d("RuntimeError: CUDA toolkit version 11.8 does not match the version torch was compiled with (12.1)\n"
           "torch.version.cuda = 12.1")
    assert r["layer"] == "toolchain" and "CUDA_HOME" in r["fix"] and "12.1" in r["fix"], r["fix"]


def test_cuda_broken_after_resume_is_the_uvm_module():
    r = _d("RuntimeError: CUDA error: unknown error\nIt works after a reboot but not after waking the laptop from "
           "suspend.")
    assert r["layer"] == "driver" and "nvidia_uvm" in r["fix"]


@pytest.mark.parametrize("text", [
    "RuntimeError: expected scalar type BFloat16 but found Float",
    "RuntimeError: Expected tensor for argument #2 'mat2' to have the same scalar type as argument #1 'self'",
])
def test_a_dtype_mismatch_is_the_program(text):
    r = _d(text)
    assert r["recognised"] and r["environment_problem"] is False, r["signature"]
    assert not REINSTALL.search(r["fix"] or "")


def test_collectives_hanging_behind_a_pcie_switch_are_acs():
    r = _d("\tGPU0\tGPU1\tGPU2\tCPU Affinity\nGPU0\t X \tPIX\tSYS\t0-15\nGPU1\tPIX\t X \tSYS\t0-15\n"
           "GPU2\tSYS\tSYS\t X \t16-31\nbroadcast_perf between GPU0 and GPU1 is stuck; GPU0 with GPU2 works")
    assert r["layer"] == "distributed" and "ACS" in r["fix"] and "NCCL_P2P_DISABLE" in r["fix"]


@pytest.mark.parametrize("where, layer", [("C:\\Users\\me\\ComfyUI>python main.py", "driver"),
                                          ("user@box:~/ComfyUI$ python main.py", "env")])
def test_devices_busy_is_the_driver_on_windows_and_the_compute_mode_elsewhere(where, layer):
    r = _d(where + "\nRuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable")
    assert r["layer"] == layer, (r["signature"], r["layer"])


def test_a_wrapped_container_cli_line_still_names_the_file_in_the_image():
    r = _d("docker: Error response from daemon: failed to create task: OCI runtime create failed: ... nvidia-container-cli: "
           "mo\nunt error: file creation failed: /var/lib/docker/overlay2/3c1d/merged/usr/lib/x86_64-linux-gnu/"
           "libnvidia-ml.so.1: file exists: unknown.")
    assert r["layer"] == "container" and "image" in r["fix"], (r["signature"], r["fix"])


_COLLECT_ENV = ("PyTorch version: 2.3.0+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
                "OS: Ubuntu 20.04.6 LTS (x86_64)\nIs CUDA available: False\nCUDA runtime version: 12.1.105\n"
                "Nvidia driver version: {driver}\n")


def test_collect_env_with_a_driver_older_than_the_builds_cuda_is_the_driver():
    # CUDA 12.x needs a 525.60.13+ driver on Linux (minor-version compatibility floor); 470 is CUDA 11.4's
    r = _d(_COLLECT_ENV.format(driver="470.82.01"))
    assert (r["layer"], r["signature"]) == ("driver", "driver-older-than-torch-cuda") and "525" in r["fix"], r["fix"]
    assert _d(_COLLECT_ENV.format(driver="550.54.14"))["signature"] != "driver-older-than-torch-cuda"


def test_tensorflow_names_the_cuda_of_the_first_runtime_it_cannot_open():
    r = _d("2021-03-02 10:11:12.000001: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
           "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file "
           "or directory\n2021-03-02 10:11:14.000001: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] "
           "Could not load dynamic library 'libcusolver.so.10'; dlerror: libcusolver.so.10: cannot open shared object file")
    assert r["layer"] == "tensorflow" and "CUDA 11.0" in r["fix"], r["fix"]


def test_a_package_failing_to_register_its_ops_with_torch_was_built_for_another_torch():
    r = _d('  File "/opt/venv/lib/python3.12/site-packages/torchaudio/_extension/utils.py", line 61, in _load_lib\n'
           '    torch.ops.load_library(path)\n'
           '  File "/opt/venv/lib/python3.12/site-packages/torch/_ops.py", line 1357, in load_library\n'
           "    ctypes.CDLL(path)\n"
           "OSError: could not load the operators")
    assert r["layer"] == "toolchain" and "torchaudio" in r["fix"], (r["signature"], r["fix"])


def test_no_device_with_cuda_visible_devices_set_in_the_code_is_that_variable():
    r = _d("os.environ['CUDA_VISIBLE_DEVICES'] = '3'\nmodel.cuda()\n"
           "RuntimeError: CUDA error: no CUDA-capable device is detected")
    assert r["layer"] == "env" and "CUDA_VISIBLE_DEVICES" in r["fix"]


def test_a_job_suspended_by_the_scheduler_is_not_the_machines_sleep():
    r = _d("RuntimeError: CUDA error: out of memory\nslurmstepd: error: *** JOB 4471 SUSPENDED ***")
    assert r["environment_problem"] is False and "nvidia_uvm" not in (r["fix"] or "")
