"""Layer rules for Intel GPUs (torch's XPU build, Intel Extension for PyTorch, oneAPI's runtimes).

    intel_gpu_not_found  Level Zero or SYCL finding no GPU device            -> Intel's GPU compute runtime (the
                         user-mode driver), the render group
    extension_needs_torch  "Intel Extension for PyTorch needs to work with PyTorch A.B.*, but PyTorch C is found"
                         -> the extension's release for the torch installed, or that torch
    xpu_free_memory_unsupported  "The device (X) doesn't support querying the available free memory" (torch.xpu.
                         mem_get_info) -> torch-build: a current XPU wheel and GPU driver, ZES_ENABLE_SYSMAN=1
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

INTEL_DRIVER = {"url": "https://packages.ubuntu.com/noble/libze-intel-gpu1",
                "what": "Ubuntu: libze-intel-gpu1, Intel's Level Zero GPU driver (intel-compute-runtime)"}
# the user-mode driver under Level Zero, SYCL and torch's XPU build, as each of these rules tells to install it
INSTALL_COMPUTE_RUNTIME = ("Intel's GPU compute runtime (Ubuntu 24.04: `sudo apt install libze1 "
                           "libze-intel-gpu1 intel-opencl-icd`; other systems: Intel's client GPU driver guide; "
                           "Windows: the Arc/Iris Xe graphics driver)")

# Level Zero's and SYCL's own words for "no GPU behind the loader": the enumeration found no device of the GPU type,
# zeInit without a driver, the SYCL/Unified Runtime device-not-found codes
_NO_DEVICE = re.compile(r"(?i:did not find|no|cannot find|could not find)[^\n]{0,40}ZE_DEVICE_TYPE_GPU|"
                        r"No device of requested type available|"
                        r"\b(?:PI_ERROR|UR_RESULT_ERROR)_DEVICE_NOT_FOUND\b|"
                        r"zeInit[^\n]{0,80}(?:ZE_RESULT_ERROR_UNINITIALIZED|failed)|"
                        r"\bZE_RESULT_ERROR_UNINITIALIZED\b")


def intel_gpu_not_found(ent, text):
    """oneAPI's loaders (Level Zero, SYCL) are there but find no GPU: the GPU's user-mode driver (Intel's compute
    runtime) is not installed, or this user may not open /dev/dri/renderD*."""
    m, at = last_in_tail(_NO_DEVICE, text)
    if m is None:
        return None
    sig = _sig("intel-gpu-not-found", "driver", "oneAPI finds no Intel GPU (Level Zero / SYCL)", 80,
               "Level Zero's loader and SYCL's runtime reach a GPU only through Intel's compute runtime, the GPU's "
               "user-mode driver; with it missing (or the kernel driver not bound, or no access to the render "
               "node) they see no device of the GPU type, and torch.xpu.is_available() is False.",
               fix="Install " + INSTALL_COMPUTE_RUNTIME + ", add yourself to the render group (`sudo usermod -aG "
                   "render $USER`, then log in again), and check that `sycl-ls` or `clinfo -l` lists the GPU before starting torch.",
               areas=("driver",), sources=(INTEL_DRIVER,))
    return _match(sig, text, at, {})


# Intel Extension for PyTorch's import-time check (its __init__ compares torch's major.minor with its own)
_IPEX_TORCH = re.compile(r"Extension for PyTorch\W{0,3} needs to work with PyTorch (?P<want>\d{1,2}\.\d{1,3})\.\*, "
                         r"but PyTorch (?P<have>\d{1,2}\.\d{1,3}[\w.+-]{0,30}) is found")


def extension_needs_torch(ent, text):
    m, at = last_in_tail(_IPEX_TORCH, text, "needs to work with PyTorch")
    if m is None:
        return None
    sig = _sig("ipex-needs-other-torch", "toolchain",
               "Intel Extension for PyTorch is built for torch {want}, the installed torch is {have}", 88,
               "Each Intel Extension for PyTorch release is built for one torch minor release and refuses any other at "
               "import; this one wants torch {want}.*, and torch {have} is installed.",
               fix="Install the extension's release for the torch you have (`pip install "
                   "\"intel-extension-for-pytorch=={have_minor}.*\"`, from Intel's index for XPU builds), or the torch "
                   "it was built for (`pip install \"torch=={want}.*\"` from the same index your torch came from, "
                   "keeping its +cpu/+xpu build).",
               areas=("torch",),
               sources=({"url": "https://intel.github.io/intel-extension-for-pytorch/",
                         "what": "Intel Extension for PyTorch: releases and the torch version each is built for"},))
    have = m.group("have")
    minor = ".".join(re.split(r"[+]", have)[0].split(".")[:2])
    return _match(sig, text, at, {"want": m.group("want"), "have": have, "have_minor": minor})


# torch's XPU allocator (c10/xpu, getMemoryInfo) asks SYCL for the device's free memory through the
# ext_intel_free_memory aspect and refuses a device whose runtime does not offer it; transformers' device_map loading
# and other memory planners call torch.xpu.mem_get_info
_XPU_FREE_MEMORY = re.compile(r"The device(?: \((?P<name>[^\n]{1,100}?)\))? doesn't support querying the available "
                              r"free memory")


def xpu_free_memory_unsupported(ent, text):
    m, at = last_in_tail(_XPU_FREE_MEMORY, text, "free memory")
    if m is None:
        return None
    sig = _sig("xpu-free-memory-unsupported", "torch-build",
               "torch's XPU build cannot read the free memory of {name|this Intel GPU}", 82,
               "torch.xpu.mem_get_info asks the SYCL runtime for the GPU's free memory (the ext_intel_free_memory "
               "aspect); the SYCL runtime torch's XPU wheel ships and Intel's GPU driver (Level Zero) must both offer "
               "it, and older releases of either, or a GPU newer than them, do not. Whatever calls mem_get_info "
               "(device_map=\"auto\" loading, memory planners) stops here.",
               fix="Install the current torch XPU build in this environment (`python -m pip install --upgrade torch "
                   "--index-url https://download.pytorch.org/whl/xpu`; no Intel Extension for PyTorch needed) and "
                   "Intel's current GPU driver; with an older compute runtime on Linux, setting ZES_ENABLE_SYSMAN=1 "
                   "before Python starts lets Level Zero report free memory.",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/c10/xpu/XPUCachingAllocator.cpp",
                         "what": "torch's XPU allocator: getMemoryInfo requires sycl::aspect::ext_intel_free_memory"},
                        {"url": "https://github.com/intel/llvm/blob/sycl/sycl/doc/extensions/supported/"
                                "sycl_ext_intel_device_info.md",
                         "what": "SYCL's Intel device info: the free memory query and ZES_ENABLE_SYSMAN"},
                        {"url": "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html",
                         "what": "torch on Intel GPUs: the XPU wheels and the driver they need"}))
    return _match(sig, text, at, {"name": m.group("name")})
