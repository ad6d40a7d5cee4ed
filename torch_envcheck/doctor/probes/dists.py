"""Installed distributions read through importlib.metadata: version, installer (pip, uv, conda) and
location, without importing the packages themselves."""

from __future__ import annotations

import glob
import os
import sys
from importlib import metadata


def distribution(name: str):
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # a broken .dist-info must not stop the doctor
        return None


def _conda_owns(name: str) -> bool:
    # conda records every package it installed in <prefix>/conda-meta/<name>-<version>-<build>.json;
    # the conda package of torch is called "pytorch".
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
        return text.strip()
    if _conda_owns(name):
        return "conda"
    return None


def location(dist) -> str | None:
    try:
        return os.path.abspath(str(dist.locate_file(""))) if dist is not None else None
    except Exception:
        return None


def info(name: str) -> dict | None:
    """{"version", "installer", "location"} of an installed distribution, or None."""
    dist = distribution(name)
    if dist is None:
        return None
    return {"version": dist.version, "installer": installer(dist, name), "location": location(dist)}
