"""Layer rules for the frameworks' own families of packages and checks: Keras 3 against TensorFlow and Transformers,
TensorFlow's compiled add-on packages, TensorFlow's Windows self-check, PaddlePaddle's and MindSpore's own loaders and
checks, and Hyper-V's GPU partitioning.

    keras3_refused       Transformers' "Your currently installed version of Keras is Keras 3, but this is not yet
                         supported" -> env: tf-keras
    keras3_module_missing  "No module named 'keras.src.legacy'" (Keras 3's layout) under Keras 2 -> env: Keras 3 with
                         TensorFlow 2.16+, or the package's release for Keras 2
    tensorflow_addon_symbol  tensorflow_text / tensorflow_io / tensorflow_addons wanting a TensorFlow symbol -> env: the
                         add-on's release of the installed TensorFlow's version
    tensorflow_preload_dll  TensorFlow's self_check preload_check failing on cudart/cudnn (WinError 126) -> tensorflow:
                         the CUDA/cuDNN of that TensorFlow build on PATH
    paddle_third_party_library  Paddle's "The third-party dynamic library (X.so) that Paddle depends on is not configured
                         correctly" on Linux -> cudnn (cuDNN's) or libraries: that CUDA/cuDNN on LD_LIBRARY_PATH
    paddle_cpu_package   Paddle's run_check "Original Error is Not compiled with CUDA" -> torch-build: paddlepaddle-gpu
    mindspore_cuda_mismatch  MindSpore's "MindSpore version X and cuda version Y does not match" -> libraries: the CUDA of
                         its build first on the loader's path
    hyperv_partition_policy  Hyper-V's "not compliant with currently set group policy" for a partitionable GPU -> driver:
                         RequireSecureDeviceAssignment / RequireSupportedDeviceAssignment
    directml_plugin_not_loaded  "tfdml_plugin.dll not found" -> env: tensorflow-cpu 2.10, the plugin's TensorFlow
    tensorflow_kernel_helper_header  a custom op's cuda_/gpu_kernel_helper.h missing -> toolchain: the header of the
                         installed TensorFlow (renamed in 1.14)
    paddle_cudnn_older_than_build  Paddle's "compiled with CUDNN A, but CUDNN version in your machine is B" with B older
                         -> cudnn: cuDNN A or later first on the loader's path, or Paddle's build for B
    lua_module_not_found  Lua's require (Torch7) finding no module -> libraries: the rock that provides it (luarocks
                         install), or the project's folder on LUA_PATH
    cuda_jl_not_initialised  CUDA.jl's "did not successfully initialize" -> driver: nvidia-smi, nvidia_uvm after a
                         suspend, a driver for its runtime
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_KERAS3_REFUSED = re.compile(r"Your currently installed version of Keras is Keras 3, but this is not yet supported")


def keras3_refused(ent, text):
    m, at = last_in_tail(_KERAS3_REFUSED, text, "Keras 3")
    if m is None:
        return None
    sig = _sig("keras3-refused-by-transformers", "env", "Transformers' TensorFlow models need Keras 2 (tf-keras); Keras 3 "
               "is installed", 88,
               "TensorFlow 2.16 and later install Keras 3 as `keras`; Transformers' TensorFlow code is written for Keras "
               "2's API and refuses Keras 3. The tf-keras package is Keras 2 under another name, which Transformers "
               "uses when it is present.",
               fix="`pip install tf-keras` (the release matching TensorFlow's minor, e.g. tf-keras 2.16 for "
                   "tensorflow 2.16) in the same environment; or use the PyTorch classes of the model, which need no "
                   "Keras.",
               areas=("tensorflow",),
               sources=({"url": "https://github.com/huggingface/transformers/blob/main/src/transformers/"
                                "modeling_tf_utils.py",
                         "what": "Transformers refuses Keras 3 and names tf-keras"},
                        {"url": "https://keras.io/getting_started/",
                         "what": "Keras 3 with TensorFlow 2.16+; tf-keras for Keras 2 code"}))
    return _match(sig, text, at, {})


_KERAS3_MODULE = re.compile(r"No module named '(?P<mod>keras\.src\.(?:legacy|backend|ops|saving|trainers|layers\.core"
                            r"|utils\.module_utils)[\w.]{0,60})'")


def keras3_module_missing(ent, text):
    m, at = last_in_tail(_KERAS3_MODULE, text, "keras.src")
    if m is None:
        return None
    sig = _sig("keras3-module-missing", "env", "{mod} is Keras 3's; the installed Keras is older", 80,
               "keras.src.legacy and its siblings are modules of Keras 3; the code (or a package it imports) was "
               "written for Keras 3, and the Keras installed is a 2.x release (the one TensorFlow up to 2.15 brings).",
               fix="Install Keras 3 with a TensorFlow that supports it: `pip install -U \"tensorflow>=2.16\" "
                   "\"keras>=3\"`; or install the package's release made for Keras 2.",
               areas=("tensorflow",),
               sources=({"url": "https://keras.io/getting_started/",
                         "what": "Keras 3 with TensorFlow 2.16 and later"},))
    return _match(sig, text, at, {"mod": m.group("mod")})


# TensorFlow's add-on packages with compiled ops built against one TensorFlow release each
_TF_ADDON_SYMBOL = re.compile(r"(?P<file>[^\s:'\"]{0,300}[\\/](?P<pkg>tensorflow_text|tensorflow_io|tensorflow_addons|"
                              r"tensorflow_io_gcs_filesystem|tensorflow_decision_forests|tensorflow_recommenders_addons)"
                              r"[\\/][^\s:'\"]{1,200}\.so)[^\n]{0,40}undefined symbol: (?P<sym>_ZN\w{0,20}"
                              r"(?:tensorflow|tflite|tsl)\w{0,300})")


def tensorflow_addon_symbol(ent, text):
    m, at = last_in_tail(_TF_ADDON_SYMBOL, text, "undefined symbol")
    if m is None:
        return None
    dist = m.group("pkg").replace("_", "-")
    sig = _sig("tensorflow-addon-for-another-tensorflow", "toolchain",
               "{dist} was built for another TensorFlow than the one installed", 86,
               "{dist}'s compiled ops call TensorFlow's C++ functions ({sym} is one) and each {dist} release is built "
               "against one TensorFlow release (the same major.minor); the installed TensorFlow is another one, which "
               "does not export that symbol.",
               fix="Install the {dist} release of the installed TensorFlow's version: `pip install \"{dist}==X.Y.*\"` "
                   "for tensorflow X.Y (`python -c \"import tensorflow as tf; print(tf.__version__)\"`), or upgrade "
                   "both together in one command; pin them together where a newer {dist} would pull another "
                   "TensorFlow.",
               areas=("tensorflow",),
               sources=({"url": "https://github.com/tensorflow/text#compatibility",
                         "what": "tensorflow-text: each release matches one TensorFlow release"},))
    return _match(sig, text, at, {"dist": dist, "sym": m.group("sym")[:80]})


# tensorflow/python/platform/self_check.py (Windows builds up to 2.10): preload the CUDA DLLs named in build_info
_TF_PRELOAD = re.compile(r"self_check\.py\"?, line \d{1,5}, in preload_check[\s\S]{0,400}?(?:cudart_dll_name|"
                         r"cudnn_dll_name)[\s\S]{0,600}?(?:WinError 126|OSError)")


def tensorflow_preload_dll(ent, text):
    m, at = last_in_tail(_TF_PRELOAD, text, "preload_check")
    if m is None:
        return None
    cudnn = "cudnn_dll_name" in m.group(0)
    lib = "cuDNN" if cudnn else "the CUDA runtime (cudart64_XX.dll)"
    sig = _sig("tensorflow-preload-cuda-dll", "tensorflow",
               "TensorFlow's Windows GPU build cannot load " + ("cuDNN's DLL" if cudnn else "the CUDA runtime DLL") +
               " it was built with", 86,
               "On Windows, TensorFlow's GPU builds (tensorflow-gpu, and tensorflow up to 2.10) check at import that "
               "the DLLs of the CUDA and cuDNN versions they were built with load; " + lib + " of that version is not "
               "installed or its folder is not on PATH.",
               fix="Install the CUDA and cuDNN versions TensorFlow's tested-build table gives for the installed release "
                   "(2.10: CUDA 11.2 and cuDNN 8.1; conda: `conda install -c conda-forge cudatoolkit=11.2 "
                   "cudnn=8.1.0`) and put their bin folders on PATH; TensorFlow 2.11 and later have no GPU on native "
                   "Windows: use WSL 2 with `pip install tensorflow[and-cuda]`.",
               areas=("tensorflow",),
               sources=({"url": "https://www.tensorflow.org/install/source_windows#gpu",
                         "what": "TensorFlow's tested Windows GPU builds: the CUDA and cuDNN each release needs"},
                        {"url": "https://www.tensorflow.org/install/pip#windows-native",
                         "what": "TensorFlow 2.10 was the last release to support GPU on native Windows"}))
    return _match(sig, text, at, {})


# paddle/phi/backends/dynload/dynamic_loader.cc: the CUDA libraries Paddle opens at run time, by name
_PADDLE_LIB = re.compile(r"The third-party dynamic library \((?P<libs>[^)\n]{1,300})\) that Paddle depends on is not "
                         r"configured correctly\.?\s{0,4}\(error code is (?P<code>[^)\n]{1,200})\)")


def paddle_third_party_library(ent, text):
    m, at = last_in_tail(_PADDLE_LIB, text, "that Paddle depends on")
    if m is None:
        return None
    libs = m.group("libs")
    if re.search(r"(?:lib)?(?:paddle|[a-z_]{2,40}_enc)\w{0,40}\.so", libs) and not re.search(r"cu\w{2,12}|nccl|nvrtc",
                                                                                               libs):
        return None  # a plug-in of Paddle's own (its symbols are another Paddle's): other rules read it
    if ".dll" in libs.lower():
        return None  # on Windows the DLL search path is the layer whoever ships the DLL: loader.py reads it
    cudnn = "cudnn" in libs.lower()
    sig = _sig("paddle-cuda-library-not-loaded", "cudnn" if cudnn else "libraries",
               "PaddlePaddle cannot load {libs}", 84,
               "paddlepaddle-gpu opens the CUDA libraries it was built for at run time ({libs}); the loader could not "
               "open them (error {code}): that CUDA/cuDNN version is not installed, or its folder is not where Paddle "
               "looks (LD_LIBRARY_PATH).",
               fix="Install the CUDA and cuDNN versions of the paddlepaddle-gpu build (`python -c \"import paddle; "
                   "print(paddle.version.cuda(), paddle.version.cudnn())\"`; its install page names them), or the "
                   "paddlepaddle-gpu build for the CUDA you have, and put their library folder on LD_LIBRARY_PATH "
                   "(e.g. /usr/local/cuda/lib64 and cuDNN's lib).",
               areas=("libraries",),
               sources=({"url": "https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html",
                         "what": "paddlepaddle-gpu: the CUDA and cuDNN each build needs"},))
    return _match(sig, text, at, {"libs": libs, "code": m.group("code")})


_PADDLE_CPU = re.compile(r"You are using GPU version Paddle(?:Paddle)?, but there is no GPU detected[\s\S]{0,300}?"
                         r"Original Error is (?:Not compiled with CUDA|[^\n]{0,40}CPU)")


def paddle_cpu_package(ent, text):
    m, at = last_in_tail(_PADDLE_CPU, text, "Not compiled with CUDA")
    if m is None:
        return None
    sig = _sig("paddle-cpu-package", "torch-build", "the PaddlePaddle installed is built without CUDA", 86,
               "paddle.utils.run_check() tried the GPU and Paddle's core answered that it was not compiled with CUDA: "
               "the installed package is the CPU one (paddlepaddle), whatever the message calls it.",
               fix="Replace it with the GPU build for your CUDA: `pip uninstall -y paddlepaddle` and then `pip install "
                   "paddlepaddle-gpu==<version> -i <the index its install page gives for your CUDA>`; then "
                   "`python -c \"import paddle; paddle.utils.run_check()\"`.",
               areas=("framework",),
               sources=({"url": "https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html",
                         "what": "paddlepaddle (CPU) and paddlepaddle-gpu"},))
    return _match(sig, text, at, {})


_MINDSPORE_CUDA = re.compile(r"MindSpore version (?P<ms>[\d.]{3,12}) and cuda version (?P<cuda>[\d.]{2,8}) does not match")


def mindspore_cuda_mismatch(ent, text):
    m, at = last_in_tail(_MINDSPORE_CUDA, text, "MindSpore version")
    if m is None:
        return None
    sig = _sig("mindspore-cuda-mismatch", "libraries",
               "MindSpore {ms} finds CUDA {cuda}, not the CUDA its build needs", 86,
               "MindSpore's GPU package checks at import the CUDA it finds on the library path against the CUDA it was "
               "built for; it found CUDA {cuda}, another version.",
               fix="Install the CUDA of that mindspore-gpu build (its install page names it) and make it the one found: "
                   "put its lib64 first on LD_LIBRARY_PATH (and CUDA_HOME / PATH at it); or install the mindspore "
                   "package built for CUDA {cuda}.",
               areas=("libraries",),
               sources=({"url": "https://www.mindspore.cn/install/en",
                         "what": "MindSpore's GPU packages and the CUDA each one needs"},))
    return _match(sig, text, at, {"ms": m.group("ms"), "cuda": m.group("cuda")})


_HYPERV_POLICY = re.compile(r"partitionable GPU device[\s\S]{0,300}?not compliant with currently set group policy")


def hyperv_partition_policy(ent, text):
    m, at = last_in_tail(_HYPERV_POLICY, text, "group policy")
    if m is None:
        return None
    sig = _sig("hyperv-gpu-partition-policy", "driver",
               "Hyper-V refuses to assign the partitioned GPU: the host's policy requires secure, supported devices",
               86,
               "Hyper-V assigns a partition of the GPU (GPU-P) to a VM only when the host's policies allow the device; "
               "RequireSecureDeviceAssignment and RequireSupportedDeviceAssignment (HKLM\\SOFTWARE\\Policies\\Microsoft\\"
               "Windows\\HyperV) refuse a consumer GPU that is not on Microsoft's list.",
               fix="On the host, as administrator, set the two policy values to 0: `New-ItemProperty -Path "
                   "\"HKLM:\\SOFTWARE\\Policies\\Microsoft\\Windows\\HyperV\" -Name RequireSecureDeviceAssignment -Value 0 "
                   "-PropertyType DWORD -Force` and the same for RequireSupportedDeviceAssignment, then start the VM "
                   "again (the guest needs the host driver's files copied in, as GPU-P guides describe).",
               areas=("driver",),
               sources=({"url": "https://learn.microsoft.com/en-us/windows-server/virtualization/hyper-v/"
                                "partition-assign-vm-gpu",
                         "what": "Hyper-V GPU partitioning: assigning a GPU partition to a VM"},))
    return _match(sig, text, at, {})


# the DirectML plugin (microsoft/tensorflow-directml-plugin) is a PluggableDevice built against TensorFlow 2.10's
# plugin ABI; TensorFlow 2.11 and later cannot load it
_TFDML = re.compile(r"tfdml_plugin\.dll not found|tensorflow-plugins[\\/]+tfdml_plugin\.dll")


def directml_plugin_not_loaded(ent, text):
    m, at = last_in_tail(_TFDML, text, "tfdml_plugin")
    if m is None:
        return None
    sig = _sig("tensorflow-directml-plugin-not-loaded", "env",
               "TensorFlow cannot load the DirectML plugin: the plugin is built for TensorFlow 2.10", 86,
               "tensorflow-directml-plugin adds DirectML (any DirectX 12 GPU on Windows and WSL) to TensorFlow as a "
               "pluggable device built against TensorFlow 2.10's plugin interface; a newer TensorFlow (2.11 and later) "
               "does not load it, so the plugin's DLL is reported not found.",
               fix="Install the TensorFlow it was built for beside it: `pip install tensorflow-cpu==2.10.*` (and "
                   "uninstall a newer tensorflow), then `pip install tensorflow-directml-plugin`; the plugin has no "
                   "release for later TensorFlow, so newer ones need WSL 2 with CUDA on an NVIDIA GPU.",
               areas=("tensorflow",),
               sources=({"url": "https://github.com/microsoft/tensorflow-directml-plugin",
                         "what": "tensorflow-directml-plugin: works with tensorflow-cpu 2.10"},))
    return _match(sig, text, at, {})


# TensorFlow's kernel helper header for custom ops: tensorflow/core/util/cuda_kernel_helper.h up to 1.13,
# gpu_kernel_helper.h from 1.14 (when the CUDA names became GPU names for ROCm)
_TF_KERNEL_HELPER = re.compile(r"tensorflow/core/util/(?P<h>gpu|cuda)_kernel_helper\.h: No such file or directory")


def tensorflow_kernel_helper_header(ent, text):
    m, at = last_in_tail(_TF_KERNEL_HELPER, text, "kernel_helper.h")
    if m is None:
        return None
    older = m.group("h") == "gpu"
    sig = _sig("tensorflow-kernel-helper-header", "toolchain",
               "the custom op includes {h}_kernel_helper.h, which this TensorFlow's headers do not have", 86,
               "TensorFlow's custom-op helper header was tensorflow/core/util/cuda_kernel_helper.h up to 1.13 and is "
               "gpu_kernel_helper.h from 1.14 on; the op's source names the one of " +
               ("a newer TensorFlow than the installed one." if older else "an older TensorFlow than the installed one."),
               fix=("Include tensorflow/core/util/cuda_kernel_helper.h with this TensorFlow (1.13 or older), or install "
                    "the TensorFlow 1.14 or newer the source was written for." if older else
                    "Include tensorflow/core/util/gpu_kernel_helper.h with this TensorFlow (1.14 or newer), or install "
                    "the TensorFlow 1.13 or older the source was written for."),
               areas=("toolchain",),
               sources=({"url": "https://www.tensorflow.org/guide/create_op#compile_the_op_using_your_system_compiler_tensorflow_binary_installation",
                         "what": "building custom ops against the installed TensorFlow's headers"},))
    return _match(sig, text, at, {"h": m.group("h")})


# Paddle's device context compares the cuDNN it loaded with the one it was compiled with and warns only when the
# loaded one is older (paddle/phi/backends/gpu/gpu_resources.cc: local_cudnn_version < compile_cudnn_version), printing
# both as major.minor; the later cuDNN errors of that process (CUDNN_STATUS_BAD_PARAM, NOT_SUPPORTED) follow from it
_PADDLE_CUDNN = re.compile(r"The installed Paddle is compiled with CUDNN (?P<built>\d{1,2}\s{0,20}\.\s{0,20}\d{1,2}), but "
                           r"CUDNN version in your machine is (?P<have>\d{1,2}\s{0,20}\.\s{0,20}\d{1,2})")


def paddle_cudnn_older_than_build(ent, text):
    m, at = last_in_tail(_PADDLE_CUDNN, text, "installed Paddle is compiled with CUDNN")
    if m is None:
        return None
    built, have = (re.sub(r"\s", "", m.group(g)) for g in ("built", "have"))
    if tuple(map(int, have.split("."))) >= tuple(map(int, built.split("."))):
        return None  # printed for equal versions by some releases: the question is elsewhere
    # cuDNN's pip wheels (nvidia-cudnn-cu11/-cu12) begin with 8.5 for CUDA 11 and 8.9 for CUDA 12; earlier releases
    # come from NVIDIA's archive or conda
    where = ("`python -m pip install \"nvidia-cudnn-cu12>={built}\"` for Paddle's CUDA 12 builds (nvidia-cudnn-cu11 for "
             "CUDA 11), or NVIDIA's cuDNN {major} for this CUDA" if tuple(map(int, built.split("."))) >= (8, 9) else
             "cuDNN {built} for this CUDA from NVIDIA's cuDNN archive (https://developer.nvidia.com/rdp/cudnn-archive) or "
             "conda (`conda install cudnn={built}`)")
    sig = _sig("paddle-cudnn-older-than-build", "cudnn", "Paddle was built with cuDNN {built}; the loaded cuDNN is {have}",
               86,
               "PaddlePaddle compiled its GPU kernels against cuDNN {built} and found cuDNN {have} on this machine, an "
               "older release: calls whose descriptors or algorithms {have} does not know fail (CUDNN_STATUS_BAD_PARAM, "
               "NOT_SUPPORTED), as Paddle's own warning says.",
               fix="Put cuDNN {built} or a later {major}.x first on the loader's path: " + where + ", with LD_LIBRARY_PATH "
                   "(Windows: PATH) pointing at it before the older copy; or install the paddlepaddle-gpu build made "
                   "for cuDNN {have}.",
               areas=("libraries",),
               sources=({"url": "https://github.com/PaddlePaddle/Paddle/blob/develop/paddle/phi/backends/gpu/"
                                "gpu_resources.cc",
                         "what": "Paddle's warning when the loaded cuDNN is older than the compiled one"},
                        {"url": "https://www.paddlepaddle.org.cn/documentation/docs/en/install/pip/linux-pip_en.html",
                         "what": "paddlepaddle-gpu builds and the CUDA/cuDNN each needs"}))
    return _match(sig, text, at, {"built": built, "have": have, "major": built.split(".")[0]})


# Lua's require (Lua 5.1, which Torch7 runs on) failing: "module 'X' not found:" followed by the searchers' reasons,
# LuaRocks' own loader first ("No LuaRocks module found for X"), then package.preload and the path templates
_LUA_MODULE = re.compile(r"module '(?P<mod>[\w./-]{1,80})' not found:\s{0,4}(?:No LuaRocks module found for|"
                         r"\s{0,4}no field package\.preload)")


def lua_module_not_found(ent, text):
    """Torch7 (Lua) code requiring a module nothing on its search path provides: a rock that is not installed (its
    packages are rocks: nn, cunn, cutorch, nninit, ...), or a project file required from another working folder."""
    m, at = last_in_tail(_LUA_MODULE, text, "not found:")
    if m is None:
        return None
    sig = _sig("lua-module-not-found", "libraries", "Lua (Torch7) cannot find the module {mod}", 80,
               "Lua's require searched LuaRocks' installed rocks, package.preload and the folders of package.path and "
               "package.cpath for {mod} and found it nowhere: the rock that provides it is not installed in this Torch7 "
               "tree, or it is the project's own file and th runs from another folder.",
               fix="Install the rock that provides it with the Torch7 tree's own LuaRocks: `luarocks install <rock>` "
                   "(Torch7's packages are rocks: nn, cunn, cutorch, cudnn, nninit, ...; the project's README names the "
                   "ones it needs); for a module of the project itself, run th from the project's folder or add it to "
                   "LUA_PATH.",
               areas=("libraries",),
               sources=({"url": "https://www.lua.org/manual/5.1/manual.html#pdf-require",
                         "what": "Lua 5.1's require: the searchers (package.preload, package.path, package.cpath)"},))
    return _match(sig, text, at, {"mod": m.group("mod")})


# CUDA.jl's summary when its initialisation failed (the cause is logged above it, or with JULIA_DEBUG=CUDA): the
# driver it could not start (libcuda missing, too old, or in a broken state after suspend/resume) in most reports
_CUDA_JL_INIT = re.compile(r"CUDA\.jl did not successfully initiali[sz]e,? and is not usable")


def cuda_jl_not_initialised(ent, text):
    m, at = last_in_tail(_CUDA_JL_INIT, text, "did not successfully initiali")
    if m is None:
        return None
    sig = _sig("cuda-jl-not-initialised", "driver", "CUDA.jl could not initialise the GPU", 78,
               "CUDA.jl loads the NVIDIA driver's libcuda and initialises it when the package loads; this summary says "
               "that failed, for the reason logged above it: no driver library found, a driver older than CUDA.jl's "
               "runtime needs, or a driver in a broken state (CUDA_ERROR_UNKNOWN, 999, typically after a suspend and "
               "resume).",
               fix="Check the driver with `nvidia-smi`; after a suspend/resume reload the unified-memory module (`sudo "
                   "rmmod nvidia_uvm && sudo modprobe nvidia_uvm`) or reboot; with a driver older than CUDA.jl's CUDA "
                   "runtime, update it or pin an older runtime (CUDA.set_runtime_version!); `JULIA_DEBUG=CUDA` and "
                   "`CUDA.versioninfo()` show the underlying error.",
               areas=("driver",),
               sources=({"url": "https://cuda.juliagpu.org/stable/installation/troubleshooting/",
                         "what": "CUDA.jl's troubleshooting: initialisation failures, JULIA_DEBUG=CUDA"},))
    return _match(sig, text, at, {})


# Keras 2.4-2.x's own import-time check (keras/__init__.py): "Keras requires TensorFlow 2.2 or higher. Install
# TensorFlow via `pip install tensorflow`"
_KERAS_NEEDS_TF = re.compile(r"Keras requires TensorFlow (?P<v>\d\.\d{1,2}) or higher")


def keras_needs_newer_tensorflow(ent, text):
    m, at = last_in_tail(_KERAS_NEEDS_TF, text, "Keras requires TensorFlow")
    if m is None:
        return None
    v = m.group("v")
    sig = _sig("keras-needs-newer-tensorflow", "tensorflow", "this Keras needs TensorFlow {v} or newer", 84,
               "Keras releases from 2.4 on are a front end to TensorFlow's own Keras and refuse to import under a "
               "TensorFlow older than {v}; the environment has such an older TensorFlow (code written for TensorFlow 1 "
               "with a Keras installed later).",
               fix="Install a pair that goes together: either a TensorFlow of {v} or newer for this Keras (`pip install "
                   "-U \"tensorflow>={v}\"`), or, to keep the older TensorFlow, the standalone Keras of its time "
                   "(`pip install \"keras<=2.3.1\"` for TensorFlow 1.x code).",
               areas=("tensorflow",),
               sources=({"url": "https://github.com/keras-team/keras/releases/tag/2.4.0",
                         "what": "Keras 2.4.0: Keras becomes tf.keras; TensorFlow 2.2 or higher required"},))
    return _match(sig, text, at, {"v": v})


# Keras 3's backend selection (keras/src/backend/config.py, KERAS_BACKEND or ~/.keras/keras.json)
_KERAS_BACKEND = re.compile(r"Unable to import backend\s{0,2}:\s{0,2}(?P<b>[\w.-]{1,40})")
_KERAS_BACKENDS = ("tensorflow", "jax", "torch", "numpy", "openvino")


def keras_backend_unknown(ent, text):
    m, at = last_in_tail(_KERAS_BACKEND, text, "Unable to import backend")
    if m is None:
        return None
    b = m.group("b")
    if b in _KERAS_BACKENDS:
        sig = _sig("keras-backend-not-installed", "env", "Keras 3's backend {b} cannot be imported", 80,
                   "Keras 3 runs on the backend KERAS_BACKEND (or ~/.keras/keras.json) names; {b} is a valid backend, "
                   "and importing it failed in this interpreter (not installed, or a broken install).",
                   fix="Install the backend in this interpreter (`pip install {b}` with the GPU build it needs: "
                       "tensorflow[and-cuda], jax[cuda12], or torch from its CUDA index), or choose an installed backend "
                       "with KERAS_BACKEND.",
                   areas=("tensorflow",), sources=(_KERAS_BACKEND_SRC,))
    else:
        sig = _sig("keras-backend-unknown", "env", "KERAS_BACKEND names {b}, which is not a Keras 3 backend", 82,
                   "Keras 3 takes its backend from KERAS_BACKEND (or the \"backend\" of ~/.keras/keras.json) and knows "
                   "tensorflow, jax, torch, numpy and openvino; {b} is none of them.",
                   fix="Set KERAS_BACKEND to one of tensorflow, jax, torch (`export KERAS_BACKEND=torch` for PyTorch, "
                       "before Keras is imported), or fix \"backend\" in ~/.keras/keras.json.",
                   areas=("tensorflow",), sources=(_KERAS_BACKEND_SRC,))
    return _match(sig, text, at, {"b": b})


_KERAS_BACKEND_SRC = {"url": "https://keras.io/getting_started/#configuring-your-backend",
                      "what": "Keras 3: KERAS_BACKEND selects tensorflow, jax, torch (or numpy, openvino)"}


# a TensorFlow package without tf.keras: a release before 1.4, or a partial install / a local folder named tensorflow
_TF_NO_KERAS = re.compile(r"cannot import name 'keras' from 'tensorflow'\s{0,2}\((?P<path>[^)\n]{1,300})\)")


def tensorflow_without_keras(ent, text):
    m, at = last_in_tail(_TF_NO_KERAS, text, "cannot import name 'keras'")
    if m is None:
        return None
    path = m.group("path")
    shadow = re.search(r"[/\\](?:site|dist)-packages[/\\]tensorflow[/\\]", path) is None
    sig = _sig("tensorflow-without-keras", "tensorflow",
               "the tensorflow imported has no keras" + (": it is not the installed package" if shadow else ""), 82,
               ("Python imported tensorflow from {path}, which is not the installed package (a file or folder named "
                "tensorflow in the program's folder shadows it)." if shadow else
                "The installed tensorflow package has no keras module: a release before 1.4 (tf.keras arrived then), or "
                "an incomplete install (tensorflow-estimator or tensorboard left without TensorFlow's own files)."),
               fix=("Rename the local tensorflow file or folder, delete its __pycache__, and run again." if shadow else
                    "Upgrade TensorFlow to a current release for this Python (`pip install -U tensorflow`; "
                    "`pip show tensorflow` shows what is installed), in a clean environment if the install is broken."),
               areas=("tensorflow",),
               sources=({"url": "https://github.com/tensorflow/tensorflow/releases/tag/v1.4.0",
                         "what": "TensorFlow 1.4: tf.keras becomes part of the core API"},))
    return _match(sig, text, at, {"path": path})
