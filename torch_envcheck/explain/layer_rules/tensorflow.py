"""Layer rules for TensorFlow: no GPU on native Windows, a device list without a GPU, the CUDA libraries its
dso_loader cannot open, its error classes.

    tensorflow_windows_native  TF >= 2.11 on Windows without a GPU     -> no native-Windows GPU builds: WSL 2
    tensorflow_missing_cuda_runtime  TensorFlow lists several libraries it cannot open -> the CUDA of the first
                     runtime it wanted (cudart64_101.dll: CUDA 10.1)
    tensorflow_libcuda_not_found  "was unable to find libcuda.so DSO loaded into this program" -> the driver's
                     compute library (a container's or WSL's way to it)
    xla_registration_notices  XLA's "Unable to register cuDNN factory ... already been registered" and "computation
                     placer already registered" alone -> not-environment: notices, not the failure
    tensorflow_self_check_dll  TF 1.x's "Could not find 'cudart64_90.dll'. TensorFlow requires that this DLL be
                     installed" -> the CUDA release the number names, or the TensorFlow for the CUDA installed
    dnn_library_init_failed  StreamExecutor's "DNN library initialization failed" without the version line above it
                     -> cudnn: the cuDNN the framework was built with (TensorFlow's tested builds by release; jax's
                     CUDA extra), else the GPU's memory taken before cuDNN started"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import tensorflow as tf_builds
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _TF_TEXT, _context, _match, _sig, last_in_tail
from torch_envcheck.explain.layer_rules.packaging import _TF_DISTS


_TF_VERSION = re.compile(r"(?i)(?:tensor ?flow|\btf)[ \w]{0,12}?(?:version)?[\s:=#-]{0,12}v?2\.(?P<minor>\d{1,2})\.\d{1,2}|"
                         r"\bv2\.(?P<minor2>\d{1,2})\.\d{1,2}-(?:rc\d-)?\d{1,6}-g[0-9a-f]{7,12}\b|"
                         r"(?i:tensor ?flow)[^\n]{0,40}\n(?:[^\n]{0,80}\n){0,3}\s{0,8}v?2\.(?P<minor3>\d{1,2})\.\d{1,2}\b")


_TF_NO_GPU = re.compile(r"(?i)list_physical_devices|list_local_devices|Num GPUs Available:\s{0,3}0|GPU is NOT AVAILABLE|"
                        r"is_build_with_cuda|device_type='CPU'\)\]|not (?:detected|recogni[sz]ed|found|available)|"
                        r"cannot use (?:the )?GPU|no GPU|tensorflow-gpu|GPU could not be (?:recogni[sz]ed|found|detected)|"
                        r"(?:can(?:'|no)?t|could(?:n't| not)|does(?:n't| not)|did(?:n't| not)|won't|unable to) "
                        r"(?:detect|find|see|recogni[sz]e|use|access) (?:my |the |any |a )?(?:NVIDIA )?GPU")


def tensorflow_windows_native(ent, text):
    """TensorFlow 2.11 or newer on native Windows without a GPU: those releases have no GPU build for native
    Windows at all (2.10 was the last); the GPU needs WSL 2 (or the DirectML plugin)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl") or not _context(text, _TF_TEXT + r"|Tensor ?Flow"):
        return None
    tail = text[-CONTEXT_TAIL:]
    minors = [int(m.group("minor") or m.group("minor2") or m.group("minor3")) for m in _TF_VERSION.finditer(tail)]
    no_gpu = _TF_NO_GPU.search(tail)
    if not minors or max(minors) < 11 or no_gpu is None:
        return None
    sig = _sig("tensorflow-windows-native-no-gpu", "tensorflow",
               "TensorFlow 2.{minor} on native Windows has no GPU support (2.10 was the last)", 86,
               "From TensorFlow 2.11 the Windows packages are CPU-only: GPU support on Windows is through WSL 2 "
               "(or the TensorFlow-DirectML plugin). Installing CUDA and cuDNN on Windows does not change that.",
               fix="Run TensorFlow in WSL 2 (`pip install tensorflow[and-cuda]` inside it), or stay on native Windows with "
                   "tensorflow<2.11 (2.10 with CUDA 11.2 and cuDNN 8.1), or use the DirectML plugin.",
               areas=("tensorflow", "platform"),
               sources=({"url": "https://www.tensorflow.org/install/pip#windows-native",
                         "what": "TensorFlow 2.10 was the last release that supported GPU on native Windows"},))
    return _match(sig, text, len(text) - len(tail) + no_gpu.start(), {"minor": max(minors)})


# TensorFlow's own device listing that comes back without a GPU: an empty list, a CPU-only list, a count of 0
_TF_LISTS_NO_GPU = re.compile(r"(?i)list_physical_devices\(\s{0,2}['\"]GPU['\"]\s{0,2}\)|list_local_devices\(\)|"
                              r"Num GPUs Available:\s{0,3}0\b|is_gpu_available\(\)|gpu_device_name\(\)")


def tensorflow_sees_no_gpu(ent, text):
    """TensorFlow asked for its GPUs and the text shows none, without a more specific error: the answer is the
    build for the platform (knowledge/tensorflow.py): native Windows has no GPU build after 2.10 (WSL 2, or
    tensorflow<2.11); on Linux and WSL 2 the CUDA libraries come with `tensorflow[and-cuda]` from 2.14, and an older
    release needs the CUDA/cuDNN of its tested configuration.  Ranked below every TensorFlow error that names a
    library."""
    if not _context(text, _TF_TEXT + r"|Tensor ?Flow"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TF_LISTS_NO_GPU, tail)
    if m is None or re.search(r"device_type=.GPU.|/physical_device:GPU:\d|Num GPUs Available:\s{0,3}[1-9]", tail):
        return None
    last_win = tf_builds.windows_last_gpu_release()
    since = tf_builds.and_cuda_since()
    minors = [int(x.group("minor") or x.group("minor2") or x.group("minor3")) for x in _TF_VERSION.finditer(tail)]
    minors += [int(v.split(".")[1]) for k, v in ent.packages.items() if k in _TF_DISTS and re.match(r"2\.\d", v)]
    caps = {"last_win": last_win, "since": since, "tf": f"2.{max(minors)}" if minors else None}
    windows = ent.platform.get("windows") and not ent.platform.get("wsl")
    linux = ent.platform.get("wsl") or _context(text, r"/usr/|/home/|Ubuntu|Debian|manylinux|linux_x86_64")
    last = tf_builds.build(last_win, "windows") or {}
    caps.update(win_cuda=last.get("cuda"), win_cudnn=last.get("cudnn"))
    win_fix = ("On native Windows TensorFlow's GPU support ended at {last_win}: use WSL 2 (`pip install "
               "tensorflow[and-cuda]` inside it), or tensorflow=={last_win}.* (with CUDA {win_cuda|of its tested "
               "configuration} and cuDNN {win_cudnn|of its tested configuration}), or the DirectML plugin.")
    linux_fix = ("On Linux (and WSL 2) install the GPU build with its CUDA libraries: `pip install tensorflow[and-cuda]` "
                 "(from TensorFlow {since}); an older release needs the CUDA and cuDNN of its tested configuration on "
                 "the library path. Check `tf.sysconfig.get_build_info()` and the log lines TensorFlow prints at import "
                 "(TF_CPP_MIN_LOG_LEVEL=0).")
    fix = win_fix if windows else linux_fix if linux else (win_fix + " " + linux_fix)
    sig = _sig("tensorflow-sees-no-gpu", "tensorflow", "TensorFlow ({tf|version not shown}) lists no GPU", 62,
               "TensorFlow lists its GPUs only when its build for this platform has GPU support and finds the CUDA "
               "libraries it was built with: native Windows builds after {last_win} have none; on Linux the CUDA "
               "libraries are the `and-cuda` extra's (or a CUDA/cuDNN of the tested configuration).",
               fix=fix, areas=("tensorflow",),
               sources=({"url": "https://www.tensorflow.org/install/pip",
                         "what": "TensorFlow's GPU install: tensorflow[and-cuda]; native Windows ends at 2.10"},),
               generic=True)
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# TensorFlow's dso_loader lists every library its build opens; the first it cannot open names the CUDA the build
# was made for (cudart64_101.dll / libcudart.so.10.1: CUDA 10.1), the rest follow from it
_TF_DSO_MISSING = re.compile(r"Could not (?:load dynamic|dlopen) library '(?P<lib>[A-Za-z0-9_.-]{1,60})'")


def _cuda_of_soname(lib: str) -> str | None:
    m = re.match(r"(?:lib)?cudart(?:64_(?P<dll>\d{2,3})\.dll|\.so\.(?P<so>\d{1,2}(?:\.\d{1,2})?))", lib)
    if not m:
        return None
    if m.group("dll"):
        d = m.group("dll")
        return f"{d[:-1]}.{d[-1]}" if len(d) == 3 else f"{d}"
    return m.group("so")


def tensorflow_missing_cuda_runtime(ent, text):
    """TensorFlow cannot open the CUDA runtime its build was linked for: that library's soname says which CUDA, and
    the fix is that CUDA's libraries (or a TensorFlow built for the CUDA installed), not the last library listed."""
    tail = text[-CONTEXT_TAIL:]
    first, libs = None, set()
    for m in _TF_DSO_MISSING.finditer(tail):
        libs.add(m.group("lib"))
        if first is None and _cuda_of_soname(m.group("lib")):
            first = m
    if first is None or len(libs) < 2:
        return None  # one library: the catalogue's sentence on its line says it
    lib = first.group("lib")
    cuda = _cuda_of_soname(lib)
    sig = _sig("tensorflow-cuda-runtime-missing", "tensorflow",
               "TensorFlow cannot open {lib}: it was built for CUDA {cuda}", 77,
               "TensorFlow's GPU support opens the CUDA libraries of the CUDA version it was built for, by exact name; "
               "{lib} is CUDA {cuda}'s runtime and the loader does not find it, so the GPU is not used (the other "
               "libraries it lists are that same CUDA's).",
               fix="Install CUDA {cuda} (its runtime, cuBLAS, cuFFT, cuSOLVER, cuSPARSE, and the cuDNN for it) and put its "
                   "bin folder on PATH (Windows) or its lib64 on LD_LIBRARY_PATH (Linux), or install the TensorFlow release "
                   "built for the CUDA you have (TensorFlow's tested build configurations). On Linux/WSL 2 `pip install "
                   "'tensorflow[and-cuda]'` brings its own; on native Windows TensorFlow 2.10 was the last GPU release.",
               areas=("tensorflow",), sources=({"url": "https://www.tensorflow.org/install/source#gpu",
                                                "what": "TensorFlow's tested build configurations: CUDA per release"},))
    return _match(sig, text, len(text) - len(tail) + first.start(), {"lib": lib, "cuda": cuda})


# TensorFlow's error classes (tf.errors, one per status code of its error_codes.proto) say which layer failed when the
# message line itself is cut: RESOURCE_EXHAUSTED with "OOM when allocating" is the workload's memory; UNIMPLEMENTED at
# a convolution (or pooling, batch-norm) node on the GPU is the DNN library (cuDNN) that is missing or older than the
# one TensorFlow was built with ("DNN library is not found").
_TF_CLASS = re.compile(r"\b(?P<cls>ResourceExhaustedError|UnimplementedError)\b")


_TF_OOM = re.compile(r"OOM when allocating tensor")


_TF_DNN_NODE = re.compile(r"(?i)node '?[\w/.-]{0,200}?(?:conv[123]d|conv[123]d_?transpose|depthwise|max_?pool|avg_?pool|"
                          r"fused_?batch_?norm|cudnn\w{0,20}|lstm|gru)\w{0,40}'?|DNN library")


_TF_ERRORS_SRC = {"url": "https://www.tensorflow.org/api_docs/python/tf/errors",
                  "what": "TensorFlow's error classes: ResourceExhaustedError (e.g. out of memory), UnimplementedError "
                          "(an operation not supported or not enabled here)"}


def tensorflow_error_class(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TF_CLASS, tail)
    if m is None or not (_context(text, _TF_TEXT) or "errors_impl" in tail or "Graph execution error" in tail):
        return None
    at = len(text) - len(tail) + m.start()
    if m.group("cls") == "ResourceExhaustedError" and _TF_OOM.search(tail):
        sig = _sig("tensorflow-out-of-memory", "not-environment",
                   "TensorFlow ran out of device memory: not an environment problem", 52,
                   "ResourceExhaustedError with \"OOM when allocating tensor\" is TensorFlow's out-of-memory: the "
                   "model, batch or another process's use does not fit the device's memory. The installation is fine.",
                   look_at="Lower the batch size (or the input/sequence size), use mixed precision, let TensorFlow grow "
                           "its memory instead of taking it all (tf.config.experimental.set_memory_growth), and check "
                           "other processes on the GPU in nvidia-smi; nothing needs installing.",
                   sources=(_TF_ERRORS_SRC,))
        return _match(sig, text, at, {})
    if m.group("cls") == "UnimplementedError" and _TF_DNN_NODE.search(tail):
        sig = _sig("tensorflow-dnn-unimplemented", "cudnn",
                   "TensorFlow could not run a convolution-type op on the GPU: its DNN library (cuDNN) is missing", 74,
                   "UnimplementedError at a convolution, pooling, normalisation or RNN node is TensorFlow finding no DNN "
                   "library for the GPU (\"DNN library is not found\"): cuDNN is not installed, not on the library path, "
                   "or older than the cuDNN this TensorFlow was built with.",
                   fix="Install the cuDNN this TensorFlow was built with, or newer within its major (Linux: `pip install "
                       "\"tensorflow[and-cuda]\"` pins nvidia-cudnn; conda: the cudnn package of the tested configuration; "
                       "Windows: TensorFlow 2.10 with cuDNN 8.1), and keep it first on the library path.",
                   causes=(), areas=("tensorflow", "libraries"), sources=(_TF_ERRORS_SRC,))
        return _match(sig, text, at, {})
    return None


# TensorRT's libraries (libnvinfer, libnvinfer_plugin; nvinfer*.dll) are opened at import only for TF-TRT, TensorFlow's
# optional TensorRT integration: when they are the only ones dso_loader cannot open, TensorFlow warns ("TF-TRT
# Warning: Cannot dlopen some TensorRT libraries. If you would like to use Nvidia GPU with TensorRT, please make sure
# the missing libraries mentioned above are installed properly", tensorflow/compiler/tf2tensorrt/utils/py_utils.cc)
# and runs, on the GPU too.
_TRT_WARNING = re.compile(r"Cannot dlopen some TensorRT\b")
_TRT_USED = re.compile(r"tf2tensorrt/stub|getInferLibVersion|\bF tensorflow/compiler/tf2tensorrt|TrtGraphConverter|"
                       r"trt_convert")
_TENSORRT_LIB = re.compile(r"^(?:lib)?nvinfer(?:_plugin)?(?:[._\d]|64|\.dll|\.so|$)", re.IGNORECASE)


def tensorflow_optional_tensorrt(ent, text):
    """TensorFlow's import that cannot open TensorRT's libraries, and only those, and says it goes on without them: a
    warning about an optional part (TF-TRT), not a broken installation; nothing to install unless the program uses
    TF-TRT (then TensorRT of the major in the soname is what it needs, the catalogue's answer)."""
    tail = text[-CONTEXT_TAIL:]
    misses = list(_TF_DSO_MISSING.finditer(tail))
    if not misses or not all(_TENSORRT_LIB.match(m.group("lib")) for m in misses):
        return None
    # TensorFlow's own word that it goes on without them, and nothing of TF-TRT failing after it (its stub's fatal
    # "getInferLibVersion symbol not found": the program does use TensorRT)
    if not _TRT_WARNING.search(tail) or _TRT_USED.search(tail):
        return None
    sig = _sig("tensorflow-tensorrt-optional", "not-environment", "TensorFlow's warning that TensorRT (optional, for "
               "TF-TRT) is not installed", 78,
               "TensorFlow tries to open TensorRT's libraries ({lib}) when it starts, for TF-TRT, its optional TensorRT "
               "integration; when they are absent it logs a warning and runs normally, on the GPU too. These lines are "
               "not the error: look further down the log for the one that stopped the program.",
               look_at="This warning is harmless unless the program uses TF-TRT (tf.experimental.tensorrt): nothing to "
                       "install for it. Look for the error after it in the log.",
               sources=({"url": "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/tf2tensorrt/"
                                "utils/py_utils.cc", "what": "TF-TRT Warning: Cannot dlopen some TensorRT libraries"},
                        {"url": "https://docs.nvidia.com/deeplearning/frameworks/tf-trt-user-guide/index.html",
                         "what": "TF-TRT: TensorRT inside TensorFlow, optional"}))
    return _match(sig, text, len(text) - len(tail) + misses[0].start(), {"lib": misses[0].group("lib")})


# TensorFlow's stream executor reports the driver's libcuda by its own words when it cannot find it at all (before
# any dlopen error is printed): "libcuda reported version is: Not found: was unable to find libcuda.so DSO loaded
# into this program"; libcuda comes only with the NVIDIA driver (Debian/Ubuntu split it into libcuda1-NNN /
# libnvidia-compute-NNN packages)
_TF_LIBCUDA_NOT_FOUND = re.compile(r"was unable to find libcuda\.so DSO loaded into this program")


def tensorflow_libcuda_not_found(ent, text):
    m, at = last_in_tail(_TF_LIBCUDA_NOT_FOUND, text)
    if m is None:
        return None
    container = ent.platform.get("container") or _context(text, r"docker run|/\.dockerenv|nvidia-docker")
    wsl = ent.platform.get("wsl")
    sig = _sig("tensorflow-libcuda-not-found", "container" if container else "wsl" if wsl else "driver",
               "TensorFlow finds no libcuda.so: the NVIDIA driver's library is not installed or not visible", 78,
               "libcuda.so is installed by the NVIDIA driver (never by pip or conda); TensorFlow looked for it and "
               "found none loaded" + (": inside a container it is mounted only when the container gets the GPU."
                                      if container else ": under WSL 2 it comes from the Windows driver, in "
                                      "/usr/lib/wsl/lib." if wsl else ": no driver, or a driver installed without its "
                                      "compute library (distributions package it apart)."),
               fix=("Start the container with the GPU (`docker run --gpus all ...`, NVIDIA Container Toolkit on the "
                    "host)." if container else "Keep /usr/lib/wsl/lib on LD_LIBRARY_PATH and update the NVIDIA driver "
                    "on Windows; never install a Linux driver inside WSL." if wsl else
                    "Install the NVIDIA driver with its compute library: Debian/Ubuntu's libnvidia-compute-NNN (older "
                    "releases: libcuda1-NNN) of the same NNN as the driver `nvidia-smi` reports, or the driver package "
                    "that includes it; then `ldconfig -p | grep libcuda` must list libcuda.so.1."),
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver", "tensorflow"),
               sources=(SOURCES_TF_GPU,))
    return _match(sig, text, at, {})


SOURCES_TF_GPU = {"url": "https://www.tensorflow.org/install/pip",
                  "what": "TensorFlow with a GPU: the NVIDIA driver on the host, the CUDA libraries from pip"}


# XLA's stream executor (TensorFlow's and JAX's) registers its cuDNN, cuFFT and cuBLAS plugins, and its computation
# placer, once per process; a second copy (TensorFlow beside JAX or PyTorch's XLA, a library linked twice) logs at
# error level and goes on with the first registration. Maintainers treat them as log noise
# (tensorflow/tensorflow#62075, openxla/xla#20803).
_XLA_NOTICE = re.compile(r"Unable to register cu(?:DNN|FFT|BLAS) factory: Attempting to register factory for plugin "
                         r"cu(?:DNN|FFT|BLAS) when one has already been registered|computation placer already registered"
                         r"|All log messages before absl::InitializeLog\(\) is called are written to STDERR"
                         r"|oneDNN custom operations are on"
                         r"|successful NUMA node read from SysFS had negative value")
# what a failure looks like after the notices: an exception, a crash, another error line
_FAILURE_AFTER = re.compile(r"(?i)Traceback|\w(?:Error|Exception)\b:|Segmentation fault|core dumped|Aborted|Killed\b|"
                            r"\bF\d{4} |Check failed|\berror:|failed\b|cannot\b|could not\b|not found|no (?:GPU|CUDA)")


def xla_registration_notices(ent, text):
    """A text made only of XLA's start-up notices (a plugin factory or the computation placer registered twice, absl's
    logging note, oneDNN's and NUMA's notes): not a failure, nothing to install; the failure, if any, is elsewhere."""
    tail = text[-CONTEXT_TAIL:]
    if "already registered" not in tail and "already been registered" not in tail:
        return None
    notices = list(_XLA_NOTICE.finditer(tail))
    if not notices:
        return None
    rest = _XLA_NOTICE.sub("", tail)
    if _FAILURE_AFTER.search(rest):
        return None
    sig = _sig("xla-plugin-registered-twice", "not-environment",
               "XLA's start-up notices (a plugin registered twice): not an error", 78,
               "TensorFlow's and JAX's XLA register their cuDNN, cuFFT and cuBLAS plugins and the computation placer "
               "once per process; when a second copy tries again (TensorFlow and JAX, or another XLA user, in one "
               "process) it logs these lines, at error level, and keeps the first registration. The GPU still works; "
               "the lines say nothing about the installation.",
               look_at="Nothing to install or change for these lines. If the program failed, its error is another "
                       "line of the log (an exception, a crash, \"could not\"/\"failed\"): explain that one.",
               sources=({"url": "https://github.com/tensorflow/tensorflow/issues/62075",
                         "what": "cuDNN, cuFFT and cuBLAS factory registration messages at TensorFlow's start"},
                        {"url": "https://github.com/openxla/xla/issues/20803",
                         "what": "XLA's plugin registry: registering a factory twice logs and keeps the first"}))
    return _match(sig, text, len(text) - len(tail) + notices[0].start(), {})


# TensorFlow 1.x on Windows checks its CUDA DLLs at import (tensorflow/python/platform/self_check.py) and names the one
# it wants, whose number is the CUDA release it was built against (cudart64_90.dll: CUDA 9.0, cudart64_100.dll: 10.0)
_TF_SELF_CHECK = re.compile(r"Could not find '(?P<dll>(?P<lib>cudart|cudnn|cublas|cufft|curand|cusolver)64_(?P<num>\d{1,3})"
                            r"\.dll)'\. TensorFlow requires that this DLL be installed")


def tensorflow_self_check_dll(ent, text):
    m, at = last_in_tail(_TF_SELF_CHECK, text, "TensorFlow requires that this DLL")
    if m is None:
        return None
    num = m.group("num")
    lib = m.group("lib")
    version = (f"{num[:-1]}.{num[-1]}" if len(num) >= 2 else num) if lib != "cudnn" else num
    what = f"CUDA {version}" if lib != "cudnn" else f"cuDNN {version}"
    sig = _sig("tensorflow-self-check-dll", "tensorflow", "TensorFlow was built for {what} and cannot find {dll}", 84,
               "TensorFlow's import checks for the CUDA libraries it was built against and names the one missing: "
               "{dll}, from {what}. The CUDA installed (if any) is another release, or its bin folder is not on PATH.",
               fix="Install {what} (the toolkit's bin folder on PATH, where {dll} lives) to match this TensorFlow, or "
                   "install the TensorFlow release built for the CUDA you have (TensorFlow's tested build configurations "
                   "list the CUDA and cuDNN of each); TensorFlow 2.11 and newer have no GPU support on native Windows "
                   "(use WSL 2).",
               areas=("tensorflow",),
               sources=({"url": "https://www.tensorflow.org/install/source_windows#gpu",
                         "what": "TensorFlow's tested build configurations on Windows: CUDA and cuDNN per release"},))
    return _match(sig, text, at, {"dll": m.group("dll"), "what": what})


# StreamExecutor (TensorFlow's, and XLA's under JAX) fails a cuDNN handle with "DNN library initialization failed.
# Look at the errors above for more details." (stream_executor/cuda/cuda_dnn.cc); the line above it says why (the
# loaded cuDNN older than the one built with, or cudnnCreate failing for memory), and a paste often drops it
_DNN_INIT = re.compile(r"DNN library initialization failed")
_CUDNN_VERSION_LINE = re.compile(r"Loaded runtime CuDNN library")
_JAX_TEXT = re.compile(r"\bjax(?:lib)?\b|XlaRuntimeError")
_TF_MARKERS = re.compile(r"\[\[\{\{node |Op:__inference_|(?i:tensorflow|keras)")


def _tf_cudnn_spans(rows: list) -> str:
    """TensorFlow releases grouped by the cuDNN each was built with, newest first: "2.18-2.21: cuDNN 9.3"."""
    spans: list = []
    for r in rows:
        if not r.get("cudnn"):
            continue
        if spans and spans[-1][2] == r["cudnn"]:
            spans[-1][1] = r["tensorflow"]
        else:
            spans.append([r["tensorflow"], r["tensorflow"], r["cudnn"]])
    return "; ".join(f"{a}{'' if a == b else '-' + b}: cuDNN {c}" for a, b, c in reversed(spans[-3:]))


def dnn_library_init_failed(ent, text):
    m, at = last_in_tail(_DNN_INIT, text, "DNN library initialization failed")
    if m is None or _CUDNN_VERSION_LINE.search(text[-CONTEXT_TAIL:]):
        return None
    tail = text[-CONTEXT_TAIL:]
    jax = bool(_JAX_TEXT.search(tail)) and not _TF_MARKERS.search(tail)
    minors = [int(x.group("minor") or x.group("minor2") or x.group("minor3")) for x in _TF_VERSION.finditer(tail)]
    row = tf_builds.build(f"2.{minors[-1]}") if minors and not jax else None
    if jax:
        how = ("Install the cuDNN jaxlib was built with, or newer in its major: `pip install -U \"jax[cuda12]\"` (or "
               "jax[cuda13]) brings the nvidia-cudnn wheel it needs")
    else:
        built = (f"TensorFlow {row['tensorflow']}: cuDNN {row['cudnn']}" if row and row.get("cudnn") else
                 "TensorFlow's tested builds: " + _tf_cudnn_spans(tf_builds.releases("linux")))
        how = ("Install the cuDNN this TensorFlow was built with, or newer in its major (" + built + "): `pip install "
               "\"tensorflow[and-cuda]\"` pins it (nvidia-cudnn-cu12)")
    sig = _sig("dnn-library-init-failed", "cudnn",
               "the framework could not start cuDNN (\"DNN library initialization failed\")", 76,
               "StreamExecutor, the GPU layer of " + ("JAX's XLA" if jax else "TensorFlow") + ", could not create its "
               "cuDNN handle. The line it refers to (\"errors above\") names the cause: most often the cuDNN loaded is "
               "older than the one the framework was built with (\"Loaded runtime CuDNN library: X but source was "
               "compiled with: Y\"), else cuDNN had no GPU memory left to start in.",
               fix=how + ", and keep an older cuDNN (a system or conda copy) off LD_LIBRARY_PATH; if the versions "
                   "already match, free the GPU's memory for it (another process in nvidia-smi; TensorFlow: "
                   "tf.config.experimental.set_memory_growth, XLA: XLA_PYTHON_CLIENT_MEM_FRACTION).",
               causes=(), areas=("tensorflow", "libraries"),
               sources=({"url": "https://www.tensorflow.org/install/source#gpu",
                         "what": "TensorFlow's tested build configurations: the cuDNN of each release"},))
    return _match(sig, text, at, {})


# TensorFlow's conv op when cuDNN's handle could not be created ("Failed to get convolution algorithm. This is
# probably because cuDNN failed to initialize"): a cuDNN other than the one the build expects, or the GPU's memory
# already taken (TensorFlow maps nearly all of it at start unless memory growth is on), which the log above says
_TF_CUDNN_INIT = re.compile(r"Failed to get convolution algorithm\. This is probably because cuDNN failed to initialize")
_TF_GPU_GUIDE = {"url": "https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth",
                 "what": "TensorFlow maps nearly all GPU memory by default; memory growth (TF_FORCE_GPU_ALLOW_GROWTH)"}
_TF_TESTED = {"url": "https://www.tensorflow.org/install/source#gpu",
              "what": "TensorFlow's tested build configurations: the cuDNN and CUDA of each release"}


def tensorflow_cudnn_not_initialised(ent, text):
    m, at = last_in_tail(_TF_CUDNN_INIT, text, "Failed to get convolution algorithm")
    if m is None:
        return None
    sig = _sig("tensorflow-cudnn-not-initialised", "cudnn", "TensorFlow could not start cuDNN for a convolution", 80,
               "TensorFlow asked cuDNN for a convolution algorithm and cuDNN could not start: the cuDNN found is not the "
               "version this TensorFlow was built with (a system CUDA/cuDNN of another release on the library path), "
               "or there was no GPU memory left for cuDNN's workspace because TensorFlow (or another process) had "
               "taken it.",
               fix="Read the lines above it: a \"Loaded runtime CuDNN library: X but source was compiled with: Y\" "
                   "line means install the cuDNN of the release's tested configuration (conda: the tensorflow-gpu "
                   "package with its own cudatoolkit and cudnn, in place of a system CUDA on LD_LIBRARY_PATH); with "
                   "matching versions, turn on memory growth (`export TF_FORCE_GPU_ALLOW_GROWTH=true`, or "
                   "tf.config.experimental.set_memory_growth) and free the GPU memory other processes hold "
                   "(`nvidia-smi`).",
               areas=("tensorflow",), sources=(_TF_TESTED, _TF_GPU_GUIDE))
    return _match(sig, text, at, {})


# TensorBoard 2.x (torch.utils.tensorboard's writer) uses TensorFlow's gfile when TensorFlow is importable; a
# TensorFlow 1.x beside it has no tf.io.gfile.get_filesystem ("tensorflow._api.v1" in the module path says 1.x)
_TF1_GFILE = re.compile(r"module 'tensorflow\._api\.v1\.io\.gfile' has no attribute '(?P<attr>\w{2,40})'")
_TB_SRC = {"url": "https://github.com/tensorflow/tensorboard/blob/master/tensorboard/compat/__init__.py",
           "what": "TensorBoard's compat layer: the installed TensorFlow when importable, its own stub otherwise"}


def tensorboard_with_tensorflow1(ent, text):
    m, at = last_in_tail(_TF1_GFILE, text, "_api.v1")
    if m is None:
        return None
    sig = _sig("tensorboard-with-tensorflow1", "tensorflow",
               "TensorBoard 2 is using an installed TensorFlow 1.x, which lacks gfile.{attr}", 82,
               "TensorBoard (and torch.utils.tensorboard's SummaryWriter through it) uses TensorFlow's file API when "
               "TensorFlow is importable; the one installed is a 1.x release (tensorflow._api.v1), older than that "
               "TensorBoard expects, so gfile.{attr} is missing.",
               fix="If TensorFlow is not needed (torch's SummaryWriter needs only the tensorboard package), uninstall "
                   "it: `pip uninstall tensorflow tensorflow-gpu`; otherwise install a TensorBoard of the TensorFlow 1.x "
                   "release (`pip install \"tensorboard<2\"`), or move to TensorFlow 2.",
               areas=("tensorflow",), sources=(_TB_SRC,))
    return _match(sig, text, at, {"attr": m.group("attr")})
