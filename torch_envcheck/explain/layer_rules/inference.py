"""Layer rules for inference runtimes and model export beside torch (ONNX Runtime's execution providers, torch.onnx,
OpenVINO's GPU plugin), read from their own messages.

    onnxruntime_provider_library  ONNX Runtime's provider library (onnxruntime_providers_cuda/tensorrt) failing to load:
                         on Linux with the library it lacks named (libcublasLt.so.11: the build's CUDA 11; libcudnn.so.8:
                         cuDNN 8; libnvinfer.so.8: TensorRT 8) -> libraries or cudnn: that library where the loader
                         looks, or the onnxruntime-gpu built for what is installed; on Windows, LoadLibrary's error 126
                         -> windows-runtime: the DLLs of the build's CUDA and cuDNN majors (its release, when printed,
                         names them) on PATH
    onnxruntime_tensorrt_provider  "Failed to create TensorrtExecutionProvider" with no CUDA provider failure after it
                         -> libraries: the TensorRT ONNX Runtime was built with, on the loader's path (or CUDA alone)
    onnxruntime_cudnn_not_started  ONNX Runtime's "CUDNN failure N" (its CudaCall's format) with a status of cuDNN not
                         starting (NOT_INITIALIZED, INTERNAL_ERROR; cuDNN 8's numbers or 9's) or at cudnnCreate -> cudnn:
                         the CUDA/cuDNN majors and the driver that onnxruntime-gpu release needs, or its build for them
    onnxruntime_trt_decryption  "TensorRT EP could not open shared library from": the engine-decryption option is on
                         -> not-environment: trt_engine_decryption_enable (an uninitialised options struct in C)
    onnx_export_unsupported_operator  torch.onnx's UnsupportedOperatorError and its older wordings -> not-environment:
                         the opset it names, the dynamo exporter, a custom symbolic or the model's code
    onnx_opset_beyond_exporter  torch.onnx's "Unsupported ONNX opset version: N" -> torch-build: this torch's exporter
                         stops below opset N (a newer torch, or a lower opset_version)
    onnx_package_missing  torch.onnx's "Module onnx is not installed!" -> env: the onnx package in this interpreter
    onnxruntime_providers_required  ONNX Runtime's "This ORT build has [...] enabled. Since ORT 1.9, you are required to
                         explicitly set the providers parameter" -> not-environment: the program's InferenceSession call
    openvino_gpu_not_intel  OpenVINO's GPU plugin refusing a GPU of another vendor ("invalid vendor type") -> arch:
                         the CPU device, an Intel GPU, or a runtime for that GPU
    openvino_no_opencl_platform  OpenVINO's GPU plugin finding no OpenCL platform (clGetPlatformIDs -1001) -> the
                         Intel GPU compute runtime: installed, and new enough for the GPU (arch where the text names
                         the Intel processor or graphics; else driver)
    tflite_delegate_refused  TensorFlow Lite's delegates (GPU, NNAPI, XNNPACK) refusing the model's operations or
                         tensors ("Failed to apply delegate", "not supported by GPU delegate", ANEURALNETWORKS_*) ->
                         not-environment: the model's ops and shapes run on the CPU, or the model changes
    triton_backend_missing  Triton Inference Server's "unable to find backend library for backend 'X'" -> container:
                         the image that ships that backend, or the backend added under its backends folder    onnxruntime_web_backend_missing  onnxruntime-web's "no available backend found. ERR: [webgpu] backend not found" ->
                         torch-build: the bundle without WebGPU (ort.webgpu.min.js, onnxruntime-web/webgpu)
    tfjs_node_addon_unloadable  tfjs-node's native addon (tfjs_binding.node): not built/found -> toolchain; Windows'
                         "The specified module could not be found" for it -> windows-runtime: a DLL it needs    onnxruntime_nodes_on_cpu_notice  ONNX Runtime's "Some nodes were not assigned to the preferred execution providers"
                         (VerifyEachNodeIsAssignedToAnEp) -> not-environment: a notice, shape ops kept on the CPU
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail, on_windows
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import inference_runtimes as rt

_ORT_RELEASE = re.compile(r"(?i)onnxruntime-(?:win|linux|osx)-[\w-]{0,30}?(?:cuda(?P<cu>1\d)-)?(?P<v1>1\.\d{1,2}(?:\.\d{1,2})?)\b|"
                          r"\b(?:onnxruntime(?:[-_]gpu)?|Microsoft\.ML\.OnnxRuntime(?:\.Gpu)?|ORT)(?:==|\s{1,4}v?|-v?)"
                          r"(?P<v2>1\.\d{1,2}(?:\.\d{1,2})?)\b")
# provider_bridge_ort.cc's ProviderLibrary::Get on Linux (dlerror's text after "with error: ") and on Windows
# (GetLastError's code after LoadLibrary)
_ORT_PROVIDER_LINUX = re.compile(r"Failed to load library (?:lib)?onnxruntime_providers_(?P<ep>cuda|tensorrt)\.so with error: "
                                 r"(?P<lib>[\w.+-]{3,60}\.so(?:\.\d{1,3}){0,4}): cannot open shared object file")
_ORT_PROVIDER_WINDOWS = re.compile(r"\b[Ll]oad[Ll]ibrary failed with error (?P<code>126|127|193)\b[^\n]{0,300}?"
                                   r"onnxruntime_providers_(?P<ep>cuda|tensorrt)\.dll")
# the same before 1.8 (ProviderLibrary's constructor), the provider named by the C API call that asked for it:
# "Failed to load library, error code: 126" then "OrtSessionOptionsAppendExecutionProvider_Tensorrt: Failed to load"
# (1.9 to 1.14 name no provider: ProviderSharedLibrary::Ensure, loading the providers' shared part, then "Init provider
# bridge failed"; the CUDA provider is the one users ask for there)
_ORT_PROVIDER_WINDOWS_OLD = re.compile(r"Failed to load library, error code: (?P<code>126|127|193)\b[^\n]{0,300}\n?"
                                       r"[^\n]{0,200}?(?:AppendExecutionProvider_(?P<ep>Tensorrt|CUDA|Cuda)\b|"
                                       r"Init provider bridge failed)")
# GetLastError's codes after LoadLibrary (winerror.h)
_LOADER_CODES = {"126": "a DLL it links was not found (ERROR_MOD_NOT_FOUND)",
                 "127": "a function it imports is missing from a DLL it found (ERROR_PROC_NOT_FOUND): another version "
                        "of that DLL came first on the search path",
                 "193": "a DLL it links is not a valid 64-bit Windows library (ERROR_BAD_EXE_FORMAT): a 32-bit copy "
                        "came first on the search path"}
_CUDNN_NAMED = re.compile(r"(?i)cu?dnn[ _-]?v?(?P<major>[789])\b|cudnn64_(?P<dll>[789])\.dll")
_ORT_DOC = rt.SOURCES["ort_cuda"]


_CUDA_WORDS = re.compile(r"(?i)\bCUDA[ _-]?(?:version[ :]{1,3})?(?P<major>1[0-3])(?:\.\d{1,2})?\b")


def _cuda_named(text: str) -> str | None:
    """The CUDA major the text names ("CUDA 12.2", "cuda11"), the last one; None when it names none."""
    m = last_match(_CUDA_WORDS, text[-CONTEXT_TAIL:])
    return m.group("major") if m else None


def _ort_release(text: str) -> tuple:
    """(the ONNX Runtime release the text names, the CUDA major its package name names) or (None, None)."""
    m = last_match(_ORT_RELEASE, text[-CONTEXT_TAIL:])
    if m is None:
        return None, None
    return (m.group("v1") or m.group("v2")), m.group("cu")


def onnxruntime_provider_library(ent, text):
    m, at = last_in_tail(_ORT_PROVIDER_LINUX, text, "onnxruntime_providers_")
    windows = False
    if m is None:
        m, at = last_in_tail(_ORT_PROVIDER_WINDOWS, text, "onnxruntime_providers_")
        if m is None:
            m, at = last_in_tail(_ORT_PROVIDER_WINDOWS_OLD, text, "Failed to load library, error code")
        windows = m is not None
    if m is None:
        return None
    ep = (m.group("ep") or "cuda").lower()
    release, named_cuda = _ort_release(text)
    lib = None if windows else m.group("lib")
    kind = rt.library_kind(lib) if lib else None
    cuda_major = named_cuda or (kind["major"] if kind and kind["kind"] == "cuda" else None)
    build = rt.ort_cuda_build(release, cuda_major) if release else None
    have_cudnn = last_match(_CUDNN_NAMED, text[-CONTEXT_TAIL:])
    have = (have_cudnn.group("major") or have_cudnn.group("dll")) if have_cudnn else None
    caps = {"ep": "TensorRT" if ep == "tensorrt" else "CUDA", "release": release, "lib": lib}
    if build:
        caps.update(cuda=build["cuda"], cudnn=build["cudnn"])
    needs = (" (release {release}: CUDA {cuda} and cuDNN {cudnn}, ONNX Runtime's requirements table)" if build else "")
    other = (have and build and have != build["cudnn"])
    if windows:
        caps["code"] = m.group("code")
        layer, sid = "windows-runtime", "onnxruntime-provider-dll-dependency"
        title = "onnxruntime_providers_{ep_l}.dll cannot load a DLL it depends on (LoadLibrary error {code})"
        why = ("LoadLibrary's error {code} for the provider DLL, which is there, means " +
               _LOADER_CODES[m.group("code")] + ": the {ep} execution provider links the CUDA runtime, cuBLAS, cuFFT, cuRAND and cuDNN of the majors its build was made "
               "with" + needs + ", and the MSVC runtime." +
               (" cuDNN {have} is not one of them: builds for cuDNN 8 and cuDNN 9 are not interchangeable." if other
                else ""))
        fix = ("Give onnxruntime_providers_{ep_l}.dll the DLLs of its build: " +
               ("CUDA {cuda} and cuDNN {cudnn}" if build else "the CUDA and cuDNN majors of your onnxruntime-gpu "
                                                              "release (its requirements table)") +
               ", with their bin folders on PATH (cuDNN 9 keeps its DLLs in bin\\<CUDA version>), and the latest "
               "Visual C++ Redistributable (x64); or `import torch` (a CUDA torch of the same majors) before creating "
               "the session, or call `onnxruntime.preload_dlls()` (1.21 and later) with the nvidia-* wheels installed. " +
               ("Or keep your cuDNN {have} and use the ONNX Runtime release built for it: " +
                (rt.ort_cudnn_builds(have) or "its requirements table") + "." if other else
                "Or install the onnxruntime-gpu release built for the CUDA and cuDNN you have.") +
               " `where cudnn64_*.dll` in a new terminal shows which cuDNN PATH finds.")
        caps["ep_l"] = ep
        caps["have"] = have
    else:
        what = kind["what"] if kind else lib
        caps["what"] = what
        if kind and kind["kind"] == "cudnn":
            layer, sid = "cudnn", "onnxruntime-provider-needs-cudnn"
            cu = cuda_major or (build["cuda"].split(".")[0] if build else None) or _cuda_named(text)
            wheel = ("`pip install \"nvidia-cudnn-cu" + cu + "==" + kind["major"] + ".*\"`" if cu else
                     "`pip install \"nvidia-cudnn-cu12==" + kind["major"] + ".*\"` (nvidia-cudnn-cu11 for a CUDA 11 build)")
            fix = ("Give the provider cuDNN {major}: " + wheel + " and put its "
                   "lib folder (site-packages/nvidia/cudnn/lib) on LD_LIBRARY_PATH, or `import torch` first (a CUDA "
                   "torch carrying cuDNN {major}: torch 2.4 and later carry cuDNN 9, 2.3 and older cuDNN 8), or install "
                   "cuDNN {major} system-wide and run ldconfig. Or install the onnxruntime-gpu release built for the cuDNN "
                   "you have (cuDNN 9: 1.18.1 and later; cuDNN 8: 1.18.0 and older); cuDNN 8 and 9 are not "
                   "interchangeable.")
            caps["major"] = kind["major"]
        elif kind and kind["kind"] == "tensorrt":
            layer, sid = "libraries", "onnxruntime-provider-needs-tensorrt"
            fix = ("Install TensorRT {major} (the release ONNX Runtime's TensorRT EP requirements table gives for your "
                   "onnxruntime-gpu) and put its lib folder on LD_LIBRARY_PATH; or leave TensorrtExecutionProvider out "
                   "of providers= and ONNX Runtime runs on CUDA.")
            caps["major"] = kind["major"]
        else:
            layer, sid = "libraries", "onnxruntime-provider-needs-cuda-library"
            fix = ("This onnxruntime-gpu build needs {lib}" +
                   (", a library of CUDA {major}: install CUDA {major}'s libraries where the loader finds them (`pip install nvidia-cublas-cu{major} "
                    "nvidia-cuda-runtime-cu{major} nvidia-cufft-cu{major} nvidia-curand-cu{major}` and their lib folders "
                    "on LD_LIBRARY_PATH, or a CUDA {major} toolkit), or install the onnxruntime-gpu built for the CUDA you "
                    "have (CUDA 12: PyPI's onnxruntime-gpu 1.19 and later; CUDA 11.8: 1.18 and older)."
                    if kind and kind["major"] else
                    ": install the CUDA libraries of the major your onnxruntime-gpu was built with (its "
                    "requirements table) and put them on LD_LIBRARY_PATH, or install the onnxruntime-gpu built for "
                    "the CUDA you have."))
            caps["major"] = kind["major"] if kind else None
        title = "onnxruntime_providers_{ep_l}.so cannot load {lib}"
        caps["ep_l"] = ep
        why = ("ONNX Runtime loads its {ep} execution provider from a library of its own when a session asks for it, "
               "and that library links the CUDA, cuDNN (and TensorRT) of the majors its build was made with" + needs +
               "; {lib} ({what}) is not where the loader looks, so the provider does not load and the session runs on "
               "the CPU. get_available_providers() lists what the package was built with, not what can load.")
    sig = _sig(sid, layer, title, 88, why, fix=fix, causes=(), areas=("libraries",), sources=(_ORT_DOC,))
    return _match(sig, text, at, caps)


_ORT_TRT_FAILED = re.compile(r"Failed to create TensorrtExecutionProvider")
_ORT_CUDA_FAILED = re.compile(r"Failed to create CUDAExecutionProvider|CUDA_PATH is set but CUDA wasn'?t able to be loaded")


def onnxruntime_tensorrt_provider(ent, text):
    m, at = last_in_tail(_ORT_TRT_FAILED, text, "TensorrtExecutionProvider")
    if m is None or _ORT_CUDA_FAILED.search(text, at) is not None:
        return None
    win = on_windows(ent, text)
    sig = _sig("onnxruntime-tensorrt-provider-not-created", "libraries",
               "ONNX Runtime could not start its TensorRT execution provider", 79,
               "The TensorRT execution provider of onnxruntime-gpu loads TensorRT's own libraries (" +
               ("nvinfer_N.dll" if win else "libnvinfer.so.N") + " and its parsers and plugins) of the major its release "
               "was built with, beside CUDA and cuDNN; they are not where the loader looks (TensorRT is not part of "
               "onnxruntime-gpu), so the session goes on with the next provider in its list.",
               fix="Install the TensorRT release ONNX Runtime's TensorRT EP requirements table gives for your "
                   "onnxruntime-gpu (NVIDIA's " + ("zip" if win else "tar or deb packages") + ", or the tensorrt wheels of "
                   "that major) and put its lib folder on " + ("PATH" if win else "LD_LIBRARY_PATH") + "; if you do not "
                   "need TensorRT, leave TensorrtExecutionProvider out of providers= and keep CUDAExecutionProvider.",
               areas=("libraries",), sources=(rt.SOURCES["ort_trt"],))
    return _match(sig, text, at, {})


# ONNX Runtime's CudaCall prints each failing CUDA library call as "<LIB> failure <status>: <name> ; GPU=N ; hostname=H ;
# expr=<call>" (microsoft/onnxruntime onnxruntime/core/providers/cuda/cuda_call.cc at commit 1a42650e2d18d7abbd8f2826f10b444b717846eb:
# "%s failure %d: %s ; GPU=%d ; hostname=%s ; expr=%s; %s", libName "CUDA", "CUBLAS", "CUDNN", ...), the status as
# the number the library returned: for cuDNN up to 8 its old numbering, from cuDNN 9 the 1000s
_ORT_CUDNN_FAILURE = re.compile(r"\bCUDNN failure (?P<num>\d{1,4})\b(?::\s{0,2}(?P<name>CUDNN_STATUS_\w{3,60}))?"
                                r"(?:[^\n]{0,300}?\bexpr=(?P<expr>\w{3,60}))?")
# the statuses of a cuDNN that did not start, by number: cuDNN 8's cudnnStatus_t (cudnn_ops_infer.h, 8.x:
# CUDNN_STATUS_NOT_INITIALIZED = 1, CUDNN_STATUS_INTERNAL_ERROR = 4) and cuDNN 9's (cudnn_graph.h, 9.x: 1001 and 4000)
_CUDNN_NOT_STARTED = {1: "CUDNN_STATUS_NOT_INITIALIZED", 4: "CUDNN_STATUS_INTERNAL_ERROR",
                      1001: "CUDNN_STATUS_NOT_INITIALIZED", 4000: "CUDNN_STATUS_INTERNAL_ERROR"}
_CUDNN_HEADERS = {"url": "https://pypi.org/project/nvidia-cudnn-cu13/9.24.0.43/",
                  "what": "cuDNN 9's cudnn_graph.h (nvidia/cudnn/include, in the nvidia-cudnn-cu13 9.24.0.43 wheel): "
                          "CUDNN_STATUS_NOT_INITIALIZED = 1001, CUDNN_STATUS_INTERNAL_ERROR = 4000"}
_CUDNN8_HEADERS = {"url": "https://pypi.org/project/nvidia-cudnn-cu11/8.5.0.96/",
                   "what": "cuDNN 8's cudnn_ops_infer.h (nvidia/cudnn/include, in the nvidia-cudnn-cu11 8.5.0.96 wheel): "
                           "cudnnStatus_t numbered from CUDNN_STATUS_SUCCESS = 0: NOT_INITIALIZED 1, ALLOC_FAILED 2, "
                           "BAD_PARAM 3, INTERNAL_ERROR 4"}


def onnxruntime_cudnn_not_started(ent, text):
    """ONNX Runtime's CUDA provider creates its cuDNN handle when a session starts; a NOT_INITIALIZED or
    INTERNAL_ERROR there (or any status of cudnnCreate) is cuDNN not starting with the CUDA, cuDNN and driver found,
    which ONNX Runtime's requirements table decides, not the model."""
    m, at = last_in_tail(_ORT_CUDNN_FAILURE, text, "CUDNN failure")
    if m is None:
        return None
    status = m.group("name") or _CUDNN_NOT_STARTED.get(int(m.group("num")))
    if m.group("expr") != "cudnnCreate" and status not in _CUDNN_NOT_STARTED.values():
        return None
    release, _cu = _ort_release(text)
    build = rt.ort_cuda_build(release) if release else None
    caps = {"num": m.group("num"), "status": status or "a status of cudnnCreate", "release": release,
            "cuda": (build or {}).get("cuda"), "cudnn": (build or {}).get("cudnn")}
    sig = _sig("onnxruntime-cudnn-not-started", "cudnn",
               "ONNX Runtime's CUDA provider could not start cuDNN (CUDNN failure {num}: {status})", 85,
               "ONNX Runtime prints a CUDA library's failing call as \"CUDNN failure <status>\"; {status} when its "
               "CUDA provider starts is cuDNN failing to initialise with the libraries and driver it found: a cuDNN of "
               "another major or CUDA than the onnxruntime-gpu build" + (" (onnxruntime {release}: CUDA {cuda}, cuDNN "
               "{cudnn})" if build else "") + " was made for, or a driver older than that CUDA needs. The model is not "
               "at fault.",
               fix="Install the CUDA and cuDNN majors this onnxruntime-gpu release is built for (ONNX Runtime's CUDA EP "
                   "requirements: 1.19 and later from PyPI, CUDA 12.x with cuDNN 9; 1.18.0 and older, cuDNN 8) and an "
                   "NVIDIA driver that runs that CUDA (nvidia-smi's CUDA Version at least it), or install the "
                   "onnxruntime-gpu release built for the CUDA and cuDNN you have; with torch's CUDA wheels in the same "
                   "environment, `import torch` before creating the session loads the cuDNN they bring.",
               areas=("libraries",), sources=(_ORT_DOC, _CUDNN_HEADERS, _CUDNN8_HEADERS))
    return _match(sig, text, at, caps)


_ORT_TRT_DECRYPT = re.compile(r"TensorRT EP could not open shared library(?: from)?")


def onnxruntime_trt_decryption(ent, text):
    m, at = last_in_tail(_ORT_TRT_DECRYPT, text, "could not open shared library")
    if m is None:
        return None
    sig = _sig("onnxruntime-trt-engine-decryption", "not-environment",
               "the TensorRT EP's engine decryption is switched on, and its library does not load", 86,
               "ONNX Runtime's TensorRT execution provider prints this one message when engine decryption is on "
               "(trt_engine_decryption_enable, or ORT_TENSORRT_ENGINE_DECRYPTION_ENABLE) and the library named by "
               "trt_engine_decryption_lib_path cannot be opened: an option the program set, or in C/C++ an "
               "OrtTensorRTProviderOptions struct filled field by field with this one left uninitialised. TensorRT and "
               "CUDA are not at fault.",
               look_at="Set trt_engine_decryption_enable = 0 (initialise the whole options struct, or create it with "
                       "CreateTensorRTProviderOptions and set only the keys you need with UpdateTensorRTProviderOptions, "
                       "which keeps the defaults), or give trt_engine_decryption_lib_path the path of your decryption "
                       "library.",
               areas=("program",),
               sources=({"url": "https://github.com/microsoft/onnxruntime/blob/54a6bbf560708216cbdef4681a6670a2bc29520f/"
                                "onnxruntime/core/providers/tensorrt/tensorrt_execution_provider.cc",
                         "what": "if (engine_decryption_enable_) ... OPENLIB(engine_decryption_lib_path_) ... 'TensorRT EP "
                                 "could not open shared library from '"},))
    return _match(sig, text, at, {})


# torch/onnx/errors.py's UnsupportedOperatorError, and the wordings before it (symbolic_registry's RuntimeError,
# symbolic_helper's _unimplemented, the C++ exporter's "Couldn't export operator")
_ONNX_UNSUPPORTED = re.compile(r"Exporting the operator ['\"]?(?P<op>[\w:.]{1,80})['\"]? to ONNX opset version "
                               r"(?P<opset>\d{1,2}) is not supported\.?(?:\s{1,4}Support for this operator was added in "
                               r"version (?P<added>\d{1,2}))?|"
                               r"Unsupported: ONNX export of (?:operator )?(?P<op2>[\w:.]{1,80})|"
                               r"ONNX export failed: Couldn't export (?:Python )?operator (?P<op3>[\w:.]{1,80})")


def onnx_export_unsupported_operator(ent, text):
    m, at = last_in_tail(_ONNX_UNSUPPORTED, text, "ONNX")
    if m is None:
        return None
    op = m.group("op") or m.group("op2") or m.group("op3")
    caps = {"op": op, "opset": m.group("opset"), "added": m.group("added")}
    sig = _sig("onnx-export-unsupported-operator", "not-environment",
               "torch.onnx has no conversion for {op}" + (" at opset {opset}" if m.group("opset") else ""), 84,
               "The TorchScript-based exporter (torch.onnx.export) turns each operator of the traced model into ONNX "
               "with a symbolic function registered for the opset asked; {op} has none" +
               (" at opset {opset}" if m.group("opset") else "") + ". It is the export call and the model's operators, "
               "not the installation." + (" The message says opset {added} has one." if m.group("added") else ""),
               look_at=("Export with opset_version={added} (torch.onnx.export(..., opset_version={added})). " if
                        m.group("added") else "Try a higher opset_version if a later opset covers it. ") +
                       "Otherwise use the newer exporter, which covers far more of ATen (torch.onnx.export(..., "
                       "dynamo=True) from torch 2.5; torch.onnx.dynamo_export in 2.1-2.4), write that part of the model "
                       "with operators ONNX has, or register a symbolic for it (torch.onnx.register_custom_op_symbolic).",
               areas=("program",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/05083ee61df20e23167405480ba8f81e72b2e834/torch/"
                                "onnx/errors.py",
                         "what": "UnsupportedOperatorError: 'Exporting the operator ... to ONNX opset version ... is not "
                                 "supported', with the version that added it where there is one"},))
    return _match(sig, text, at, caps)


_OV_VENDOR = re.compile(r"No OpenCL device found which would match provided configuration:\s{0,8}(?P<gpu>[^\n:]{2,80}): "
                        r"invalid vendor type")
_OV_DOCS = {"url": "https://docs.openvino.ai/2024/openvino-workflow/running-inference/inference-devices-and-modes/"
                   "gpu-device.html",
            "what": "the GPU plugin: OpenCL-based inference on Intel GPUs (only Intel GPU devices are enumerated)"}


def openvino_gpu_not_intel(ent, text):
    m, at = last_in_tail(_OV_VENDOR, text, "invalid vendor type")
    if m is None:
        return None
    sig = _sig("openvino-gpu-not-intel", "arch", "OpenVINO's GPU device runs on Intel GPUs only: {gpu} is not one", 86,
               "OpenVINO's GPU plugin runs its kernels through OpenCL on Intel graphics and skips every OpenCL device of "
               "another vendor; {gpu} is such a device, so the GPU device has nothing to run on. No driver or package "
               "changes that.",
               fix="Compile the model for the CPU (device \"CPU\", or \"AUTO\"), run it on an Intel GPU, or use a runtime "
                   "for that GPU: for NVIDIA, ONNX Runtime's CUDA/TensorRT providers or TensorRT, or openvino_contrib's "
                   "NVIDIA plugin (device \"NVIDIA\", built from source).",
               areas=("gpu",),
               sources=(_OV_DOCS, {"url": "https://github.com/openvinotoolkit/openvino_contrib/blob/"
                                          "86a1a487cd14679367a3e6ec9553caf368674651/modules/nvidia_plugin/README.md",
                                   "what": "OpenVINO NVIDIA GPU plugin (device NVIDIA), built from source"}))
    return _match(sig, text, at, {"gpu": m.group("gpu").strip()})


_OV_NO_PLATFORM = re.compile(r"clGetPlatformIDs(?: error| failed| returned)?[^\n\d-]{0,20}-1001\b|CL_PLATFORM_NOT_FOUND_KHR")
_OV_CONTEXT = re.compile(r"(?i)openvino|cldnn|inference_engine|intel_gpu|for device GPU")
# the hardware named, in Intel's words: "12th Gen Intel(R) Core(TM)", "Intel(R) HD Graphics 4600", "Iris Xe", "Arc A770"
_INTEL_HARDWARE = re.compile(r"\b\d{1,2}(?:st|nd|rd|th) Gen Intel|\bIntel(?:\(R\)|®)? (?:HD|UHD|Iris)\b|\bHD Graphics \d{3,4}\b|"
                             r"\bArc(?:™|\(TM\))? [AB]\d{3}\b|\bCore(?:™|\(TM\))? i[3579]-\d{4,5}")


def openvino_no_opencl_platform(ent, text):
    m, at = last_in_tail(_OV_NO_PLATFORM, text)
    if m is None or _OV_CONTEXT.search(text[-CONTEXT_TAIL:]) is None:
        return None
    named = _INTEL_HARDWARE.search(text[-CONTEXT_TAIL:]) is not None
    sig = _sig("openvino-no-opencl-platform", "arch" if named else "driver",
               "OpenVINO's GPU plugin finds no OpenCL platform (clGetPlatformIDs -1001)", 84,
               "-1001 is CL_PLATFORM_NOT_FOUND_KHR: the OpenCL loader found no driver that offers this GPU. Intel's "
               "compute runtime (NEO) is that driver: it is not installed (or not visible: a container started without "
               "/dev/dri), or it does not support this GPU: NEO covers the graphics of 8th Gen Core processors and later, "
               "and a runtime older than the GPU does not know it either." +
               (" The text names the Intel hardware: check it against the runtime's supported platforms." if named
                else ""),
               fix="Install Intel's compute runtime as OpenVINO's GPU configuration guide says (Ubuntu: `sudo apt install "
                   "ocl-icd-libopencl1 intel-opencl-icd intel-level-zero-gpu level-zero`), newer than the GPU (a newer "
                   "OpenVINO release or image for a recent GPU); in a container pass --device /dev/dri; check with "
                   "`clinfo -l`. A GPU older than 8th Gen graphics has no supported runtime: use the CPU device.",
               areas=("driver",),
               sources=({"url": "https://docs.openvino.ai/2024/get-started/configurations/configurations-intel-gpu.html",
                         "what": "the OpenCL runtime packages the GPU plugin needs (intel-opencl-icd, ocl-icd-libopencl1)"},
                        {"url": "https://www.intel.com/content/www/us/en/support/articles/000059426.html",
                         "what": "clGetPlatformIDs error -1001 under clDNN: OpenCL not supported for the hardware (NEO: "
                                 "8th Gen Core graphics and later)"}))
    return _match(sig, text, at, {})


# torch/onnx/symbolic_helper.py (_set_opset_version): the exporter of this torch release knows opsets up to a maximum
_OPSET_BEYOND = re.compile(r"Unsupported ONNX opset version: (?P<n>\d{1,3})")


def onnx_opset_beyond_exporter(ent, text):
    m, at = last_in_tail(_OPSET_BEYOND, text, "Unsupported ONNX opset version")
    if m is None:
        return None
    sig = _sig("onnx-opset-beyond-exporter", "torch-build",
               "this torch's ONNX exporter does not know opset {n}", 82,
               "torch.onnx checks the opset_version asked for against the opsets its release can export; each release "
               "adds the newest ONNX opsets, so an export script written for a newer torch asks this one for an opset "
               "({n}) past its last.",
               fix="Upgrade torch to a release whose exporter supports opset {n} (`pip install -U torch` with its "
                   "companions, from the index torch came from), or export with a lower opset_version, the highest "
                   "this torch supports (torch.onnx's documentation of the installed release lists it).",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/onnx/_constants.py",
                         "what": "the ONNX opsets torch.onnx exports (ONNX_MAX_OPSET and its predecessors per release)"},))
    return _match(sig, text, at, {"n": m.group("n")})


# torch/onnx/_internal/onnx_proto_utils.py: the exporter's own import of the onnx package failed
_ONNX_MISSING = re.compile(r"Module onnx is not installed!?")


def onnx_package_missing(ent, text):
    m, at = last_in_tail(_ONNX_MISSING, text, "Module onnx is not installed")
    if m is None:
        return None
    sig = _sig("onnx-package-missing", "env", "torch.onnx cannot import the onnx package", 82,
               "torch.onnx needs the onnx package for this export (custom functions, onnxscript, the dynamo exporter) "
               "and its `import onnx` failed in this interpreter: onnx is not installed here, or a folder or file "
               "named onnx in the working directory shadows it, or the onnx installed cannot load (a wheel for another "
               "Python).",
               fix="Install onnx in the interpreter that runs the export (`python -m pip install onnx`, plus "
                   "onnxscript for torch's dynamo exporter), and check what `python -c \"import onnx; "
                   "print(onnx.__file__)\"` imports: a local onnx folder or onnx.py must be renamed.",
               areas=("torch",),
               sources=({"url": "https://pytorch.org/docs/stable/onnx.html",
                         "what": "torch.onnx: the onnx and onnxscript packages the exporter needs"},))
    return _match(sig, text, at, {})


# onnxruntime/capi/onnxruntime_inference_collection.py (_create_inference_session): a GPU build of ORT 1.9+ needs
# the providers argument
_ORT_PROVIDERS = re.compile(r"This ORT build has \[[^\]\n]{1,200}\] enabled\. Since ORT 1\.9, you are required to explicitly "
                            r"set the providers parameter|(?P<subset>\w{2,60}) does not contain a subset of available "
                            r"providers")


def onnxruntime_providers_required(ent, text):
    m, at = last_in_tail(_ORT_PROVIDERS, text)
    if m is None:
        return None
    if m.group("subset"):
        # the providers argument given as a string: ORT iterates it as characters (capi/onnxruntime_inference_collection.py)
        sig = _sig("onnxruntime-providers-not-a-list", "not-environment",
                   "ONNX Runtime was given providers as a string, not a list", 84,
                   "InferenceSession's providers argument is a list of provider names; given one name as a string "
                   "({subset}), ONNX Runtime checks its characters against the providers available and refuses it. The "
                   "provider itself is installed (it is in the list the message prints).",
                   look_at="Pass a list: `providers=[\"{subset}\"]` (with \"CPUExecutionProvider\" after it as a fallback). "
                           "Nothing to install.",
                   sources=({"url": "https://onnxruntime.ai/docs/execution-providers/",
                             "what": "ONNX Runtime: InferenceSession(providers=[...]) takes a list"},))
        return _match(sig, text, at, {"subset": m.group("subset")})
    sig = _sig("onnxruntime-providers-required", "not-environment",
               "ONNX Runtime 1.9+ needs the providers argument from this program", 84,
               "A GPU build of ONNX Runtime (onnxruntime-gpu) from release 1.9 on refuses an InferenceSession created "
               "without providers=[...]; code written for older releases (an older insightface, a model's demo) omits "
               "it. The GPU build itself is installed.",
               look_at="Pass the providers when creating the session: `ort.InferenceSession(path, providers=["
                       "\"CUDAExecutionProvider\", \"CPUExecutionProvider\"])` (the package's own option for it, or its "
                       "release that does so); nothing to reinstall.",
               sources=({"url": "https://onnxruntime.ai/docs/execution-providers/",
                         "what": "ONNX Runtime execution providers: set providers explicitly on InferenceSession"},))
    return _match(sig, text, at, {})


# TensorFlow Lite's interpreter applying a delegate (tensorflow/lite/core/subgraph.cc: "Failed to apply delegate"; the
# GPU delegate's list of what it cannot run; NNAPI's own result codes; a delegate for static shapes given a dynamic one)
_TFLITE_DELEGATE = re.compile(r"Failed to apply (?:the )?delegate|operations are not supported by (?:the )?GPU delegate|"
                              r"ModifyGraphWithDelegate is disallowed|NN API returned error ANEURALNETWORKS_[A-Z_]{3,40}|"
                              r"delegate that only supports static-sized tensors|GpuDelegate\)? failed to prepare")
_TFLITE_GPU = {"url": "https://ai.google.dev/edge/litert/performance/gpu",
               "what": "LiteRT / TensorFlow Lite GPU delegate: the supported ops; unsupported ones fall back to the CPU"}


def tflite_delegate_refused(ent, text):
    m, at = last_in_tail(_TFLITE_DELEGATE, text)
    if m is None:
        return None
    # above a graphics line logged beside it (an EGL display the GPU delegate probed): the exception is the delegate's
    sig = _sig("tflite-delegate-refused", "not-environment", "a TensorFlow Lite delegate refused the model's operations",
               84, "A TensorFlow Lite delegate (GPU, NNAPI, XNNPACK) takes only the operations, versions, tensor types and "
               "static shapes it implements; this model has some it does not (the lines name them), so the delegate "
               "could not be applied or runs only part of the graph. The runtime and the device are fine.",
               look_at="Let the unsupported operations run on the CPU (apply the delegate without making the graph "
                       "immutable, or accept the partial delegation the log reports), or change the model: replace the ops "
                       "the delegate lists, give it static input shapes (resizeInput before allocateTensors), or convert it "
                       "with the delegate's supported op set; for NNAPI errors on one operand, that op on the CPU.",
               sources=(_TFLITE_GPU,))
    return _match(sig, text, at, {})


# Triton Inference Server: no libtriton_<backend>.so under the backend directory (--backend-directory,
# /opt/tritonserver/backends): the image or installation was built without that backend
_TRITON_BACKEND = re.compile(r"unable to find backend library for backend '(?P<be>[\w.-]{2,40})'")
_TRITON_BACKENDS = {"url": "https://github.com/triton-inference-server/backend#backends",
                    "what": "Triton's backends: which ship in the NGC tritonserver images, and where a server looks for them"}


def triton_backend_missing(ent, text):
    m, at = last_in_tail(_TRITON_BACKEND, text, "unable to find backend library")
    if m is None:
        return None
    sig = _sig("triton-backend-missing", "container", "this Triton server has no {be} backend", 82,
               "Triton loads each model through the backend its configuration names, as libtriton_{be}.so under the "
               "backend directory (/opt/tritonserver/backends); this server's image or installation has no {be} backend "
               "(the TensorRT-LLM and vLLM images, and custom builds, carry only some backends).",
               fix="Serve the model from the NGC image that ships the {be} backend (nvcr.io/nvidia/tritonserver:<yy.mm>-py3), "
                   "or copy that backend's folder (built for the same Triton release) into the image's "
                   "/opt/tritonserver/backends/{be}/, or set --backend-directory to where it is.",
               areas=("libraries",), sources=(_TRITON_BACKENDS,))
    return _match(sig, text, at, {"be": m.group("be")})


# onnxruntime-web picks a backend from the execution providers asked for; the WebGPU backend ships only in its WebGPU
# bundles (ort.webgpu.min.js, the onnxruntime-web/webgpu import), not in the default ort.min.js
_ORT_WEB = re.compile(r"no available backend found\.? ERR: \[(?P<be>webgpu|webnn|wasm|webgl)\] (?P<why>[^\n]{0,120})")
_ORT_WEBGPU = {"url": "https://onnxruntime.ai/docs/tutorials/web/ep-webgpu.html",
               "what": "ONNX Runtime Web's WebGPU execution provider: import from onnxruntime-web/webgpu (ort.webgpu.min.js)"}


def onnxruntime_web_backend_missing(ent, text):
    m, at = last_in_tail(_ORT_WEB, text, "no available backend found")
    if m is None:
        return None
    be = m.group("be")
    # "backend not found", or the bundle's JavaScript and its .wasm files of different builds ("null function or
    # function signature mismatch"): the files the page loads, not the browser
    bundle = re.search(r"backend not found|signature mismatch|\.wasm", m.group("why")) is not None
    sig = _sig("onnxruntime-web-backend-missing", "torch-build" if bundle else "driver",
               "ONNX Runtime Web has no usable {be} backend", 80,
               ("The page loads an onnxruntime-web bundle without the {be} backend: the WebGPU one ships only in "
                "ort.webgpu.min.js / the onnxruntime-web/webgpu import, not in the default ort.min.js." if bundle else
                "ONNX Runtime Web's {be} backend failed to start in this browser: the browser or its GPU does not offer it "
                "(WebGPU needs a recent Chrome/Edge with a supported GPU and driver), or the bundle does not match."),
               fix=("Load the WebGPU build: `import * as ort from 'onnxruntime-web/webgpu'` (or the script "
                    "ort.webgpu.min.js), then ask for executionProviders: ['webgpu']." if bundle else
                    "Check `navigator.gpu` in that browser (chrome://gpu), update the browser and GPU driver, and keep "
                    "'wasm' after '{be}' in executionProviders so the model still runs; load the bundle for {be} "
                    "(onnxruntime-web/webgpu)."),
               areas=("libraries",), sources=(_ORT_WEBGPU,))
    return _match(sig, text, at, {"be": be})


# tfjs-node / tfjs-node-gpu load their native addon (lib/napi-vN/tfjs_binding.node), which links the TensorFlow C library
# (tensorflow.dll / libtensorflow.so) and, in the GPU package, CUDA's and cuDNN's
_TFJS_NOT_BUILT = re.compile(r"The Node\.js native addon module \(tfjs_binding\.node\) can not be found")
_TFJS_DLL = re.compile(r"Error: The specified module could not be found\.\s{0,4}\\{1,2}\?\\[^\n]{0,300}?tfjs_binding\.node")
_TFJS_README = {"url": "https://github.com/tensorflow/tfjs/tree/master/tfjs-node#troubleshooting",
                "what": "tfjs-node troubleshooting: rebuilding the native addon; tfjs-node-gpu's CUDA and cuDNN"}


def tfjs_node_addon_unloadable(ent, text):
    m, at = last_in_tail(_TFJS_DLL, text, "tfjs_binding.node")
    if m is not None:
        sig = _sig("tfjs-node-dll-missing", "windows-runtime",
                   "Windows cannot load tfjs-node's addon: a DLL it needs is missing", 84,
                   "Node loads tfjs_binding.node, which needs tensorflow.dll beside it and, for tfjs-node-gpu, the CUDA "
                   "and cuDNN DLLs of the TensorFlow release it bundles; \"The specified module could not be found\" "
                   "(Windows error 126) means one of those DLLs is not on the search path.",
                   fix="Reinstall the package so its lib folder holds tensorflow.dll (`npm rebuild @tensorflow/tfjs-node-gpu`, "
                       "or `npm i` again), install the Microsoft Visual C++ Redistributable (x64), and for tfjs-node-gpu "
                       "install the CUDA and cuDNN versions its TensorFlow release needs (its README's table) with their "
                       "bin folders on PATH; or use @tensorflow/tfjs-node (CPU).",
                   areas=("libraries",), sources=(_TFJS_README,))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_TFJS_NOT_BUILT, text, "tfjs_binding.node")
    if m is None:
        return None
    sig = _sig("tfjs-node-addon-not-built", "toolchain", "tfjs-node's native addon was not built or downloaded", 82,
               "@tensorflow/tfjs-node(-gpu) downloads TensorFlow's C library and builds its native addon "
               "(tfjs_binding.node) at install time; the install step failed or was skipped (a proxy, a Node version "
               "without a prebuilt addon, build tools missing), so the addon is not there.",
               fix="Rebuild it: `npm rebuild @tensorflow/tfjs-node-gpu --build-addon-from-source` (the same for "
                   "@tensorflow/tfjs-node), with the build tools node-gyp needs (Python, a C++ compiler: Visual Studio's "
                   "C++ workload on Windows), and read the install log for the download or build error.",
               areas=("toolchain",), sources=(_TFJS_README,))
    return _match(sig, text, at, {})


# onnxruntime/core/framework/session_state.cc, VerifyEachNodeIsAssignedToAnEp: a warning that some nodes run on the CPU
# provider (ORT places shape-related ops there on purpose); the session was created and runs
_ORT_NODES_CPU = re.compile(r"Some nodes were not assigned to the preferred execution providers")
_ORT_EP_DOC = {"url": "https://onnxruntime.ai/docs/execution-providers/",
               "what": "ONNX Runtime's execution providers: nodes a provider cannot run fall back to the CPU provider"}


def onnxruntime_nodes_on_cpu_notice(ent, text):
    m, at = last_in_tail(_ORT_NODES_CPU, text, "preferred execution providers")
    if m is None or re.search(r"Traceback \(most recent call last\)|\b[A-Z]\w{2,40}(?:Error|Exception): ", text[at:]):
        return None
    sig = _sig("onnxruntime-nodes-on-cpu-notice", "not-environment",
               "ONNX Runtime ran some nodes on the CPU provider (a notice)", 66,
               "ONNX Runtime assigns each node of the model to the first execution provider that can run it and warns when "
               "some end up on the CPU provider; it places shape-related ops there on purpose. The GPU provider is loaded "
               "and runs the rest; nothing failed.",
               look_at="Nothing to install. If speed matters, see which nodes went to the CPU (session log severity 0 / "
                       "verbose) and whether the model can use ops the GPU provider supports.",
               sources=(_ORT_EP_DOC,))
    return _match(sig, text, at, {})
