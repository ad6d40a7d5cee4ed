"""docs/codes.md is generated from torch_envcheck/doctor/codes.py and current: every code the rules
can emit is listed there with its slug, area, severity and meaning."""

from __future__ import annotations

import os

from paths import REPO

from torch_envcheck.doctor.codes import CODES, SEVERITY
from torch_envcheck.doctor.render import codes_doc

DOC = os.path.join(REPO, "docs", "codes.md")


def test_every_code_has_a_severity_text():
    assert set(SEVERITY) == set(CODES)
    assert all(isinstance(v, str) and v.strip() for v in SEVERITY.values())


def test_docs_codes_md_is_current():
    with open(DOC, encoding="utf-8") as fh:
        assert fh.read() == codes_doc.markdown(), (
            "docs/codes.md is stale: python -m torch_envcheck.doctor.render.codes_doc --write docs/codes.md")


def test_every_code_is_listed_once():
    text = codes_doc.markdown()
    for code, (slug, _area, _title) in CODES.items():
        assert text.count(f"| {code} | `{slug}` |") == 1, code
