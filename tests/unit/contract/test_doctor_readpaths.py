"""Every fact a rule, renderer or command reads is declared in the contract (facts/contract.py):
each recorded snapshot goes through contract.record_reads(), a view that records the contract path
of every key looked up, and every path read must be declared.  Rules read only through the facts
layer: no rule module indexes the snapshot itself."""

from __future__ import annotations

import ast
import glob
import inspect
import json
import os

import pytest

import torch_envcheck.doctor as doctor
from torch_envcheck.doctor import rules
from torch_envcheck.facts import contract
from torch_envcheck.doctor.areas import ORDER
from torch_envcheck.facts import snapshot as snapmod
from torch_envcheck.advice.recommend import advise
from torch_envcheck.commands.pin import lines as pin_lines
from torch_envcheck.commands.readme_line import line as readme_line
from torch_envcheck.doctor.render import areas, json_render, markdown, terminal

from paths import SNAP_DIR
SNAPSHOTS = sorted(glob.glob(os.path.join(SNAP_DIR, "*.json")))


def _load(path):
    with open(path, encoding="utf-8") as fh:
        return snapmod.validate(json.load(fh), path)


def _reads_of(fn, snap) -> set:
    view, reads = contract.record_reads(snap)
    try:
        fn(view)
    except ValueError:  # pin: "nothing to pin" is an answer, the reads before it still count
        pass
    return reads


CONSUMERS = {
    "rules": lambda s: rules.evaluate(s),
    "report+terminal": lambda s: terminal.render(doctor.report(s)),
    "report+terminal --verbose": lambda s: terminal.render(doctor.report(s), verbose=True),
    "report+markdown": lambda s: markdown.render(doctor.report(s)),
    "report+json": lambda s: json_render.render(doctor.report(s)),
    "headlines": lambda s: [areas.headline(a, s) for a in ORDER],
    "advise": advise,
    "pin": pin_lines,
    "readme-line": readme_line,
}


@pytest.mark.parametrize("name", sorted(CONSUMERS))
def test_every_fact_read_is_declared(name):
    assert SNAPSHOTS, "no recorded snapshots"
    bad = {}
    total = set()
    for path in SNAPSHOTS:
        reads = _reads_of(CONSUMERS[name], _load(path))
        total |= reads
        undeclared = contract.undeclared(reads)
        if undeclared:
            bad[os.path.basename(path)] = undeclared
    assert not bad, f"{name} reads facts the contract does not declare: {bad}"
    assert total, f"{name} read nothing through the view: the recording is broken"


def test_the_recording_view_catches_an_undeclared_read():
    snap = _load(os.path.join(SNAP_DIR, "h100_cu130_healthy.json"))
    view, reads = contract.record_reads(snap)
    assert view["torch"].get("devices")[0].get("capability") == "9.0"
    view["torch"].get("gpu_name")  # not a fact of the contract
    view.get("packages", {}).get("nvidia", {}).get("nvidia-cudnn-cu13")
    assert "torch.devices[].capability" in reads and "packages.nvidia.*" in reads
    assert contract.undeclared(reads) == ["torch.gpu_name"]


def _snapshot_param(fn) -> str | None:
    params = list(inspect.signature(fn).parameters)
    return params[0] if params and params[0] in ("s", "snap", "snapshot") else None


def test_rules_never_index_the_snapshot():
    """A rule receives the snapshot only to hand it to the facts layer (F.name(s)): no s[...],
    s.get(...) or other attribute of it in any rule module."""
    offenders = []
    for area, module in rules.MODULES.items():
        tree = ast.parse(inspect.getsource(module))
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            args = [a.arg for a in fn.args.args]
            if not args or args[0] not in ("s", "snap", "snapshot"):
                continue
            name = args[0]
            for node in ast.walk(fn):
                if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name) \
                        and node.value.id == name:
                    offenders.append(f"{module.__name__}.{fn.name} line {node.lineno}")
    assert not offenders, f"rules that index the snapshot instead of using the facts layer: {offenders}"
