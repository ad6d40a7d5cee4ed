"""Shared helpers of the explain/run/notebook tests: the package's parent folder for PYTHONPATH, the
CLI in a child process, the recorded test data."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import torch_envcheck

from paths import DATA as _DATA, REPO

DATA = os.path.join(_DATA, "explain")
SNAPSHOTS = os.path.join(REPO, "tests", "snapshots")
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))


def child_env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra.pop("PYTHONPATH_FIRST", None), PKG_PARENT,
                                                    os.environ.get("PYTHONPATH")) if p)
    env.pop("TORCH_ENVCHECK_DEBUG", None)
    env.update(extra)
    return env


def cli(*args, input=None, timeout=120, env=None, stdin=None, **kw) -> subprocess.CompletedProcess:
    """`python -m torch_envcheck ARGS` as a user runs it; bytes in, bytes out."""
    if input is not None and isinstance(input, str):
        input = input.encode()
    if input is None and stdin is None:
        stdin = subprocess.DEVNULL
    return subprocess.run([sys.executable, "-m", "torch_envcheck", *args], input=input, stdin=stdin,
                          capture_output=True, timeout=timeout, env=env or child_env(), **kw)


def real_errors() -> list:
    with open(os.path.join(DATA, "real_errors.json"), encoding="utf-8") as fh:
        return json.load(fh)["entries"]


def snapshot(name: str) -> str:
    return os.path.join(SNAPSHOTS, name)
