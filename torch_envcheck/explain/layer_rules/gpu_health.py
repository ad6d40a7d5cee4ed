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
                     -> the GPU's state: the Xid in the kernel log, a reset or reboot, then the hardware"""

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


def gpu_in_error_state(ent, text):
    """nvidia-smi reading "ERR!" from a GPU: the GPU is in an error state the driver reports (an Xid), and stays so
    until it is reset; the program's own error that came with it (a launch failure) is its symptom."""
    tail = text[-CONTEXT_TAIL:]
    if "ERR!" not in tail:
        return None
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
