"""The report as JSON (schema torch_envcheck.report/1): what `--json` prints and `--from-json` reads
(Report.to_json).  Also writes a snapshot or a fleet report the same way.

ASCII only: every control character, bidirectional override or lone surrogate in a value is
written as a \\uXXXX escape, so the JSON cannot act on a terminal and stays valid in any encoding
(a PowerShell 5.1 `>` re-encodes it as UTF-16, which `--from-json` reads)."""

from __future__ import annotations

from torch_envcheck.doctor.report import Report, json_text


def render(report) -> str:
    """A Report as `--json` prints it; any other JSON object (a snapshot) written the same way."""
    return report.to_json() if isinstance(report, Report) else json_text(report)
