"""Test helpers for the doctor's tests (not a test module).

run_cli() runs the `torch-envcheck` command line of this checkout in a subprocess
(`python -m torch_envcheck ARGS...`); run_inprocess() runs it in this process, capturing its
output; fake_program() writes a shell script that stands in for a
program such as nvidia-smi or nvcc.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import time

from paths import REPO


def fake_program(directory, name: str, body: str) -> str:
    """An executable /bin/sh script `directory/name` running `body`; returns its path."""
    path = os.path.join(str(directory), name)
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def run_cli(python: str, args: list[str], env: dict | None = None, drop: tuple = (), timeout: float = 120,
            path_prefix: str | None = None) -> subprocess.CompletedProcess:
    """Run the command line with `python`; env entries replace os.environ's, `drop` removes some."""
    e = {k: v for k, v in os.environ.items() if k not in drop}
    e.update(env or {})
    e["PYTHONPATH"] = REPO + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.setdefault("TORCH_ENVCHECK_CACHE", os.path.join(REPO, ".pytest_cache", "te-cache"))
    if path_prefix:
        e["PATH"] = path_prefix + os.pathsep + e.get("PATH", "")
    argv = [python, "-m", "torch_envcheck"] + list(args)
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, cwd=REPO)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(_hung(proc, argv, timeout)) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _hung(proc: subprocess.Popen, argv: list, timeout: float) -> str:
    """What a run that outlived `timeout` was doing: the doctor prints every thread's stack on
    SIGUSR2 (_util/watchdog.stacks_on_request); then it is killed.  Never waits unbounded (a
    grandchild may hold the pipes)."""
    if proc.poll() is None and hasattr(signal, "SIGUSR2"):
        proc.send_signal(signal.SIGUSR2)
        time.sleep(3)
    alive = proc.poll() is None
    proc.kill()
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        out, err = "", "(its output pipes are still held open, by a process it left behind)"
    state = "still running" if alive else f"exited with {proc.returncode}, its pipes held open"
    return (f"{' '.join(argv[1:])} did not finish within {timeout:g} s ({state}); stdout tail:\n"
            f"{(out or '')[-2000:]}\nstderr tail (thread stacks):\n{(err or '')[-8000:]}")


def run_inprocess(argv) -> tuple:
    """(exit status, stdout, stderr) of `torch-envcheck ARGV` run in this process."""
    import io  # noqa: PLC0415
    from contextlib import redirect_stderr, redirect_stdout  # noqa: PLC0415

    from torch_envcheck import cli  # noqa: PLC0415

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def run_words(*argv) -> tuple[int, str, str]:
    """run_inprocess with the arguments as words: run_words("advise", "--json")."""
    return run_inprocess(list(argv))
