"""The snapshot this machine produces honours the data contract the rules are written against
(torch_envcheck/facts/contract.py, schema torch_envcheck.snapshot/1), and loading normalises old,
partial or mistyped snapshots into explicit unknowns."""

from __future__ import annotations

import json

import pytest

from paths import SNAP_DIR

import torch_envcheck.doctor as doctor
from torch_envcheck.facts import contract
from torch_envcheck.facts import snapshot as snapmod


@pytest.fixture(scope="module")
def snap():
    return doctor.collect(timeout=5.0)


def test_snapshot_follows_the_contract(snap):
    assert snap["schema"] == "torch_envcheck.snapshot/1" and snap["tool_version"]
    assert snap["probe_errors"] == {}, snap["probe_errors"]  # on this machine every probe runs
    assert set(snap["probe_seconds"]) == set(contract.SECTIONS)
    assert contract.violations(snap) == []
    assert contract.undeclared_keys(snap) == [], "a probe writes facts the contract does not declare"
    assert snap["normalised"] == [], "a live snapshot needs no normalising"
    assert snap["extension"]["status"]["state"] in ("ok", "stale", "missing", "torch-missing", "broken")


def test_violations_name_what_breaks_the_contract(snap):
    bad = json.loads(json.dumps(snap))
    bad["torch"]["importable"] = None
    bad["driver"]["gpus"] = [{"index": "0"}]
    del bad["platform"]["machine"]
    found = contract.violations(bad)
    assert "torch.importable: null, but the contract says it is always known" in found
    assert "driver.gpus[0].index: string, expected int" in found
    assert "platform.machine: missing" in found
    bad["torch"]["new_fact"] = 1
    assert contract.undeclared_keys(bad) == ["torch.new_fact"]


def test_snapshot_is_plain_json_and_validates(snap):
    again = json.loads(json.dumps(snap))
    assert again == snap and snapmod.validate(again) == snap, "normalising a live snapshot changes nothing"


def test_torch_facts_match_torch(snap):
    import torch

    t = snap["torch"]
    assert t["importable"] and t["version"] == torch.__version__ and t["cuda"] == torch.version.cuda
    assert t["cuda_available"] == torch.cuda.is_available()
    if torch.version.cuda:
        assert t["arch_list"] == torch._C._cuda_getArchFlags().split()
    assert t["cudnn"] == torch.backends.cudnn.version()


def test_normalise_makes_unknown_explicit_and_never_guesses():
    n = snapmod.validate({"schema": snapmod.SNAPSHOT_SCHEMA, "torch": {"importable": "yes", "cudnn": "9.1",
                                                                      "devices": [{"index": 0, "capability": 8.6}, 3],
                                                                      "arch_list": ["sm_80", 90]},
                          "driver": [1, 2], "platform": {"python": {"version": 3.12}}})
    assert n["torch"]["importable"] is None and n["torch"]["cudnn"] is None  # wrong types: unknown
    assert n["torch"]["devices"] == [{"index": 0, "name": None, "capability": None, "total_memory_bytes": None}]
    assert n["torch"]["arch_list"] == ["sm_80"]
    assert n["torch"]["version"] is None and "hip" in n["torch"]  # missing fields present, unknown
    assert n["driver"] is None and n["toolchain"] is None  # a wrong-typed or missing section: unknown
    assert n["platform"]["python"]["version"] is None and n["platform"]["system"] is None
    assert "torch.importable: expected bool, got boolean" not in n["normalised"]
    assert "torch.importable: expected bool, got string" in n["normalised"]
    assert "driver: expected object, got list" in n["normalised"]
    assert contract.normalise(n) == n, "normalising is idempotent"


def test_every_section_declares_meaning_and_kind():
    for section, fields in contract.SECTIONS.items():
        for name, spec in fields.items():
            assert spec.kind in (contract.STR, contract.INT, contract.BOOL, contract.FLOAT, contract.LIST,
                                 contract.DICT), (section, name)
            assert spec.meaning.strip(), f"{section}.{name} has no meaning"
    assert contract.declared("torch.devices[].capability") and contract.declared("packages.nvidia.*")
    assert not contract.declared("torch.gpu_name")
    from torch_envcheck.doctor import areas
    for area in areas.ALL:
        assert all(contract.declared(p) for p in area.judged_by), area.name
        assert all(s in contract.SECTIONS for s in area.shows), area.name


def test_recorded_snapshots_hold_only_declared_facts():
    import glob
    import os
    for path in sorted(glob.glob(os.path.join(SNAP_DIR, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        assert contract.undeclared_keys(data) == [], os.path.basename(path)
