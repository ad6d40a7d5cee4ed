"""Layer rules for ROCm and HIP: rocBLAS without Tensile kernels on Windows, ZLUDA's DLLs, /dev/kfd refused.

    rocm_kfd_permission  HSA cannot open /dev/kfd, with its group shown   -> the render/video groups
    rocblas_on_windows  rocBLAS without Tensile kernels, HIP SDK on Windows -> a HIP SDK (or libraries) with the gfx
    zluda_dll_dependency  WinError 126 under ZLUDA                      -> the HIP SDK's bin folder on PATH
    miopen_missing_kernel_database  MIOpen's "Missing system database file" warning alone -> harmless (not-environment)"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import _line, last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.layer_rules.driver import _ROOT_ONLY


# the system's ROCm release as package managers and installs print it: apt's "Package: rocm-libs ... Version: 6.4.0",
# rpm/pip lists ("rocm-core 6.4.0"), the versioned install folder /opt/rocm-6.4.0, "ROCm version: 6.4"
_SYSTEM_ROCM = re.compile(r"Package: rocm[\w-]{0,30}\s{1,4}Version: (?P<a>\d\.\d{1,2})|/opt/rocm-(?P<b>\d\.\d{1,2})|"
                          r"\brocm-(?:core|libs|dev|hip-sdk|hip-runtime)[ =:]{1,4}(?P<c>\d\.\d{1,2})|"
                          r"\bROCm (?:[Vv]ersion:? ?)?(?P<d>\d\.\d{1,2})(?![.\d]*\+)")


def _rocm_pair(ent, text):
    """(torch's ROCm, the system's ROCm) when the text shows both and they differ, else None."""
    torch_v = ent.versions.get("torch") or ""
    if "+rocm" not in torch_v:
        # a `pip list` / `conda list` row: "torch    2.4.1+rocm6.0"
        row = re.search(r"(?m)^[ \t]{0,4}(?:py)?torch[ \t]{1,40}(\d{1,2}\.\d{1,2}[\w.]{0,20}\+rocm[\d.]{1,8})",
                        text[-CONTEXT_TAIL:])
        torch_v = row.group(1) if row else torch_v
    built = re.search(r"\+rocm(\d\.\d{1,2})", torch_v)
    if not built:
        return None
    system = None
    for m in _SYSTEM_ROCM.finditer(text[-CONTEXT_TAIL:]):
        system = m.group("a") or m.group("b") or m.group("c") or m.group("d")
    if system is None or system == built.group(1):
        return None
    return built.group(1), system


# rocminfo and the HSA runtime report a refused /dev/kfd as HSA_STATUS_ERROR_OUT_OF_RESOURCES (it maps EACCES to it).
# What says it is a permission: the node's owner group printed beside it (`ls -l`: "root render", "root:render"),
# rocminfo's own group check naming only `video` (newer kernels give /dev/kfd to `render`), or the same command
# working as root.
_HSA_OUT_OF_RESOURCES = re.compile(r"HSA_STATUS_ERROR_OUT_OF_RESOURCES|Unable to open /dev/kfd")


_KFD_OWNER = re.compile(r"/dev/kf?d\w{0,3}\b[^\n]{0,80}?\broot[: ](?P<group>render|video)\b|"
                        r"\broot[: ](?P<group2>render|video)\b[^\n]{0,80}?/dev/kf?d\w{0,3}\b")


_ROCM_GROUP_LINE = re.compile(r"\bis (?:a )?member of (?P<group>video|render) group\b")


def rocm_kfd_permission(ent, text):
    """The HSA runtime cannot open /dev/kfd (HSA_STATUS_ERROR_OUT_OF_RESOURCES, rocminfo's "Unable to open /dev/kfd")
    and the text shows it is the node's group: ROCm needs the `render` group (and `video`), not a reinstall."""
    tail = text[-CONTEXT_TAIL:]
    err = None
    for err in _HSA_OUT_OF_RESOURCES.finditer(tail):
        pass
    if err is None:
        return None
    groups = {g.group("group") for g in _ROCM_GROUP_LINE.finditer(tail)}
    owner = _KFD_OWNER.search(tail)
    evidence = owner is not None or _ROOT_ONLY.search(tail) is not None or groups == {"video"}
    if not evidence:
        return None
    sig = _sig("rocm-kfd-permission", "rocm", "the HSA runtime cannot open /dev/kfd: this user lacks its group", 86,
               "The ROCm runtime reports a /dev/kfd it may not open as HSA_STATUS_ERROR_OUT_OF_RESOURCES. On current "
               "kernels /dev/kfd belongs to the `render` group (older ones: `video`); rocminfo only checks `video`, and "
               "a command that works as root but not as the user is the node's permission, not the installation.",
               fix="Add the user to both groups that own the nodes: `sudo usermod -aG render,video $USER`, then log out "
                   "and in (or reboot); check with `ls -l /dev/kfd /dev/dri/renderD*` and `id`.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                             "install/prerequisites.html#setting-permissions-for-groups",
                                            "what": "ROCm: the render and video groups give access to /dev/kfd, /dev/dri"},))
    return _match(sig, text, len(text) - len(tail) + err.start(), {})


_ROCBLAS_TENSILE = re.compile(r"(?:rocBLAS error|[Cc]annot read)[^\n]{0,400}TensileLibrary")


_GFX = re.compile(r"\bgfx[0-9a-f]{3,4}\b")


_HIP_SDK_DIR = re.compile(r"(?i)\\AMD\\ROCm\\(?P<ver>\d{1,2}\.\d{1,2})\\")


def rocblas_on_windows(ent, text):
    """rocBLAS without Tensile kernels for the GPU under Windows' HIP SDK: HSA_OVERRIDE_GFX_VERSION is a Linux ROCm
    runtime variable, so the answer is a HIP SDK (or rocBLAS libraries built for that SDK) that has the gfx target."""
    if not ent.platform.get("windows"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ROCBLAS_TENSILE, tail)
    if m is None:
        return None
    sdk = _HIP_SDK_DIR.search(tail)
    gfx = _GFX.search(_line(tail, m.start(), tail.find("\n", m.start()) if "\n" in tail[m.start():] else len(tail)))
    sig = _sig("rocblas-no-kernels-for-gfx-windows", "rocm",
               "the HIP SDK's rocBLAS has no kernels for {gfx|this GPU} on Windows", 86,
               "rocBLAS reads its Tensile kernels from rocblas/library in the HIP SDK {sdk|} folder; the SDK ships them only "
               "for the GPUs it supports, and on Windows there is no HSA_OVERRIDE_GFX_VERSION to borrow a neighbour's.",
               fix="Install a HIP SDK release that supports {gfx|the GPU's gfx target}, or rocBLAS/Tensile libraries built "
                   "for that gfx and for exactly the installed HIP SDK version {sdk|} (community builds, e.g. ROCmLibs, are "
                   "per SDK version), copied into the SDK's bin and bin\\rocblas\\library.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/"
                                             "reference/system-requirements.html",
                                            "what": "the GPUs each HIP SDK for Windows release supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"gfx": gfx.group(0) if gfx else None, "sdk": sdk.group("ver") if sdk else None})


def zluda_dll_dependency(ent, text):
    """A DLL of torch that cannot load under ZLUDA: its CUDA DLL names are ZLUDA's, which load the HIP SDK's runtime;
    without the SDK's bin folder on PATH the dependency is missing, whatever the Visual C++ runtime."""
    if not ent.platform.get("zluda"):
        return None
    codes = [c for c in ent.codes if c.get("family") == "windows" and c.get("value") in (126, 0xC0000135)]
    if not codes:
        return None
    sig = _sig("zluda-hip-sdk-not-on-path", "windows-runtime",
               "a torch DLL cannot find its dependencies under ZLUDA: the HIP SDK's runtime is not on PATH", 80,
               "Under ZLUDA, torch's CUDA DLLs are served by ZLUDA's replacements, which load AMD's HIP runtime from "
               "the HIP SDK for Windows; WinError 126 on an existing DLL means one of those dependencies is not found.",
               fix="Install the HIP SDK (ROCm for Windows) version the ZLUDA build expects and put its bin folder on the "
                   "system PATH (e.g. `C:\\Program Files\\AMD\\ROCm\\5.7\\bin`, also HIP_PATH), then open a new "
                   "console; check that `hipInfo.exe` runs from it.",
               areas=("platform",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/",
                                              "what": "the HIP SDK for Windows and its bin folder"},))
    return _match(sig, text, codes[-1]["at"], {})


# MIOpen's warning that its precompiled kernel database for this gfx target (and CU count) is not installed: kernels
# are compiled (and cached) on first use instead; nothing failed
_MIOPEN_NO_KDB = re.compile(r"MIOpen(?:\(HIP\))?: Warning \[\w{2,30}\] (?:Missing|Unable to read) system database file: ?"
                            r"(?P<kdb>gfx\w{2,10}\.kdb)")


def miopen_missing_kernel_database(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_MIOPEN_NO_KDB, tail)
    if m is None:
        return None
    if re.search(r"(?m)^\w*(?:Error|Exception)\b|\bTraceback \(most recent call last\)|Segmentation fault|"
                 r"core dumped|HIP error|hipError", tail[m.end():]):
        return None  # something failed after the warning: that failure is the question
    sig = _sig("miopen-kernel-database-missing", "not-environment",
               "MIOpen has no precompiled kernel database for {kdb}: a warning, not an error", 55,
               "Not an installation problem: MIOpen ships precompiled convolution kernels per gfx target in "
               "databases (.kdb); for this target ({kdb}) none is installed (or none is made yet), so MIOpen compiles "
               "the kernels the first time each is used and caches them. The first run is slower; nothing is broken.",
               look_at=("Nothing to fix: the warning is harmless (only a performance note on first use). To skip the "
                        "compilation, install the MIOpen kernels package for your gfx target where ROCm publishes one "
                        "(miopen-hip-gfx*kdb), or keep MIOpen's user cache (~/.cache/miopen) between runs."),
               sources=({"url": "https://github.com/ROCm/MIOpen#installing-miopen-kernels-package",
                         "what": "MIOpen's precompiled kernels packages per gfx target"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"kdb": m.group("kdb")})


# RCCL's own start-up warning (AMD's multi-GPU system guide: iommu=pt for peer-to-peer between AMD GPUs)
_RCCL_IOMMU = re.compile(r"Missing \"?iommu=pt\"? from kernel command line")


def rccl_iommu_pt_missing(ent, text):
    m, at = last_in_tail(_RCCL_IOMMU, text, "iommu=pt")
    if m is None:
        return None
    sig = _sig("rccl-iommu-pt-missing", "rocm", "RCCL warns that iommu=pt is missing from the kernel command line", 84,
               "Without IOMMU pass-through (iommu=pt) peer-to-peer transfers between AMD GPUs go through the IOMMU's "
               "translation, which RCCL warns can make multi-GPU jobs unstable or hang.",
               fix="Add iommu=pt (with amd_iommu=on on AMD CPUs where needed) to the kernel parameters "
                   "(GRUB_CMDLINE_LINUX in /etc/default/grub, then `sudo update-grub` and reboot) instead of disabling "
                   "peer-to-peer (NCCL_P2P_DISABLE=1) or custom all-reduce.",
               areas=("platform",),
               sources=({"url": "https://rocm.docs.amd.com/en/latest/how-to/system-optimization/mi300x.html",
                         "what": "AMD: system optimization, IOMMU pass-through (iommu=pt) for multi-GPU"},))
    return _match(sig, text, at, {})

