"""C/C++ headers by owner: which installation ships a header a build could not include.

A pure table (no I/O).  explain reads a compiler's "fatal error: X: No such file or directory" (gcc), "'X' file not
found" (clang), "Cannot open include file: 'X'" (MSVC) and says whose header is missing: the owner decides the fix,
not the wording of the message.

    owner_of("torch/extension.h") -> {"owner": "torch", "what": ..., "remedy": ..., "source": ...} | None

Sources: the include folders of each owner -- the CUDA toolkit's include/ (https://docs.nvidia.com/cuda/
cuda-installation-guide-linux/ : cuda.h, cuda_runtime.h, the math libraries' headers, thrust/, cub/, cuda/std),
torch's include/ (torch/extension.h exists since torch 1.0: https://pytorch.org/docs/stable/cpp_extension.html),
Python's development headers (https://docs.python.org/3/extending/extending.html), cuDNN's and NCCL's include/
folders in their nvidia-* wheels, pybind11's and NumPy's include folders, ROCm's hip/ headers, CUTLASS (a git
submodule of the packages that build on it), EGL's and OpenGL's headers (libglvnd's and Mesa's development packages,
as nvdiffrast's docker/Dockerfile installs them); the TH/THC headers left torch's include/ in 1.11
(https://github.com/pytorch/pytorch/releases/tag/v1.11.0)."""

from __future__ import annotations

import re

_CUDA_SRC = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html"

# (pattern over the header's path as included, owner, what, fix, source); the most specific first
_OWNERS = (
    (r"THC/[\w/.-]{1,60}|TH/[\w/.-]{1,60}", "torch-removed",
     "torch's old TH/THC C headers, removed from torch's include/ in torch 1.11",
     "The package's source predates torch 1.11, whose include/ no longer has the TH/THC headers: install a release of "
     "the package that supports your torch (or build it against torch<1.11 in an environment of its own).",
     "https://github.com/pytorch/pytorch/releases/tag/v1.11.0"),
    (r"(?:torch|ATen|c10|caffe2)/[\w/.-]{1,120}", "torch",
     "torch's C++ headers (torch/extension.h exists from torch 1.0 on)",
     "Build with torch 1.0 or newer installed in the Python that builds: install torch first, then build with "
     "`pip install --no-build-isolation <package>` so the build sees it (pip's isolated build environment has no "
     "torch, or an unpinned one), or upgrade torch if `python -c \"import torch; print(torch.__version__)\"` is older "
     "than the package needs.", "https://pytorch.org/docs/stable/cpp_extension.html"),
    (r"cudnn(?:_[a-z_]{1,30})?\.h", "cudnn", "cuDNN's development headers",
     "Install cuDNN's headers for torch's CUDA major (the nvidia-cudnn-cuXX wheel ships include/ under "
     "site-packages/nvidia/cudnn; or the distribution's libcudnn-dev) and point the build at them (CUDNN_INCLUDE_DIR or "
     "CPATH).", "https://docs.nvidia.com/deeplearning/cudnn/installation/latest/linux.html"),
    (r"oneapi/ccl(?:\.hpp|/[\w/.-]{1,80})", "oneccl", "Intel oneCCL's development headers (oneAPI)",
     "Install oneCCL's development files (Intel oneAPI's intel-oneapi-ccl-devel, or the oneccl-devel wheel on Linux "
     "x86_64) and load its environment before building (`source /opt/intel/oneapi/setvars.sh`, or CPATH at its "
     "include/); or build without the part that needs it (DeepSpeed's oneCCL op: DS_BUILD_CCL_COMM=0).",
     "https://github.com/oneapi-src/oneCCL/tree/8f37eb26d050732b7ecb71dd21670824facb36a0/include/oneapi"),
    (r"nccl(?:_net)?\.h", "nccl", "NCCL's development headers",
     "Install NCCL's headers (the nvidia-nccl-cuXX wheel's include/, or libnccl-dev) and point the build at them "
     "(NCCL_INCLUDE_DIR or CPATH).", "https://docs.nvidia.com/deeplearning/nccl/install-guide/index.html"),
    (r"(?:cuda|cuda_runtime(?:_api)?|cuda_fp16|cuda_bf16|cuda_fp8|cuComplex|cublas(?:Lt|_v2|_api)?|cusparse(?:Lt)?|"
     r"cusolver\w{0,10}|cufft\w{0,6}|curand\w{0,12}|nvrtc|nvToolsExt|nvtx3/[\w/.]{1,60}|cuda_profiler_api|"
     r"device_launch_parameters|math_constants|vector_types|driver_types|nvml|cupti)\.h|"
     r"(?:thrust|cub|cuda/std|cuda)/[\w/.-]{1,120}", "cuda-toolkit", "the CUDA toolkit's headers",
     "Install a complete CUDA toolkit (its include/ holds the header) of torch's CUDA version "
     "(`python -c \"import torch; print(torch.version.cuda)\"`): NVIDIA's installer or the distribution's cuda-toolkit "
     "package, or in conda `conda install -c nvidia cuda-toolkit` of that version; set CUDA_HOME to it (the compiler "
     "reads $CUDA_HOME/include; add it to CPATH for a plain C compiler such as Triton's launcher build).", _CUDA_SRC),
    (r"hip/[\w/.-]{1,120}|rocblas(?:/rocblas)?\.h|miopen/[\w/.]{1,60}|hipblas\w{0,4}\.h", "rocm",
     "ROCm's HIP headers",
     "Install the ROCm development packages (hip-dev / rocm-hip-sdk) of torch's ROCm version and set ROCM_PATH "
     "(/opt/rocm).", "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"),
    # also through the versioned include folder (`#include <python2.7/Python.h>`, `python3.10/pyconfig.h`)
    (r"(?:[Pp]ython\d(?:\.\d{1,2})?[dmu]{0,3}/)?(?:Python\.h|pyconfig\.h)", "python", "Python's development headers",
     "Install the headers of the Python you build with: Debian/Ubuntu `sudo apt-get install python3-dev` (python3.X-dev "
     "for that version), Fedora/RHEL `sudo dnf install python3-devel`; an embedded Python has none: use a full Python.",
     "https://docs.python.org/3/extending/extending.html"),
    (r"pybind11/[\w/.]{1,60}", "pybind11", "pybind11's headers",
     "`pip install pybind11` in the Python that builds (and build with `--no-build-isolation` if the package does not "
     "declare it).", "https://pybind11.readthedocs.io/en/stable/installing.html"),
    (r"numpy/[\w/.]{1,60}", "numpy", "NumPy's C headers",
     "Install NumPy in the Python that builds before building (`pip install numpy`, then `pip install "
     "--no-build-isolation <package>`).", "https://numpy.org/doc/stable/reference/c-api/index.html"),
    (r"cutlass/[\w/.-]{1,120}|cute/[\w/.-]{1,120}", "cutlass", "CUTLASS's headers (a git submodule)",
     "The package builds on CUTLASS, checked out as a git submodule: `git submodule update --init --recursive` in its "
     "source tree (a source archive without submodules lacks it), then build again.",
     "https://github.com/NVIDIA/cutlass"),
    # the compiler's own C++ standard library and C runtime headers: missing means the compiler runs outside its
    # environment (MSVC without vcvars: INCLUDE unset) or without its C++ parts (gcc without g++/libstdc++-dev)
    (r"(?:algorithm|any|array|atomic|bit|bitset|cassert|cctype|cerrno|cfloat|charconv|chrono|cinttypes|climits|"
     r"clocale|cmath|compare|complex|concepts|condition_variable|coroutine|csignal|cstdarg|cstddef|cstdint|cstdio|"
     r"cstdlib|cstring|ctime|cwchar|deque|exception|execution|filesystem|format|forward_list|fstream|functional|"
     r"future|initializer_list|iomanip|ios|iosfwd|iostream|istream|iterator|limits|list|locale|map|memory|mutex|new|"
     r"numbers|numeric|optional|ostream|queue|random|ranges|ratio|regex|set|shared_mutex|source_location|span|"
     r"sstream|stack|stdexcept|streambuf|string|string_view|system_error|thread|tuple|type_traits|typeindex|typeinfo|"
     r"unordered_map|unordered_set|utility|valarray|variant|vector|version|"
     r"(?:stdio|stdlib|string|stddef|stdint|stdarg|math|limits|assert|float|errno|time|wchar|ctype|malloc|"
     r"crtdefs|corecrt|vcruntime|excpt|sal)\.h)", "compiler-stdlib",
     "the compiler's own standard library headers",
     "The compiler cannot find its own standard headers, so it runs outside its environment: on Windows (MSVC, "
     "C1083) build from the \"x64 Native Tools Command Prompt for VS\" (or after running vcvars64.bat) with Visual "
     "Studio's \"Desktop development with C++\" workload and a Windows SDK installed, so INCLUDE and LIB are set; on "
     "Linux install the C++ compiler and its library headers (Debian/Ubuntu `sudo apt-get install build-essential`, "
     "Fedora/RHEL `sudo dnf install gcc-c++`) and compile C++ with g++; on macOS `xcode-select --install`.",
     "https://learn.microsoft.com/en-us/cpp/build/building-on-the-command-line"),
    # EGL's, OpenGL's and OpenGL ES's headers (libglvnd's and Mesa's development packages; GLU's are another's)
    (r"(?:EGL|GLES\d?|KHR)/[\w.]{1,40}\.h|GL/(?!glu\.h)[\w.]{1,40}\.h", "gl-dev",
     "the EGL/OpenGL development headers (libglvnd's and Mesa's)",
     "Install the EGL/OpenGL development packages: Debian/Ubuntu `sudo apt-get install libglvnd-dev libegl1-mesa-dev "
     "libgl1-mesa-dev libgles2-mesa-dev` (the set nvdiffrast's Dockerfile installs); other distributions: their "
     "libglvnd / Mesa EGL and OpenGL -devel packages; then build again.",
     "https://github.com/NVlabs/nvdiffrast/blob/1f95925cdad6e792961f0d4a077950bb14b785d8/docker/Dockerfile"),
    (r"omp\.h", "openmp", "OpenMP's header",
     "Install OpenMP for the compiler: macOS `brew install libomp` (Apple clang ships none), Linux the gcc OpenMP "
     "package (libgomp) or `libomp-dev` for clang.", "https://www.openmp.org/resources/openmp-compilers-tools/"),
)
_COMPILED = tuple((re.compile(p), owner, what, fix, src) for p, owner, what, fix, src in _OWNERS)


def owner_of(header: str) -> dict | None:
    """The installation that ships `header` (as it was included: "torch/extension.h", "cuda_runtime.h"): {"owner",
    "header", "what", "remedy", "source"}; None for a header no table row names (the package's own header)."""
    h = (header or "").strip().strip("'\"<>`").replace("\\", "/")
    for pattern, owner, what, fix, src in _COMPILED:
        if pattern.fullmatch(h):
            return {"owner": owner, "header": h, "what": what, "remedy": fix, "source": src}
    return None
