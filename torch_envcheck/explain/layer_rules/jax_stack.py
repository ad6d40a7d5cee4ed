"""Layer rules for JAX on the GPU, read from jax's own checks and pip's words about its wheels, and XLA's memory error.

    jax_jaxlib_mismatch  jax's check_jaxlib_version ("jaxlib version A is newer than and incompatible with jax version B",
                     "jaxlib is version A, but this version of jax requires version >= B"), a CUDA plugin that cannot be
                     loaded -> one release of jax, jaxlib and its plugin (torch-build: the framework's build)
    pip_extra_not_provided  pip's "X V does not provide the extra 'E'" -> the release that has E is not installable here
                     (jax's CUDA extras: Linux only)
    jaxlib_cuda_version_not_found  pip finding no jaxlib==V+cudaNN.cudnnMM -> the CUDA plugin wheels from PyPI
    xla_out_of_memory    XLA's "Resource exhausted: Out of memory while trying to allocate" -> not-environment
    xla_no_ptx_compiler  XLA's "No PTX compilation provider is available" (no ptxas/nvlink, no NvJitLink) -> the CUDA
                     compiler tools of the framework's CUDA (toolchain; tensorflow under TensorFlow)
    tpu_busy_or_unloadable  JAX/PyTorch-XLA's TPU runtime: libtpu "already in use by another process" -> driver: the
                         process holding /dev/accel*, or a stale /tmp/libtpu_lockfile; the 'tpu' backend failing to
                         open libtpu.so -> libraries: jax[tpu] (libtpu) installed for this jax
    jax_preallocation_on_colab  Colab's "Your GPU is close to its memory limit" with JAX in the notebook -> env: JAX
                         preallocates 75% of the GPU (XLA_PYTHON_CLIENT_PREALLOCATE / MEM_FRACTION)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_JAX_INSTALL = {"url": "https://docs.jax.dev/en/latest/installation.html",
                "what": "JAX's install: jax[cuda12] brings jaxlib, the CUDA plugin and the nvidia-* wheels of one release; "
                        "NVIDIA GPUs on Linux (x86_64, aarch64); Windows through WSL 2"}
_JAX_VERSION_CHECK = {"url": "https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py",
                      "what": "check_jaxlib_version: jaxlib newer than and incompatible with jax, or older than jax "
                              "requires"}

_JAXLIB_VS_JAX = re.compile(r"jaxlib version (?P<lib>\d[\w.]{0,20}) is newer than and incompatible with jax version "
                            r"(?P<jax>\d[\w.]{0,20})|jaxlib is version (?P<lib2>\d[\w.]{0,20}), but this version of jax "
                            r"requires version >= ?(?P<need>\d[\w.]{0,20})")
# the plugin's own failure: jax's word for it, or the plugin's import of a name this jax lacks
_PLUGIN_FAILED = re.compile(r"Jax plugin configuration error|jax_plugins[/\\]xla_cuda\d{2}[/\\][\s\S]{0,2000}?cannot import "
                            r"name '\w{1,80}' from 'jax")
_LIBRARY_MISSING = re.compile(r"cannot open shared object file|Unable to load cu\w{1,10}|library was not found")


def jax_jaxlib_mismatch(ent, text):
    m, at = last_in_tail(_JAXLIB_VS_JAX, text, "jaxlib")
    if m is None:
        plugin, at = last_in_tail(_PLUGIN_FAILED, text)
        if plugin is None or _LIBRARY_MISSING.search(text[-65536:]):
            # a CUDA library the plugin cannot load is the libraries' rules' answer
            return None
    caps = {}
    if m is not None:
        lib, jax, need = m.group("lib") or m.group("lib2"), m.group("jax"), m.group("need")
        caps = {"lib": lib, "jax": jax, "need": need}
        title = ("jaxlib {lib} is newer than jax {jax}" if jax else "jaxlib {lib} is older than jax needs ({need})")
        why = ("jax checks at import that jaxlib (its compiled half) is of a release it supports: jaxlib {lib} and jax "
               + ("{jax} are of different releases." if jax else "needs jaxlib {need} or newer."))
    else:
        title = "JAX's CUDA plugin could not be loaded"
        why = ("JAX loads its CUDA support from a plugin package (jax-cuda12-plugin with jax-cuda12-pjrt) that must be "
               "of the same release as jax and jaxlib; the plugin failed to import, which is what a plugin of another "
               "release (importing a name this jax does not have) or one without its CUDA libraries does.")
    sig = _sig("jax-jaxlib-versions-differ", "torch-build", title, 84,
               why + " The GPU is then not used, or jax does not import.",
               fix="Install jax, jaxlib and the CUDA plugin of one release, the same version: `pip install -U "
                   "\"jax[cuda12]\"` (Linux; it pins the matching jaxlib, jax-cuda12-plugin and nvidia-* wheels), or pin "
                   "them together (`pip install \"jax==X\" \"jaxlib==X\"`, and for CUDA \"jax[cuda12]==X\"); upgrade jax "
                   "rather than leaving an older one beside a newer jaxlib.",
               areas=("framework",), sources=(_JAX_VERSION_CHECK, _JAX_INSTALL))
    return _match(sig, text, at, caps)


_EXTRA_NOT_PROVIDED = re.compile(r"(?P<pkg>[A-Za-z][\w.-]{0,60}) (?P<ver>\d[\w.+-]{0,30}) does not provide the extra "
                                 r"'(?P<extra>[\w.-]{1,40})'")
_FRAMEWORKS = {"jax": "torch-build", "jaxlib": "torch-build", "torch": "torch-build", "tensorflow": "tensorflow"}


def pip_extra_not_provided(ent, text):
    m, at = last_in_tail(_EXTRA_NOT_PROVIDED, text, "does not provide the extra")
    if m is None:
        return None
    pkg, extra = m.group("pkg").lower(), m.group("extra")
    jax_cuda = pkg in ("jax", "jaxlib") and extra.startswith(("cuda", "rocm", "tpu"))
    sig = _sig("pip-extra-not-provided", _FRAMEWORKS.get(pkg, "env"),
               "pip resolved {pkg} {ver}, which has no extra '{extra}'", 78,
               "pip installs the extra '{extra}' only from a release of {pkg} that declares it; the {pkg} {ver} it chose "
               "does not, so the extra's packages were not installed. It chose that release because the ones that "
               "have the extra offer no wheel for this platform or Python, or the extra has another name in the "
               "installed release." +
               (" JAX's CUDA extras (cuda12, formerly cuda12_pip) exist for Linux only: on Windows and macOS pip falls "
                "back to an old jax without them." if jax_cuda else ""),
               fix=("JAX's CUDA wheels are for Linux (x86_64, aarch64): on Windows run it under WSL 2 (Linux) and "
                    "install there with `pip install -U \"jax[cuda12]\"`; on Linux upgrade pip and install "
                    "`pip install -U \"jax[cuda12]\"` (the extra's current name)." if jax_cuda else
                    "Install a release of {pkg} that has the extra for this platform and Python (its release notes or "
                    "PyPI page list the extras and wheels), or use the extra's name in the installed release; `pip "
                    "install -v` shows why newer releases were skipped."),
               areas=("platform",), sources=(_JAX_INSTALL,) if jax_cuda else
               ({"url": "https://packaging.python.org/en/latest/specifications/dependency-specifiers/#extras",
                 "what": "extras: optional dependency sets a release declares"},))
    return _match(sig, text, at, {"pkg": m.group("pkg"), "ver": m.group("ver"), "extra": extra})


_JAXLIB_CUDA_PIN = re.compile(r"(?:Could not find a version that satisfies the requirement|No matching distribution found "
                              r"for) jaxlib==(?P<ver>\d[\w.]{0,20})\+cuda(?P<cuda>\d{2,3})")


def jaxlib_cuda_version_not_found(ent, text):
    m, at = last_in_tail(_JAXLIB_CUDA_PIN, text, "jaxlib==")
    if m is None:
        return None
    sig = _sig("jaxlib-cuda-version-not-found", "torch-build", "pip finds no jaxlib {ver}+cuda{cuda}", 82,
               "The jaxlib+cudaNN.cudnnMM versions are JAX's older way to ship CUDA (a jaxlib per CUDA and cuDNN, from "
               "the jax_cuda_releases page): the list pip prints is what that page offers, and {ver}+cuda{cuda} is not "
               "among it. Current JAX releases keep jaxlib free of CUDA and bring it in plugin wheels from PyPI.",
               fix="Install JAX's CUDA build from PyPI instead of a jaxlib+cuda pin: `pip install -U \"jax[cuda12]\"` "
                   "(Linux; it brings jax, jaxlib, jax-cuda12-plugin and the nvidia-* wheels of one release) and drop "
                   "the find-links page; for an old jax that needs it, pick a version the printed list has.",
               areas=("framework",), sources=(_JAX_INSTALL,))
    return _match(sig, text, at, {"ver": m.group("ver"), "cuda": m.group("cuda")})


_XLA_OOM = re.compile(r"(?:Resource exhausted|RESOURCE_EXHAUSTED): Out\s{0,4}of\s{0,4}memory while trying to allocate "
                      r"(?P<bytes>\d{1,20}) bytes")


def xla_out_of_memory(ent, text):
    m, at = last_in_tail(_XLA_OOM, text)
    if m is None:
        return None
    gib = int(m.group("bytes")) / 2 ** 30
    sig = _sig("xla-out-of-memory", "not-environment", "XLA ran out of GPU memory allocating {size}", 82,
               "XLA (under JAX or TensorFlow) could not allocate {size} on the GPU: the computation needs more memory "
               "than is free. JAX preallocates 75% of the GPU's memory at start by default, and another process may hold "
               "the rest.",
               look_at="Make the computation smaller (batch size, model, sequence length) or free the GPU (nvidia-smi "
                       "lists who holds it). For JAX: XLA_PYTHON_CLIENT_MEM_FRACTION=.9 raises the preallocated share, "
                       "XLA_PYTHON_CLIENT_PREALLOCATE=false allocates on demand; for TensorFlow: "
                       "tf.config.experimental.set_memory_growth. No reinstall changes the memory.",
               areas=("gpu",),
               sources=({"url": "https://docs.jax.dev/en/latest/gpu_memory_allocation.html",
                         "what": "JAX's GPU memory allocation: preallocation, XLA_PYTHON_CLIENT_MEM_FRACTION"},))
    return _match(sig, text, at, {"size": f"{gib:.1f} GiB" if gib >= 0.1 else f"{int(m.group('bytes'))} bytes"})


# XLA (JAX, TensorFlow) compiles the PTX it generates with ptxas/nvlink from a CUDA toolkit or the nvidia-cuda-nvcc
# wheel, or with the NvJitLink/NvPtxCompiler libraries; none found (xla/stream_executor/cuda/compilation_provider)
_NO_PTX_PROVIDER = re.compile(r"No PTX compilation provider is available")


def xla_no_ptx_compiler(ent, text):
    m, at = last_in_tail(_NO_PTX_PROVIDER, text, "No PTX compilation provider")
    if m is None:
        return None
    tf = re.search(r"(?i)tensorflow|\btf\.", text[-20000:]) is not None
    sig = _sig("xla-no-ptx-compiler", "tensorflow" if tf else "toolchain",
               "XLA finds no PTX compiler (ptxas/nvlink, or the NvJitLink library)", 83,
               "XLA generates PTX for each kernel it compiles and needs a PTX compiler to turn it into GPU code: the "
               "ptxas and nvlink executables of a CUDA toolkit (or of the nvidia-cuda-nvcc wheel), or the NvJitLink and "
               "NvPtxCompiler libraries. None of them was found in this environment.",
               fix=("Install TensorFlow with its CUDA packages, which bring ptxas (`pip install -U "
                    "\"tensorflow[and-cuda]\"`), or put a CUDA toolkit's bin folder (ptxas) on PATH and point "
                    "XLA_FLAGS=--xla_gpu_cuda_data_dir at the toolkit." if tf else
                    "Install the CUDA compiler tools of the framework's CUDA: for JAX `pip install -U \"jax[cuda12]\"` "
                    "(it brings nvidia-cuda-nvcc-cu12 with ptxas and nvlink), or a CUDA toolkit's bin folder on PATH "
                    "(XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda); the flag "
                    "--xla_gpu_unsafe_fallback_to_driver_on_ptxas_not_found lets the driver compile instead, at your "
                    "own risk."),
               areas=("toolchain",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "JAX's CUDA wheels: the nvidia-cuda-nvcc package brings ptxas"},))
    return _match(sig, text, at, {})


# libtpu takes the TPU chips (/dev/accel*, /dev/vfio) for one process and records it in /tmp/libtpu_lockfile
_TPU_BUSY = re.compile(r"libtpu\.so already in used? by another process")
_TPU_LIB = re.compile(r"Unable to initialize backend 'tpu':[^\n]{0,80}?Failed to open [^\n]{0,200}?libtpu\.so")
_JAX_TPU = {"url": "https://docs.jax.dev/en/latest/installation.html#google-cloud-tpu",
            "what": "JAX on Cloud TPU: pip install 'jax[tpu]' (libtpu), one process per TPU VM"}


def tpu_busy_or_unloadable(ent, text):
    m, at = last_in_tail(_TPU_BUSY, text, "libtpu.so already in use")
    if m is not None:
        sig = _sig("tpu-in-use", "driver", "the TPU is held by another process", 84,
                   "libtpu gives the TPU chips to one process at a time (and records it in /tmp/libtpu_lockfile); another "
                   "process has them: a notebook kernel or script still running, another user's job, or a crashed one whose "
                   "lock file stayed.",
                   fix="Find and stop the holder: `sudo lsof -w /dev/accel0` (or /dev/vfio/*), kill that process; if none "
                       "is left, remove the stale lock (`sudo rm -f /tmp/libtpu_lockfile`) and start again.",
                   areas=("driver",), sources=(_JAX_TPU,))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_TPU_LIB, text, "libtpu.so")
    if m is None:
        return None
    sig = _sig("libtpu-unloadable", "libraries", "JAX's TPU backend cannot load libtpu", 82,
               "jax's 'tpu' backend loads libtpu.so from the libtpu package that `jax[tpu]` installs; it is missing, or of "
               "a release this jax cannot use.",
               fix="Install JAX for TPU as one set: `pip install -U \"jax[tpu]\"` (it pins the libtpu this jax needs), in "
                   "the Python the program runs, on a TPU VM.",
               areas=("libraries",), sources=(_JAX_TPU,))
    return _match(sig, text, at, {})


# Colab's notebook warning when the processes hold most of the GPU's memory; JAX takes 75% of it at its first use
_COLAB_GPU_MEM = re.compile(r"GPU memory usage is close to the limit|Your GPU is close to its memory limit")
_JAX_MEM = {"url": "https://docs.jax.dev/en/latest/gpu_memory_allocation.html",
            "what": "JAX preallocates 75% of the GPU's memory: XLA_PYTHON_CLIENT_PREALLOCATE, XLA_PYTHON_CLIENT_MEM_FRACTION"}


def jax_preallocation_on_colab(ent, text):
    m, at = last_in_tail(_COLAB_GPU_MEM, text, "memory limit")
    if m is None:
        return None
    jax = re.search(r"(?i)\bjax\b|jaxlib|\bxla\b|flax|numpyro|jax[-_]md", text) is not None
    sig = _sig("jax-preallocation" if jax else "notebook-gpu-memory-reserved", "env",
               "JAX has taken most of the GPU's memory at start" if jax else
               "the notebook's processes hold most of the GPU's memory", 80,
               ("JAX reserves 75% of the GPU's memory the first time it runs something there (its allocator's "
                "preallocation), so the notebook reports the GPU nearly full even when the program uses little; other "
                "libraries in the same process then find no room." if jax else
                "Colab counts the memory the runtime's processes hold, not what the program uses: JAX reserves 75% of "
                "the GPU at its first use and TensorFlow nearly all of it unless memory growth is on, and torch keeps "
                "freed blocks cached; another notebook's session on the same GPU counts too."),
               fix="Before the first `import jax`, set `os.environ['XLA_PYTHON_CLIENT_PREALLOCATE'] = 'false'` (or "
                   "XLA_PYTHON_CLIENT_MEM_FRACTION to a smaller share, e.g. '.5'); for TensorFlow, "
                   "TF_FORCE_GPU_ALLOW_GROWTH=true; then restart the runtime so it takes effect, and end the other "
                   "sessions Colab lists (with torch, `torch.cuda.empty_cache()` returns its cached blocks).",
               areas=("env",), sources=(_JAX_MEM,))
    return _match(sig, text, at, {})
