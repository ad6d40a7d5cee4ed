"""Fuzzing the commands that read a report: hypothesis mutates the recorded snapshots in
tests/snapshots/ (wrong types at any path, deep or wide nesting, unicode, control characters,
lone surrogates, huge numbers) and runs the doctor (terminal, --verbose, --json, --markdown),
advise, pin and readme-line in-process on each.  Every run ends with exit 0 or 1 and output, or
exit 2 with one line on stderr; none raises, prints a traceback, hits the last-resort guard
("internal error") or lets a control character reach the terminal."""

from __future__ import annotations

import copy
import glob
import json
import os
import re

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from doctor_support import run_inprocess  # noqa: E402

from paths import SNAP_DIR

# Saved reports, recorded snapshots and indexes the tests serve: nothing here reads this machine's torch.
pytestmark = pytest.mark.any_torch_build
SNAPSHOTS = {os.path.basename(p)[:-5]: json.load(open(p, encoding="utf-8"))
             for p in sorted(glob.glob(os.path.join(SNAP_DIR, "*.json")))}
COMMANDS = (["doctor", "--no-color"], ["doctor", "--verbose", "--no-color"], ["doctor", "--json"],
            ["doctor", "--markdown"], ["advise"], ["pin"], ["readme-line"],
            ["advise", "--json", "--uv"], ["advise", "--uv"], ["advise", "--pixi"], ["advise", "--poetry"],
            ["pin", "--uv"])

NASTY_TEXT = st.sampled_from([
    "\x1b]0;title\x07", "\x1b[2J", "\x1b[8m", "\x9b31m", "\r", "\n--index-url https://evil.example/simple\n",
    "```", "</details>", "<script>x</script>", "$(touch /tmp/x)", "`id`", "'\"", "\ud800", "\udfff",
    "\u202e", "\ufeff", "", " ", "0", "-1", "9" * 50, "None", "null", "nan", "12.0+PTX", "sm_90", "2.14.1+cu130",
])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), NASTY_TEXT,
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=30))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def _paths(value, prefix=()):
    """Every path into a snapshot (keys and list indices), the root excluded."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


PATHS = {name: _paths(snap) for name, snap in SNAPSHOTS.items()}


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SNAPSHOTS)))
    snap = copy.deepcopy(SNAPSHOTS[name])
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        paths = _paths(snap)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = snap
        try:
            for key in path[:-1]:
                parent = parent[key]
            kind = draw(st.sampled_from(["replace", "nasty-string", "wrap", "delete"]))
            if kind == "replace":
                parent[path[-1]] = draw(VALUES)
            elif kind == "nasty-string":
                old = parent[path[-1]]
                parent[path[-1]] = (str(old) if not isinstance(old, (dict, list)) else "") + draw(NASTY_TEXT)
            elif kind == "wrap":
                parent[path[-1]] = draw(st.sampled_from([[parent[path[-1]]], {"x": parent[path[-1]]}]))
            elif isinstance(parent, dict):
                del parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
    if draw(st.booleans()):
        # sometimes as a saved report rather than a bare snapshot
        snap = {"schema": "torch_envcheck.report/1", "snapshot": snap, "findings": draw(VALUES)}
    return name, snap


def _run(argv):
    return run_inprocess(argv)


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\ud800-\udfff]")


@settings(max_examples=int(os.environ.get("TE_FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(mutated())
def test_commands_survive_mutated_snapshots(tmp_path_factory, case):
    name, snap = case
    path = tmp_path_factory.mktemp("fuzz") / f"{name}.json"
    # ensure_ascii: lone surrogates travel as \\udXXX escapes, the way a hostile file carries them
    path.write_text(json.dumps(snap, ensure_ascii=True), encoding="utf-8")
    for command in COMMANDS:
        rc, out, err = _run(command + ["--from-json", str(path)])
        where = f"{command} on a mutated {name}"
        assert "Traceback" not in out + err, where
        assert "internal error" not in err, f"{where}: {err}"
        assert rc in (0, 1, 2), where
        if rc == 2 or not out:  # a refusal (exit 2), or pin's "nothing to pin" (exit 1): one line
            assert rc in (1, 2) and len(err.strip().splitlines()) == 1 and out == "", (where, rc, err)
        assert not _CONTROL.search(out), (where, _CONTROL.search(out))
        assert not _CONTROL.search(err), (where, _CONTROL.search(err))
