"""What an error text is made of: the named things in it, read from their own structure rather than from
the sentence around them.

    entities(text) -> Entities

    codes       error codes by name (cudaErrorNoDevice, CUBLAS_STATUS_ALLOC_FAILED, ncclSystemError), by the
                library's own message ("CUDA error: no kernel image is available ..."), by number where the
                text says whose number it is ([WinError 126], [Errno 28], Error 804 after cudaGetDeviceCount,
                exit code -9 / 0xC0000135), and shell/multiprocessing signal words (Bus error, Killed)
    libraries   sonames, DLLs and dylibs, with the library, the CUDA major and the nvidia-* wheel that provide
                each, and whether the text says it is missing
    symbols     undefined symbols (demangled namespace: c10::/at::/torch:: = the torch ABI; nccl*/cublas*/
                cusparse*/cudnn*/__nvJitLink* = that library's version) and the binary that wants them
    abi_tags    GLIBC_/GLIBCXX_/CXXABI_ tags not found, with the glibc / GCC they need
    paths       files named in the text and the site-packages distribution (top-level import name) owning each
    packages    name -> version pairs (pip's ==, "Successfully installed a-1.0", wheel file names)
    versions    torch, its CUDA, the driver and its CUDA, cuDNN, Python, a "built for PyTorch A (you have B)"
    gpus, archs GPU names, sm_NN / compute_NN / gfxNNNN targets and capabilities
    exceptions  exception type names
    builds      what a build reports about itself: the package pip builds ("Building wheel for X", "Failed to build
                X"), a compiler's diagnostic on a source file (gcc/clang "x.cu:12:3: error:", MSVC "x.cpp(12): error
                C2065", nvcc "nvcc fatal"), the tool that failed (ninja, CMake, the linker, "error: command 'X' failed")

Linear time: every regular expression starts with a literal (or a short bounded class) and has no nested
unbounded repeats; a name around a literal (".so", ".dll", "==", "Error") is found by scanning left over its
allowed characters, at most a bounded number of them."""

from __future__ import annotations

import functools
import re
from collections import deque
from dataclasses import dataclass, field

from torch_envcheck.knowledge import error_codes, native, windows_messages

MAX_EACH = 64  # entities kept per kind (the last ones: the error is at the end)
LAST = 256     # matches of one pattern looked at closely (the last ones), whatever the text holds

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-.")
_PATH_STOP = frozenset(" \t\n\"'`()[]{}<>,;|=")


def _left(text: str, end: int, allowed: frozenset, limit: int) -> int:
    """The start of the run of `allowed` characters ending at `end`, at most `limit` long."""
    i, lo = end, max(0, end - limit)
    while i > lo and text[i - 1] in allowed:
        i -= 1
    return i


def _left_not(text: str, end: int, stop: frozenset, limit: int) -> int:
    i, lo = end, max(0, end - limit)
    while i > lo and text[i - 1] not in stop:
        i -= 1
    return i


_LOWER: dict = {}  # id(text) -> text.lower(), for the one text being read (entities() clears it)


_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


def _low(text: str) -> str:
    """text in lower case, position for position (str.lower can change the length of a few non-ASCII texts:
    then only ASCII letters are lowered)."""
    got = _LOWER.get(id(text))
    if got is None:
        got = text.lower()
        if len(got) != len(text):
            got = text.translate(_ASCII_LOWER)
        _LOWER[id(text)] = got
    return got


WINDOW_BEFORE = 600  # characters read before a needle (to its line's start at most this far) and after it
WINDOW_AFTER = 900


def _last(pattern: re.Pattern, text: str, k: int = LAST):
    """The last k matches of `pattern` in `text`, in order.  The pattern is not run over the whole text: the last
    k places where one of its NEEDLES (literal words, lower case, one of which every match contains) occurs are
    found with str.rfind, and the pattern runs only on the windows around them.  Linear in the text, with the
    constant of a substring search; the regex work is bounded by k windows."""
    low = _low(text)
    hits = []
    for needle in NEEDLES[pattern]:
        end = len(low)
        for _ in range(k):
            i = low.rfind(needle, 0, end)
            if i < 0:
                break
            hits.append(i)
            end = i
    if not hits:
        return ()
    hits.sort()
    spans = []
    for i in hits[-k:]:
        a = text.rfind("\n", max(0, i - WINDOW_BEFORE), i) + 1 or max(0, i - WINDOW_BEFORE)
        a = max(a, i - WINDOW_BEFORE)
        b = min(len(text), i + WINDOW_AFTER)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    out = deque(maxlen=k)
    for a, b in spans:  # disjoint and in order: so are the matches
        out.extend(pattern.finditer(text, a, b))
    return out


def _line_at(text: str, pos: int, limit: int = 600) -> str:
    a = text.rfind("\n", max(0, pos - limit), pos) + 1
    b = text.find("\n", pos, pos + limit)
    return text[max(a, pos - limit):(b if b >= 0 else min(len(text), pos + limit))]


@dataclass
class Entities:
    codes: list = field(default_factory=list)
    libraries: list = field(default_factory=list)
    symbols: list = field(default_factory=list)
    abi_tags: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    packages: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    gpus: list = field(default_factory=list)
    archs: list = field(default_factory=list)
    exceptions: list = field(default_factory=list)
    platform: dict = field(default_factory=dict)   # what the text says about the machine: macos, windows, wsl, ...
    pip: list = field(default_factory=list)        # pip's "no version satisfies" lines: requirement, versions offered
    builds: list = field(default_factory=list)     # a build's own report: the package built, a compiler's error, a tool

    def as_dict(self) -> dict:
        return {"codes": [dict(c) for c in self.codes], "libraries": [dict(x) for x in self.libraries],
                "symbols": [dict(s) for s in self.symbols], "abi_tags": [dict(t) for t in self.abi_tags],
                "paths": [dict(p) for p in self.paths], "packages": dict(self.packages),
                "versions": dict(self.versions), "gpus": list(self.gpus), "archs": list(self.archs),
                "exceptions": list(self.exceptions), "platform": dict(self.platform), "pip": [dict(p) for p in self.pip],
                "builds": [dict(b) for b in self.builds]}

    def owners(self) -> list:
        """The distributions (top-level import names) that own the files named, last named first."""
        seen = []
        for p in reversed(self.paths):
            d = p.get("distribution")
            if d and d not in seen:
                seen.append(d)
        return seen


def _push(lst: list, item, key=None) -> None:
    k = key(item) if key else item
    for i, old in enumerate(lst):
        if (key(old) if key else old) == k:
            del lst[i]  # keep the last occurrence (the error is at the end)
            break
    lst.append(item)
    if len(lst) > MAX_EACH:
        del lst[0]


# --- error codes ---------------------------------------------------------------------------------

_CODE_NAME = re.compile(
    r"\b(cuda(?:Error[A-Z][A-Za-z]{1,48}|Success)|CUDA_(?:ERROR_[A-Z0-9_]{2,60}|SUCCESS)|"
    r"CU(?:BLAS|SPARSE|SOLVER|RAND|DNN)_STATUS_[A-Z0-9_]{2,70}|CUFFT_[A-Z_]{2,40}|NVRTC_(?:ERROR_)?[A-Z_]{2,60}|"
    r"NVJITLINK_(?:ERROR_)?[A-Z_]{2,40}|nccl[A-Z][A-Za-z]{2,30}|NVML_(?:ERROR_)?[A-Z_]{2,40}|CUPTI_(?:ERROR_)?[A-Z_]{2,60}|"
    r"hip(?:Error[A-Z][A-Za-z]{1,48}|Success)|miopenStatus[A-Z][A-Za-z]{1,40}|UR_RESULT_[A-Z0-9_]{3,60}|ERROR_[A-Z_]{3,40}|"
    r"STATUS_[A-Z_]{3,40}|VK_(?:ERROR_[A-Z0-9_]{3,60}|INCOMPLETE|NOT_READY|TIMEOUT)|errno\.E[A-Z0-9]{2,14})\b", re.ASCII)
# "CUDA error: <message>", "CUDA driver error: <message>", "HIP error: <message>", "cuda runtime error (N) : <message>"
_CODE_MESSAGE = re.compile(r"\b(CUDA|HIP|cuda runtime|CUDA Runtime|CUDA driver|hip|ROCm) (?:[Ee]rror|ERROR)"
                           r"(?: \((?P<num>\d{1,5})\))?\s{0,2}:\s{0,2}(?P<msg>[^\n]{1,200})", re.ASCII)
# TVM's CUDA_CALL check (and the runtimes built on it: MLC, Triton's TVM backends): "Check failed: (e == cudaSuccess ||
# e == cudaErrorCudartUnloading) is false: CUDA: <cudaGetErrorString>"
_TVM_CUDA = re.compile(r"is false: CUDA: (?P<msg>[^\n]{3,200})", re.ASCII)
# the CUDA/HIP samples' checkers: 'HIP API error = 0100 "no ROCm-capable device is detected"'
_API_ERROR = re.compile(r"\b(CUDA|HIP) API error = (?P<num>\d{1,5}) \"(?P<msg>[^\"\n]{1,200})\"", re.ASCII)
# torch's warning "Unexpected error from cudaGetDeviceCount(). ... Error 804: forward compatibility ..."; a checker's
# "cuda failed: 4 error"
_CUDA_ERROR_N = re.compile(r"\b(?:[Ee]rror|code|returned|status|result|[Ff]ailure|[Ff]ail(?:s|ed)? with(?: error)?|"
                           r"(?<=cuda |CUDA |Cuda )failed)[ =:#!]{1,3}"
                           r"(?P<num>\d{1,5})\b"
                           r"(?::\s{0,2}|\s)?(?P<msg>[^\n]{1,160})?", re.ASCII)
# also without its brackets, as a paste retyped or a log reformatted it ("OSError: WinError 1455 The paging file...")
# and the Win32 loader's own calls by name, as C++ programs report them (ONNX Runtime: "LoadLibrary failed with error
# 126", or "Loadlibrary" as some builds spell it): GetLastError()'s code after LoadLibrary/LoadLibraryEx/GetProcAddress
_WINERROR = re.compile(r"\[WinError (?P<num>-?\d{1,10})\]|\( ?os error (?P<os>\d{1,6}) ?\)|\bWinError (?P<bare>\d{1,10})\b|"
                       r"\b(?:[Ll]oad[Ll]ibrary(?:Ex)?[AW]?|GetProcAddress)\b[^\n]{0,20}? failed(?: with)? error(?: code)?[ :=]{0,3}"
                       r"(?P<loader>\d{1,10})\b", re.ASCII)
_ERRNO = re.compile(r"\[Errno (?P<num>\d{1,4})\]|\berrno[ =:]{1,3}(?P<num2>\d{1,4})\b", re.ASCII)
# NVML's nvmlErrorString after nvidia-smi's (or a library's) "Failed to initialize NVML: " / "NVML error: "
_NVML_MESSAGE = re.compile(r"(?:[Ff]ailed to (?:initialize|properly shut down) NVML|NVML (?:[Ee]rror|ERROR)|nvml error)"
                           r"\s{0,2}:\s{0,2}(?P<msg>[^\n]{3,120})", re.ASCII)
# cuda-gdb's warning for every CUDA API call that returns an error: "... cudaX returned (0x2c0)"
_CUDA_API_HEX = re.compile(r"Cuda API error detected: (?P<fn>cu[A-Za-z0-9_]{2,60}) returned \((?P<hex>0x[0-9a-fA-F]{1,5})\)")
_NTSTATUS = re.compile(r"\b0[xX](?P<hex>[cC]0000[0-9a-fA-F]{3})\b|\b(?:exit(?: |_)?code|returned|return code|"
                       r"exit status|exited with code|status)[ :=]{0,3}(?P<dec>-?(?:3221\d{6}|107374\d{4}))\b", re.ASCII)
# the shells' words for a child killed by a signal: bash's strsignal() ("Illegal instruction (core dumped)"; macOS'
# bash adds the number, "Illegal instruction: 4"), zsh's own table ("zsh: illegal hardware instruction  python3")
_ZSH_SIGNALS = {"bus error": "Bus error", "segmentation fault": "Segmentation fault",
                "illegal hardware instruction": "Illegal instruction", "killed": "Killed", "abort": "Aborted"}
_SIGNAL_WORDS = re.compile(r"(?m)(?:^|[\s:])(?P<word>Bus error|Segmentation fault|Illegal instruction|Killed|Aborted)"
                           r"(?: \(core dumped\)|: \d{1,2})?[ \t]{0,4}$|killed by signal: (?P<word2>[A-Za-z ]{3,30})|"
                           r"\bzsh: (?P<zsh>bus error|segmentation fault|illegal hardware instruction|killed|abort)\b|"
                           r"\b(?P<zsh2>illegal hardware instruction)\b|"
                           # bash's word with its "(core dumped)" is the shell's report wherever it stands (a title
                           # that goes on: "Illegal instruction (core dumped) with tf 1.14")
                           r"\b(?P<word3>(?i:Bus error|Segmentation fault|Illegal instruction|Aborted)) \(core dumped\)|"
                           # quoted in prose: "but `Illegal instruction` occurred"
                           r"[`'\"](?P<word4>Bus error|Segmentation fault|Illegal instruction)[`'\"]|"
                           r"\b(?:exit ?code|exitcode|exit status)[ :=]{0,3}(?P<neg>-\d{1,2}|1[2-5]\d)\b|"
                           r"\bsignal (?P<signum>\d{1,2})(?: \((?P<signame>SIG[A-Z]{2,6})\))?|"
                           # gdb's report of the signal that stopped the program
                           r"\breceived signal (?P<gdbsig>SIG[A-Z]{2,6})\b", re.ASCII)
_CUDA_CONTEXT = re.compile(r"[Cc]uda failure|CUDA failure|CUDAError|cudaGetDeviceCount|cuInit|cudaSetDevice|cudaMalloc|cudaGetDevice|CUDA driver|cudaError|CUDA error|"
                           r"cuDevice|cuCtx|cudaRuntimeGetVersion|cuda runtime|CUDA initiali[sz]ation|"
                           # extensions' own checkers: "Cuda Error", "cuda execution failed with error N" (spconv)
                           r"(?i:\bcuda (?:error|execution|kernel|call|launch|driver|failed)\b)", re.ASCII)
# TensorRT's logger: "<file> (<line>) - Cuda Error in <function>: <cudaError_t value>"
_TRT_CUDA_ERROR = re.compile(r"\b(?i:cuda) [Ee]rror in [A-Za-z_]\w{0,60}: (?P<num>\d{1,5})\b", re.ASCII)


# Vulkan's VkResult as programs print it: a vk* call's number ("vkCreateInstance failed -9", ncnn; "Vulkan Error,
# code=-9", TVM), and Vulkan-Hpp's names ("vk::createInstance: ErrorIncompatibleDriver", the exception class
# "vk::IncompatibleDriverError", "vk::Result::eErrorDeviceLost")
_VK_NUMBER = re.compile(r"\b(?:vk[A-Z][A-Za-z0-9]{2,60}|VkResult)\b[^\n]{0,24}?\b(?:failed|returned|error|result|code)\b"
                        r"[ :=]{0,3}(?:with |code |result )?(?P<num>-?\d{1,10})\b|"
                        r"\bVulkan [Ee]rror,? code[ =:]{1,3}(?P<num2>-?\d{1,10})\b", re.ASCII)
_VK_HPP = re.compile(r"\bvk::(?:[A-Z]\w{0,40}::)?[a-z]\w{1,60}: (?P<msg>Error[A-Z][A-Za-z]{2,60})\b|"
                     r"\bvk::(?P<cls>[A-Z][A-Za-z]{2,60}?)Error\b|\bvk::Result::e(?P<e>[A-Z][A-Za-z]{2,60})\b", re.ASCII)


# a number labelled with its enumeration's type ("Unknown CUresult: 35", "cudnnStatus_t = 3", "CUresult error
# result=1"), and a miner's log that labels the driver API's ("CUDA error DRIVER: '300' in func ...")
_ENUM_NUMBER = re.compile(r"\b(?:Unknown )?(?P<fam>CUresult|cudaError(?:_t)?|cublasStatus(?:_t)?|cudnnStatus(?:_t)?|"
                          r"ncclResult(?:_t)?|hipError(?:_t)?)(?: error(?: result| code)?)?\s{0,2}[:=(]\s{0,2}'?(?P<num>\d{1,5})\b|"
                          r"\bCUDA error DRIVER:?\s{0,2}'?(?P<drv>\d{1,5})\b|"
                          # numba's driver wrapper: "CudaAPIError: [34]" (a CUresult, the driver API's)
                          r"\bCudaAPIError:?\s{0,2}\[(?P<nbdrv>\d{1,5})\]|"
                          # torch's THC (before 1.5) printed the runtime's code in brackets, its message sometimes cut
                          r"\bcuda runtime error \((?P<thc>\d{1,5})\)", re.ASCII)
# glog's CHECK_EQ as Caffe and other C++ programs print it ("Check failed: error == cudaSuccess (35 vs. 0)", "...) ==
# CUFFT_SUCCESS (2 vs. 0)"), also retyped ("cudaSuccess 35vs0"): the code beside the success value it was compared
# with, whose name says the enumeration (each table's value 0: cudaSuccess, CUFFT_SUCCESS, ncclSuccess, hipSuccess...)
_CHECK_VS = re.compile(r"\b(?P<ok>[A-Za-z_]{2,30}(?:Success|SUCCESS))\W{0,3}\(?\s{0,2}"
                       r"(?P<num>\d{1,5})\s{0,2}vs\.?\s{0,2}0\b", re.ASCII)


@functools.lru_cache(maxsize=1)
def _success_families() -> dict:
    """Each enumeration's success name (its value 0) -> the enumeration, from the decoded tables."""
    out = {}
    for family in error_codes.families():
        code = error_codes.by_value(family, 0)
        if code is not None and code.name.lower().endswith("success"):
            out[code.name] = family
    return out


# Triton's launchers check each driver call and print its code: "Triton Error [HIP]: Code: 209" (the HIP runtime's
# number, the AMD backend's driver.c) and "Triton Error [CUDA]: <the driver's error string>" (the NVIDIA backend's
# cuGetErrorString)
_TRITON_ERROR = re.compile(r"Triton Error \[(?P<api>CUDA|HIP)\]:\s{0,2}(?:Code:\s{0,2}(?P<num>\d{1,5})|(?P<msg>[^\n]{3,160}))",
                           re.ASCII)
# a library's status as a bare number closing its wrapper's message, on a line that names the library and a failure:
# TensorFlow's "Failed to associate cuFFT plan with CUDA stream: 1", "failed to create cuFFT batched plan:5". NCCL's
# lines are left out (their closing numbers are errnos), cuDNN for the numbering noted at _LIB_NUMBER
_LIB_TRAILING_NUMBER = re.compile(r"(?m)^(?=[^\n]{0,240}\b(?i:fail|error))[^\n]{0,240}?\b"
                                  r"(?P<lib>(?i:cufft|cublas(?:lt)?|cusolver|cusparse|curand|nvrtc))\b[^\n]{0,160}?:"
                                  r"[ \t]{0,2}(?P<num>\d{1,3})[ \t.]{0,4}$", re.ASCII)
# cuBLAS's handle creation failing, in the words wrappers print without a status ("failed to create cublas handle",
# "CUBLAS initialization failed"): cublasCreate's CUBLAS_STATUS_NOT_INITIALIZED
_CUBLAS_INIT = re.compile(r"(?i)\bcublas (?:initiali[sz]ation|init) failed\b|"
                          r"\bfailed to (?:initiali[sz]e|create) (?:the |a )?cublas handle\b", re.ASCII)
# torch before 1.5 (THC) printed cuBLAS's and cuSPARSE's statuses in its own words: "cublas runtime error : the GPU
# program failed to execute" (pytorch/pytorch aten/src/THC/THCGeneral.cpp, __THCublasCheck and __THCusparseCheck, at
# commit 010705bb6c05ec97db6a3a53abc31cddf2fe6eb4)
_THC_LIBRARY_ERROR = re.compile(r"\b(?P<lib>cublas|cusparse) runtime error : (?P<msg>[a-zA-Z ]{3,80})", re.ASCII)
_THC_STATUS = {"library not initialized": "NOT_INITIALIZED", "resource allocation failed": "ALLOC_FAILED",
               "an invalid numeric value was used as an argument": "INVALID_VALUE",
               "an absent device architectural feature is required": "ARCH_MISMATCH",
               "an access to GPU memory space failed": "MAPPING_ERROR", "the GPU program failed to execute": "EXECUTION_FAILED",
               "an internal operation failed": "INTERNAL_ERROR",
               "the matrix type is not supported by this function": "MATRIX_TYPE_NOT_SUPPORTED"}
_ENUM_FAMILY = {"CUresul": "CUresult", "cudaError": "cudaError_t", "cublasStatus": "cublasStatus_t",
                "cudnnStatus": "cudnnStatus_t", "ncclResul": "ncclResult_t", "hipError": "hipError_t"}


@functools.lru_cache(maxsize=1)
def _cuda_error_suffixes() -> tuple:
    """cudaError_t enumerators written without their prefix, as wrappers print them (dlib's
    "_InvalidDeviceFunction_", .NET's enum names): only names of three words or more, which no other vocabulary
    shares, found as whole words with their capitals."""
    return tuple((name[9:], name) for name in sorted(error_codes.names())
                 if name.startswith("cudaError") and len(re.findall(r"[A-Z][a-z]+", name[9:])) >= 3)


# a number labelled by the library whose enumeration it belongs to, as wrappers print it: "cusolver error: 7, when
# calling `cusolverDnCreate(handle)`" (torch's TORCH_CUSOLVER_CHECK), "(External) CUFFT error(5)" (Paddle), "NCCL Error
# 2: unhandled system error", "CUBLAS error 13"; not a version ("NCCL error ... NCCL version 2.7.8" has no number after
# "error"). cuDNN is left out: its numbers changed with cuDNN 9 (3000s) and the tables hold one numbering.
_LIB_NUMBER = re.compile(r"\b(?P<lib>(?i:cublas|cusolver|cusparse|cufft|curand|nccl|nvrtc|nvjitlink|nvml))(?: library)?"
                         r"[ _](?i:error|status)(?: code)?\s{0,2}[:=(]?\s{0,2}(?P<num>\d{1,4})(?![.\d])", re.ASCII)
# a library function's call and the number it returned ("Failed to execute cuptiGetContextId with error 35",
# "function (*cuptiProfilerBeginSessionPtr)(&params) failed with error 35", "cudnnCreate returned 4"): the
# function's prefix names the enumeration its result belongs to
_API_CALL_NUMBER = re.compile(r"\b(?P<fn>(?P<lib>cupti|cublasLt|cublas|cusparse|cusolver|cufft|curand|nvrtc|nccl|nvml|cudnn|"
                              r"nvJitLink)[A-Z]\w{1,60})\b[^\n]{0,120}?\b(?:failed with (?:error|status)|with error|"
                              r"returned(?: error| status)?|error code)[:= ]{1,3}(?P<num>\d{1,4})(?!\d|\.\d)", re.ASCII)
_LIB_FAMILY = {"cublas": "cublasStatus_t", "cusolver": "cusolverStatus_t", "cusparse": "cusparseStatus_t",
               "cufft": "cufftResult", "curand": "curandStatus_t", "nccl": "ncclResult_t", "nvrtc": "nvrtcResult",
               "nvjitlink": "nvJitLinkResult", "nvml": "nvmlReturn_t", "cupti": "CUptiResult", "cudnn": "cudnnStatus_t"}
# pynvml raises one exception class per NVML_ERROR_* value, named by string.capwords over the words of the name
# ("NVML_ERROR_GPU_IS_LOST" -> NVMLError_GpuIsLost): pynvml.py, _extractNVMLErrorsAsClasses, in nvidia-ml-py 13.615.71
# (https://pypi.org/project/nvidia-ml-py/13.615.71/)
_PYNVML_CLASS = re.compile(r"\bNVMLError_(?P<cls>[A-Z][A-Za-z0-9]{1,60})\b", re.ASCII)
# Numba's CUDA driver wrapper: CudaAPIError prints "[<CUresult value>] Call to <cuFunction> results in <name>"
# (numba/cuda/cudadrv/driver.py, _check_ctypes_error and CudaAPIError.__str__), and the name is UNKNOWN_CUDA_ERROR
# for values its own table lacks: the number is the driver API's
_NUMBA_CALL = re.compile(r"\[(?P<num>\d{1,4})\] Call to cu[A-Za-z0-9_]{2,60} results in\b", re.ASCII)


def _ascii_alpha(ch: str) -> bool:
    return bool(ch) and ch.isascii() and ch.isalpha()


@functools.lru_cache(maxsize=1)
def _pynvml_classes() -> dict:
    """pynvml's class-name suffix -> NVML_ERROR_* name, computed the way pynvml computes it."""
    import string
    return {string.capwords(n[len("NVML_ERROR_"):], "_").replace("_", ""): n
            for n in error_codes.names() if n.startswith("NVML_ERROR_")}


# torch's own words for a cudaError_t its device count got (c10/cuda/CUDAFunctions.cpp, device_count_impl): the
# message replaces the runtime's, so the code is read from torch's wording
_TORCH_CUDA_WORDS = re.compile(r"(?P<init>CUDA driver initialization failed), you might not have a CUDA gpu")
_TORCH_CUDA_CODES = {"init": "cudaErrorInitializationError"}


def _codes(text: str, ent: Entities) -> None:
    for m in _last(_TORCH_CUDA_WORDS, text):
        code = error_codes.by_name(_TORCH_CUDA_CODES[m.lastgroup])
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    names = error_codes.names()
    for m in _last(_CODE_NAME, text):
        name = m.group(1)[6:] if m.group(1).startswith("errno.") else m.group(1)
        code = error_codes.by_name(name) if name in names else None
        if code is None or code.layer == "none":
            continue
        # a name a check compares against ("Check failed: (e == cudaSuccess || e == cudaErrorCudartUnloading) is
        # false") is what the value was allowed to be, not the error
        if re.search(r"[=!]=\s{0,2}$", text[max(0, m.start() - 6):m.start()]):
            continue
        _push(ent.codes, {**code.as_dict(), "how": "name", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    cuda_msgs = error_codes.messages("cudaError_t")
    for m in (*_last(_CODE_MESSAGE, text), *_last(_API_ERROR, text)):
        # (ggml's hipified CUDA code prints "ROCm error: <file>:<line>: <message>")
        family = "hipError_t" if m.group(1).lower() in ("hip", "rocm") else "cudaError_t"
        code = None
        if m.group("num"):
            code = error_codes.by_value(family, int(m.group("num")))
        msg = m.group("msg") or ""
        if code is not None and code.message and msg and not _norm(msg).startswith(_norm(code.message)[:12]):
            # the number and the message disagree: the runtime's enumeration was renumbered (CUDA 10.1 moved
            # cudaErrorInvalidDeviceFunction from 8 to 98, ...), its messages were not, so an old log's message names
            # the code
            code = _by_message_prefix(msg, cuda_msgs if family == "cudaError_t" else
                                      error_codes.messages("hipError_t") or cuda_msgs) or code
        if code is None:
            code = _by_message_prefix(m.group("msg"), cuda_msgs if family == "cudaError_t" else
                                      error_codes.messages("hipError_t") or cuda_msgs)
        if code is not None and family == "hipError_t" and code.family == "cudaError_t":
            code = error_codes.by_name("hipError" + code.name[len("cudaError"):]) or code
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()},
                  key=lambda c: (c["family"], c["name"]))
    for m in _last(_CUDA_ERROR_N, text):
        line = _line_at(text, m.start(), 300)
        if not _CUDA_CONTEXT.search(line):
            continue
        family = "CUresult" if re.search(r"\bcu[A-Z]|CUDA driver", line) and "cuda" not in line[:3] else "cudaError_t"
        code = error_codes.by_value(family, int(m.group("num")))
        if code is not None and m.group("msg") and code.message and not _norm(m.group("msg")).startswith(_norm(code.message)[:12]):
            other = error_codes.by_value("cudaError_t", int(m.group("num")))
            code = other if other and other.message and _norm(m.group("msg")).startswith(_norm(other.message)[:12]) else code
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_ENUM_NUMBER, text):
        fam = ("cudaError_t" if m.group("thc") else
               _ENUM_FAMILY.get((m.group("fam") or "DRIVER").split("_")[0].rstrip("t"), "CUresult"))
        num = int(m.group("num") or m.group("drv") or m.group("nbdrv") or m.group("thc"))
        # a binding that names every code by the driver's type also returns the runtime's numbers (Go's cuda5 names
        # cudaDeviceReset's result a CUresult): a number only the runtime's enumeration has is the runtime's
        code = error_codes.by_value(fam, num) or (error_codes.by_value("cudaError_t", num) if fam == "CUresult" else None)
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_CHECK_VS, text):
        family = _success_families().get(m.group("ok"))
        code = error_codes.by_value(family, int(m.group("num"))) if family else None
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_THC_LIBRARY_ERROR, text):
        msg = m.group("msg")
        status = next((v for k, v in _THC_STATUS.items() if msg.startswith(k)), None)
        code = error_codes.by_name(f"{m.group('lib').upper()}_STATUS_{status}") if status else None
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    low = _low(text)
    for suffix, name in _cuda_error_suffixes():
        i = low.rfind(suffix.lower())
        j = i + len(suffix)
        # ASCII letters only: a CJK letter glued to the name ("出现InvalidDeviceFunction错误") is not part of it
        if i < 0 or text[i:j] != suffix or (i and _ascii_alpha(text[i - 1])) or _ascii_alpha(text[j:j + 1]):
            continue
        code = error_codes.by_name(name)
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "name", "at": i}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_TVM_CUDA, text):
        code = error_codes.by_message("cudaError_t", m.group("msg").strip().rstrip("."))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_VK_NUMBER, text):
        code = error_codes.by_value("VkResult", int(m.group("num") or m.group("num2")))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_VK_HPP, text):
        msg = m.group("msg") or m.group("e") or "Error" + m.group("cls")
        code = error_codes.by_message("VkResult", msg)
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_TRT_CUDA_ERROR, text):
        code = error_codes.by_value("cudaError_t", int(m.group("num")))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in (*_last(_LIB_NUMBER, text), *_last(_LIB_TRAILING_NUMBER, text), *_last(_API_CALL_NUMBER, text)):
        lib = m.group("lib").lower()
        code = error_codes.by_value(_LIB_FAMILY["cublas" if lib == "cublaslt" else lib], int(m.group("num")))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_TRITON_ERROR, text):
        family = "hipError_t" if m.group("api") == "HIP" else "CUresult"
        code = (error_codes.by_value(family, int(m.group("num"))) if m.group("num") else
                error_codes.by_message(family, m.group("msg").strip().rstrip(".")) or
                (error_codes.by_message("cudaError_t", m.group("msg").strip().rstrip(".")) if family == "CUresult" else None))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number" if m.group("num") else "message", "at": m.start()},
                  key=lambda c: (c["family"], c["name"]))
    for m in _last(_CUBLAS_INIT, text):
        code = error_codes.by_name("CUBLAS_STATUS_NOT_INITIALIZED")
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    classes = _pynvml_classes()
    for m in _last(_PYNVML_CLASS, text):
        name = classes.get(m.group("cls"))
        code = error_codes.by_name(name) if name else None
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "name", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_NUMBA_CALL, text):
        code = error_codes.by_value("CUresult", int(m.group("num")))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_WINERROR, text):
        if m.group("os"):  # Rust's io::Error: a Win32 code on Windows (they are > 200 where they matter), else errno
            n = int(m.group("os"))
            code = error_codes.by_value("windows" if n > 200 else "errno", n)
            if code is not None:
                _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
            continue
        num = int(m.group("num") or m.group("bare") or m.group("loader"))
        code = error_codes.by_value("windows", num & 0xFFFFFFFF)
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
        else:
            _push(ent.codes, {"family": "windows", "name": f"WinError {num}", "value": num, "layer": "windows-runtime",
                              "library": "Windows", "description": None, "message": None, "source": None,
                              "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_NVML_MESSAGE, text):
        code = _nvml_by_message(m.group("msg"))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_CUDA_API_HEX, text):
        family = "cudaError_t" if m.group("fn").startswith("cuda") else "CUresult"
        code = error_codes.by_value(family, int(m.group("hex"), 16))
        if code is not None and code.layer != "none":
            _push(ent.codes, {**code.as_dict(), "how": "debugger", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_ERRNO, text):
        code = error_codes.by_value("errno", int(m.group("num") or m.group("num2")))
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    for m in _last(_NTSTATUS, text):
        value = int(m.group("hex"), 16) if m.group("hex") else int(m.group("dec")) & 0xFFFFFFFF
        code = error_codes.by_value("windows", value)
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "number", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    sig_by_msg = {c.message.lower(): c for c in error_codes.all_codes() if c.family == "signal" and c.message}
    for m in _last(_SIGNAL_WORDS, text):
        code = None
        word = (m.group("word") or m.group("word2") or m.group("word3") or m.group("word4") or
                _ZSH_SIGNALS.get(m.group("zsh") or m.group("zsh2") or ""))
        if word:
            code = sig_by_msg.get(word.strip().lower())
        elif m.group("neg"):
            n = int(m.group("neg"))
            code = error_codes.by_value("signal", -n if n < 0 else n - 128)
        elif m.group("signame") or m.group("gdbsig"):
            code = error_codes.by_name(m.group("signame") or m.group("gdbsig"))
        elif m.group("signum"):
            code = error_codes.by_value("signal", int(m.group("signum")))
        if code is not None:
            _push(ent.codes, {**code.as_dict(), "how": "signal", "at": m.start()}, key=lambda c: (c["family"], c["name"]))
    _messages_in_context(text, ent)
    _windows_loader_reason(text, ent)
    ent.codes.sort(key=lambda c: c["at"])


# A library's message, found anywhere, counts when a line around it speaks of the GPU stack.
_ERRNO_MESSAGES = ("ENOSPC", "EMFILE", "EADDRINUSE", "ECONNREFUSED", "ENOMEM", "EDQUOT")
MIN_MESSAGE = 12  # shorter messages ("no error") say too little alone


_CONTEXT_NEEDLES = {"cudaError_t": ("cuda", "gpu", "nvidia", "hip", "cuinit", "ggml_cuda", ".cu:", ".cu,", ".cu(", "tensorflow", "thrust::"),
                    "ncclResult_t": ("nccl",)}
MAX_WINDOWS = 32
WINDOW = 600


def _windows(low: str, needles: tuple) -> list:
    """[(start, end)] around the last MAX_WINDOWS places where a needle occurs, merged: the parts of the text
    that speak of the GPU stack (searched backwards with str.rfind: no regex, no quadratic case)."""
    hits = []
    for needle in needles:
        end = len(low)
        for _ in range(MAX_WINDOWS):
            i = low.rfind(needle, 0, end)
            if i < 0:
                break
            hits.append(i)
            end = i
    hits = sorted(hits)[-MAX_WINDOWS:]
    spans = []
    for i in hits:
        a, b = max(0, i - WINDOW), min(len(low), i + WINDOW)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


# The reason Windows gave for a DLL it could not load, as FormatMessage wrote it (any language): "DLL load failed while
# importing _C: The specified procedure could not be found.", "Error loading \"...\\c10.dll\" or one of its
# dependencies." is the target, the reason follows "DLL load failed:"
_DLL_REASON = re.compile(r"DLL load failed(?: while importing [\w.]{1,60})?\s{0,2}[:：]\s{0,2}(?P<msg>[^\n]{2,160})")
# the paging-file message is distinctive enough to be read wherever it stands (a title, a log line)
_PAGING_FILE = re.compile(r"(?i)paging file is too small|页面文件太小")


def _windows_loader_reason(text: str, ent: Entities) -> None:
    english = {n: c.message for n in windows_messages.LOADER_CODES
               if (c := error_codes.by_name(n)) is not None and c.message}
    hits = [(m.start(), m.group("msg")) for m in _last(_DLL_REASON, text)]
    hits += [(m.start(), m.group(0)) for m in _last(_PAGING_FILE, text)]
    for at, msg in hits:
        found = windows_messages.loader_code_for(msg, english)
        if found is None and _PAGING_FILE.search(msg):
            found = ("ERROR_COMMITMENT_LIMIT", None)
        if found is None:
            continue
        code = error_codes.by_name(found[0])
        if code is not None and not any(c["family"] == "windows" and c["name"] == code.name for c in ent.codes):
            _push(ent.codes, {**code.as_dict(), "how": "message", "at": at}, key=lambda c: (c["family"], c["name"]))


MESSAGE_TAIL = 64 * 1024


@functools.lru_cache(maxsize=1)
def _long_cuda_messages() -> tuple:
    return tuple((msg, code) for msg, code in error_codes.messages("cudaError_t").items()
                 if code.layer != "none" and len(msg.split()) >= 5)


def _messages_in_context(text: str, ent: Entities) -> None:
    low = _low(text)
    found = []
    for family, needles in _CONTEXT_NEEDLES.items():
        spans = _windows(low, needles)
        if not spans:
            continue
        probes = []
        for msg, code in error_codes.messages(family).items():
            probe = msg.split(" (", 1)[0] if family == "ncclResult_t" else msg
            if code.layer != "none" and len(probe) >= MIN_MESSAGE:
                probes.append((probe, code))
        for a, b in spans:
            window = low[a:b]
            for probe, code in probes:
                i = window.rfind(probe)
                if i >= 0:
                    found.append((a + i, len(probe), code))
    # the CUDA runtime's longer messages (five words or more: "an illegal memory access was encountered") say which
    # code they are wherever they stand, quoted in prose without any other word of the GPU stack
    tail_at = max(0, len(low) - MESSAGE_TAIL)
    tail = low[tail_at:]
    for msg, code in _long_cuda_messages():
        i = tail.rfind(msg)
        if i >= 0:
            found.append((tail_at + i, len(msg), code))
    for name in _ERRNO_MESSAGES:
        code = error_codes.by_name(name)
        if code is None or not code.message:
            continue
        i = text.rfind(code.message)
        if i >= 0:
            found.append((i, len(code.message), code))
    # a longer message found at the same place wins over the shorter one inside it
    found.sort(key=lambda f: (f[0], -f[1]))
    last_end = -1
    for i, n, code in found:
        if i < last_end:
            continue
        last_end = i + n
        if any(c["family"] == code.family and c["name"] == code.name for c in ent.codes):
            continue
        _push(ent.codes, {**code.as_dict(), "how": "message-context", "at": i}, key=lambda c: (c["family"], c["name"]))


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", (s or "").strip().lower())


def _by_message_prefix(msg: str, table: dict):
    s = _norm(msg).rstrip(".")
    best = None
    for m, code in table.items():
        if s.startswith(m) and (best is None or len(m) > len(best[0])):
            best = (m, code)
    return best[1] if best else None


# --- libraries ---------------------------------------------------------------------------------------

_LIB_END = re.compile(r"\.so(?:\.\d{1,5}){0,4}\b|\.dylib\b|\.(?:dll|DLL|Dll)\b|\.pyd\b")
_MISSING = re.compile(r"cannot open shared object file|failed to open|not found in any|[Nn]o such file|not found|[Cc]ould not load|could not be found|"
                      r"[Cc]ould not locate|DLL load failed|[Ee]rror loading|[Uu]nable to load|[Ff]ailed to load|"
                      r"Library not loaded|cannot find|is not a valid Win32|image not found|[Cc]annot load|"
                      r"[Cc]ouldn't open|[Cc]ould not find|not be located|dlopen|"
                      # PaddlePaddle's loader (paddle/phi/backends/dynload/dynamic_loader.cc): "The third-party dynamic
                      # library (X) that Paddle depends on is not configured correctly. (error code is 126)"
                      r"depends on is not configured correctly")


_MSG_WORD = re.compile(r"[a-z]{4,40}")
_MSG_STOP = frozenset({"this", "that", "with", "from", "have", "been", "does", "when", "there", "failed", "error"})


def _words(msg: str) -> set:
    return set(_MSG_WORD.findall(msg.lower())) - _MSG_STOP


def _nvml_by_message(msg: str):
    """The nvmlReturn_t whose header description shares most words with nvmlErrorString's text (the strings
    differ in wording: "GPU access blocked by the operating system" is NVML_ERROR_OPERATING_SYSTEM, "The GPU
    control device has been blocked by the operating system/cgroups"); None below 3 shared words, or a tie."""
    words = _words(msg)
    if len(words) < 2:
        return None
    scored = sorted(((len(words & _words(c.description or "")), c.value, c) for c in error_codes.all_codes()
                     if c.family == "nvmlReturn_t" and c.description), key=lambda t: (t[0], -t[1]), reverse=True)
    if not scored or scored[0][0] < min(3, len(words)) or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][2]


# the linker's names: "-lcuda" is libcuda.so, the unversioned development name (GNU ld: "cannot find -lcuda", lld:
# "unable to find library -lcuda", Apple's ld: "library not found for -lcuda")
# GNU ld's "cannot find -lX" (as some build tools reword it, "can not find"), lld's, Apple ld's; and in any language:
# binutils translates the words ("impossibile trovare -lX", "kann -lX nicht finden") but not its own name before the
# colon nor the -lX it was given, and a diagnostic of the linker naming -lX is about finding that library (the other
# is "skipping incompatible <file> when searching for -lX": no usable copy either)
_LINK_LIB = re.compile(r"(?m)(?:can ?not find|unable to find library|library not found for) -l(?P<name>[A-Za-z0-9_+-]{1,60})|"
                       r"(?:^|[/\\\s])(?:[\w.-]{1,40}-)?ld(?:\.bfd|\.gold|\.lld|\.exe)?: [^\n]{0,100}?(?<![\w-])"
                       r"-l(?P<lname>[A-Za-z0-9_+]{1,60})\b(?!\.)")


def _libraries(text: str, ent: Entities) -> None:
    for m in _last(_LINK_LIB, text):
        info = native.library_provider(f"lib{m.group('name') or m.group('lname')}.so")
        if info is not None:
            _push(ent.libraries, dict(info, at=m.start(), missing=True, wants_symbol=False, linker=True),
                  key=lambda x: x["file"])
    for m in _last(_LIB_END, text):
        start = _left(text, m.start(), _NAME_CHARS - {"."} | {"."}, 80)
        name = text[start:m.end()]
        # the file name only: after the last path separator
        name = re.split(r"[/\\]", name)[-1].lstrip(".-+")
        if len(name) < 5:
            continue
        info = native.library_provider(name)
        if info is None:
            continue
        line = _line_at(text, m.start())
        before = text[max(0, m.end()):m.end() + 3]
        undefined = before.startswith(": u") or "undefined symbol" in text[m.end():m.end() + 40]
        info = dict(info, at=m.start(),
                    missing=bool(_MISSING.search(line)) and not undefined,
                    wants_symbol=undefined)
        if m.group(0).endswith((".pyd",)) or ".cpython-" in name or re.search(r"\.(?:cp|abi)\d", name):
            info["python_extension"] = True
        if info["missing"]:
            # "Failed to load library A with error: B: cannot open ...": B is missing, A wants it
            others = re.findall(r"([A-Za-z0-9_.+-]{1,80}\.(?:so|dll|dylib|pyd))\b", line[:max(0, line.find(name))])
            # a list of alternative names ("(cublas64_118.dll;cublas64_11.dll)") is not a library wanting another
            others = [o for o in others if o != name and not line.find(o + ";" + name) >= 0]
            if others:
                info["wanted_by"] = others[-1]
        old = next((x for x in ent.libraries if x["file"] == info["file"]), None)
        if old is not None and old.get("missing") and not info["missing"]:
            info["missing"], info["at"] = True, old["at"]  # named missing once: a later mention does not undo it
        if re.search(r"version [`'‘\"]?(?:GLIBC|CXXABI)", line):
            info["missing"] = False  # the library is there; it lacks a symbol version
        _push(ent.libraries, info, key=lambda x: x["file"])


# --- symbols and ABI tags ------------------------------------------------------------------------------

# without the loader's colon ("_ext undefined symbol when using ..."), a plain lowercase word is prose, not a symbol
_UNDEFINED = re.compile(r"[Uu]ndefined symbol(?:: ?| (?![a-z]{1,12}\b))[\"'`]?(?P<sym>[A-Za-z_$][A-Za-z0-9_$.@]{0,500})|"
                        r"[Ss]ymbol not found: (?P<sym2>_{0,2}[A-Za-z_][A-Za-z0-9_$]{0,500})|"
                        r"entry point (?P<sym3>[^\s]{1,300}) could not be located|"
                        r"undefined reference to [`'](?P<sym4>[^'\n]{1,300})'|"
                        # a program that dlopens a library and looks its functions up itself (dlsym)
                        r"[Ff]ailed to (?:load|find|resolve) (?:function|symbol) [`'\"](?P<sym5>[A-Za-z_][A-Za-z0-9_]{2,200})[`'\"]"
                        r"(?= from (?:the )?dynamic library| in )")
_SYMBOL_VERSION = re.compile(r"symbol (?P<sym>[A-Za-z_][A-Za-z0-9_]{0,200}),? version (?P<ver>[A-Za-z0-9_.+-]{1,60}) "
                             r"not defined in file (?P<file>[^\s]{1,200})|"
                             r"undefined symbol:? (?P<sym2>[A-Za-z_][A-Za-z0-9_]{0,200}), version (?P<ver2>[A-Za-z0-9_.+-]{1,60})")
# the loader's "version `TAG' not found"; a paste cut after the tag still has the loader's "version `TAG'"
_ABI_TAG = re.compile(r"(?:(?<=version )[`'‘\"](?=GLIBC|CXXABI))?[`'‘\"]?(?P<tag>GLIBC_2\.\d{1,2}(?:\.\d{1,2})?|GLIBCXX_3\.4\.\d{1,2}|CXXABI_1\.3\.\d{1,2})(?:[`'’\"]? not found|(?<=\d)[`'’](?=[ \t]{0,3}(?:\n|$)))"
                      r"(?: \(required by (?P<by>[^)\n]{1,300})\))?")
_MANGLED_NS = re.compile(r"_Z(?:N|Z)?(?:K|V|r){0,3}(?:St)?(?:(?P<len>\d{1,3}))")
# the special names' prefixes (Itanium C++ ABI, 5.1.4.1 and 5.1.4.3): typeinfo, typeinfo name, vtable, VTT, guard
# variable, and the call-offset thunks "Th" (non-virtual: h <n>_) and "Tv" (virtual: v <n>_ <n>_)
_SPECIAL_NAME = re.compile(r"T[ISVT]|GV|Th n?\d{1,6}_|Tv n?\d{1,6}_n?\d{1,6}_|Tc(?:h n?\d{1,6}_|v n?\d{1,6}_n?\d{1,6}_){2}"
                           .replace(" ", ""))
# torch's C-level ABIs: AOTInductor's stable C shim (torch/csrc/inductor/aoti_torch/c/shim.h: aoti_torch_*), the
# Python bindings (torch/csrc: THPVariable_Wrap, THPModule_*), and the TH/THC C libraries of torch < 1.0
# (torch_*: the stable C ABI of torch 2.9+, torch/csrc/stable/c/shim.h: torch_library_impl, torch_call_dispatcher, ...)
_TORCH_C_SYMBOL = re.compile(r"_{0,2}(?:aoti_torch_|torch_(?:library|call_dispatcher|list|new|get|from_blob|parallel_for|"
                             r"parse_device|tensor_(?:from|to)_pyobject|delete_string|generator|c10_cuda|mps_set)|THP[A-Z]|THC[A-Z]|TH(?:Byte|Char|Short|Int|Long|Half|Float|Double)"
                             r"(?:Tensor|Storage)|THTensor_|THStorage_|THGenerator)")
_LIB_SYMBOL = re.compile(r"^(?:_{0,2})(?P<lib>nccl|cublasLt|cublas|cusparseLt|cusparse|cusolver|cufft|curand|cudnn|"
                         r"nvJitLink|nvrtc|cuda|cu|nvml|hip|rocblas|miopen)(?=[A-Z_])")


def demangle_scope(sym: str) -> str | None:
    """The leading namespaces of an Itanium-mangled name: "_ZN3c104cuda9SetDeviceEi" -> "c10::cuda::SetDevice";
    None when `sym` is not mangled.  Only nested names (N...E) and plain ones are read: enough to see whose
    ABI a symbol belongs to.  The Itanium ABI's special names are read through to the entity they are about
    (typeinfo _ZTI, its name _ZTS, vtable _ZTV, VTT _ZTT, guard variable _ZGV, thunks _ZTh/_ZTv, local names
    _ZZ), and Mach-O's extra leading underscore (macOS' "__ZN3c10...") is dropped."""
    if sym.startswith("__Z"):
        sym = sym[1:]
    if not sym.startswith("_Z"):
        return None
    i = 2
    special = _SPECIAL_NAME.match(sym, i)
    if special:
        i = special.end()
    if sym[i:i + 1] == "Z":  # a local entity: the function it is local to names the scope
        i += 1
    nested = sym[i:i + 1] == "N"
    if nested:
        i += 1
    while i < len(sym) and sym[i] in "KVr":
        i += 1
    parts = []
    if sym.startswith("St", i):
        parts.append("std")
        i += 2
    while i < len(sym) and len(parts) < 6:
        j = i
        while j < len(sym) and sym[j].isdigit() and j - i < 4:
            j += 1
        if j == i:
            break
        n = int(sym[i:j])
        if n <= 0 or j + n > len(sym):
            break
        parts.append(sym[j:j + n])
        i = j + n
        if not nested:
            break
    return "::".join(parts) if parts else None


def _symbol_info(sym: str) -> dict:
    info = {"symbol": sym[:300]}
    scope = demangle_scope(sym)
    if scope:
        info["demangled"] = scope
        top = scope.split("::", 1)[0]
        if top in ("c10", "at", "torch", "caffe2") or scope.startswith(("c10", "at::", "torch::")):
            info["abi"] = "torch"
        elif top in ("tensorflow", "tsl", "xla"):
            # (a std::__cxx11 type among its parameters is the dual ABI of TensorFlow's own function, not libstdc++'s age)
            info["abi"] = "tensorflow"
        elif top == "std" or "__cxx11" in sym:
            info["abi"] = "libstdc++"
        elif top in ("pybind11",):
            info["abi"] = "pybind11"
    elif _TORCH_C_SYMBOL.match(sym):
        info["abi"] = "torch"
    else:
        m = _LIB_SYMBOL.match(sym)
        if m:
            lib = m.group("lib")
            info["abi"] = {"cu": "cuda", "cuda": "cuda"}.get(lib, lib)
            v = re.search(r"_(\d{1,2})_(\d{1,2})$", sym)
            if lib == "nvJitLink" and v:
                info["cuda"] = f"{v.group(1)}.{v.group(2)}"
            v = re.search(r"_v(\d{1,2})$", sym)
            if v:
                info["api_version"] = v.group(1)
        elif sym.startswith("Py") or sym.startswith("_Py"):
            info["abi"] = "python"
        elif sym.startswith("PyInit_"):
            info["abi"] = "python"
    return info


def _symbols(text: str, ent: Entities) -> None:
    for m in _last(_UNDEFINED, text):
        sym = m.group("sym") or m.group("sym2") or m.group("sym3") or m.group("sym4") or m.group("sym5")
        info = _symbol_info(sym)
        if m.group("sym4"):
            # the static linker's words (ld: "undefined reference to `sym'"): a build's link step, not the loader
            info["link_time"] = True
        # the binary that wants it: "FILE: undefined symbol: ..." / "... in the dynamic link library FILE"
        head = text[max(0, m.start() - 2):m.start()]
        if head.endswith(": ") or head.endswith(":") or head.endswith("so"):
            cut = m.start() - (2 if head.endswith(": ") else 1 if head.endswith(":") else 0)
            a = _left_not(text, cut, _PATH_STOP, 400)
            f = text[a:cut].strip()
            if ":" in f and not re.match(r"^[A-Za-z]:\\", f):
                f = f.rsplit(": ", 1)[-1].split(":")[-1] if ": " in f else f
            # "ImportError: undefined symbol: ..." names the exception, not a binary
            if not re.fullmatch(r"[A-Z][A-Za-z]{2,40}(?:Error|Exception|Warning)", f):
                info["file"] = f
        if "." not in info.get("file", ""):
            tail = text[m.end():m.end() + 400]
            t = re.match(r" in the dynamic link library ([^\s.]{0,300}(?:\.[^\s.]{1,10}){1,3})", tail)
            # macOS' dyld names the binary on the next line: "Referenced from: [<UUID> ]/path/x.so"
            t = t or re.match(r"\s{0,40}Referenced from:\s{0,4}(?:<[0-9A-Fa-f-]{1,40}>\s{1,4})?([^\s(]{1,300})", tail)
            if t:
                info["file"] = t.group(1)
        info["at"] = m.start()
        _push(ent.symbols, info, key=lambda s: s["symbol"])
    for m in _last(_SYMBOL_VERSION, text):
        sym, ver = m.group("sym") or m.group("sym2"), m.group("ver") or m.group("ver2")
        info = _symbol_info(sym)
        lib = re.match(r"lib([A-Za-z]{2,20}?)(?:_[a-z]+)?\.so", ver)
        if "abi" not in info and lib:
            # the version tag names the library that should define the symbol (libcublasLt.so.11)
            info["abi"] = next((k for k in ("cublasLt", "cublas", "cusparse", "cusolver", "cufft", "curand", "cudnn",
                                           "nccl", "nvJitLink", "nvrtc") if k.lower() == lib.group(1).lower()), None) \
                or info.get("abi")
            if info["abi"] is None:
                del info["abi"]
        old = next((x for x in ent.symbols if x["symbol"] == sym), None)
        if old is not None:
            info = {**old, **info}
        info.update(version=ver, at=m.start())
        if m.group("file"):
            info["provider_file"] = m.group("file")
        line = _line_at(text, m.start(), 400)
        f = re.search(r"\.so(?:\.\d{1,4}){0,3}: (?:undefined )?symbol", line)  # anchored on the literal
        if f and "file" not in info:
            info["file"] = line[_left_not(line, f.start(), _PATH_STOP | {":"}, 300):f.end() - len(f.group(0)) +
                                line[f.start():f.end()].index(":")]
        _push(ent.symbols, info, key=lambda s: s["symbol"])
    for m in _last(_ABI_TAG, text):
        tag = m.group("tag")
        info = native.glibc_tag(tag) or native.glibcxx_tag(tag) or {"tag": tag}
        info = dict(info, at=m.start())
        if m.group("by"):
            info["required_by"] = m.group("by").strip()
        # the library that lacks the tag: "/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found"
        a = text.rfind("\n", max(0, m.start() - 400), m.start()) + 1
        pre = text[a:m.start()]
        lib = re.search(r"\.so(?:\.\d{1,4}){0,3}: version\s{0,2}[`'‘\"]?$", pre)  # anchored on the literal
        if lib:
            end = lib.start() + pre[lib.start():].index(":")
            info["provider_file"] = pre[_left_not(pre, lib.start(), _PATH_STOP | {":"}, 300):end]
        _push(ent.abi_tags, info, key=lambda t: t["tag"])


# --- paths and their owners --------------------------------------------------------------------------------

_PKG_DIR = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<top>[A-Za-z0-9_.-]{1,100})")
_PY_FILE = re.compile(r"File \"(?P<path>[^\"\n]{1,400})\", line \d{1,7}")


def _dist_of(top: str) -> str | None:
    top = top.split(".libs")[0] if top.endswith(".libs") else top
    if top.endswith((".dist-info", ".egg-info", ".pth")) or top in ("__pycache__", "_distutils_hack"):
        return None
    m = re.match(r"([A-Za-z0-9_]+)(?:-[\d.]+.*)?(?:\.py|\.so|\.pyd)?", top)
    if not m:
        return None
    name = m.group(1)
    if name.startswith("_") and name != "_C":
        name = name.lstrip("_") or name
    return name


def _paths(text: str, ent: Entities) -> None:
    for m in _last(_PKG_DIR, text):
        a = _left_not(text, m.start(), _PATH_STOP, 400)
        b = m.end()
        while b < len(text) and b - m.end() < 400 and text[b] not in _PATH_STOP and text[b] != ":":
            b += 1
        path = text[a:b]
        top = m.group("top")
        if top == "nvidia":  # NVIDIA's wheels share the nvidia/ namespace: nvidia/cublas/lib/... is nvidia-cublas-*
            sub = re.match(r"[/\\]([A-Za-z0-9_]{1,40})", text[m.end():m.end() + 42])
            top = f"nvidia-{sub.group(1)}" if sub else top
        dist = _dist_of(top) if not top.startswith("nvidia-") else top.replace("_", "-")
        _push(ent.paths, {"path": path, "distribution": dist, "at": m.start()}, key=lambda p: p["path"])
    for m in _last(_PY_FILE, text):
        path = m.group("path")
        if "-packages" in path:
            continue  # counted above
        _push(ent.paths, {"path": path, "distribution": None, "at": m.start()}, key=lambda p: p["path"])
    ent.paths.sort(key=lambda p: p["at"])


# --- packages and versions ---------------------------------------------------------------------------------

_VER = r"\d{1,4}(?:\.\d{1,4}){0,3}(?:(?:a|b|rc|\.post|\.dev)\d{1,6})?(?:\+[A-Za-z0-9.]{1,30})?"
_EQEQ = re.compile(r"==\s{0,2}(?P<ver>" + _VER + r")")
_INSTALLED = re.compile(r"Successfully installed (?P<list>[^\n]{1,4000})")
_WHEEL_FILE = re.compile(r"\.whl\b")
_TORCH_VER = re.compile(r"(?i)(?<![A-Za-z0-9_])(?:py)?torch(?:==?|-| version:? ?| v| |: ?|[^\x00-\x7f]{1,8}[:\uff1a] ?)(?P<ver>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?"
                        r"(?:(?:a|b|rc|\.dev)\d{1,10})?(?:\+[a-z0-9.]{2,20})?)\b")
_BUILT_FOR = re.compile(r"(?i)(?:built|compiled) (?:for|against|with)[: ]{0,3}\s{0,12}(?:py)?torch[ =]{1,3}v?"
                        r"(?P<built>" + _VER + r")(?: with CUDA (?P<cuda>\d{2,5}(?:\.\d{1,2})?))?")
_YOU_HAVE = re.compile(r"(?i)\(?(?:you have|but (?:you have|found|got)|found|installed(?: version)?(?: is)?)"
                       r"[: ]{1,3}(?:py)?(?:torch[ =]{1,3})?v?(?P<ver>" + _VER + r")")
_BUILT_PYTHON = re.compile(r"(?i)\bPython:?\s{1,8}(?P<built>3\.\d{1,2}(?:\.\d{1,2})?)\s{0,4}\(you have (?P<have>3\.\d{1,2}"
                           r"(?:\.\d{1,2})?)\)")
_DRIVER_VER = re.compile(r"(?i)driver version[ :]{1,4}(?P<ver>\d{3}\.\d{1,3}(?:\.\d{1,3})?)|"
                         r"NVRM version:[^\n]{0,80}?(?P<nvrm>\d{3}\.\d{1,3}(?:\.\d{1,3})?)|"
                         r"client has the version (?P<client>\d{3}\.\d{1,3}(?:\.\d{1,3})?), but"
                         # the kernel prints it over lines, each prefixed (dmesg's time, syslog's host, "NVRM:", #012)
                         r"[^\n]{0,20}(?:\n[^\n]{0,120}?)?this kernel module has "
                         r"the version (?P<kernel>\d{3}\.\d{1,3}(?:\.\d{1,3})?)|"
                         r"NVML library version: (?P<nvml>\d{3}\.\d{1,3}(?:\.\d{1,3})?)|"
                         # TensorFlow's/XLA's cuda_diagnostics: the loaded module's version against libcuda's (the DSO)
                         r"kernel version (?P<kernel2>\d{3}\.\d{1,3}(?:\.\d{1,3})?) does not match DSO version "
                         r"(?P<client2>\d{3}\.\d{1,3}(?:\.\d{1,3})?)")
_CUDA_VER = re.compile(r"CUDA Version:? {0,4}(?P<smi>\d{1,2}\.\d{1,2})|Cuda compilation tools, release (?P<nvcc>\d{1,2}\.\d{1,2})|"
                       r"CUDA used to build PyTorch: (?P<build>\d{1,2}\.\d{1,2})|"
                       r"CUDA[^\x00-\x7f\n]{1,8}[:\uff1a] ?(?P<label>\d{1,2}\.\d{1,2})|"
                       r"\+cu(?P<tag>\d{2,3})\b|\b(?:CUDA|[Cc]uda|cudatoolkit)(?: |=|==|(?<=[a-z])(?=\d))(?:[Vv]ersion |[Tt]oolkit )?"
                       r"(?P<plain>(?:1[0-3]|[7-9])\.\d{1,2})\b")
_CUDNN_VER = re.compile(r"(?i)cudnn(?: version|:| library:| runtime version)?[ :]{0,3}\(?(?P<ver>[5-9]\.\d{1,2}\.\d{1,2}|[5-9]\d{3,4}|"
                        r"[5-9], \d{1,2}, \d{1,2})\)?")
_PY_VER = re.compile(r"\bcp(?P<cp>3\d{1,2})\b|[Pp]ython ?(?P<py>3\.\d{1,2})(?:\.\d{1,2})?\b|/python(?P<dir>3\.\d{1,2})/")


def _cuda_number(raw: str) -> str:
    """CUDA as a number: 12010 (cudaRuntimeGetVersion: 1000 * major + 10 * minor), 1201 (xformers: 100 * major +
    minor), 118 (10 * major + minor) -> "12.1" / "12.1" / "11.8"."""
    v = int(raw)
    if len(raw) == 5:
        return f"{v // 1000}.{v % 1000 // 10}"
    if len(raw) == 4:
        return f"{v // 100}.{v % 100}"
    return f"{v // 10}.{v % 10}" if len(raw) == 3 else raw


def _packages(text: str, ent: Entities) -> None:
    for m in _last(_EQEQ, text):
        a = _left(text, m.start(), _NAME_CHARS - {"+"}, 60)
        name = text[a:m.start()].strip(".-_").lower()
        if name and name[0].isalpha():
            ent.packages[name.replace("_", "-")] = m.group("ver")
    for m in _last(_INSTALLED, text):
        for item in m.group("list").split():
            nm = re.fullmatch(r"([A-Za-z][A-Za-z0-9_.-]{0,60}?)-(" + _VER + r")", item)
            if nm:
                ent.packages[nm.group(1).lower().replace("_", "-")] = nm.group(2)
    for m in _last(_WHEEL_FILE, text):
        a = _left(text, m.start(), _NAME_CHARS | {"%"}, 200)
        nm = re.match(r"([A-Za-z][A-Za-z0-9_.]{0,60}?)-(" + _VER.replace("\\+", "(?:\\+|%2B)") + r")-", text[a:m.start()])
        if nm:
            ent.packages[nm.group(1).lower().replace("_", "-")] = nm.group(2).replace("%2B", "+")
    v = ent.versions
    for m in _last(_TORCH_VER, text):
        v["torch"] = m.group("ver")
    for m in _last(_BUILT_FOR, text):
        # whose build: the closest package named before "built for" on that line or the one before
        a = text.rfind("\n", max(0, m.start() - 300), max(0, text.rfind("\n", 0, m.start()))) + 1
        before = text[a:m.start()]
        who = re.findall(r"([A-Za-z][A-Za-z0-9_-]{1,40}) (?:was|is|has been|were)?\s{0,2}$", before) or \
            re.findall(r"\b([A-Za-z][A-Za-z0-9_-]{1,40})\b", before)
        built = {"torch": m.group("built"), "at": m.start()}
        if m.group("cuda"):
            raw = m.group("cuda")
            built["cuda"] = raw if "." in raw else _cuda_number(raw)
        if who:
            built["package"] = who[-1]
        y = _YOU_HAVE.search(text, m.end(), m.end() + 200)
        if y:
            built["have"] = y.group("ver")
        # xformers-style reports list every component they were built for, one a line: the Python too
        py = _BUILT_PYTHON.search(text, m.end(), m.end() + 400)
        if py:
            built["python"], built["have_python"] = py.group("built"), py.group("have")
        v["built_for"] = built
    for m in _last(_DRIVER_VER, text):
        if m.group("ver"):
            v["driver"] = m.group("ver")
        elif m.group("nvrm"):
            v["driver_kernel_module"] = m.group("nvrm")
        elif m.group("client"):
            v["driver_client"], v["driver_kernel_module"] = m.group("client"), m.group("kernel")
        elif m.group("nvml"):
            v["nvml_library"] = m.group("nvml")
        elif m.group("client2"):
            v["driver_client"], v["driver_kernel_module"] = m.group("client2"), m.group("kernel2")
    for m in _last(_CUDA_VER, text):
        if m.group("smi"):
            v["driver_cuda"] = m.group("smi")
        elif m.group("nvcc"):
            v["nvcc"] = m.group("nvcc")
        elif m.group("build"):
            v["torch_cuda"] = m.group("build")
        elif m.group("label"):
            v.setdefault("cuda", m.group("label"))
        elif m.group("tag"):
            t = m.group("tag")
            v["torch_cuda"] = f"{t[:-1]}.{t[-1]}"
        elif m.group("plain"):
            v.setdefault("cuda", m.group("plain"))
    for m in _last(_CUDNN_VER, text):
        v["cudnn"] = m.group("ver").replace(", ", ".")
    for m in _last(_PY_VER, text):
        if m.group("cp"):
            v["python"] = f"3.{m.group('cp')[1:]}"
        else:
            v["python"] = m.group("py") or m.group("dir")


# --- GPUs, architectures, exceptions -------------------------------------------------------------------------

_GPU = re.compile(r"\b(?P<gpu>(?:NVIDIA )?(?:GeForce (?:RTX|GTX|GT|MX) ?\d{3,4}(?: Ti| SUPER| Laptop GPU){0,2}|"
                  r"GTX ?\d{3,4}(?: Ti)?\b|"
                  r"(?:NVIDIA )?RTX (?:A\d{3,4}|PRO \d{4}|\d{4})(?: Ada)?|Tesla [KPMVT]\d{1,3}|Quadro [A-Z]{1,3}\d{2,4}|"
                  r"TITAN [A-Za-z]{1,6}|(?:A100|A800|A10G|A10|A30|A40|A16|H100|H200|H800|H20|B200|B100|L40S|L40|L4|V100|T4|P100|P40|K80)"
                  r"(?:[- ](?:SXM\d?|PCIe|PCIE|\d{2,3}GB)){0,2}\b|"
                  r"GH200|GB200|Jetson [A-Z][A-Za-z]{2,12}(?: [A-Z][A-Za-z]{1,10})?|"
                  r"Radeon (?:RX |Pro |VII)[A-Z0-9 ]{0,12}|Instinct MI\d{2,3}X?|MI\d{3}X?|Apple M\d(?: Pro| Max| Ultra)?))",
                  re.M)
_ARCH = re.compile(r"\b(?P<kind>sm|compute)_(?P<num>\d{2,3}[af]?)\b|\b(?P<gfx>gfx\d{3,4}[a-z]?)\b|"
                   r"(?i:cuda capability)(?: sm_| )(?P<cap>\d{1,2}(?:\.\d)?)\b")
_EXC_END = re.compile(r"(?:Error|Exception|Warning|Exit|Interrupt|Failure)(?=:|\b)")


def _devices(text: str, ent: Entities) -> None:
    for m in _last(_GPU, text):
        g = m.group("gpu").strip()
        _push(ent.gpus, g)
    for m in _last(_ARCH, text):
        if m.group("kind"):
            _push(ent.archs, f"{m.group('kind')}_{m.group('num')}")
        elif m.group("gfx"):
            _push(ent.archs, m.group("gfx"))
        else:
            cap = m.group("cap")
            cap = cap if "." in cap else (f"{cap[:-1]}.{cap[-1]}" if len(cap) >= 2 else cap)
            _push(ent.archs, f"capability {cap}")
    for m in _last(_EXC_END, text):
        a = _left(text, m.start(), _NAME_CHARS - {"+", "-"}, 120)
        name = text[a:m.end()].strip(".")
        base = name.rsplit(".", 1)[-1]
        if base[:1].isupper() and len(base) > len(m.group(0)) and text[m.end():m.end() + 1] == ":":
            _push(ent.exceptions, name)


# --- the machine the text comes from, and pip's resolution failures ------------------------------------------------

PLATFORM_TAIL = 64 * 1024
_PLATFORM = {
    # (?![A-Za-z]) rather than \b after a name: "macOS版本" (CJK letters are word characters) still names macOS;
    # a .dylib file by name, not the extension in a list of every platform's (".so/.dll/.dylib")
    "macos": re.compile(r"/Users/|macosx_|[Dd]arwin|(?<=[A-Za-z0-9_+-])\.dylib\b|(?<![A-Za-z])[Mm]ac ?OS(?![A-Za-z])|\bMac(?![A-Za-z])|[Mm]ac[Bb]ook|"
                        r"\bOS ?X\b|Apple M\d|\bM[1-4] (?:Pro|Max|Ultra|Mac)|(?<![A-Za-z])[Mm]ac ?M[1-4]\b|"
                        r"[Aa]pple[ _-]?[Ss]ilicon|/opt/homebrew|/Library/Frameworks/Python\.framework/|"
                        # MPS by name, except in a list of the backends a library probes ("Neither TORCH CUDA nor
                        # MPS", "CUDA/MPS"), which any platform prints; conda's macOS platform folders
                        r"(?<!nor )(?<!or )(?<!/)\b(?:MPS|mps)\b(?![/|])|\bosx-(?:arm)?64\b|"
                        r"\bM[1-4] (?:machine|chip|[Mm]ac[Bb]ook|laptop)\b|"
                        # dyld's word for a binary of another format ("not a mach-o file": a Linux .so on a Mac);
                        # Apple's chip before a CJK letter ("M1上", "M2芯片": the Mac in Chinese/Japanese text)
                        r"\b[Mm]ach-[Oo]\b|(?<![A-Za-z0-9])M[1-4](?: ?(?:Pro|Max|Ultra))?(?= ?chip|[\u3040-\u30ff\u4e00-\u9fff])"),
    "windows": re.compile(r"[A-Za-z]:\\[A-Za-z$]|WinError|\.dll\b|\\Lib\\site-packages|\bPS [A-Z]:\\|\bWindows(?! Subsystem)|"
                          r"\b[Ww]in(?:dows)? ?(?:1[01]|7|8(?:\.1)?|[Ss]erver)\b"),
    # WSL 2 by name, its library folder or kernel; also nvidia-smi run inside WSL: a Linux NVIDIA-SMI (x.y.z) over
    # the Windows driver's two-part version (Windows drivers are numbered 555.85, Linux ones 555.42.03)
    "wsl": re.compile(r"/usr/lib/wsl|/mnt/[a-z]/(?:Users|Program Files|Windows|ProgramData)/|\b[Ww][Ss][Ll] ?2?(?![A-Za-z])|microsoft-standard|Windows Subsystem for Linux|"
                      r"\bSubsystem (?:for Linux|on Windows)\b|"
                      r"NVIDIA-SMI \d{3}\.\d{2,3}\.\d{2}\s{1,40}Driver Version: \d{3}\.\d{2}(?![.\d])|"
                      # on Linux nvidia-smi's own version and the driver's are one (NVML refuses to start otherwise):
                      # a header that prints two, the second a Windows-style two-part one, reads the Windows driver
                      r"NVIDIA-SMI (?P<smi>\d{3}\.\d{2,3}(?:\.\d{2})?)\s{1,40}Driver Version: (?!(?P=smi)(?![.\d]))"
                      r"\d{3}\.\d{2}(?![.\d])|"
                      r"\d\.\d{1,2}\.\d{1,3}-\d{3,6}-Microsoft\b|Microsoft@Microsoft\.com|"
                      # a Linux log line (a shell prompt, NCCL's "<host>:<pid>:<tid>" prefix) from a machine with
                      # Windows' default computer name (DESKTOP-/LAPTOP- and 7 characters): Linux on that Windows
                      r"(?:@|(?m:^))(?:DESKTOP|LAPTOP)-[A-Z0-9]{7}(?::~|:/|:\d{1,7}:\d{1,7} )"),
    # WSL 1: its kernel is Microsoft's 4.4.0-NNNNN-Microsoft, which has no GPU passthrough at all
    "wsl1": re.compile(r"\b4\.4\.0-\d{3,6}-Microsoft\b"),
    # also Docker's default host name, the container id's first 12 hex digits, where a text prints the host: a
    # prompt (root@3f2a9c1b0d4e:/#), NCCL's "<host>:<pid>:<tid>" prefix, TensorFlow's "on this host (<host>)"
    "container": re.compile(r"docker run|nvidia-docker|\b[Dd]ocker\b|/\.dockerenv|containerd|\bpodman\b|[Kk]ubernetes|"
                            r"\bk8s\b|[Ss]ingularity|[Aa]pptainer|"
                            # the word in Chinese, Japanese and Korean texts
                            r"容器|コンテナ|컨테이너|"
                            # the container named as the place the error happens ("in container", "the container
                            # loses access to the GPU")
                            r"\b(?:[Ii]n|[Ii]nside|[Ww]ithin|[Tt]he|[Mm]y|[Tt]his|[Ee]ach) (?:a |the |my )?containers?\b|"
                            # docker compose's log prefix: the service and its replica number, then " | "
                            # ("qna-transformers_1  | RuntimeError: ...", Compose v2: "api-1  | ...")
                            r"(?m:^)[a-z0-9][\w.-]{0,60}[-_]\d{1,3}[ \t]{1,30}\| |"
                            r"(?:@|(?m:^)|this host \()(?=[0-9a-f]{0,11}[a-f])(?=[0-9a-f]{0,11}\d)[0-9a-f]{12}(?::|\) ?:|\)(?m:$))"),
    # also a version glued to the name ("ROCm5.4.3") and Radeon's RX model numbers without the brand ("RX6800",
    # "RX 7900 XTX"; NVIDIA's are RTX)
    "amd": re.compile(r"\bAMD\b|Radeon|\bROCm(?:\b|\d)|\brocm(?:\b|\d)|\bgfx\d{3,4}|amdgpu|\bHIP\b|Instinct MI|"
                      r"\bRX ?[4-9]\d{2,3}(?: XTX?| GRE)?\b"),
    # ZLUDA: CUDA's DLL names served by a translation layer over AMD's HIP SDK (torch's CUDA build on an AMD GPU)
    "zluda": re.compile(r"(?i)zluda"),
    "intel_mac": re.compile(r"macosx_\d{1,2}_\d{1,2}_x86_64|Intel Mac|Mac ?(?:OS)?[^\n]{0,40}x86_64|x86_64[^\n]{0,40}[Dd]arwin"),
}
_PIP_NOT_FOUND = re.compile(r"(?i:could(?: not|n'?t)? find a version that satisf(?:ies|y)) the requirement (?P<req>[A-Za-z0-9_.\-\[\],]{1,80}"
                            r"(?:[=<>~!]{1,3}[A-Za-z0-9_.*+]{1,30})?)(?:[^\n]{0,80}?\(from versions: (?P<versions>[^)\n]{0,4000})\))?")
# pip's last line of the same failure, which is often all a user quotes (the list of versions is then unknown)
_PIP_NO_MATCH = re.compile(r"No matching distribution found for (?P<req>[A-Za-z0-9_.\-\[\],]{1,80}"
                           r"(?:[=<>~!]{1,3}[A-Za-z0-9_.*+]{1,30})?)")


# pip's verbose lines about the wheels it skipped name other platforms' tags (macosx_, win_amd64): not this machine's
_SKIPPED_WHEEL_LINE = re.compile(r"(?m)^[^\n]{0,40}(?:Skipping link: none of the wheel's tags match|"
                                 r"is not a supported wheel on this platform)[^\n]{0,2000}$")


def _platform(text: str, ent: Entities) -> None:
    tail = text[-PLATFORM_TAIL:]
    if "Skipping link: none of the wheel" in tail:
        tail = _SKIPPED_WHEEL_LINE.sub("", tail)
    for name, pattern in _PLATFORM.items():
        if pattern.search(tail):
            ent.platform[name] = True


def _pip(text: str, ent: Entities) -> None:
    """pip's "no version satisfies" for a requirement: the versions it listed ([] for "none"), or None where the text
    does not show the list (its last line alone, or a line cut before it)."""
    for m in _last(_PIP_NOT_FOUND, text):
        listed = m.group("versions")
        versions = (None if listed is None else
                    [v.strip() for v in listed.split(",") if v.strip() and v.strip() != "none"][-40:])
        _pip_row(ent, m.group("req"), versions, m.start())
    if "No matching distribution" in text:
        for m in _last(_PIP_NO_MATCH, text):
            _pip_row(ent, m.group("req"), None, m.start())


def _pip_row(ent: Entities, req: str, versions, at: int) -> None:
    req = req.rstrip(".,")
    name = re.match(r"[A-Za-z0-9_.\-]{1,60}", req).group(0).lower()
    # pip's last line repeats the requirement (sometimes shortened: torch==2.3 after torch==2.3.0): the row with the
    # versions listed says more
    known = next((p for p in ent.pip if p["requirement"] == req or (versions is None and p["name"] == name)), None)
    if known is not None:
        if known["versions"] is None and versions is not None:
            known["versions"] = versions
        return
    _push(ent.pip, {"requirement": req, "name": name, "versions": versions, "at": at}, key=lambda p: p["requirement"])


# --- builds: what a build tool reports about the build it ran ------------------------------------------------

# pip's (and uv's) report of the distribution it builds from source, in any of its releases' wordings
_BUILD_PKG = re.compile(r"(?=[BFfRGPC])(?:Building wheel for|[Ff]ailed building wheel for|Running setup\.py (?:install|develop|bdist_wheel) for|"
                        r"Failed to build|Could not build wheels for|Building editable for|Getting requirements to build wheel for|"
                        r"Preparing metadata \(\w{1,20}\) for)[ \t]{1,3}[`'\"]?(?P<pkg>[A-Za-z][A-Za-z0-9_.-]{0,80}?)"
                        r"(?:[=@][^\s`'\"]{0,80})?[`'\"]?(?=[\s,:;)(]|$)")
# a compiler's diagnostic on a source file: gcc/clang/nvcc "file.cu:12:3: error:" and "file.cu(12): error:",
# MSVC "file.cpp(12): error C2065:" / "fatal error C1083:"
# (anchored on the extension: the file's name is then read leftwards over path characters, a bounded number of them)
_DIAG = re.compile(r"\.(?:cpp|cc|cxx|cu|cuh|c|hpp|hip|h|mm)(?:[:(]\d{1,7}){1,2}\)?:(?:\d{1,5}:)? {0,2}(?:fatal )?error\b"
                   r"(?: (?P<msvc>C\d{4}))?")
_SRC_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+/\\:~-")
# (the lookahead of the alternatives' first letters lets the search skip every other position)
_TOOL_FAILED = re.compile(r"(?=[encCLEs])(?:error: command ['\"](?P<cmd>[^'\"\n]{1,300})['\"] failed|(?P<nvcc>nvcc) fatal|"
                          r"(?P<ninja>ninja): build stopped|(?P<cmake>CMake) Error\b|(?P<ld>collect2): error|"
                          r"(?P<lnk>LINK) : fatal error|error (?P<lnk2>LNK)\d{4}|"
                          r"Error compiling objects for (?P<ext>extension)|(?P<sub>subprocess-exited-with-error))")
_CMD_TOOL = re.compile(r"(?i)(?:^|[/\\])(?P<t>nvcc|hipcc|g\+\+|gcc|c\+\+|cc|clang\+\+|clang|cl|link|ninja|cmake|make|ld)"
                       r"(?:-\d{1,2})?(?:\.exe)?$")


def _builds(text: str, ent: Entities) -> None:
    for m in _last(_BUILD_PKG, text):
        pkg = m.group("pkg").rstrip(".-")
        if pkg.lower() in ("some", "the", "installable", "wheel", "wheels", "a", "one", "this") or len(pkg) < 2:
            continue
        failed = "ailed" in m.group(0)[:12] or m.group(0).startswith("Could not build")
        _push(ent.builds, {"what": "package", "package": pkg.lower().replace("_", "-"), "failed": failed,
                           "at": m.start()}, key=lambda b: (b["what"], b.get("package")))
    for m in _last(_DIAG, text):
        ext = text[m.start():m.end()].split(":", 1)[0].split("(", 1)[0]
        f = (text[_left(text, m.start(), _SRC_CHARS, 300):m.start()] + ext).lstrip(":")
        if not f or f.startswith(("http", "//")):
            continue
        _push(ent.builds, {"what": "compile", "file": f[-200:], "tool": "msvc" if m.group("msvc") else
                           ("nvcc" if f.endswith((".cu", ".cuh")) else "cc"), "at": m.start()},
              key=lambda b: (b["what"], b.get("file")))
    for m in _last(_TOOL_FAILED, text):
        tool = None
        if m.group("cmd"):
            t = _CMD_TOOL.search(m.group("cmd").split()[0] if m.group("cmd").split() else "")
            tool = t.group("t").lower() if t else m.group("cmd").split()[0][-40:]
        else:
            tool = next((k for k in ("nvcc", "ninja", "cmake", "ld", "lnk", "lnk2", "ext", "sub") if m.group(k)), None)
            tool = {"lnk": "link", "lnk2": "link", "ext": "cpp_extension", "sub": "pip-build"}.get(tool, tool)
        _push(ent.builds, {"what": "tool", "tool": tool, "at": m.start()}, key=lambda b: (b["what"], b.get("tool")))
    if "__" in text:
        # nvcc's diagnostics quoted without their file:line ("error: An extended __device__ lambda must not be ..."):
        # an error line that names CUDA C++'s own qualifiers is a CUDA compilation's
        for m in _last(_NVCC_DIAG_WORDS, text):
            _push(ent.builds, {"what": "compile", "file": "", "tool": "nvcc", "at": m.start()},
                  key=lambda b: (b["what"], b.get("file")))
    ent.builds.sort(key=lambda b: b["at"])


_NVCC_DIAG_WORDS = re.compile(r"\berror(?: #\d{1,5}(?:-D)?)?: [^\n]{0,160}?\b__(?:device|global|host|shared|constant|"
                              r"managed|grid_constant)__\b")


NEEDLES = {
    _BUILD_PKG: ("building wheel for", "failed building wheel", "running setup.py", "failed to build", "could not build wheels",
                 "building editable", "requirements to build wheel", "preparing metadata"),
    _DIAG: (".c", ".h", ".mm"),  # every match starts with one
    _TOOL_FAILED: ("error: command", "nvcc fatal", "build stopped", "cmake error", "collect2", "fatal error", "error lnk",
                   "error compiling objects", "subprocess-exited-with-error"),
    _PIP_NOT_FOUND: ("find a version that satisf",),
    _PIP_NO_MATCH: ("no matching distribution found for",), _NVCC_DIAG_WORDS: ("error",),
    _CODE_NAME: ("cuda", "_status_", "cufft_", "nvrtc", "nvjitlink", "nccl", "nvml", "hip", "miopenstatus", "error_",
                 "status_", "errno.", "cupti_", "ur_result_"),
    _CODE_MESSAGE: ("error",), _API_ERROR: ("api error = ",), _CUDA_ERROR_N: ("cuda", "cuinit", "cudevice", "cuctx"),
    _LIB_NUMBER: ("cublas", "cusolver", "cusparse", "cufft", "curand", "nccl", "nvrtc", "nvjitlink", "nvml"),
    _API_CALL_NUMBER: ("cupti", "cublas", "cusparse", "cusolver", "cufft", "curand", "nvrtc", "nccl", "nvml", "cudnn",
                       "nvjitlink"),
    _PYNVML_CLASS: ("nvmlerror_",), _NUMBA_CALL: ("] call to cu",),
    _WINERROR: ("winerror", "os error", "loadlibrary", "getprocaddress"), _TORCH_CUDA_WORDS: ("driver initialization",), _ERRNO: ("errno",), _NVML_MESSAGE: ("nvml",),
    _CUDA_API_HEX: ("cuda api error detected",),
    _CHECK_VS: ("success",), _LIB_TRAILING_NUMBER: ("cufft", "cublas", "cusolver", "cusparse", "curand", "nvrtc"),
    _CUBLAS_INIT: ("cublas",), _TRITON_ERROR: ("triton error [",), _THC_LIBRARY_ERROR: (" runtime error : ",),
    _ENUM_NUMBER: ("curesult", "cudaerror", "cublasstatus", "cudnnstatus", "ncclresult", "hiperror", "cuda error driver",
                   "cuda runtime error (", "cudaapierror"), _TRT_CUDA_ERROR: ("cuda error in ",), _VK_NUMBER: ("vk", "vulkan error"), _VK_HPP: ("vk::",), _TVM_CUDA: ("is false: cuda: ",), _DLL_REASON: ("dll load failed",),
    _PAGING_FILE: ("paging file is too small", "页面文件太小"), _NTSTATUS: ("0xc0000", "3221", "-107374"),
    _SIGNAL_WORDS: ("bus error", "segmentation fault", "illegal instruction", "killed", "aborted", "exit", "signal",
                    "zsh: ", "illegal hardware"),
    _LIB_END: (".so", ".dylib", ".dll", ".pyd"), _LINK_LIB: ("cannot find -l", "can not find -l", "find library -l", "not found for -l", "ld: ", "ld.exe: ",
                                                  "ld.bfd: ", "ld.gold: ", "ld.lld: "), _UNDEFINED: ("undefined", "symbol not found", "entry point", "failed to load function", "failed to find function",
                 "failed to resolve function", "failed to load symbol", "failed to find symbol", "failed to resolve symbol"),
    _SYMBOL_VERSION: ("not defined in file", ", version "), _ABI_TAG: ("glibc", "cxxabi_"),
    _PKG_DIR: ("-packages",), _PY_FILE: ('file "',), _EQEQ: ("==",), _INSTALLED: ("successfully installed",),
    _WHEEL_FILE: (".whl",), _TORCH_VER: ("torch",), _BUILT_FOR: ("built", "compiled"),
    _DRIVER_VER: ("driver version", "nvrm", "client has the version", "nvml library version", "does not match dso version"),
    _CUDA_VER: ("cuda", "+cu"), _CUDNN_VER: ("cudnn",), _PY_VER: ("cp3", "python"),
    _GPU: ("geforce", "rtx", "gtx", "tesla", "quadro", "titan", "a10", "a30", "a40", "a16", "a800", "h100", "h200", "h800",
           "h20", "b200", "b100", "l40", "l4", "v100", "t4", "p100", "p40", "k80", "gh200", "gb200", "jetson", "radeon",
           "instinct", "mi", "apple m"),
    _ARCH: ("sm_", "compute_", "gfx", "capability"),
    _EXC_END: ("error", "exception", "warning", "exit", "interrupt", "failure"),
}


def entities(text: str) -> Entities:
    """Everything `text` is made of (see the module docstring).  `text` should be cleaned already
    (match.clean: the last 1 MiB, no ANSI codes, \\n line ends)."""
    ent = Entities()
    _LOWER.clear()
    _codes(text, ent)
    _libraries(text, ent)
    _symbols(text, ent)
    _paths(text, ent)
    _packages(text, ent)
    _devices(text, ent)
    _platform(text, ent)
    _pip(text, ent)
    _builds(text, ent)
    _LOWER.clear()
    return ent
