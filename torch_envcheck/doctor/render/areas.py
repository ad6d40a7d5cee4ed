"""What the renderers show of an area besides its findings: its headline (doctor/headlines, the
same text report["areas"] holds) and the full fact list --verbose prints under it.  Reads facts only
through the facts layer; works on any snapshot, however incomplete."""

from __future__ import annotations

from torch_envcheck.doctor import areas as _areas
from torch_envcheck.facts import core as F
from torch_envcheck.doctor.headlines import _headline, headline  # noqa: F401  (the renderers' names for them)


def cudnn_text(v) -> str | None:
    """92400 -> "9.24.0", 8907 -> "8.9.7": the facts layer's one decoder."""
    return F.cudnn_text(v)


def sections(area: str) -> tuple[str, ...]:
    """The snapshot sections --verbose lists under an area (its record's `shows`)."""
    a = _areas.BY_NAME.get(area)
    return a.shows if a else ()


def flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    """[("python.version", "3.11.7"), ...] for the --verbose listing."""
    out = []
    if isinstance(value, dict):
        if not value and prefix:
            out.append((prefix, "{}"))
        for k, v in value.items():
            out.extend(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list):
        if not value:
            out.append((prefix, "[]"))
        elif all(not isinstance(v, (dict, list)) for v in value):
            out.append((prefix, ", ".join(str(v) for v in value)))
        else:
            for i, v in enumerate(value):
                out.extend(flatten(v, f"{prefix}[{i}]"))
    else:
        out.append((prefix, "null" if value is None else str(value)))
    return out
