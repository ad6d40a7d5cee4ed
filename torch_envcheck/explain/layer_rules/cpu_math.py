"""Layer rules for the CPU math and threading libraries under torch, NumPy and TensorFlow (Intel's OpenMP and MKL, GNU
OpenMP, OpenBLAS), read from their own messages.

    omp_runtime_twice   Intel OpenMP's "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already
                        initialized" -> libraries: two copies of the runtime in one process
    mkl_threading_vs_gomp  MKL's "MKL_THREADING_LAYER=INTEL is incompatible with libgomp.so.1" -> MKL_THREADING_LAYER=GNU
    mkl_cannot_load     "Intel MKL FATAL ERROR: Cannot load <library>" -> MKL's own libraries not found or loaded apart
    mkl_service_missing  NumPy's "mkl-service package failed to import" -> the conda environment activated, mkl-service
    openblas_in_openmp  OpenBLAS's "Detect OpenMP Loop and this application may hang" -> one thread for OpenBLAS, or an
                        OpenMP build of it
    openblas_threads_refused  OpenBLAS's blas_thread_init failing to create threads -> the process's thread limit (env),
                        or a container's seccomp profile refusing clone3 (container)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_INTEL_OMP = {"url": "https://www.intel.com/content/www/us/en/docs/cpp-compiler/developer-guide-reference/2021-8/"
                     "openmp-support.html", "what": "Intel's OpenMP runtime (libiomp5): one copy per process"}
_MKL_GUIDE = {"url": "https://www.intel.com/content/www/us/en/docs/onemkl/developer-guide-linux/2023-0/"
                     "dynamic-select-the-interface-and-threading-layer.html",
              "what": "oneMKL: mkl_rt and MKL_THREADING_LAYER (INTEL, GNU, SEQUENTIAL)"}

_OMP15 = re.compile(r"OMP: Error #15: Initializing (?P<lib>lib[\w.]{1,40}), but found (?:lib[\w.]{1,40}) already "
                    r"initialized")


def omp_runtime_twice(ent, text):
    m, at = last_in_tail(_OMP15, text, "OMP: Error #15")
    if m is None:
        return None
    lib = m.group("lib")
    sig = _sig("openmp-runtime-twice", "libraries", "two copies of Intel's OpenMP runtime ({lib}) in one process", 86,
               "Intel's OpenMP runtime refuses to start when another copy of it is already loaded: two packages each "
               "brought their own {lib} (torch's wheel bundles one; conda's intel-openmp / mkl, numpy's or another "
               "library's build bring another), and both were loaded by the same Python.",
               fix="Keep one copy: in a conda environment, don't mix conda's mkl/intel-openmp with pip's torch (make the "
                   "environment from one installer, or `conda install nomkl` to drop MKL's copy), or remove the extra "
                   "{lib} from the environment's library folder (Windows: envs\\<name>\\Library\\bin) after finding "
                   "both (`where {lib}` / `find $CONDA_PREFIX -name '{lib}'`). KMP_DUPLICATE_LIB_OK=TRUE only silences "
                   "the check and may give wrong results or crashes.",
               areas=("libraries",), sources=(_INTEL_OMP,))
    return _match(sig, text, at, {"lib": lib})


_MKL_GOMP = re.compile(r"MKL_THREADING_LAYER=INTEL is incompatible with (?P<lib>libgomp[\w.]{0,20})")


def mkl_threading_vs_gomp(ent, text):
    m, at = last_in_tail(_MKL_GOMP, text, "MKL_THREADING_LAYER")
    if m is None:
        return None
    sig = _sig("mkl-threading-vs-libgomp", "libraries", "MKL's Intel threading meets GNU OpenMP ({lib})", 86,
               "MKL was set to use Intel's OpenMP threading, but GNU's OpenMP runtime ({lib}) is already loaded in the "
               "process (pip's torch and many other wheels use it): MKL refuses to run the two together.",
               fix="Tell MKL to use GNU's OpenMP: `export MKL_THREADING_LAYER=GNU` (set it before Python starts, or in "
                   "the environment's activation), or import the MKL-linked package (numpy from conda) before the one "
                   "that loads libgomp; an environment built from one installer avoids the mix.",
               areas=("libraries",),
               sources=(_MKL_GUIDE, {"url": "https://github.com/pytorch/pytorch/issues/37377",
                                     "what": "MKL_THREADING_LAYER=INTEL is incompatible with libgomp: "
                                             "MKL_THREADING_LAYER=GNU"}))
    return _match(sig, text, at, {"lib": m.group("lib")})


_MKL_FATAL = re.compile(r"Intel MKL FATAL ERROR: Cannot load (?P<lib>[\w.]{2,60}(?: or [\w.]{2,60})?)")


def mkl_cannot_load(ent, text):
    m, at = last_in_tail(_MKL_FATAL, text, "Intel MKL FATAL ERROR")
    if m is None:
        return None
    sig = _sig("mkl-cannot-load", "libraries", "MKL cannot load its own {lib}", 84,
               "MKL loads its threading and CPU-specific kernel libraries at run time; {lib} was not found where MKL "
               "looks (the environment's library folder not on PATH / LD_LIBRARY_PATH, an incomplete or mixed mkl "
               "install), or MKL itself was loaded through dlopen without its siblings (Python extensions linked to "
               "MKL's separate libraries rather than mkl_rt).",
               fix="Install one complete MKL into the environment that runs the program (`conda install mkl` or `pip "
                   "install --force-reinstall mkl`) and run from the activated environment (Windows: its Library\\bin "
                   "on PATH); builds linked to mkl_rt (current numpy/scipy from conda) avoid it; on Linux preloading "
                   "`LD_PRELOAD=$CONDA_PREFIX/lib/libmkl_core.so:$CONDA_PREFIX/lib/libmkl_sequential.so` is the "
                   "documented workaround.",
               areas=("libraries",), sources=(_MKL_GUIDE,))
    return _match(sig, text, at, {"lib": m.group("lib")})


_MKL_SERVICE = re.compile(r"mkl-service package failed to import")


def mkl_service_missing(ent, text):
    m, at = last_in_tail(_MKL_SERVICE, text, "mkl-service package failed")
    if m is None:
        return None
    sig = _sig("mkl-service-not-importable", "libraries", "NumPy's MKL build cannot import mkl-service", 78,
               "conda's NumPy (linked to MKL) imports mkl-service at start to set MKL's threading layer safely; it could "
               "not, so MKL's set-up is not assured when GNU OpenMP is loaded too. The usual reason is a conda "
               "environment used without being activated (its DLL folders not on PATH), or mkl-service missing.",
               fix="Activate the environment before running (`conda activate <env>`; an IDE must use the activated "
                   "environment's interpreter), and install mkl-service into it if it is absent (`conda install "
                   "mkl-service`).",
               areas=("libraries",),
               sources=({"url": "https://github.com/IntelPython/mkl-service",
                         "what": "mkl-service: MKL's threading control, imported by conda's NumPy"},))
    return _match(sig, text, at, {})


_OPENBLAS_LOOP = re.compile(r"OpenBLAS Warning ?: Detect OpenMP Loop and this application may hang")


def openblas_in_openmp(ent, text):
    m, at = last_in_tail(_OPENBLAS_LOOP, text, "Detect OpenMP Loop")
    if m is None:
        return None
    sig = _sig("openblas-inside-openmp", "libraries", "OpenBLAS (pthreads build) called from OpenMP threads", 80,
               "This OpenBLAS was built with its own pthreads threading and is called from inside an OpenMP parallel "
               "region (torch's or another library's threads): the two thread pools can deadlock, so OpenBLAS warns.",
               fix="Give OpenBLAS one thread where it runs inside OpenMP (`OPENBLAS_NUM_THREADS=1`, or "
                   "`OMP_NUM_THREADS=1` for the whole process), or use an OpenBLAS built with USE_OPENMP=1 (or NumPy and "
                   "SciPy linked to MKL) so both share one runtime.",
               areas=("libraries",),
               sources=({"url": "https://github.com/OpenMathLib/OpenBLAS/wiki/Faq",
                         "what": "OpenBLAS FAQ: threading with OpenMP, USE_OPENMP=1, OPENBLAS_NUM_THREADS"},))
    return _match(sig, text, at, {})


_OPENBLAS_THREADS = re.compile(r"blas_thread_init: pthread_create(?: failed for thread \d{1,4} of \d{1,4})?: "
                               r"(?P<why>Resource temporarily unavailable|Operation not permitted)")


def openblas_threads_refused(ent, text):
    m, at = last_in_tail(_OPENBLAS_THREADS, text, "blas_thread_init")
    if m is None:
        return None
    if m.group("why").startswith("Operation"):
        sig = _sig("openblas-threads-seccomp", "container",
                   "the container refuses to create threads (seccomp, clone3)", 84,
                   "Creating a thread returned EPERM: newer glibc creates threads with the clone3 system call, which the "
                   "default seccomp profile of older Docker releases (before 20.10.10) and old libseccomp reject, so "
                   "every library that starts threads (OpenBLAS first) fails inside the container.",
                   fix="Upgrade Docker (20.10.10 or newer) and libseccomp on the host, or run the container with "
                       "`--security-opt seccomp=unconfined` (or a profile that allows clone3) until then; an image "
                       "with an older glibc also avoids clone3.",
                   areas=("container",),
                   sources=({"url": "https://docs.docker.com/engine/release-notes/20.10/",
                             "what": "Docker 20.10.10: the default seccomp profile and clone3"},))
        return _match(sig, text, at, {})
    sig = _sig("openblas-threads-limit", "env", "OpenBLAS cannot start its threads: the process's thread limit", 82,
               "pthread_create returned EAGAIN: the process (or the user, or the container's pids limit) has reached the "
               "number of threads it may start, and OpenBLAS starts one per core for every process that loads it "
               "(DataLoader workers and multiprocessing multiply them).",
               fix="Limit OpenBLAS's threads (`OPENBLAS_NUM_THREADS=1` or a small number, `OMP_NUM_THREADS` likewise) "
                   "or raise the limit (`ulimit -u`, the container's --pids-limit, the cluster job's task limits).",
               areas=("platform",),
               sources=({"url": "https://github.com/OpenMathLib/OpenBLAS/wiki/Faq",
                         "what": "OpenBLAS FAQ: OPENBLAS_NUM_THREADS"},))
    return _match(sig, text, at, {})
