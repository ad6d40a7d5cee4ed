"""evaluate() never raises, whatever is missing, null or of the wrong type in a snapshot."""

from __future__ import annotations

import copy
import glob
import json
import os
import sys
import zlib

import pytest

from torch_envcheck.doctor.rules import evaluate

from _rules_helpers import SNAP_DIR

# The rules are pure Python and never import torch: with both CI venvs under test, this (the slowest
# module: every key of every recorded snapshot, nine ways) runs once, in the CUDA-torch venv.
_CUDA_PY = os.environ.get("TE_TEST_CUDA_PYTHON")
# Compared by the venv's bin folder: CI names bin/python, and the `pytest` script runs bin/python3.
_OTHER_VENV = bool(_CUDA_PY) and (os.path.realpath(os.path.dirname(os.path.abspath(_CUDA_PY)))
                                  != os.path.realpath(os.path.dirname(os.path.abspath(sys.executable))))
pytestmark = pytest.mark.skipif(_OTHER_VENV,
                                reason="pure-Python rules, independent of torch: run once per CI, in the "
                                       "TE_TEST_CUDA_PYTHON venv")

# Every test here stands alone: under xdist they spread over the workers (tests/conftest.py).
XDIST_SPREAD = True

NAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(SNAP_DIR, "*.json")))
ODD_VALUES = [None, "", -1, True, [], {}, "garbage", ["x"]]  # None: the key nulled


def _paths(obj, prefix=()):
    """Every key path in a nested dict/list."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value=None, delete=False):
    for key in path[:-1]:
        obj = obj[key]
    if delete:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


def _load(name):
    with open(os.path.join(SNAP_DIR, name + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


def _check(snapshot):
    found = evaluate(snapshot)
    assert isinstance(found, list)
    json.dumps(found)
    # a rule crash is reported as a warning, never as a silent pass: none is expected here
    crashed = [f for f in found if "rule" in f.get("details", {})]
    assert not crashed, crashed[0]["message"]


# Nine ways to spoil a key: delete it (a list item is nulled instead), or set it to one of eight odd
# values (None: nulled).
WAYS = [("delete", None)] + [("set", v) for v in ODD_VALUES]


def _ways(name, path, rest):
    """One way per key path in the default tier, chosen by a stable digest of the snapshot and the
    path (so the recorded snapshots that share a key spoil it differently); the other eight in the
    slow tier.  The two tiers together are every key spoiled every way."""
    pick = zlib.crc32(repr((name, path)).encode()) % len(WAYS)
    return [w for i, w in enumerate(WAYS) if (i != pick) == rest]


def _sweep(name, rest):
    base = _load(name)
    for path in list(_paths(base)):
        for how, value in _ways(name, path, rest):
            snap = copy.deepcopy(base)
            _set(snap, path, copy.deepcopy(value), delete=(how == "delete" and not isinstance(path[-1], int)))
            _check(snap)


@pytest.mark.parametrize("name", NAMES)
def test_every_key_spoiled_one_way(name):
    _sweep(name, rest=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_key_spoiled_every_other_way(name):
    _sweep(name, rest=True)


def test_the_two_tiers_together_are_every_way_once():
    for name in NAMES[:3]:
        for path in list(_paths(_load(name)))[:20]:
            first, rest = _ways(name, path, False), _ways(name, path, True)
            assert len(first) == 1 and len(rest) == len(WAYS) - 1
            assert sorted(map(repr, first + rest)) == sorted(map(repr, WAYS))


@pytest.mark.parametrize("snapshot", [None, {}, [], "x", {"torch": None}, {"platform": "Linux"}, {"probe_errors": ["x"]}])
def test_degenerate_snapshots(snapshot):
    assert isinstance(evaluate(snapshot), list)


def test_hypothesis_random_snapshots():
    hyp = pytest.importorskip("hypothesis", reason="hypothesis is optional; the loops above cover the same ground")
    st = pytest.importorskip("hypothesis.strategies")
    leaves = st.none() | st.booleans() | st.integers(-5, 200000) | st.text(max_size=12) | \
        st.sampled_from(["13.0", "12.1", "cu130", "cpu", "9.0", "6.1", "580.65.06", "Linux", "Windows", "Darwin", "ok", "stale"])
    keys = st.sampled_from(["platform", "torch", "driver", "env", "libraries", "toolchain", "extension", "packages",
                            "probe_errors", "system", "version", "cuda", "local", "present", "gpus", "devices",
                            "capability", "arch_list", "nvcc", "status", "state", "runtime_info", "cudnn", "python",
                            "wsl", "entries", "libs", "kind", "importable", "cuda_available", "CUDA_VISIBLE_DEVICES"])
    tree = st.recursive(leaves, lambda ch: st.lists(ch, max_size=3) | st.dictionaries(keys, ch, max_size=6), max_leaves=30)

    @hyp.settings(max_examples=300, deadline=None, derandomize=True)
    @hyp.given(st.dictionaries(keys, tree, max_size=8))
    def run(snapshot):
        _check(snapshot)

    run()
