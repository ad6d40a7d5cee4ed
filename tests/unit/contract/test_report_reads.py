"""Findings and reports are read through doctor/report.py's types (Finding, Report), never by key:
no `f.get("severity")`, `f["fix"]`, `rep["findings"]` anywhere in the package outside the modules
that define their JSON form (doctor/finding.py, doctor/report.py).

The keys are the schema's own (finding.KEYS, report.KEYS), not a list kept here.  A key only a
finding or a report has ("severity", "explained_by", "exit_status", ...) is flagged on any receiver;
a key other dicts share too ("code", "fix", "message", "findings", ...) only on a receiver whose
name says it holds a finding or a report (f, finding, cause, rep, report, ...), so an error
catalogue's "fix" or a bench variant's "status" is not a finding."""

from __future__ import annotations

import ast
import os

import pytest

from paths import REPO
from torch_envcheck.doctor import finding as finding_mod
from torch_envcheck.doctor import report as report_mod

PACKAGE = os.path.join(REPO, "torch_envcheck")
# Where the JSON form is defined; and the drop-in env_check.py, a file users copy into their own
# repository, which reads the public JSON object torch_envcheck.diagnose() returns (it must run
# against any installed torch_envcheck, so it cannot import these types).
ALLOWED = {os.path.join("doctor", "finding.py"), os.path.join("doctor", "report.py"),
           os.path.join("templates", "env_check.py")}
SHARED = {"code", "slug", "area", "message", "explanation", "fix", "details", "basis",
          "findings", "summary", "areas", "errors", "snapshot", "tool_version", "schema"}
KEYS = set(finding_mod.KEYS) | set(report_mod.KEYS)
ONLY_OURS = KEYS - SHARED          # severity, explains, explained_by, hides, outranked_by, table_severity, exit_status
HOLDERS = {"f", "finding", "findings", "cause", "symptom", "hit", "h", "e", "rep", "report", "out_report", "result_report"}


def _name(node) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def raw_reads(source: str) -> list[tuple[int, str]]:
    """(line, text) of every read of a finding's or report's key in `source`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        receiver = key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            receiver, key = node.value, node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault")
              and node.args and isinstance(node.args[0], ast.Constant)):
            receiver, key = node.func.value, node.args[0].value
        if not isinstance(key, str) or key not in KEYS:
            continue
        if (isinstance(receiver, ast.Subscript) and isinstance(receiver.slice, ast.Constant)
                and receiver.slice.value not in KEYS):
            continue  # a field of another object (a fleet report's ["verdict"]["exit_status"])
        if key in ONLY_OURS or _name(receiver) in HOLDERS:
            out.append((node.lineno, ast.unparse(node)))
    return out


def _modules():
    for root, _dirs, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                yield os.path.relpath(path, PACKAGE), path


def test_the_scanner_sees_what_it_looks_for():
    hits = raw_reads('f.get("severity")\nrep["findings"]\nx["exit_status"]\nfinding["fix"]\n'
                     'entry.get("fix")\nv["status"]\nrow["code"]\nfleet["verdict"]["exit_status"]\n')
    assert [line for line, _ in hits] == [1, 2, 3, 4]
    assert ONLY_OURS >= {"severity", "explained_by", "exit_status"} and "fix" in SHARED


def test_no_raw_key_read_of_a_finding_or_report_outside_report_py():
    found = []
    for rel, path in _modules():
        if rel in ALLOWED:
            continue
        with open(path, encoding="utf-8") as fh:
            found += [f"{rel}:{line}: {text}" for line, text in raw_reads(fh.read())]
    assert not found, "read these through Finding / Report (doctor/report.py):\n" + "\n".join(found)


def test_importing_the_facts_layer_assembles_no_report():
    """doctor/__init__ is an entry point: a reader of the facts layer loads no rules, report or renderer."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = ("import sys, torch_envcheck.facts.core, torch_envcheck.doctor; "
            "print(' '.join(m for m in sys.modules if m.startswith('torch_envcheck.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "torch_envcheck.facts.core" in loaded
    heavy = [m for m in loaded if m.startswith("torch_envcheck.doctor.")
             and m.split(".")[2] in ("rules", "report", "render", "headlines", "probes")]
    assert not heavy, heavy
