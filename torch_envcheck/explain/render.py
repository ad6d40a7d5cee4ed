"""Rendering a diagnosis (diagnose.diagnose's dict) for a terminal, as HTML (Jupyter) or as JSON.
Every value may quote a stranger's log: it is escaped for where it lands (doctor/escape.py for the
terminal, html.escape for HTML)."""

from __future__ import annotations

import html
import json

from torch_envcheck.doctor.report import findings_from
from torch_envcheck._util.escape import terminal

_MARK = {True: "[present]", False: "[not seen]", None: "[ ]"}


UNCHECKED = "run `torch-envcheck explain` without --no-probe to see which cause is present"


def text(result: dict, prog: str = "torch-envcheck explain", unchecked: str = UNCHECKED) -> str:
    """The diagnosis as plain lines for a terminal (ends with a newline).  `unchecked`: what to do
    to check the machine, said when it was not checked."""
    t = terminal
    if not result.get("recognised"):
        return (f"{prog}: not recognised: no known environment error in this text. torch-envcheck explains the errors "
                "listed in its catalogue (docs/explain.md); run `torch-envcheck` to check this machine anyway.\n")
    lines = []
    if result.get("environment_problem"):
        lines.append(f"{prog}: {t(result['title'])}")
        lines.append(f"  layer: {t(result['layer'])}   signature: {t(result['signature'])}")
    else:
        lines.append(f"{prog}: {t(result['title'])}")
        lines.append(f"  signature: {t(result['signature'])}: not an environment problem; nothing needs reinstalling")
    lines.append(f"  matched: {t(result.get('matched'))}")
    lines.append(f"  what it means: {t(result.get('explanation'))}")
    causes = result.get("causes") or []
    if causes:
        lines.append("  likely causes:")
        for c in causes:
            codes = ", ".join(c.get("findings") or []) or "no doctor check"
            lines.append(f"    {_MARK.get(c.get('present'))} {t(c.get('text'))} ({t(codes)})")
    machine = result.get("machine")
    if result.get("environment_problem"):
        if machine in ("probed", "from-json"):
            where = "this machine" if machine == "probed" else "the saved report"
            if result.get("cause_confirmed"):
                lines.append(f"  on {where}: {t(result.get('cause'))}")
                for f in findings_from(result.get("findings")):
                    lines.append(f"    {t(f.code)} {t(f.severity)}: {t(f.message)}")
            else:
                lines.append(f"  on {where}: none of these causes shows; the error may come from another machine or "
                             "environment than the one checked")
                for line in result.get("on_this_machine") or []:
                    lines.append(f"    {t(line)}")
        else:
            lines.append(f"  this machine was not checked; {unchecked}")
    label = "fix" if result.get("environment_problem") else "look at instead"
    fix = result.get("fix")
    if fix:
        lines.append(f"  {label}:" if result.get("fix") == result.get("generic_fix") else "  fix (the doctor's, for the machine checked):")
        lines.extend("    " + line for line in terminal(fix, multiline=True).split("\n"))
    generic = result.get("generic_fix")
    if generic and fix and generic != fix:
        lines.append("  in general:")
        lines.extend("    " + line for line in terminal(generic, multiline=True).split("\n"))
    if result.get("source"):
        lines.append(f"  source: {t(result['source'])}")
    also = result.get("also") or []
    if also:
        lines.append(f"  also in the text: {t(', '.join(also))}")
    return "\n".join(lines) + "\n"


def as_json(result: dict, extra: dict | None = None) -> str:
    doc = dict(result)
    if extra:
        doc.update(extra)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def html_block(result: dict, unchecked: str = "") -> str:
    """The diagnosis as an HTML fragment (Jupyter): title, meaning, causes, fix, source.  `unchecked`:
    what to do to check the machine, shown when it was not checked."""
    e = html.escape
    if not result.get("recognised"):
        return ""
    env = result.get("environment_problem")
    parts = ['<div class="torch-envcheck-explain" style="border-left:4px solid #d9822b;padding:4px 10px;margin:6px 0">',
             f"<b>torch-envcheck: {e(str(result.get('title')))}</b>",
             f"<div>layer: <code>{e(str(result.get('layer')))}</code>, signature <code>{e(str(result.get('signature')))}</code>"
             + ("" if env else ": not an environment problem") + "</div>",
             f"<div>{e(str(result.get('explanation')))}</div>"]
    causes = result.get("causes") or []
    if causes:
        parts.append("<ul>" + "".join(
            f"<li>{e(_MARK.get(c.get('present')))} {e(str(c.get('text')))} ({e(', '.join(c.get('findings') or []))})</li>"
            for c in causes) + "</ul>")
    if env and result.get("machine") == "not checked" and unchecked:
        parts.append(f"<div><i>This machine was not checked: {e(unchecked)}</i></div>")
    if result.get("fix"):
        parts.append(f"<div>{'fix' if env else 'look at instead'}:</div><pre>{e(str(result['fix']))}</pre>")
    if result.get("source"):
        parts.append(f'<div>source: <a href="{e(str(result["source"]))}">{e(str(result["source"]))}</a></div>')
    parts.append("</div>")
    return "\n".join(parts)
