"""findings_for() never raises, whatever is missing, null or of the wrong type in a snapshot."""

from __future__ import annotations

import copy
import json
import os
import pickle
import sys
import zlib

import pytest

from torch_envcheck.doctor.report import findings_for

from _rules_helpers import SNAPSHOT_NAMES, load as _load

# The rules are pure Python and never import torch: with both CI venvs under test, this (a third of
# the keys of every recorded snapshot spoiled one way here, every key three ways with the slow tier)
# runs once, in the CUDA venv.
_CUDA_PY = os.environ.get("TE_TEST_CUDA_PYTHON")
# Compared by the venv's bin folder: CI names bin/python, and the `pytest` script runs bin/python3.
_OTHER_VENV = bool(_CUDA_PY) and (os.path.realpath(os.path.dirname(os.path.abspath(_CUDA_PY)))
                                  != os.path.realpath(os.path.dirname(os.path.abspath(sys.executable))))
pytestmark = pytest.mark.skipif(_OTHER_VENV,
                                reason="pure-Python rules, independent of torch: run once per CI, in the "
                                       "TE_TEST_CUDA_PYTHON venv")

NAMES = SNAPSHOT_NAMES
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


def _check(snapshot):
    found = findings_for(snapshot)
    assert isinstance(found, list)
    json.dumps([f.to_dict() for f in found])
    # a rule crash is reported as a warning, never as a silent pass: none is expected here
    crashed = [f for f in found if "rule" in f.get("details", {})]
    assert not crashed, crashed[0]["message"]


# Nine ways to spoil a key: delete it (a list item is nulled instead), or set it to one of eight odd
# values (None: nulled).
WAYS = [("delete", None)] + [("set", v) for v in ODD_VALUES]


# The default tier spoils a third of the keys of each snapshot, one way each; the slow tier spoils the
# other two thirds that way and every key two more ways; TE_TEST_EVERY_WAY=1 makes the slow tier every
# other way (eight more: some four minutes of CPU, which CI does not spend on every run).  CI runs both
# tiers, so every key is spoiled at least three ways there.
EVERY_WAY = os.environ.get("TE_TEST_EVERY_WAY") == "1"
DEFAULT_SHARE = 3  # the default tier takes one key in DEFAULT_SHARE


def _digest(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


def _ways(name, path, tier):
    """The ways to spoil one key path in a tier: a stable digest of the snapshot's name and the path
    orders the nine ways (so the recorded snapshots sharing a key spoil it differently) and picks
    the keys of the default tier, which spoils them the first way; the slow tier takes the first way
    of the other keys and the next two ways of every key (or all the rest).  Together: every way once."""
    order = sorted(range(len(WAYS)), key=lambda i: _digest(name, path, i))
    first = _digest(name, path) % DEFAULT_SHARE == 0
    if tier == "default":
        picked = order[:1] if first else []
    else:
        picked = ([] if first else order[:1]) + (order[1:] if tier == "every" else order[1:3])
    return [WAYS[i] for i in picked]


def _sweep(name, tier):
    base = _load(name)
    # a fresh copy per spoiled key, from a pickle of the recorded snapshot (a JSON tree: the copy is
    # exact, and several times cheaper than copy.deepcopy over a few hundred keys)
    blob = pickle.dumps(base, protocol=pickle.HIGHEST_PROTOCOL)
    for path in list(_paths(base)):
        for how, value in _ways(name, path, tier):
            snap = pickle.loads(blob)
            _set(snap, path, copy.deepcopy(value), delete=(how == "delete" and not isinstance(path[-1], int)))
            _check(snap)


@pytest.mark.parametrize("name", NAMES)
def test_some_keys_spoiled_one_way(name):
    _sweep(name, "default")


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_key_spoiled_more_ways(name):
    _sweep(name, "every" if EVERY_WAY else "slow")


def test_the_tiers_split_the_ways():
    share = []
    for name in NAMES[:3]:
        for path in list(_paths(_load(name)))[:40]:
            one, slow, every = (_ways(name, path, t) for t in ("default", "slow", "every"))
            # every way exactly once over the default tier and the every-way slow tier
            assert sorted(map(repr, one + every)) == sorted(map(repr, WAYS))
            # the default and the plain slow tier together: three ways, none twice
            both = one + slow
            assert len(both) == 3 and len(set(map(repr, both))) == 3
            share.append(len(one))
    # the default tier takes a share of the keys, not none and not all
    assert 0 < sum(share) < len(share)
    # over the recorded snapshots every way is the default tier's pick for some key
    picks = {repr(w) for name in NAMES for path in list(_paths(_load(name)))[:15]
             for w in _ways(name, path, "default")}
    assert picks == {repr(w) for w in WAYS}


@pytest.mark.parametrize("snapshot", [None, {}, [], "x", {"torch": None}, {"platform": "Linux"}, {"probe_errors": ["x"]}])
def test_degenerate_snapshots(snapshot):
    assert isinstance(findings_for(snapshot), list)


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
