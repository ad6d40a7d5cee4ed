"""The area headlines: each area's facts in one line (the text beside its [✓] mark), the function
its doctor/areas.py record names ("module:function" in this package).  Below the report, which
writes them into report["areas"], and the renderers, which print them."""

from __future__ import annotations

import importlib

from torch_envcheck.doctor import areas as _areas

PACKAGE = _areas.HEADLINES_PACKAGE


def _headline(area: str):
    """The headline function the area's record names."""
    module, fn = _areas.BY_NAME[area].headline.split(":")
    return getattr(importlib.import_module(f"{PACKAGE}.{module}"), fn)


def headline(area: str, snap) -> str:
    """The area's facts in one line.  Descriptive only: whether they are good is the findings' call
    (the report takes the status from them), and an unknown fact reads "unknown"."""
    try:
        return _headline(area)(snap) or ""
    except Exception:  # a hand-edited snapshot must not break the report (or an unknown area)
        return "(unreadable facts)"
