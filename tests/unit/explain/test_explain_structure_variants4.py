"""explain answers from the structure of a text (fifth round): owners of compiled modules, the machine a text comes
from, the stage a package's CUDA part failed at, and the program's own errors by family.

Each text is a variant nobody collected: another package, another release's wording, another language around it.
The oracle is what the owner documents (a distribution's setup.py naming its extensions, torch.utils.cpp_extension's
cache, NumPy's C-API capsule, NVIDIA's CUDA-on-WSL limitations, the frameworks' own error wordings), written down
before the code was run on the text."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b|\breinstall\b|"
                       r"--force-reinstall|--upgrade\b", re.IGNORECASE)


def _d(text: str) -> dict:
    return diagnose.diagnose(text)


# --- compiled modules named unlike their distribution (knowledge/compiled_modules.py) ----------------------------

@pytest.mark.parametrize("text", [
    "ImportError: /usr/local/lib/python3.11/dist-packages/amp_C.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN3c1017RegisterOperatorsD1Ev",
    "  File \"C:\\Users\\USER\\env\\Lib\\site-packages\\apex\\optimizers\\fused_adam.py\", line 80\n"
    "ModuleNotFoundError: No module named 'amp_C'",
    "训练时报错：ModuleNotFoundError: No module named 'syncbn'，apex 是用 pip install ./ 装的",
])
def test_an_apex_extension_module_names_apex_and_its_build_flags(text):
    d = _d(text)
    assert d["layer"] == "toolchain" and d["environment_problem"]
    assert "apex" in d["fix"] and "cuda_ext" in d["fix"]
    assert "pip install amp_C" not in d["fix"] and "pip install syncbn" not in d["fix"]


def test_mambas_selective_scan_module_names_mamba_ssm():
    d = _d("ImportError: /opt/conda/lib/python3.10/site-packages/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so: "
           "undefined symbol: _ZN3c107Warning4warnERKNS_14SourceLocationERKSsb")
    assert d["layer"] == "toolchain" and "mamba-ssm" in d["fix"]


# --- a "built for" report: the component that differs ---------------------------------------------------------------

def test_a_built_for_report_whose_python_differs_is_the_wheel_for_this_python():
    d = _d("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
           "    PyTorch 2.5.1+cu124 with CUDA 1204 (you have 2.5.1+cu124)\n"
           "    Python  3.11.9 (you have 3.12.4)\n"
           "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)")
    assert d["signature"] == "package-built-for-other-python" and d["layer"] == "toolchain"
    assert "cp312" in d["fix"] and "xformers" in d["fix"]


def test_a_built_for_report_whose_torch_differs_stays_the_torch():
    d = _d("xFormers was built for:\n    PyTorch 2.4.0+cu121 with CUDA 1201 (you have 2.5.1+cu124)\n"
           "    Python  3.10.14 (you have 3.11.9)")
    assert d["signature"] == "package-built-for-other-torch"


# --- the machine a text comes from, read from its structure ------------------------------------------------------

def test_a_windows_drive_mounted_under_mnt_is_wsl():
    d = _d("  File \"/mnt/d/Users/USER/proj/.venv/lib/python3.11/site-packages/numba/cuda/cudadrv/driver.py\", line 300\n"
           "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in "
           "CUDA_ERROR_NO_DEVICE (100)")
    assert d["layer"] == "wsl" and "/usr/lib/wsl/lib" in d["fix"]


@pytest.mark.parametrize("text", [
    "M2芯片上运行报错 AssertionError: Torch not compiled with CUDA enabled",
    "running on an M4 chip: AssertionError: Torch not compiled with CUDA enabled",
])
def test_apples_chip_named_before_cjk_or_chip_is_a_mac(text):
    d = _d(text)
    assert d["layer"] == "not-environment" and "mps" in d["fix"]
    assert not REINSTALL.search(d["fix"])


def test_nvml_unknown_error_in_a_container_is_devices_lost_after_start():
    d = _d("nvidia-smi inside my container prints this after a few hours of training:\n"
           "Failed to initialize NVML: Unknown Error")
    assert d["layer"] == "container" and d["signature"] == "container-lost-gpu-devices"
    assert "dev-char-symlinks" in d["fix"]


# --- a package's CUDA part failing on a Mac ------------------------------------------------------------------------

@pytest.mark.parametrize("text, pkg", [
    ("Collecting flash-attn==2.5.8\n  Using cached flash_attn-2.5.8.tar.gz (2.5 MB)\n  Preparing metadata (setup.py) ... "
     "error\n  OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
     "(MacBook Pro, Apple M3)", "flash-attn"),
    ("OSError: dlopen(/opt/homebrew/lib/python3.12/site-packages/auto_gptq/libauto_gptq_cuda.so, 0x0006): tried: "
     "'/opt/homebrew/lib/python3.12/site-packages/auto_gptq/libauto_gptq_cuda.so' (not a mach-o file)", "auto-gptq"),
])
def test_a_cuda_package_on_a_mac_is_run_without_it(text, pkg):
    d = _d(text)
    assert d["layer"] == "macos" and d["signature"] == "cuda-package-on-macos"
    assert pkg in d["fix"] and "macOS" in d["fix"]


# --- symbols ----------------------------------------------------------------------------------------------------

def test_a_symbol_missing_from_a_packages_cpu_variant_is_its_cuda_setup():
    d = _d("AttributeError: /usr/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cpu.so: undefined symbol: "
           "cquantize_blockwise_fp16_nf4")
    assert d["layer"] == "toolchain" and "bitsandbytes" in d["fix"] and "CUDA" in d["fix"]


def test_a_symbol_missing_from_a_packages_own_library_is_that_packages_build():
    d = _d("OSError: /opt/venv/lib/python3.10/site-packages/ctransformers/lib/cuda/libctransformers.so: undefined "
           "symbol: ggml_cuda_host_malloc")
    assert d["layer"] == "toolchain" and "ctransformers" in d["fix"]


def test_undefined_symbol_said_without_the_symbol_is_the_tracebacks_package():
    d = _d("voxel_layer undefined symbol after upgrading torch\n"
           "  File \"/opt/conda/lib/python3.8/site-packages/mmdet3d/ops/voxel/voxelize.py\", line 5, in <module>\n"
           "    from .voxel_layer import dynamic_voxelize, hard_voxelize")
    assert d["layer"] == "toolchain" and "mmdet3d" in d["fix"]
    assert "pip install torch" not in d["fix"]


# --- JIT extensions: torch.utils.cpp_extension's cache ------------------------------------------------------------

def test_a_deepspeed_op_missing_from_the_extensions_cache_is_prebuilt_by_its_flag():
    d = _d("  File \"/usr/lib/python3.11/site-packages/deepspeed/ops/op_builder/builder.py\", line 508, in load\n"
           "ImportError: /root/.cache/torch_extensions/py311_cu118/fused_adam/fused_adam.so: cannot open shared object "
           "file: No such file or directory")
    assert d["layer"] == "toolchain" and "DS_BUILD_FUSED_ADAM=1" in d["fix"]


def test_another_jit_extension_missing_is_its_failed_build():
    d = _d("OSError: /home/USER/.cache/torch_extensions/py39_cu117/upfirdn2d_plugin/upfirdn2d_plugin.so: cannot open "
           "shared object file: No such file or directory")
    assert d["signature"] == "jit-extension-build-failed" and "DS_BUILD" not in d["fix"]


# --- codes by their context -----------------------------------------------------------------------------------------

def test_numpys_c_api_capsule_not_found_is_a_module_built_for_numpy_1():
    d = _d("  File \"/home/USER/.venv/lib/python3.12/site-packages/pandas/_libs/__init__.py\", line 18\n"
           "ImportError: _UFUNC_API not found")
    assert d["layer"] == "numpy" and "numpy<2" in d["fix"] and "pandas" in d["fix"]


def test_a_cuda_code_on_ncclS_nvls_line_is_the_fabric():
    d = _d("[rank3]: Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the "
           "operation cannot be performed in the present state'")
    assert d["layer"] == "driver" and "NCCL_NVLS_ENABLE=0" in d["fix"]


@pytest.mark.parametrize("text, value", [
    ("cuInit failed with error 999 after the laptop resumed from suspend", 999),
    ("CUDA initialization failed with 802 on the HGX node", 802),
])
def test_a_code_after_failed_with_in_cuda_initialisation_words(text, value):
    d = _d(text)
    assert d["layer"] == "driver" and any(c["value"] == value for c in d["entities"]["codes"])


def test_a_cuda_calls_own_out_of_memory_under_wsl_is_wsls_pinned_memory():
    d = _d("RuntimeError: CUDA error: out of memory\n(Ubuntu 22.04 under WSL2, RTX 3060 12 GB)")
    assert d["layer"] == "wsl" and d["environment_problem"] and "pin_memory" in d["fix"]


def test_the_allocators_out_of_memory_under_wsl_stays_the_workload():
    d = _d("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 12.00 GiB total capacity)\n"
           "(Ubuntu 22.04 under WSL2)")
    assert d["layer"] == "not-environment" and not d["environment_problem"]


def test_a_hip_failure_with_torchs_rocm_and_the_systems_apart_is_that_difference():
    d = _d("torch 2.5.1+rocm6.1\nROCm version: 6.3\n"
           "RuntimeError: HIP error: shared object initialization failed")
    assert d["layer"] == "rocm" and "rocm6.3" in d["fix"]


def test_python_headers_through_their_versioned_folder():
    d = _d("src/module.c:1:10: fatal error: python3.12/Python.h: No such file or directory")
    assert d["layer"] == "toolchain" and "python3-dev" in d["fix"]


# --- the program's own errors, by family (reading: voters_program.py) --------------------------------------------

@pytest.mark.parametrize("text, look", [
    ("RuntimeError: Error(s) in loading state_dict for UNet2DModel:\n\tMissing key(s) in state_dict: \"conv_in.weight\".",
     "checkpoint"),
    ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
     "have already been freed).", "retain_graph"),
    ("RuntimeError: Function 'MulBackward0' returned nan values in its 1th output.", "anomaly"),
    # (a CPU kernel without Half is a model that never reached the GPU: test_explain_round33)
    ("RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'", ".long()"),
    ("ValueError: Attempting to unscale FP16 gradients.", "float32"),
    ("RuntimeError: result type Float can't be cast to the desired output type Long", "dtype"),
    ("RuntimeError: Placeholder storage has not been allocated on MPS device!", "same device"),
    ("TypeError: can't convert mps:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
     "first.", "same device"),
    ("RuntimeError: 0D or 1D target tensor expected, multi-target not supported", "CrossEntropyLoss"),
    ("ValueError: Default process group has not been initialized, please make sure to call init_process_group.",
     "init_process_group"),
    ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
     "find_unused_parameters"),
    ("torch._dynamo.exc.Unsupported: generator\n\nfrom user code:\n   File \"model.py\", line 12", "torch.compile"),
    ("ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in "
     "KV cache (43520).", "max_model_len"),
    ("RuntimeError: Boolean value of Tensor with more than one value is ambiguous", ".any()"),
    ("ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
     ".any()"),
    ("NotImplementedError: Could not run 'aten::addmm' with arguments from the 'SparseCPU' backend.", "to_dense"),
])
def test_the_programs_own_error_is_not_the_environment_with_what_to_look_at(text, look):
    d = _d(text)
    assert d["recognised"] and d["layer"] == "not-environment" and d["environment_problem"] is False
    assert look in d["fix"]
    assert not REINSTALL.search(d["fix"])


def test_the_same_operator_missing_for_cuda_stays_an_environment_question():
    # 'Could not run ... from the CUDA backend' is most often a CPU-only build: not one of the program's families
    d = _d("NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.")
    assert d["layer"] != "not-environment"


# --- NVML blocked by the operating system, outside a container ----------------------------------------------------

def test_nvml_blocked_by_the_os_outside_a_container_is_the_wsl_host():
    d = _d("$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system")
    assert d["layer"] == "wsl" and "dxgkrnl" in d["fix"]


def test_nvml_blocked_by_the_os_inside_a_container_is_not_wsl():
    d = _d("docker run --rm nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n"
           "Failed to initialize NVML: GPU access blocked by the operating system")
    assert d["layer"] != "wsl"


# --- a flag that names its tool's check -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("nvcc rejects gcc 14 here; it only builds with the --allow-unsupported-compiler flag", "gcc"),
    ("CUDA 11.3 and Visual Studio 2022: build stops unless -allow-unsupported-compiler is passed to nvcc",
     "Visual Studio"),
])
def test_nvccs_allow_unsupported_compiler_flag_names_its_host_compiler_check(text, words):
    d = _d(text)
    assert d["layer"] == "toolchain" and words in d["fix"] and "newer CUDA" in d["fix"]
