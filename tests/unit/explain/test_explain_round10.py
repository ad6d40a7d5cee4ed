"""explain's tenth round: what other runtimes print about their own stack (XLA's cuDNN check under JAX, ONNX Runtime's
providers, TensorRT's engines), the verbs status inside NCCL's InfiniBand lines, conda's virtual __cuda package, the
Kubernetes scheduler's GPU resource, where an illegal instruction comes from (a Mac under Rosetta, an ARM board's
OpenBLAS), and a missing DLL read as Windows' DLL loading.  The texts are written here from each message's documented
format, varied over the values a real one carries; the oracle is what the format means, written before the code ran."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.layer_rules.nccl import IBV_WC_STATUS
from torch_envcheck.explain.layer_rules.runtimes import cudnn_version
from torch_envcheck.knowledge.releases import releases

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)


# --- cuDNN's integer versions ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("number, dotted", [("8600", "8.6.0"), ("8906", "8.9.6"), ("8907", "8.9.7"), ("9100", "9.1.0"),
                                            ("90100", "9.1.0"), ("91002", "9.10.2"), ("7605", "7.6.5")])
def test_cudnn_integer_versions_read_as_cudnn_writes_them(number, dotted):
    assert cudnn_version(number) == dotted


@pytest.mark.parametrize("number", ["", "12", "abc", "999"])
def test_a_number_that_is_no_cudnn_version_is_not_read(number):
    assert cudnn_version(number) is None


# --- XLA's cuDNN check, as JAX prints it -----------------------------------------------------------------------------

def _jax_outdated(built: int, minimum: int, found: int) -> str:
    return ("RuntimeError: Unable to initialize backend 'cuda': Unable to use CUDA because of the following issues with "
            f"CUDA components:\nOutdated cuDNN installation found.\nVersion JAX was built against: {built}\n"
            f"Minimum supported: {minimum}\nInstalled version: {found}\nThe local installation version must be no lower "
            f"than {minimum}.")


@pytest.mark.parametrize("built, minimum, found, need", [(8907, 9100, 8907, "9.1.0"), (90300, 90100, 8600, "9.1.0"),
                                                         (8906, 8900, 8600, "8.9.0")])
def test_jax_outdated_cudnn_names_the_minimum_it_needs(built, minimum, found, need):
    r = diagnose.diagnose(_jax_outdated(built, minimum, found))
    assert r["layer"] == "cudnn" and r["environment_problem"], r
    assert need in r["fix"] and "jax" in r["fix"].lower() and "TensorFlow" not in r["fix"], r["fix"]


@pytest.mark.parametrize("found, built, need", [("8600", "8906", "8.9.6"), ("8204", "8600", "8.6.0")])
def test_older_jaxlib_wording_names_the_build_version(found, built, need):
    text = (f"CUDA backend failed to initialize: Found cuDNN version {found}, but JAX was built against version {built}, "
            "which is newer. The copy of cuDNN that is installed must be at least as new as the version against which "
            "JAX was built.")
    r = diagnose.diagnose(text)
    assert r["layer"] == "cudnn" and need in r["fix"] and "jax" in r["fix"].lower(), r


def test_xla_cudnn_line_under_jax_gets_jax_advice_and_under_tensorflow_tensorflow_advice():
    line = ("E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Loaded runtime CuDNN library: 8.5.0 but source "
            "was compiled with: 8.6.0.  CuDNN library needs to have matching major version and equal or higher minor "
            "version.")
    jax = diagnose.diagnose(line + "\njaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library "
                                   "initialization failed.")
    assert jax["layer"] == "cudnn" and "8.6.0" in jax["fix"] and "jax" in jax["fix"].lower(), jax["fix"]
    tf = diagnose.diagnose("2023-01-01 I tensorflow/core/common_runtime/gpu/gpu_device.cc] ...\n" +
                           line.replace("external/xla/xla", "tensorflow/compiler/xla"))
    assert tf["layer"] == "cudnn" and "TensorFlow" in tf["fix"], tf["fix"]


# --- ONNX Runtime's providers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("available", ["'AzureExecutionProvider, CPUExecutionProvider'", "'CPUExecutionProvider'"])
def test_onnxruntime_without_the_cuda_provider_is_the_cpu_package(available):
    text = ("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
            f"providers: {available}")
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and "onnxruntime-gpu" in r["fix"] and "uninstall" in r["fix"], r


def test_a_provider_list_without_cuda_under_a_gpu_install_is_read_too():
    text = (" + onnxruntime==1.20.1\n + onnxruntime-gpu==1.20.1\n>>> import onnxruntime\n"
            ">>> onnxruntime.get_available_providers()\n['AzureExecutionProvider', 'CPUExecutionProvider']")
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and "onnxruntime-gpu" in r["fix"], r
    assert "Both packages are installed here" in r["explanation"]


def test_a_provider_list_with_cuda_is_no_problem_of_the_package():
    text = (">>> onnxruntime.get_available_providers()\n['TensorrtExecutionProvider', 'CUDAExecutionProvider', "
            "'CPUExecutionProvider']")
    assert diagnose.diagnose(text).get("signature") != "onnxruntime-without-cuda-provider"


# --- TensorRT engines ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::35] Error Code 1: Serialization (Serialization assertion "
    "safeVersionRead == safeSerializationVersion failed.Version tag does not match. Note: Current Version: 0, "
    "Serialized Engine Version: 96)",
    "[TensorRT] ERROR: coreReadArchive.cpp (41) - Serialization Error in verifyHeader: 0 (Version tag does not match. "
    "Note: Current Version: 96, Serialized Engine Version: 97)",
    "[TensorRT] ERROR: coreReadArchive.cpp (31) - Serialization Error in verifyHeader: 0 (Magic tag does not match)",
    "[TRT] [E] 6: The engine plan file is not compatible with this version of TensorRT, expecting library version "
    "8.6.1.6 got 8.5.2.2, please rebuild.",
])
def test_an_engine_from_another_tensorrt_is_built_again(line):
    r = diagnose.diagnose(line + "\n[TRT] [E] 4: [runtime.cpp::deserializeCudaEngine::50] Error Code 4: Internal Error "
                                 "(Engine deserialization failed.)")
    assert r["layer"] == "libraries" and r["environment_problem"], r
    assert "engine" in r["fix"].lower() and "TensorRT" in r["fix"] and "again" in r["fix"], r["fix"]


# --- NCCL over InfiniBand --------------------------------------------------------------------------------------------

def test_the_verbs_statuses_are_in_rdma_cores_order():
    # ibv_wc_status: the first, the retry pair and the last of the classic list, at their numbers
    assert IBV_WC_STATUS[0] == "IBV_WC_SUCCESS" and IBV_WC_STATUS[5] == "IBV_WC_WR_FLUSH_ERR"
    assert IBV_WC_STATUS[12] == "IBV_WC_RETRY_EXC_ERR" and IBV_WC_STATUS[13] == "IBV_WC_RNR_RETRY_EXC_ERR"
    assert IBV_WC_STATUS[21] == "IBV_WC_GENERAL_ERR"


@pytest.mark.parametrize("line, words", [
    ("node-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, "
     "vendor err 129", ["ibstat", "NCCL_IB_GID_INDEX"]),
    ("NET/IBP:Got completion from peer 10.0.0.7<36315> with status=12 opcode=32698 len=32696 vendor err 129 (Send)",
     ["ibstat", "InfiniBand"]),
    ("NCCL WARN NET/IB : Got completion from peer 10.1.2.3<5000> with error 4, opcode 32644, len 0, vendor err 81",
     ["nvidia-peermem", "memlock"]),
    ("NCCL WARN NET/IB : Got completion with error 5, opcode 0, len 0, vendor err 249", ["first"]),
])
def test_an_ib_completion_status_is_decoded_into_what_failed(line, words):
    r = diagnose.diagnose(line)
    assert r["layer"] == "distributed" and r["environment_problem"], r
    assert all(w in r["fix"] for w in words), r["fix"]


# --- conda's virtual __cuda package ----------------------------------------------------------------------------------

@pytest.mark.parametrize("have, need", [("10.2", "11.0"), ("11.4", "12"), ("12.2", "12.4")])
def test_a_solver_refusing_a_cuda_build_for_the_drivers_cuda_names_the_driver(have, need):
    text = ("Encountered problems while solving:\n  - package cudatoolkit-11.0.3-h15472ef_6 has constraint "
            f"__cuda >={need} conflicting with __cuda-{have}-0")
    r = diagnose.diagnose(text)
    assert r["layer"] == "driver" and r["signature"] == "conda-driver-too-old", r
    assert f"CUDA {need}" in r["fix"] and "driver" in r["fix"].lower() and f"cuda-version<={have}" in r["fix"], r["fix"]


def test_a_solver_that_finds_no_cuda_virtual_package_means_no_driver():
    r = diagnose.diagnose("Could not solve for environment specs\n  - nothing provides __cuda needed by "
                          "pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0")
    assert r["layer"] == "driver" and "CONDA_OVERRIDE_CUDA" in r["fix"] and "nvidia-smi" in r["fix"], r


def test_a_satisfied_cuda_constraint_is_not_a_driver_problem():
    text = "package pytorch-cuda-12.1 requires __cuda >=12.1, but __cuda-12.4-0 is installed; other conflicts follow"
    assert diagnose.diagnose(text).get("signature") != "conda-driver-too-old"


# --- Kubernetes ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("res", ["nvidia.com/gpu", "amd.com/gpu"])
def test_insufficient_gpu_resource_is_the_device_plugin(res):
    text = f"0/3 nodes are available: 1 node(s) had untolerated taint, 3 Insufficient {res}. preemption: 0/3 nodes"
    r = diagnose.diagnose(text)
    assert r["layer"] == "container" and "device plugin" in r["fix"] and res in r["fix"], r


# --- an illegal instruction and the machine it comes from ------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "zsh: illegal hardware instruction  python train.py",
    "Please fix: illegal hardware instruction on M2 using conda",
    "arch\n> i386\npython -c 'import somepkg'\n[1]    57761 illegal hardware instruction  python",
    "Illegal instruction: 4\nI run it on my MacBook with an M1",
])
def test_sigill_on_apple_silicon_is_rosetta(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "macos" and "arm64" in r["fix"], r


@pytest.mark.parametrize("text", [
    "I installed it on a Jetson Nano and `Illegal instruction` occurs when I import it",
    "jetson@nano:~$ python3 -c 'import torch'\nIllegal instruction (core dumped)",
    "Illegal instruction (core dumped) on import for numpy 1.19.5 on ARM64",
    "illegal instruction (core dumped) on my Raspberry Pi 4 (aarch64, Ubuntu 20.04)",
])
def test_sigill_on_an_arm_linux_board_is_openblas_coretype(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "env" and "OPENBLAS_CORETYPE=ARMV8" in r["fix"], r


def test_sigill_on_x86_linux_is_still_the_cpus_instructions():
    r = diagnose.diagnose("$ python -c 'import mypkg'\nIllegal instruction (core dumped)")
    assert r["layer"] == "env" and "AVX" in r["fix"] and "OPENBLAS" not in r["fix"], r


def test_sigill_at_import_tensorflow_on_arm_linux_is_not_read_as_openblas():
    r = diagnose.diagnose("pi@raspberrypi:~ $ python3 -c 'import tensorflow'\nIllegal instruction (core dumped)")
    assert "OPENBLAS_CORETYPE" not in (r.get("fix") or ""), r


# --- a DLL Windows cannot load -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dll", ["cublas64_12.dll", "cudnn_ops64_9.dll", "nvrtc64_120_0.dll", "cufft64_11.dll"])
def test_a_cuda_dll_not_found_is_windows_dll_loading_and_names_its_provider(dll):
    r = diagnose.diagnose(f"RuntimeError: Library {dll} is not found or cannot be loaded")
    assert r["layer"] == "windows-runtime" and "PATH" in r["fix"], r
    assert ("cuDNN" in r["fix"]) == dll.startswith("cudnn"), r["fix"]


# --- torch sees no CUDA, and how it was installed ----------------------------------------------------------------

def test_is_available_false_after_a_conda_forge_install_asks_conda_for_a_cuda_build():
    text = ("Installed with `conda create -n env mypkg -c conda-forge`\n>>> import torch\n>>> torch.cuda.is_available()\n"
            "False")
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and "pytorch-gpu" in r["fix"] and "cuda-version" in r["fix"], r


@pytest.mark.parametrize("where", ["on Windows 11", "on an aarch64 GH200 node running Ubuntu"])
def test_is_available_false_on_a_platform_whose_pypi_wheel_is_cpu_names_the_pytorch_index(where):
    r = diagnose.diagnose(f"pip install torch {where}, then\nprint(torch.cuda.is_available())\nFalse")
    assert r["layer"] == "torch-build" and "--index-url https://download.pytorch.org/whl/cu" in r["fix"], r


def test_the_drivers_cuda_in_the_text_picks_the_index():
    text = ("| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |\n"
            "C:\\Users\\me> python -c \"import torch; print(torch.cuda.is_available())\"\nFalse")
    r = diagnose.diagnose(text)
    # a build the 12.4 driver runs (CUDA 12 minor-version compatibility) that the PyTorch index publishes
    tags = {b["tag"] for rel in releases() for b in rel["builds"]}
    got = re.search(r"https://download\.pytorch\.org/whl/(cu12\d)\b", r["fix"])
    assert got and got.group(1) in tags and "CUDA 12.4" in r["fix"], r["fix"]


def test_a_cuda_build_that_sees_no_gpu_is_not_called_a_cpu_build():
    text = "torch 2.4.0+cu121\n>>> torch.cuda.is_available()\nFalse"
    assert diagnose.diagnose(text).get("signature") != "cuda-unavailable-cpu-build"


# --- a third-party compiled module Windows cannot load --------------------------------------------------------------

@pytest.mark.parametrize("pkg", ["detectron2", "pytorch3d", "mypkg_ops"])
def test_dll_load_failed_under_a_third_party_package_is_its_build(pkg):
    text = (f'  File "C:\\Users\\me\\miniconda3\\lib\\site-packages\\{pkg}\\layers\\deform.py", line 11, in <module>\n'
            f"    from {pkg} import _C\nImportError: DLL load failed while importing _C: The specified procedure could "
            "not be found.")
    r = diagnose.diagnose(text)
    assert r["layer"] == "toolchain" and pkg in r["fix"] and "torch" in r["fix"], r
    assert "pip install --force-reinstall torch" not in r["fix"]


def test_dll_load_failed_of_torch_itself_stays_the_windows_runtime():
    text = ('  File "C:\\Python311\\Lib\\site-packages\\torch\\__init__.py", line 141, in <module>\n'
            "    from torch._C import *\nImportError: DLL load failed while importing _C: The specified module could "
            "not be found.")
    assert diagnose.diagnose(text)["layer"] == "windows-runtime"


# --- a package's own version-range check (OpenMMLab) ----------------------------------------------------------------

@pytest.mark.parametrize("line, words", [
    ("AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.",
     ['mim install "mmcv>=2.0.0rc4,<2.2.0"']),
    ("AssertionError: MMCV==1.3.9 is used but incompatible. Please install mmcv>=(1, 3, 13, 0, 0, 0), <(1, 7, 0, 0, 0, 0).",
     ['mim install "mmcv-full>=1.3.13,<1.7.0"']),
    ("AssertionError: MMEngine==0.7.0 is used but incompatible. Please install mmengine>=0.7.1, <1.0.0.",
     ['mim install "mmengine>=0.7.1,<1.0.0"']),
])
def test_a_version_range_check_installs_one_in_range(line, words):
    r = diagnose.diagnose(line)
    assert r["layer"] == "toolchain" and all(w in r["fix"] for w in words), r["fix"]


# --- the program's data, read from its numbers ----------------------------------------------------------------------

@pytest.mark.parametrize("want, got, word", [(3, 4, 'convert("RGB")'), (3, 1, 'convert("RGB")'), (1, 3, 'convert("L")'),
                                             (151, 13, "options")])
def test_a_convolution_input_channel_mismatch_is_the_data(want, got, word):
    text = (f"RuntimeError: Given groups=1, weight of size [64, {want}, 3, 3], expected input[1, {got}, 400, 640] to "
            f"have {want} channels, but got {got} channels instead")
    r = diagnose.diagnose(text)
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert word in r["fix"] and not REINSTALL.search(r["fix"]), r["fix"]


def test_an_index_equal_to_the_size_is_the_data_not_the_install():
    r = diagnose.diagnose("RuntimeError: index 18864 is out of bounds for dimension 1 with size 18864")
    assert r["layer"] == "not-environment" and "vocab_size" in r["fix"] and "18865" in r["fix"], r
    assert not REINSTALL.search(r["fix"])


def test_an_mps_array_over_4gb_is_the_workload():
    r = diagnose.diagnose("MPSNDArray.mm:788: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: total "
                          "bytes of NDArray > 2**32'")
    assert r["layer"] == "not-environment" and "smaller" in r["fix"] and not REINSTALL.search(r["fix"]), r


# --- a GPU that fell off the bus, NCCL older than the GPU -----------------------------------------------------------

@pytest.mark.parametrize("words", ["GPU has fallen off the bus", "gpu has fallen off of the bus when gaming"])
def test_the_drivers_words_for_xid_79_are_hardware(words):
    r = diagnose.diagnose(words + "\nNVIDIA GeForce RTX 3070 Ti, driver 530.41.03")
    assert r["layer"] == "driver" and "power" in r["fix"] and "No reinstall" in r["fix"], r


def test_nccl_asking_more_shared_memory_than_the_gpu_allows_is_an_older_nccl():
    text = ("host:1:1 [1] NCCL INFO NCCL version 2.25.1+cuda12.2\n"
            "host:1:1 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856")
    r = diagnose.diagnose(text)
    assert r["layer"] == "distributed" and "nvidia-nccl" in r["fix"] and "2.25.1" in r["explanation"], r


# --- device types, packages without CUDA, containers, loaders --------------------------------------------------------

_EXPECTED = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, "
             "mtia, privateuseone")


@pytest.mark.parametrize("dev, word", [("dml", "torch-directml"), ("npu", "torch-npu"), ("gaudi2", "registers")])
def test_a_device_type_this_torch_does_not_list_is_a_backend_package(dev, word):
    text = (f"RuntimeError: Expected one of {_EXPECTED} device type at start of device string: {dev}")
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and word in r["fix"], r


def test_a_listed_device_type_is_not_read_as_missing_backend():
    text = f"RuntimeError: Expected one of {_EXPECTED} device type at start of device string: cuda"
    assert diagnose.diagnose(text).get("signature") != "device-type-not-in-this-torch"


@pytest.mark.parametrize("pkg", ["CTranslate2", "Faiss", "MyLib"])
def test_a_package_that_says_it_has_no_cuda_is_its_cpu_build(pkg):
    r = diagnose.diagnose(f'ValueError: This {pkg} package was not compiled with CUDA support')
    assert r["layer"] == "torch-build" and pkg.lower() in r["fix"] and "CUDA build" in r["fix"], r


def test_nvidia_smi_missing_in_a_container_is_the_nvidia_runtime():
    text = ('$ docker run nvidia/cuda:12.4.0-base-ubuntu22.04 nvidia-smi\ndocker: Error response from daemon: OCI runtime '
            'create failed: container_linux.go:349: starting container process caused "exec:\n\\"nvidia-smi\\": '
            'executable file not found in $PATH": unknown.')
    r = diagnose.diagnose(text)
    assert r["layer"] == "container" and "daemon.json" in r["fix"] and "--gpus all" in r["fix"], r


@pytest.mark.parametrize("text, layer, word", [
    ('Singularity built from an NGC image yields "unable to find libcuda.so.1"', "container", "--nv"),
    ("$ apptainer exec ./img.sif nvidia-smi\nNVIDIA-SMI couldn't find libnvidia-ml.so library in your system.",
     "container", "--nv"),
    ("$ singularity exec --nv ./c.simg python x.py\nINFO:    Could not find any NVIDIA binaries on this host!\n"
     "WARNING: Could not find any NVIDIA libraries on this host!", "driver", "nvliblist.conf"),
])
def test_singularity_without_the_drivers_libraries(text, layer, word):
    r = diagnose.diagnose(text)
    assert r["layer"] == layer and word in r["fix"], r


@pytest.mark.parametrize("path, word", [
    ("/home/u/env/lib/python3.10/site-packages/somepkg/libsomepkg_cuda.dll", "Linux build"),
    ("/home/u/env/lib/python3.10/site-packages/somepkg/_ops.so", "git lfs pull"),
])
def test_a_library_that_is_not_elf(path, word):
    r = diagnose.diagnose(f"OSError: {path}: invalid ELF header")
    assert r["layer"] == "libraries" and word in r["fix"] and "somepkg" in r["fix"], r


@pytest.mark.parametrize("prefix, layer", [("", "driver"), ("$ docker run --rm tf-img python t.py\n", "container")])
def test_tensorflow_finding_no_libcuda_is_the_drivers_library(prefix, layer):
    text = prefix + ("I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:160] libcuda reported version is: Not found: "
                     "was unable to find libcuda.so DSO loaded into this program")
    assert diagnose.diagnose(text)["layer"] == layer


@pytest.mark.parametrize("ns, dist", [("torchvision", "torchvision"), ("mmcv", "mmcv"), ("detectron2", "detectron2")])
def test_a_package_operator_without_a_cuda_kernel_is_that_packages_build(ns, dist):
    text = f"NotImplementedError: Could not run '{ns}::nms' with arguments from the 'CUDA' backend. This could be ..."
    r = diagnose.diagnose(text)
    assert r["layer"] == "toolchain" and dist in r["fix"], r


def test_an_aten_operator_without_a_cuda_kernel_is_not_a_packages_build():
    text = "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend."
    assert diagnose.diagnose(text).get("signature") != "package-op-without-backend"


@pytest.mark.parametrize("lib, major, layer", [("libnvrtc.so.11.2", "11", "libraries"), ("libcublas.so.12", "12", "libraries"),
                                               ("nvrtc64_120_0.dll", "12", "windows-runtime")])
def test_cupy_failing_to_load_a_cuda_library_names_the_wheel_per_major(lib, major, layer):
    r = diagnose.diagnose(f"RuntimeError: CuPy failed to load {lib}: OSError: {lib}: cannot open shared object file")
    assert r["layer"] == layer and f"cupy-cuda{major}x" in r["fix"], r


def test_miopen_missing_kernel_database_alone_is_harmless():
    text = ("MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_20.kdb Performance may degrade. "
            "Please follow instructions to install: https://github.com/ROCm/MIOpen#installing-miopen-kernels-package")
    r = diagnose.diagnose(text)
    assert r["layer"] == "not-environment" and not r["environment_problem"] and not REINSTALL.search(r["fix"]), r
    after = diagnose.diagnose(text + "\nTraceback (most recent call last):\nRuntimeError: HIP error: invalid device function")
    assert after.get("signature") != "miopen-kernel-database-missing"


def test_onnxruntime_without_inference_session_is_the_two_packages_mixed():
    r = diagnose.diagnose("AttributeError: module 'onnxruntime' has no attribute 'InferenceSession'")
    assert r["layer"] == "torch-build" and "pip uninstall -y onnxruntime onnxruntime-gpu" in r["fix"], r


@pytest.mark.parametrize("fn, name, jit", [("cusparseGetProperty", "cuSPARSE", True), ("cufftGetVersion", "cuFFT", True),
                                           ("cublasGetVersion", "cuBLAS", False)])
def test_jax_finding_no_cuda_library(fn, name, jit):
    text = (f"RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation {fn}(MAJOR_VERSION, &major) failed: The "
            f"{name} library was not found.")
    r = diagnose.diagnose(text)
    assert r["layer"] == "libraries" and 'jax[cuda12]' in r["fix"] and ("nvjitlink" in r["fix"]) == jit, r


@pytest.mark.parametrize("path", ["/usr/local/cuda/bin/nvcc", "/opt/cuda-12.4/bin/nvcc"])
def test_a_build_running_nvcc_from_a_path_that_does_not_exist_is_the_toolkit(path):
    r = diagnose.diagnose(f"FileNotFoundError: [Errno 2] No such file or directory: '{path}'")
    assert r["layer"] == "toolchain" and "CUDA_HOME" in r["fix"], r


# --- a docker compose log is a text from a container ----------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["qna-transformers_1  | ", "api-1       | "])
def test_a_compose_service_log_prefix_places_the_text_in_a_container(prefix):
    text = "\n".join(prefix + line for line in (
        "  File \"/app/server.py\", line 12, in <module>", "    torch._C._cuda_init()",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx"))
    r = diagnose.diagnose(text)
    assert r["layer"] == "container" and "--gpus all" in r["fix"], r


def test_a_table_row_is_not_a_compose_prefix():
    text = ("| GPU | Name | Driver |\n| 0 | A100 | 535 |\nRuntimeError: Found no NVIDIA driver on your system. Please "
            "check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    assert diagnose.diagnose(text)["layer"] != "container"


# --- the reason Windows gave for a DLL it could not load, in any language --------------------------------------------

@pytest.mark.parametrize("reason, name", [
    ("The specified procedure could not be found.", "ERROR_PROC_NOT_FOUND"),
    ("找不到指定的程序。", "ERROR_PROC_NOT_FOUND"),
    ("La procédure spécifiée est introuvable.", "ERROR_PROC_NOT_FOUND"),
    ("The operating system cannot run %1.", "ERROR_INVALID_ORDINAL"),
    ("O sistema operacional não pode executar %1.", "ERROR_INVALID_ORDINAL"),
    ("操作系统无法运行 %1。", "ERROR_INVALID_ORDINAL"),
    ("找不到指定的模块。", "ERROR_MOD_NOT_FOUND"),
    ("Не найден указанный модуль.", "ERROR_MOD_NOT_FOUND"),
    ("%1 is not a valid Win32 application.", "ERROR_BAD_EXE_FORMAT"),
])
def test_the_reason_after_dll_load_failed_is_decoded(reason, name):
    r = diagnose.diagnose(f"ImportError: DLL load failed: {reason}")
    assert name in [c["name"] for c in r["entities"]["codes"]], r["entities"]
    assert r["layer"] == "windows-runtime"


@pytest.mark.parametrize("reason", ["The specified procedure could not be found.", "The operating system cannot run %1.",
                                    "操作系统无法运行 %1。"])
def test_a_dll_of_another_version_is_told_to_find_the_other_copy(reason):
    r = diagnose.diagnose(f'  File "C:\\Python311\\Lib\\site-packages\\torch\\__init__.py", line 141\n'
                          f"ImportError: DLL load failed while importing _C: {reason}")
    assert "PATH" in r["fix"] and "another version" in r["fix"], r["fix"]


def test_a_missing_module_keeps_the_visual_cpp_advice():
    r = diagnose.diagnose("ImportError: DLL load failed: 找不到指定的模块。")
    assert "Visual C++" in r["fix"], r["fix"]


@pytest.mark.parametrize("text", ["the paging file is too small for this operation",
                                  "OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading \"C:\\x\\torch\\lib\\cudnn64_8.dll\""])
def test_the_paging_file_message_is_read_wherever_it_stands(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "windows-runtime" and "page file" in r["fix"], r


@pytest.mark.parametrize("text", [
    "I installed torch successfully, but print (torch.cuda.is_available) is False, how can I solve this problem?",
    "import torch正常，torch.cuda.is_available()返回False怎么办",
    "torch.cuda.is_available() is false after CUDA 9.0.176 installed.",
])
def test_is_available_false_said_in_prose_is_recognised_and_told_how_to_install(text):
    r = diagnose.diagnose(text)
    assert r["recognised"] and r["layer"] == "torch-build", r
    assert "download.pytorch.org/whl/cu" in r["fix"] and "driver" in r["fix"], r["fix"]


@pytest.mark.parametrize("words", ["my laptop goes to sleep or hibernation", "after the PC went into standby",
                                   "waking it from sleep mode"])
def test_sleep_said_other_ways_is_the_suspend_problem(words):
    r = diagnose.diagnose(f"CUDA works until {words}, then:\nRuntimeError: CUDA error: unspecified launch failure")
    assert r["layer"] == "driver" and "nvidia_uvm" in r["fix"], r


# --- NumPy's C API versions -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("want, have, release", [("0x10", "0xf", "1.23"), ("0xe", "0xd", "1.20"), ("0x12", "0x11", "2.0"),
                                                 ("8", "4", "1.8")])
def test_a_module_built_for_a_newer_numpy_c_api_names_the_release(want, have, release):
    r = diagnose.diagnose(f"RuntimeError: module compiled against API version {want} but this version of numpy is {have}")
    assert r["layer"] == "numpy" and f'numpy>={release}' in r["fix"], r["fix"]


def test_the_c_api_table_follows_numpys_own_list():
    from torch_envcheck.knowledge import numpy_capi
    # cversions.txt: version 13 is NumPy 1.16 (1.17-1.19 unchanged), 16 is 1.23, 18 is 2.0.0
    assert numpy_capi.first_release(0xD) == "1.16" and numpy_capi.first_release(0x10) == "1.23"
    assert numpy_capi.first_release(0x12) == "2.0" and numpy_capi.first_release(0x8) == "1.8"  # 8 unnamed: next known
    assert numpy_capi.first_release(0x40) is None


@pytest.mark.parametrize("name, dist", [("flash-attn", "flash-attn"), ("xformers", "xformers"), ("mmcv", "mmcv"),
                                        ("torch_scatter", "torch-scatter")])
def test_a_torch_abi_failure_without_a_path_names_the_extension_the_text_names(name, dist):
    r = diagnose.diagnose(f"how to solve this {name} problem?\nImportError: undefined symbol: _ZNK3c105Error4whatEv")
    assert r["layer"] == "toolchain" and dist in r["fix"], r["fix"]


def test_a_torch_abi_failure_naming_no_extension_names_none():
    r = diagnose.diagnose("ImportError: undefined symbol: _ZNK3c105Error4whatEv")
    assert r["layer"] == "toolchain" and "extension itself" in r["fix"], r["fix"]
