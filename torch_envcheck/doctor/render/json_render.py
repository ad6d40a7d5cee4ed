"""The report as JSON (schema torch_envcheck.report/1): what `--json` prints and `--from-json` reads."""

from __future__ import annotations

import json


def render(report: dict) -> str:
    return json.dumps(report, indent=2) + "\n"
