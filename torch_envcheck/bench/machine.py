"""What the benchmark needs to know about the machine: last-level cache sizes, CPU model."""

from __future__ import annotations

import glob
import os
import platform

DEFAULT_LLC = 32 << 20  # used only when the cache size cannot be read


def _parse_size(text: str) -> int | None:
    text = text.strip().upper()
    for suffix, mult in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30)):
        if text.endswith(suffix):
            try:
                return int(float(text[:-1]) * mult)
            except ValueError:
                return None
    try:
        return int(text)
    except ValueError:
        return None


def cpu_llc_bytes() -> tuple[int, str]:
    """(size of the largest data/unified cache of cpu0, where it came from), read from sysfs."""
    best = None
    for idx in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(os.path.join(idx, "type")) as fh:
                kind = fh.read().strip()
            with open(os.path.join(idx, "size")) as fh:
                size = _parse_size(fh.read())
            with open(os.path.join(idx, "level")) as fh:
                level = int(fh.read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size and (best is None or level > best[0]):
            best = (level, size)
    if best:
        return best[1], f"L{best[0]} from /sys/devices/system/cpu/cpu0/cache"
    return DEFAULT_LLC, "assumed 32 MiB (could not read /sys/devices/system/cpu/cpu0/cache)"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> list:
    """The CPU's feature flags from /proc/cpuinfo (x86 "flags", arm64 "Features"); [] when unreadable."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    return line.split(":", 1)[1].split()
    except OSError:
        pass
    return []


# The flags that decide which kernel variant a CPU can run (printed with the benchmark).
SIMD_FLAGS = ("sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512dq", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "amx_tile", "asimd", "sve")


def gpu_l2_bytes(torch, device) -> int:
    props = torch.cuda.get_device_properties(device)
    return int(getattr(props, "L2_cache_size", 0) or (50 << 20))
