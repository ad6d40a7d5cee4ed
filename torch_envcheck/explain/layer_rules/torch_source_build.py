"""Layer rules for building PyTorch itself from source, read from its own build's messages: its compiler floor, CMake
not finding MKL, an NCCL 1 where the build needs NCCL 2's API.

    torch_build_gcc_too_old  torch's "You're trying to build PyTorch with a too old version of GCC. We need GCC N or
                         later" -> toolchain: a gcc >= N for the build (CC / CXX)
    cmake_mkl_not_found  CMake's "Library mkl_intel_lp64: not found" / "MKL could not be found. Defaulting to Eigen" ->
                         libraries: mkl and mkl-include where CMake looks (CMAKE_PREFIX_PATH, MKLROOT)
    nccl1_where_nccl2_needed  NCCL 2's API missing (ncclGroupEnd undefined, ncclInt8 undeclared) -> libraries: the build
                         found an NCCL 1
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_BUILD_DOCS = {"url": "https://github.com/pytorch/pytorch#from-source",
               "what": "building PyTorch from source: compilers, CMAKE_PREFIX_PATH, USE_* switches"}

_GCC_FLOOR = re.compile(r"trying to build PyTorch with a too old version of GCC\. We need GCC (?P<need>\d{1,2}) or later")


def torch_build_gcc_too_old(ent, text):
    m, at = last_in_tail(_GCC_FLOOR, text, "too old version of GCC")
    if m is None:
        return None
    sig = _sig("torch-build-gcc-too-old", "toolchain", "building against torch needs GCC {need} or later", 86,
               "torch's headers (c10) stop the compile when the GCC in use is older than {need}: the default gcc of the "
               "system (or of the conda environment) is older than the C++17 support torch relies on.",
               fix="Compile with a GCC {need} or newer: install it (Ubuntu: `sudo apt install gcc-{need} g++-{need}`; "
                   "RHEL: a gcc-toolset; conda: `conda install -c conda-forge gxx_linux-64`) and point the build at it, "
                   "`export CC=gcc-{need} CXX=g++-{need}` (CUDA code: nvcc's host compiler follows CXX, or -ccbin).",
               areas=("toolchain",), sources=(_BUILD_DOCS,))
    return _match(sig, text, at, {"need": m.group("need")})


_MKL_NOT_FOUND = re.compile(r"Library (?P<lib>mkl_\w{2,30}): not found|MKL could not be found\.\s{1,3}Defaulting to Eigen")


def cmake_mkl_not_found(ent, text):
    m, at = last_in_tail(_MKL_NOT_FOUND, text)
    if m is None:
        return None
    sig = _sig("cmake-mkl-not-found", "libraries", "CMake does not find MKL{lib_note|}", 80,
               "torch's CMake looks for MKL's libraries (mkl_intel_lp64, mkl_intel_thread / mkl_gnu_thread, mkl_core) "
               "and headers under MKLROOT, CMAKE_PREFIX_PATH and the system paths; it found none{lib_note|}, so the "
               "build goes on without MKL (Eigen / OpenBLAS instead, slower CPU math).",
               fix="Install MKL with its headers into the environment (`conda install mkl mkl-include` or `pip install "
                   "mkl-devel`) and let CMake find them: `export CMAKE_PREFIX_PATH=${CONDA_PREFIX:-\"$(dirname $(which "
                   "conda))/../\"}` (or MKLROOT pointing at an Intel oneAPI install, whose libraries are under "
                   "lib/intel64), then clean the build folder (python setup.py clean) and build again.",
               areas=("libraries",), sources=(_BUILD_DOCS,))
    return _match(sig, text, at, {"lib_note": f" ({m.group('lib')})" if m.group("lib") else None})


_NCCL2_API = re.compile(r"undefined reference to [`'‘](?P<sym>ncclGroup(?:Start|End)|ncclCommInitAll|ncclBcast)|"
                        r"[`'‘](?P<sym2>ncclInt8|ncclUint8|ncclFloat16|ncclGroupStart|ncclGroupEnd)[`'’] was not declared")


def nccl1_where_nccl2_needed(ent, text):
    m, at = last_in_tail(_NCCL2_API, text)
    if m is None:
        return None
    sym = m.group("sym") or m.group("sym2")
    sig = _sig("nccl1-where-nccl2-needed", "libraries", "the build found an NCCL without NCCL 2's {sym}", 90,
               "{sym} is NCCL 2's API (group calls, the renamed data types); the nccl.h or libnccl the build found is an "
               "NCCL 1 (an old system package or a copy on the include/library path), which lacks it.",
               fix="Build with NCCL 2: let torch build its bundled NCCL (`USE_SYSTEM_NCCL=0`, the default) and remove the "
                   "old nccl.h / libnccl.so.1 from the include and library paths the build sees, or point it at an "
                   "NCCL 2 install (`USE_SYSTEM_NCCL=1 NCCL_ROOT=/path/to/nccl2`); then clean and rebuild.",
               areas=("libraries",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/nccl1.html",
                         "what": "Migrating from NCCL 1 to NCCL 2: group calls and data type names"},))
    return _match(sig, text, at, {"sym": sym})
