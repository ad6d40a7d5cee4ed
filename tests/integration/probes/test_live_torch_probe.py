"""The torch probe imports torch in a child process: a torch that hangs, ends the process or dies on
a signal becomes a finding within --timeout, through the real command line, and the report prints.
Fake torch packages (a torch/__init__.py doing the bad thing) stand first on PYTHONPATH."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time

import pytest

from doctor_support import run_cli

posix_only = pytest.mark.skipif(os.name != "posix", reason="signals and process groups are POSIX")

ONEMKL = "Intel oneMKL FATAL ERROR: Cannot load libmkl_avx2.so.2 or libmkl_def.so.2."


def _fake_torch(tmp_path, body: str) -> str:
    root = tmp_path / "fake"
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(textwrap.dedent(body))
    return str(root)


def _doctor(root: str, *args: str, timeout_s: str = "4"):
    t0 = time.monotonic()
    proc = run_cli(sys.executable, ["--timeout", timeout_s, *args], env={"PYTHONPATH": root, "NO_COLOR": "1"},
                   timeout=180)
    return proc, time.monotonic() - t0


def _report(proc) -> dict:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _torch_finding(rep: dict) -> dict:
    found = [f for f in rep["findings"] if f["code"] == "TE201"]
    assert len(found) == 1, [f["code"] for f in rep["findings"]]
    return found[0]


@posix_only
def test_hanging_import_is_stopped_with_its_children_and_reported(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    root = _fake_torch(tmp_path, f"""
        import subprocess, time
        p = subprocess.Popen(["sleep", "300"])
        open({str(pidfile)!r}, "w").write(str(p.pid))
        time.sleep(300)
    """)
    proc, seconds = _doctor(root, "--json", timeout_s="3")
    rep = _report(proc)
    t = rep["snapshot"]["torch"]
    assert t["importable"] is False and t["import_process"]["timed_out"] is True
    assert t["import_process"]["limit_s"] == 3
    assert "did not finish within 3 s" in t["import_error"]
    f = _torch_finding(rep)
    assert f["severity"] == "failure" and "--timeout" in f["fix"]
    assert rep["exit_status"] == 1
    # bounded: the 3 s limit, plus this busy machine's interpreter start-ups, far below the 300 s hang
    assert seconds < 60
    # the whole process group went: the sleep the fake torch started is not left behind
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    assert not _alive(pid), f"orphan process {pid} survived the torch probe"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except OSError:
            return False


@posix_only
def test_onemkl_exit_becomes_a_finding_with_its_message(tmp_path):
    root = _fake_torch(tmp_path, f"""
        import os, sys
        sys.stderr.write({ONEMKL!r} + "\\n"); sys.stderr.flush()
        os._exit(1)
    """)
    proc, _ = _doctor(root, "--json")
    rep = _report(proc)
    t = rep["snapshot"]["torch"]
    assert t["import_process"]["returncode"] == 1 and t["import_process"]["signal"] is None
    assert ONEMKL in t["import_process"]["stderr_tail"]
    assert "exit status 1" in t["import_error"] and "oneMKL FATAL ERROR" in t["import_error"]
    f = _torch_finding(rep)
    assert "oneMKL" in f["message"] and "ended the whole Python process" in f["explanation"]
    # the extension probe does not import the broken torch again
    assert rep["snapshot"]["extension"]["status"]["state"] == "torch-missing"


@posix_only
@pytest.mark.parametrize("sig, words", [("SIGSEGV", "native library"), ("SIGILL", "CPU instructions")])
def test_signal_during_import_becomes_a_finding(tmp_path, sig, words):
    root = _fake_torch(tmp_path, f"""
        import os, signal
        signal.signal(signal.{sig}, signal.SIG_DFL)
        os.kill(os.getpid(), signal.{sig})
    """)
    proc, _ = _doctor(root, "--json")
    rep = _report(proc)
    t = rep["snapshot"]["torch"]
    assert t["import_process"]["signal"] == sig and t["importable"] is False
    assert f"killed the Python process with {sig}" in t["import_error"]
    assert words in _torch_finding(rep)["explanation"]


@posix_only
def test_terminal_report_still_prints_when_torch_crashes(tmp_path):
    root = _fake_torch(tmp_path, """
        import os, signal
        os.kill(os.getpid(), signal.SIGSEGV)
    """)
    proc, _ = _doctor(root)
    assert proc.returncode == 1, proc.stderr
    assert "TE201" in proc.stdout and "SIGSEGV" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_forged_protocol_lines_on_stdout_are_not_facts(tmp_path):
    # Whatever torch prints on stdout goes to stderr: it cannot pass itself off as the facts.
    root = _fake_torch(tmp_path, """
        import os, sys
        print('{"section": "torch", "facts": {"importable": true, "version": "9.9"}}', flush=True)
        os.write(1, b'{"section": "torch", "facts": {"importable": true}}\\n')
        sys.exit(3)
    """)
    proc, _ = _doctor(root, "--json")
    t = _report(proc)["snapshot"]["torch"]
    assert t["importable"] is False and t["version"] != "9.9"
    assert "SystemExit: 3" in t["import_error"]


def test_numpy_warning_becomes_a_fact_and_stays_off_the_terminal(tmp_path):
    root = _fake_torch(tmp_path, """
        import warnings
        __version__ = "2.13.0+cpu"
        class version:
            cuda = None
            hip = None
        warnings.warn("Failed to initialize NumPy: No module named 'numpy' (Triggered internally at "
                      "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)", UserWarning)
    """)
    proc, _ = _doctor(root)
    assert "Failed to initialize NumPy" not in proc.stderr
    assert "TE250" in proc.stdout and "tensor.numpy()" in proc.stdout
    proc, _ = _doctor(root, "--json")
    rep = _report(proc)
    assert rep["snapshot"]["torch"]["numpy_error"] == "Failed to initialize NumPy: No module named 'numpy'"
    assert rep["snapshot"]["torch"]["importable"] is True
    assert [f["severity"] for f in rep["findings"] if f["code"] == "TE250"] == ["warning"]


def test_healthy_torch_has_no_numpy_finding_when_numpy_loads():
    pytest.importorskip("numpy")
    from torch_envcheck.doctor.rules import torch_rules

    snap = {"torch": {"importable": True, "numpy_error": None}}
    assert torch_rules.numpy_missing(snap) == []
    snap["torch"]["numpy_error"] = "Failed to initialize NumPy: _ARRAY_API not found"
    assert [f["code"] for f in torch_rules.numpy_missing(snap)] == ["TE250"]
    snap["torch"]["importable"] = False
    assert torch_rules.numpy_missing(snap) == []


def test_a_real_torch_gives_facts_from_the_child():
    torch = pytest.importorskip("torch")
    from torch_envcheck.doctor.probes import torch_probe

    t = torch_probe.probe(timeout=120)
    assert t["importable"] is True and t["version"] == torch.__version__
    assert t["import_process"]["returncode"] == 0 and t["import_process"]["stderr_tail"] is None
    assert t["cuda"] == torch.version.cuda


@posix_only
def test_a_crash_while_loading_the_extension_keeps_the_torch_facts(tmp_path):
    # torch imports; the child dies later, when the extension probe asks torch for its version again.
    root = _fake_torch(tmp_path, """
        import os, signal, types
        __version__ = "2.13.0+cpu"
        _asked = []
        def __getattr__(name):
            if name == "version":
                _asked.append(name)
                if len(_asked) > 1:
                    os.kill(os.getpid(), signal.SIGSEGV)
                return types.SimpleNamespace(cuda=None, hip=None)
            raise AttributeError(name)
    """)
    proc, _ = _doctor(root, "--json")
    snap = _report(proc)["snapshot"]
    assert snap["torch"]["importable"] is True and snap["torch"]["version"] == "2.13.0+cpu"
    assert snap["torch"]["import_process"]["signal"] == "SIGSEGV"
    st = snap["extension"]["status"]
    assert st["state"] == "broken" and "died with SIGSEGV while loading the extension" in st["error"]
