"""The report as Markdown for a GitHub issue: the area table and findings in view, every fact in a
collapsed <details> block (instead of pasting `python -m torch.utils.collect_env`).

Every value comes from a snapshot that may be a stranger's, so each is escaped for the place it
lands (torch_envcheck._util.escape): running text and table cells with md_text (no HTML, links,
emphasis or new blocks), finding codes as inline code, fix commands and the JSON in code fences
longer than any backtick run inside them (a value cannot close the fence and continue as Markdown
or HTML such as `</details>` or `<script>`)."""

from __future__ import annotations

import json

from torch_envcheck.doctor.areas import areas_for, title
from torch_envcheck._util.escape import md_code_block, md_text
from torch_envcheck.doctor.render import areas

MARK = {"ok": "✅", "warning": "⚠️", "failure": "❌"}


def _indent(block: str, prefix: str = "  ") -> list[str]:
    return [prefix + line if line else line for line in block.split("\n")]


def render(report: dict) -> str:
    snap = report.get("snapshot") if isinstance(report.get("snapshot"), dict) else {}
    all_findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    findings = [f for f in all_findings if not f.get("explained_by")]  # causes; symptoms fold under them
    folded = [f for f in all_findings if f.get("explained_by")]
    summary = report.get("summary") if isinstance(report.get("summary"), dict) else {}
    out = [f"### torch-envcheck {md_text(report.get('tool_version', ''))} report", "",
           "| | Area | Facts |", "|---|---|---|"]
    for area in areas_for(snap, all_findings):
        sev = summary.get(area, "ok")
        out.append(f"| {MARK.get(sev) or md_text(sev)} | {title(area)} | "
                   f"{md_text(areas.headline(area, snap))} |")
    out.append("")
    problems = [f for f in findings if f.get("severity") in ("failure", "warning")]
    if problems:
        out.append("#### Findings")
        out.append("")
        for f in problems:
            out.append(f"- {MARK[f['severity']]} **{md_text(f.get('code', ''))}** {md_text(f.get('message', ''))}")
            if f.get("explanation"):
                out.append(f"  {md_text(f['explanation'], line_start=True)}")
            for e in (e for e in folded if e.get("explained_by") == f.get("code")):
                out.append(f"  - explains **{md_text(e.get('code', ''))}** {md_text(e.get('message', ''))}")
            if f.get("fix"):
                out.append("  Fix:")
                out.extend(_indent(md_code_block(f["fix"], "sh")))
        out.append("")
    else:
        out.append("No problems found.")
        out.append("")
    for e in report.get("errors") or []:
        out.append(f"- ❌ doctor error: {md_text(e)}")
    # ensure_ascii: control characters, bidi overrides and lone surrogates become \uXXXX escapes.
    body = json.dumps(report, indent=2, sort_keys=False, ensure_ascii=True, default=str)
    out += ["<details><summary>Full report (JSON; re-diagnose with <code>torch-envcheck --from-json FILE</code>)"
            "</summary>", "", md_code_block(body, "json"), "", "</details>", ""]
    return "\n".join(out)
