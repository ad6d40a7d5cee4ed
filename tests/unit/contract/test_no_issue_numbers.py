"""Code and comments say why, not which issue: no source file of the package, the tests, the CI
script or pyproject.toml cites a tracker issue by number ("issue 17", "(issue 8)", "class 3 of
issue 21").  git keeps the history; a comment that names an issue explains nothing to a reader
without the tracker.  Recorded data (JSON) may cite an upstream project's issue as its source."""

from __future__ import annotations

import os
import re

from paths import REPO

CITES = re.compile(r"(?<![A-Za-z])issues?[ _-]?#?\d+\b", re.IGNORECASE)
ROOTS = ("torch_envcheck", "tests", ".ci")
SUFFIXES = (".py", ".toml", ".cfg", ".sh", ".cpp", ".h", ".cu", ".cuh")


def _files() -> list[str]:
    out = [os.path.join(REPO, "pyproject.toml")]
    for root in ROOTS:
        for dirpath, dirs, files in os.walk(os.path.join(REPO, root)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "data", "fixtures", "snapshots")]
            out += [os.path.join(dirpath, f) for f in files
                    if f.endswith(SUFFIXES) or (root == ".ci" and "." not in f)]
    return sorted(p for p in out if os.path.abspath(p) != os.path.abspath(__file__))  # not its own examples


def cites(text: str) -> list[str]:
    return [m.group(0) for m in CITES.finditer(text)]


def test_no_issue_number_in_code_or_comments():
    found = []
    for path in _files():
        with open(path, encoding="utf-8", errors="replace") as fh:
            hits = cites(fh.read()) + cites(os.path.basename(path))
        found += [f"{os.path.relpath(path, REPO)}: {h}" for h in hits]
    assert found == []


def test_the_check_sees_an_issue_number():
    assert cites("# added for issue 17: ...") == ["issue 17"]
    assert cites('"""Class 3 of Issue #21"""') == ["Issue #21"]
    assert cites("scenarios_issue18.py") == ["issue18"]
    assert cites("# a tissue of lies; issues are filed upstream") == []
