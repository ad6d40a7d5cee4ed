"""Slurm's refusals of a job (data/slurm_errors.json, generated from Slurm's source by
benchmarks/gen_slurm_errors.py): which message a line carries and which part of the job's request it is about."""

from __future__ import annotations

from torch_envcheck.knowledge.tables import load_table

TABLE = "slurm_errors.json"
CATEGORIES = ("gres", "memory", "time", "account", "partition", "nodes")
_MAX_LINE = 2000


def find(line: str) -> dict | None:
    """The table's row whose message the line holds (the longest when several do), else None."""
    line = line[:_MAX_LINE].lower()
    best = None
    for row in load_table(TABLE).get("messages", []):
        msg = str(row.get("message") or "").rstrip(".").lower()
        if len(msg) >= 12 and row.get("category") in CATEGORIES and msg in line:
            if best is None or len(msg) > len(best["message"]):
                best = row
    return best


def sources() -> tuple:
    return tuple(s for s in load_table(TABLE).get("sources", []) if isinstance(s, dict))
