"""Layer rules for installing the NVIDIA driver on Linux, read from the kernel's and the driver tools' own words.

    module_insert_refused  modprobe / insmod refusing an nvidia module, read from the errno text it prints
                     ("Key was rejected by service": Secure Boot; "No such device": no GPU the module can drive;
                     "Exec format error" / "Invalid module format" / "Unknown symbol": built for another kernel)
    driver_not_loaded_told  "NVIDIA driver is not loaded", "kernel module missing" -> the module of the running kernel:
                     DKMS after a kernel update, Secure Boot, nouveau
    installer_gpu_not_supported  the installer's "You do not appear to have an NVIDIA GPU supported by the X driver"
                     -> the driver branch that lists the GPU
    persistenced_cannot_start  nvidia-persistenced failing on a file it may not write -> the user it runs as (--user)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match

_INSTALL_GUIDE = {"url": "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html",
                  "what": "NVIDIA driver installation guide: kernel headers and DKMS, disabling nouveau, Secure Boot"}
_SIGNING = {"url": "https://www.kernel.org/doc/html/latest/admin-guide/module-signing.html",
            "what": "kernel module signing: with enforcement (Secure Boot) an unsigned or untrusted module is rejected "
                    "with EKEYREJECTED (\"Key was rejected by service\")"}

# modprobe (kmod), old module-init-tools and insmod, each naming the module and the errno's text
_INSERT = re.compile(r"modprobe: ERROR: could not insert '(?P<mod>nvidia[\w-]{0,20})': (?P<why>[^\n]{3,120})|"
                     r"FATAL: Error inserting (?P<mod2>nvidia[\w-]{0,20}) \([^)\n]{0,300}\): (?P<why2>[^\n]{3,120})|"
                     r"insmod: ERROR: could not insert module [^\n:]{0,300}(?P<mod3>nvidia[\w-]{0,20})\.ko: "
                     r"(?P<why3>[^\n]{3,120})")

# the errno text -> (cause, what to do); the kernel's strerror() words, whatever tool printed them
_WHY = (
    (re.compile(r"Key was rejected by service|Required key not available|Operation not permitted"), "secure-boot",
     "Secure Boot is on and the kernel refuses a module that is not signed by a key it trusts (the module DKMS or the "
     "installer built is unsigned, or its key is not enrolled)",
     "Check `mokutil --sb-state`. Sign the module with a Machine Owner Key and enroll it (`sudo mokutil --import "
     "/var/lib/dkms/mok.pub`, reboot, enroll the key in the blue MOK screen), or use the distribution's signed driver "
     "packages, or turn Secure Boot off in the firmware; then `sudo modprobe {mod}`."),
    (re.compile(r"No such device"), "no-device",
     "the module found no GPU it can drive: another driver (nouveau, or nova_core on new kernels) holds the GPU, this "
     "driver release does not support the GPU, or the GPU is not there for the kernel (a hybrid laptop's discrete GPU "
     "powered off, a VM without the GPU passed through)",
     "Look at `lspci -nnk | grep -iA3 nvidia` (which driver is in use) and `sudo dmesg | grep -i -e NVRM -e nouveau`: "
     "blacklist nouveau (and nova_core) and rebuild the initramfs, install a driver release that supports the GPU, "
     "or on a hybrid laptop power the discrete GPU on (PRIME / the vendor's switch) before loading the module."),
    (re.compile(r"Exec format error|Invalid module format|Unknown symbol in module|Invalid argument"), "wrong-kernel",
     "the module file was built for another kernel (or from mixed driver versions) than the one running",
     "Rebuild the module for the running kernel: install its headers (`linux-headers-$(uname -r)` / "
     "`kernel-devel-$(uname -r)`), then `sudo dkms autoinstall` (or reinstall the driver package) and reboot; "
     "`sudo dmesg | tail` names the symbol or version it refused."),
)


def module_insert_refused(ent, text):
    m, at = last_in_tail(_INSERT, text)
    if m is None:
        return None
    mod = m.group("mod") or m.group("mod2") or m.group("mod3")
    why = (m.group("why") or m.group("why2") or m.group("why3")).strip()
    for pattern, cause, explanation, fix in _WHY:
        if pattern.search(why):
            break
    else:
        return None
    sig = _sig(f"nvidia-module-insert-{cause}", "driver", "the kernel refused to load {mod}: {why}", 80,
               "Loading the NVIDIA kernel module {mod} failed with \"{why}\": " + explanation + ". Until the module "
               "loads, nvidia-smi, CUDA and every framework see no GPU; no Python package can change that.",
               fix=fix, areas=("driver",), sources=(_SIGNING if cause == "secure-boot" else _INSTALL_GUIDE,))
    return _match(sig, text, at, {"mod": mod, "why": why})


# the driver tools' and installers' words that the module is not loaded, without the kernel's reason
_NOT_LOADED = re.compile(r"(?i)NVIDIA driver is not loaded|nvidia kernel module (?:is )?(?:missing|not loaded|not found)|"
                         r"kernel module (?:'nvidia'|nvidia) (?:is )?not loaded")


def driver_not_loaded_told(ent, text):
    m, at = last_in_tail(_NOT_LOADED, text)
    if m is None:
        return None
    sig = _sig("nvidia-module-not-loaded", "driver", "the NVIDIA kernel module is not loaded", 72,
               "The driver's user-space part is installed, but its kernel module is not loaded. The usual reasons, "
               "commonest first: the kernel was updated and no module was built for it (DKMS / akmods did not run or "
               "failed, often for want of the new kernel's headers), Secure Boot refuses the unsigned module, or "
               "nouveau holds the GPU.",
               fix="Find which: `sudo modprobe nvidia` prints the kernel's reason; `dkms status` lists the kernels the "
                   "module is built for (`uname -r` must be among them: install `linux-headers-$(uname -r)` and run "
                   "`sudo dkms autoinstall`, or reinstall the nvidia-dkms package, then `sudo depmod -a`); "
                   "`mokutil --sb-state` (Secure Boot on: sign the module with an enrolled MOK or turn Secure Boot "
                   "off); `lsmod | grep nouveau` (blacklist it). Reboot afterwards.",
               areas=("driver",), sources=(_INSTALL_GUIDE,))
    return _match(sig, text, at, {})


_GPU_NOT_SUPPORTED = re.compile(r"You do not appear to have an NVIDIA GPU supported by the (?P<ver>\d{3}\.\d{1,3}(?:\.\d{1,3})?)"
                                r"\s{1,20}NVIDIA Linux graphics driver")


def installer_gpu_not_supported(ent, text):
    m, at = last_in_tail(_GPU_NOT_SUPPORTED, text, "do not appear to have an NVIDIA GPU")
    if m is None:
        return None
    sig = _sig("installer-gpu-not-supported", "driver", "the NVIDIA {ver} driver finds no GPU it supports", 82,
               "nvidia-installer checks the PCI devices against the GPUs this driver release supports: none matched. "
               "Either the GPU is not visible (none in the machine or VM, or powered off), or it belongs to another "
               "driver branch: older GPUs are dropped from new releases (legacy branches keep them), and GPUs newer "
               "than the release are not yet listed.",
               fix="See the GPU the machine has: `lspci -nn | grep -i nvidia` (nothing: the GPU is not there for this "
                   "OS). Look it up in the supported-chips appendix of the driver's README: an older GPU needs its "
                   "legacy driver branch, a newer GPU a newer driver version; install that driver.",
               areas=("driver",),
               sources=({"url": "https://www.nvidia.com/en-us/drivers/unix/legacy-gpu/",
                         "what": "NVIDIA's legacy driver branches and the GPUs each supports"}, _INSTALL_GUIDE))
    return _match(sig, text, at, {"ver": m.group("ver")})


_PERSISTENCED = re.compile(r"nvidia-persistenced failed to initialize")
_DENIED = re.compile(r"Failed to open (?P<path>/[\w/.-]{1,200}): Permission denied|(?P<path2>/[\w/.-]{1,200})[^\n]{0,40}"
                     r"Permission denied")


def persistenced_cannot_start(ent, text):
    m, at = last_in_tail(_PERSISTENCED, text, "nvidia-persistenced failed")
    if m is None:
        return None
    d = last_match(_DENIED, text[-CONTEXT_TAIL:])
    if d is None:
        return None
    path = d.group("path") or d.group("path2")
    sig = _sig("persistenced-permission-denied", "driver",
               "nvidia-persistenced may not write {path}, so it does not start", 80,
               "nvidia-persistenced needs root for what it sets up (the device files, and on coherent-memory systems "
               "such as GH200 the NUMA memory auto-online setting in {path}); started as an unprivileged user (its "
               "--user option, which the installed service file may set), the write is denied and the daemon exits.",
               fix="Run nvidia-persistenced as root: remove `--user <name>` from its service (`systemctl cat "
                   "nvidia-persistenced`, then `sudo systemctl edit --full nvidia-persistenced`), `sudo systemctl "
                   "daemon-reload && sudo systemctl restart nvidia-persistenced`.",
               areas=("driver",),
               sources=({"url": "https://github.com/NVIDIA/nvidia-persistenced",
                         "what": "nvidia-persistenced: the daemon, its --user option and its service files"},))
    return _match(sig, text, at, {"path": path})
