"""Rules, renderers, commands, advice, fleet, explain and the pytest plugin read a snapshot only
through the facts layer (torch_envcheck/facts/): no module outside it subscripts or .get()s a
snapshot section (the top-level keys of facts/contract.py), digs into one (F.dig(s, "torch", ...))
or takes a whole section from an accessor to read it raw (F.torch(s).get(...)).

A snapshot is recognised by its name where these modules hold one (s, snap, snapshot, rec["snapshot"]);
the checker is tested on planted violations below, so it cannot pass by reading nothing."""

from __future__ import annotations

import ast
import os

import pytest

from torch_envcheck.facts import contract

from paths import REPO

PACKAGE = os.path.join(REPO, "torch_envcheck")
CHECKED = ("doctor/rules", "doctor/render", "commands", "advice", "fleet", "explain", "pytest_plugin.py")
SECTION_NAMES = frozenset(contract.SECTIONS) | frozenset(contract.TOP)
SNAPSHOT_NAMES = frozenset(("s", "snap", "snapshot"))
# accessors that hand out a whole section (private to the facts layer, so rules read fields, not sections)
SECTION_ACCESSORS = frozenset((("F", "torch"), ("F", "driver"), ("F", "_torch"), ("F", "_driver"),
                               ("F", "_platform"), ("T", "tf"), ("C", "conda"), ("T", "file_owners"),
                               ("T", "child"), ("T", "log")))


def _is_snapshot(node) -> bool:
    if isinstance(node, ast.Name):
        return node.id in SNAPSHOT_NAMES
    key = None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        key = node.slice.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and node.args and isinstance(node.args[0], ast.Constant):
        key = node.args[0].value
    return key == "snapshot"


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def raw_reads(source: str) -> list[str]:
    """Each raw snapshot read in a module's source, as 'line: code'."""
    out = []
    for node in ast.walk(ast.parse(source)):
        hit = False
        if isinstance(node, ast.Subscript):
            hit = _const(node.slice) in SECTION_NAMES and _is_snapshot(node.value)
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                if f.attr == "get" and node.args:
                    hit = _const(node.args[0]) in SECTION_NAMES and _is_snapshot(f.value)
                elif f.attr == "dig" and len(node.args) > 1:
                    hit = _const(node.args[1]) in SECTION_NAMES
                elif isinstance(f.value, ast.Name):
                    hit = (f.value.id, f.attr) in SECTION_ACCESSORS
            elif isinstance(f, ast.Name) and f.id == "dig" and len(node.args) > 1:
                hit = _const(node.args[1]) in SECTION_NAMES
        if hit:
            out.append(f"{node.lineno}: {ast.unparse(node)[:120]}")
    return out


def _modules():
    for rel in CHECKED:
        path = os.path.join(PACKAGE, rel)
        if path.endswith(".py"):
            yield path
            continue
        for dirpath, _dirs, files in os.walk(path):
            yield from (os.path.join(dirpath, f) for f in sorted(files) if f.endswith(".py"))


@pytest.mark.parametrize("path", sorted(_modules()), ids=lambda p: os.path.relpath(p, PACKAGE))
def test_reads_the_snapshot_only_through_facts(path):
    with open(path, encoding="utf-8") as fh:
        assert raw_reads(fh.read()) == [], "read these through an accessor in torch_envcheck/facts/"


def test_every_checked_room_exists():
    assert all(os.path.exists(os.path.join(PACKAGE, rel)) for rel in CHECKED)
    assert len(list(_modules())) > 40


PLANTED = [
    's["torch"]["cuda"]',
    'snap.get("driver")',
    'rec["snapshot"]["platform"]',
    'rec.get("snapshot").get("env")',
    'F.dig(s, "platform", "machine")',
    'dig(snapshot, "extension", "status")',
    'F.torch(s).get("cuda")',
    'T.tf(s).get("version")',
    'snap.get("probe_errors")',
]


@pytest.mark.parametrize("code", PLANTED)
def test_the_check_catches_a_planted_raw_read(code):
    assert len(raw_reads(f"def rule(s, snap, snapshot, rec):\n    return {code}\n")) >= 1


@pytest.mark.parametrize("code", ['build["torch"]', 'rec["torch"]', 'F.torch_version(s)', 'F.dig(rec, "rank_facts")',
                                  's.get("version")', 'F.gpus(s)[0].get("capability")'])
def test_the_check_leaves_other_reads_alone(code):
    assert raw_reads(f"def rule(s, build, rec):\n    return {code}\n") == []
