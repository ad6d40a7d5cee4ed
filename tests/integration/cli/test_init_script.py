"""The env_check.py that `init` writes: it runs with torch alone (torch_envcheck absent), uses
torch_envcheck when present, and its exit status says whether the environment is broken."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import textwrap

import pytest

import torch_envcheck
from torch_envcheck.commands import init as init_cli

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))
QUICK = ["--size", "128", "--repeats", "2"]

# Runs env_check.py as a script in a process where `import <name>` fails as if <name> were not installed,
# for interpreters where it is installed (CI installs torch_envcheck into each venv).
BLOCKED_RUNNER = textwrap.dedent("""\
    import runpy, sys
    blocked, script = sys.argv[1].split(","), sys.argv[2]
    for name in filter(None, blocked):
        sys.modules[name] = None   # makes `import name` raise ImportError
    sys.argv = sys.argv[2:]
    runpy.run_path(script, run_name="__main__")
""")


@pytest.fixture
def script(tmp_path):
    (tmp_path / "env_check.py").write_text(init_cli.template_text())
    return str(tmp_path / "env_check.py")


def _python(kind: str) -> str:
    if kind == "current":
        return sys.executable
    var = {"cuda": "TE_TEST_CUDA_PYTHON", "cpu": "TE_TEST_CPU_PYTHON"}[kind]
    path = os.environ.get(var)
    if not path:
        pytest.skip(f"{var} is not set (see tests/conftest.py)")
    return path


def _env(pythonpath: str | None = None, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ENV_CHECK_REQUIRE_GPU")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    env.update(extra)
    return env


def _run(cmd, cwd, env, timeout=300):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


@functools.lru_cache(maxsize=None)
def _probe(python: str, code: str) -> bool:
    # From the file system root, isolated: only what that interpreter has installed counts.
    return subprocess.run([python, "-I", "-c", code], cwd=os.path.abspath(os.sep), env=_env(),
                          capture_output=True).returncode == 0


def _importable(python: str, name: str, cwd=None) -> bool:
    return _probe(python, f"import {name}")


@functools.lru_cache(maxsize=None)  # one torch import per interpreter, not one per test (seconds each)
def _gpu_usable(python: str) -> bool:
    return _probe(python, "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)")


def _assert_healthy_report(rc, out, python_has_gpu):
    assert "Traceback" not in out, out
    assert rc == 0, out
    assert "torch " in out and "CUDA (torch built)" in out and "cuDNN" in out
    assert "Matmul timing (128 x 128 fp32" in out and "GFLOP/s" in out
    if "CUDA (torch built)     none" not in out and sys.platform.startswith("linux"):
        assert re.search(r"CUDA runtime \(loaded\)  \d+\.\d+ \(/.*libcudart\.so", out), out
    if not python_has_gpu:
        assert "none usable: the CPU only" in out
        assert "OK: this environment works (CPU only" in out


@pytest.mark.parametrize("kind", ["current", "cuda", "cpu"])
def test_runs_where_torch_envcheck_is_not_installed(kind, script, tmp_path):
    python = _python(kind)
    # torch_envcheck first: asking for it is cheap, importing torch is not (CI installs it in every venv)
    if _importable(python, "torch_envcheck", tmp_path):
        pytest.skip(f"torch_envcheck is installed for {python}; test_runs_with_torch_envcheck_blocked covers it")
    if not _importable(python, "torch", tmp_path):
        pytest.skip(f"torch is not importable by {python}")
    # -I: no PYTHONPATH, no user site, no script-directory tricks: only what that venv has installed.
    rc, out = _run([python, "-I", script, *QUICK], tmp_path, _env())
    _assert_healthy_report(rc, out, _gpu_usable(python))
    assert "torch_envcheck: not installed" in out


def test_runs_with_torch_envcheck_blocked(script, tmp_path):
    runner = tmp_path / "runner.py"
    runner.write_text(BLOCKED_RUNNER)
    rc, out = _run([sys.executable, "-I", str(runner), "torch_envcheck", script, *QUICK], tmp_path, _env())
    _assert_healthy_report(rc, out, _gpu_usable(sys.executable))
    assert "torch_envcheck: not installed" in out


def test_reports_cleanly_without_torch(script, tmp_path):
    runner = tmp_path / "runner.py"
    runner.write_text(BLOCKED_RUNNER)
    rc, out = _run([sys.executable, "-I", str(runner), "torch,torch_envcheck", script], tmp_path, _env())
    assert rc == 1, out
    assert "Traceback" not in out
    assert "torch                  NOT IMPORTABLE: ModuleNotFoundError: import of torch halted" in out
    assert "FAILED: this environment is broken" in out and "torch cannot be imported" in out


def test_require_gpu_fails_without_a_gpu(script, tmp_path):
    if _gpu_usable(sys.executable):
        pytest.skip("this machine has a usable GPU")
    for args, env in ((["--require-gpu"], _env()), ([], _env(ENV_CHECK_REQUIRE_GPU="1"))):
        rc, out = _run([sys.executable, "-I", script, "--skip-timing", "--skip-doctor", *args], tmp_path, env)
        assert rc == 1, out
        assert "a GPU is required (--require-gpu / ENV_CHECK_REQUIRE_GPU) but none is usable" in out
    rc, out = _run([sys.executable, "-I", script, "--skip-timing", "--skip-doctor"], tmp_path,
                   _env(ENV_CHECK_REQUIRE_GPU="0"))
    assert rc == 0, out


def test_bad_arguments_exit_2(script, tmp_path):
    rc, out = _run([sys.executable, "-I", script, "--size", "0"], tmp_path, _env())
    assert rc == 2 and "--size and --repeats must be at least 1" in out


FAKE_PACKAGE = '''\
"""Stands in for torch_envcheck: diagnose() returns the findings named by FAKE_FINDINGS."""
import os
__version__ = "9.9.9"
FINDINGS = {
    "failure": {"code": "TE302", "slug": "driver-too-old", "area": "driver", "severity": "failure",
                "message": "the NVIDIA driver 470.00 is too old for CUDA 13.0", "fix": "sudo apt install nvidia-driver-580"},
    "warning": {"code": "TE601", "slug": "nvcc-missing", "area": "toolchain", "severity": "warning",
                "message": "no nvcc", "fix": None},
    "driver_missing": {"code": "TE301", "slug": "driver-missing", "area": "driver", "severity": "failure",
                       "message": "no NVIDIA driver is loaded", "fix": "install the driver"},
    "no_gpu": {"code": "TE301", "slug": "driver-missing", "area": "driver", "severity": "warning",
               "message": "torch 2.14.1+cu130 is a CUDA 13.0 build, but this machine has no NVIDIA GPU",
               "fix": "pip install torch --index-url https://download.pytorch.org/whl/cpu"},
    "ok": {"code": "TE205", "slug": "torch-cuda-ok", "area": "torch", "severity": "ok", "message": "fine", "fix": None},
}
def diagnose(snapshot=None):
    if os.environ["FAKE_FINDINGS"] == "crash":
        raise RuntimeError("probe exploded")
    findings = [FINDINGS[k] for k in os.environ["FAKE_FINDINGS"].split(",")]
    return {"schema": "torch_envcheck.report/1", "findings": findings,
            "exit_status": int(any(f["severity"] == "failure" for f in findings))}
'''


@pytest.fixture
def fake_torch_envcheck(tmp_path):
    pkg = tmp_path / "fake" / "torch_envcheck"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(FAKE_PACKAGE)
    return str(tmp_path / "fake")


def test_a_failure_finding_fails_the_check(script, tmp_path, fake_torch_envcheck):
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path,
                   _env(fake_torch_envcheck, FAKE_FINDINGS="ok,warning,failure"))
    assert rc == 1, out
    assert "torch_envcheck 9.9.9 diagnosis: 2 problem(s)" in out
    assert "[TE601] warning: no nvcc" in out
    assert "[TE302] failure: the NVIDIA driver 470.00 is too old for CUDA 13.0" in out
    assert "fix: sudo apt install nvidia-driver-580" in out
    assert "- [TE302] the NVIDIA driver 470.00 is too old for CUDA 13.0 (fix: sudo apt install nvidia-driver-580)" in out
    assert "TE205" not in out  # ok findings are not problems


def test_warnings_alone_keep_it_healthy(script, tmp_path, fake_torch_envcheck):
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path,
                   _env(fake_torch_envcheck, FAKE_FINDINGS="ok,warning"))
    assert rc == 0, out
    assert "[TE601] warning: no nvcc" in out


def test_the_doctors_severity_decides_for_driver_missing(script, tmp_path, fake_torch_envcheck):
    # The doctor calls TE301 a warning on a machine without an NVIDIA GPU and a failure when one is on the PCI
    # bus without a driver: the script follows it, whether or not a GPU is required.
    if _gpu_usable(sys.executable):
        pytest.skip("this machine has a usable GPU")
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path, _env(fake_torch_envcheck, FAKE_FINDINGS="no_gpu"))
    assert rc == 0, out
    assert "[TE301] warning: torch 2.14.1+cu130 is a CUDA 13.0 build, but this machine has no NVIDIA GPU" in out
    assert "not counted" not in out
    rc, out = _run([sys.executable, script, "--skip-timing", "--require-gpu"], tmp_path,
                   _env(fake_torch_envcheck, FAKE_FINDINGS="no_gpu"))
    assert rc == 1, out  # failed by the script's own --require-gpu check, not by the warning
    assert "a GPU is required" in out and "- [TE301]" not in out
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path,
                   _env(fake_torch_envcheck, FAKE_FINDINGS="driver_missing"))
    assert rc == 1, out
    assert "- [TE301] no NVIDIA driver is loaded (fix: install the driver)" in out


def test_a_crashing_doctor_is_reported_not_fatal(script, tmp_path, fake_torch_envcheck):
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path,
                   _env(fake_torch_envcheck, FAKE_FINDINGS="crash"))
    assert "Traceback" not in out
    assert "torch_envcheck 9.9.9: the diagnosis did not run: RuntimeError: probe exploded" in out
    assert rc == 0, out


def test_uses_the_real_torch_envcheck(script, tmp_path):
    rc, out = _run([sys.executable, script, "--skip-timing"], tmp_path, _env(PKG_PARENT), timeout=600)
    assert "Traceback" not in out
    assert f"torch_envcheck {torch_envcheck.__version__}" in out, out
    # Its verdict is the doctor's: a failure finding must be listed with its code.
    assert rc in (0, 1), out
    if rc == 1:
        assert "FAILED: this environment is broken" in out and "- [TE" in out


@pytest.fixture(scope="module")
def template_module():
    import runpy
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "env_check.py")
        with open(path, "w") as fh:
            fh.write(init_cli.template_text())
        return runpy.run_path(path, run_name="env_check")  # its functions, without running main()


@pytest.mark.parametrize("cap, arch_list, ok", [
    ((9, 0), ["sm_80", "sm_90"], True),
    ((8, 6), ["sm_80"], True),                  # same major, newer minor: the sm_80 code runs
    ((7, 5), ["sm_80", "sm_90"], False),        # older than every binary
    ((12, 0), ["sm_80", "sm_90"], False),       # newer than every binary and no PTX (pytorch/pytorch#150733)
    ((12, 0), ["sm_90", "compute_90"], True),   # PTX is JIT-compiled by the driver for newer GPUs
    ((9, 0), ["sm_90a"], True),
    ((6, 1), ["sm_75", "sm_80", "compute_80"], False),
])
def test_arch_supported(template_module, cap, arch_list, ok):
    assert template_module["arch_supported"](cap, arch_list) is ok


def test_cpu_timing_is_measured(template_module):
    torch = pytest.importorskip("torch")
    seconds, product = template_module["time_matmul"](torch, torch.device("cpu"), 64, 2)
    assert seconds > 0
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(64, 64, generator=g), torch.randn(64, 64, generator=g)
    torch.testing.assert_close(product, a @ b)
