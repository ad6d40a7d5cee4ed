"""Inference runtimes beside torch: which CUDA and cuDNN majors each ONNX Runtime GPU release was built with, and the
CUDA/cuDNN each shared-library name belongs to as the runtime's provider library asks for it.

The table is ONNX Runtime's own (the CUDA execution provider's requirements); explain's inference rules ask here and
never guess a version.
"""

from __future__ import annotations

import re

from torch_envcheck._util.versions import version_tuple

SOURCES = {
    "ort_cuda": {"url": "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements",
                 "what": "ONNX Runtime's CUDA EP requirements: CUDA 12.x builds 1.17.x and 1.18.0 with cuDNN 8.x, 1.18.1 "
                         "and later with cuDNN 9.x (PyPI's default from 1.19); CUDA 11.8 builds 1.15-1.19 with cuDNN 8; "
                         "1.13-1.14 CUDA 11.6, 1.9-1.12 CUDA 11.4, 1.7-1.8 CUDA 11.0, 1.5-1.6 CUDA 10.2 (cuDNN 8), 1.2-1.4 "
                         "CUDA 10.1 and 1.0-1.1 CUDA 10.0 (cuDNN 7); cuDNN 8 and 9 builds are not interchangeable"},
    "ort_trt": {"url": "https://onnxruntime.ai/docs/execution-providers/TensorRT-ExecutionProvider.html#requirements",
                "what": "ONNX Runtime's TensorRT EP: the TensorRT (and CUDA) each release is built with; TensorRT's lib "
                        "folder on LD_LIBRARY_PATH / PATH"},
}

# (first release, last release or None, CUDA, cuDNN major) for the builds made for one CUDA major
_CUDA12_BUILDS = (((1, 17, 0), (1, 18, 0), "12.x", "8"), ((1, 18, 1), None, "12.x", "9"))
_OLDER_BUILDS = (((1, 0, 0), (1, 1, 99), "10.0", "7"), ((1, 2, 0), (1, 4, 99), "10.1", "7"),
                 ((1, 5, 0), (1, 6, 99), "10.2", "8"), ((1, 7, 0), (1, 8, 99), "11.0", "8"),
                 ((1, 9, 0), (1, 12, 99), "11.4", "8"), ((1, 13, 0), (1, 14, 99), "11.6", "8"),
                 ((1, 15, 0), (1, 19, 99), "11.8", "8"))
# PyPI's onnxruntime-gpu: CUDA 11.8 up to 1.18, CUDA 12 from 1.19
_PYPI_CUDA12_FROM = (1, 19, 0)


def _key(version: str | None) -> tuple | None:
    t = version_tuple(version or "")
    if not t or t[0] != 1:
        return None
    return (t + (0, 0))[:3]


def ort_cuda_build(version: str | None, cuda_major: str | None = None) -> dict | None:
    """The CUDA and cuDNN an ONNX Runtime GPU release was built with ({'cuda', 'cudnn', 'source'}): the build for
    `cuda_major` ('11', '12') where it is named (a package name's cuda12, a library's .so.11), else the one PyPI's
    onnxruntime-gpu carried for that release; None for an unreadable version or a build that does not exist."""
    key = _key(version)
    if key is None:
        return None
    if cuda_major is None:
        cuda_major = "12" if key >= _PYPI_CUDA12_FROM else None
    rows = _CUDA12_BUILDS if cuda_major == "12" else _OLDER_BUILDS
    if cuda_major not in (None, "12") and not any(r[2].startswith(cuda_major + ".") for r in rows):
        return None
    for first, last, cuda, cudnn in rows:
        if key >= first and (last is None or key <= last):
            if cuda_major not in (None, "12") and not cuda.startswith(cuda_major + "."):
                return None
            return {"cuda": cuda, "cudnn": cudnn, "source": SOURCES["ort_cuda"]}
    return None


def ort_cudnn_builds(cudnn_major: str) -> str | None:
    """In words, the ONNX Runtime GPU releases built for a cuDNN major (for CUDA 12 where both exist)."""
    return {"9": "1.18.1 and later (CUDA 12 builds)", "8": "1.18.0 and older (CUDA 12 builds from 1.17; CUDA 11.8 "
                                                          "builds up to 1.19, PyPI's onnxruntime-gpu up to 1.18)",
            "7": "1.4 and older"}.get(cudnn_major)


# the CUDA libraries ONNX Runtime's CUDA provider links, by soname (Linux) or DLL name (Windows): the kind of library
# and the number its name carries (a CUDA major for most CUDA libraries; cuDNN's and TensorRT's own majors)
_LIB_NAME = re.compile(r"(?i)^(?:lib)?(?P<stem>cublasLt|cublas|cudart|cufft|curand|cudnn(?:_\w{2,30})?|nvinfer(?:_plugin)?|"
                       r"nvonnxparser|nvrtc|nvJitLink)(?:64)?(?:_(?P<win>\d{1,3})(?:\.dll)?|\.so\.(?P<so>\d{1,3})(?:\.\d{1,3}){0,3})$")
_CUDA_LIB_STEMS = {"cublaslt": "cuBLAS", "cublas": "cuBLAS", "cudart": "the CUDA runtime", "cufft": "cuFFT",
                   "curand": "cuRAND", "nvrtc": "NVRTC", "nvjitlink": "nvJitLink"}


def library_kind(name: str | None) -> dict | None:
    """What a library name the provider asked for is: {'kind': 'cuda'|'cudnn'|'tensorrt', 'major', 'what'}; for a
    CUDA library the major is CUDA's where the name carries it (cudart, cuBLAS, NVRTC, nvJitLink), else None."""
    m = _LIB_NAME.match((name or "").strip())
    if m is None:
        return None
    stem, major = m.group("stem").lower(), m.group("so") or m.group("win")
    if stem.startswith("cudnn"):
        return {"kind": "cudnn", "major": major, "what": "cuDNN " + major}
    if stem.startswith("nvinfer") or stem == "nvonnxparser":
        return {"kind": "tensorrt", "major": major, "what": "TensorRT " + major}
    # cudart's, cuBLAS's, NVRTC's and nvJitLink's majors are CUDA's; cuFFT and cuRAND number their own (CUDA 12 ships
    # libcufft.so.11 and libcurand.so.10)
    cuda = major if stem in ("cudart", "cublas", "cublaslt", "nvrtc", "nvjitlink") else None
    return {"kind": "cuda", "major": cuda, "what": _CUDA_LIB_STEMS.get(stem, stem) + (" of CUDA " + cuda if cuda else "")}
