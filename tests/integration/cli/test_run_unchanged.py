"""`torch-envcheck run -- CMD` is indistinguishable from CMD: descriptors it inherited reach the
command (`3>file`), a background job the command leaves behind can still write to stderr after
`run` ended (no SIGPIPE), closed stdout or stderr stay closed for the command and `run` never
writes its own words into the command's stdout, and a SIGTERM while `explain`/`run` checks the
machine ends the torch probe child too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from _explain_helpers import child_env, default_signals

PY = sys.executable
pytestmark = pytest.mark.skipif(os.name != "posix", reason="descriptors, fork and signals as POSIX has them")


def _te(*args) -> list:
    return [PY, "-m", "torch_envcheck", *args]


def _popen(argv, **kw):
    kw.setdefault("preexec_fn", default_signals)
    return subprocess.Popen(argv, env=child_env(), **kw)


def test_an_inherited_descriptor_reaches_the_command(tmp_path):
    out = tmp_path / "three"
    # as a user writes it: `torch-envcheck run -- sh -c 'echo to-three >&3' 3>FILE`
    argv = ["sh", "-c", '"$@" 3>"$0"', str(out), *_te("run", "--no-probe", "-q", "--", "sh", "-c", "echo to-three >&3")]
    p = _popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _o, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert out.read_text() == "to-three\n"


def test_a_background_job_writing_to_stderr_after_run_ended_is_not_killed(tmp_path):
    marker, log = tmp_path / "survived", tmp_path / "stderr.log"
    job = f"(sleep 3; echo late-line >&2; echo ok > {marker}) & echo early >&2; exit 5"
    with open(log, "wb") as err:
        p = _popen(_te("run", "--no-probe", "-q", "--", "sh", "-c", job), stdout=subprocess.DEVNULL, stderr=err)
        assert p.wait(timeout=120) == 5
    end = time.monotonic() + 20
    while time.monotonic() < end and not marker.exists():
        time.sleep(0.1)
    assert marker.exists(), "the background job died writing to stderr after run had ended (SIGPIPE)"
    time.sleep(0.3)
    text = log.read_bytes()
    assert b"early" in text and b"late-line" in text


@pytest.mark.parametrize("closed", [1, 2])
def test_a_closed_stdout_or_stderr_stays_closed_and_the_status_stays(tmp_path, closed):
    # the command says whether its descriptor is open, on the other one; and fails with 3
    probe = ("import os, sys\n"
             f"try:\n    os.fstat({closed}); state = 'open'\nexcept OSError:\n    state = 'closed'\n"
             f"os.write({3 - closed}, ('fd{closed} ' + state + '\\n').encode())\nsys.exit(3)\n")
    script = tmp_path / "probe.py"
    script.write_text(probe)
    inner = _te("run", "--no-probe", "--", PY, str(script))
    # the shell closes the descriptor for `run` itself: `run ... 1>&-` / `2>&-`
    p = _popen(["sh", "-c", '"$@" ' + f"{closed}>&-", "sh", *inner], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 3, (out, err)
    other = out if closed == 2 else err
    assert f"fd{closed} closed".encode() in other, (out, err)
    # run's own words never land in the command's stdout
    assert b"torch-envcheck" not in out and b"Traceback" not in out + err


def test_exit_status_and_signal_are_the_commands():
    p = _popen(_te("run", "--no-probe", "-q", "--", "sh", "-c", "exit 42"), stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
    assert p.wait(timeout=120) == 42
    p = _popen(_te("run", "--no-probe", "-q", "--", "sh", "-c", "kill -USR1 $$"), stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
    assert p.wait(timeout=120) == -signal.SIGUSR1


def _children(pid: int) -> list:
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[-1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                kids.append(int(name))
    return kids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc for the probe child")
@pytest.mark.parametrize("how", ["explain", "run"])
def test_sigterm_during_the_machine_check_ends_the_probe_child(how, tmp_path):
    # a torch whose import takes 60 s: the probe child is surely still running when SIGTERM comes
    fake = tmp_path / "slow" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    if how == "explain":
        argv = _te("explain", "--timeout", "90", error)
    else:
        argv = _te("run", "--timeout", "90", "--", PY, "-c", f"import sys; sys.stderr.write({error!r} + '\\n'); sys.exit(1)")
    p = subprocess.Popen(argv, env=child_env(PYTHONPATH_FIRST=str(tmp_path / "slow")), preexec_fn=default_signals,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    kids: list = []
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and p.poll() is None and not kids:
            kids = [k for k in _children(p.pid) if "_torch_child" in _cmdline(k) or "torch_envcheck" in _cmdline(k)]
            time.sleep(0.02)
        assert kids, "no probe child was seen"
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
        end = time.monotonic() + 5
        while time.monotonic() < end and any(_alive(k) for k in kids):
            time.sleep(0.05)
        assert not any(_alive(k) for k in kids), f"probe children {kids} outlived {how}'s SIGTERM"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for k in kids:  # the children this test saw start, by their ids
            if _alive(k):
                os.kill(k, signal.SIGKILL)


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""
