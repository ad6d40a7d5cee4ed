"""torch releases whose Linux aarch64 wheels crash with SIGILL on ARMv8.0 cores (Cortex-A53/A57/A72/A73: Raspberry
Pi 3 and 4, many boards and NAS CPUs), which lack ARMv8.1's LSE atomics the build used, and the release that fixed
each. Read from the threads that reported and fixed them."""

from __future__ import annotations

import re

# release -> (the release that fixed it, the public thread that reports it, the fix's thread)
_LSE_REGRESSIONS = {
    "2.4.0": ("2.4.1", "https://github.com/pytorch/pytorch/issues/132032", None),
    "2.6.0": ("2.7.0", "https://github.com/pytorch/pytorch/issues/146792", "https://github.com/pytorch/pytorch/pull/148070"),
    "2.10.0": ("2.11.0", "https://github.com/pytorch/pytorch/issues/174344", "https://github.com/pytorch/pytorch/pull/174401"),
}


def armv8_0_regression(version) -> dict | None:
    """{"release", "fixed_in", "sources"} when torch `version` (a release, a local label or not) is one whose aarch64
    wheels use LSE atomics an ARMv8.0 core lacks; None otherwise or when unreadable."""
    m = re.match(r"\s*(\d{1,2}\.\d{1,3}\.\d{1,3})", str(version or ""))
    row = _LSE_REGRESSIONS.get(m.group(1)) if m else None
    if row is None:
        return None
    fixed, report, fix = row
    sources = [{"url": report, "what": f"torch {m.group(1)}'s aarch64 wheels: SIGILL on ARMv8.0 (no LSE atomics)"}]
    if fix:
        sources.append({"url": fix, "what": f"the fix, released in {fixed}"})
    return {"release": m.group(1), "fixed_in": fixed, "sources": tuple(sources)}
