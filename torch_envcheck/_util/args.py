"""Command-line helpers every command shares: the seconds parsers of --timeout, one-line errors on
stderr, and keeping stdout clean while probes run."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from torch_envcheck._util.escape import terminal


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


def error(message: str) -> None:
    """One line on stderr; the message may quote input, so it is escaped for the terminal."""
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
