"""Maintainers' script (not shipped): the error-code tables of torch_envcheck/knowledge/data/error_codes.json,
generated from the public headers that declare each enumeration, and, where the library itself is at hand,
the message its own *GetErrorString function returns (the words users paste).

    python benchmarks/gen_error_tables.py --write            regenerate the file from the headers found
    python benchmarks/gen_error_tables.py --nvml-h PATH      nvml.h (not in the CUDA wheels: NVIDIA/go-nvml
                                                              vendors it; give its path and --nvml-source)
    python benchmarks/gen_error_tables.py --hip-h PATH       hip_runtime_api.h (ROCm/HIP; also inside the
                                                              triton wheel, triton/backends/amd/include/hip/)
    python benchmarks/gen_error_tables.py --ur-h PATH --ur-commit SHA
                                                             ur_api.h (oneapi-src/unified-runtime,
                                                              include/unified-runtime/ur_api.h, at commit SHA)
    python benchmarks/gen_error_tables.py --windows-include DIR --windows-commit SHA
                                                             winerror.h + ntstatus.h (tpn/winsdk-10,
                                                              Include/10.0.10240.0/shared, at commit SHA)
    python benchmarks/gen_error_tables.py --vk-xml PATH --vk-commit SHA
                                                             vk.xml (KhronosGroup/Vulkan-Headers, registry/vk.xml,
                                                              at commit SHA): Vulkan's VkResult

Headers are found in the installed nvidia-* wheels (site-packages/nvidia/...), the triton wheel and
CUDA_HOME; every family records the distribution, its version and the path inside it, or the repository,
path and commit it was read from.  tests/unit/knowledge/test_error_codes.py regenerates every family whose
header is present and checks the shipped table agrees (a family whose header is absent is skipped, named).

The layer of each code (what explain calls the layer: driver, arch, libraries, ...) is classified here from
the words of its name (CLASSIFY), the one hand-made part; the names, numbers and descriptions come only from
the headers.  Windows' codes come from the Windows SDK's winerror.h and ntstatus.h (gen_windows_codes.py, which
also holds the hand notes merged onto them), given with --windows-include; errnos and signals come from the Linux
UAPI headers."""

from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import re
import sys

import gen_vulkan_codes
import gen_windows_codes

SCHEMA = "torch_envcheck.error_codes/1"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "torch_envcheck", "knowledge", "data", "error_codes.json")

# family: the enum's typedef name, how to find its body, the header (wheel-relative candidates and the
# toolkit's), the distribution that ships the header, its library (for the message function), the layer
# a code of this family gets unless CLASSIFY says otherwise.
FAMILIES = [
    {"enum": "cudaError_t", "library": "CUDA runtime", "start": r"enum\s+__device_builtin__\s+cudaError\s*\{",
     "header": "driver_types.h", "wheel": ("nvidia-cuda-runtime", "nvidia/cu13/include/driver_types.h"),
     "lib": "nvidia/cu13/lib/libcudart.so.13", "message_fn": "cudaGetErrorString", "prefix": "cuda(?:Error)?",
     "default_layer": "not-environment",
     # "not supported on the current system or device" (the header's own words): the platform's, not the program's
     "overrides": {"cudaErrorNotSupported": "driver"}},
    {"enum": "CUresult", "library": "CUDA driver API", "start": r"typedef\s+enum\s+cudaError_enum\s*\{",
     "header": "cuda.h", "wheel": ("nvidia-cuda-runtime", "nvidia/cu13/include/cuda.h"),
     "prefix": "CUDA_(?:ERROR_)?", "default_layer": "not-environment",
     "overrides": {"CUDA_ERROR_NOT_SUPPORTED": "driver"}},
    {"enum": "cublasStatus_t", "library": "cuBLAS", "end": "cublasStatus_t", "header": "cublas_api.h",
     "wheel": ("nvidia-cublas", "nvidia/cu13/include/cublas_api.h"), "lib": "nvidia/cu13/lib/libcublas.so.13",
     "message_fn": "cublasGetStatusString", "prefix": "CUBLAS_STATUS_", "default_layer": "not-environment",
     # cublasCreate fails so when the handle's workspace cannot be allocated: out of memory, in practice
     "overrides": {"CUBLAS_STATUS_NOT_INITIALIZED": "not-environment"}},
    {"enum": "cusparseStatus_t", "library": "cuSPARSE", "end": "cusparseStatus_t", "header": "cusparse.h",
     "wheel": ("nvidia-cusparse", "nvidia/cu13/include/cusparse.h"), "lib": "nvidia/cu13/lib/libcusparse.so.12",
     "message_fn": "cusparseGetErrorString", "prefix": "CUSPARSE_STATUS_", "default_layer": "not-environment"},
    {"enum": "cusolverStatus_t", "library": "cuSOLVER", "end": "cusolverStatus_t", "header": "cusolver_common.h",
     "wheel": ("nvidia-cusolver", "nvidia/cu13/include/cusolver_common.h"), "prefix": "CUSOLVER_STATUS_",
     "default_layer": "not-environment"},
    {"enum": "cufftResult", "library": "cuFFT", "end": "cufftResult", "header": "cufft.h",
     "wheel": ("nvidia-cufft", "nvidia/cu13/include/cufft.h"), "prefix": "CUFFT_", "default_layer": "not-environment",
     # raised from inside the library on a valid plan: in practice a cuFFT without code for the GPU (torch built with
     # CUDA 11.7 on Ada/Hopper: pytorch/pytorch#88038), so the GPU's architecture against the build's CUDA
     "overrides": {"CUFFT_INTERNAL_ERROR": "arch"}},
    {"enum": "curandStatus_t", "library": "cuRAND", "start": r"enum\s+curandStatus\s*\{", "header": "curand.h",
     "wheel": ("nvidia-curand", "nvidia/cu13/include/curand.h"), "prefix": "CURAND_STATUS_",
     "default_layer": "not-environment"},
    {"enum": "nvrtcResult", "library": "NVRTC", "end": "nvrtcResult", "header": "nvrtc.h",
     "wheel": ("nvidia-cuda-nvrtc", "nvidia/cu13/include/nvrtc.h"), "lib": "nvidia/cu13/lib/libnvrtc.so.13",
     "message_fn": "nvrtcGetErrorString", "prefix": "NVRTC_(?:ERROR_)?", "default_layer": "toolchain"},
    {"enum": "nvJitLinkResult", "library": "nvJitLink", "end": "nvJitLinkResult", "header": "nvJitLink.h",
     "wheel": ("nvidia-nvjitlink", "nvidia/cu13/include/nvJitLink.h"), "prefix": "NVJITLINK_(?:ERROR_)?",
     "default_layer": "libraries"},
    {"enum": "cudnnStatus_t", "library": "cuDNN", "end": "cudnnStatus_t", "header": "cudnn_graph.h",
     "wheel": ("nvidia-cudnn-cu13", "nvidia/cudnn/include/cudnn_graph.h"), "lib": "nvidia/cudnn/lib/libcudnn.so.9",
     "message_fn": "cudnnGetErrorString", "prefix": "CUDNN_STATUS_", "default_layer": "not-environment"},
    {"enum": "ncclResult_t", "library": "NCCL", "end": "ncclResult_t", "header": "nccl.h",
     "wheel": ("nvidia-nccl-cu13", "nvidia/nccl/include/nccl.h"), "lib": "nvidia/nccl/lib/libnccl.so.2",
     "message_fn": "ncclGetErrorString", "prefix": "nccl", "default_layer": "distributed",
     "overrides": {"ncclInvalidArgument": "not-environment", "ncclInvalidUsage": "distributed",
                   "ncclTimeout": "distributed"}},
    # CUPTI, the profiling interface under torch.profiler (Kineto), TensorFlow's profiler and Nsight: its
    # insufficient-privileges code is the driver's restriction of the performance counters to administrators
    # (NVreg_RestrictProfilingToAdminUsers); not-initialized is the libcupti/libcuda pair the loader found
    {"enum": "CUptiResult", "library": "CUPTI", "end": "CUptiResult", "header": "cupti_result.h",
     # (no message function: cuptiGetResultString returns its text through a pointer argument, not as the others do;
     # users paste CUPTI's codes by name)
     "wheel": ("nvidia-cuda-cupti", "nvidia/cu13/include/cupti_result.h"), "prefix": "CUPTI_(?:ERROR_)?",
     "default_layer": "not-environment",
     "overrides": {"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES": "driver", "CUPTI_ERROR_NOT_INITIALIZED": "libraries",
                   "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED": "env", "CUPTI_ERROR_FORCE_INT": "none"}},
    # NVML's shared library (libnvidia-ml, nvml.dll) is the driver's own: not finding it, or finding one that lacks a
    # function the caller was written for ("Local version of NVML doesn't implement this function"), is the driver
    {"enum": "nvmlReturn_t", "library": "NVML", "end": "nvmlReturn_t", "header": "nvml.h", "external": "nvml",
     "prefix": "NVML_(?:ERROR_)?", "default_layer": "not-environment",
     "overrides": {"NVML_ERROR_LIBRARY_NOT_FOUND": "driver", "NVML_ERROR_FUNCTION_NOT_FOUND": "driver"}},
    {"enum": "hipError_t", "library": "HIP (ROCm)", "end": "hipError_t", "header": "hip_runtime_api.h", "external": "hip",
     "wheel": ("triton", "triton/backends/amd/include/hip/hip_runtime_api.h"), "prefix": "hip(?:Error)?",
     "default_layer": "not-environment"},
    # oneAPI's Unified Runtime, under SYCL and so under torch's XPU builds ("level_zero backend failed with error: 20
    # (UR_RESULT_ERROR_DEVICE_LOST)"): a lost or absent device, and a device-side program that will not build for the
    # GPU (the features it lacks, FP64 on integrated GPUs), are the platform's; the rest the program's
    {"enum": "ur_result_t", "library": "Unified Runtime (oneAPI, SYCL)", "end": "ur_result_t", "header": "ur_api.h",
     "external": "ur", "prefix": "UR_RESULT_(?:ERROR_)?", "default_layer": "not-environment",
     "overrides": {"UR_RESULT_ERROR_DEVICE_LOST": "driver", "UR_RESULT_ERROR_DEVICE_REQUIRES_RESET": "driver",
                   "UR_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE": "driver", "UR_RESULT_ERROR_DEVICE_NOT_FOUND": "driver",
                   "UR_RESULT_ERROR_DEVICE_NOT_AVAILABLE": "driver", "UR_RESULT_ERROR_COMPILER_NOT_AVAILABLE": "driver",
                   "UR_RESULT_ERROR_PROGRAM_BUILD_FAILURE": "arch", "UR_RESULT_ERROR_UNSUPPORTED_FEATURE": "arch",
                   # image objects (a program's images), not binary images
                   "UR_RESULT_ERROR_INVALID_IMAGE_SIZE": "not-environment",
                   "UR_RESULT_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR": "not-environment",
                   "UR_RESULT_FORCE_UINT32": "none"}},
    # MIOpen, ROCm's cuDNN: its Exception's default status is miopenStatusUnknownError (src/include/miopen/errors.hpp),
    # so every MIOPEN_THROW without a status (a kernel that does not compile, a database it cannot read or lock, a
    # configuration no solver handles) surfaces as it; InternalError is "MIOpen failure": both are ROCm's library
    {"enum": "miopenStatus_t", "library": "MIOpen (ROCm)", "end": "miopenStatus_t", "header": "miopen.h",
     "external": "miopen", "prefix": "miopenStatus", "default_layer": "not-environment",
     "overrides": {"miopenStatusUnknownError": "rocm", "miopenStatusInternalError": "rocm",
                   "miopenStatusGpuOperationsSkipped": "none",
                   # "of the supplied binary data argument": the caller's serialized data, not the installation
                   "miopenStatusVersionMismatch": "not-environment"}},
]

# The layer of a code from the words of its name (lower case, prefix and underscores removed), first match
# wins, for every family.  "not-environment": the program or the workload (bad argument, illegal address, out
# of memory); the rest name the part of the installation or machine to look at.
CLASSIFY = [
    (r"^(success|noerror|notready|inprogress|numresults|tbd)$", "none"),
    # "called during process shut down, after the CUDA driver has been unloaded" (the headers' words): the
    # program's exit order (a destructor, an atexit handler, a thread outliving main), not the installation
    (r"^deinitialized$|^cudartunloading$", "not-environment"),
    # invalidptx: the driver's JIT could not compile the PTX, which the runtime's advice and NVIDIA's
    # compatibility guide both put on a driver older than the toolkit that wrote it
    (r"insufficientdriver|driverversion|callrequiresnewerdriver|unsupportedptxversion|invalidptx|systemdrivermismatch|"
     r"compatnotsupportedondevice|libraryversionmismatch|versionmismatch|librmversionmismatch|rmversion", "driver"),
    (r"nobinaryforgpu|nokernelimage|invalidkernelimage|^invalidimage|invalidkernelfile|archmismatch|"
     r"unsupportedarch|invalidsource|jitcompilationdisabled|"
     r"unsupporteddevsideSync|invaliddevicefunction", "arch"),
    # invalidgraphicscontext: "an error with the OpenGL or DirectX context" (the headers' words): CUDA's interop with the
    # graphics driver's context (EGL, GLX, WGL), not an architecture
    (r"driverno?tloaded|invalidgraphicscontext|nodevice|devicenotlicensed|systemnotready|startupfailure|eccnotcorrectable|"
     r"operatingsystem|gpuislost|gpunotfound|insufficientpower|irqissue|^notpermitted|nopermission|"
     r"^notinitialized$|^uninitialized|^initializationerror|^initializationfailed|"
     r"resetrequired|corruptedinforom|^unknown$|^hardwarestackerror|eccuncorrectable|"
     r"nvlinkuncorrectable|externaldevice|^contained$|^timeout$|launchtimeout|^lost$", "driver"),
    # stublibrary: the toolkit's stub libcuda was loaded instead of the driver's (a stubs folder on the loader's path)
    (r"stublibrary|jitcompilernotfound|sharedobject|filenotfound|librarynotfound|functionnotfound|missingdependency|"
     r"sublibrary|nvrtcfailure|nvjitlinkfailure|nvshmemfailure|builtinoperationfailure|licenseerror|"
     r"invalidlicense|licensenotfound", "libraries"),
    (r"invaliddevice$|invaliddeviceordinal|invalidvisibledevices|^devicesunavailable$|^deviceunavailable$|"
     r"devicesbusy|^mps(?:connectionfailed|serverNotReady|maxclientsreached|maxconnectionsreached)$", "env"),
    # toomanypeers: peer access enabled to more GPUs than the hardware maps (8 per device), the shape of a launch
    # that gives each process every GPU instead of its own
    (r"systemerror|remoteerror|unhandledcudaerror|toomanypeers", "distributed"),
    (r"compilation|invalidoption|programcreationfailure|pchcreate|timefilewritefailed|timetracefilewritefailed",
     "toolchain"),
]

# The three families whose codes need no layer of their own: explain reads them through CLASSIFY as well.
LAYERS_OK = {"none", "driver", "arch", "libraries", "env", "distributed", "toolchain", "not-environment", "rocm", "cudnn"}


def classify(family: dict, name: str) -> str:
    layer = _classify(family, name)
    if family["enum"] in ("hipError_t", "miopenStatus_t") and layer not in ("none", "not-environment"):
        return "rocm"  # ROCm's driver, targets and libraries: one layer
    if family["enum"] == "cudnnStatus_t" and layer in ("driver", "libraries"):
        return "cudnn"  # cuDNN's start-up and sub-libraries: its own layer
    return layer


def _classify(family: dict, name: str) -> str:
    if name in family.get("overrides", {}):
        return family["overrides"][name]
    bare = re.sub("^" + family["prefix"], "", name)
    key = bare.replace("_", "").lower()
    for pattern, layer in CLASSIFY:
        if re.search(pattern.lower(), key):
            return layer
    return family["default_layer"]


# --- C enum bodies ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"/\*.*?\*/|//[^\n]*|\n|[^/\n]+|/", re.S)


def enum_body(text: str, family: dict) -> str | None:
    """The text between the braces of the family's enum, or None when the header does not declare it."""
    if family.get("start"):
        m = re.search(family["start"], text)
        if not m:
            return None
        end = text.index("}", m.end())
        return text[m.end():end]
    m = re.search(r"\}\s*" + re.escape(family["end"]) + r"\s*;", text)
    if not m:
        return None
    close = m.start()
    depth, i = 0, close
    while i >= 0:  # back to the matching brace
        if text[i] == "}":
            depth += 1
        elif text[i] == "{":
            depth -= 1
            if depth == 0:
                return text[i + 1:close]
        i -= 1
    return None


def _comment_text(c: str) -> str:
    c = re.sub(r"^/\*+[!<]{0,2}|\*+/$|^//+[!<]{0,2}", "", c.strip())
    lines = [re.sub(r"^\s*\*+\s?", "", ln).strip() for ln in c.split("\n")]
    return " ".join(ln for ln in lines if ln).strip()


def _first_sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"@since [^.]*\.?|\\\w+\s?|::", "", text).strip()
    m = re.match(r"(.{12,}?[.!])(?:\s|$)", text)
    return (m.group(1) if m else text).strip()


def parse_enum(body: str) -> list:
    """[{name, value, description, deprecated, alias_of}] in declaration order.  Comments: a trailing
    `///<`, `//!<`, `/**<` one belongs to the entry before it; any other comment before an entry (after
    the previous comma) documents the next entry; one inside an entry (before its comma) is its own."""
    entries, pre, cur, cur_comments, carry = [], [], "", [], []
    post_target = None

    def close_entry():
        nonlocal cur, cur_comments, pre, carry
        code = re.sub(r"^\s*#.*$", "", cur, flags=re.M).strip()
        if code:
            entries.append({"code": code, "pre": pre, "inline": cur_comments, "post": []})
        pre, cur, cur_comments, carry = carry, "", [], []
        return entries[-1] if code else None

    for tok in _TOKEN.findall(body):
        if tok.startswith("/*") or tok.startswith("//"):
            trailing = re.match(r"(/\*\*<|/\*!<|//!<|///<)", tok)
            if trailing and (not cur.strip() or not re.search(r"[A-Za-z_]", re.sub(r"^\s*#.*$", "", cur, flags=re.M))):
                if post_target is not None:
                    post_target["post"].append(tok)
                continue
            if re.search(r"[A-Za-z_]", re.sub(r"^\s*#.*$", "", cur, flags=re.M)):
                # a doc comment (/** or ///) written before the comma documents the next entry
                (carry if re.match(r"/\*\*|///", tok) else cur_comments).append(tok)
            else:
                pre.append(tok)
            continue
        if tok == "\n":
            cur += "\n"
            continue
        for ch_part in re.split(r"(,)", tok):
            if ch_part == ",":
                post_target = close_entry()
            else:
                cur += ch_part
    post_target = close_entry() or post_target

    out, values, last = [], {}, -1
    for e in entries:
        # (a C++ attribute between the name and its value, "UR_RESULT_ERROR_INVALID_KERNEL_ARGS [[deprecated]] = 27")
        code = re.sub(r"\[\[[^\]]{1,80}\]\]", " ", e["code"])
        m = re.match(r"([A-Za-z_]\w*)(?:\s+[A-Z_]+(?:\([^)]*\))?)?\s*(?:=\s*(.+))?$", re.sub(r"\s+", " ", code).strip())
        if not m:
            continue
        name, expr = m.group(1), (m.group(2) or "").strip()
        alias = None
        if not expr:
            value = last + 1
        elif re.fullmatch(r"-?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*", expr):
            value = int(expr.rstrip("uUlL"), 0)
        elif expr in values:
            value, alias = values[expr], expr
        else:
            raise ValueError(f"{name}: cannot evaluate {expr!r}")
        values[name] = value
        last = value
        docs = [c for c in e["post"]] or [c for c in e["inline"] if re.match(r"/\*\*<|/\*!<|//!<|///<", c)] \
            or [c for c in e["pre"] if c.startswith("/**") or c.startswith("///")] or []
        text = " ".join(_comment_text(c) for c in docs)
        deprecated = bool(re.search(r"deprecated", " ".join(_comment_text(c) for c in e["pre"] + e["inline"] + e["post"]),
                                    re.I)) or "DEPRECATED" in e["code"] or "[[deprecated]]" in e["code"]
        text = re.sub(r"^\s*@deprecated\s*", "Deprecated: ", text)
        out.append({"name": name, "value": value, "description": _first_sentence(text) if text else None,
                    "deprecated": deprecated, "alias_of": alias})
    return out


# --- where headers come from -----------------------------------------------------------------------

def site_packages() -> list:
    import site  # noqa: PLC0415
    paths = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()] + sys.path
    return [p for p in dict.fromkeys(paths) if p and os.path.isdir(p)]


def dist_version(dist: str) -> str | None:
    from importlib import metadata  # noqa: PLC0415
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def find_in_wheel(rel: str) -> str | None:
    rel_parts = rel.split("/")
    for sp in site_packages():
        p = os.path.join(sp, *rel_parts)
        if os.path.isfile(p):
            return p
    return None


def header_for(family: dict, external: dict, keep_shipped: bool = False) -> tuple:
    """(path, source dict) of the family's header, or (None, reason)."""
    ext = family.get("external")
    if ext and external.get(ext):
        path, source = external[ext]
        return path, dict(source)
    if ext and keep_shipped:
        # a family generated before from its own repository's header: without that header at hand the shipped
        # table stays (a wheel's copy would replace its source with another)
        return None, f"{family['header']}: no --{ext}-h given"
    wheel = family.get("wheel")
    if wheel:
        dist, rel = wheel
        path = find_in_wheel(rel)
        version = dist_version(dist)
        if path and version:
            return path, {"distribution": dist, "version": version, "path": rel,
                          "url": f"https://pypi.org/project/{dist}/{version}/"}
    if ext == "nvml":
        return None, "nvml.h: not in any nvidia-* wheel; pass --nvml-h (NVIDIA/go-nvml gen/nvml/nvml.h)"
    return None, f"{family['header']}: not found in the installed wheels"


def messages(family: dict, codes: list) -> dict:
    """value -> the library's own message for it (its *GetErrorString), when the library loads."""
    rel, fn = family.get("lib"), family.get("message_fn")
    path = find_in_wheel(rel) if rel else None
    if not path:
        return {}
    try:
        lib = ctypes.CDLL(path)
        f = getattr(lib, fn)
    except (OSError, AttributeError):
        return {}
    f.restype, f.argtypes = ctypes.c_char_p, [ctypes.c_int]
    out = {}
    for c in codes:
        raw = f(c["value"])
        out[c["value"]] = raw.decode("utf-8", "replace") if raw else None
    return out


def family_table(family: dict, external: dict, with_messages: bool = True, keep_shipped: bool = False) -> tuple:
    """(table, None) or (None, why it is skipped)."""
    path, source = header_for(family, external, keep_shipped)
    if path is None:
        return None, source
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    body = enum_body(text, family)
    if body is None:
        return None, f"{path}: no {family['enum']} enum"
    codes = parse_enum(body)
    msgs = messages(family, codes) if with_messages else {}
    rows = []
    for c in codes:
        layer = classify(family, c["name"])
        row = {"name": c["name"], "value": c["value"], "layer": layer, "description": c["description"]}
        if c["deprecated"]:
            row["deprecated"] = True
        if c["alias_of"]:
            row["alias_of"] = c["alias_of"]
        message = msgs.get(c["value"])
        # cuDNN's and NVRTC's functions return the code's name: no message of their own
        if message and message != c["name"]:
            row["message"] = message
        rows.append(row)
    table = {"enum": family["enum"], "library": family["library"], "header": family["header"], "source": source,
             "codes": rows}
    if msgs:
        table["messages_from"] = {"function": family["message_fn"], "library_file": family["lib"],
                                  "distribution": source.get("distribution"), "version": source.get("version")}
    return table, None


# --- errnos and signals (Linux UAPI headers) ---------------------------------------------------------

# The errnos and signals that show up in deep-learning failures, and the layer explain gives them.
ERRNOS = {"EPERM": "env", "ENOENT": "env", "EIO": "driver", "ENXIO": "driver", "E2BIG": "env", "ENOEXEC": "env",
          "EAGAIN": "env", "ENOMEM": "env", "EACCES": "env", "EBUSY": "env", "EEXIST": "env", "ENODEV": "driver",
          "EINVAL": "not-environment", "ENFILE": "env", "EMFILE": "env", "ETXTBSY": "env", "ENOSPC": "container",
          "EROFS": "env", "EPIPE": "distributed", "ENAMETOOLONG": "env", "ENOSYS": "env", "ELOOP": "env",
          "EADDRINUSE": "distributed", "EADDRNOTAVAIL": "distributed", "ENETUNREACH": "distributed",
          "ECONNRESET": "distributed", "ECONNREFUSED": "distributed", "ETIMEDOUT": "distributed",
          "EHOSTUNREACH": "distributed", "EDQUOT": "env", "ECONNABORTED": "distributed", "ENOTCONN": "distributed",
          "ELIBBAD": "libraries", "ELIBACC": "libraries"}
SIGNALS = {"SIGILL": "env", "SIGABRT": "not-environment", "SIGBUS": "container", "SIGFPE": "not-environment",
           "SIGKILL": "env", "SIGSEGV": "not-environment", "SIGTERM": "env"}
_DEFINE = re.compile(r"^#define\s+(E[A-Z0-9]+|SIG[A-Z0-9]+)\s+(\d+)\s*(?:/\*\s*(.*?)\s*\*/)?", re.M)


def linux_table(kind: str) -> tuple:
    files = (["/usr/include/asm-generic/errno-base.h", "/usr/include/asm-generic/errno.h"] if kind == "errno"
             else ["/usr/include/asm-generic/signal.h"])
    wanted = ERRNOS if kind == "errno" else SIGNALS
    rows = {}
    for f in files:
        if not os.path.isfile(f):
            return None, f"{f}: absent (Debian's linux-libc-dev ships it)"
        with open(f, encoding="utf-8", errors="replace") as fh:
            for m in _DEFINE.finditer(fh.read()):
                if m.group(1) in wanted and m.group(1) not in rows:
                    rows[m.group(1)] = {"name": m.group(1), "value": int(m.group(2)), "layer": wanted[m.group(1)],
                                        "description": m.group(3) or None}
    if kind == "signal":
        for name, row in rows.items():
            # strsignal()'s words ("Bus error", "Killed"), what a shell or torch.multiprocessing prints
            import signal as _signal  # noqa: PLC0415
            try:
                row["message"] = _signal.strsignal(getattr(_signal, name))
            except (AttributeError, ValueError):
                pass
    else:
        for row in rows.values():
            row["message"] = os.strerror(row["value"])
    missing = set(wanted) - set(rows)
    if missing:
        return None, f"{files}: missing {sorted(missing)}"
    version = None
    try:
        import subprocess  # noqa: PLC0415
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "linux-libc-dev"], capture_output=True,
                                 text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    rel = [f.replace("/usr/include/", "include/uapi/") for f in files]
    table = {"enum": "errno" if kind == "errno" else "signal", "library": "Linux",
             "header": ", ".join(os.path.basename(f) for f in files),
             "source": {"distribution": "linux-libc-dev (Debian)", "version": version,
                        "path": ", ".join(files),
                        "url": "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/" + rel[0]},
             "codes": sorted(rows.values(), key=lambda r: r["value"])}
    return table, None


# --- assembly ----------------------------------------------------------------------------------------

def generate(external: dict | None = None, with_messages: bool = True, windows_include: str | None = None,
             windows_commit: str = "unknown", keep_shipped: bool = False, vk_xml: str | None = None,
             vk_commit: str = "unknown") -> tuple:
    """({enum: table}, {enum: why skipped}).  keep_shipped: a family read from its own repository's header (external)
    whose header is not given is skipped, so the shipped table stays, instead of being read from a wheel's copy."""
    external = external or {}
    tables, skipped = {}, {}
    for fam in FAMILIES:
        t, why = family_table(fam, external, with_messages, keep_shipped)
        if t is None:
            skipped[fam["enum"]] = why
        else:
            tables[fam["enum"]] = t
    for kind in ("errno", "signal"):
        t, why = linux_table(kind)
        if t is None:
            skipped[kind] = why
        else:
            tables[t["enum"]] = t
    if windows_include:
        t, why = gen_windows_codes.windows_table(windows_include, windows_commit)
        if t is None:
            skipped["windows"] = why
        else:
            tables["windows"] = t
    else:
        skipped["windows"] = "no --windows-include (the Windows SDK's winerror.h and ntstatus.h are not on Linux)"
    if vk_xml:
        t, why = gen_vulkan_codes.vulkan_table(vk_xml, vk_commit)
        if t is None:
            skipped["VkResult"] = why
        else:
            tables["VkResult"] = t
    else:
        skipped["VkResult"] = "no --vk-xml (Vulkan's registry, vk.xml, comes with the Vulkan SDK or Vulkan-Headers)"
    for t in tables.values():
        bad = {c["layer"] for c in t["codes"]} - LAYERS_OK - {"windows-runtime", "container"}
        assert not bad, (t["enum"], bad)
    return tables, skipped


def _external(args) -> dict:
    ext = {}
    if args.nvml_h:
        ext["nvml"] = (args.nvml_h, {"repository": "https://github.com/NVIDIA/go-nvml", "path": "gen/nvml/nvml.h",
                                     "commit": args.nvml_commit, "url": f"https://github.com/NVIDIA/go-nvml/blob/"
                                     f"{args.nvml_commit}/gen/nvml/nvml.h"})
    if args.hip_h:
        ext["hip"] = (args.hip_h, {"repository": "https://github.com/ROCm/HIP", "path": "include/hip/hip_runtime_api.h",
                                   "commit": args.hip_commit, "url": f"https://github.com/ROCm/HIP/blob/"
                                   f"{args.hip_commit}/include/hip/hip_runtime_api.h"})
    if args.miopen_h:
        ext["miopen"] = (args.miopen_h, {"repository": "https://github.com/ROCm/MIOpen", "path": "include/miopen/miopen.h",
                                         "commit": args.miopen_commit, "url": f"https://github.com/ROCm/MIOpen/blob/"
                                         f"{args.miopen_commit}/include/miopen/miopen.h"})
    if args.ur_h:
        ext["ur"] = (args.ur_h, {"repository": "https://github.com/oneapi-src/unified-runtime",
                                 "path": "include/unified-runtime/ur_api.h", "commit": args.ur_commit,
                                 "url": f"https://github.com/oneapi-src/unified-runtime/blob/{args.ur_commit}/include/"
                                        "unified-runtime/ur_api.h"})
    return ext


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help=f"write {os.path.relpath(OUT)}")
    p.add_argument("--nvml-h"), p.add_argument("--nvml-commit", default="unknown")
    p.add_argument("--hip-h"), p.add_argument("--hip-commit", default="unknown")
    p.add_argument("--miopen-h"), p.add_argument("--miopen-commit", default="unknown")
    p.add_argument("--ur-h"), p.add_argument("--ur-commit", default="unknown")
    p.add_argument("--windows-include", metavar="DIR", help="a folder holding the Windows SDK's winerror.h and "
                   f"ntstatus.h ({gen_windows_codes.REPO}, {gen_windows_codes.SDK_DIR})")
    p.add_argument("--windows-commit", default="unknown", help="the commit of that repository they were read at")
    p.add_argument("--vk-xml", metavar="PATH", help=f"Vulkan's registry ({gen_vulkan_codes.REPO}, {gen_vulkan_codes.PATH})")
    p.add_argument("--vk-commit", default="unknown", help="the commit of Vulkan-Headers it was read at")
    args = p.parse_args(argv)
    tables, skipped = generate(_external(args), windows_include=args.windows_include,
                               keep_shipped=args.write and os.path.isfile(OUT),
                               windows_commit=args.windows_commit, vk_xml=args.vk_xml, vk_commit=args.vk_commit)
    if skipped and args.write and os.path.isfile(OUT):
        # keep the families whose header is not at hand from the shipped file (they were generated before)
        with open(OUT, encoding="utf-8") as fh:
            old = json.load(fh)["tables"]
        for enum in skipped:
            if enum in old:
                tables[enum] = old[enum]
    order = [f["enum"] for f in FAMILIES] + ["errno", "signal", "windows", "VkResult"]
    doc = {"schema": SCHEMA,
           "about": "Error codes of CUDA, its libraries, CUPTI, NVML, HIP, MIOpen, Unified Runtime, Vulkan, Linux and Windows: name, number, the header's "
                    "description, the library's own message where it has one, and the layer explain gives the "
                    "code. Generated by benchmarks/gen_error_tables.py from the headers cited in each table's "
                    "source; regenerate, never edit by hand.",
           "tables": {k: tables[k] for k in order if k in tables}}
    for enum, why in skipped.items():
        print(f"skipped {enum}: {why}" + (" (kept from the shipped file)" if enum in doc["tables"] else ""),
              file=sys.stderr)
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    if args.write:
        with open(OUT, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {OUT}: {sum(len(t['codes']) for t in doc['tables'].values())} codes in {len(doc['tables'])} "
              "tables", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
