"""Layer rules for profiling and monitoring the GPU: CUPTI under torch.profiler (Kineto), TensorFlow's profiler and
Nsight; NVML under nvidia-smi, pynvml, nvitop and gpustat.

    gpu_counters_restricted  CUPTI_ERROR_INSUFFICIENT_PRIVILEGES / Nsight's ERR_NVGPUCTRPERM -> the driver's
                         restriction of the performance counters (NVreg_RestrictProfilingToAdminUsers), root, or in a
                         container the SYS_ADMIN capability
    cupti_subscriber_taken  CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED -> one CUPTI client at a time
    cupti_library_not_found  libcupti not loaded (TensorFlow's profiler, Kineto) -> CUPTI's folder on the loader path
    nvprof_on_ampere     nvprof refusing compute capability 8.0 and later -> Nsight Systems / Nsight Compute
    nvml_query_not_supported  NVML's NotSupported for one query -> the GPU lacks that reading: not the installation
    nvml_function_missing  NVML's FunctionNotFound / an undefined nvml* symbol -> the driver's NVML older than the
                         binding (a driver version in the text), or two Python bindings installed over each other
    pynvml_missing       torch.cuda's "pynvml does not seem to be installed" -> nvidia-ml-py
    profiler_events_unmatched  torch.profiler's "Failed to recover relationship between all profiler and kineto
                         events" -> not-environment: when the profiler starts against the CUDA context
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, in_container, last_in_tail
from torch_envcheck.explain.match import last_match

_COUNTERS_DOC = {"url": "https://developer.nvidia.com/ERR_NVGPUCTRPERM",
                 "what": "NVIDIA: permission to access GPU performance counters (NVreg_RestrictProfilingToAdminUsers)"}
_CUPTI_HEADER = {"url": "https://docs.nvidia.com/cupti/api/group__CUPTI__RESULT__API.html",
                 "what": "CUPTI's result codes (cupti_result.h)"}

_COUNTERS_REFUSED = re.compile(r"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES|ERR_NVGPUCTRPERM|does not have permission to access "
                               r"NVIDIA GPU Performance Counters")


# Kineto prints a hint naming the code at every start-up ("If you see CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, refer
# to ..."): the code named there is not the error
_KINETO_HINT = re.compile(r"If you see\s{0,3}$")


def _decoded(ent, name: str) -> int | None:
    """Where the text gives the code by its number (a CUPTI call "failed with error 35"), or None."""
    ats = [c.get("at", -1) for c in ent.codes if c.get("name") == name and c.get("how") == "number"]
    return max(ats) if ats else None


def gpu_counters_restricted(ent, text):
    tail = text[-CONTEXT_TAIL:]
    found = [m for m in _COUNTERS_REFUSED.finditer(tail) if not _KINETO_HINT.search(tail[max(0, m.start() - 20):m.start()])]
    number = _decoded(ent, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")
    if not found and number is None:
        return None
    at = len(text) - len(tail) + found[-1].start() if found else number
    container = in_container(ent, text)
    sig = _sig("gpu-counters-restricted", "container" if container else "driver",
               "the GPU's performance counters are restricted to administrators" +
               (" (in a container: its capabilities)" if container else ""), 86,
               "Since driver 418.43 the NVIDIA driver lets only administrators read the GPU's performance counters, "
               "which CUPTI (torch.profiler's Kineto, TensorFlow's profiler) and Nsight Compute need for kernel "
               "metrics; a process without that right is refused" +
               (". A container's process lacks the capability unless the container is given it, whoever runs "
                "inside." if container else "."),
               fix=("Start the container with the capability: `docker run --cap-add=SYS_ADMIN ...` (or --privileged), "
                    "and run the profiler as root inside it; on the host the administrator can lift the restriction "
                    "instead: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ (then "
                    "`sudo update-initramfs -u` and reboot)." if container else
                    "Run the profiler with administrator rights (`sudo -E ncu ...`, or CAP_SYS_ADMIN), or have the "
                    "administrator allow every user: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
                    "in /etc/modprobe.d/, then `sudo update-initramfs -u` and reboot (Windows: the NVIDIA Control "
                    "Panel's Developer > Manage GPU Performance Counters)."),
               areas=("driver",), sources=(_COUNTERS_DOC, _CUPTI_HEADER))
    return _match(sig, text, at, {})


_SUBSCRIBERS = re.compile(r"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED")
_NIGHTLY = re.compile(r"\bnightly\b|\.dev20\d{6}")


def cupti_subscriber_taken(ent, text):
    m, at = last_in_tail(_SUBSCRIBERS, text, "SUBSCRIBERS")
    if m is None:
        return None
    nightly = _NIGHTLY.search(text[-CONTEXT_TAIL:]) is not None
    sig = _sig("cupti-subscriber-taken", "torch-build" if nightly else "env",
               "another CUPTI client already holds CUPTI's one subscriber slot", 84,
               "CUPTI lets one client subscribe to its callbacks per process: a second profiler (Nsight Systems or "
               "Compute, cuda-gdb, DCGM's profiling, a framework's own tracer such as torch's Kineto) attached to the "
               "same process is refused" + (". Here torch is a nightly build, whose Kineto can hold the slot from "
                                           "start-up" if nightly else "") + ".",
               fix=("Profile with one tool at a time: leave torch.profiler off while Nsight or another CUPTI tool "
                    "attaches (and the reverse)" + ("; a torch nightly whose Kineto subscribes at start-up needs a newer "
                                                     "nightly or the stable release" if nightly else "") + "."),
               areas=("torch",), sources=(_CUPTI_HEADER,))
    return _match(sig, text, at, {})


# libcupti itself, or the PerfWorks libraries CUPTI's range profiler loads from the same folder (libnvperf_host,
# libnvperf_target: CUPTI's lib folder in the toolkit and in the nvidia-cuda-cupti wheel)
_CUPTI_UNLOADED = re.compile(r"(?i)(?:could not load dynamic library|cannot open shared object file|cannot be loaded|"
                             r"not found|failed to load)[^\n]{0,80}lib(?:cupti|nvperf_host|nvperf_target)|"
                             r"lib(?:cupti|nvperf_host|nvperf_target)[\w.]{0,20}[^\n]{0,40}(?:cannot be "
                             r"loaded|not found|cannot open shared object file|could not be (?:found|loaded))")


def cupti_library_not_found(ent, text):
    low = text[-CONTEXT_TAIL:].lower()
    if "cupti" not in low and "nvperf" not in low:
        return None
    m, at = last_in_tail(_CUPTI_UNLOADED, text)
    if m is None:
        return None
    sig = _sig("cupti-library-not-found", "libraries", "the profiler cannot load CUPTI (libcupti, or its libnvperf_*)", 83,
               "The GPU tracer of TensorFlow's profiler and of torch.profiler (Kineto) loads CUPTI, the CUDA toolkit's "
               "profiling library, at run time (and CUPTI's range profiler its PerfWorks libraries, libnvperf_host "
               "and libnvperf_target, from the same folder); it lives apart from the other CUDA libraries (the toolkit's "
               "extras/CUPTI/lib64, or the nvidia-cuda-cupti wheel), so the loader does not find it unless its folder "
               "is on the search path. Only the profiler's GPU trace is missing; training runs.",
               fix="Put CUPTI's folder on the loader path before starting: `export LD_LIBRARY_PATH=/usr/local/cuda/"
                   "extras/CUPTI/lib64:$LD_LIBRARY_PATH` (the toolkit of the framework's CUDA; Windows: extras\\CUPTI\\"
                   "lib64 on PATH), or install the CUPTI of that CUDA (`pip install nvidia-cuda-cupti-cu12` for a "
                   "CUDA 12 framework; Debian/Ubuntu's libcupti-dev).",
               areas=("libraries",),
               sources=({"url": "https://www.tensorflow.org/guide/profiler#install_the_profiler_and_gpu_prerequisites",
                         "what": "TensorFlow profiler: CUPTI on LD_LIBRARY_PATH"},))
    return _match(sig, text, at, {})


_NVPROF_REFUSED = re.compile(r"nvprof is not supported on devices with compute capability 8\.0 and higher")


def nvprof_on_ampere(ent, text):
    m, at = last_in_tail(_NVPROF_REFUSED, text, "nvprof")
    if m is None:
        return None
    sig = _sig("nvprof-unsupported-gpu", "arch", "nvprof does not profile GPUs of compute capability 8.0 and later", 86,
               "nvprof and the Visual Profiler stop at Volta/Turing: from compute capability 8.0 (Ampere) NVIDIA's "
               "profilers are Nsight Systems (timelines) and Nsight Compute (kernel metrics).",
               fix="Use `nsys profile python train.py` (or `nsys nvprof ...` for nvprof's options) for the timeline and "
                   "`ncu` for kernel metrics; torch.profiler works on these GPUs too.",
               areas=("toolchain",),
               sources=({"url": "https://docs.nvidia.com/cuda/profiler-users-guide/index.html",
                         "what": "Profiler User's Guide: nvprof does not support compute capability 8.0 and higher"},))
    return _match(sig, text, at, {})


# NVML's NOT_SUPPORTED in its bindings' words: pynvml's NVMLError_NotSupported, nvml-wrapper's (Rust)
# NVMLError(...NotSupported...), the .NET wrappers' "failed with code NotSupported", NVML's own string
_NVML_NOT_SUPPORTED = re.compile(r"NVMLError_NotSupported|NVMLError\(Error\(NotSupported|NVML[^\n]{0,40}\bcode "
                                 r"NotSupported\b|NVML_ERROR_NOT_SUPPORTED")


def nvml_query_not_supported(ent, text):
    m, at = last_in_tail(_NVML_NOT_SUPPORTED, text, "upported")
    if m is None:
        return None
    sig = _sig("nvml-query-not-supported", "not-environment", "the GPU does not offer this NVML reading", 80,
               "NVML answers NOT_SUPPORTED when the device has no such reading: power draw, clocks, ECC, fan or "
               "per-process figures are missing on many GeForce and laptop GPUs and on some drivers' virtual GPUs. "
               "The driver and NVML work; the tool asked for a figure this GPU does not give.",
               look_at="Not the installation: the monitoring tool must skip that field (update it to a release that "
                       "tolerates unsupported readings, or turn that column off); `nvidia-smi -q` shows N/A for the "
                       "readings this GPU lacks.",
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html",
                         "what": "NVML device queries: NVML_ERROR_NOT_SUPPORTED when the device lacks the feature"},))
    return _match(sig, text, at, {})


_NVML_FN_MISSING = re.compile(r"NVMLError_FunctionNotFound|FunctionNotFound errors? occurred|NVML_ERROR_FUNCTION_NOT_FOUND|"
                              r"libnvidia-ml\.so(?:\.1)?: undefined symbol: (?P<sym>nvml\w{2,80})")
_DRIVER_PRINTED = re.compile(r"(?:Driver Version:?\s{0,4}|b?'|nvmlSystemGetDriverVersion\(\)\s{0,4}\n[^\n]{0,6})"
                             r"(?P<v>[3-9]\d{2}\.\d{2,3}(?:\.\d{1,3})?)\b")


def nvml_function_missing(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NVML_FN_MISSING, tail)
    if m is None:
        return None
    drv = _DRIVER_PRINTED.search(tail)
    fix_binding = ("Keep one NVML binding: the pynvml module is installed by nvidia-ml-py (NVIDIA's), and also by the "
                   "packages pynvml, nvidia-ml-py3 and py3nvml, which overwrite each other: `pip uninstall -y pynvml "
                   "nvidia-ml-py3 py3nvml nvidia-ml-py`, then `pip install nvidia-ml-py` (a release not newer than the "
                   "driver, if the driver is old).")
    if drv is not None:
        sig = _sig("nvml-function-missing-old-driver", "driver",
                   "driver {driver}'s NVML lacks a function the Python binding calls", 90,
                   "NVML_ERROR_FUNCTION_NOT_FOUND: the NVML library is the driver's (libnvidia-ml), and the one of driver "
                   "{driver} does not implement the function (often a newer _v2/_v3 variant) that the installed binding "
                   "(nvidia-ml-py, or a tool built on it: gpustat, nvitop) calls.",
                   fix="Update the NVIDIA driver, or install a binding from the driver's time (an older nvidia-ml-py / "
                       "tool release). " + fix_binding,
                   areas=("driver",), sources=({"url": "https://docs.nvidia.com/deploy/nvml-api/group__nvmlReturn.html",
                                                "what": "NVML_ERROR_FUNCTION_NOT_FOUND: the local NVML lacks the function"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"driver": drv.group("v")})
    sig = _sig("nvml-binding-mismatch", "libraries",
               "the Python NVML binding calls a function this NVML does not have", 89,
               "NVML_ERROR_FUNCTION_NOT_FOUND (or an undefined nvml* symbol): the binding (the pynvml module) expects "
               "another NVML than the driver's. Several packages install a module named pynvml (nvidia-ml-py, "
               "pynvml, nvidia-ml-py3, py3nvml) and overwrite each other, so a tool can run with a binding it was "
               "not written for; a binding newer than the driver asks for functions the driver lacks.",
               fix=fix_binding + " If that is in place, update the NVIDIA driver.",
               areas=("driver",), sources=({"url": "https://pypi.org/project/nvidia-ml-py/",
                                            "what": "nvidia-ml-py: NVIDIA's Python binding, the pynvml module"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_PYNVML_MISSING = re.compile(r"pynvml does not seem to be installed or it can't be imported|"
                             r"pynvml module not found, please install pynvml")


def pynvml_missing(ent, text):
    m, at = last_in_tail(_PYNVML_MISSING, text, "pynvml")
    if m is None:
        return None
    sig = _sig("pynvml-missing", "libraries", "torch's GPU utilisation and memory queries need pynvml, not installed", 82,
               "torch.cuda.utilization(), memory_usage() and the like read NVML through the optional pynvml module, "
               "which torch does not install.",
               fix="Install NVIDIA's binding in the same environment: `pip install nvidia-ml-py` (it provides the "
                   "pynvml module; the package named pynvml is a different one).",
               areas=("torch",), sources=({"url": "https://pypi.org/project/nvidia-ml-py/",
                                           "what": "nvidia-ml-py: NVIDIA's Python binding, the pynvml module"},))
    return _match(sig, text, at, {})


# torch/csrc/autograd/profiler_kineto.cpp (the string in libtorch_cpu): the profiler's own events and Kineto's GPU
# activities could not all be paired
_UNMATCHED = re.compile(r"Failed to recover relationship between all profiler and kineto events: (?P<a>\d{1,12}) vs\. "
                        r"(?P<b>\d{1,12})")


def profiler_events_unmatched(ent, text):
    m, at = last_in_tail(_UNMATCHED, text, "Failed to recover relationship")
    if m is None:
        return None
    sig = _sig("profiler-events-unmatched", "not-environment",
               "torch.profiler could not pair its events with Kineto's GPU activities ({a} vs. {b})", 78,
               "torch.profiler records its operators and Kineto (through CUPTI) the GPU's activities, and pairs them "
               "afterwards; this warning says they could not all be paired, so the trace lacks the GPU side of some "
               "operators. Kineto follows the CUDA contexts created after it starts: a context made earlier (CUDA work "
               "before the first profile, another library's context) is not traced. The installation is not at fault.",
               look_at="Start the profiler before any CUDA work (a short warm-up `with torch.profiler.profile(): pass` "
                       "at the program's start), keep one profiler active at a time, and compare with the current torch "
                       "if the trace still lacks GPU events. Nothing to install.",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/csrc/autograd/profiler_kineto.cpp",
                         "what": "the warning's text in torch's Kineto profiler"},
                        {"url": "https://github.com/pytorch/pytorch/issues/125272",
                         "what": "a profiler maintainer: initialise the profiler before the CUDA context is created"}))
    return _match(sig, text, at, {"a": m.group("a"), "b": m.group("b")})
