"""Rank records (one per rank: its status, snapshot and report) as the fleet's rules, verdict and
renderers read them."""

from __future__ import annotations

from torch_envcheck.doctor.report import Report


def rank_report(rec) -> Report | None:
    """The doctor's report the rank record carries (its findings, summary, exit status), or None."""
    data = rec.get("report")
    return Report.from_dict(data) if isinstance(data, dict) else None


def counted(rec, severity: str) -> bool:
    """The rank has a finding of this severity that counts (not one explained by another)."""
    rep = rank_report(rec)
    return rep is not None and rep.count(severity) > 0
