"""What a native name in an error says: which library a soname or DLL is and which CUDA major and pip
wheel provide it; which glibc or GCC a GLIBC_/GLIBCXX_/CXXABI_ symbol-version tag needs.

    library_provider("libcublasLt.so.12")  -> {"library": "cuBLASLt", "cuda": "12", "wheel": "nvidia-cublas-cu12", ...}
    glibc_tag("GLIBC_2.28")                -> {"tag", "needs": "glibc 2.28", "first_in": [...], "source": ...}
    glibcxx_tag("GLIBCXX_3.4.30")          -> {"tag", "needs": "GCC 12.1's libstdc++", "gcc": "12.1", ...}

The soname rules follow how NVIDIA versions its libraries (the soname's number is the library's major,
which for cudart/cuBLAS/nvrtc/nvJitLink/CUPTI is the CUDA major); the wheels are NVIDIA's PyPI projects
(nvidia-<lib>-cu11 / -cu12, and from CUDA 13 nvidia-<lib> without the suffix for the toolkit libraries,
nvidia-cudnn-cu13 / nvidia-nccl-cu13 for the others)."""

from __future__ import annotations

import re

SOURCES = {
    "wheels": "https://pypi.org/user/nvidia/",
    "cuda_toolkit": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
    "libstdcxx_abi": "https://gcc.gnu.org/onlinedocs/libstdc++/manual/abi.html",
    "glibc": "https://sourceware.org/glibc/wiki/Glibc%20Timeline",
    "manylinux": "https://peps.python.org/pep-0600/",
    "vc_redist": "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
}

# stem -> (library, how the soname number maps to CUDA majors, wheel stem).  "cuda": the soname major is
# the CUDA major; a dict: soname major -> CUDA majors; None: the soname says nothing about CUDA.
_CUDA_LIBS = {
    "cudart": ("CUDA runtime", "cuda", "nvidia-cuda-runtime"),
    "cublasLt": ("cuBLASLt", "cuda", "nvidia-cublas"),
    "cublas": ("cuBLAS", "cuda", "nvidia-cublas"),
    "nvrtc": ("NVRTC", "cuda", "nvidia-cuda-nvrtc"),
    "nvrtc-builtins": ("NVRTC's builtins", "cuda", "nvidia-cuda-nvrtc"),
    "nvJitLink": ("nvJitLink", "cuda", "nvidia-nvjitlink"),
    "cupti": ("CUPTI", "cuda", "nvidia-cuda-cupti"),
    "cufft": ("cuFFT", {"10": ("11",), "11": ("12",), "12": ("13",)}, "nvidia-cufft"),
    "cufftw": ("cuFFTW", {"10": ("11",), "11": ("12",), "12": ("13",)}, "nvidia-cufft"),
    "curand": ("cuRAND", {"10": ("11", "12", "13")}, "nvidia-curand"),
    "cusolver": ("cuSOLVER", {"10": ("10",), "11": ("11", "12"), "12": ("13",)}, "nvidia-cusolver"),
    "cusolverMg": ("cuSOLVERMg", {"10": ("10",), "11": ("11", "12"), "12": ("13",)}, "nvidia-cusolver"),
    "cusparse": ("cuSPARSE", {"10": ("10",), "11": ("11",), "12": ("12", "13")}, "nvidia-cusparse"),
    "cusparseLt": ("cuSPARSELt", None, "nvidia-cusparselt"),
    "nvToolsExt": ("NVTX", None, "nvidia-nvtx"),
    "cufile": ("cuFile (GPUDirect Storage)", None, "nvidia-cufile"),
    "nvshmem_host": ("NVSHMEM", None, "nvidia-nvshmem"),
    "cudss": ("cuDSS", None, "nvidia-cudss"),
    "cudnn": ("cuDNN", None, "nvidia-cudnn"),
    "nccl": ("NCCL", None, "nvidia-nccl"),
}
# libraries that are not CUDA's
_OTHER = {
    "cuda": ("the NVIDIA driver's CUDA library (libcuda / nvcuda.dll)", "driver"),
    "nvcuda": ("the NVIDIA driver's CUDA library (libcuda / nvcuda.dll)", "driver"),
    "nvidia-ml": ("NVML, installed by the NVIDIA driver", "driver"),
    "nvml": ("NVML, installed by the NVIDIA driver", "driver"),
    "nvinfer": ("TensorRT", "tensorrt"),
    "nvinfer_plugin": ("TensorRT's plugins", "tensorrt"),
    "torch": ("torch", "torch"), "torch_cpu": ("torch", "torch"), "torch_cuda": ("torch", "torch"),
    "torch_python": ("torch", "torch"), "torch_global_deps": ("torch", "torch"), "c10": ("torch", "torch"),
    "c10_cuda": ("torch", "torch"), "shm": ("torch", "torch"), "caffe2_nvrtc": ("torch", "torch"),
    "fbgemm": ("torch", "torch"), "asmjit": ("torch", "torch"),
    # the libraries of one torch build flavour: CUDA builds ship libtorch_cuda (1.9-1.12 also split into _cu/_cpp),
    # ROCm builds libtorch_hip and libc10_hip; a binary wanting the other flavour was built for another torch build
    "torch_cuda_cu": ("torch (CUDA build)", "torch"), "torch_cuda_cpp": ("torch (CUDA build)", "torch"),
    "torch_hip": ("torch (ROCm build)", "torch"), "c10_hip": ("torch (ROCm build)", "torch"),
    "stdc++": ("the C++ runtime (libstdc++, GCC)", "c-runtime"), "gcc_s": ("GCC's runtime", "c-runtime"),
    "c": ("the C library (glibc)", "c-runtime"), "m": ("the C library (glibc)", "c-runtime"),
    "gomp": ("GCC's OpenMP runtime", "c-runtime"), "iomp5": ("Intel's OpenMP runtime", "openmp"),
    "libiomp5md": ("Intel's OpenMP runtime", "openmp"), "omp": ("LLVM's OpenMP runtime", "openmp"),
    "msvcp140": ("the Visual C++ runtime", "vc-runtime"), "vcruntime140": ("the Visual C++ runtime", "vc-runtime"),
    "vcruntime140_1": ("the Visual C++ runtime", "vc-runtime"), "vcomp140": ("the Visual C++ OpenMP runtime", "vc-runtime"),
    "libomp140.x86_64": ("the Visual C++ runtime's LLVM OpenMP", "vc-runtime"),
    "zlibwapi": ("zlib for cuDNN 8 on Windows", "cudnn"),
    "GL": ("OpenGL (an OS package: libgl1 / mesa-libGL)", "os-package"),
    "glib-2.0": ("GLib (an OS package)", "os-package"), "gthread-2.0": ("GLib (an OS package)", "os-package"),
    "SM": ("X11 (an OS package)", "os-package"), "Xext": ("X11 (an OS package)", "os-package"),
    "Xrender": ("X11 (an OS package)", "os-package"),
    # the system OpenBLAS, which JetPack's torch wheels (and other ARM builds) link to instead of bundling one
    "openblas": ("OpenBLAS (an OS package: libopenblas0 / libopenblas-dev)", "os-package"),
    # NUMA's library, which UCX (ucx-py, NCCL's and RAPIDS' transports) and MPI link to
    "numa": ("libnuma (an OS package: libnuma1 on Debian/Ubuntu, numactl-libs on Fedora/RHEL)", "os-package"),
    # ROCm's libraries, each with the ROCm package that ships it (the names of AMD's repository packages)
    "amdhip64": ("HIP (ROCm's hip-runtime-amd package)", "rocm"),
    "hsa-runtime64": ("ROCm's HSA runtime (hsa-rocr)", "rocm"), "rocblas": ("rocBLAS (rocblas)", "rocm"),
    "MIOpen": ("MIOpen (miopen-hip)", "rocm"), "rccl": ("RCCL (rccl)", "rocm"),
    "roctx64": ("ROCTX (ROCm's roctracer package)", "rocm"), "roctracer64": ("roctracer (roctracer)", "rocm"),
    "rocprofiler64": ("rocprofiler (rocprofiler)", "rocm"), "rocprofiler-sdk": ("rocprofiler-sdk", "rocm"),
    "rocm_smi64": ("ROCm SMI (rocm-smi-lib)", "rocm"), "amd_smi": ("AMD SMI (amd-smi-lib)", "rocm"),
    "hipblas": ("hipBLAS (hipblas)", "rocm"), "hipblaslt": ("hipBLASLt (hipblaslt)", "rocm"),
    "hipsparse": ("hipSPARSE (hipsparse)", "rocm"), "rocsparse": ("rocSPARSE (rocsparse)", "rocm"),
    "hipfft": ("hipFFT (hipfft)", "rocm"), "rocfft": ("rocFFT (rocfft)", "rocm"),
    "hiprand": ("hipRAND (hiprand)", "rocm"), "rocrand": ("rocRAND (rocrand)", "rocm"),
    "hipsolver": ("hipSOLVER (hipsolver)", "rocm"), "rocsolver": ("rocSOLVER (rocsolver)", "rocm"),
    "hiprtc": ("HIP's runtime compiler (hip-runtime-amd)", "rocm"),
    "drm_amdgpu": ("libdrm's amdgpu library (the OS package libdrm-amdgpu1, or libdrm)", "rocm"),
    # Ascend NPUs: CANN's libraries come from its toolkit (or nnae), found through the toolkit's set_env.sh
    "ascendcl": ("AscendCL, from Ascend's CANN toolkit", "cann"), "acl_dvpp": ("AscendCL's DVPP, from CANN", "cann"),
    "acl_op_compiler": ("AscendCL's operator compiler, from CANN", "cann"), "hccl": ("HCCL, from CANN", "cann"),
    "ge_runner": ("CANN's graph engine", "cann"), "ascend_hal": ("the Ascend NPU driver's HAL", "cann"),
    # Intel GPUs: oneAPI Level Zero's loader, Intel's GPU compute runtime (the user-mode driver), SYCL's runtime
    "ze_loader": ("oneAPI Level Zero's loader (libze1 / level-zero)", "intel-gpu"),
    "ze_intel_gpu": ("Intel's GPU compute runtime, the Level Zero driver (libze-intel-gpu1 / intel-level-zero-gpu)",
                     "intel-gpu"),
    "sycl": ("oneAPI's SYCL runtime (the intel-sycl-rt wheel, or the oneAPI Base Toolkit)", "intel-gpu"),
}

_SO = re.compile(r"^lib([A-Za-z0-9_+.-]+?)(?:-[0-9a-f]{8})?\.so((?:\.\d+)*)$")
_DYLIB = re.compile(r"^lib([A-Za-z0-9_+-]+?)((?:\.\d+)*)\.dylib$")
_DLL = re.compile(r"^([A-Za-z][A-Za-z0-9_+.-]*?)(?:(?:64|32)_(\d+)(?:_\d+)?)?\.dll$", re.IGNORECASE)


def _cuda_wheel(stem: str, cuda: str | None, extra: str | None = None) -> str | None:
    """nvidia-<lib>-cu11/-cu12, and nvidia-<lib> for CUDA 13's toolkit libraries."""
    base = _CUDA_LIBS[stem][2]
    if cuda is None:
        return None
    if base in ("nvidia-cudnn", "nvidia-nccl", "nvidia-cusparselt", "nvidia-nvshmem", "nvidia-cudss"):
        return f"{base}-cu{cuda}"
    return base if cuda.startswith("13") else f"{base}-cu{cuda}"


def library_provider(name: str) -> dict | None:
    """What a library file name is: {"file", "library", "kind", "soversion", "cuda" (majors it belongs to,
    joined by "/"), "wheel" (when one CUDA major), "provider"}.  None when the name is not a library."""
    n = (name or "").strip().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    m = _SO.match(n) or _DYLIB.match(n)
    dll = None
    if m:
        stem, ver = m.group(1), m.group(2).lstrip(".")
    else:
        dll = _DLL.match(n)
        if not dll:
            return None
        stem, ver = dll.group(1), dll.group(2) or ""
    out = {"file": n, "soversion": ver or None}
    key = next((k for k in _CUDA_LIBS if k.lower() == stem.lower()), None)
    if key is None:
        base = re.sub(r"_(?:adv|cnn|ops|graph|engines_[a-z_]+|heuristic|infer|train)(?:_[a-z]+)?$", "", stem)
        key = next((k for k in _CUDA_LIBS if k.lower() == base.lower()), None)
    if key is not None:
        lib, rule, _wheel = _CUDA_LIBS[key]
        major = ver.split(".")[0] if ver else None
        cudas = ()
        if dll is not None and key == "cudart" and major and len(major) >= 3:
            cudas = (major[:-1],)  # cudart64_110.dll: CUDA 11.0's name
        elif dll is not None and key == "nvrtc" and major and len(major) >= 3:
            cudas = (major[:-1],)  # nvrtc64_112_0.dll: CUDA 11.2
        elif rule == "cuda" and major:
            cudas = (major,)
        elif isinstance(rule, dict) and major:
            cudas = rule.get(major, ())
        out.update(library=lib, kind=key.lower())
        if key == "cudnn" and major:
            out["cudnn"] = major
        if cudas:
            out["cuda"] = "/".join(cudas)
        wheel_cuda = cudas[0] if len(cudas) == 1 else None
        if key == "cudnn" and major:
            out["wheel_choices"] = {"7": [], "8": ["nvidia-cudnn-cu11", "nvidia-cudnn-cu12"],
                                    "9": ["nvidia-cudnn-cu12", "nvidia-cudnn-cu13"]}.get(major, [])
        elif wheel_cuda:
            out["wheel"] = _cuda_wheel(key, wheel_cuda)
        elif rule is None:
            # a library versioned apart from CUDA (cuSPARSELt, cuDSS, NCCL, NVSHMEM, cuFile, NVTX): one wheel per
            # CUDA major, and the soname does not say which
            out["wheel_choices"] = [_cuda_wheel(key, "12"), _cuda_wheel(key, "13")]
        out["provider"] = "cuda-library"
        return out
    other = _OTHER.get(stem) or _OTHER.get(stem.lower())
    py = re.fullmatch(r"python(\d)\.?(\d{1,2})[dmu]{0,3}", stem)
    if other is None and py:
        # libpython3.7m.so.1.0 / python311.dll: the interpreter's shared library, which a binary built for (or an
        # embedding of) that Python links to
        other = (f"Python {py.group(1)}.{py.group(2)}'s shared library", "python")
        out["python"] = f"{py.group(1)}.{py.group(2)}"
    if other is None and dll is not None:
        other = _OTHER.get(n[:-4].lower())
    if other is not None:
        out.update(library=other[0], kind=stem.lower(), provider=other[1])
        return out
    out.update(library=None, kind=stem.lower(), provider=None)
    return out


# GLIBCXX_ / CXXABI_ tag -> the first GCC release whose libstdc++ defines it (GCC's libstdc++ manual,
# "ABI Policy and Guidelines", section "Symbol versioning history").
_GLIBCXX = {19: "4.8.3", 20: "4.9.0", 21: "5.1.0", 22: "6.1.0", 23: "7.1.0", 24: "7.2.0", 25: "8.1.0", 26: "9.1.0",
            27: "9.2.0", 28: "9.3.0", 29: "11.1.0", 30: "12.1.0", 31: "13.1.0", 32: "13.2.0", 33: "14.1.0"}
_CXXABI = {7: "4.8.0", 8: "4.9.0", 9: "5.1.0", 10: "6.1.0", 11: "7.1.0", 12: "9.1.0", 13: "11.1.0", 14: "13.1.0",
           15: "14.1.0"}
# glibc release -> distributions that first ship it (each distribution's package page), and the manylinux
# tag that requires it (PEP 600: manylinux_2_NN needs glibc 2.NN; manylinux2014 = 2.17).
_GLIBC_DISTROS = {17: ["CentOS/RHEL 7", "manylinux2014"], 27: ["Ubuntu 18.04"], 28: ["Debian 10", "RHEL 8"],
                  31: ["Ubuntu 20.04", "Debian 11"], 34: ["RHEL 9"], 35: ["Ubuntu 22.04"], 36: ["Debian 12"],
                  39: ["Ubuntu 24.04"], 41: ["Debian 13"]}


def glibc_tag(tag: str) -> dict | None:
    m = re.fullmatch(r"GLIBC_2\.(\d{1,2})(?:\.\d+)?", tag or "")
    if not m:
        return None
    minor = int(m.group(1))
    first = [d for k, ds in sorted(_GLIBC_DISTROS.items()) if k >= minor for d in ds][:3]
    return {"tag": tag, "kind": "glibc", "needs": f"glibc 2.{minor}", "glibc": f"2.{minor}",
            "manylinux": f"manylinux_2_{minor}", "first_in": first, "source": SOURCES["glibc"]}


def glibcxx_tag(tag: str) -> dict | None:
    m = re.fullmatch(r"(GLIBCXX_3\.4|CXXABI_1\.3)\.(\d{1,2})", tag or "")
    if not m:
        return None
    n = int(m.group(2))
    table = _GLIBCXX if m.group(1).startswith("GLIBCXX") else _CXXABI
    gcc = table.get(n)
    if gcc is None and n > max(table):
        gcc_text = f"a GCC newer than {table[max(table)]}"
    elif gcc is None:
        gcc_text = "an old GCC"
    else:
        gcc_text = f"GCC {gcc.rsplit('.0', 1)[0] if gcc.endswith('.0') else gcc}"
    return {"tag": tag, "kind": "libstdc++", "needs": f"the libstdc++ of {gcc_text} or newer", "gcc": gcc,
            "source": SOURCES["libstdcxx_abi"]}
