"""Small readers over a snapshot shared by advise, readme-line and pin (tolerant of missing fields)."""

from __future__ import annotations

import re

# download.pytorch.org serves one index per build variant: /whl/cu130, /whl/cpu, /whl/rocm6.4, /whl/xpu.
INDEX_BASE = "https://download.pytorch.org/whl/"
_TAG_RE = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def d(value) -> dict:
    return value if isinstance(value, dict) else {}


def index_tag(local: str | None) -> str | None:
    """The download.pytorch.org index of a local version label ('cu130' -> 'cu130'), else None."""
    return local if local and _TAG_RE.match(local) else None


def index_url(tag: str) -> str:
    try:
        from . import knowledge  # noqa: PLC0415
        return knowledge.index_url(tag)
    except Exception:  # knowledge tables unavailable: the URL scheme is stable
        return INDEX_BASE + tag


def python_mm(snap: dict) -> str | None:
    v = d(d(snap.get("platform")).get("python")).get("version")
    m = re.match(r"(\d+)\.(\d+)", str(v or ""))
    return f"{m.group(1)}.{m.group(2)}" if m else None


def gpus(snap: dict) -> list[dict]:
    """GPUs as the driver lists them, else as torch does (each with name and capability)."""
    drv = [g for g in d(snap.get("driver")).get("gpus") or [] if isinstance(g, dict)]
    dev = [g for g in d(snap.get("torch")).get("devices") or [] if isinstance(g, dict)]
    return drv or dev


def cudnn_mm(value) -> str | None:
    if not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 10000}.{(value % 10000) // 100}" if value >= 10000 else f"{value // 1000}.{(value % 1000) // 100}"
