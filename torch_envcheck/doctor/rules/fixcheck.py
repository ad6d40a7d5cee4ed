"""The rules' last step: every fix is checked before it is printed (advice/check.py): the wheel it
installs exists for this platform, no installed distribution's requirement is broken by it, its
paths are the platform's.  Not a rule: it judges the rules' fixes, never the machine; the report
(doctor/report.py) runs it over each finding's fix."""

from __future__ import annotations

from torch_envcheck.advice import check


def checked(snapshot, fix: str) -> tuple[str, list[str]]:
    """(the fix to print, the problems the checker found in it)."""
    return check.checked(snapshot, fix)
