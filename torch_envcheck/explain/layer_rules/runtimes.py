"""Layer rules for the checks other GPU runtimes make of their own stack, read from what they print: XLA's cuDNN
check (JAX), ONNX Runtime's execution providers and TensorRT's serialized engines.

    xla_cudnn_version     XLA or JAX found an older cuDNN than it was built with (its three wordings)
                          -> cudnn: a cuDNN of the build's major at least as new (decoded: 8906 -> 8.9.6), for the
                          framework the text is from
    onnxruntime_cpu_only  the providers ONNX Runtime offers lack CUDAExecutionProvider
    onnxruntime_cuda_libraries  onnxruntime-gpu's CUDA provider cannot load the CUDA/cuDNN it was built with
                          -> libraries: those majors (printed, or its requirements table), PATH, preload_dlls
                          -> torch-build: onnxruntime-gpu alone (the CPU package shares its module and shadows it)
    tensorrt_engine_version  TensorRT cannot deserialize an engine: it was built by another TensorRT
                          -> libraries: build the engine again with the TensorRT that runs it
    jax_cuda_library_not_found  JAX's start-up check: "The cuSPARSE library was not found"
                          -> libraries: the jax[cuda12] wheels; cuSPARSE/cuSOLVER/cuFFT need a new enough nvJitLink"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match


def cudnn_version(number: str) -> str | None:
    """cuDNN's integer version as dotted text: MAJOR*1000 + MINOR*100 + PATCH up to cuDNN 8 (8906 -> 8.9.6),
    MAJOR*10000 + MINOR*100 + PATCH from cuDNN 9 (90100 -> 9.1.0; cudnn_version.h's CUDNN_VERSION).  JAX prints
    its minimum in the first form for 9 too (9100 -> 9.1.0), which the first form reads the same."""
    if not number.isdigit():
        return None
    n = int(number)
    if n >= 10000:
        major, rest = divmod(n, 10000)
    elif n >= 1000:
        major, rest = divmod(n, 1000)
    else:
        return None
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


# XLA's stream executor (TensorFlow and JAX both print it), JAX's own two wordings (older jaxlib, then xla_bridge's
# "Outdated cuDNN installation found" with the three numbers)
_XLA_CUDNN = re.compile(
    r"Loaded runtime CuDNN library: (?P<run_dot>\d{1,2}\.\d{1,2}\.\d{1,2}) but (?:the )?source was compiled with: "
    r"(?P<built_dot>\d{1,2}\.\d{1,2}\.\d{1,2})|"
    r"Found cuDNN version (?P<found>\d{4,6}), but JAX was built against version (?P<built>\d{4,6})|"
    r"Outdated cuDNN installation found\.?\s{0,8}(?:[^\n]{0,20}\n)?[^\n]{0,20}?Version JAX was built against: "
    r"(?P<built2>\d{4,6})\s{0,8}(?:[^\n]{0,20}\n)?[^\n]{0,20}?Minimum supported: (?P<minimum>\d{4,6})"
    r"\s{0,8}(?:[^\n]{0,20}\n)?[^\n]{0,20}?Installed version: (?P<found2>\d{4,6})")


_JAX_TEXT = re.compile(r"\bjax(?:lib)?\b|\bJAX\b|XlaRuntimeError|jax_plugins|jax_cuda\d{2}")


_CUDNN_SOURCES = (
    {"url": "https://docs.jax.dev/en/latest/installation.html",
     "what": "JAX's CUDA install: the pip wheels bring the cuDNN jaxlib needs; a local cuDNN must be at least as new "
             "as the one jaxlib was built with"},
    {"url": "https://github.com/jax-ml/jax/issues/15268",
     "what": "Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0, under JAX"})


def xla_cudnn_version(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "cudnn" not in tail.lower():
        return None
    m = last_match(_XLA_CUDNN, tail)
    if m is None:
        return None
    jax = _JAX_TEXT.search(tail) is not None or not m.group("run_dot")
    if not jax:
        return None  # TensorFlow's own: the catalogue's sentence (tensorflow-cudnn-mismatch) says it
    found = m.group("run_dot") or cudnn_version(m.group("found") or m.group("found2") or "")
    built = m.group("built_dot") or cudnn_version(m.group("built") or m.group("built2") or "")
    need = cudnn_version(m.group("minimum")) if m.group("minimum") else built
    if not found or not need:
        return None
    major = need.split(".", 1)[0]
    caps = {"found": found, "built": built, "need": need, "major": major}
    sig = _sig("jax-cudnn-too-old", "cudnn", "JAX found cuDNN {found}; its jaxlib needs cuDNN {need} or newer", 85,
               "The jaxlib installed was built against cuDNN {built} and refuses an older one (it needs the same major "
               "version, {major}, at least {need}); the cuDNN the process found is {found}: an older cuDNN in the "
               "environment (a conda or pixi cudnn package, a system cuDNN on LD_LIBRARY_PATH) or loaded first by "
               "another framework.",
               fix="Give JAX cuDNN {need} or newer (major {major}): with pip, `pip install -U \"jax[cuda12]\"` (or "
                   "jax[cuda13], the CUDA major of your jaxlib) brings the nvidia-cudnn wheel it needs; in a conda or "
                   "pixi environment pin `cudnn>={need}`; and remove folders with an older cuDNN from LD_LIBRARY_PATH. "
                   "Or install a jax/jaxlib release built against cuDNN {found}.",
               causes=(("cudnn-mismatch", "the cuDNN loaded differs from the one the framework was built with",
                        ("TE502",)),),
               areas=("libraries",), sources=_CUDNN_SOURCES)
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# ONNX Runtime names the providers it has: its warning when one asked for is missing, and the list
# get_available_providers() prints.  CUDAExecutionProvider is in the onnxruntime-gpu package only; onnxruntime (CPU)
# installs the same `onnxruntime` module, so with both installed the one installed last wins.
_ORT_NOT_AVAILABLE = re.compile(r"Specified provider '(?P<asked>CUDAExecutionProvider|TensorrtExecutionProvider)' is not "
                                r"in available provider names")
_ORT_LIST = re.compile(r"\[\s{0,4}'(?:[A-Za-z]{2,20}ExecutionProvider)'(?:,\s{0,4}'[A-Za-z]{2,20}ExecutionProvider'){0,8}"
                       r"\s{0,4}\]")
# pip list / pip freeze / uv's "+ name==version" lines naming each package
_ORT_CPU_PKG = re.compile(r"\bonnxruntime(?:==|[ \t]{1,30})\d")
_ORT_GPU_PKG = re.compile(r"\bonnxruntime-gpu(?:==|[ \t]{1,30})\d")


# one of the two packages uninstalled beside the other takes the shared module's files with it: the module left has
# no InferenceSession (or no get_available_providers)
_ORT_BROKEN = re.compile(r"module 'onnxruntime' has no attribute '(?:InferenceSession|get_available_providers|"
                         r"SessionOptions|get_device)'")


def onnxruntime_cpu_only(ent, text):
    tail = text[-CONTEXT_TAIL:]
    broken = last_match(_ORT_BROKEN, tail) if "onnxruntime" in tail else None
    if broken is not None:
        sig = _sig("onnxruntime-module-broken", "torch-build",
                   "the onnxruntime module is incomplete: onnxruntime and onnxruntime-gpu were mixed", 84,
                   "onnxruntime (CPU) and onnxruntime-gpu install the same `onnxruntime` module; with both installed, "
                   "uninstalling or upgrading one removes files the other's module needs, and what is left has no "
                   "InferenceSession.",
                   fix="Remove both and install the GPU package alone: `pip uninstall -y onnxruntime onnxruntime-gpu` "
                       "then `pip install onnxruntime-gpu` (the release built for your CUDA and cuDNN); keep the CUDA "
                       "build of torch beside it.",
                   causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
                   sources=({"url": "https://onnxruntime.ai/docs/install/",
                             "what": "onnxruntime (CPU) and onnxruntime-gpu: install one of them"},))
        return _match(sig, text, len(text) - len(tail) + broken.start(), {})
    if "ExecutionProvider" not in tail:
        return None
    m = last_match(_ORT_NOT_AVAILABLE, tail)
    if m is None:
        lists = [x for x in _ORT_LIST.finditer(tail[-16384:]) if "CPUExecutionProvider" in x.group(0)]
        m = lists[-1] if lists and "CUDAExecutionProvider" not in lists[-1].group(0) else None
        if m is None or not re.search(r"(?i)cuda|gpu|onnxruntime-gpu", tail):
            return None
        at = len(text) - 16384 + m.start() if len(tail) >= 16384 else len(text) - len(tail) + m.start()
    else:
        at = len(text) - len(tail) + m.start()
    both = _ORT_CPU_PKG.search(tail) is not None and _ORT_GPU_PKG.search(tail) is not None
    sig = _sig("onnxruntime-without-cuda-provider", "torch-build",
               "ONNX Runtime offers no CUDAExecutionProvider: the CPU package is the one imported", 84,
               "CUDAExecutionProvider exists only in the onnxruntime-gpu package. The onnxruntime package (CPU) "
               "installs the same `onnxruntime` module, so where it is installed, alone or beside onnxruntime-gpu (a "
               "requirement of another package pulls it in), the module imported has CPU providers only." +
               (" Both packages are installed here." if both else ""),
               fix="Keep only the GPU package: `pip uninstall -y onnxruntime onnxruntime-gpu` and then `pip install "
                   "onnxruntime-gpu` (the release built for your CUDA and cuDNN: ONNX Runtime's CUDA requirements "
                   "table), and check `onnxruntime.get_available_providers()` lists CUDAExecutionProvider; a package "
                   "that requires onnxruntime will pull the CPU package back on its next install.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=({"url": "https://onnxruntime.ai/docs/install/",
                         "what": "onnxruntime (CPU) and onnxruntime-gpu: install one of them"},
                        {"url": "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html",
                         "what": "the CUDA execution provider: onnxruntime-gpu and its CUDA/cuDNN requirements"}))
    return _match(sig, text, at, {})


# TensorRT's deserializer: a version tag that does not match (its three generations of wording) or a magic tag, and
# the plan file's own message
_TRT_ENGINE = re.compile(r"(?:Version|Magic) tag does not match|Serialization assertion (?:safe|std)?[Vv]ersionRead == \w{0,40}"
                         r"[Ss]erializationVersion failed|magicTagRead == kMAGIC_TAG|engine plan file is not compatible "
                         r"with this version of TensorRT|[Ee]ngine plan file is generated on an incompatible device")
_TRT_VERSIONS = re.compile(r"(?:Current|urent) [Vv]ersion: (?P<cur>\d{1,4})[,，]\s{0,4}Serialized Engine Version: "
                           r"(?P<eng>\d{1,4})|expecting library version (?P<lib>[\d.]{3,20}) got (?P<got>[\d.]{3,20})")


def tensorrt_engine_version(ent, text):
    m, at = last_in_tail(_TRT_ENGINE, text)
    if m is None:
        return None
    v = last_match(_TRT_VERSIONS, text[-CONTEXT_TAIL:])
    caps = {}
    if v is not None:
        caps = ({"runtime": v.group("cur"), "engine": v.group("eng")} if v.group("cur") else
                {"runtime": v.group("lib"), "engine": v.group("got")})
    device = "incompatible device" in m.group(0)
    sig = _sig("tensorrt-engine-from-another-version", "libraries",
               "the TensorRT engine was built by another TensorRT" + (" (engine {engine}, runtime {runtime})"
                                                                      if caps else "") +
               (" or for another GPU" if device else ""), 82,
               "A serialized TensorRT engine (.engine/.plan/.trt) runs only on the TensorRT version that built it "
               "(and, by default, on the GPU model it was built on). This one carries another version tag" +
               (" ({engine}, the runtime's is {runtime})" if caps else "") + ": it was built elsewhere or before "
               "TensorRT was upgraded, or a second TensorRT on LD_LIBRARY_PATH is the one loaded now.",
               fix="Build the engine again on this machine with the TensorRT that runs it (delete the cached "
                   ".engine/.plan/.trt files so the program rebuilds them, or convert the ONNX model again with "
                   "trtexec); check that the TensorRT that builds and the one that runs are the same (one TensorRT on "
                   "LD_LIBRARY_PATH, the tensorrt Python package of the same version).",
               causes=(("ld-path", "LD_LIBRARY_PATH holds libraries of another version", ("TE501",)),),
               areas=("libraries",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix-10/"
                                "10.10.0.html",
                         "what": "Engine Portability: serialized engines are tied to the platform, the TensorRT version "
                                 "(unless built version-compatible) and the GPU architecture that built them"},
                        {"url": "https://github.com/NVIDIA/TensorRT/issues/2195",
                         "what": "maintainer: the TensorRT that built the engine and the one running it differ"}))
    return _match(sig, text, at, caps)


# JAX's check of each CUDA library at start-up ("operation cusparseGetProperty(MAJOR_VERSION, &major) failed: The
# cuSPARSE library was not found."): the library did not load.  From CUDA 12 cuSPARSE (and cuSOLVER, cuFFT) link
# libnvJitLink.so.12 and need one at least as new as themselves: an older nvJitLink found first (LD_LIBRARY_PATH,
# another wheel) is the usual reason a present cuSPARSE "was not found"
_JAX_LIB_NOT_FOUND = re.compile(r"operation (?P<fn>cu(?P<lib>sparse|solver|fft|blas)\w{0,30}|cudnn\w{0,30})\([^\n]{0,80}\) "
                                r"failed: The (?P<name>cu\w{2,10}|cuDNN) library was not found")
_NEEDS_NVJITLINK = {"sparse", "solver", "fft"}


def jax_cuda_library_not_found(ent, text):
    m, at = last_in_tail(_JAX_LIB_NOT_FOUND, text, "library was not found")
    if m is None:
        return None
    name, lib = m.group("name"), (m.group("lib") or "")
    jit = lib in _NEEDS_NVJITLINK
    wheel = "nvidia-cu" + lib + "-cu12" if lib else "nvidia-cudnn-cu12"
    caps = {"library": name, "wheel": wheel}
    sig = _sig("jax-cuda-library-not-loadable", "libraries", "JAX cannot load {library}", 80,
               "JAX checks each CUDA library at start-up and {library} did not load." +
               (" From CUDA 12 it links libnvJitLink.so.12 and needs an nvJitLink at least as new as itself: with an "
                "older one found first (a system CUDA on LD_LIBRARY_PATH, a stale nvidia-nvjitlink wheel) it cannot "
                "load even though its own file is there." if jit else ""),
               fix=("Install matching CUDA wheels: `pip install -U \"jax[cuda12]\"` (it pins " + wheel +
                    (" and nvidia-nvjitlink-cu12" if jit else "") + "), and remove other CUDA folders from "
                    "LD_LIBRARY_PATH so the wheels' copies load" + ("; `pip install -U nvidia-nvjitlink-cu12` alone "
                                                                    "fixes an older nvJitLink." if jit else ".")),
               causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version", ("TE501",)),),
               areas=("libraries",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "JAX's CUDA wheels (jax[cuda12]) and LD_LIBRARY_PATH overriding them"},))
    return _match(sig, text, at, caps)


# onnxruntime-gpu's CreateExecutionProviderInstance (onnxruntime_pybind_state.cc) when the CUDA provider's library
# cannot load its CUDA and cuDNN: "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version
# of CUDA and cuDNN ..." and, from 1.19, "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, ..."
_ORT_CUDA_NOT_LOADED = re.compile(r"CUDA_PATH is set but CUDA wasn'?t able to be loaded|"
                                  r"Failed to create CUDAExecutionProvider\.(?: Require cuDNN (?P<cudnn>\d{1,2})\.\* and "
                                  r"CUDA (?P<cuda>\d{1,2})\.\*)?|Please install the correct version of CUDA and ?cuDNN as "
                                  r"mentioned in the GPU requirements page")


def onnxruntime_cuda_libraries(ent, text):
    """ONNX Runtime's CUDA execution provider loads the CUDA and cuDNN majors its release was built with (CUDA 12 and
    cuDNN 9 for PyPI's onnxruntime-gpu since 1.19, CUDA 11.8 and cuDNN 8 before): when it cannot, it says so and runs on
    the CPU.  Those libraries, where the loader looks, are the fix; never a reinstall of torch."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ORT_CUDA_NOT_LOADED, tail)
    if m is None:
        return None
    caps = {"cuda": m.group("cuda"), "cudnn": m.group("cudnn")}
    sig = _sig("onnxruntime-cuda-libraries-not-loaded", "libraries",
               "onnxruntime-gpu cannot load the CUDA {cuda|} / cuDNN {cudnn|} its CUDA provider was built with", 80,
               "ONNX Runtime's CUDA execution provider is linked against one CUDA major and one cuDNN major (its "
               "requirements table: PyPI's onnxruntime-gpu is built with CUDA 12.x and cuDNN 9.x since 1.19, with CUDA "
               "11.8 and cuDNN 8.x before); it found them nowhere the loader looks (or found other majors), so it "
               "falls back to the CPU.",
               fix="Give it CUDA {cuda|of its major} and cuDNN {cudnn|of its major}: `import torch` before onnxruntime "
                   "(a CUDA torch of the same CUDA major loads them; torch 2.4 and later carry cuDNN 9), or call "
                   "`onnxruntime.preload_dlls()` (1.21 and later) with the nvidia-cublas-cu12 / nvidia-cudnn-cu12 "
                   "wheels installed, or install them and put their bin folders on PATH (Windows; cuDNN 9 keeps its "
                   "DLLs in bin\\<CUDA version>) or LD_LIBRARY_PATH (Linux), with the latest MSVC runtime on Windows. "
                   "Alternatively install the onnxruntime-gpu release built for the CUDA and cuDNN you have (1.18 and "
                   "older for CUDA 11.8 with cuDNN 8).",
               causes=(), areas=("libraries",),
               sources=({"url": "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements",
                         "what": "ONNX Runtime's CUDA EP: the CUDA and cuDNN of each release, preload_dlls"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# jax's own words for a jaxlib without CUDA on a machine with an NVIDIA GPU (jax/_src/xla_bridge.py), and its older
# fallback warning: the CUDA plugin (jax[cuda12] / jax-cuda12-plugin) is not installed
_JAX_CPU_ONLY = re.compile(r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed|"
                           r"No GPU/TPU found, falling back to CPU")


def jaxlib_without_cuda(ent, text):
    m, at = last_in_tail(_JAX_CPU_ONLY, text)
    if m is None:
        return None
    if m.group(0).startswith("No GPU") and any(c.get("family") in ("CUresult", "cudaError_t", "cudnnStatus_t")
                                               for c in ent.codes):
        return None  # the fallback after a CUDA failure the text shows: that failure is the cause
    sig = _sig("jaxlib-without-cuda", "torch-build", "jax runs on the CPU: the installed jaxlib has no CUDA", 82,
               "jax found no GPU backend: the jaxlib installed is its CPU build (`pip install jax`, or a conda solve that "
               "picked the CPU variant); GPU support comes from the CUDA plugin wheels of the same jax release.",
               fix="Install jax with its CUDA plugin, of the jax version you use: `pip install -U \"jax[cuda12]\"` (Linux "
                   "x86_64/aarch64, or WSL 2 on Windows; the NVIDIA driver must support CUDA 12); with conda-forge ask "
                   "for the CUDA variant (`conda install jaxlib=*=*cuda* jax`), then check `python -c \"import jax; "
                   "print(jax.devices())\"`.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "jax: installing with NVIDIA GPU support (jax[cuda12])"},))
    return _match(sig, text, at, {})
