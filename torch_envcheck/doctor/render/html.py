"""The report as an HTML table (the notebook's `%envcheck` view): one row per area, then the findings
that are not ok.  Every value is escaped with html.escape."""

from __future__ import annotations

import html

from torch_envcheck.doctor.report import Report, as_report

COLOURS = {"ok": "#2e7d32", "warning": "#b26a00", "failure": "#c62828"}


def render(report: Report) -> str:
    rep = as_report(report)
    e = html.escape
    rows = []
    for name, info in (rep.areas or {}).items():
        status = info.status or "?"
        rows.append(f'<tr><td>{e(info.title or name)}</td>'
                    f'<td style="color:{COLOURS.get(status, "inherit")}">{e(status)}</td>'
                    f'<td>{e(info.headline)}</td></tr>')
    frows = []
    for f in rep.findings:
        if f.severity == "ok":
            continue
        frows.append(f'<tr><td><code>{e(f.code)}</code></td>'
                     f'<td style="color:{COLOURS.get(f.severity, "inherit")}">{e(f.severity)}</td>'
                     f'<td>{e(f.message)}'
                     + (f'<br><i>explained by {e(f.explained_by)}</i>' if f.explained_by else "")
                     + "</td>"
                     f'<td>{"<pre>" + e(f.fix) + "</pre>" if f.fix else ""}</td></tr>')
    verdict = "problems found" if rep.exit_status else "no failures"
    out = [f'<div class="torch-envcheck-report"><b>torch-envcheck</b>: {e(verdict)}',
           '<table><tr><th>area</th><th>status</th><th>what the doctor sees</th></tr>', *rows, "</table>"]
    if frows:
        out += ['<table><tr><th>code</th><th>severity</th><th>finding</th><th>fix</th></tr>', *frows, "</table>"]
    out.append("</div>")
    return "\n".join(out)
