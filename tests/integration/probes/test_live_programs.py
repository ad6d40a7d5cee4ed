"""Helper programs that misbehave (fake programs first on PATH): nvidia-smi printing garbage with
exit 0, an nvcc that hangs with a child of its own, an nvcc printing bytes that are not UTF-8."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
import types

import pytest

from doctor_support import fake_program, run_cli
from torch_envcheck.ext import buildcfg
from torch_envcheck.ext import toolchain
from torch_envcheck.doctor.probes import driver, toolchain_probe

posix_only = pytest.mark.skipif(os.name != "posix", reason="uses shell scripts as fake programs")

GARBAGE = "Segmentation fault (core dumped)?? \x1b]0;pwned\x07 ,,,, lorem ipsum"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    return not _alive(pid)


@posix_only
def test_garbage_from_nvidia_smi_is_an_error_not_a_gpu(tmp_path, monkeypatch):
    fake_program(tmp_path, "nvidia-smi", f"printf '%s\\n' '{GARBAGE}'; exit 0")
    monkeypatch.setitem(sys.modules, "pynvml", None)  # NVML absent: nvidia-smi is the source
    out = driver.probe(timeout=5, env={"PATH": str(tmp_path)})
    assert out["source"] != "nvidia-smi" and out["gpus"] == []
    assert out["present"] is (out["source"] == "proc")  # only the kernel module's file could say so
    assert any("exited 0 but its output is unreadable" in e and "lorem ipsum" in e for e in out["errors"])


@posix_only
def test_empty_output_with_exit_0_is_unreadable_too(tmp_path, monkeypatch):
    fake_program(tmp_path, "nvidia-smi", "exit 0")
    monkeypatch.setitem(sys.modules, "pynvml", None)
    out = driver.probe(timeout=5, env={"PATH": str(tmp_path)})
    assert out["source"] != "nvidia-smi"
    assert any("unreadable" in e and "<no output>" in e for e in out["errors"])


@posix_only
def test_doctor_does_not_see_a_gpu_in_garbage(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_program(bindir, "nvidia-smi", f"printf '%s\\n' '{GARBAGE}'; exit 0")
    # A pynvml that cannot initialise stands in for "no NVML": nvidia-smi is asked.
    pkg = tmp_path / "py"
    pkg.mkdir()
    (pkg / "pynvml.py").write_text("def nvmlInit():\n    raise RuntimeError('NVML Shared Library Not Found')\n")
    proc = run_cli(sys.executable, ["--json"], env={"PYTHONPATH": str(pkg)}, path_prefix=str(bindir))
    assert proc.returncode in (0, 1), proc.stderr
    drv = json.loads(proc.stdout)["snapshot"]["driver"]
    assert drv["source"] != "nvidia-smi" and drv["gpus"] == []
    assert any("unreadable" in e for e in drv["errors"])


@posix_only
def test_hanging_nvcc_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    nvcc = fake_program(tmp_path, "nvcc", f"sleep 300 & echo $! > {pidfile}; wait")
    t0 = time.monotonic()
    info = toolchain.nvcc_version(nvcc, timeout=1.0)
    assert time.monotonic() - t0 < 10
    assert info["version"] is None and info["error"] == f"`{nvcc} --version` timed out after 1 s"
    assert _gone(int(pidfile.read_text())), "the hung nvcc's child outlived the time limit"


@posix_only
def test_toolchain_probe_kills_a_hanging_nvcc_on_path(tmp_path):
    pidfile = tmp_path / "child.pid"
    fake_program(tmp_path, "nvcc", f"sleep 300 & echo $! > {pidfile}; wait")
    out = toolchain_probe.probe(timeout=1.0, env={"PATH": str(tmp_path), toolchain.ENV_NVCC_DIRS: ""})
    mine = [n for n in out["nvcc"] if n["path"] == str(tmp_path / "nvcc")]
    assert mine and "timed out after 1 s" in mine[0]["error"]
    assert _gone(int(pidfile.read_text()))


def _non_utf8_toolkit(root) -> str:
    (root / "bin").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "include" / "cuda_runtime.h").write_text("/* fake */\n")
    nvcc = root / "bin" / "nvcc"
    # Latin-1 bytes (a localised banner) around the release line.
    nvcc.write_bytes(b"#!/bin/sh\nprintf 'nvcc: NVIDIA (R) Cuda \\351\\377 compiler\\n"
                     b"Cuda compilation tools, release 13.0, V13.0.88\\n\\376\\n'\n")
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IEXEC)
    return str(root)


@posix_only
def test_non_utf8_nvcc_output_is_read_not_a_crash(tmp_path):
    home = _non_utf8_toolkit(tmp_path / "cuda")
    info = toolchain.nvcc_version(os.path.join(home, "bin", "nvcc"))
    assert info == {"version": "13.0.88", "error": None}


@posix_only
def test_non_utf8_nvcc_output_in_the_build_plan(tmp_path, monkeypatch):
    home = _non_utf8_toolkit(tmp_path / "cuda")
    for var in ("CUDA_PATH", "TORCH_CUDA_ARCH_LIST", "CONDA_PREFIX", buildcfg.ENV_REQUIRE_CUDA,
                buildcfg.ENV_DISABLE_CUDA):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CUDA_HOME", home)
    monkeypatch.setenv(toolchain.ENV_NVCC_DIRS, "")
    torch = types.SimpleNamespace(__version__="2.14.1+cu130", version=types.SimpleNamespace(cuda="13.0", hip=None),
                                  cuda=types.SimpleNamespace(is_available=lambda: False, device_count=lambda: 0))
    p = buildcfg.plan(torch)
    assert p["with_cuda"] is True and p["nvcc_version"] == "13.0.88"


@posix_only
def test_unreadable_nvcc_output_is_an_error_fact(tmp_path):
    nvcc = fake_program(tmp_path, "nvcc", "printf '\\377\\376 broken\\n'")
    info = toolchain.nvcc_version(nvcc)
    assert info["version"] is None and "unrecognised `nvcc --version` output (exit 0)" in info["error"]
    assert "\ufffd" in info["error"]  # the bad bytes are replaced, not a UnicodeDecodeError
