"""The report as Markdown for a GitHub issue: the area table and findings in view, every fact in a
collapsed <details> block (instead of pasting `python -m torch.utils.collect_env`).

Every value comes from a snapshot that may be a stranger's, so each is escaped for the place it
lands (torch_envcheck._util.escape): running text and table cells with md_text (no HTML, links,
emphasis or new blocks), finding codes as inline code, fix commands and the JSON in code fences
longer than any backtick run inside them (a value cannot close the fence and continue as Markdown
or HTML such as `</details>` or `<script>`)."""

from __future__ import annotations

import json

from torch_envcheck.doctor.areas import title
from torch_envcheck._util.escape import md_code_block, md_text
from torch_envcheck.doctor.report import Report, as_report

MARK = {"ok": "✅", "warning": "⚠️", "failure": "❌"}


def _indent(block: str, prefix: str = "  ") -> list[str]:
    return [prefix + line if line else line for line in block.split("\n")]


def render(report: Report) -> str:
    rep = as_report(report)
    out = [f"### torch-envcheck {md_text(rep.tool_version)} report", "",
           "| | Area | Facts |", "|---|---|---|"]
    for area in rep.shown_areas():
        sev = rep.summary.get(area, "ok")
        out.append(f"| {MARK.get(sev) or md_text(sev)} | {title(area)} | "
                   f"{md_text(rep.facts_headline(area))} |")
    out.append("")
    problems = rep.problems
    if problems:
        out.append("#### Findings")
        out.append("")
        for f in problems:
            out.append(f"- {MARK[f.severity]} **{md_text(f.code)}** {md_text(f.message)}")
            if f.explanation:
                out.append(f"  {md_text(f.explanation, line_start=True)}")
            for e in rep.symptoms_of(f):
                out.append(f"  - explains **{md_text(e.code)}** {md_text(e.message)}")
            if f.fix:
                out.append("  Fix:")
                out.extend(_indent(md_code_block(f.fix, "sh")))
        out.append("")
    else:
        out.append("No problems found.")
        out.append("")
    for e in rep.errors:
        out.append(f"- ❌ doctor error: {md_text(e)}")
    # ensure_ascii: control characters, bidi overrides and lone surrogates become \uXXXX escapes.
    body = json.dumps(rep.to_dict(), indent=2, sort_keys=False, ensure_ascii=True, default=str)
    out += ["<details><summary>Full report (JSON; re-diagnose with <code>torch-envcheck --from-json FILE</code>)"
            "</summary>", "", md_code_block(body, "json"), "", "</details>", ""]
    return "\n".join(out)
