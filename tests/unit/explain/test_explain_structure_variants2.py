"""explain answers from the structure of a text (second round): the naming schemes of the toolchain's own outputs.

Each text is a variant nobody collected, built from a naming scheme rather than copied from an example: the Itanium
C++ ABI's mangled names (special names, Mach-O's extra underscore), torch's C-level symbol families, a paste's
Markdown (an autolinked file name, a block quote), the linker's -l names, a header's owner, the loader's providers.
The oracle is what the scheme says, written down before the code was run on the text."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.extract import demangle_scope

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)


def _d(text: str) -> dict:
    return diagnose.diagnose(text)


# --- the Itanium ABI's special names and Mach-O's leading underscore ------------------------------------------------

@pytest.mark.parametrize("sym, scope", [
    ("_ZTIN3c1021AutogradMetaInterfaceE", "c10::AutogradMetaInterface"),   # typeinfo
    ("_ZTSN2at10TensorImplE", "at::TensorImpl"),                           # typeinfo name
    ("_ZTVN5torch8autograd4NodeE", "torch::autograd::Node"),               # vtable
    ("_ZThn16_N2at6TensorD1Ev", "at::Tensor"),                             # non-virtual thunk
    ("__ZN3c1011CPUTensorIdEv", "c10::CPUTensorId"),                       # Mach-O's extra underscore
])
def test_special_names_demangle_to_the_entity_they_are_about(sym, scope):
    assert demangle_scope(sym).startswith(scope)


@pytest.mark.parametrize("text, package", [
    # a vtable of an at:: class wanted by torch-scatter's binary
    ("ImportError: /opt/venv/lib/python3.10/site-packages/torch_scatter/_scatter_cuda.so: undefined symbol: "
     "_ZTVN2at10TensorImplE", "torch.scatter"),
    # macOS: dlopen's "Symbol not found" with the Mach-O underscore, in torchvision's image.so
    ("OSError: dlopen(/Users/u/miniforge3/lib/python3.10/site-packages/torchvision/image.so, 0x0006): Symbol not found: "
     "__ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEE\n  Referenced from: /Users/u/miniforge3/lib/python3.10/"
     "site-packages/torchvision/image.so", "torchvision"),
])
def test_a_torch_special_or_mach_o_symbol_is_the_torch_abi(text, package):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert re.search(package, r["fix"]), r["fix"]


# --- torch's C-level symbol families --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, package", [
    # AOTInductor's stable C shim (aoti_torch_*), from a package newer than the installed torch
    ("/usr/local/lib/python3.12/dist-packages/torchvision/_C.so: undefined symbol: aoti_torch_create_tensor_from_blob_v2",
     "torchvision"),
    # torch's Python bindings (THP*)
    ("ImportError: /home/u/.local/lib/python3.9/site-packages/torch_cluster/_grid_cpu.so: undefined symbol: "
     "THPVariableClass", "torch.cluster"),
    # a package's own library named lib<package>.so
    ("OSError: libtorchaudio.so: undefined symbol: aoti_torch_get_device_index", "torchaudio"),
])
def test_torch_c_symbols_are_the_torch_abi(text, package):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert re.search(package, r["fix"]), r["fix"]


# --- a paste's Markdown ---------------------------------------------------------------------------------------------

def test_an_autolinked_file_name_is_the_file():
    r = _d("/root/env/lib/python3.11/site-packages/[torchsparse_backend.cpython-311-x86_64-linux-gnu.so]"
           "(http://torchsparse_backend.cpython-311-x86_64-linux-gnu.so/): undefined symbol: _ZN3c104cuda9SetDeviceEi")
    assert r["layer"] == "toolchain" and "torchsparse" in r["fix"], (r["signature"], r["fix"])


def test_a_block_quoted_built_for_line_is_read():
    # installed torch is the CPU build of the very version the package was built for: torch's build is wrong
    r = _d("> xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
           ">    PyTorch 2.4.1+cu124 with CUDA 1204 (you have 2.4.1+cpu)\n>    Python  3.11.9 (you have 3.11.9)")
    assert r["layer"] == "torch-build" and "cu124" in r["fix"], (r["signature"], r["fix"])


# --- the loader's providers under WSL -------------------------------------------------------------------------------

def test_cudnn_missing_under_wsl_is_cudnn_not_the_windows_driver():
    r = _d("Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object "
           "file: No such file or directory\nUbuntu 22.04 on WSL2")
    assert r["layer"] == "cudnn" and "nvidia-cudnn" in r["fix"], (r["signature"], r["fix"])


def test_the_drivers_libcuda_missing_under_wsl_stays_wsl():
    r = _d("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: "
           "No such file or directory\nUbuntu 22.04 on WSL2")
    assert r["layer"] == "wsl" and "/usr/lib/wsl/lib" in r["fix"], (r["signature"], r["fix"])


# --- the linker's -l names ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",            # GNU ld
    "ld.lld: error: unable to find library -lcuda",                          # LLVM's lld
])
def test_the_linker_missing_lcuda_is_the_unversioned_libcuda_link(line):
    r = _d("  File \"/opt/venv/lib/python3.11/site-packages/triton/runtime/build.py\", line 90, in _build\n"
           f"{line}\ncollect2: error: ld returned 1 exit status")
    # the linker's search path, not the loader's: the build's (toolchain), as the corpus labels it three times of five
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert "libcuda.so" in r["fix"] and "TRITON_LIBCUDA_PATH" in r["fix"]


# --- a file a library owns by its name --------------------------------------------------------------------------------

def test_a_failure_on_nccls_own_shm_segment_is_the_shared_memory_size():
    # no "NCCL WARN" prefix (a launcher's own log line), but /dev/shm/nccl-* is NCCL's segment
    r = _d("[rank3]: Error while creating shared memory segment /dev/shm/nccl-q1W2e3 (size 5767520)\n"
           "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error")
    assert r["layer"] == "container" and "--shm-size" in r["fix"], (r["signature"], r["fix"])


# --- nvidia-smi's header: two versions are two drivers ----------------------------------------------------------------

def test_an_nvidia_smi_header_with_two_versions_is_wsl():
    r = _d("+-----------------------------------------------------------------------------+\n"
           "| NVIDIA-SMI 550.54                 Driver Version: 551.61       CUDA Version: ERR!     |\n"
           "|-------------------------------+----------------------+----------------------+")
    assert r["layer"] == "wsl" and "Windows" in r["fix"], (r["signature"], r["fix"])


def test_an_nvidia_smi_header_with_one_version_is_not_wsl():
    r = _d("| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: ERR!     |")
    assert r["layer"] != "wsl"


# --- a header the build cannot include: its owner decides the fix (knowledge/headers.py) ------------------------------

@pytest.mark.parametrize("line, word", [
    # MSVC, a CUTLASS header: the package's git submodule was not checked out
    ("csrc/flash.cu(5): fatal error C1083: Cannot open include file: 'cutlass/numeric_types.h': No such file or directory",
     "submodule"),
    # clang, torch's THC headers, gone since torch 1.11
    ("src/roi_align.cpp:2:10: fatal error: 'THC/THC.h' file not found", "1.11"),
    # gcc, NCCL's header
    ("csrc/comm.cpp:4:10: fatal error: nccl.h: No such file or directory", "nvidia-nccl"),
    # gcc, torch's own header: no torch (or a torch older than 1.0) in the building Python
    ("src/ext.cpp:1:10: fatal error: torch/torch.h: No such file or directory", "--no-build-isolation"),
    # Triton's launcher build on a machine without the toolkit's headers
    ("/tmp/tmpab12/main.c:1:10: fatal error: cuda.h: No such file or directory", "CUDA toolkit"),
])
def test_a_missing_header_is_its_owners(line, word):
    r = _d(line + "\ncompilation terminated.\nerror: command '/usr/bin/gcc' failed with exit code 1")
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert word in r["fix"], (r["signature"], r["fix"])


def test_a_packages_own_header_is_not_an_owners_install():
    r = _d("src/ops.cpp:3:10: fatal error: mylib/util.h: No such file or directory\ncompilation terminated.")
    assert r["signature"] != "header-missing"


# --- nvcc's host-compiler check (crt/host_config.h), however the log wraps it -------------------------------------------

def test_nvccs_gcc_check_wrapped_mid_sentence_names_the_limit():
    r = _d("/opt/cuda-11.7/include/crt/host_config.h:132:2: error: #error -- unsupported GNU\n"
           "   version! gcc versions later than 11 are not supported! The nvcc flag\n"
           "   '-allow-unsupported-compiler' can be used to override this version check")
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert "gcc 11 or older" in r["fix"] or "gcc-11" in r["fix"], r["fix"]


def test_nvccs_clang_check_is_the_host_compiler():
    r = _d("/usr/local/cuda/include/crt/host_config.h:151:2: error: \"-- unsupported clang version! clang version must "
           "be less than 16 and greater than 3.2 . The nvcc flag '-allow-unsupported-compiler' can be used to override "
           "this version check;\"\n#error -- unsupported clang version! clang version must be less than 16 and greater "
           "than 3.2 .")
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert "clang" in r["fix"], r["fix"]


# --- "file not found" naming a build tool, in errno's and Windows' families ----------------------------------------------

@pytest.mark.parametrize("text, word", [
    # Windows' code 2 in Chinese, the tool named by torch.utils.cpp_extension's compiler check
    ("C:\\py\\Lib\\site-packages\\torch\\utils\\cpp_extension.py:414: UserWarning: Error checking compiler version for "
     "cl: [WinError 2] 系统找不到指定的文件。", "Visual Studio"),
    # the same check on Linux, errno's ENOENT without the quoted name
    ("/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py:414: UserWarning: Error checking compiler "
     "version for c++: [Errno 2] No such file or directory", "build-essential"),
])
def test_file_not_found_for_a_build_tool_is_the_toolchain(text, word):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert word in r["fix"], r["fix"]


# --- Triton's exception types name the stage that failed -------------------------------------------------------------

def test_tritons_ptxaserror_is_its_bundled_ptxas():
    # an sm_103 machine, Triton's exception without any ptxas message of the catalogue
    r = _d("  File \"/opt/conda/lib/python3.11/site-packages/triton/compiler/compiler.py\", line 300, in compile\n"
           "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\n"
           "ptxas /tmp/tmpk3.ptx, line 5; error   : Feature not supported on target sm_103")
    assert (r["layer"], r["environment_problem"]) == ("arch", True), (r["signature"], r["layer"])
    assert "TRITON_PTXAS_PATH" in r["fix"]


def test_tritons_outofresources_is_the_kernels_configuration():
    r = _d("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
           "101376. Reducing block sizes or `num_stages` may help.")
    assert (r["layer"], r["environment_problem"]) == ("not-environment", False), (r["signature"], r["layer"])
    assert not REINSTALL.search(r["fix"].replace("no reinstall", "")), r["fix"]


# --- the GPU found by root only: device-node permissions; a code returned while CUDA starts is not the program's ----------

_SUDO_TWICE = ("user@gpu01:~$ sudo ./venv/bin/python -c \"import torch; print(torch.cuda.is_available())\"\nTrue\n"
               "user@gpu01:~$ ./venv/bin/python -c \"import torch; print(torch.cuda.is_available())\"\nFalse\n")


def test_the_same_check_true_under_sudo_false_as_the_user_is_device_node_permissions():
    r = _d(_SUDO_TWICE)
    assert (r["layer"], r["environment_problem"]) == ("driver", True), (r["signature"], r["layer"])
    assert "video" in r["fix"] and not REINSTALL.search(r["fix"]), r["fix"]


def test_root_only_on_an_amd_machine_is_rocms_groups():
    r = _d("ROCm 6.1 with a Radeon RX 7900 XTX\n" + _SUDO_TWICE)
    assert r["layer"] == "rocm" and "render" in r["fix"], (r["signature"], r["fix"])


@pytest.mark.parametrize("text", [
    # JAX/XLA: the driver API's code from cuInit
    "E0412 cuda_driver.cc:268] failed call to cuInit: CUDA_ERROR_NOT_SUPPORTED: operation not supported",
    # CuPy: the runtime's code while counting the devices
    "  File \"cupy_backends/cuda/api/runtime.pyx\", line 374, in cupy_backends.cuda.api.runtime.getDeviceCount\n"
    "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorNotSupported: operation not supported",
])
def test_a_code_returned_while_cuda_starts_is_the_environments(text):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("driver", True), (r["signature"], r["layer"])


def test_a_code_at_start_for_a_non_root_user_is_the_nodes_group():
    r = _d("Works in the container for root; for a non-root user torch.cuda.is_available() is False:\n"
           "CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 999: unknown error")
    assert r["layer"] == "driver" and "video" in r["fix"], (r["signature"], r["fix"])


# --- no GPU from torch on an AMD machine: the build first -------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "PyTorch version: 2.2.1\nIs CUDA available: False\nGPU models and configuration: AMD Radeon RX 7600\nROCm6.0",
    ">>> torch.cuda.is_available()\nFalse\non my RX 6700 XT",
])
def test_no_gpu_from_torch_on_an_amd_machine_is_the_rocm_build(text):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("torch-build", True), (r["signature"], r["layer"])
    assert "whl/rocm" in r["fix"], r["fix"]


def test_no_gpu_from_a_rocm_build_is_not_called_the_wrong_build():
    r = _d("torch 2.3.0+rocm6.0\n>>> torch.cuda.is_available()\nFalse\nRadeon RX 7900 XTX")
    assert r["signature"] != "no-gpu-from-torch-on-amd"


# --- TensorFlow by its tested configurations (knowledge/tensorflow.py) ------------------------------------------------

def _tf_newest(os_name):
    from torch_envcheck.knowledge import tensorflow as tfk
    return [r for r in tfk.releases(os_name) if r.get("python_min")][-1]


@pytest.mark.parametrize("text, os_name", [
    ("$ pip install tensorflow-cpu\nERROR: Could not find a version that satisfies the requirement tensorflow-cpu "
     "(from versions: none)\nERROR: No matching distribution found for tensorflow-cpu", "linux"),
    ("PS C:\\Users\\me\\proj> pip install tensorflow==2.17\nERROR: Could not find a version that satisfies the "
     "requirement tensorflow==2.17 (from versions: none)", "windows"),
])
def test_no_tensorflow_wheel_at_all_is_the_python_version(text, os_name):
    row = _tf_newest(os_name)
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("tensorflow", True), (r["signature"], r["layer"])
    assert row["python_min"] in r["fix"] and row["python_max"] in r["fix"], r["fix"]


@pytest.mark.parametrize("text, words", [
    # a Windows prompt: native Windows has no GPU build after 2.10
    ("(tf) C:\\work> python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"\n[]",
     ("WSL 2", "2.10")),
    # a Linux shell: the and-cuda extra
    ("user@box:~$ python3 -c 'import tensorflow as tf; print(\"Num GPUs Available: \", "
     "len(tf.config.list_physical_devices(\"GPU\")))'\nNum GPUs Available:  0", ("tensorflow[and-cuda]",)),
])
def test_tensorflow_listing_no_gpu_is_its_build_for_the_platform(text, words):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("tensorflow", True), (r["signature"], r["layer"])
    assert all(w in r["fix"] for w in words), r["fix"]


def test_tensorflow_listing_a_gpu_is_not_a_missing_gpu():
    r = _d("print(tf.config.list_physical_devices('GPU'))\n[PhysicalDevice(name='/physical_device:GPU:0', "
           "device_type='GPU')]")
    assert r["signature"] != "tensorflow-sees-no-gpu"


# --- torch's builds per release (knowledge/releases.py) ----------------------------------------------------------------

def _cuda_tags(ver):
    from torch_envcheck.knowledge.releases import release
    return [b["tag"] for b in release(ver)["builds"] if b["tag"].startswith("cu")]


def test_a_cuda_label_the_release_was_never_built_with_names_the_builds_it_has():
    tags = _cuda_tags("2.1")
    assert "cu124" not in tags  # the oracle: torch 2.1 was never built with CUDA 12.4
    r = _d("$ pip install torch==2.1.0+cu124 --extra-index-url https://download.pytorch.org/whl\n"
           "ERROR: Could not find a version that satisfies the requirement torch==2.1.0+cu124 (from versions: 2.1.0, "
           "2.1.1, 2.1.2)\nERROR: No matching distribution found for torch==2.1.0+cu124")
    assert (r["layer"], r["environment_problem"]) == ("torch-build", True), (r["signature"], r["layer"])
    assert all(t in r["fix"] for t in tags), r["fix"]


def test_a_windows_torch_wheel_without_a_cuda_label_is_the_cpu_build():
    r = _d("Collecting torch==2.2.1\n  Downloading https://download.pytorch.org/whl/torch-2.2.1-cp311-cp311-win_amd64.whl "
           "(198.6 MB)\nSuccessfully installed torch-2.2.1")
    assert (r["layer"], r["environment_problem"]) == ("torch-build", True), (r["signature"], r["layer"])
    assert any(t in r["fix"] for t in _cuda_tags("2.2")), r["fix"]


def test_a_windows_wheel_from_a_cuda_folder_is_not_called_cpu():
    r = _d("Downloading https://download.pytorch.org/whl/cu92/torch-0.4.1-cp37-cp37m-win_amd64.whl (494 MB)")
    assert r["signature"] != "torch-windows-plain-wheel-is-cpu"


# --- torch.compile's inductor on native Windows -----------------------------------------------------------------------

_INDUCTOR = ("  File \"D:\\\\ai\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\_dynamo\\\\output_graph.py\", line 1446, in "
             "_call_user_compiler\ntorch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n")


def test_inductor_failing_with_an_os_error_on_windows_is_its_toolchain():
    r = _d(_INDUCTOR + "FileNotFoundError: [WinError 2] El sistema no puede encontrar el archivo especificado")
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert "triton-windows" in r["fix"] and "eager" in r["fix"], r["fix"]


def test_inductor_without_triton_on_windows_keeps_the_sentence_that_names_it():
    r = _d(_INDUCTOR + "RuntimeError: Cannot find a working triton installation. Either the package is not installed "
           "or it is too old.")
    assert r["signature"] == "triton-not-available", r["signature"]


def test_a_hip_target_without_code_names_every_remedy():
    r = _d(":1:hip_code_object.cpp :624 : 0 us: hipErrorNoBinaryForGpu: Unable to find code object for all current "
           "devices!\n  Devices:\n    gfx906 - [Not Found]")
    assert r["layer"] == "rocm", (r["signature"], r["layer"])
    assert "HSA_OVERRIDE_GFX_VERSION" in r["fix"] and "PYTORCH_ROCM_ARCH" in r["fix"], r["fix"]


# --- the shells' signal words, and what the platform makes of SIGILL --------------------------------------------------

@pytest.mark.parametrize("text", [
    "(base) user@MacBook-Air ~ % python train.py\nzsh: illegal hardware instruction  python train.py\nApple M2",
    "$ python3 -c 'import jax'\nIllegal instruction: 4",       # macOS' bash prints the signal's number
])
def test_an_illegal_instruction_on_a_mac_is_an_x86_build_under_rosetta(text):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("macos", True), (r["signature"], r["layer"])
    assert "arm64" in r["fix"] and "Rosetta" in r["fix"], r["fix"]


def test_an_illegal_instruction_on_linux_is_the_cpu():
    # not Rosetta: the CPU lacks AVX; the framework the text runs (TensorFlow here) is whose build to change
    r = _d("root@node1:~# python -c 'import tensorflow'\nIllegal instruction (core dumped)\nIntel Xeon E5-2670")
    assert r["layer"] == "tensorflow" and "AVX" in r["fix"], (r["signature"], r["fix"])
    r = _d("root@node1:~# python -c 'import jaxlib'\nIllegal instruction (core dumped)\nIntel Xeon E5-2670")
    assert r["layer"] == "env" and "AVX" in r["fix"], (r["signature"], r["fix"])


def test_a_winerror_without_its_brackets_is_still_the_code():
    r = _d("RuntimeError: WinError 1455 El archivo de paginación es demasiado pequeño para completar la operación")
    assert r["layer"] == "windows-runtime" and "paging file" in r["fix"], (r["signature"], r["fix"])


# --- the package a text imports owns a binary named for its role ---------------------------------------------------------

@pytest.mark.parametrize("text, package", [
    # a role-named binary (_C.so), the package named by the import that failed
    ("from pointnet2_ops import pointnet2_utils\nImportError: _C.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
     "_ZN3c104cuda20CUDACachingAllocator9allocatorE", "pointnet2_ops"),
    # prose: "import kernels from <package>"
    ("ImportError: kernels.abi3.so: undefined symbol: _ZN2at4_ops5empty4callEv\nhappens when I import kernels from "
     "vllm_flash", "vllm_flash"),
    # a folder in site-packages is the distribution's whole name, even when it ends like a role (_kernel)
    ("ImportError: /opt/py/lib/python3.11/site-packages/deep_gemm_kernel/ops.abi3.so: undefined symbol: "
     "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs", "deep_gemm_kernel"),
])
def test_a_role_named_binary_belongs_to_the_package_the_text_imports(text, package):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert package in r["fix"], r["fix"]


@pytest.mark.parametrize("text, package", [
    ("ModuleNotFoundError: No module named 'groundingdino._C'", "groundingdino"),
    ("ImportError: cannot import name '_ext' from 'pointops' (/usr/lib/python3/dist-packages/pointops/__init__.py)",
     "pointops"),
])
def test_a_packages_private_submodule_missing_is_its_compiled_part(text, package):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert package in r["fix"] and "compiled" in r["fix"], r["fix"]


# --- a number and a message that disagree: the runtime's enumeration was renumbered (CUDA 10.1), its messages were not ---

@pytest.mark.parametrize("line", [
    "RuntimeError: cuda runtime error (8) : invalid device function at /pytorch/aten/src/THC/generic/THCTensorMath.cu:15",
    "RuntimeError: cuda runtime error (48) : no kernel image is available for execution on the device at "
    "/opt/conda/conda-bld/pytorch_1544174967633/work/aten/src/THC/generic/THCTensorMath.cu:14",
])
def test_an_old_logs_message_names_the_code_not_its_renumbered_number(line):
    r = _d(line)
    assert (r["layer"], r["environment_problem"]) == ("arch", True), (r["signature"], r["layer"])


def test_cuda_in_a_forked_dataloader_worker_is_the_start_method():
    r = _d("RuntimeError: Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n"
           "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
           "the 'spawn' start method")
    assert (r["layer"], r["environment_problem"]) == ("not-environment", False), (r["signature"], r["layer"])
    assert "spawn" in r["fix"] and not REINSTALL.search(r["fix"]), r["fix"]


def test_torchs_too_old_warning_with_its_format_string_unfilled():
    r = _d("UserWarning:\n    Found GPU%d %s which is of cuda capability %d.%d.\n    PyTorch no longer supports this GPU "
           "because it is too old.\n    The minimum cuda capability supported by this library is %d.%d.")
    assert (r["layer"], r["environment_problem"]) == ("arch", True), (r["signature"], r["layer"])


# --- a GPU device node that does not exist: not passed into the container, or no kernel driver on the host ---------------

@pytest.mark.parametrize("text, layer, word", [
    ("root@4b1c2d3e5f6a:/workspace# ls -l /dev/nvidia0\nls: cannot access '/dev/nvidia0': No such file or directory",
     "container", "--gpus"),
    ("$ ls /dev/kfd\nls: cannot access '/dev/kfd': No such file or directory\n$ uname -r\n6.8.0-45-generic", "rocm",
     "modprobe amdgpu"),
    ("open(\"/dev/nvidiactl\") = -1 ENOENT (No such file or directory)", "driver", "modprobe nvidia"),
])
def test_a_missing_device_node_is_its_runtime_or_its_driver(text, layer, word):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == (layer, True), (r["signature"], r["layer"])
    assert word in r["fix"], r["fix"]


# --- a torch library of another build flavour (libtorch_hip beside a CUDA torch, libtorch_cuda beside a ROCm one) -------

@pytest.mark.parametrize("text, package, tag", [
    ("pip install torch==2.0.1+cu118 torchvision==0.15.2 --extra-index-url https://download.pytorch.org/whl\n"
     ">>> import torchvision\nOSError: libc10_hip.so: cannot open shared object file: No such file or directory",
     "torchvision", "cu118"),
    ("torch 2.3.1+rocm6.0\nImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory\n"
     "from torchaudio import functional", "torchaudio", "rocm6.0"),
])
def test_a_torch_library_of_another_flavour_is_the_companions_build(text, package, tag):
    r = _d(text)
    assert (r["layer"], r["environment_problem"]) == ("toolchain", True), (r["signature"], r["layer"])
    assert package in r["fix"] and tag in r["fix"], r["fix"]


# --- NCCL bootstrapping over a virtual interface --------------------------------------------------------------------------

def test_nccl_listing_a_virtual_interface_beside_the_real_one_is_socket_ifname():
    r = _d("gpu-a:311:390 [0] NCCL INFO NET/Socket : Using [0]enp65s0f0:10.1.2.3<0> [1]docker0:172.17.0.1<0>\n"
           "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
           "store ... Connection timed out")
    assert (r["layer"], r["environment_problem"]) == ("distributed", True), (r["signature"], r["layer"])
    assert "NCCL_SOCKET_IFNAME=enp65s0f0" in r["fix"], r["fix"]


def test_nccl_listing_only_real_interfaces_is_not_called_virtual():
    r = _d("node1:11:22 [0] NCCL INFO Bootstrap : Using [0]ib0:10.0.0.1<0> [1]eth0:192.168.1.5<0>\nConnection refused")
    assert r["signature"] != "nccl-virtual-interface"


def test_windows_subsystem_named_the_other_way_round_is_wsl():
    r = _d("Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so: cannot open shared object file: No such "
           "file or directory\nrunning in the Debian Subsystem on Windows")
    assert r["layer"] == "wsl", (r["signature"], r["layer"])


# --- the CUDA/HIP samples' checkers, and HIP's "no device" answered for HIP ------------------------------------------------

def test_the_hip_samples_checker_names_the_code_and_the_fix_is_hips():
    r = _d('checkHipErrors() HIP API error = 0100 "no ROCm-capable device is detected" from file <hipInfo.cpp>, line 88.\n'
           "Ubuntu 24.04, Radeon Pro W6800")
    assert (r["layer"], r["environment_problem"]) == ("rocm", True), (r["signature"], r["layer"])
    assert "rocminfo" in r["fix"] and "nvidia-smi" not in r["fix"], r["fix"]


def test_the_cuda_samples_checker_names_the_code():
    r = _d('checkCudaErrors() CUDA API error = 0209 "no kernel image is available for execution on the device" from '
           "file <matrixMul.cu>, line 201.")
    assert (r["layer"], r["environment_problem"]) == ("arch", True), (r["signature"], r["layer"])


@pytest.mark.parametrize("header, owner", [
    ("torch/extension.h", "torch"), ("ATen/cuda/CUDAContext.h", "torch"), ("THC/THC.h", "torch-removed"),
    ("cuda_runtime_api.h", "cuda-toolkit"), ("thrust/device_vector.h", "cuda-toolkit"), ("cudnn_version.h", "cudnn"),
    ("hip/hip_runtime.h", "rocm"), ("pybind11/pybind11.h", "pybind11"), ("cute/tensor.hpp", "cutlass"),
    ("mypkg/ops.h", None),
])
def test_the_header_owner_table(header, owner):
    from torch_envcheck.knowledge.headers import owner_of
    got = owner_of(header)
    assert (got or {}).get("owner") == owner
