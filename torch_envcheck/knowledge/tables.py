"""Loading the knowledge tables (torch_envcheck/knowledge/data/*.json): each read lazily, once, and
checked to be a knowledge table; a missing or malformed one is a KnowledgeError (a packaging bug,
not a user error), which every caller turns into "unknown"."""

from __future__ import annotations

import functools
import json
import os

from torch_envcheck.knowledge import overlay

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
DRIVERS_FILE = "cuda_drivers.json"
RELEASES_FILE = "torch_releases.json"
CAPABILITIES_FILE = "cuda_capabilities.json"


class KnowledgeError(RuntimeError):
    """A data table is missing or malformed (a packaging bug, not a user error)."""


def load_table(name: str) -> dict:
    """A table, with the rows of the `knowledge update` overlay (a dated file in the user's cache)
    preferred over the shipped ones; without an overlay, the shipped table."""
    return _load_table(name, overlay.generation())


@functools.lru_cache(maxsize=32)
def _load_table(name: str, _generation: int) -> dict:
    path = os.path.join(DATA_DIR, name)
    try:
        with open(path, encoding="utf-8") as fh:
            table = json.load(fh)
    except (OSError, ValueError) as exc:
        raise KnowledgeError(f"cannot read the knowledge table {path}: {exc}") from exc
    if not isinstance(table, dict) or "schema_version" not in table:
        raise KnowledgeError(f"{path} is not a torch_envcheck knowledge table (no schema_version)")
    return overlay.apply(name, table)


def clear_loaded() -> None:
    """Forget the tables read so far (their memory; a new overlay is seen anyway: see load_table)."""
    _load_table.cache_clear()


def os_column(os_name: str | None) -> str:
    """The tables' OS column: 'windows' for Windows (and WSL 2's driver), else 'linux'."""
    return "windows" if (os_name or "").lower().startswith("win") else "linux"
