"""Orphans: a helper that exits normally but leaves a background process behind (an nvcc
wrapper, a torch or TensorFlow import that spawns something) leaves nothing running once its run
ends: every child runs in a session of its own, and its whole process group is killed whenever the
run ends, normally or not (_util/proc.py).  Also: a daemon that holds the output pipe does not keep
the caller waiting for the pipe's end."""

from __future__ import annotations

import os
import sys
import textwrap
import time

from doctor_support import fake_program, run_cli
from hostile_support import finishes_within, posix_only, wait_gone

pytestmark = posix_only


def _orphaning_program(tmp_path, name: str, pidfile, hold_pipe: bool) -> str:
    # The background sleep keeps stdout open (hold_pipe) or not; the program itself exits 0 at once.
    redirect = "" if hold_pipe else " >/dev/null 2>&1"
    return fake_program(tmp_path, name, f"sleep 300{redirect} &\necho $! > {pidfile}\necho 'nvcc: release 12.4, V12.4.131'\nexit 0")


def test_a_helper_that_exits_leaves_no_background_process(tmp_path):
    from torch_envcheck._util import proc

    pidfile = tmp_path / "bg.pid"
    prog = _orphaning_program(tmp_path, "nvcc", pidfile, hold_pipe=False)
    rc, out, _err = finishes_within(30, proc.run, [prog, "--version"], 10.0)
    assert rc == 0 and "release 12.4" in out
    assert wait_gone(int(pidfile.read_text())), "the helper's background process outlived its run"


def test_a_daemon_holding_the_pipe_does_not_hang_the_caller(tmp_path):
    from torch_envcheck._util import proc

    pidfile = tmp_path / "bg.pid"
    prog = _orphaning_program(tmp_path, "nvcc", pidfile, hold_pipe=True)
    t0 = time.monotonic()
    rc, out, _err = finishes_within(30, proc.run, [prog, "--version"], 20.0)
    assert rc == 0 and "release 12.4" in out
    assert time.monotonic() - t0 < 10  # the program's exit ends the run, not the pipe's EOF (300 s away)
    assert wait_gone(int(pidfile.read_text()))


def test_an_escaped_daemon_holding_the_pipe_is_left_but_not_waited_for(tmp_path):
    """A process that left the group (setsid) cannot be killed with it; its pipe is read for a short
    grace only, and the run says the pipes were held."""
    from torch_envcheck._util import proc

    pidfile = tmp_path / "bg.pid"
    # (the short sleep lets the daemon leave the group before the wrapper exits)
    prog = fake_program(tmp_path, "escaper", f"setsid sleep 300 &\necho $! > {pidfile}\nsleep 0.5\necho done")
    try:
        res = finishes_within(30, proc.run_capped, [prog], 20.0)
        assert res.returncode == 0 and b"done" in res.stdout and res.pipes_held
    finally:
        try:
            os.kill(int(pidfile.read_text()), 9)
        except (OSError, ValueError):
            pass


def test_toolchain_probe_leaves_no_nvcc_child(tmp_path):
    from torch_envcheck.doctor.probes import toolchain_probe

    pidfile = tmp_path / "bg.pid"
    bin_dir = tmp_path / "cuda" / "bin"
    bin_dir.mkdir(parents=True)
    _orphaning_program(bin_dir, "nvcc", pidfile, hold_pipe=True)
    env = {"PATH": str(bin_dir) + os.pathsep + "/usr/bin:/bin", "CUDA_HOME": str(tmp_path / "cuda")}
    out = finishes_within(60, toolchain_probe.probe, timeout=10.0, env=env)
    assert any(c.get("version") for c in out["nvcc"]), out["nvcc"]
    assert wait_gone(int(pidfile.read_text()))


def _fake_pkg(tmp_path, name: str, body: str) -> str:
    root = tmp_path / f"fake-{name}"
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(textwrap.dedent(body))
    return str(root)


def test_torch_and_tensorflow_imports_that_spawn_leave_nothing(tmp_path):
    """A fake torch and a fake TensorFlow whose imports start a background sleep and then finish
    normally: once the doctor has exited, neither sleep runs."""
    spawn = """
        import subprocess
        p = subprocess.Popen(["sleep", "300"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        open({pidfile!r}, "w").write(str(p.pid))
        __version__ = {version!r}
    """
    torch_pid, tf_pid = tmp_path / "torch.pid", tmp_path / "tf.pid"
    t = _fake_pkg(tmp_path, "torch", spawn.format(pidfile=str(torch_pid), version="9.9.9"))
    f = _fake_pkg(tmp_path, "tensorflow", spawn.format(pidfile=str(tf_pid), version="2.99.0"))
    proc = run_cli(sys.executable, ["--json", "--timeout", "20"],
                   env={"PYTHONPATH": os.pathsep.join([t, f]), "NO_COLOR": "1"}, timeout=180)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert torch_pid.exists() and tf_pid.exists(), "the fake imports did not run"
    assert wait_gone(int(torch_pid.read_text())), "the torch import's background process outlived the doctor"
    assert wait_gone(int(tf_pid.read_text())), "the TensorFlow import's background process outlived the doctor"


def test_a_doctor_stopped_by_sigterm_takes_its_children_along(tmp_path):
    """SIGTERM while the probes run (a torch import that hangs and has started a helper): the doctor
    ends through SystemExit, and the children it started in their own sessions go with it."""
    import signal
    import subprocess

    from doctor_support import REPO

    pidfile = tmp_path / "grandchild.pid"
    root = _fake_pkg(tmp_path, "torch", f"""
        import subprocess, time
        p = subprocess.Popen(["sleep", "300"])
        open({str(pidfile)!r}, "w").write(str(p.pid))
        time.sleep(300)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, root]), NO_COLOR="1")
    doctor = subprocess.Popen([sys.executable, "-m", "torch_envcheck", "--json", "--timeout", "120"], env=env, cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 120
        while not pidfile.exists() and time.monotonic() < end and doctor.poll() is None:
            time.sleep(0.05)
        assert pidfile.exists(), "the fake torch import never started"
        time.sleep(0.2)
        doctor.send_signal(signal.SIGTERM)
        doctor.wait(60)
    finally:
        if doctor.poll() is None:
            doctor.kill()
    assert doctor.returncode == 143
    assert wait_gone(int(pidfile.read_text())), "the torch child's helper outlived the doctor"
