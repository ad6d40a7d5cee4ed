"""Layer rules for the checks other GPU runtimes make of their own stack, read from what they print: XLA's cuDNN
check (JAX), ONNX Runtime's execution providers and TensorRT's serialized engines.

    xla_cudnn_version     XLA or JAX found an older cuDNN than it was built with (its three wordings)
                          -> cudnn: a cuDNN of the build's major at least as new (decoded: 8906 -> 8.9.6), for the
                          framework the text is from
    onnxruntime_cpu_only  the providers ONNX Runtime offers lack CUDAExecutionProvider (and no list or attempt in the
                          text shows the GPU package) -> torch-build: onnxruntime-gpu alone (the CPU package shares its
                          module and shadows it); under Rust's ort crate, its cuda feature and a GPU build to link
    onnxruntime_cuda_libraries  onnxruntime-gpu's CUDA provider cannot load the CUDA/cuDNN it was built with
                          -> libraries: those majors (printed, or its requirements table), PATH, preload_dlls
    tensorrt_engine_version  TensorRT cannot deserialize an engine: it was built by another TensorRT
                          -> libraries: build the engine again with the TensorRT that runs it; a version of 0.0.0 read
                          from the file -> not-environment: the bytes are not an engine (text mode, cut short)
    tensorrt_unsupported_sm  TensorRT's "Unsupported SM" (0xMmm decoded) -> arch: a TensorRT that supports the GPU
    jax_cuda_library_not_found  JAX's start-up check: "The cuSPARSE library was not found"
                          -> libraries: the jax[cuda12] wheels; cuSPARSE/cuSOLVER/cuFFT need a new enough nvJitLink
    framework_cpu_build   MXNet, XGBoost, OpenCV or Faiss saying its build has no CUDA -> torch-build: its CUDA build
    jax_pjrt_plugin_mismatch  "Mismatched PJRT plugin PJRT API version" -> toolchain: jax, jaxlib, plugin of one release
    tensorrt_version_mismatch  TF-TRT's "TensorRT mismatch. Compiled against A, but loaded B" -> libraries: TensorRT A
    jax_xla_compiler_pieces  XLA under JAX finding no libdevice / ptxas -> toolchain: the jax[cuda12] nvcc wheel or
                          XLA_FLAGS=--xla_gpu_cuda_data_dir (under TensorFlow the catalogue's sentence answers)
    jax_cuda_library_too_old  JAX's start-up check of each CUDA library ("Outdated cuBLAS installation found", "Found
                          cuSOLVER version A, but JAX was built against version B") -> libraries: that library's wheel
    ggml_binary_archs     ggml's system_info "CUDA : ARCHS = 520" beside a device of another compute capability
                          -> arch: a build for the GPU's architecture
    llm_runtime_cpu_only  ollama/ggml loading only CPU backends or runners -> its CUDA build
    launcher_finds_no_gpu  DeepSpeed's "no GPU resources available" -> driver: the GPUs the process is shown
    bitsandbytes_cpu_library_beside_gpu  bitsandbytes loading libbitsandbytes_cpu.so after detecting a GPU -> toolchain:
                          a bitsandbytes with a binary for that CUDA
    llama_cpp_python_cpu_build  llama-cpp-python named beside a GPU it does not use (or CMAKE_ARGS refused by
                          Windows' shells) -> gpu-unused: CMAKE_ARGS=-DGGML_CUDA=on in the shell's syntax, CUDA wheels"""

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
_ORT_NOT_AVAILABLE = re.compile(r"Specified provider '(?P<asked>CUDAExecutionProvider|TensorrtExecutionProvider)' is "
                                r"(?:not\s{1,8}in\s{1,8}available\s{1,8}provider\s{1,8}names|"
                                # the ValueError older releases raised where later ones warn
                                r"unavailable\.\s{0,8}Available\s{1,8}providers)|"
                                # the C API's status when a provider's options are asked of a build without it
                                # (onnxruntime/core/session/provider_bridge_ort.cc), and ORT GenAI's
                                r"\b(?P<named>CUDA|TensorRT|DML|ROCm) execution provider is not enabled in this build")
_ORT_LIST = re.compile(r"\[\s{0,4}'(?:[A-Za-z]{2,20}ExecutionProvider)'(?:,\s{0,4}'[A-Za-z]{2,20}ExecutionProvider'){0,8}"
                       r"\s{0,4}\]")
# pip list / pip freeze / uv's "+ name==version" lines naming each package
_ORT_CPU_PKG = re.compile(r"\bonnxruntime(?:==|[ \t]{1,30})\d")
_ORT_GPU_PKG = re.compile(r"\bonnxruntime-gpu(?:==|[ \t]{1,30})\d")


# one of the two packages uninstalled beside the other takes the shared module's files with it: the module left has
# no InferenceSession (or no get_available_providers)
# Rust's ort crate (its module paths in a log line, its sys crate)
_RUST_ORT = re.compile(r"\bort::(?:execution_providers|session|environment)\b|\bort[-_]sys\b")
_ORT_GPU_TRIED = re.compile(r"onnxruntime_providers_cuda|Failed to create CUDAExecutionProvider|"
                            r"CUDA_PATH is set but CUDA wasn'?t able to be loaded")
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
    if "ExecutionProvider" not in tail and "execution provider is not enabled" not in tail:
        return None
    m = last_match(_ORT_NOT_AVAILABLE, tail)
    if m is None:
        lists = [x for x in _ORT_LIST.finditer(tail[-16384:]) if "CPUExecutionProvider" in x.group(0)]
        m = lists[-1] if lists and "CUDAExecutionProvider" not in lists[-1].group(0) else None
        if m is None or not re.search(r"(?i)cuda|gpu|onnxruntime-gpu", tail):
            return None
        # a list of the session's providers (get_providers) without CUDA's, where the package's own list has it or its
        # CUDA provider was tried: the GPU package is the one imported, and the provider did not load (other rules)
        if any("CUDAExecutionProvider" in x.group(0) for x in lists) or _ORT_GPU_TRIED.search(tail) is not None:
            return None
        at = len(text) - 16384 + m.start() if len(tail) >= 16384 else len(text) - len(tail) + m.start()
    else:
        at = len(text) - len(tail) + m.start()
    both = _ORT_CPU_PKG.search(tail) is not None and _ORT_GPU_PKG.search(tail) is not None
    if _RUST_ORT.search(tail) is not None:
        sig = _sig("onnxruntime-without-cuda-provider", "torch-build",
                   "the ONNX Runtime library Rust's ort crate links has no CUDA provider", 84,
                   "Rust's ort crate registers CUDAExecutionProvider only when the ONNX Runtime library it links or loads "
                   "was built with CUDA; this one (a CPU build: the crate's default download, or a static library built "
                   "without CUDA) has none, so ort falls back to the CPU.",
                   fix="Enable ort's `cuda` Cargo feature and give it a GPU build of ONNX Runtime: Microsoft's "
                       "onnxruntime-linux-x64-gpu / onnxruntime-win-x64-gpu release, through ORT_LIB_LOCATION when "
                       "linking or ORT_DYLIB_PATH with the `load-dynamic` feature, with the CUDA and cuDNN of that "
                       "release (ONNX Runtime's CUDA requirements table) on the loader's path.",
                   causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
                   sources=({"url": "https://docs.rs/crate/ort/1.14.1",
                             "what": "ort's Cargo features (cuda), ORT_LIB_LOCATION and the system strategy"},
                            {"url": "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html",
                             "what": "the CUDA execution provider and its CUDA/cuDNN requirements"}))
        return _match(sig, text, at, {})
    sig = _sig("onnxruntime-without-cuda-provider", "torch-build",
               "ONNX Runtime offers no CUDAExecutionProvider: the CPU package is the one imported", 84,
               "CUDAExecutionProvider exists only in the onnxruntime-gpu package. The onnxruntime package (CPU) "
               "installs the same `onnxruntime` module, so where it is installed, alone or beside onnxruntime-gpu (a "
               "requirement of another package pulls it in), the module imported has CPU providers only." +
               (" Both packages are installed here." if both else ""),
               fix="Keep only the GPU package: `pip uninstall -y onnxruntime onnxruntime-gpu` and then `pip install "
                   "onnxruntime-gpu` (the release built for your CUDA and cuDNN: ONNX Runtime's CUDA requirements "
                   "table), and check `onnxruntime.get_available_providers()` lists CUDAExecutionProvider; a package "
                   "that requires onnxruntime will pull the CPU package back on its next install. In .NET, reference "
                   "Microsoft.ML.OnnxRuntime.Gpu (or OnnxRuntimeGenAI.Cuda) and not the CPU package beside it.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=({"url": "https://onnxruntime.ai/docs/install/",
                         "what": "onnxruntime (CPU) and onnxruntime-gpu: install one of them"},
                        {"url": "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html",
                         "what": "the CUDA execution provider: onnxruntime-gpu and its CUDA/cuDNN requirements"}))
    return _match(sig, text, at, {})


# TensorRT's deserializer: a version tag that does not match (its three generations of wording) or a magic tag, and
# the plan file's own message
_TRT_ENGINE = re.compile(r"(?:Version|Magic) tag does not match|Serialization assertion (?:safe|std)?[Vv]ersionRead == \w{0,40}"
                         r"[Ss]erializationVersion failed|magicTagRead == kMAGIC_TAG|Size specified in header does not "
                         r"match archive size|engine plan file is not compatible "
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
    ort = bool(re.search(r"onnxruntime|TensorrtExecutionProvider|TensorrtLogger", text[-CONTEXT_TAIL:]))
    if caps.get("engine") and set(caps["engine"]) <= {"0", "."}:
        # the version read from the file is all zeros: its header holds no TensorRT version at all, so the bytes
        # read are not an engine (a file written or read in text mode on Windows, cut short, or another file)
        sig = _sig("tensorrt-engine-file-not-an-engine", "not-environment",
                   "the file given to TensorRT as an engine is not one (its version reads {engine})", 84,
                   "TensorRT reads the version that built an engine from the file's header; {engine} means the header "
                   "holds none, so the bytes the program passed are not a serialized engine: written or read in text "
                   "mode (Windows translates newlines in text mode), cut short, or another file. The TensorRT "
                   "installation is not at fault.",
                   look_at="Write and read the plan file in binary mode (std::ios::binary, open(path, \"rb\") / "
                           "\"wb\"), check its size against the serialized engine's, and pass the engine file itself; "
                           "then build it again if it was damaged.",
                   areas=("program",), sources=({"url": "https://github.com/NVIDIA/TensorRT/issues/574",
                                                 "what": "'got 0.0.0': a plan file written and read in text mode"},))
        return _match(sig, text, at, caps)
    sig = _sig("tensorrt-engine-from-another-version", "libraries",
               "the TensorRT engine was built by another TensorRT" + (" (engine {engine}, runtime {runtime})"
                                                                      if caps else "") +
               (" or for another GPU" if device else ""), 82,
               "A serialized TensorRT engine (.engine/.plan/.trt) runs only on the TensorRT version that built it "
               "(and, by default, on the GPU model it was built on). This one carries another version tag" +
               (" ({engine}, the runtime's is {runtime})" if caps else "") + ": it was built elsewhere or before "
               "TensorRT was upgraded, or a second TensorRT on LD_LIBRARY_PATH is the one loaded now.",
               fix="Rebuild the engine on this machine with the TensorRT that runs it (delete the cached "
                   ".engine/.plan/.trt files so the program rebuilds them, or convert the ONNX model again with "
                   "trtexec); build and run with the same TensorRT version (one TensorRT on LD_LIBRARY_PATH, the "
                   "tensorrt Python package of that version)." +
                   (" Under ONNX Runtime's TensorRT execution provider, install the TensorRT version required by your "
                    "onnxruntime-gpu release (its TensorRT EP requirements table) and delete its engine cache "
                    "(trt_engine_cache_path) so that it builds the engines again." if ort else ""),
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
                                  r"Failed to create CUDAExecutionProvider\b(?:\.(?: Require cuDNN (?P<cudnn>\d{1,2})\.\* and "
                                  r"CUDA (?P<cuda>\d{1,2})\.\*)?)?|Please install the correct version of CUDA and ?cuDNN as "
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
               "onnxruntime-gpu cannot load the " + ("CUDA {cuda} / cuDNN {cudnn}" if m.group("cuda") else "CUDA / cuDNN")
               + " its CUDA provider was built with", 80,
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


# Other GPU libraries' own words for "this build has no CUDA": the message each prints when a GPU is asked of its CPU
# build, and the package (or build option) that has CUDA.  Each row: a name, the message, the fix, its sources.
_CPU_BUILDS = (
    ("Horovod", re.compile(r"Requested ReadyEvent with GPU device but not compiled with CUDA|Horovod (?:was|is) not compiled "
                           r"with (?:CUDA|GPU|NCCL)"),
     "Build Horovod again with its GPU operations: `HOROVOD_GPU_OPERATIONS=NCCL pip install --no-cache-dir --force-reinstall "
     "horovod` (with the CUDA toolkit and NCCL visible to the build: CUDA_HOME, HOROVOD_NCCL_HOME), then check "
     "`horovodrun --check-build` lists NCCL.",
     ({"url": "https://horovod.readthedocs.io/en/stable/gpus_include.html",
       "what": "Horovod with GPU support: HOROVOD_GPU_OPERATIONS=NCCL at install time"},)),
    ("MXNet", re.compile(r"Compile with USE_CUDA=1 to enable GPU usage"),
     "Install MXNet's CUDA build for your CUDA version (`pip uninstall -y mxnet` then `pip install mxnet-cuNNN`, e.g. "
     "mxnet-cu112 for CUDA 11.2; MXNet is retired, so its last release is the one to pin), or build it with USE_CUDA=1.",
     ({"url": "https://github.com/apache/mxnet/blob/master/src/storage/storage.cc",
       "what": "MXNet's storage manager: LOG(FATAL) << \"Compile with USE_CUDA=1 to enable GPU usage\" without CUDA"},
      {"url": "https://mxnet.apache.org/versions/1.9.1/get_started",
       "what": "MXNet's pip packages: mxnet (CPU) and mxnet-cuNNN (one per CUDA version)"})),
    # (older releases printed "XGBoost version not compile with GPU support"; 2.x "XGBoost is not compiled with CUDA
    # support")
    ("XGBoost", re.compile(r"XGBoost version not compiled? with GPU support|XGBoost is not compiled with CUDA support"),
     "Install an XGBoost with CUDA: the `xgboost` wheels on PyPI for Linux x86_64 and Windows carry it (not "
     "`xgboost-cpu`, and not the macOS or aarch64 wheels); with conda, conda-forge's CUDA variant (`conda install -c "
     "conda-forge py-xgboost=*=cuda*`). Check with `python -c \"import xgboost; print(xgboost.build_info()['USE_CUDA'])\"`.",
     ({"url": "https://github.com/dmlc/xgboost/blob/master/src/common/common.h",
       "what": "AssertGPUSupport(): LOG(FATAL) << \"XGBoost version not compiled with GPU support.\" without XGBOOST_USE_CUDA"},
      {"url": "https://xgboost.readthedocs.io/en/stable/install.html",
       "what": "XGBoost's install guide: which pip wheels and conda variants have GPU support"})),
    # (the DNN module's own warning when its CUDA backend was not built: dnn/src/net_impl.cpp, setUpNet)
    ("OpenCV", re.compile(r"The library is compiled without CUDA support|-216:No CUDA support|"
                          r"DNN module was not built with CUDA backend"),
     "OpenCV's pip wheels (opencv-python, opencv-contrib-python) are built without CUDA, so cv2.cuda and the DNN "
     "module's CUDA backend cannot run: build OpenCV with WITH_CUDA=ON, OPENCV_DNN_CUDA=ON (cuDNN found) and the "
     "contrib modules, CUDA_ARCH_BIN set to the GPU's compute capability (cmake against your CUDA toolkit), and remove "
     "the pip wheels so the build is the cv2 imported; or run that step on the CPU, or do it in torch on the GPU.",
     ({"url": "https://github.com/opencv/opencv/blob/4.x/modules/core/include/opencv2/core/private.cuda.hpp",
       "what": "throw_no_cuda(): CV_Error(cv::Error::GpuNotSupported, \"The library is compiled without CUDA support\")"},
      {"url": "https://github.com/opencv/opencv-python",
       "what": "the opencv-python wheels: prebuilt CPU-only packages; other builds are made from source"})),
    # LightGBM's tree learner (src/treelearner/tree_learner.cpp): the GPU / CUDA learners exist only in builds made with
    # them
    ("LightGBM", re.compile(r"(?:GPU|CUDA) Tree Learner was not enabled in this build"),
     "Install a LightGBM built with its GPU learner: `pip install lightgbm --config-settings=cmake.define.USE_GPU=ON` "
     "(the OpenCL learner, needs an OpenCL runtime and Boost), or USE_CUDA=ON for device_type='cuda' on NVIDIA GPUs "
     "(`-DUSE_CUDA=1` when building from source); the PyPI wheels' GPU support differs by release and platform, as its "
     "install guide lists.",
     ({"url": "https://lightgbm.readthedocs.io/en/latest/Installation-Guide.html#build-gpu-version",
       "what": "LightGBM's GPU (OpenCL) and CUDA versions: built with USE_GPU / USE_CUDA"},)),
    ("Faiss", re.compile(r"module 'faiss' has no attribute '(?:StandardGpuResources|index_cpu_to_gpu|GpuIndex\w{0,20})'|"
                         r"FAISS was not compiled with GPU support"),
     "Install Faiss's GPU build in place of faiss-cpu: `conda install -c pytorch -c nvidia faiss-gpu` (or faiss-gpu-cuvs), "
     "or a pip wheel built for your CUDA (faiss-gpu-cu12) after `pip uninstall -y faiss-cpu faiss-gpu`; then check "
     "`faiss.get_num_gpus()`.",
     ({"url": "https://github.com/facebookresearch/faiss/wiki/Troubleshooting",
       "what": "No GPU Faiss: \"module 'faiss' has no attribute 'StandardGpuResources'\" means the CPU build was loaded"},
      {"url": "https://github.com/facebookresearch/faiss/blob/main/INSTALL.md",
       "what": "Faiss's packages: faiss-cpu and faiss-gpu (conda, pytorch channel)"})),
)


def framework_cpu_build(ent, text):
    """Another GPU library (MXNet, XGBoost, OpenCV, Faiss) saying in its own words that the build installed has no
    CUDA: the fix installs that library's CUDA build, never torch."""
    tail = text[-CONTEXT_TAIL:]
    best = None
    for name, rx, fix, sources in _CPU_BUILDS:
        m = last_match(rx, tail)
        if m is not None and (best is None or m.start() > best[1].start()):
            best = (name, m, fix, sources)
    if best is None:
        return None
    name, m, fix, sources = best
    # Horovod is built from source on install: its "CPU build" is a build that found no CUDA/NCCL; another library's CPU
    # build runs, on the CPU (gpu-unused): torch-build is torch's own build
    sig = _sig("framework-cpu-build", "toolchain" if name == "Horovod" else "gpu-unused",
               "{library} is its CPU build: it has no CUDA", 83,
               "{library} says that the build installed was compiled without CUDA: GPU work cannot run in it, whatever the "
               "driver and torch. Its CUDA build is another package (or a build option), installed in its place.",
               fix=fix, causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),),
               areas=("torch",), sources=sources)
    return _match(sig, text, len(text) - len(tail) + m.start(), {"library": name})


# PJRT (the plugin interface jaxlib loads its CUDA backend through) checks the plugin's API version against jaxlib's:
# a CUDA plugin (jax-cuda12-plugin / jax-cuda12-pjrt) of another jax release than the jaxlib installed
_PJRT_MISMATCH = re.compile(r"Mismatched PJRT plugin PJRT API version \((?P<plugin>[\d.]{1,12})\) and framework PJRT API "
                            r"version \(?(?P<framework>[\d.]{1,12})\)?")


def jax_pjrt_plugin_mismatch(ent, text):
    m, at = last_in_tail(_PJRT_MISMATCH, text, "PJRT")
    if m is None:
        return None
    sig = _sig("jax-pjrt-plugin-mismatch", "toolchain",
               "jax's CUDA plugin (PJRT API {plugin}) and jaxlib (PJRT API {framework}) come from different releases", 84,
               "jaxlib loads its CUDA backend as a PJRT plugin (the jax-cuda12-plugin and jax-cuda12-pjrt wheels) and "
               "refuses one built for another PJRT API version: the plugin and jaxlib installed are from different jax "
               "releases (a jaxlib pinned by hand beside a newer plugin, or the reverse).",
               fix="Install jax, jaxlib and the CUDA plugin of one release together: `pip install -U \"jax[cuda12]\"` (or "
                   "`pip install \"jax[cuda12]==X.Y.Z\"` for the jax version you need), removing a jaxlib or plugin pinned "
                   "apart (`pip uninstall -y jaxlib jax-cuda12-plugin jax-cuda12-pjrt` first).",
               causes=(("companion-release", "a companion package of another release than the framework", ()),),
               areas=("torch",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "jax[cuda12] installs jaxlib and the CUDA plugin wheels of the same release"},
                        {"url": "https://github.com/jax-ml/jax/issues/22416",
                         "what": "Mismatched PJRT plugin PJRT API version: a jaxlib and a plugin of different releases"}))
    return _match(sig, text, at, {"plugin": m.group("plugin"), "framework": m.group("framework")})


# TF-TRT's check at import (tensorflow/python/compiler/tensorrt): the TensorRT found is not the one TensorFlow was
# compiled against
_TF_TRT_MISMATCH = re.compile(r"TensorRT mismatch\. Compiled against version (?P<built>[\d.]{3,12}), but loaded "
                              r"(?P<loaded>[\d.]{3,12})")


def tensorrt_version_mismatch(ent, text):
    m, at = last_in_tail(_TF_TRT_MISMATCH, text, "TensorRT mismatch")
    if m is None:
        return None
    sig = _sig("tensorrt-library-version-mismatch", "libraries",
               "the TensorRT loaded is {loaded}; TensorFlow was compiled against TensorRT {built}", 83,
               "TensorFlow's TensorRT integration (TF-TRT) is compiled against one TensorRT version and found another "
               "({loaded}) on the loader's path: engines may fail to build or run.",
               fix="Make the TensorRT {built} libraries (libnvinfer) the ones loaded, with only that TensorRT's folder on "
                   "LD_LIBRARY_PATH (or the matching `tensorrt` pip package), or install the TensorFlow build made for "
                   "TensorRT {loaded} (NVIDIA's TensorFlow containers pair them).",
               causes=(("ld-path", "LD_LIBRARY_PATH holds libraries of another version", ("TE501",)),),
               areas=("libraries",),
               sources=({"url": "https://github.com/tensorflow/tensorrt/issues/85",
                         "what": "maintainer: the TensorRT loaded must be the version TensorFlow was built against"},
                        {"url": "https://www.tensorflow.org/install/source#gpu",
                         "what": "TensorFlow's tested build configurations: the CUDA, cuDNN and TensorRT each release uses"}))
    return _match(sig, text, at, {"built": m.group("built"), "loaded": m.group("loaded")})


# XLA compiles GPU kernels itself and needs two pieces of the CUDA toolkit: libdevice (nvvm/libdevice) and ptxas.  Under
# JAX they come from the nvidia-cuda-nvcc wheel that jax[cuda12] installs (older jaxlib: a CUDA toolkit of its version)
_XLA_PIECES = re.compile(r"Can't find libdevice directory|libdevice not found at|Couldn't find libdevice|"
                         r"Running ptxas --version returned|Couldn't invoke ptxas|ptxas[^\n]{0,40}not found|"
                         r"Can't find ptxas binary")


def jax_xla_compiler_pieces(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if _JAX_TEXT.search(tail) is None or re.search(r"\btensorflow\b(?!/compiler/xla|/stream_executor|/core/platform)",
                                                   tail.replace("external/org_tensorflow", "")):
        return None
    m = last_match(_XLA_PIECES, tail)
    if m is None:
        return None
    sig = _sig("jax-xla-compiler-pieces", "toolchain", "JAX's XLA finds no libdevice / ptxas to compile GPU kernels", 86,
               "XLA, JAX's compiler, builds GPU kernels with two pieces of the CUDA toolkit: libdevice (nvvm/libdevice) "
               "and ptxas. It found them nowhere it looks (the nvidia-cuda-nvcc wheel, XLA_FLAGS's "
               "--xla_gpu_cuda_data_dir, a CUDA toolkit such as /usr/local/cuda of the version jaxlib expects).",
               fix="Install jax with its CUDA wheels, which bring both (`pip install -U \"jax[cuda12]\"`, the "
                   "nvidia-cuda-nvcc-cu12 wheel among them); or, with a CUDA toolkit of jaxlib's CUDA version installed, "
                   "point XLA at it: `export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda-X.Y` (the folder holding "
                   "nvvm/libdevice and bin/ptxas).",
               causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601",)),), areas=("toolchain",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "jax[cuda12] installs the CUDA wheels, nvcc's (ptxas, libdevice) included; "
                                 "--xla_gpu_cuda_data_dir for a local toolkit"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# JAX's check of each CUDA library against the version jaxlib (or its CUDA plugin) was built with (jax_plugins/
# xla_cudaNN/__init__.py _version_check; jax/_src/xla_bridge.py in older releases): "Found <lib> version N, but JAX was
# built against version M, which is newer" and "Outdated <lib> installation found".  cuDNN has its own rule above.
_JAX_LIB_OLD = re.compile(r"Found (?P<lib>cuBLAS|cuSOLVER|cuFFT|cuSPARSE|CUDA|cuPTI|NCCL|nvJitLink|NVRTC) version "
                          r"(?P<found>\d{3,7}), but JAX was built against version (?P<built>\d{3,7})|"
                          r"Outdated (?P<lib2>cuBLAS|cuSOLVER|cuFFT|cuSPARSE|CUDA|cuPTI|NCCL|nvJitLink|NVRTC|cuDNN) "
                          r"installation found")
_JAX_WHEEL = {"cublas": "nvidia-cublas", "cusolver": "nvidia-cusolver", "cufft": "nvidia-cufft",
              "cusparse": "nvidia-cusparse", "cuda": "nvidia-cuda-runtime", "cupti": "nvidia-cuda-cupti",
              "nccl": "nvidia-nccl", "nvjitlink": "nvidia-nvjitlink", "nvrtc": "nvidia-cuda-nvrtc", "cudnn": "nvidia-cudnn"}


def _library_version(number: str | None, lib: str) -> str | None:
    """CUDA libraries' integer versions as JAX prints them: six digits MAJOR*10000+MINOR*100+PATCH (cuBLAS: 120100 ->
    12.1.0), five MAJOR*1000+MINOR*100+PATCH (cuSOLVER 11502 -> 11.5.2, cuSPARSE 12100 -> 12.1.0), and the CUDA
    runtime's MAJOR*1000+MINOR*10 (12020 -> 12.2)."""
    if not number or not number.isdigit():
        return None
    n = int(number)
    if lib == "CUDA":
        major, rest = divmod(n, 1000)
        return f"{major}.{rest // 10}"
    major, rest = divmod(n, 10000) if n >= 100000 else divmod(n, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


def jax_cuda_library_too_old(ent, text):
    m, at = last_in_tail(_JAX_LIB_OLD, text)
    if m is None:
        return None
    lib = m.group("lib") or m.group("lib2")
    if lib == "cuDNN" and _XLA_CUDNN.search(text[-CONTEXT_TAIL:]):
        return None  # the cuDNN rule reads the versions
    found, built = _library_version(m.group("found"), lib), _library_version(m.group("built"), lib)
    wheel = _JAX_WHEEL.get(lib.lower(), "nvidia-*")
    caps = {"library": lib, "found": found, "built": built, "wheel": wheel}
    sig = _sig("jax-cuda-library-too-old", "cudnn" if lib == "cuDNN" else "libraries",
               "JAX found an older {library} ({found|}) than it was built with ({built|})", 84,
               "JAX checks each CUDA library it loads against the version its jaxlib (or CUDA plugin) was built with, "
               "and refuses an older one. The {library} found first is older: a system CUDA or another environment's "
               "library on LD_LIBRARY_PATH (or already loaded by another framework) ahead of the {wheel} wheel that "
               "jax[cudaNN] installs, or an older CUDA package in a conda/Nix environment.",
               fix="Let JAX load the {library} it was built with: `pip install -U \"jax[cuda12]\"` (or jax[cuda13], your "
                   "jaxlib's CUDA major), which brings {wheel}; remove folders with an older {library} from "
                   "LD_LIBRARY_PATH (a system /usr/local/cuda*/lib64, another CUDA upgrade's libraries), or import jax "
                   "before other CUDA frameworks; in a conda or Nix environment, provide that library's newer release.",
               causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version", ("TE501",)),),
               areas=("libraries",), sources=_CUDNN_SOURCES[:1])
    return _match(sig, text, at, caps)


# ggml (llama.cpp, whisper.cpp) prints the CUDA architectures its binary was compiled for ("CUDA : ARCHS = 520,610")
# and each device's compute capability ("Device 0: NVIDIA GeForce RTX 2070 SUPER, compute capability 7.5")
_GGML_ARCHS = re.compile(r"CUDA : ARCHS = (?P<archs>\d{2,4}(?:,\d{2,4}){0,12})")
_GGML_DEVICE = re.compile(r"Device \d{1,2}: (?P<gpu>[^,\n]{2,80}), compute capability (?P<cc>\d{1,2})\.(?P<minor>\d)")


def ggml_binary_archs(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "ARCHS" not in tail:
        return None
    a, d = last_match(_GGML_ARCHS, tail), last_match(_GGML_DEVICE, tail)
    if a is None or d is None:
        return None
    archs = [int(x) for x in a.group("archs").split(",")]
    cc = int(d.group("cc")) * 100 + int(d.group("minor")) * 10
    if cc in archs:
        return None
    caps = {"archs": a.group("archs"), "gpu": d.group("gpu").strip(), "cc": d.group("cc") + "." + d.group("minor"),
            "sm": d.group("cc") + d.group("minor")}
    sig = _sig("ggml-binary-archs", "arch", "the binary was built for CUDA architectures {archs}; the {gpu} is {cc}", 85,
               "ggml's CUDA backend was compiled for the architectures in ARCHS (compute capability x100) and the GPU's "
               "compute capability {cc} is not among them: its kernels have no code for this GPU, so the first CUDA "
               "work fails (the CPU path works).",
               fix="Use a build compiled for compute capability {cc}: build with `cmake -B build -DGGML_CUDA=ON "
                   "-DCMAKE_CUDA_ARCHITECTURES={sm}` (or `native`), or download a release built for it; then "
                   "system_info should list {sm}0 in ARCHS.",
               causes=(), areas=("toolchain",),
               sources=({"url": "https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md#cuda",
                         "what": "ggml's CUDA build: CMAKE_CUDA_ARCHITECTURES selects the GPU architectures compiled"},))
    return _match(sig, text, len(text) - len(tail) + a.start(), caps)


# ollama and ggml naming the backends they loaded: only CPU ones where a GPU was expected
_LLM_CPU_ONLY = re.compile(r"Dynamic LLM libraries \[(?P<libs>[^\]\n]{1,300})\]|load_backend: loaded CPU backend from "
                           r"(?P<path>\S{1,300})")


def llm_runtime_cpu_only(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "backend" not in tail and "Dynamic LLM libraries" not in tail:
        return None
    m = last_match(_LLM_CPU_ONLY, tail)
    if m is None:
        return None
    if m.group("libs") is not None and re.search(r"(?i)cuda|rocm|vulkan", m.group("libs")):
        return None
    if re.search(r"loaded (?:CUDA|ROCm|Vulkan|Metal) backend|using CUDA|CUDA0|found \d{1,2} CUDA devices", tail):
        return None  # a GPU backend loaded too: the CPU one is not the answer
    sig = _sig("llm-runtime-cpu-only", "torch-build", "the LLM runtime has only its CPU backend here", 80,
               "ollama (and ggml-based runtimes) load one backend library per kind of device; only CPU ones were found or "
               "loaded, so the model runs on the CPU whatever the GPU. The build installed has no CUDA backend (a "
               "CPU-only package or a source build without the CUDA toolkit), or its CUDA library sits where it does "
               "not look.",
               fix="Install the CUDA build: ollama's official installer (or, on Arch, the ollama-cuda package; other "
                   "distributions' GPU packages likewise); building from source, have the CUDA toolkit found by the build "
                   "(nvcc on PATH, CUDA_PATH) so the CUDA runner is compiled; then the log should list a CUDA backend.",
               causes=(("wrong-build", "the installed build has no CUDA support", ("TE203",)),), areas=("torch",),
               sources=({"url": "https://github.com/ollama/ollama/blob/main/docs/gpu.md",
                         "what": "ollama's GPU support: NVIDIA GPUs through its CUDA backend"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# DeepSpeed's launcher finding no accelerator to place ranks on
_DS_NO_GPU = re.compile(r"Unable to proceed, no GPU resources available|RuntimeError: no GPU resources available")


def launcher_finds_no_gpu(ent, text):
    m, at = last_in_tail(_DS_NO_GPU, text, "GPU resources")
    if m is None:
        return None
    sig = _sig("launcher-finds-no-gpu", "driver", "the launcher finds no GPU to run on", 82,
               "DeepSpeed's launcher counts the GPUs the process is shown and found none: no NVIDIA driver (or GPU) on "
               "this machine or node, CUDA_VISIBLE_DEVICES set to nothing, or a torch build without CUDA.",
               fix="Check what the process sees: `nvidia-smi` (the driver), `echo $CUDA_VISIBLE_DEVICES` (unset it or "
                   "list the GPUs), and `python -c \"import torch; print(torch.cuda.device_count())\"` (a CUDA build of "
                   "torch); on a cluster, request GPUs for the job. DeepSpeed needs an accelerator for its launcher.",
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver",),
               sources=({"url": "https://www.deepspeed.ai/getting-started/#resource-configuration-single-node",
                         "what": "DeepSpeed's launcher: the GPUs of each node it runs on"},))
    return _match(sig, text, at, {})


# bitsandbytes' CUDA SETUP (0.3x-0.41) detecting a GPU, then loading its CPU library: it found no binary for the CUDA
# it detected (or no CUDA runtime), so its GPU functions are missing
_BNB_GPU = re.compile(r"CUDA SETUP: Highest compute capability among GPUs detected: (?P<cc>\d{1,2}\.\d)")
_BNB_CPU_LIB = re.compile(r"CUDA SETUP: Loading binary \S{0,300}libbitsandbytes_cpu\.(?:so|dll)")


def bitsandbytes_cpu_library_beside_gpu(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "libbitsandbytes_cpu" not in tail:
        return None
    g, c = last_match(_BNB_GPU, tail), last_match(_BNB_CPU_LIB, tail)
    if g is None or c is None:
        return None
    cuda = re.search(r"CUDA SETUP: Detected CUDA version (?P<v>\d{2,3})", tail)
    caps = {"cc": g.group("cc"), "cuda": cuda.group("v") if cuda else None}
    sig = _sig("bitsandbytes-cpu-library-beside-gpu", "toolchain",
               "bitsandbytes loaded its CPU library on a machine with a GPU (compute capability {cc})", 84,
               "bitsandbytes detected the GPU (and CUDA {cuda|}) but loaded libbitsandbytes_cpu: the release installed "
               "has no binary for that CUDA version, or it could not find the CUDA runtime it looks for, so its 8-bit "
               "and 4-bit GPU functions are missing and whatever uses them (QLoRA, 8-bit optimizers) fails.",
               fix="Install a bitsandbytes release with a binary for your CUDA (`pip install -U bitsandbytes`: from 0.43 "
                   "one wheel carries binaries for the CUDA versions torch uses, on Linux and Windows), or point it at the "
                   "CUDA runtime with BNB_CUDA_VERSION and LD_LIBRARY_PATH as its docs say; then `python -m bitsandbytes` "
                   "checks the setup.",
               causes=(), areas=("libraries",),
               sources=({"url": "https://huggingface.co/docs/bitsandbytes/main/en/installation",
                         "what": "bitsandbytes' installation: binaries per CUDA version, BNB_CUDA_VERSION, python -m bitsandbytes"},))
    return _match(sig, text, len(text) - len(tail) + c.start(), caps)


# llama-cpp-python: pip builds it from source, and without CMAKE_ARGS the build is CPU-only
_LLAMA_CPP_PY = re.compile(r"(?i)llama[-_]cpp[-_]python|\bllama_cpp\b|python'?s llama-cpp\b")
_GPU_NOT_USED = re.compile(r"(?i)(?:can ?not|can't|unable to|doesn'?t|does not|not) (?:use|using|utili[sz]e|find|detect)"
                           r"[^\n]{0,20}\b(?:the )?(?:gpu|cuda|vram)|loading [^\n]{0,60}(?:to|into|in) (?:the )?system "
                           r"ram|n_gpu_layers[^\n]{0,80}no effect|\bBLAS = 0\b|offloaded 0/\d{1,4} layers")
_CMAKE_ARGS_WINDOWS = re.compile(r"'CMAKE_ARGS' is not recognized as an internal or external command")


def llama_cpp_python_cpu_build(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if not _LLAMA_CPP_PY.search(tail):
        return None
    m = last_match(_CMAKE_ARGS_WINDOWS, tail) or last_match(_GPU_NOT_USED, tail)
    if m is None:
        return None
    windows = _CMAKE_ARGS_WINDOWS.search(tail) is not None
    sig = _sig("llama-cpp-python-cpu-build", "gpu-unused", "llama-cpp-python was built without CUDA: the model runs "
               "on the CPU", 82,
               "pip builds llama-cpp-python from source, and without build options the build has only the CPU backend: "
               "n_gpu_layers then changes nothing and the model loads into system RAM. " +
               ("On Windows the `VAR=value command` form of setting CMAKE_ARGS is a POSIX shell's; cmd and PowerShell "
                "refuse it." if windows else ""),
               fix="Reinstall it with the CUDA backend: in PowerShell `$env:CMAKE_ARGS=\"-DGGML_CUDA=on\"`, in cmd `set "
                   "CMAKE_ARGS=-DGGML_CUDA=on`, in a POSIX shell `CMAKE_ARGS=\"-DGGML_CUDA=on\"` before `pip install "
                   "--force-reinstall --no-cache-dir llama-cpp-python` (the CUDA toolkit's nvcc must be found; releases "
                   "before mid-2024 use -DLLAMA_CUBLAS=on), or install a prebuilt CUDA wheel with `--extra-index-url "
                   "https://abetlen.github.io/llama-cpp-python/whl/cu124` (the cuXYZ of your CUDA). The load log then "
                   "shows layers offloaded to the GPU.",
               areas=("torch",),
               sources=({"url": "https://github.com/abetlen/llama-cpp-python#installation-configuration",
                         "what": "llama-cpp-python: CMAKE_ARGS for the CUDA backend, prebuilt CUDA wheels"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# TensorRT's kernel library (cask) finding no kernels for the GPU's SM: "Assertion failed: Unsupported SM." from
# trtSmToCask, "Unsupported SM: 0x809" (the SM as 0xMmm: major, then minor; four digits are left undecoded)
_TRT_UNSUPPORTED_SM = re.compile(r"Unsupported SM(?::\s{0,2}0x(?P<hex>[0-9a-fA-F]{3,4}))?\b")
_TRT_SUPPORT = {"url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix.html",
                "what": "TensorRT's support matrix: the compute capabilities each release supports (8.5 added 8.9 and "
                        "9.0, 10.8 added Blackwell)"}


def tensorrt_unsupported_sm(ent, text):
    """TensorRT has kernels only for the GPU architectures its release knows: a GPU newer than the release (an
    Ampere under TensorRT 7.0, an Ada under 8.4) is refused at engine build or load."""
    m, at = last_in_tail(_TRT_UNSUPPORTED_SM, text, "Unsupported SM")
    if m is None or not re.search(r"(?i)tensorrt|trtSmToCask|caskUtils|nvinfer|\btrt\b|engine", text[-CONTEXT_TAIL:]):
        return None
    sm = None
    if m.group("hex") and len(m.group("hex")) == 3 and m.group("hex")[0].isdigit():
        # 0xMmm: one digit of major (its reading as major << 8 | minor and as decimal digits agree there)
        v = int(m.group("hex"), 16)
        sm = f"{v >> 8}.{v & 0xff}"
    sig = _sig("tensorrt-unsupported-sm", "arch",
               "this TensorRT has no kernels for the GPU" + (" (compute capability {sm})" if sm else ""), 85,
               "TensorRT ships kernels for the GPU architectures its release supports; the GPU's SM" +
               (" ({sm})" if sm else "") + " is newer than this release knows, so building or loading an engine "
               "stops at \"Unsupported SM\".",
               fix="Upgrade TensorRT to a release whose support matrix lists the GPU's compute capability (TensorRT 8.5 "
                   "or later for Ada 8.9 and Hopper 9.0, 10.8 or later for Blackwell), with the CUDA and cuDNN that "
                   "release needs (`pip install -U tensorrt` for the Python wheels, or NVIDIA's packages), then build "
                   "the engines again with it.",
               areas=("arch",), sources=(_TRT_SUPPORT,))
    return _match(sig, text, at, {"sm": sm})


# numba's driver wrapper finding a library without the driver API's entry points ("driver missing function: cuInit.
# Requires CUDA 8.0 or above."): what it loaded as the driver (NUMBA_CUDA_DRIVER, or the first libcuda the loader found)
# is not the NVIDIA driver's libcuda, or a driver older than CUDA 8
_NUMBA_DRIVER_FN = re.compile(r"driver missing function: (?P<fn>cu\w{2,60})")


def numba_driver_missing_function(ent, text):
    m, at = last_in_tail(_NUMBA_DRIVER_FN, text, "driver missing function")
    if m is None:
        return None
    sig = _sig("numba-driver-missing-function", "env", "the library numba loaded as the CUDA driver lacks {fn}", 82,
               "numba opens the CUDA driver's library (libcuda.so.1, nvcuda.dll), or the file NUMBA_CUDA_DRIVER (older: "
               "NUMBAPRO_CUDA_DRIVER) names, and looks up the driver API in it; {fn} is not there: the file is not the "
               "NVIDIA driver's (a stub, a runtime library, another vendor's), or the driver is older than CUDA 8.",
               fix="Unset NUMBA_CUDA_DRIVER and NUMBAPRO_CUDA_DRIVER (or point them at the driver's own library: "
                   "libcuda.so.1 from `ldconfig -p | grep libcuda`, C:\\Windows\\System32\\nvcuda.dll), keep the "
                   "toolkit's stubs folder off LD_LIBRARY_PATH, and update the NVIDIA driver if `nvidia-smi` shows one "
                   "older than CUDA 8's.",
               areas=("driver",),
               sources=({"url": "https://numba.readthedocs.io/en/stable/reference/envvars.html#cuda-gpu-support",
                         "what": "numba's NUMBA_CUDA_DRIVER: the path of the CUDA driver library to load"},))
    return _match(sig, text, at, {"fn": m.group("fn")})
