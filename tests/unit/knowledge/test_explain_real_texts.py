"""`explain` on real error texts from public issue threads (tests/data/explain/real_errors.json): the
layer and signature their maintainers identified, a fix with the words their accepted answer used,
the versions and names the message carries, decoded.  From the text alone (the machine is checked in
test_explain_cli.py)."""

from __future__ import annotations

import re

import pytest
from _explain_helpers import PKG_PARENT, REPO, real_errors
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_envcheck.explain import diagnose, render

ENTRIES = real_errors()
INSTALL_WORDS = re.compile(r"\b(?:pip|conda|install|reinstall|uninstall|apt|upgrade|downgrade)\b", re.IGNORECASE)


def test_at_least_forty_real_texts_with_sources():
    assert len(ENTRIES) >= 40
    assert len({e["id"] for e in ENTRIES}) == len(ENTRIES)
    for e in ENTRIES:
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", e["source"]), e["source"]
        assert e["text"].strip() and e["fix_contains"]
        # recorded data carries no path of this machine (conda build paths like .../work/aten/ are the thread's)
        assert REPO not in e["text"] and PKG_PARENT not in e["text"] and "/work/venvs" not in e["text"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_real_text(entry):
    r = diagnose.diagnose(entry["text"])
    assert r["recognised"], entry["id"]
    assert (r["signature"], r["layer"]) == (entry["signature"], entry["layer"]), r["also"]
    for words in entry["fix_contains"]:
        assert words in r["fix"], f"{entry['id']}: fix lacks {words!r}: {r['fix']}"
    for key, value in (entry.get("captures") or {}).items():
        assert r["captures"].get(key) == value, (key, r["captures"])
    assert r["source"].startswith("https://")
    assert r["explanation"] and "?" not in re.findall(r"\{[^}]*\}", r["explanation"])
    if entry["layer"] == "not-environment":
        assert r["environment_problem"] is False and r["machine"] == "not needed"
        assert not INSTALL_WORDS.search(r["fix"]), r["fix"]
    else:
        assert r["environment_problem"] is True and r["machine"] == "not checked"
        assert all(c["present"] is None for c in r["causes"])
    out = render.text(r)
    assert entry["signature"] in out and "\x1b" not in out


SAMPLE = [e for e in ENTRIES if e["id"] in ("fooocus-1313", "applio-1006", "pytorch-131312", "tensorflow-43193",
                                            "autoalign-25", "maddog-11", "kronos-166", "cogvlm2-178")]
_noise = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120), max_size=30).map("\n".join)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SAMPLE), _noise, _noise)
def test_real_text_inside_unrelated_log_lines(entry, before, after):
    # A pasted log around the error changes nothing (unless the noise holds another known error,
    # which random text practically never does).
    r = diagnose.diagnose(before + "\n" + entry["text"] + "\n" + after)
    assert r["signature"] == entry["signature"]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=3000))
def test_any_text_is_handled(text):
    r = diagnose.diagnose(text)
    assert r["recognised"] in (True, False)
    assert "\x1b" not in render.text(r)
