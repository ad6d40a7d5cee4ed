"""`torch-envcheck build` checks the host compiler against the range the nvcc it will use accepts
before compiling anything: outside it, the build stops at once with the accepted range and the fix,
instead of failing minutes later at nvcc's host_config.h."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from hostile_support import posix_only

pytestmark = posix_only


def _cuda_build_possible() -> bool:
    try:
        import torch
        from torch_envcheck.ext import buildcfg
    except Exception:
        return False
    return bool(torch.version.cuda) and bool(buildcfg.plan(torch).get("with_cuda"))


def _fake_cc(tmp_path, line: str) -> str:
    cc = tmp_path / "fakecc"
    cc.write_text(f"#!/bin/sh\necho '{line}'\necho 'Copyright (C) 2026 Free Software Foundation, Inc.'\n")
    cc.chmod(0o755)
    return str(cc)


def test_a_compiler_newer_than_nvcc_accepts_stops_the_build_before_it_starts(tmp_path):
    if not _cuda_build_possible():
        pytest.skip("needs a CUDA torch and an nvcc of its major version")
    env = dict(os.environ, CC=_fake_cc(tmp_path, "gcc (GCC) 99.1.0"), TORCH_ENVCHECK_CACHE=str(tmp_path / "cache"))
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "torch_envcheck", "build"], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "is gcc 99" in p.stderr and "accepts gcc" in p.stderr and "CC=gcc-" in p.stderr
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.o"))
    assert time.monotonic() - t0 < 300


def test_an_accepted_compiler_passes_the_check(tmp_path):
    if not _cuda_build_possible():
        pytest.skip("needs a CUDA torch and an nvcc of its major version")
    import torch
    from torch_envcheck.commands.build import host_compiler_problem

    env = dict(os.environ, CC=_fake_cc(tmp_path, "gcc (GCC) 12.2.0"))
    assert host_compiler_problem(torch, env) is None
    env["CC"] = _fake_cc(tmp_path, "gcc (GCC) 99.1.0")
    assert "accepts gcc" in host_compiler_problem(torch, env)
    env["CC"] = _fake_cc(tmp_path, "something else 1.0")
    assert host_compiler_problem(torch, env) is None  # unknown compiler: no verdict, the build decides
