"""Argument helpers shared by the doctor's commands (doctor, advise, readme-line, pin)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys


def seconds_up_to(limit: float):
    """An argparse type: a number of seconds in (0, limit]."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not 0 < value <= limit:
            raise argparse.ArgumentTypeError(f"expected seconds between 0 and {limit:g}, got {text}")
        return value
    return parse


seconds = seconds_up_to(600)


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
    from .snapshot import SnapshotError, load  # noqa: PLC0415

    path = getattr(args, "from_json", None)
    if path is not None:  # '' is a mistake to report, never a reason to probe this machine
        try:
            return load(path)
        except SnapshotError as exc:
            error(str(exc))
            return None
    from . import collect  # noqa: PLC0415
    with stdout_to_stderr():
        limit = getattr(args, "timeout", None)
        return collect(timeout=limit or 5.0, only=only, torch_timeout=limit,
                       tensorflow=not getattr(args, "no_tensorflow", False))


def error(message: str) -> None:
    """One line on stderr; the message may quote input, so it is escaped for the terminal."""
    from .escape import terminal  # noqa: PLC0415

    try:
        print(f"torch-envcheck: error: {terminal(message)}", file=sys.stderr)
    except (OSError, ValueError, AttributeError):  # no usable stderr
        pass


@contextlib.contextmanager
def stdout_to_stderr():
    """While the probes run, anything written to stdout (a library printing on import, even from
    C) goes to stderr instead, so `--json > report.json` stays valid JSON."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):  # no real file descriptors (embedded, captured)
        yield
        return
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
