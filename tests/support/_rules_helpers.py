"""Helpers for the rules tests: load recorded snapshots (tests/snapshots/*.json) and evaluate them."""

from __future__ import annotations

import copy
import json
import os

from paths import SNAP_DIR

# every recorded snapshot (tests/snapshots/NAME.json), by NAME
SNAPSHOT_NAMES = sorted(f[:-5] for f in os.listdir(SNAP_DIR) if f.endswith(".json"))


def snapshot_path(name: str) -> str:
    return os.path.join(SNAP_DIR, name + ".json")


def load(name: str) -> dict:
    with open(snapshot_path(name), encoding="utf-8") as fh:
        return json.load(fh)


def healthy() -> dict:
    return copy.deepcopy(load("h100_cu130_healthy"))


def codes(findings) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in findings]


def by_code(findings, code):
    return [f for f in findings if f["code"] == code]
