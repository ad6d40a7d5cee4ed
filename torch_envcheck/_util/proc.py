"""Run a helper program (nvidia-smi, nvcc, c++, ninja) with a hard time limit.

subprocess.run(timeout=...) kills only the direct child and then waits for its pipes to close, so a
wrapper script whose own child hangs (a shell script running `sleep`) keeps it waiting.  Here the
program runs in its own session and the whole process group is killed on timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess


class CommandFailed(RuntimeError):
    """The program could not run or did not finish; the message is a one-line fact for the report."""


def run(argv: list[str], timeout: float, env: dict | None = None, shown: str | None = None) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of argv, decoded as UTF-8 with undecodable bytes replaced;
    raises CommandFailed with a readable message naming `shown` (default: the program's name)."""
    # "`nvidia-smi` timed out after 5 s": the program and a short first argument, not the whole query.
    if shown is None:
        shown = os.path.basename(argv[0]) + (f" {argv[1]}" if len(argv) > 1 and len(argv[1]) <= 12 else "")
    kwargs = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                env=env, **kwargs)
    except OSError as exc:
        raise CommandFailed(f"`{shown}` could not run: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        try:
            proc.communicate(timeout=1.0)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
        raise CommandFailed(f"`{shown}` timed out after {timeout:g} s") from None
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process and, on POSIX, everything in its session (it was started with
    start_new_session=True), so a wrapper's children cannot outlive it."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (OSError, ProcessLookupError):
        try:
            proc.kill()
        except OSError:
            pass
