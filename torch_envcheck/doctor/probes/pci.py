"""The display controllers on the PCI bus, read from sysfs (Linux): what the NVIDIA driver probe
and the system probe (AMD and Intel GPUs) each pick their vendors' GPUs from.  A device is there
whether or not a driver is loaded, and a container sees its host's devices."""

from __future__ import annotations

import os

from torch_envcheck._util import safe_open

DEVICES = "/sys/bus/pci/devices"
MAX_DEVICES = 4096  # more than any machine has: a bound on a bus that is not one


def _attribute(root: str, name: str, leaf: str) -> str | None:
    """One sysfs attribute (a short hex id such as 0x10de), lower-case; None when unreadable or empty."""
    try:
        text = safe_open.read_text(os.path.join(root, name, leaf), 64, overflow="head", encoding="ascii")
    except OSError:
        return None
    return text.strip().lower() or None


def display_controllers(root: str = DEVICES) -> list[dict] | None:
    """Each device of PCI class 0x03xxxx (VGA, 3D, display controllers) in bus order:
    {"bus_id", "vendor", "device_id", "class"}.  None = cannot tell: the bus is not readable, or is
    empty (a masked sysfs)."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return None
    if not names:
        return None
    out = []
    for name in names[:MAX_DEVICES]:
        vendor, cls = _attribute(root, name, "vendor"), _attribute(root, name, "class")
        if cls and cls.startswith("0x03"):
            out.append({"bus_id": name, "vendor": vendor, "device_id": _attribute(root, name, "device"), "class": cls})
    return out
