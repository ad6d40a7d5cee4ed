"""Installed distributions read through importlib.metadata: version, installer (pip, uv, conda) and
location, without importing the packages themselves.

importlib.metadata opens a dist-info's files with a plain open(): a METADATA, INSTALLER or RECORD
that is a FIFO would block the doctor for ever.  So the distribution is found here, by the folder
names on sys.path (as importlib.metadata's path finder does: the first match in sys.path order, the
name normalised as PEP 503 / importlib's Prepared.normalize), and its files are read through
_util/safe_open (regular files only, never waiting, bounded).
"""

from __future__ import annotations

import glob
import os
import pathlib
import re
import sys
from importlib import metadata

from torch_envcheck._util import safe_open

# METADATA and PKG-INFO: the headers the doctor reads come first; a long description may follow.
MAX_METADATA = 4 << 20
MAX_SMALL = 64 << 10   # INSTALLER, requires.txt, direct_url.json, entry_points.txt
_NAME_FILES = ("METADATA", "PKG-INFO", "")


def normalize(name: str) -> str:
    """importlib.metadata's Prepared.normalize: 'Foo.Bar-baz' -> 'foo_bar_baz'."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


class SafeDistribution(metadata.PathDistribution):
    """A PathDistribution whose files are read through safe_open: never a FIFO or a device,
    never more than a bound (METADATA: its head)."""

    def read_text(self, filename):
        path = str(self._path.joinpath(filename)) if filename else str(self._path)
        head = filename in _NAME_FILES
        try:
            return safe_open.read_text(path, MAX_METADATA if head else MAX_SMALL,
                                       overflow="head" if head else "error", errors="strict")
        except (OSError, UnicodeDecodeError, ValueError):
            # missing, unreadable, not a regular file, too large, not UTF-8: no such file, as
            # PathDistribution.read_text says for the missing ones
            return None


def _entries(paths) -> list[str]:
    return [p for p in (sys.path if paths is None else paths) if isinstance(p, str)]


def find(name: str, paths=None) -> str | None:
    """The .dist-info (or .egg-info) folder of `name` that importlib.metadata would pick: the first
    on sys.path.  Folder names only; no file is opened."""
    want = normalize(name)
    for entry in _entries(paths):
        root = entry or "."
        try:
            names = sorted(os.listdir(root))
        except OSError:  # not a folder (a zip, a missing entry)
            continue
        for child in names:
            low = child.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            if normalize(low.rpartition(".")[0].partition("-")[0]) == want:
                return os.path.join(root, child)
    return None


def find_all(name: str, paths=None, limit: int = 10) -> list[str]:
    """Every .dist-info (or .egg-info) folder of `name` on sys.path, in sys.path order (the first is
    the one importlib.metadata picks; the others are shadowed copies).  Folder names only."""
    want, out, seen = normalize(name), [], set()
    for entry in _entries(paths):
        root = os.path.abspath(entry or ".")
        if root in seen:
            continue
        seen.add(root)
        try:
            names = sorted(os.listdir(root))
        except OSError:
            continue
        for child in names:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) and normalize(low.rpartition(".")[0].partition("-")[0]) == want:
                out.append(os.path.join(root, child))
                break
        if len(out) >= limit:
            break
    return out


def copies(name: str, paths=None) -> list[dict]:
    """[{location, version, installer}] of every installed copy of `name`, in sys.path order."""
    out = []
    try:
        found = find_all(name, paths)
    except Exception:
        return out
    for path in found:
        dist = SafeDistribution(pathlib.Path(path))
        out.append({"location": os.path.dirname(path), "version": version(dist), "installer": installer(dist, name)})
    return out


def distribution(name: str, paths=None):
    """The installed distribution `name` (a SafeDistribution), or None."""
    try:
        found = find(name, paths)
    except Exception:  # a broken sys.path entry must not stop the doctor
        return None
    return SafeDistribution(pathlib.Path(found)) if found else None


def _conda_owns(name: str) -> bool:
    # conda records every package it installed in <prefix>/conda-meta/<name>-<version>-<build>.json;
    # the conda package of torch is called "pytorch".  Names only: no record is opened.
    names = {"torch": ("pytorch", "torch")}.get(name, (name,))
    meta = os.path.join(sys.prefix, "conda-meta")
    return any(glob.glob(os.path.join(meta, f"{n}-[0-9]*.json")) for n in names)


def installer(dist, name: str) -> str | None:
    text = None
    try:
        text = dist.read_text("INSTALLER") if dist is not None else None
    except Exception:
        text = None
    if text and text.strip():
        return text.strip()[:100]
    if _conda_owns(name):
        return "conda"
    return None


def location(dist) -> str | None:
    try:
        return os.path.abspath(str(dist.locate_file(""))) if dist is not None else None
    except Exception:
        return None


def version(dist) -> str | None:
    try:
        v = dist.version if dist is not None else None
    except Exception:  # a METADATA that cannot be parsed
        return None
    return v[:200] if isinstance(v, str) else None


def info(name: str) -> dict | None:
    """{"version", "installer", "location"} of an installed distribution, or None."""
    dist = distribution(name)
    if dist is None:
        return None
    return {"version": version(dist), "installer": installer(dist, name), "location": location(dist)}
