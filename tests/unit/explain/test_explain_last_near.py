"""kit.last_near: the last match of a pattern around its literal's occurrences, the same match a scan of the whole
tail finds, for patterns whose reach before the literal is bounded."""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import last_near
from torch_envcheck.explain.match import last_match

_P = re.compile(r"(?P<path>[^\s:]{0,300}/)?(?P<file>[a-z_]{1,40}\.so): cannot open shared object file")


def test_the_same_last_match_as_a_full_scan():
    text = ("/opt/a/b/first.so: cannot open shared object file\n" + "/x/y" * 500 + "\n"
            "/opt/" + "d/" * 120 + "second.so: cannot open shared object file: No such file\n" + "tail " * 50)
    m, at = last_near(_P, text, ": cannot open shared object file", 400)
    full = last_match(_P, text)
    assert m.group("file") == full.group("file") == "second.so" and at == full.start()
    assert m.group("path") == full.group("path")


def test_an_earlier_occurrence_when_the_last_has_no_match():
    text = "/opt/lib/first.so: cannot open shared object file\n123: cannot open shared object file"
    m, at = last_near(_P, text, ": cannot open shared object file", 400)
    assert m.group("file") == "first.so" and at == 0


def test_no_literal_no_match():
    assert last_near(_P, "/a/b/c.so loaded", ": cannot open shared object file", 400) == (None, None)
