"""Where a command's snapshot comes from: `--from-json FILE` (a saved report or snapshot) or the
probes of this machine (`--timeout`, `--no-tensorflow`).  Shared by doctor, advise, readme-line,
pin and the other commands that diagnose."""

from __future__ import annotations

import argparse
import contextlib

from torch_envcheck._util import signalled
from torch_envcheck._util.args import error, seconds, stdout_to_stderr

__all__ = ["add_source", "snapshot", "error", "seconds", "stdout_to_stderr"]


def add_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from-json", metavar="FILE", default=None,
                        help="read a saved report or snapshot (from `torch-envcheck --json`) instead of "
                             "probing this machine ('-' reads stdin)")
    parser.add_argument("--timeout", type=seconds, default=None, metavar="SECONDS",
                        help="time limit for each helper program (nvidia-smi, nvcc, ...) and for the "
                             "torch import (TensorFlow's: twice it); default 5 for programs and 30 for the "
                             "torch import")
    parser.add_argument("--no-tensorflow", action="store_true",
                        help="do not import TensorFlow in a child process (its installed metadata is still read)")


def snapshot(args, only=None) -> dict | None:
    """The snapshot to work on; None after printing the error (the caller exits with 2)."""
    from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415

    path = getattr(args, "from_json", None)
    if path is not None:  # '' is a mistake to report, never a reason to probe this machine
        try:
            return load(path)
        except SnapshotError as exc:
            error(str(exc))
            return None
    from torch_envcheck.doctor import collect  # noqa: PLC0415
    with stdout_to_stderr(), _terminate_as_exit():
        limit = getattr(args, "timeout", None)
        return collect(timeout=limit or 5.0, only=only, torch_timeout=limit,
                       tensorflow=not getattr(args, "no_tensorflow", False))


@contextlib.contextmanager
def _terminate_as_exit():
    """While the probes run, SIGTERM ends this process through SystemExit (status 143) rather than
    at once, so that the helper programs it started in their own sessions are killed with it
    (_util/proc.kill_all, at exit) instead of running on."""
    def handler(signum, frame):
        raise SystemExit(128 + signum)

    saved = signalled.install(signalled.named("SIGTERM"), handler)  # none off the main thread
    try:
        yield
    finally:
        signalled.restore(saved)
