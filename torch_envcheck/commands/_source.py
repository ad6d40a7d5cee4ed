"""Where a command's snapshot comes from: `--from-json FILE` (a saved report or snapshot) or the
probes of this machine (`--timeout`, `--no-tensorflow`).  Shared by doctor, advise, readme-line,
pin and the other commands that diagnose."""

from __future__ import annotations

import argparse
import contextlib

from torch_envcheck._util import signalled
from torch_envcheck._util.args import error, seconds, stdout_to_stderr

__all__ = ["add_source", "snapshot", "with_request", "error", "seconds", "stdout_to_stderr", "terminate_as_exit"]


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
    parser.add_argument("--framework", choices=("torch", "tensorflow", "both"), default=None,
                        help="judge the environment for this framework (default: those it holds; torch where it "
                             "holds none): no torch in a TensorFlow env is a note, not a failure")
    parser.add_argument("--shell", choices=("cmd", "powershell", "sh"), default=None,
                        help="write fix commands for this shell (default: the one torch-envcheck runs in; on "
                             "Windows, when it cannot tell cmd.exe from PowerShell, lines valid in both)")


def with_request(snap: dict, args) -> dict:
    """The snapshot with what the command line asked for (--framework, --shell) in its "request":
    kept in the snapshot, so a saved report is judged again the same way; a flag given now wins."""
    framework = getattr(args, "framework", None)
    shell = getattr(args, "shell", None)
    if framework is None and shell is None:
        return snap
    from torch_envcheck.facts import core as F  # noqa: PLC0415
    asked = F.request(snap)
    request = {"frameworks": list(asked.frameworks), "shell": asked.shell}
    if framework is not None:
        request["frameworks"] = ["torch", "tensorflow"] if framework == "both" else [framework]
    if shell is not None:
        request["shell"] = shell
    return {**snap, "request": request}


def snapshot(args, only=None) -> dict | None:
    """The snapshot to work on; None after printing the error (the caller exits with 2)."""
    from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415

    path = getattr(args, "from_json", None)
    if path is not None:  # '' is a mistake to report, never a reason to probe this machine
        try:
            return with_request(load(path), args)
        except SnapshotError as exc:
            error(str(exc))
            return None
    from torch_envcheck.doctor import collect, probes  # noqa: PLC0415
    from torch_envcheck._util import watchdog  # noqa: PLC0415
    limit = getattr(args, "timeout", None)
    tensorflow = not getattr(args, "no_tensorflow", False)
    # Each probe has its deadline already; this bounds what no deadline of theirs reaches (the main
    # thread, a lock an abandoned probe holds), with room for a machine under heavy load.
    bound = probes.worst_case_s(limit or 5.0, limit, tensorflow) + PROBE_SLACK_S
    guard = watchdog.arm(bound, "probing this machine")
    try:
        with stdout_to_stderr(), terminate_as_exit():
            return with_request(collect(timeout=limit or 5.0, only=only, torch_timeout=limit,
                                        tensorflow=tensorflow), args)
    finally:
        watchdog.disarm(guard)


# What collecting the snapshot may take beyond the probes' own deadlines: reading metadata, fitting
# and normalising the snapshot.
PROBE_SLACK_S = 60.0


@contextlib.contextmanager
def terminate_as_exit():
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
