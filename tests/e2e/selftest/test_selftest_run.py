"""The self-test shipped in the package: it passes on this machine (GPU parts skipped, with the reason,
when there is no GPU), and its failure messages name a finding code and the fix."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

import torch_envcheck

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))


def _env(**extra) -> dict:
    # The child must test the same torch_envcheck this process imported (source tree or installed).
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p)
    env.pop("TORCH_ENVCHECK_REQUIRE_GPU", None)
    env.update(extra)
    return env


def _selftest(tmp_path, *args, **env):
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "torch_envcheck.selftest", "-rs", "-p", "no:cacheprovider",
           *args]
    # Run from an empty directory so that neither this repository's pytest settings nor its conftest apply.
    p = subprocess.run(cmd, cwd=tmp_path, env=_env(**env), capture_output=True, text=True, timeout=1200)
    return p.returncode, p.stdout + p.stderr


def _gpu_usable() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def test_selftest_passes_here(tmp_path):
    pytest.importorskip("torch")
    rc, out = _selftest(tmp_path)
    assert rc == 0, out
    assert " passed" in out and "FAILED" not in out and " error" not in out
    if not _gpu_usable():
        # Every GPU test is skipped, and the reason (with its finding code) is shown.
        skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
        assert any("test_cuda.py" in line for line in skipped), out
        assert all("no NVIDIA GPU" in line and "[TE" in line for line in skipped), skipped
        counted = sum(int(line.split("[", 1)[1].split("]", 1)[0]) for line in skipped)
        assert f" {counted} skipped" in out, out


def test_selftest_requires_a_gpu_on_request(tmp_path):
    pytest.importorskip("torch")
    if _gpu_usable():
        pytest.skip("this machine has a usable GPU")
    rc, out = _selftest(tmp_path, "-k", "test_cuda", TORCH_ENVCHECK_REQUIRE_GPU="1")
    assert rc == 1, out
    assert "a GPU is required (TORCH_ENVCHECK_REQUIRE_GPU) but none is usable" in out
    assert "fix: " in out


# The failure paths, exercised directly so they are tested whether or not this build's kernels are right.

def test_a_missing_op_fails_with_its_name_and_the_fix():
    from torch_envcheck.selftest import test_extension
    fake_torch = types.SimpleNamespace(ops=types.SimpleNamespace(envcheck=types.SimpleNamespace()))
    ext = {"status": {"path": "/x/_C.so", "mode": "aot"}}
    with pytest.raises(pytest.fail.Exception) as exc:
        test_extension._op(fake_torch, ext, "sgemm")
    text = str(exc.value)
    assert text.startswith("[TE703 extension-not-built] torch.ops.envcheck.sgemm is not registered")
    assert "/x/_C.so" in text and "fix: torch-envcheck build --verbose" in text


@pytest.mark.parametrize("name", ["triad", "sum", "softmax", "bias_gelu", "sgemm"])
def test_kernel_comparison_accepts_right_and_rejects_wrong(monkeypatch, name):
    torch = pytest.importorskip("torch")
    from torch_envcheck.selftest import test_extension as te

    right = {
        "triad": lambda b, c, s: b + s * c,
        "sum": lambda x: x.sum(),
        "softmax": lambda x: torch.softmax(x, -1),
        "bias_gelu": lambda x, bias: torch.nn.functional.gelu(x + bias),
        "sgemm": lambda a, b: a @ b,
    }[name]
    ext = {"status": {"path": "/x/_C.so", "mode": "aot"}}
    cpu = torch.device("cpu")
    monkeypatch.setattr(te, "_op", lambda torch_, ext_, n: right)
    te.test_op_matches_torch(torch, ext, cpu, name)  # torch's own op passes

    def wrong(*args):
        out = right(*args)
        return out * 1.001 + 1e-3  # off by far more than fp32 rounding
    monkeypatch.setattr(te, "_op", lambda torch_, ext_, n: wrong)
    with pytest.raises(pytest.fail.Exception) as exc:
        te.test_op_matches_torch(torch, ext, cpu, name)
    assert str(exc.value).startswith(f"[TE704 extension-kernels-wrong] envcheck::{name} on cpu disagrees with torch")
    assert "fix: " in str(exc.value)


def test_softmax_check_catches_an_unstable_kernel(monkeypatch):
    torch = pytest.importorskip("torch")
    from torch_envcheck.selftest import test_extension as te

    def naive(x):  # no max subtraction: exp(1000) overflows
        e = torch.exp(x)
        return e / e.sum(-1, keepdim=True)
    monkeypatch.setattr(te, "_op", lambda *a: naive)
    with pytest.raises(pytest.fail.Exception, match=r"TE704.*softmax"):
        te.test_op_matches_torch(torch, {"status": {}}, torch.device("cpu"), "softmax")


def test_wrong_dtype_is_named(monkeypatch):
    torch = pytest.importorskip("torch")
    from torch_envcheck.selftest import test_extension as te
    monkeypatch.setattr(te, "_op", lambda *a: (lambda a, b: (a @ b).double()))
    with pytest.raises(pytest.fail.Exception, match=r"TE704.*returned Tensor torch.float64 \(129, 65\)"):
        te.test_op_matches_torch(torch, {"status": {}}, torch.device("cpu"), "sgemm")


def test_build_info_version_comparison():
    from torch_envcheck.selftest.test_torch import _same_version, _torch_version_in
    assert _same_version("2.14.1", "2.14.1+cu130")
    assert _same_version("2.14.1+cu130", "2.14.1+cu130")
    assert not _same_version("2.13.0", "2.14.1+cu130")
    assert not _same_version("2.14.1+cpu", "2.14.1+cu130")
    assert _torch_version_in({"torch_headers": {"version": "2.14.1", "major": 2}}) == "2.14.1"
    assert _torch_version_in({"torch_headers": None}) is None
    assert _torch_version_in({"compiler": "gcc"}) is None


def test_cuda_error_texts_map_to_codes():
    from torch_envcheck.selftest._support import classify_cuda_error
    # Texts users report: pytorch/pytorch torch/cuda/__init__.py `_lazy_init` (no driver, no CUDA build), the
    # driver-too-old text quoted in ultralytics/yolov5#2389, error 804 quoted in PKU-YuanGroup/Video-LLaVA#22.
    assert classify_cuda_error("RuntimeError: Found no NVIDIA driver on your system.")[0] == "TE301"
    assert classify_cuda_error("The NVIDIA driver on your system is too old (found version 11040).")[0] == "TE302"
    assert classify_cuda_error("AssertionError: Torch not compiled with CUDA enabled")[0] == "TE202"
    assert classify_cuda_error("Error 804: forward compatibility was attempted on non supported HW")[0] == "TE303"
