"""The rules' last step: every fix is checked before it is printed (advice/check.py): the
wheel it installs exists for this platform, no installed distribution's requirement is broken by it,
its paths are the platform's.  Not a rule: it judges the rules' fixes, never the machine."""

from __future__ import annotations

from torch_envcheck.advice import check


def check_fixes(snapshot, found: list[dict]) -> list[dict]:
    return check.annotate(snapshot, found)
