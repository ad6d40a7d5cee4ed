"""`--all-envs` / `--env`: one table (env, frameworks, verdict, first fix) above each env's report,
for the terminal, JSON (schema torch_envcheck.envs/1) and Markdown.

    build(results, found) -> {"schema", "source", "errors", "table": [row, ...], "reports": [...], "exit_status"}
    print_terminal(out), to_json(out), to_markdown(out)

Every value comes from another environment's report: escaped for where it lands, like a report."""

from __future__ import annotations

import json

from torch_envcheck._util.escape import md_inline_code, md_text, terminal
from torch_envcheck.facts import frameworks as H

SCHEMA = "torch_envcheck.envs/1"
RANK = {"ok": 0, "warning": 1, "failure": 2}


def _causes(rep) -> list:
    return list(rep.causes)


def _verdict(rep) -> str:
    causes = _causes(rep)
    fails = sum(1 for f in causes if f.severity == "failure")
    warns = sum(1 for f in causes if f.severity == "warning")
    if any(f.code == "TE193" for f in causes):
        return "could not diagnose"
    if fails:
        return f"{fails} failure{'s' if fails != 1 else ''}"
    return f"{warns} warning{'s' if warns != 1 else ''}" if warns else "healthy"


def _first_fix(rep) -> dict | None:
    """The fix of the worst problem that has one (failures first, in report order)."""
    problems = [f for f in _causes(rep) if f.severity in ("failure", "warning")]
    problems.sort(key=lambda f: -RANK.get(f.severity, 0))
    for f in problems:
        fix = f.fix
        if isinstance(fix, str) and fix.strip():
            lines = [ln for ln in fix.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
            return {"code": f.code, "line": lines[0] if lines else fix.splitlines()[0], "fix": fix}
    if problems:
        return {"code": problems[0].code, "line": None, "fix": None}
    return None


def build(results: list[dict], found: dict) -> dict:
    table, reports = [], []
    for item in results:
        env, rep = item["env"], item["report"]
        diagnosed = item.get("diagnosed", True)
        row = {"env": env.get("name"), "kind": env.get("kind"), "prefix": env.get("prefix"),
               "python": env.get("python"), "frameworks": H.label(rep.snapshot) if diagnosed else "?",
               "verdict": _verdict(rep), "needs_fixing": bool(rep.exit_status),
               "first_fix": _first_fix(rep)}
        table.append(row)
        reports.append({"env": env, "report": rep, "diagnosed": diagnosed})
    return {"schema": SCHEMA, "source": found.get("source"), "errors": list(found.get("errors") or []),
            "table": table, "reports": reports,
            "exit_code": 1 if any(r["needs_fixing"] for r in table) else 0}


def _rows(out: dict) -> list[list[str]]:
    rows = [["env", "frameworks", "verdict", "first fix"]]
    for r in out["table"]:
        fix = r["first_fix"]
        rows.append([f"{r['env']} ({r['kind']})", r["frameworks"], r["verdict"],
                     "-" if not fix else f"{fix['code']}: {fix['line']}" if fix["line"] else f"{fix['code']}: see below"])
    return rows


def table_text(out: dict) -> str:
    rows = [[terminal(c) for c in row] for row in _rows(out)]
    widths = [min(max(len(r[i]) for r in rows), 40) for i in range(3)]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[i].ljust(widths[i]) if len(row[i]) <= widths[i] else row[i] for i in range(3)]
        lines.append("  ".join(cells + [row[3]]).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 9)
    return "\n".join(lines)


def print_terminal(out: dict, color: bool = False, verbose: bool = False, stream=None) -> None:
    import sys  # noqa: PLC0415

    from torch_envcheck.doctor.render import terminal as T  # noqa: PLC0415
    stream = stream or sys.stdout
    n = len(out["table"])
    head = f"torch-envcheck: {n} environment{'s' if n != 1 else ''}"
    if out.get("source"):
        head += f" (conda envs from {out['source']})"
    print(terminal(head), file=stream)
    for e in out["errors"]:
        print(f"  note: {terminal(e)}", file=stream)
    print("", file=stream)
    print(table_text(out) if n else "  (none found: give one with --env NAME_OR_PATH)", file=stream)
    for item in out["reports"]:
        env, rep = item["env"], item["report"]
        print("", file=stream)
        print(terminal(f"=== {env.get('kind')} env {env.get('name')}: {env.get('prefix') or '?'} ==="), file=stream)
        if not item.get("diagnosed", True):
            for f in _causes(rep):
                print(terminal(f"  x {f.code} {f.message}"), file=stream)
                print(terminal(f"      {f.explanation}"), file=stream)
            continue
        T.print_report(rep, stream=stream, color=color, verbose=verbose)
    print("", file=stream)
    bad = [r["env"] for r in out["table"] if r["needs_fixing"]]
    print(terminal(f"{len(bad)} of {n} environments need fixing: {', '.join(map(str, bad))}" if bad else
                   f"all {n} environments are healthy"), file=stream)


def to_json(out: dict) -> str:
    from torch_envcheck.doctor.render import json_render  # noqa: PLC0415
    body = {k: v for k, v in out.items() if k != "reports"}
    body["reports"] = [{"env": item["env"], "diagnosed": item.get("diagnosed", True),
                        "report": json.loads(json_render.render(item["report"]))} for item in out["reports"]]
    return json.dumps(body, indent=2, ensure_ascii=False, default=str) + "\n"


def _cell(text) -> str:
    return md_text(text).replace("|", "\\|")


def to_markdown(out: dict) -> str:
    from torch_envcheck.doctor.render import markdown  # noqa: PLC0415
    lines = [f"### torch-envcheck: {len(out['table'])} environments", "",
             "| Env | Frameworks | Verdict | First fix |", "|---|---|---|---|"]
    for r in out["table"]:
        fix = r["first_fix"]
        fix_cell = "-" if not fix else (f"{_cell(fix['code'])}: {md_inline_code(fix['line'])}" if fix["line"]
                                        else _cell(fix["code"]))
        lines.append(f"| {_cell(r['env'])} ({_cell(r['kind'])}) | {_cell(r['frameworks'])} | {_cell(r['verdict'])} | {fix_cell} |")
    lines.append("")
    for e in out["errors"]:
        lines.append(f"- note: {md_text(e)}")
    for item in out["reports"]:
        env, rep = item["env"], item["report"]
        lines += ["", f"## {md_text(env.get('kind'))} env {md_text(env.get('name'))}", ""]
        if not item.get("diagnosed", True):
            for f in _causes(rep):
                lines.append(f"- ❌ **{md_text(f.code)}** {md_text(f.message)}")
            continue
        lines.append(markdown.render(rep))
    return "\n".join(lines) + "\n"


__all__ = ["SCHEMA", "build", "print_terminal", "to_json", "to_markdown", "table_text"]
