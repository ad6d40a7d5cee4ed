"""Shared helpers of the explain/run/notebook tests: the package's parent folder for PYTHONPATH, the
CLI in a child process, the recorded test data."""

from __future__ import annotations

import json
import os
import signal
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


def default_signals() -> None:
    """preexec_fn: the signals `run` forwards back to their default disposition in the child, as at a
    terminal.  pytest-xdist's workers ignore SIGINT, `nohup` (a CI started in the background) ignores
    SIGHUP, and an ignored signal stays ignored across exec: the child, and its own children, would
    never die of it."""
    for name in ("SIGINT", "SIGHUP", "SIGTERM", "SIGQUIT"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def cli(*args, input=None, timeout=120, env=None, stdin=None, **kw) -> subprocess.CompletedProcess:
    """`python -m torch_envcheck ARGS` as a user runs it at a terminal; bytes in, bytes out."""
    if input is not None and isinstance(input, str):
        input = input.encode()
    if input is None and stdin is None:
        stdin = subprocess.DEVNULL
    if os.name == "posix":
        kw.setdefault("preexec_fn", default_signals)
    return subprocess.run([sys.executable, "-m", "torch_envcheck", *args], input=input, stdin=stdin,
                          capture_output=True, timeout=timeout, env=env or child_env(), **kw)


def real_errors() -> list:
    with open(os.path.join(DATA, "real_errors.json"), encoding="utf-8") as fh:
        return json.load(fh)["entries"]


def snapshot(name: str) -> str:
    return os.path.join(SNAPSHOTS, name)
