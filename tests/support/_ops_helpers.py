"""Shared helpers for the tests of the custom ops (tests/test_ops_*.py)."""

from __future__ import annotations

import pytest
import torch

EPS32 = 2.0 ** -24


def load_ops():
    """torch.ops.envcheck with fakes/autograd registered; fails (not skips) when the extension is broken."""
    from torch_envcheck.ext import extension
    from torch_envcheck.ext import ops
    try:
        return ops.load()
    except extension.ExtensionUnavailable as exc:
        pytest.fail(f"the extension could not be loaded or built: {exc}")


def rand(*shape, device="cpu", dtype=torch.float32, generator=None):
    """Fresh random data away from zero: N(0, 1) plus a small offset, so no test runs on zeros."""
    return (torch.randn(*shape, generator=generator, dtype=torch.float64) + 0.01).to(device=device, dtype=dtype)


def assert_sgemm_close(c: torch.Tensor, a: torch.Tensor, b: torch.Tensor, factor: float = 2.0):
    """Compare with a float64 reference under a K-scaled bound: |C - C64| <= factor * K * eps32 * (|A| @ |B|)
    elementwise (the classic error bound of a length-K dot product in fp32)."""
    a64, b64 = a.double().cpu(), b.double().cpu()
    ref = a64 @ b64
    k = a.shape[1]
    bound = factor * max(k, 1) * EPS32 * (a64.abs() @ b64.abs()) + 1e-30
    err = (c.double().cpu() - ref).abs()
    worst = (err / bound).max().item() if err.numel() else 0.0
    assert worst <= 1.0, f"sgemm error exceeds the K-scaled bound by {worst:.2f}x (K={k})"


def assert_gelu_close(y: torch.Tensor, x: torch.Tensor, bias: torch.Tensor, atol: float = 2e-6, rtol: float = 1e-5):
    """Against gelu computed in float64: a float32 erf (ours or torch's) is within ~1e-6 of it
    (torch's own float32 F.gelu is off by up to ~1.2e-6 on CPU)."""
    ref = torch.nn.functional.gelu(x.double().cpu() + bias.double().cpu())
    torch.testing.assert_close(y.double().cpu(), ref, atol=atol, rtol=rtol)
