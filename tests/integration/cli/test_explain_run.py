"""`torch-envcheck run -- CMD`: the command runs unchanged (stdin, stdout, stderr passed through, its
exit status and its death by a signal preserved) and is explained afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from _explain_helpers import child_env, cli, default_signals, snapshot

PY = sys.executable
KNOWN = "import sys; sys.stderr.write('Traceback (most recent call last):\\nRuntimeError: The NVIDIA driver on your system is too old (found version 11040)\\n'); sys.exit(1)"


def run(*argv, **kw) -> subprocess.CompletedProcess:
    return cli("run", *argv, **kw)


def test_success_passes_stdout_through_untouched():
    data = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4); sys.stdout.flush()"
    p = run("--no-probe", "--", PY, "-c", data)
    assert p.returncode == 0 and p.stdout == bytes(range(256)) * 4
    assert b"torch-envcheck run:" in p.stderr  # the GPU-use line goes to stderr, never stdout


def test_recognised_failure_is_explained_after_the_commands_output():
    p = run("--no-probe", "--", PY, "-c", KNOWN)
    err = p.stderr.decode()
    assert p.returncode == 1 and p.stdout == b""
    assert err.index("Traceback (most recent call last)") < err.index("the command failed with exit status 1")
    assert "driver-too-old" in err and "CUDA up to 11.4" in err


def test_unrecognised_failure():
    p = run("--no-probe", "--", PY, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(5)")
    assert p.returncode == 5
    assert b"boom\n" in p.stderr and b"holds no environment error" in p.stderr


def test_reads_stdin():
    p = run("--no-probe", "--", PY, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())", input="some data\n")
    assert p.returncode == 0 and p.stdout == b"SOME DATA\n"


@pytest.mark.parametrize("code", [0, 1, 3, 42, 255])
def test_exit_status_is_the_commands(code):
    assert run("--no-probe", "-q", "--", PY, "-c", f"raise SystemExit({code})").returncode == code


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL", "SIGINT"])
def test_death_by_signal_is_reproduced(sig, tmp_path):
    num = getattr(signal, sig)
    p = run("--no-probe", "--", PY, "-c", f"import os, signal; os.kill(os.getpid(), {int(num)})", cwd=tmp_path)
    assert p.returncode == -num  # we died by the same signal, as the shell will see
    assert f"was killed by {sig}".encode() in p.stderr
    assert not [f for f in os.listdir(tmp_path) if f.startswith("core")]  # and dumped no core of our own


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_signals_are_forwarded_to_the_command(sig, tmp_path):
    ready = tmp_path / "ready"
    child = f"import time, pathlib; pathlib.Path({str(ready)!r}).write_text('1'); time.sleep(60)"
    proc = subprocess.Popen([PY, "-m", "torch_envcheck", "run", "--no-probe", "--", PY, "-c", child],
                            env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=default_signals,  # as at a terminal (xdist's workers ignore SIGINT)
                            start_new_session=True)  # no controlling terminal: nothing else sends the signal
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        proc.send_signal(getattr(signal, sig))
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -getattr(signal, sig), err.decode()


def _ignore_sighup() -> None:
    default_signals()
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as `nohup torch-envcheck run -- CMD` starts it


def test_a_signal_ignored_at_start_stays_ignored(tmp_path):
    """Under nohup SIGHUP is ignored by `run`: a hangup sent to it is not passed on, even to a command that
    takes SIGHUP back (as servers do to reload), and the command's own exit status comes back."""
    ready = tmp_path / "ready"
    child = ("import pathlib, signal, time; signal.signal(signal.SIGHUP, signal.SIG_DFL); "
             f"pathlib.Path({str(ready)!r}).write_text('1'); time.sleep(1); raise SystemExit(3)")
    proc = subprocess.Popen([PY, "-m", "torch_envcheck", "run", "--no-probe", "-q", "--", PY, "-c", child],
                            env=child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_ignore_sighup, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
            time.sleep(0.05)
        proc.send_signal(signal.SIGHUP)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, err.decode()


def test_no_command_is_a_usage_error():
    for argv in ((), ("--",)):
        p = run(*argv)
        assert p.returncode == 2 and b"run needs a command" in p.stderr


def test_command_not_found_and_not_executable(tmp_path):
    assert run("--no-probe", "--", str(tmp_path / "no-such-program")).returncode == 127
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    assert run("--no-probe", "--", str(script)).returncode == 126


def test_a_bad_saved_report_is_refused_before_the_command_runs(tmp_path):
    marker = tmp_path / "ran"
    p = run("--from-json", str(tmp_path / "missing.json"), "--", PY, "-c", f"open({str(marker)!r}, 'w')")
    assert p.returncode == 2 and not marker.exists()


def test_large_stderr_streams_through_and_only_its_end_is_explained():
    # 8 MiB through a pipe: the command must never block on it, and every byte arrives.
    body = "import sys; [sys.stderr.write('x' * 1023 + '\\n') for _ in range(8192)]; " + KNOWN.split("; ", 1)[1]
    p = run("--no-probe", "--", PY, "-c", body)
    assert p.returncode == 1 and p.stderr.count(b"x" * 1023 + b"\n") == 8192
    assert b"driver-too-old" in p.stderr


def test_success_says_why_no_gpu_could_be_used():
    p = run("--from-json", snapshot("cpu_venv_no_gpu.json"), "--", PY, "-c", "pass")
    err = p.stderr.decode()
    assert p.returncode == 0
    assert "this job could not have used a GPU" in err and "[TE203]" in err and "CPU-only build" in err


def test_failure_is_checked_against_the_saved_report():
    p = run("--from-json", snapshot("old_driver_535_cu130.json"), "--", PY, "-c", KNOWN)
    err = p.stderr.decode()
    assert p.returncode == 1 and "on the saved report" in err and "TE302" in err


FAKE_NVML = '''
"""A stand-in for nvidia-ml-py: one GPU whose compute process is the pid written to FAKE_NVML_PIDFILE."""
import os

class _P:
    def __init__(self, pid, mem):
        self.pid, self.usedGpuMemory = pid, mem

class _S:
    def __init__(self, pid, sm, ts):
        self.pid, self.smUtil, self.timeStamp = pid, sm, ts

def _pid():
    try:
        with open(os.environ["FAKE_NVML_PIDFILE"]) as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return None

def nvmlInit(): pass
def nvmlShutdown(): pass
def nvmlDeviceGetCount(): return 1
def nvmlDeviceGetHandleByIndex(i): return i
def nvmlDeviceGetName(h): return b"Fake GPU"
def nvmlDeviceGetComputeRunningProcesses(h):
    pid = _pid()
    return [] if pid is None else [_P(pid, 512 * 1024 * 1024)]
class NVMLError_NotSupported(Exception):
    pass

class _Rates:
    gpu = 33

def nvmlDeviceGetProcessUtilization(h, ts):
    if os.environ["FAKE_NVML_SM"] == "unsupported":
        raise NVMLError_NotSupported()
    pid = _pid()
    return [] if pid is None else [_S(pid, int(os.environ["FAKE_NVML_SM"]), ts + 1)]

def nvmlDeviceGetUtilizationRates(h):
    return _Rates()
'''


def _with_fake_nvml(tmp_path, sm, job: str):
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "pynvml.py").write_text(FAKE_NVML)
    env = child_env(PYTHONPATH_FIRST=str(tmp_path / "fake"), FAKE_NVML_PIDFILE=str(tmp_path / "pid"), FAKE_NVML_SM=str(sm))
    return run("--no-probe", "--", PY, "-c", job, env=env)


def test_gpu_use_from_nvml_per_process_accounting(tmp_path):
    # the job's child process holds the "GPU": a descendant counts as the job
    job = ("import os, subprocess, sys, time; subprocess.run([sys.executable, '-c', "
           f"\"import os, time; open({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid())); time.sleep(1.0)\"])")
    p = _with_fake_nvml(tmp_path, 70, job)
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert "this job used GPU 0 (Fake GPU): up to 512 MiB" in err and "SM utilisation mean 70%" in err
    assert "idle" not in err


def test_idle_gpu_is_called_out(tmp_path):
    job = f"import os, time; open({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid())); time.sleep(1.0)"
    err = _with_fake_nvml(tmp_path, 2, job).stderr.decode()
    assert "SM utilisation mean 2%" in err and "sat mostly idle" in err


def test_device_utilisation_when_per_process_samples_are_not_supported(tmp_path):
    job = f"import os, time; open({str(tmp_path / 'pid')!r}, 'w').write(str(os.getpid())); time.sleep(1.0)"
    err = _with_fake_nvml(tmp_path, "unsupported", job).stderr.decode()
    assert "this job used GPU 0 (Fake GPU)" in err and "SM utilisation mean 33%" in err


def test_a_gpu_process_that_is_not_the_job_does_not_count(tmp_path):
    (tmp_path / "pid").write_text(str(os.getpid()))  # this test process "uses the GPU", the job does not
    err = _with_fake_nvml(tmp_path, 90, "import time; time.sleep(0.8)").stderr.decode()
    assert "this job never appeared on a GPU" in err and "used GPU" not in err


def test_a_background_process_holding_stderr_does_not_keep_run_waiting(tmp_path):
    # The command exits at once; the `sleep` it leaves behind keeps the stderr pipe open for 20 s.
    # `run` itself ends at once (a relay keeps passing that pipe on, as the shell's own stderr would
    # stay open for the sleep without `run`).
    log = tmp_path / "err"
    t0 = time.monotonic()
    with open(log, "wb") as err:
        p = subprocess.Popen([sys.executable, "-m", "torch_envcheck", "run", "--no-probe", "-q", "--", "sh", "-c",
                              "sleep 20 >/dev/null & echo started >&2; exit 3"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err, env=child_env(), preexec_fn=default_signals)
        assert p.wait(timeout=60) == 3
    assert time.monotonic() - t0 < 15  # it did not wait for the sleep
    assert b"started" in log.read_bytes()


def test_a_real_torch_cuda_failure_is_explained_against_this_machine():
    # torch's own words on this machine, not a recorded text: a CPU build says "Torch not compiled
    # with CUDA enabled", a CUDA build without a driver "Found no NVIDIA driver on your system"; the
    # live probe must then find the cause here (TE203 / TE202, or TE301).
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("CUDA works here: this failure cannot be produced")
    p = run("--timeout", "30", "--", PY, "-c", "import torch; torch.zeros(1, device='cuda')", timeout=240)
    err = p.stderr.decode()
    assert p.returncode == 1, err
    assert "the command failed with exit status 1." in err
    assert any(s in err for s in ("torch-not-compiled-with-cuda", "no-nvidia-driver", "cuda-driver-insufficient")), err
    assert "on this machine: " in err and "none of these causes shows" not in err, err
