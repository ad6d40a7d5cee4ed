"""Decoders that turn a value captured from an error message into what it means:
`found version 11040` is CUDA 11.4, `cudart64_110.dll` the CUDA 11.0-named runtime, `sm_120` compute
capability 12.0, `__nvJitLinkComplete_12_4` CUDA 12.4, `(8, 7, 0)` or `8700` cuDNN 8.7.0.

Each decoder takes the captured text and returns a string, or None when the text is not what it
decodes (the template then shows its default).  The catalogue names them under "decode"."""

from __future__ import annotations

import re

from torch_envcheck._util import versions


def cuda_int(text: str) -> str | None:
    """CUDA's integer version (1000 * major + 10 * minor): 11040 -> "11.4", 9000 -> "9.0"."""
    if not text.isdigit() or len(text) > 6:
        return None
    return versions.cuda_from_int(int(text))


def sm(text: str) -> str | None:
    """An architecture number: "120" (sm_120 / compute_120) -> "12.0", "86" -> "8.6"."""
    m = re.fullmatch(r"(\d{1,2})(\d)[a-z]?", text or "")
    return f"{int(m.group(1))}.{m.group(2)}" if m else None


def major(text: str) -> str | None:
    """The first component of a dotted version: "11.0" -> "11", "8" -> "8"."""
    v = versions.major(text[:16]) if isinstance(text, str) else None
    return str(v) if v is not None else None


def underscore_version(text: str) -> str | None:
    """nvJitLink's symbol suffix: "12_4" -> "12.4"."""
    m = re.fullmatch(r"(\d{1,2})_(\d{1,2})", text or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def cudnn(text: str) -> str | None:
    """cuDNN's version as torch prints it: "8, 7, 0" -> "8.7.0"; or its integer: 7102 -> "7.1.2"
    (1000 * major + 100 * minor + patch up to cuDNN 8), 90100 -> "9.1.0" (10000 * major + 100 * minor
    + patch from cuDNN 9)."""
    s = (text or "").strip()
    parts = [p.strip() for p in s.split(",")]
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        return ".".join(str(int(p)) for p in parts)
    if not s.isdigit():
        return None
    t = versions.cudnn_tuple(int(s))  # the one decoder of cuDNN's integer
    return versions.fmt_version(t) if t else None


def _dll_cuda(digits: str) -> str:
    # cudart64_110.dll: CUDA 11.0's name, kept by every 11.x; cudart64_101.dll: 10.1; cudart64_12.dll: 12.x
    if len(digits) >= 3:
        return f"{int(digits[:-1])}.{digits[-1]}"
    return f"{int(digits)}.x"


_MATH = {"cublas": "cuBLAS", "cublasLt": "cuBLASLt", "cufft": "cuFFT", "curand": "cuRAND", "cusolver": "cuSOLVER",
         "cusparse": "cuSPARSE", "nvrtc": "NVRTC", "nvJitLink": "nvJitLink", "cupti": "CUPTI", "nvinfer": "TensorRT",
         "nvinfer_plugin": "TensorRT's plugins", "nccl": "NCCL"}


def cuda_library(name: str) -> str | None:
    """What a CUDA library file is: "cudart64_110.dll" -> "the CUDA runtime with CUDA 11.0's name (every CUDA 11.x
    installs it under this name)", "libcudnn.so.8" -> "cuDNN 8", "libnvinfer.so.7" -> TensorRT (optional)."""
    s = name or ""
    m = re.fullmatch(r"cudart64_(\d{2,3})\.dll", s)
    if m:
        v = _dll_cuda(m.group(1))
        if v.endswith(".0") and len(m.group(1)) == 3 and m.group(1)[:-1] in ("11", "12", "13"):
            return f"the CUDA runtime under CUDA {v}'s name: every CUDA {v[:-2]}.x installs it so"
        return f"the CUDA {v} runtime"
    m = re.fullmatch(r"cudnn(?:_[a-z_]+)?64_(\d{1,2})\.dll", s)
    if m:
        return f"cuDNN {m.group(1)}"
    m = re.fullmatch(r"([A-Za-z]+?)64_(\d{1,3})\.dll", s)
    if m and m.group(1) in _MATH:
        return f"{_MATH[m.group(1)]} from a CUDA toolkit (DLL version {m.group(2)})"
    m = re.fullmatch(r"libcudart\.so\.(\d{1,2})(?:\.(\d{1,2}))?", s)
    if m:
        return f"the CUDA {m.group(1)}.{m.group(2)} runtime" if m.group(2) else f"the CUDA {m.group(1)}.x runtime"
    m = re.fullmatch(r"libcudnn(?:_[a-z_]+)?\.so\.(\d{1,2})(?:\.\d{1,3}){0,2}", s)
    if m:
        return f"cuDNN {m.group(1)}"
    m = re.fullmatch(r"lib([A-Za-z_]+)\.so\.(\d{1,3})(?:\.\d{1,3}){0,2}", s)
    if m and m.group(1) in _MATH:
        lib = _MATH[m.group(1)]
        if m.group(1).startswith("nvinfer"):
            return f"{lib} {m.group(2)}, optional: TensorFlow runs without it"
        return f"{lib} (soname version {m.group(2)})"
    return "a CUDA library" if re.search(r"cu|nv", s) else None


DECODERS = {"cuda_int": cuda_int, "sm": sm, "major": major, "underscore_version": underscore_version,
            "cudnn": cudnn, "cuda_library": cuda_library}
