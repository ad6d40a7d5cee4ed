"""Which installed distribution owns the file an error names, and what it requires of torch: read from the
machine (importlib.metadata, bounded) or from a saved report's packages section.

    lookup_live(names)            -> {"distribution", "version", "requires_torch", "torch", "how"} | None
    lookup_report(report, names)  -> the same from a saved report (its Requires-Dist facts), or None

`names` are top-level import names or distribution guesses from the text (extract: site-packages/<top>/...,
the module of a compiled file).  Only used for the diagnoses that name a package (a build for another torch):
the answer then says which distribution it is, its Requires-Dist on torch and the torch installed."""

from __future__ import annotations

import re

MAX_NAMES = 8


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name or "").lower()


def _requires_torch(requires) -> str | None:
    for line in requires or ():
        if isinstance(line, str) and re.match(r"\s*torch\b(?![-_.\w])", line):
            return line.strip()[:200]
    return None


def lookup_live(names) -> dict | None:
    from importlib import metadata  # noqa: PLC0415
    names = [n for n in names if n][:MAX_NAMES]
    if not names:
        return None
    try:
        top = metadata.packages_distributions()
    except Exception:  # noqa: BLE001 - a broken site-packages must not break explain
        top = {}
    for name in names:
        dists = top.get(name) or top.get(name.replace("-", "_")) or [name]
        for dist in dists[:3]:
            try:
                d = metadata.distribution(dist)
            except Exception:  # noqa: BLE001
                continue
            try:
                torch_v = metadata.version("torch")
            except Exception:  # noqa: BLE001
                torch_v = None
            return {"distribution": _norm(d.metadata.get("Name") or dist), "version": d.version,
                    "requires_torch": _requires_torch(d.requires), "torch": torch_v, "how": "probed", "module": name}
    return None


def lookup_report(report: dict, names) -> dict | None:
    """The same from a saved report, read through the doctor's facts layer (packages.requires: the frameworks'
    and nvidia-* wheels' Requires-Dist; packages.installed: their versions and their requirements')."""
    from torch_envcheck.doctor.report import as_report  # noqa: PLC0415
    from torch_envcheck.facts import core as F  # noqa: PLC0415
    try:
        snap = as_report(report).snapshot if report is not None else None
    except (TypeError, ValueError, AttributeError):
        return None
    if not isinstance(snap, dict):
        return None
    installed = F.installed_versions(snap)
    requires = {_norm(r.name): r for r in F.requires_dist(snap)}
    torch_v = F.torch_version(snap)
    for name in [n for n in names if n][:MAX_NAMES]:
        n = _norm(name)
        if n in installed or n in requires:
            r = requires.get(n)
            return {"distribution": n, "version": installed.get(n) or (r.version if r else None),
                    "requires_torch": _requires_torch(r.requires if r else None), "torch": torch_v,
                    "how": "from-json",
                    "module": name}
    return None
