"""The report as JSON (schema torch_envcheck.report/1): what `--json` prints and `--from-json` reads.

ASCII only: every control character, bidirectional override or lone surrogate in a value is
written as a \\uXXXX escape, so the JSON cannot act on a terminal and stays valid in any encoding
(a PowerShell 5.1 `>` re-encodes it as UTF-16, which `--from-json` reads)."""

from __future__ import annotations

import json
import math

from torch_envcheck.facts.snapshot import jsonable


def render(report: dict) -> str:
    try:
        text = json.dumps(report, indent=2, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError):  # an object json cannot write, or NaN: make it plain data
        text = json.dumps(_finite(jsonable(report)), indent=2, ensure_ascii=True, allow_nan=False)
    return text + "\n"


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
