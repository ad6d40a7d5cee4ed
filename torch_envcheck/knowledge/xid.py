"""NVIDIA Xid events (data/nvidia_xid.json, from NVIDIA's Xid catalog): what one means for the node
that logged it: hardware (exclude the node), reset (reset the GPU first) or application."""

from __future__ import annotations

from torch_envcheck.knowledge.tables import load_table

TABLE = "nvidia_xid.json"
KINDS = ("hardware", "reset", "application")


def describe(xid: int) -> dict | None:
    """{'xid', 'name', 'kind'} for a catalogued Xid, else None."""
    for row in load_table(TABLE).get("xids", []):
        if row.get("xid") == xid and row.get("kind") in KINDS:
            return row
    return None
