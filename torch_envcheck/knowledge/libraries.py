"""What a CUDA or cuDNN library's file name says: its kind (cudart, cudnn, cublas, ...) and version
(libcudart.so.12.1.105 = the CUDA 12.1 runtime; cudart64_110.dll = CUDA 11.0's; cudnn64_8.dll =
cuDNN 8).  The libraries probe and TensorFlow's log decoding both read names through it."""

from __future__ import annotations

import re

# File name stem -> kind.  Longer stems first so "cublasLt" is not taken for "cublas".
KINDS = (
    ("cublasLt", "cublasLt"), ("cublas", "cublas"), ("cudart", "cudart"), ("cudnn", "cudnn"),
    ("cusparseLt", "cusparselt"), ("cusparse", "cusparse"), ("cufft", "cufft"), ("curand", "curand"),
    ("cusolver", "cusolver"), ("nvJitLink", "nvjitlink"), ("nvrtc", "nvrtc"), ("nccl", "nccl"),
    ("cupti", "cupti"), ("nvidia-ml", "nvml"), ("cuda", "cuda"),
)
_STEMS = "|".join(re.escape(stem) for stem, _ in KINDS)
# libcudart.so.12.1.105, libcudnn_ops.so.9, libcublas.so (unversioned link)
_SO_RE = re.compile(rf"^lib({_STEMS})(?:_[A-Za-z0-9_]+)?\.so(?:\.([\d.]+))?$")
# cudart64_110.dll (CUDA 11.0), cudart64_12.dll, cudnn64_8.dll, cudnn_ops64_9.dll
_DLL_RE = re.compile(rf"^({_STEMS})(?:_[A-Za-z]+)?(?:64|32)_(\d+)\.dll$", re.IGNORECASE)
_KIND = {stem.lower(): kind for stem, kind in KINDS}


def parse_library(name: str) -> dict | None:
    """{"file", "kind", "version", "soversion"} for a CUDA/cuDNN library file name, else None.
    version is "major.minor" when the name carries it, else the major alone."""
    m = _SO_RE.match(name)
    if m:
        kind, full = _KIND[m.group(1).lower()], m.group(2)
        parts = full.split(".") if full else []
        version = ".".join(parts[:2]) if parts else None
        if kind in ("cuda", "nvml") and len(parts) == 1:
            version = None  # libcuda.so.1: an ABI number; the long names carry the driver version
        return {"file": name, "kind": kind, "version": version, "soversion": full}
    m = _DLL_RE.match(name)
    if m:
        kind, digits = _KIND[m.group(1).lower()], m.group(2)
        # CUDA 11 and older runtimes encode major+minor ("110" = 11.0, "101" = 10.1); 12+ the major only.
        version = f"{digits[:-1]}.{digits[-1]}" if kind == "cudart" and len(digits) == 3 else digits
        return {"file": name, "kind": kind, "version": version, "soversion": digits}
    return None
