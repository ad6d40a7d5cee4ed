"""explain's seventh round: mechanisms read from two versions printed side by side (the driver's kernel module against
its libraries, an image's driver floor against the host's driver), from a GPU or architecture named beside a kernel
without code for it, and fixes that carry what the text names.  The texts are written here from the documented
format of each message (the source each rule cites), never copied from the corpus; the oracle is what the format
means, written before the code ran."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)


# NVIDIA's kernel module (open-gpu-kernel-modules, kernel-open/nvidia/nv.c) prints the client's version and its own,
# over three lines, each prefixed the way the log that kept it prefixes lines
@pytest.mark.parametrize("prefix", ["[  8.120001] ", "Mar  3 10:00:01 node7 kernel: ", ""])
def test_an_nvrm_api_mismatch_is_the_driver_with_both_versions(prefix):
    text = (f"{prefix}NVRM: API mismatch: the client has the version 550.127.05, but\n"
            f"{prefix}NVRM: this kernel module has the version 550.90.07.  Please\n"
            f"{prefix}NVRM: make sure that this kernel module and all NVIDIA driver\n"
            f"{prefix}NVRM: components have the same version.\n")
    r = diagnose.diagnose(text)
    assert r["layer"] == "driver" and r["environment_problem"], r
    assert "550.127.05" in r["fix"] and "550.90.07" in r["fix"] and "reboot" in r["fix"].lower(), r["fix"]
    assert "modprobe" in r["fix"]


def test_an_nvrm_api_mismatch_kept_by_syslog_on_one_line_is_read_too():
    # rsyslog writes the kernel's newlines as #012 inside one line
    r = diagnose.diagnose("kernel: NVRM: API mismatch: the client has the version 535.183.01, but#012NVRM: this kernel "
                          "module has the version 535.161.08.  Please#012NVRM: make sure that this kernel module and "
                          "all NVIDIA driver#012NVRM: components have the same version.")
    assert r["layer"] == "driver" and "535.161.08" in r["fix"] and "535.183.01" in r["fix"], r


@pytest.mark.parametrize("need, have", [("560.35", "535.183.01"), ("470.57", "460.91.03")])
def test_an_image_built_for_a_newer_driver_is_the_hosts_driver(need, have):
    # the NGC images' entrypoint (nvidia_entrypoint.sh) compares CUDA_DRIVER_VERSION with the host's driver
    r = diagnose.diagnose(f"ERROR: This container was built for NVIDIA Driver Release {need} or later, but\n"
                          f"       version {have} was detected and compatibility mode is UNAVAILABLE.\n")
    assert r["layer"] == "driver" and r["environment_problem"], r
    assert need in r["fix"] and "host" in r["fix"] and "older release of the image" in r["fix"], r["fix"]


def test_an_image_floor_without_a_detected_driver_is_not_called_an_old_driver():
    # no version at all: the container was not given the GPU, not a driver too old
    r = diagnose.diagnose("ERROR: This container was built for NVIDIA Driver Release 530.30 or later, but\n"
                          "       version  was detected and compatibility mode is UNAVAILABLE.")
    assert r.get("signature") != "container-needs-newer-host-driver"


@pytest.mark.parametrize("gpu, sm, tag", [("NVIDIA GeForce RTX 5080", "sm_120", "cu128"),
                                          ("NVIDIA GeForce RTX 4070", "sm_89", "cu118"),
                                          ("NVIDIA GeForce RTX 3060", "sm_86", "cu111")])
def test_no_kernel_image_on_a_named_gpu_names_its_target_and_cuda(gpu, sm, tag):
    text = (f"Using device: {gpu}\n"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
    r = diagnose.diagnose(text)
    assert r["layer"] == "arch" and r["environment_problem"], r
    assert sm in r["fix"] and tag in r["fix"], r["fix"]


def test_an_architecture_named_instead_of_a_gpu_gives_its_first_cuda():
    r = diagnose.diagnose("Our new Blackwell workstation fails:\n"
                          "RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert r["layer"] == "arch" and "CUDA 12.8" in r["fix"] and "cu128" in r["fix"], r["fix"]


def test_torchs_capability_list_without_the_named_gpus_target_names_it():
    # torch/cuda/__init__.py's warning lists the build's targets; an RTX A4000 is sm_86 (CUDA 11.1+)
    r = diagnose.diagnose("NVIDIA RTX A4000 with CUDA capability sm_86 is not compatible with the current PyTorch "
                          "installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.")
    assert r["layer"] == "arch" and "sm_86" in r["fix"] and "11.1" in r["fix"], r


def test_a_gpu_whose_target_the_build_lists_is_not_given_a_newer_cuda():
    # the build lists sm_86: the named GPU is served, whatever failed is not the GPU being too new
    r = diagnose.diagnose("GPU 0: NVIDIA GeForce RTX 3090\nThe current PyTorch install supports CUDA capabilities "
                          "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86.\nRuntimeError: CUDA error: no kernel image is available "
                          "for execution on the device")
    assert r.get("signature") != "gpu-arch-needs-cuda" and "cu111" not in (r["fix"] or "")


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_an_mps_op_gated_on_a_macos_release_is_macos_with_that_release(op):
    # aten/src/ATen/native/mps/operations/UnaryOps.mm: TORCH_CHECK(macOS13_3_plus || ..., "MPS does not support ", op,
    # " op with int64 input. Support has been added in macOS 13.3")
    r = diagnose.diagnose(f"RuntimeError: MPS does not support {op} op with int64 input. Support has been added in "
                          "macOS 13.3")
    assert r["layer"] == "macos" and r["environment_problem"], r
    assert "macOS 13.3" in r["fix"] and "sw_vers" in r["fix"], r["fix"]


def test_an_mps_dtype_limit_without_a_macos_release_is_not_called_a_macos_upgrade():
    r = diagnose.diagnose("RuntimeError: MPS does not support sigmoid op with int64 input")
    assert r.get("signature") != "mps-op-needs-newer-macos"


@pytest.mark.parametrize("lib", ["/opt/cuda/nvvm/lib64/libnvvm.so: cannot open shared object file: No such file or directory",
                                 "Could not find module 'nvvm.dll' (or one of its dependencies)."])
def test_numbas_missing_nvvm_is_the_cuda_toolkits_library(lib):
    # numba/cuda/cudadrv/nvvm.py raises NvvmSupportError with the loader's message appended
    r = diagnose.diagnose(f"numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install "
                          f"cudatoolkit`:\n{lib}")
    assert r["layer"] == "libraries" and r["environment_problem"], r
    assert "cuda-nvcc" in r["fix"] and "CUDA_HOME" in r["fix"], r["fix"]


def test_cudnn_not_supported_names_the_input_limits_and_no_reinstall():
    # torch's cuDNN wrapper (aten/src/ATen/cudnn/Exceptions.h) appends the non-contiguous hint to NOT_SUPPORTED
    r = diagnose.diagnose("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed "
                          "in a non-contiguous input.")
    answer = r["fix"] or ""
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert "contiguous()" in answer and "batch size" in answer and not REINSTALL.search(answer), answer


def test_an_index_select_assert_points_at_the_embedding_and_the_tokenizer():
    # ATen's Indexing.cu asserts srcIndex < srcSelectDimSize in indexSelectLargeIndex / SmallIndex (embedding lookups)
    r = diagnose.diagnose("../aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectSmallIndex: block: [3,0,0], thread: "
                          "[7,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
                          "RuntimeError: CUDA error: device-side assert triggered")
    answer = r["fix"] or ""
    assert r["layer"] == "not-environment" and "embedding" in answer and "tokenizer" in answer, answer
    assert not REINSTALL.search(answer)


@pytest.mark.parametrize("dll", ["onnxruntime_providers_cuda.dll", "nvinfer_plugin_10.dll"])
def test_a_cuda_dll_whose_dependency_is_missing_names_the_cuda_dlls_and_path(dll):
    # the Win32 loader's GetLastError() after LoadLibrary, as a C++ program reports it: 126 is ERROR_MOD_NOT_FOUND,
    # and the DLL named was found (its path is printed), so what is missing is one it imports
    r = diagnose.diagnose(f'[E:app] LoadLibrary failed with error 126 "" when trying to load "C:\\\\app\\\\bin\\\\{dll}"')
    assert r["layer"] == "windows-runtime" and r["environment_problem"], r
    assert dll in r["fix"] and "PATH" in r["fix"] and "cuDNN" in r["fix"], r["fix"]


def test_a_missing_dependency_of_a_dll_that_is_not_cudas_keeps_the_general_answer():
    r = diagnose.diagnose('LoadLibrary failed with error 126 when trying to load "C:\\\\tools\\\\libpng16.dll"')
    assert r["layer"] == "windows-runtime" and "Visual C++" in r["fix"] and "cuDNN 9" not in r["fix"], r


@pytest.mark.parametrize("a, b", [("float", "c10::Half"), ("struct c10::Half", "float"), ("c10::BFloat16", "float")])
def test_convolutions_scalar_type_check_is_the_programs_dtype(a, b):
    # aten/src/ATen/native/Convolution.cpp: "Input type (" ... ") and bias type (" ... ") should be the same"
    r = diagnose.diagnose(f"RuntimeError: Input type ({a}) and bias type ({b}) should be the same")
    answer = r["fix"] or ""
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert "dtype" in answer and not REINSTALL.search(answer), answer


def test_convolutions_tensor_type_check_across_devices_is_placement():
    r = diagnose.diagnose("RuntimeError: Input type (CUDAFloatType) and bias type (CPUFloatType) should be the same")
    assert r["layer"] == "not-environment" and "device" in (r["fix"] or ""), r


def test_torchs_words_for_a_cuda_initialisation_error_are_the_driver():
    # c10/cuda/CUDAFunctions.cpp: cudaErrorInitializationError from the device count becomes this sentence
    r = diagnose.diagnose("  File \"torch/cuda/__init__.py\", line 302, in _lazy_init\n    torch._C._cuda_init()\n"
                          "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.")
    assert r["layer"] == "driver" and r["environment_problem"] and "nvidia-smi" in r["fix"], r


@pytest.mark.parametrize("ld", ["/usr/bin/ld: cannot find -lcublas", "/usr/bin/ld: can not find -lcublas",
                                "ld.lld: error: unable to find library -lcublas"])
def test_a_cuda_library_the_linker_cannot_find_is_the_toolkit_for_the_build(ld):
    # the linker wants the development name libcublas.so at build time: LD_LIBRARY_PATH is not its path
    r = diagnose.diagnose(f"Building extension module fused_op...\n{ld}\ncollect2: error: ld returned 1 exit status")
    assert r["layer"] == "toolchain" and r["environment_problem"], r
    assert "libcublas.so" in r["fix"] and "CUDA_HOME" in r["fix"] and "LIBRARY_PATH" in r["fix"], r["fix"]


def test_a_private_compiled_module_missing_under_an_old_python_is_the_packages_build():
    # Python before 3.7: "cannot import name '_ext'" with no "from", the import statement above says whose
    r = diagnose.diagnose("  File \"demo.py\", line 3, in <module>\n    from roi_align import _ext\n"
                          "ImportError: cannot import name '_ext'")
    assert r["layer"] == "toolchain" and "roi_align" in r["fix"], r


def test_an_undefined_symbol_without_the_symbol_names_the_module_before_it():
    r = diagnose.diagnose("after the upgrade I get `mamba_ssm_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol:`")
    assert r["layer"] == "toolchain" and "mamba-ssm" in r["fix"] and "Do not reinstall torch" in r["fix"], r


@pytest.mark.parametrize("text", [
    "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=0",
    'Error: crun: setting up CDI devices: failed to inject devices: failed to stat CDI host device "/dev/nvidia3": '
    "no such file or directory",
    "Error: stat nvidia.com/gpu=all: no such file or directory",
])
def test_a_cdi_device_the_runtime_cannot_resolve_is_the_spec_or_the_runtime(text):
    # NVIDIA Container Toolkit, CDI support: a spec per host (nvidia-ctk cdi generate), podman 4.1+ reads it
    r = diagnose.diagnose(f"$ podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi\n{text}")
    assert r["layer"] == "container" and r["environment_problem"], r
    assert "nvidia-ctk cdi generate" in r["fix"] and "podman 4.1" in r["fix"], r["fix"]


@pytest.mark.parametrize("text", ["clang: error: unsupported option '-fopenmp'",
                                  "src/kernel.cpp:3:10: fatal error: 'omp.h' file not found\n#include <omp.h>\n"
                                  "1 error generated. (macOS 14.4, arm64)"])
def test_openmp_asked_of_apple_clang_is_libomp_or_another_compiler(text):
    r = diagnose.diagnose(f"Building wheel for fastpkg (pyproject.toml) ... error\n{text}")
    assert r["layer"] == "toolchain" and r["environment_problem"], r
    # the header missing is read by the header rule (its package per platform), the flag by the compiler rule
    assert "libomp" in r["fix"] and ("-Xpreprocessor" in r["fix"] or "omp.h" in text), r["fix"]


def test_xla_without_ptxas_is_the_toolkits_assembler_and_tf_is_tensorflows():
    r = diagnose.diagnose("import tensorflow as tf\n...\nW tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES failed "
                          "at xla_ops.cc:446 : NOT_FOUND: could not find ptxas: ptxas not found in PATH")
    assert r["layer"] == "tensorflow" and "xla_gpu_cuda_data_dir" in r["fix"], r


def test_an_old_ptxas_under_jax_names_the_version_it_needs():
    r = diagnose.diagnose("W external/xla/xla/stream_executor/gpu/asm_compiler.cc:111] *** WARNING *** You are using "
                          "ptxas 10.2.89, which is older than 11.1. ptxas before 11.1 is known to miscompile XLA code\n"
                          "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: ...")
    assert r["layer"] == "toolchain" and "ptxas" in r["fix"] and "11.1" in r["fix"], r


@pytest.mark.parametrize("err", ["GPU is lost. Reboot the system to recover this GPU", "Unknown Error"])
def test_nvidia_smi_without_a_handle_to_a_listed_gpu_is_a_reboot_then_hardware(err):
    # nvidia-smi: "Unable to determine the device handle for GPU <bus id>: <nvmlErrorString>"
    r = diagnose.diagnose(f"$ nvidia-smi\nUnable to determine the device handle for GPU 0000:41:00.0: {err}")
    assert r["layer"] == "driver" and r["environment_problem"], r
    assert "0000:41:00.0" in r["title"] and "eboot" in r["fix"] and "cooling" in r["fix"] and "PCIe" in r["fix"], r


@pytest.mark.parametrize("xid, kind", [("79", "hardware"), ("94", "reset")])
def test_an_xid_of_the_hardware_or_reset_kind_is_the_gpu_not_the_software(xid, kind):
    r = diagnose.diagnose(f"[12345.678901] NVRM: Xid (PCI:0000:3b:00): {xid}, pid=4242, name=python, Ch 00000008\n"
                          "RuntimeError: CUDA error: unspecified launch failure")
    assert r["layer"] == "driver" and r["signature"] == f"gpu-xid-{kind}" and f"Xid {xid}" in r["title"], r


def test_an_xid_of_a_programs_own_fault_is_left_to_the_program():
    # Xid 13 (graphics engine exception) is the catalog's application kind
    r = diagnose.diagnose("NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, Graphics Exception\n"
                          "RuntimeError: CUDA error: an illegal memory access was encountered")
    assert not (r.get("signature") or "").startswith("gpu-xid"), r


def test_amp_unscaling_fp16_gradients_is_the_programs_dtype():
    # torch/amp/grad_scaler.py: "Attempting to unscale FP16 gradients." (weights kept in half precision)
    r = diagnose.diagnose("ValueError: Attempting to unscale FP16 gradients.")
    answer = r["fix"] or ""
    assert r["layer"] == "not-environment" and "float32" in answer and not REINSTALL.search(answer), r


def test_a_target_the_toolkit_dropped_is_the_last_cuda_that_has_it():
    # CUDA 12.0 removed sm_35/37 (release notes): a Kepler target asked of CUDA 12.4's nvcc
    r = diagnose.diagnose("Cuda compilation tools, release 12.4, V12.4.131\n"
                          "nvcc fatal   : Unsupported gpu architecture 'compute_35'")
    # the layer is the sentence's (nvcc's own: the toolchain); the versions come from the rule that reads them
    assert r["environment_problem"] and "CUDA 11.8 or older" in r["fix"] and "compute_35" in r["fix"], r["fix"]


def test_a_gpu_newer_than_the_jit_compilers_cuda_names_the_first_cuda_with_it():
    r = diagnose.diagnose("GPU: NVIDIA A100-SXM4-40GB\nCUDA Version: 10.2\n"
                          "NVRTC compilation error: nvrtc: error: invalid value for --gpu-architecture (-arch)")
    assert r["layer"] == "arch" and "sm_80" in r["fix"] and "CUDA 11.0 or newer" in r["fix"], r["fix"]


def test_a_target_inside_the_toolkits_range_gets_no_version_advice():
    r = diagnose.diagnose("Cuda compilation tools, release 11.8, V11.8.89\n"
                          "nvcc fatal   : Unsupported gpu architecture 'compute_86'")
    assert r.get("signature") != "arch-vs-toolkit" and "not supported after" not in (r["fix"] or ""), r


def test_a_tensile_library_missing_for_a_gfx_target_names_that_target_and_a_newer_rocm():
    # rocBLAS / hipBLASLt load TensileLibrary*_<gfx>.dat per target: the file named says which GPU has no kernels
    r = diagnose.diagnose("rocblaslt error: Cannot read /opt/rocm-6.2.0/lib/hipblaslt/library/TensileLibrary_lazy_gfx1150"
                          ".dat: No such file or directory\nhipBLASLt error: Heuristic Fetch Failed")
    assert r["layer"] == "rocm" and "gfx1150" in r["fix"] and "newer ROCm" in r["fix"], r["fix"]
