"""The doctor's finding codes.  Stable: users search for them and scripts match on them, so a code
is never renumbered or reused; new findings get new numbers.  Listed in the README."""

from __future__ import annotations

# code -> (slug, area, one-line title)
CODES: dict[str, tuple[str, str, str]] = {
    # platform and Python
    "TE101": ("wsl1", "platform", "WSL 1 cannot use the GPU; CUDA needs WSL 2"),
    "TE102": ("macos-no-cuda", "platform", "macOS has no CUDA; use the MPS backend on Apple silicon"),
    "TE103": ("python-unsupported", "platform", "this Python version is outside the torch release's supported range"),
    # torch and its companions
    "TE201": ("torch-not-importable", "torch", "torch cannot be imported in this interpreter"),
    "TE202": ("cpu-wheel-with-gpu", "torch", "a CPU-only torch is installed on a machine with an NVIDIA GPU"),
    "TE203": ("cpu-wheel-no-gpu", "torch", "a CPU-only torch on a machine without an NVIDIA GPU: fine"),
    "TE204": ("companion-cuda-mismatch", "torch", "torchvision/torchaudio come from another CUDA index than torch"),
    "TE205": ("torch-cuda-ok", "torch", "a CUDA torch that initialises and sees its GPUs"),
    # driver
    "TE301": ("driver-missing", "driver", "no NVIDIA driver is loaded"),
    "TE302": ("driver-too-old", "driver", "the NVIDIA driver is too old for the CUDA runtime torch was built with"),
    "TE303": ("cuda-init-failed", "driver", "CUDA failed to initialise for another reason"),
    # GPUs
    "TE401": ("gpu-arch-unsupported", "gpu", "the GPU's compute capability is not in this torch build's arch list"),
    "TE402": ("cuda-visible-devices-empty", "gpu", "CUDA_VISIBLE_DEVICES is set but empty: no GPU is visible"),
    "TE403": ("cuda-visible-devices-invalid", "gpu", "CUDA_VISIBLE_DEVICES names devices that do not exist"),
    # CUDA libraries
    "TE501": ("ld-library-path-shadows", "libraries", "LD_LIBRARY_PATH holds CUDA/cuDNN libraries of another version than torch's"),
    "TE502": ("cudnn-version-mismatch", "libraries", "the cuDNN loaded at run time differs from the one torch was built with"),
    "TE503": ("cudnn-handle-failed", "libraries", "creating a cuDNN (or cuBLAS) handle failed"),
    # toolchain (compiling extensions only; the wheel itself never needs it)
    "TE601": ("nvcc-missing", "toolchain", "no nvcc: CUDA extensions cannot be compiled (torch itself still works)"),
    "TE602": ("nvcc-major-mismatch", "toolchain", "nvcc's CUDA major version differs from torch's"),
    "TE603": ("cuda-home-invalid", "toolchain", "CUDA_HOME / CUDA_PATH points at no CUDA toolkit"),
    # the torch_envcheck extension
    "TE701": ("extension-stale", "extension", "the compiled extension was built against another torch"),
    "TE702": ("extension-no-kernel-image", "extension", "the extension has no kernel image for a GPU"),
    "TE703": ("extension-not-built", "extension", "the extension is not compiled for this torch yet"),
    "TE704": ("extension-kernels-wrong", "extension", "the extension's kernels disagree with torch's built-ins"),
}


def slug(code: str) -> str:
    return CODES[code][0]


def title(code: str) -> str:
    return CODES[code][2]
