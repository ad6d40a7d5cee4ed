"""Layer rules that read two NVIDIA driver versions printed side by side: the one a component needs or was built
with, and the one the machine has.

    driver_module_mismatch  the kernel module and the driver's user-space part of two versions (NVRM's "API
                     mismatch", TensorFlow's "kernel version A does not match DSO version B") -> load the module of the
                     installed driver (reboot / reload), never a reinstall of torch
    container_driver_floor  a CUDA container's entrypoint: built for driver release X, version Y detected -> the host's
                     driver >= X (a container uses the host's kernel driver), or an image built for Y
    nvml_library_mismatch  nvidia-smi's "Mismatch in versions between nvidia-smi and NVML" -> libraries: a stray
                     libnvidia-ml.so on the loader's path
    runtime_newer_than_driver  a program's banner giving the CUDA runtime it was built with and the CUDA version the
                     driver supports ("Compiled with CUDA Runtime 12.3, using CUDA driver 11.4"), the runtime's major
                     newer -> the driver, or a build for the driver's CUDA
    package_cuda_runtime_too_old  a package's own check of the CUDA runtime it found ("Detected CUDA Runtime version is
                     10.0. Please update your CUDA Runtime to 11.0 or above") -> libraries: the runtime the loader finds"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _WSL_SOURCE, CONTEXT_TAIL, SOURCES, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge.drivers import min_driver_for_cuda

_NVRM_SOURCE = {"url": "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/kernel-open/nvidia/nv.c",
                "what": "the kernel module refuses a client of another version: \"NVRM: API mismatch: the client has "
                        "the version X, but this kernel module has the version Y\""}
_COMPAT_SOURCE = {"url": "https://docs.nvidia.com/deploy/cuda-compatibility/",
                  "what": "CUDA compatibility: a CUDA release needs a minimum driver; forward compatibility (cuda-compat) "
                          "only on data-center GPUs"}

_TF_DIAGNOSTICS = {"url": "https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_diagnostics.cc",
                   "what": "\"kernel version X does not match DSO version Y -- cannot find working devices in this "
                           "configuration\": the loaded kernel module's version against libcuda's"}
_API_MISMATCH = re.compile(r"API mismatch: the client has the version|does not match DSO version")


def _vt(v: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", v or "")[:3])


def driver_module_mismatch(ent, text):
    """The loaded kernel module and the driver's libraries (the client: nvidia-smi, libcuda, X) of two different
    versions: the driver was upgraded or downgraded and the running kernel still has the old module (no reboot, or
    a module built for another release). Whatever failed after it, the answer is to load one version of both."""
    v = ent.versions
    client, kmod = v.get("driver_client"), v.get("driver_kernel_module")
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_API_MISMATCH, tail)
    if m is None or not client or not kmod or client == kmod:
        return None
    newer = "newer" if _vt(client) > _vt(kmod) else "older"
    if ent.platform.get("wsl"):
        # WSL 2 has no NVIDIA kernel module of its own: the GPU is the Windows driver's, and a Linux driver installed
        # inside the distribution brings a libcuda of its own version that stands in front of it
        sig = _sig("driver-module-version-mismatch-wsl", "wsl",
                   "driver versions {client} and {kernel_module} inside WSL 2: a Linux NVIDIA driver in the way", 88,
                   "Inside WSL 2 the GPU is driven by the Windows driver, whose libcuda WSL maps in; the two versions "
                   "printed ({client} and {kernel_module}) differ, which inside WSL comes from a Linux NVIDIA driver "
                   "installed in the distribution: its own libcuda and files stand in front of the Windows driver's, "
                   "so no device works.",
                   fix="Remove the Linux NVIDIA driver from the WSL distribution (its nvidia-driver / libnvidia-* "
                       "packages; keep only a cuda-toolkit package if you compile CUDA code), so the libcuda WSL maps "
                       "in from Windows (/usr/lib/wsl/lib) is the one loaded; update the driver on the Windows side.",
                   causes=(), areas=("driver",), sources=(_WSL_SOURCE,))
        return _match(sig, text, len(text) - len(tail) + m.start(),
                      {"client": client, "kernel_module": kmod, "newer": newer})
    sig = _sig("driver-module-version-mismatch", "driver",
               "NVIDIA driver {client} installed, kernel module {kernel_module} loaded", 88,
               "The NVIDIA kernel module loaded in the running kernel is {kernel_module}, while the driver's user-space "
               "part (libcuda, libnvidia-ml, nvidia-smi, the X driver) is {client} ({newer} than the module): the module refuses a "
               "client of another version, so nothing can use the GPU. It happens after the driver is upgraded or "
               "downgraded without a reboot, or when the module built for this kernel (DKMS, the kmod package, the "
               "image's module) is of another release than the libraries.",
               fix="Make the module and the libraries one version: reboot so the {client} module is loaded, or with "
                   "nothing using the GPU reload it (`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo "
                   "modprobe nvidia`, then `nvidia-smi`). If the mismatch survives a reboot, the module for this kernel "
                   "is still {kernel_module}: install the kernel-module package (DKMS / kmod) of the same version as the "
                   "driver {client}, or roll the driver back to {kernel_module}. torch and CUDA need no reinstall.",
               causes=(("driver-module-mismatch", "the kernel module and the driver libraries differ", ("TE306",)),),
               areas=("driver",), sources=(_TF_DIAGNOSTICS if m.group(0).startswith("does") else _NVRM_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"client": client, "kernel_module": kmod, "newer": newer})


_CONTAINER_FLOOR = re.compile(r"built for NVIDIA Driver Release (?P<need>\d{3}(?:\.\d{1,3}){1,2}) or later,?\s{0,20}but\s{0,20}"
                              r"version\s{0,4}(?P<have>\d{3}(?:\.\d{1,3}){1,2})?\s{0,4}was detected")


def container_driver_floor(ent, text):
    """NVIDIA's CUDA containers (NGC images) compare the CUDA driver they were built for with the host's at start:
    a host driver below it, on a GPU without forward compatibility, is the host's driver to update (a container
    brings no kernel driver of its own) or an older image. No driver version at all is the container not given
    the GPU, which other rules read."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CONTAINER_FLOOR, tail)
    if m is None or not m.group("have") or _vt(m.group("have")) >= _vt(m.group("need")):
        return None
    sig = _sig("container-needs-newer-host-driver", "driver",
               "the container needs NVIDIA driver {need} or newer; the host has {have}", 87,
               "The image was built with a CUDA that needs NVIDIA driver {need} or newer, and the host's driver is "
               "{have}. A container uses the host's kernel driver; CUDA's forward compatibility (the image's "
               "cuda-compat libraries) works on data-center GPUs only, so here it is unavailable.",
               fix="Update the host's NVIDIA driver to {need} or newer (a driver >= {need}, then restart the container), "
                   "or use an older release of the image, built for driver {have}. Nothing inside the container needs "
                   "reinstalling.",
               causes=(("host-driver-too-old", "the host's driver is older than the image's CUDA needs", ("TE302",)),),
               areas=("driver",), sources=(_COMPAT_SOURCE, SOURCES["container_toolkit"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"need": m.group("need"), "have": m.group("have")})


# nvidia-smi compares its own version with the NVML library it loaded (nvidia-smi and libnvidia-ml.so ship together
# with the driver): a copy of either from elsewhere (a container image, a GPU-sharing hook, a stray lib64 folder on
# LD_LIBRARY_PATH) is another version
_SMI_NVML = re.compile(r"Mismatch in versions between nvidia-smi and NVML")


def nvml_library_mismatch(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_SMI_NVML, tail)
    if m is None:
        return None
    sig = _sig("nvidia-smi-nvml-mismatch", "libraries", "nvidia-smi loaded an NVML library of another version", 82,
               "nvidia-smi and libnvidia-ml.so (NVML) come with the driver and must be the same version; this nvidia-smi "
               "found a libnvidia-ml.so of another one first: a copy on LD_LIBRARY_PATH (a lib64 folder, a CUDA "
               "toolkit's stubs, a GPU-sharing hook's own library, a container image's), or an nvidia-smi not from "
               "this driver.",
               fix="Find the library it loads: `ldd $(which nvidia-smi) | grep nvidia-ml` and `ldconfig -p | grep "
                   "libnvidia-ml`; remove the stray copy's folder from LD_LIBRARY_PATH (or the hook that shadows it), so "
                   "the driver's own libnvidia-ml.so.1 is loaded, and use the nvidia-smi installed with the driver.",
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/deploy/nvml-api/index.html",
                         "what": "NVML: the library nvidia-smi is built on, shipped with the driver"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# a program's own start-up banner: the CUDA runtime it was compiled with, then the CUDA version of the driver (AMGX's
# "Compiled with CUDA Runtime 12.3, using CUDA driver 11.4"; the same pair in other words)
_RUNTIME_DRIVER = re.compile(r"(?i)(?:compiled|built) (?:with|against) CUDA(?: runtime)?(?: version)?\s{0,2}(?P<rt>\d{1,2}\.\d{1,2})"
                             r"[^\n]{0,40}?(?:using|with|and|on) (?:the )?CUDA driver(?: version)?\s{0,2}(?P<drv>\d{1,2}\.\d{1,2})")


def runtime_newer_than_driver(ent, text):
    m, at = last_in_tail(_RUNTIME_DRIVER, text)
    if m is None:
        return None
    rt, drv = _vt(m.group("rt")), _vt(m.group("drv"))
    # minor-version compatibility (CUDA 11 on) lets a runtime of the driver's major run on it; a newer major never
    if rt[0] <= drv[0]:
        return None
    need = min_driver_for_cuda(m.group("rt"), "Windows" if ent.platform.get("windows") else "Linux") or {}
    floor = need.get("compat_floor") or need.get("toolkit_minimum")
    caps = {"rt": m.group("rt"), "drv": m.group("drv"), "floor": floor}
    sig = _sig("runtime-newer-than-driver", "driver",
               "built with CUDA runtime {rt}, and the driver supports CUDA {drv} only", 84,
               "The program reports the CUDA runtime it was compiled with ({rt}) and the CUDA version the installed "
               "driver supports ({drv}). A runtime of a newer major version than the driver's cannot run on it "
               "(minor-version compatibility covers one major only): its first CUDA call fails, whatever that call "
               "is (an allocation, a context).",
               fix="Update the NVIDIA driver to one for CUDA {rt}" + (" (driver {floor} or newer)" if floor else "") +
                   ", or use a build of the program made with a CUDA {drv} toolkit (rebuild it with that toolkit).",
               causes=(("driver-too-old", "the NVIDIA driver is too old for the CUDA runtime", ("TE302",)),),
               areas=("driver",), sources=(_COMPAT_SOURCE,))
    return _match(sig, text, at, caps)


# a package's own start-up check of the CUDA runtime it found (cuDF's validate_setup, RAPIDS' packages)
_RUNTIME_CHECK = re.compile(r"Detected CUDA Runtime version is (?P<have>\d{1,2}\.\d{1,2})\.?\s{0,3}Please update your CUDA "
                            r"Runtime to (?P<need>\d{1,2}\.\d{1,2}) or above")


def package_cuda_runtime_too_old(ent, text):
    m, at = last_in_tail(_RUNTIME_CHECK, text, "Detected CUDA Runtime version")
    if m is None:
        return None
    sig = _sig("package-cuda-runtime-too-old", "libraries",
               "the CUDA runtime the package found is {have}; it needs {need} or newer", 82,
               "The package checks the CUDA runtime library it loaded at import: the one found is CUDA {have}, older "
               "than the {need} its build needs. The loader found an older runtime first (an old toolkit on "
               "LD_LIBRARY_PATH or in the environment), or the package's CUDA-{need} runtime is not installed.",
               fix="Make a CUDA {need}+ runtime the one the loader finds: install the package's build for your CUDA "
                   "with its runtime (the -cuXX wheels bring nvidia-cuda-runtime; conda installs cuda-version and "
                   "cuda-cudart), and take the older toolkit's lib64 off LD_LIBRARY_PATH (`echo $LD_LIBRARY_PATH`). The "
                   "driver must support CUDA {need} too (`nvidia-smi` shows the CUDA version it supports).",
               causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's", ("TE501",)),),
               areas=("libraries",),
               sources=({"url": "https://github.com/rapidsai/cudf/blob/branch-23.02/python/cudf/cudf/utils/gpu_utils.py",
                         "what": "cuDF's validate_setup: UnsupportedCUDAError when the CUDA runtime is older than needed"},))
    return _match(sig, text, at, {"have": m.group("have"), "need": m.group("need")})
