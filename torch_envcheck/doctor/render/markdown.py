"""The report as Markdown for a GitHub issue: the area table and findings in view, every fact in a
collapsed <details> block (instead of pasting `python -m torch.utils.collect_env`)."""

from __future__ import annotations

import json

from .. import areas_for
from . import areas

MARK = {"ok": "✅", "warning": "⚠️", "failure": "❌"}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(report: dict) -> str:
    snap = report.get("snapshot") if isinstance(report.get("snapshot"), dict) else {}
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    summary = report.get("summary") or {}
    out = [f"### torch-envcheck {report.get('tool_version', '')} report", "",
           "| | Area | Facts |", "|---|---|---|"]
    for area in areas_for(snap, findings):
        sev = summary.get(area, "ok")
        out.append(f"| {MARK.get(sev, sev)} | {areas.TITLES.get(area, area)} | {_cell(areas.headline(area, snap))} |")
    out.append("")
    problems = [f for f in findings if f.get("severity") in ("failure", "warning")]
    if problems:
        out.append("#### Findings")
        out.append("")
        for f in problems:
            out.append(f"- {MARK[f['severity']]} **{f.get('code', '')}** {f.get('message', '')}")
            if f.get("explanation"):
                out.append(f"  {f['explanation']}")
            if f.get("fix"):
                out.append("  Fix:")
                out.append("  ```")
                out.extend(f"  {line}" for line in str(f["fix"]).splitlines())
                out.append("  ```")
        out.append("")
    else:
        out.append("No problems found.")
        out.append("")
    for e in report.get("errors") or []:
        out.append(f"- ❌ doctor error: {e}")
    body = json.dumps(report, indent=2, sort_keys=False)
    out += ["<details><summary>Full report (JSON; re-diagnose with <code>torch-envcheck --from-json FILE</code>)"
            "</summary>", "", "```json", body, "```", "", "</details>", ""]
    return "\n".join(out)
