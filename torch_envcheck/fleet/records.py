"""Rank records (one per rank: its status, snapshot and report) as the fleet's rules, verdict and
renderers read them."""

from __future__ import annotations


def counted(rec, severity: str) -> bool:
    """The rank has a finding of this severity that counts (not one explained by another)."""
    rep = rec.get("report") if isinstance(rec.get("report"), dict) else {}
    return any(isinstance(f, dict) and f.get("severity") == severity and not f.get("explained_by")
               for f in rep.get("findings") or [])
