"""Layer rules for a GPU the machine has but cannot use any more: its Xid events in the kernel log, and nvidia-smi
unable to reach a GPU the kernel lists. Neither is the installation: the GPU needs a reset or a reboot, and a GPU
that keeps failing is hardware (cooling, power, the PCIe slot).

    xid_event        "NVRM: Xid (PCI:...): N" of a hardware or reset kind  -> reboot / reset, then the hardware
                     (knowledge.xid: NVIDIA's Xid catalog)
    gpu_unreachable  nvidia-smi: "Unable to determine the device handle for GPU <bus>: <NVML error>" -> the GPU fell
                     off the bus or hung: reboot, then cooling, power, the slot
    nvidia_kernel_module_crash  a kernel oops whose frames are in an NVIDIA module ([nvidia_uvm]) -> a driver bug:
                     a driver release with the fix (at suspend: no CUDA process open across it)
    gpu_in_error_state  nvidia-smi printing "ERR!" for a GPU's fields (with or without the failure that caused it)
                     -> the GPU's state: the Xid in the kernel log, a reset or reboot, then the hardware (ERR! in the
                     power column alone: a transient reading)
    gpu_reset_refused  "could not be reset ... In use by another client" -> stop the clients (persistence mode too)
    row_remapping_state  nvidia-smi -q's Remapped Rows: Pending -> a reset; Remapping Failure Occurred -> RMA
    fabric_manager_without_nvswitch  the Fabric Manager's "Nothing to do" -> no NVSwitch: the service is not needed
    device_count_query_failed  "Failed to query CUDA device count" (Warp, Isaac, others around cuDeviceGetCount)
                     -> the driver could not enumerate the GPUs: nvidia-smi, a reboot, the driver"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import xid as xids
from torch_envcheck.explain.layer_rules.kit import last_in_tail, CONTEXT_TAIL, _match, _sig

_XID_SOURCE = {"url": "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html",
               "what": "NVIDIA's Xid catalog: each Xid's meaning and whether the GPU needs a reset or service"}
_SMI_SOURCE = {"url": "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html",
               "what": "nvmlDeviceGetHandleByIndex / ByPciBusId: NVML_ERROR_GPU_IS_LOST, NVML_ERROR_UNKNOWN"}

_HARDWARE_FIX = ("Reboot the machine to recover the GPU (or, with nothing using it, reset it: `sudo nvidia-smi -r -i "
                 "<index>`), then look at the kernel log (`sudo dmesg | grep -i xid`) for what it logged. A GPU that "
                 "fails again is hardware, not software: check its cooling (`nvidia-smi -q -d TEMPERATURE`; a passively "
                 "cooled data-center card needs server airflow or a fan), its power (the supply and the power cables), "
                 "and its PCIe slot or riser (reseat it); if it persists, service or replace the card. No reinstall of "
                 "the driver or torch helps.")

_XID = re.compile(r"NVRM: Xid \((?:PCI:)?(?P<bus>[0-9A-Fa-f:.]{4,20})\): (?P<xid>\d{1,3})\b")


def xid_event(ent, text):
    """An Xid the catalog marks hardware or reset: the GPU is in a state only a reset, a reboot or service clears;
    the Xids of a program's own fault (the catalog's application kind) are left to what the program printed."""
    tail = text[-CONTEXT_TAIL:]
    hit = None
    for m in _XID.finditer(tail):
        row = xids.describe(int(m.group("xid")))
        if row is not None and row["kind"] in ("hardware", "reset"):
            hit = (m, row)
    if hit is None:
        # the driver's words for Xid 79 quoted without its Xid line ("GPU has fallen off the bus" in a title or a
        # paraphrase of dmesg)
        words = last_match(_FELL_OFF, tail)
        row = xids.describe(79) if words is not None else None
        if row is None:
            return None
        hit = (words, row)
    m, row = hit
    quoted = m.re is _FELL_OFF
    return _match(_xid_sig(row), text, len(text) - len(tail) + m.start(),
                  {"xid": "79" if quoted else m.group("xid"), "name": row["name"],
                   "bus": "its PCI address" if quoted else m.group("bus")})


_FELL_OFF = re.compile(r"(?i)GPU has fallen off (?:of )?the bus")


def _xid_sig(row: dict):
    return _sig("gpu-xid-" + row["kind"], "driver", "the GPU logged Xid {xid} ({name}): it needs a " +
               ("reset or a reboot" if row["kind"] == "reset" else "reboot, and the hardware checked"), 86,
               "The NVIDIA kernel driver logged Xid {xid} for the GPU at {bus}: {name}. NVIDIA's Xid catalog files it "
               "under " + ("errors that need a GPU reset before the GPU is trusted again" if row["kind"] == "reset" else
                           "hardware errors: the GPU needs a reset or a reboot, and if it recurs, service") + ".",
               fix=_HARDWARE_FIX, causes=(("gpu-hardware", "the GPU failed (Xid): not the software", ("TE303",)),),
               areas=("driver", "gpu"), sources=(_XID_SOURCE,))


_NO_HANDLE = re.compile(r"Unable to determine the device handle for GPU ?(?P<bus>[0-9A-Fa-f:.]{4,20}): "
                        r"(?P<err>[^\n.]{2,80})")


def gpu_unreachable(ent, text):
    """nvidia-smi lists a GPU the kernel enumerates and then cannot get a handle to it: NVML's "GPU is lost" (the GPU
    fell off the bus, Xid 79) or "Unknown Error" (the GPU hung or stopped answering). Other GPUs may work; the
    driver is installed. The GPU needs a reboot, and one that keeps falling off is hardware."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NO_HANDLE, tail)
    if m is None or not re.search(r"(?i)GPU is lost|Unknown Error|fallen off (?:of )?the bus", m.group("err")):
        return None
    sig = _sig("gpu-unreachable-by-nvml", "driver", "nvidia-smi cannot reach the GPU at {bus} ({err}): it fell off the bus "
               "or hung", 85,
               "The kernel still lists the GPU at {bus}, but NVML cannot get a handle to it ({err}): the GPU stopped "
               "answering, which NVIDIA's Xid catalog calls falling off the bus (Xid 79). Its causes are hardware: "
               "overheating, power, the PCIe link; the driver and CUDA are installed.",
               fix=_HARDWARE_FIX, causes=(("gpu-hardware", "the GPU stopped answering: not the software", ("TE303",)),),
               areas=("driver", "gpu"), sources=(_SMI_SOURCE, _XID_SOURCE))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"bus": m.group("bus"), "err": m.group("err").strip()})


# nvidia-smi's own line when NVML enumerates no GPU at all (the driver is loaded: no "couldn't communicate" error)
_SMI_NO_DEVICES = re.compile(r"No devices were found")


def driver_sees_no_gpu(ent, text):
    """nvidia-smi (NVML) finding no device: the driver answers but has no GPU, so whatever torch or the program says
    about CUDA follows from the machine, not from the environment variables or the build: a GPU that left the bus or
    was never bound (dmesg), a cloud instance whose GPU detached, a container given no device."""
    m, at = last_in_tail(_SMI_NO_DEVICES, text, "No devices were found")
    if m is None:
        return None
    sig = _sig("driver-sees-no-gpu", "driver", "nvidia-smi finds no GPU: the driver has no device to offer", 84,
               "NVML (nvidia-smi) talks to the loaded driver and enumerates no GPU. CUDA cannot see one either, so the "
               "program's \"no GPU\" follows from the machine: the GPU is not on the PCIe bus (it fell off, or the "
               "instance's GPU detached), the driver did not bind it (see the kernel log), or this container was "
               "given no device.",
               fix="Check the machine: `lspci | grep -i nvidia` (is the GPU on the bus?) and `sudo dmesg | grep -i -e "
                   "NVRM -e xid` (did the driver bind it, or log an error?); reboot (on a cloud instance stop and start "
                   "it, or replace it and report it to the provider); in a container, give it the devices "
                   "(`--gpus all`, NVIDIA_VISIBLE_DEVICES). Nothing in torch or CUDA needs reinstalling.",
               causes=(("gpu-hardware", "the GPU is not on the bus or not bound by the driver", ("TE303",)),),
               areas=("driver", "gpu"), sources=(_SMI_SOURCE,))
    return _match(sig, text, at, {})


# The kernel's own crash report (Documentation/admin-guide/bug-hunting.rst: "BUG: kernel NULL pointer dereference",
# "Oops:", "general protection fault", "kernel BUG at") with frames in an NVIDIA kernel module ("[nvidia_uvm]")
_KERNEL_CRASH = re.compile(r"BUG: kernel NULL pointer dereference|BUG: unable to handle (?:kernel )?page fault|"
                           r"\bOops: \d{4}|general protection fault|kernel BUG at|RIP: [0-9a-f]{4}:")
_NVIDIA_FRAME = re.compile(r"\[(?P<mod>nvidia(?:_uvm|_drm|_modeset|_peermem)?)\]")
_SUSPEND_FRAME = re.compile(r"(?i)suspend|nvidia-sleep|power_state|hibernat")


def nvidia_kernel_module_crash(ent, text):
    """A kernel crash report whose frames are in an NVIDIA kernel module: a bug in that driver release (often on one
    GPU generation, often at suspend), not the installation of torch or CUDA: a driver release with the fix, and until
    then the workaround (no CUDA process open across a suspend)."""
    tail = text[-CONTEXT_TAIL:]
    crash = _KERNEL_CRASH.search(tail)
    if crash is None:
        return None
    frame = _NVIDIA_FRAME.search(tail, max(0, crash.start() - 2000), crash.end() + 4000)
    if frame is None:
        return None
    at_suspend = _SUSPEND_FRAME.search(tail, max(0, crash.start() - 2000), crash.end() + 4000) is not None
    fix = ("The NVIDIA kernel driver ({module}) crashed the kernel: a bug in that driver release, not in torch or "
           "CUDA. Update the NVIDIA driver to a newer release (or the distribution's fixed package) and reboot; search "
           "the driver's issue tracker (https://github.com/NVIDIA/open-gpu-kernel-modules/issues) for the function in "
           "the trace.")
    if at_suspend:
        fix += (" The crash is in the suspend path: until the fixed driver is installed, close every CUDA program "
                "(nothing holding /dev/nvidia-uvm) before suspending, or stop suspending that machine.")
    sig = _sig("nvidia-kernel-module-crash", "driver", "the NVIDIA kernel module {module} crashed the kernel", 87,
               "The kernel's crash report has its faulting frames in {module}, an NVIDIA kernel module: the driver "
               "itself failed (a NULL dereference or a fault in its code), which no reinstall of a Python package "
               "changes.", fix=fix, causes=(), areas=("driver",),
               sources=({"url": "https://docs.kernel.org/admin-guide/bug-hunting.html",
                         "what": "reading a kernel oops: the faulting function and its module in brackets"},
                        {"url": "https://github.com/NVIDIA/open-gpu-kernel-modules/issues",
                         "what": "NVIDIA's open kernel modules: driver bugs and their fixes"}))
    return _match(sig, text, len(text) - len(tail) + crash.start(), {"module": frame.group("mod")})


# nvidia-smi prints "ERR!" in a field it cannot read from a GPU that is in an error state (after an Xid: a fault the
# driver could not recover, often with an "unspecified launch failure" in the program that ran); "[ERR!]" marks the
# same in a field's brackets.  Quoted in prose too ("a persistent \"ERR!\" state in nvidia-smi").
_SMI_ERR = re.compile(r"(?:\|\s{0,40}|\s)ERR!(?=\s{1,40}\||\s|\]|$)|\[ERR!\]|\"ERR!\"[^\n]{0,40}nvidia-smi|nvidia-smi[^\n]{0,80}\bERR!")


_POWER_ERR = re.compile(r"ERR!\s{0,3}/\s{0,3}\d{2,4}W")


def gpu_in_error_state(ent, text):
    """nvidia-smi reading "ERR!" from a GPU: the GPU is in an error state the driver reports (an Xid), and stays so
    until it is reset; the program's own error that came with it (a launch failure) is its symptom."""
    tail = text[-CONTEXT_TAIL:]
    if "ERR!" not in tail:
        return None
    if all(_POWER_ERR.match(tail, e.start()) for e in re.finditer("ERR!", tail)) and not re.search(r"NVRM: Xid|\bXid\b", tail):
        # the power column alone ("ERR! / 250W"): a power reading the driver could not take this time, with every
        # other field of the GPU read; not an error state
        sig = _sig("nvidia-smi-power-reading", "not-environment",
                   "nvidia-smi could not read the GPU's power draw this time (ERR! in the power column only)", 72,
                   "nvidia-smi prints ERR! in the power column when a power-sensor read through the driver fails; with "
                   "every other field of the GPU read normally it is a transient reading, not a GPU in an error state.",
                   look_at="Nothing to fix when it comes and goes; watch it with `nvidia-smi -q -d POWER -l 5`. If "
                           "ERR! spreads to other fields or an Xid appears in `dmesg`, the GPU is in an error state.",
                   sources=({"url": "https://github.com/Azure/azhpc-diagnostics/issues/77",
                             "what": "a transient ERR! in nvidia-smi's power column needs no action"},))
        return _match(sig, text, len(text) - len(tail) + tail.rfind("ERR!"), {})
    m = last_match(_SMI_ERR, tail)
    if m is None or not re.search(r"(?i)nvidia-smi|NVIDIA-SMI|Persistence-M|GPU-Util", tail):
        return None
    sig = _sig("gpu-in-error-state", "driver", "the GPU is in an error state (nvidia-smi reads ERR!)", 88,
               "nvidia-smi prints ERR! for what it cannot read from a GPU that the driver has marked as failed, after an "
               "error it could not recover from (an Xid in the kernel log: a memory or bus fault, a hang). A CUDA program "
               "on that GPU fails (an unspecified launch failure, an unknown error) until the GPU is reset; the Python "
               "packages are not the cause.", fix=_HARDWARE_FIX,
               causes=(), areas=("driver",), sources=(_XID_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# nvidia-smi -r refusing: "The following GPUs could not be reset: GPU <bus>: In use by another client"
_RESET_REFUSED = re.compile(r"could not be reset:?\s{0,40}\n?\s{0,40}GPU [0-9A-Fa-f:.]{6,20}:? In use by another client|"
                            r"GPU [0-9A-Fa-f:.]{6,20}:? In use by another client")


def gpu_reset_refused(ent, text):
    """nvidia-smi's reset needs the GPU free of every client: processes, and the services that keep it open
    (nvidia-persistenced in persistence mode, DCGM, Fabric Manager, a display server)."""
    m, at = last_in_tail(_RESET_REFUSED, text, "In use by another client")
    if m is None:
        return None
    sig = _sig("gpu-reset-refused-in-use", "driver", "nvidia-smi cannot reset the GPU: another client holds it", 86,
               "A GPU reset (nvidia-smi -r) needs every client of the GPU gone; a process still has it open, or a "
               "service does: nvidia-persistenced (persistence mode), DCGM's host engine, the Fabric Manager, a display "
               "server.",
               fix="Find and stop what holds it: `nvidia-smi --query-compute-apps=pid,name --format=csv` and `sudo fuser "
                   "-v /dev/nvidia*`; turn persistence mode off for the reset (`sudo nvidia-smi -pm 0 -i <index>`) and "
                   "stop nvidia-dcgm / nvidia-fabricmanager if they run; then `sudo nvidia-smi -r -i <index>` and turn "
                   "persistence back on. If it still refuses, reboot.",
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-"
                                "flags.html",
                         "what": "NVIDIA: terminate all GPU processes, then reset the GPU with nvidia-smi -r"},))
    return _match(sig, text, at, {})


# nvidia-smi -q's "Remapped Rows" section: Pending and Remapping Failure Occurred
_REMAP = re.compile(r"Remapped Rows[\s\S]{0,400}?(?:Pending\s{0,40}:\s{0,5}(?P<pending>Yes)|"
                    r"Remapping Failure Occurred\s{0,40}:\s{0,5}(?P<failed>Yes))")


def row_remapping_state(ent, text):
    m, at = last_in_tail(_REMAP, text, "Remapped Rows")
    if m is None:
        return None
    failed = m.group("failed") is not None or re.search(r"Remapping Failure Occurred\s{0,40}:\s{0,5}Yes",
                                                         text[-CONTEXT_TAIL:]) is not None
    sig = _sig("row-remapping-failed" if failed else "row-remapping-pending", "driver",
               "the GPU's memory failed to remap a row: a hardware fault" if failed else
               "the GPU's memory has rows waiting to be remapped at the next reset", 84,
               "Uncorrectable memory errors mark the affected rows for remapping, which happens at the next GPU reset "
               "(nvidia-smi -q shows Pending: Yes); running work is contained meanwhile. " +
               ("A remapping that failed means the GPU's memory has more bad rows than spares: NVIDIA's RMA "
                "threshold." if failed else ""),
               fix=("The GPU meets NVIDIA's RMA criteria: take it out of service (drain the node) and have it replaced; "
                    "`nvidia-smi -q -d ROW_REMAPPER,ECC` records the counts for the support case." if failed else
                    "Reset the GPU to apply the remapping (stop its processes, then `sudo nvidia-smi -r -i <index>`) or "
                    "reboot; `nvidia-smi -q -d ROW_REMAPPER` then shows Pending: No. Repeated uncorrectable errors on "
                    "the same GPU are hardware: have it checked."),
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-"
                                "flags.html",
                         "what": "NVIDIA GPU memory error management: the row-remapping pending and failure flags"},))
    return _match(sig, text, at, {})


# the Fabric Manager's start-up on a machine without NVSwitches ("Nothing to do" from the NVSwitch driver query)
_FM_NOTHING = re.compile(r"(?i)NVSwitch[^\n]{0,120}(?:WARNING )?Nothing to do|NV_WARN_NOTHING_TO_DO")


def fabric_manager_without_nvswitch(ent, text):
    m, at = last_in_tail(_FM_NOTHING, text)
    if m is None or not re.search(r"(?i)fabric ?manager|nv-fabricmanager", text[-CONTEXT_TAIL:]):
        return None
    sig = _sig("fabric-manager-without-nvswitch", "driver", "the Fabric Manager finds no NVSwitch to manage", 80,
               "The Fabric Manager configures NVSwitch systems (HGX/DGX boards with SXM GPUs) and exits when the "
               "NVSwitch driver reports none: on PCIe GPUs (and on NVL5 and newer systems, managed differently) it "
               "has nothing to do and is not needed for CUDA.",
               fix="On a machine with PCIe GPUs and no NVSwitch, disable the service (`sudo systemctl disable --now "
                   "nvidia-fabricmanager`) or uninstall it; CUDA does not need it. On an HGX/DGX system, check that the "
                   "Fabric Manager's version equals the driver's and that the NVSwitches are visible (`nvidia-smi -q "
                   "| grep -i fabric`).",
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html",
                         "what": "NVIDIA Fabric Manager user guide: NVSwitch-based systems"},))
    return _match(sig, text, at, {})


_COUNT_FAILED = re.compile(r"(?i)\bfailed to (?:query|get|retrieve) (?:the )?(?:CUDA |GPU )?device count\b|"
                           r"\b(?:cuDeviceGetCount|cudaGetDeviceCount)(?:\(\))? failed\b")
_DRIVER_GUIDE = {"url": "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html",
                 "what": "NVIDIA driver installation guide: verifying the driver (nvidia-smi), the kernel modules"}


def device_count_query_failed(ent, text):
    m, at = last_in_tail(_COUNT_FAILED, text)
    if m is None:
        return None
    sig = _sig("device-count-query-failed", "driver", "the CUDA driver could not list the GPUs", 62,
               "Counting the GPUs is the CUDA driver's first call (cuDeviceGetCount after cuInit); when it fails, the "
               "driver cannot reach the GPUs at all: its kernel module is not loaded or does not match the user-space "
               "libraries (after a driver update without a reboot), the GPU is in a bad state (after a suspend, an Xid), "
               "or the process may not open /dev/nvidia*.",
               fix="Run `nvidia-smi`: if it fails too, reboot (a driver updated without a reboot, or a GPU in a bad "
                   "state); if that does not help, reinstall the NVIDIA driver for the running kernel (and read `sudo "
                   "dmesg | grep -i -e nvrm -e xid`). If nvidia-smi works, check the process may open /dev/nvidia* "
                   "(the video/render groups) and that CUDA_VISIBLE_DEVICES is not set to an invalid value.",
               areas=("driver",), sources=(_DRIVER_GUIDE,))
    return _match(sig, text, at, {})
