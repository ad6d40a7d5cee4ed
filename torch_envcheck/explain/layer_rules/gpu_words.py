"""Layer rules that read a GPU's architecture from the words a program or compiler prints about it, beside the
capability floors of capability.py: a compute capability listed as not supported, cuDF's missing PTX, LLVM not knowing
the GPU's processor, HIP's "no kernel image".

    capability_refused_in_words  "capability 3.0, NOT SUPPORTED", cuDF's "missing the necessary PTX files that are <=50"
                     -> arch: the GPU is older than the software supports
    llvm_unknown_processor  LLVM's "'sm_120' is not a recognized processor for this target" -> arch: the compiler's
                     bundled LLVM (Triton's, llvmlite's) predates the GPU
    hip_no_kernel_image  torch's "HIP error: no kernel image is available" (the code's name not printed) -> rocm: the
                     ROCm build has no code object for the GPU's gfx target
"""

from __future__ import annotations

import re

from torch_envcheck.knowledge import gpu_generations
from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_CAP_REFUSED = re.compile(r"(?i:capability)[ :]{1,3}(?P<cap>\d{1,2}\.\d)\)?,?\s{0,3}(?:-\s{0,2})?(?:NOT SUPPORTED|not supported|"
                          r"is not supported|unsupported)|"
                          r"missing the necessary PTX files that are <=\s{0,2}(?P<cc>\d{2,3})")


def capability_refused_in_words(ent, text):
    m, at = last_in_tail(_CAP_REFUSED, text)
    if m is None:
        return None
    cap = m.group("cap") or f"{m.group('cc')[:-1]}.{m.group('cc')[-1]}"
    last = gpu_generations.last_cuda_for(cap)
    sig = _sig("gpu-capability-refused", "arch", "the GPU's compute capability {cap} is below what the software supports",
               82,
               "The program lists the GPU with compute capability {cap} and refuses it: its kernels (or the PTX it ships) "
               "start at a newer architecture, so nothing of it can run on this GPU. No install of the same release "
               "changes that." + (" CUDA itself supports capability {cap} up to CUDA {last}." if last else ""),
               fix="Run on a GPU of a generation the software supports (its system requirements list the minimum "
                   "compute capability; RAPIDS, for one, needs Pascal, 6.0, or newer in older releases and Volta, 7.0, "
                   "in current ones), or use an older release of the software that still supported compute capability "
                   "{cap} (with a CUDA that supports it" + (": CUDA {last} or older, e.g. conda's cudatoolkit={last}" if last
                                                            else "") + ").",
               areas=("gpu",),
               sources=({"url": "https://docs.rapids.ai/install/#system-req",
                         "what": "RAPIDS system requirements: the minimum GPU compute capability"},
                        {"url": "https://developer.nvidia.com/cuda-gpus", "what": "compute capability of each GPU"}))
    return _match(sig, text, at, {"cap": cap, "last": last})


_LLVM_PROCESSOR = re.compile(r"'(?P<sm>sm_\d{2,3}[af]?|gfx\d{3,4}[a-z]?)' is not a recognized processor for this target")


def llvm_unknown_processor(ent, text):
    m, at = last_in_tail(_LLVM_PROCESSOR, text, "is not a recognized processor")
    if m is None:
        return None
    sm = m.group("sm")
    sig = _sig("llvm-unknown-processor", "arch", "the compiler's LLVM does not know {sm}", 82,
               "LLVM prints this when it is asked to generate code for a processor it does not know: the LLVM inside the "
               "compiler that runs here (Triton's bundled LLVM under torch.compile or a custom node's Triton kernels, "
               "numba's llvmlite) is older than the GPU's architecture {sm}, so the kernels it builds are not for this "
               "GPU and fail or fall back.",
               fix="Upgrade the compiler to a release that knows {sm}: for Triton, the torch release built for the GPU's "
                   "CUDA together with the triton it pins (`pip install -U torch triton` from the index of that CUDA; "
                   "Blackwell needs a torch built with CUDA 12.8 or newer), for numba a newer numba/llvmlite; until "
                   "then turn the Triton path off (eager mode instead of torch.compile, the node's non-Triton option).",
               areas=("gpu", "torch"),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/150733",
                         "what": "an RTX 5090 (sm_120) needs a torch built with CUDA 12.8 or newer"},))
    return _match(sig, text, at, {"sm": sm})


# torch's HIP build words its errors "HIP error: <message>" without the code's name; a text that names the code
# (hipErrorNoBinaryForGpu, hipErrorInvalidDeviceFunction) is the code decoder's, with the same advice
_HIP_NO_IMAGE = re.compile(r"HIP error: (?:no kernel image is available|invalid device function)")
_HIP_CODE_NAMED = re.compile(r"hipErrorNoBinaryForGpu|hipErrorInvalidDeviceFunction")


def hip_no_kernel_image(ent, text):
    m, at = last_in_tail(_HIP_NO_IMAGE, text, "HIP error: ")
    if m is None or _HIP_CODE_NAMED.search(text[-65536:]):
        return None
    gfx = next((a for a in reversed(ent.archs) if a.startswith("gfx")), None)
    sig = _sig("hip-no-kernel-image", "rocm", "the ROCm build has no code for this AMD GPU{gfx_note|}", 84,
               "Under ROCm, torch's (or a library's) kernels are compiled per gfx target, and none of them is this "
               "GPU's{gfx_note|}: the ROCm build does not list it, or the GPU is a target ROCm does not support "
               "officially.",
               fix="Install the torch ROCm build whose supported targets include the GPU (the ROCm release notes list "
                   "the gfx targets of each; `rocminfo | grep gfx` shows the GPU's). For a consumer GPU without its own "
                   "target, HSA_OVERRIDE_GFX_VERSION set to the nearest supported one (for example 10.3.0 for RDNA2, "
                   "11.0.0 for RDNA3) makes ROCm use that target's code. A target no current build lists needs torch "
                   "built from source for it (PYTORCH_ROCM_ARCH=<gfx>), or an older ROCm release that still shipped it.",
               areas=("gpu", "rocm"),
               sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/"
                                "system-requirements.html", "what": "ROCm's supported GPUs and their gfx targets"},))
    return _match(sig, text, at, {"gfx_note": f" ({gfx})" if gfx else None})


# numba's own check (numba/cuda/cudadrv/driver.py): "<CUDA device 0 'X'> has compute capability < (2, 0)" (older
# releases; current ones name the minimum in words), a GPU older than the oldest numba targets
_NUMBA_MIN_CC = re.compile(r"<CUDA device (?P<dev>\d{1,2}) '(?P<name>[^'\n]{1,80})'> has compute capability <\s{0,2}\((?P<mj>\d{1,2}),"
                           r"\s{0,4}(?P<mn>\d)\)")


def numba_gpu_below_minimum(ent, text):
    m, at = last_in_tail(_NUMBA_MIN_CC, text, "has compute capability <")
    if m is None:
        return None
    need = f"{m.group('mj')}.{m.group('mn')}"
    sig = _sig("numba-gpu-below-minimum", "arch", "{name} is older than numba's CUDA target supports (compute capability "
               "below {need})", 83,
               "numba compiles CUDA kernels only for GPUs of compute capability {need} or newer; {name} is of an older "
               "generation, so numba's CUDA target refuses it whatever the driver and toolkit.",
               fix="Run the CUDA kernels on a GPU of compute capability {need} or newer (https://developer.nvidia.com/"
                   "cuda-gpus lists them), test them on the CPU with numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), or "
                   "use an older numba whose minimum was lower.",
               areas=("gpu",),
               sources=({"url": "https://numba.readthedocs.io/en/stable/cuda/overview.html#requirements",
                         "what": "numba's CUDA target: the GPUs (compute capabilities) it supports"},))
    return _match(sig, text, at, {"name": m.group("name"), "need": need})
