"""Helpers for the hostile-input tests in tests/integration/hostile (not a test module): FIFOs where
files are expected, a time guard that turns a hang into a failure, process liveness, and the peak
memory of a command.

finishes_within() runs the code under test on a daemon thread and fails the test when it has not
returned in time: a regression that blocks on a FIFO fails within seconds instead of hanging the
test session (the thread is left behind; it holds nothing but a blocked open()).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, signals and process groups are POSIX")


def make_fifo(path) -> str:
    path = str(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    return path


def finishes_within(seconds: float, fn, *args, **kwargs):
    """fn(*args, **kwargs) on a daemon thread; its value (or its exception, re-raised); the test
    fails when it is still running after `seconds`."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001  (re-raised in the test's thread)
            box["error"] = exc

    th = threading.Thread(target=target, name="hostile-guard", daemon=True)
    t0 = time.monotonic()
    th.start()
    th.join(seconds)
    if th.is_alive():
        pytest.fail(f"{getattr(fn, '__name__', fn)} did not return within {seconds:g} s (blocked?)")
    if "error" in box:
        raise box["error"]
    box["seconds"] = time.monotonic() - t0
    return box.get("value")


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        return False


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


_PEAK = r"""
import json, resource, subprocess, sys, time
spec = json.loads(sys.argv[1])
t0 = time.monotonic()
p = subprocess.run(spec["argv"], env=spec["env"], cwd=spec["cwd"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   stdin=subprocess.DEVNULL, timeout=spec["timeout"])
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # Linux: KiB, the largest descendant
print(json.dumps({"rc": p.returncode, "maxrss_kib": kib, "seconds": time.monotonic() - t0,
                  "stdout": p.stdout.decode("utf-8", "replace")[-200000:],
                  "stderr": p.stderr.decode("utf-8", "replace")[-20000:]}))
"""


def peak_rss(argv, env: dict, cwd: str, timeout: float = 120) -> dict:
    """Run argv from a fresh interpreter and report the peak RSS of the largest process it waited
    for (resource.getrusage(RUSAGE_CHILDREN).ru_maxrss: the command itself, or one of its children,
    whichever was larger), its exit status, output and seconds."""
    spec = json.dumps({"argv": list(argv), "env": env, "cwd": cwd, "timeout": timeout})
    out = subprocess.run([sys.executable, "-c", _PEAK, spec], capture_output=True, text=True, timeout=timeout + 30)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)
