"""A torch-envcheck process always ends: what no probe deadline reaches (the interpreter's exit
joining a thread a library left behind, a main thread stuck in the probes) is bounded by the
process watchdog, which names what hung and dumps every thread's stack."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _run(code: str, timeout: float = 60.0) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONPATH=REPO, NO_COLOR="1")
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=timeout)
    return proc, time.monotonic() - t0


def test_a_hung_exit_ends_with_the_commands_status_and_its_output_delivered():
    # A non-daemon thread that never ends: without the watchdog the interpreter's exit joins it for ever.
    proc, seconds = _run("""
        import sys, threading
        from torch_envcheck import cli
        cli.EXIT_S = 1.0
        threading.Thread(target=threading.Event().wait, name="stuck-library-thread").start()
        sys.argv = ["torch-envcheck", "explain", "--no-probe", "RuntimeError: CUDA error: out of memory"]
        sys.exit(cli.script())
    """)
    assert seconds < 30, seconds
    assert proc.returncode in (0, 1), proc.stderr[-2000:]  # explain's own status, not the watchdog's
    assert "out of memory" in proc.stdout.lower()           # written before the exit hung, and delivered
    assert "gave up after 1 s: the process's exit" in proc.stderr
    assert "stuck-library-thread" in proc.stderr or "Thread 0x" in proc.stderr  # the stacks, to fix it


def test_a_hung_probe_phase_ends_with_one_line_naming_it():
    proc, seconds = _run("""
        import sys, threading
        from torch_envcheck import cli, doctor
        from torch_envcheck.commands import _source
        from torch_envcheck.doctor import probes
        probes.worst_case_s = lambda *a, **k: 0.5
        _source.PROBE_SLACK_S = 0.5
        doctor.collect = lambda **kw: threading.Event().wait()   # a main thread that never comes back
        sys.argv = ["torch-envcheck", "--json"]
        sys.exit(cli.script())
    """)
    assert seconds < 30, seconds
    assert proc.returncode == 2
    assert "gave up after 1 s: probing this machine did not finish" in proc.stderr
    assert "Traceback" not in proc.stderr.split("did not finish")[0]


def test_a_hung_report_phase_ends_with_one_line_naming_it(tmp_path):
    snap = tmp_path / "snap.json"
    proc, _ = _run(f"""
        import sys
        from torch_envcheck import cli
        from torch_envcheck.commands import doctor as cmd
        from torch_envcheck.doctor import report
        cmd.REPORT_S = 0.5
        report.build = lambda snapshot: __import__("time").sleep(3600)
        sys.argv = ["torch-envcheck", "--from-json", {str(REPO + "/tests/snapshots/devbox_probed_cuda_ext_built.json")!r}]
        sys.exit(cli.script())
    """)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "gave up after 0.5 s: building and writing the report did not finish" in proc.stderr


def test_a_hung_start_ends_with_one_line_naming_it():
    proc, seconds = _run("""
        import sys, time
        from torch_envcheck import cli
        cli.START_S = 0.5
        cli.parse = lambda argv: time.sleep(3600)   # as if an import or the parser never came back
        sys.argv = ["torch-envcheck", "--json"]
        sys.exit(cli.script())
    """)
    assert seconds < 30 and proc.returncode == 2, proc.stderr[-2000:]
    assert "gave up after 0.5 s: starting" in proc.stderr


def test_work_finished_in_time_disarms_the_deadline():
    proc, seconds = _run("""
        import time
        from torch_envcheck._util import watchdog
        watchdog.owned = True
        guard = watchdog.arm(0.5, "short work")
        watchdog.disarm(guard)
        time.sleep(1.5)   # past the deadline (and faulthandler's backstop is cancelled too)
        print("finished")
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "finished", proc.stderr
    assert "gave up" not in proc.stderr


def test_a_caller_that_imported_the_package_is_never_bounded():
    from torch_envcheck._util import watchdog

    assert watchdog.owned is False
    assert watchdog.arm(0.01, "anything") is None
    time.sleep(0.05)  # still here: nothing fired


def test_the_toolchain_probe_leaves_no_thread_the_exit_would_join(monkeypatch):
    from torch_envcheck.doctor.probes import toolchain_probe

    seen = []

    def record(*args):
        seen.append(threading.current_thread().daemon)
        return None

    monkeypatch.setattr(toolchain_probe, "_host_compiler", record)
    monkeypatch.setattr(toolchain_probe, "_ninja", record)
    out = toolchain_probe.probe(timeout=2.0, env={"PATH": ""})
    assert seen == [True, True]
    assert out["host_compiler"] is None and out["ninja"] is None


def test_loading_the_doctor_is_bounded_too():
    # Between the start's deadline and the probes' own: the doctor's imports (a hung import here
    # once left a process silent past a 180 s test limit).
    proc, seconds = _run("""
        import sys, time
        from torch_envcheck import cli
        from torch_envcheck.commands import _source, doctor as cmd
        cmd.REPORT_S = 0.5
        _source.snapshot = lambda args, only=None: time.sleep(3600)   # loading never comes back
        sys.argv = ["torch-envcheck", "--json"]
        sys.exit(cli.script())
    """)
    assert seconds < 30 and proc.returncode == 2, proc.stderr[-2000:]
    assert "gave up after 0.5 s: loading the doctor's probes and rules did not finish" in proc.stderr


def test_sigusr2_prints_every_threads_stack_and_the_doctor_goes_on(tmp_path):
    import signal

    if not hasattr(signal, "SIGUSR2"):
        import pytest
        pytest.skip("no SIGUSR2 on this platform")
    marker = tmp_path / "in-collect"
    code = f"""
        import sys, time
        from torch_envcheck import cli
        from torch_envcheck.commands import _source

        def slow(args, only=None):
            open({str(marker)!r}, "w").close()
            time.sleep(4)
            return None   # as if the snapshot failed: the doctor exits with 2, its own status
        _source.snapshot = slow
        sys.argv = ["torch-envcheck", "--json"]
        sys.exit(cli.script())
    """
    env = dict(os.environ, PYTHONPATH=REPO, NO_COLOR="1")
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), "the doctor never reached its probes"
        proc.send_signal(signal.SIGUSR2)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2, err[-2000:]                 # it went on and ended as it would have
    assert "most recent call first" in err and "in slow" in err, err[-2000:]
