"""Behaviour unchanged: every recorded snapshot gives the findings (code, severity, area, fix, what
explains it), exit status and install commands recorded in tests/data/golden_findings.json (recorded
before the house reorganisation, so a move that changes behaviour shows).  A deliberate change rewrites that file
(`python tests/support/golden.py --write`) in the commit that makes it, naming each difference."""

from __future__ import annotations

import json
import os

import pytest

import golden

with open(golden.GOLDEN, encoding="utf-8") as _fh:
    RECORD = json.load(_fh)
NAMES = sorted(os.path.basename(p)[:-5] for p in __import__("glob").glob(os.path.join(golden.SNAP_DIR, "*.json")))


def test_every_recorded_snapshot_has_a_golden_entry():
    assert sorted(RECORD) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_behaviour_matches_the_golden_record(name):
    with golden.shipped_tables_only():
        now = golden.capture_one(os.path.join(golden.SNAP_DIR, name + ".json"))
    want = RECORD[name]
    assert now["exit_status"] == want["exit_status"]
    assert now["findings"] == want["findings"]
    for cmd in golden.COMMANDS:
        key = " ".join(cmd)
        assert now[key] == want[key], key
