"""Shared helpers for the tests of the custom ops (tests/test_ops_*.py)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
import torch

EPS32 = 2.0 ** -24
INF, NAN = float("inf"), float("nan")


def run_child_python(argv: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    """`python ARGV...` in a child that imports the same torch_envcheck as this process (an installed
    copy in CI, the checkout here), and so loads the same _C: its folder first on PYTHONPATH, and the
    tests' support folder as the working directory, since `python -c` puts the working directory
    first on sys.path and from the repo root that would be the checkout's copy."""
    import torch_envcheck
    from paths import SUPPORT as tests_dir
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))
    env = dict(env, PYTHONPATH=os.pathsep.join([pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable] + list(argv), env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=tests_dir)


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


# The right answers at special values.  The oracle is math in float64, never a float32 kernel (torch's own
# float32 F.gelu(+inf) is nan on some CPUs and torch builds and +inf on others).  The rule: the value of
# the function where it is defined, its limit where the argument is infinite and the limit exists, and nan
# where it has none:
#   gelu(+inf) = +inf (GELU(x) -> x), gelu(-inf) = -0 (GELU(x) -> 0 from below), gelu(nan) = nan;
#   softmax: exp(-inf) = 0 exactly, so a masked (-inf) entry is exactly 0; a row with a nan is all nan;
#   a row of only -inf is all nan (0/0: no limit); a row with exactly one +inf is one-hot at it (the
#   limit as that entry grows); two or more +inf: all nan (the limit depends on how they grow).


def gelu_ref(x: torch.Tensor) -> torch.Tensor:
    """Exact GELU 0.5 x erfc(-x / sqrt 2) in float64 from math.erfc, element by element (for small
    tensors), with the limits above at the infinities."""
    def one(v: float) -> float:
        if math.isnan(v):
            return NAN
        if math.isinf(v):
            return v if v > 0 else -0.0
        return 0.5 * v * math.erfc(-v / math.sqrt(2.0))
    flat = [one(v) for v in x.detach().double().cpu().flatten().tolist()]
    return torch.tensor(flat, dtype=torch.float64).reshape(x.shape)


def softmax_ref(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension in float64 from math.exp and math.fsum, row by row (for small
    tensors), with the special-value rules above."""
    cols = x.shape[-1] if x.dim() else 1
    rows = x.detach().double().cpu().reshape(-1, cols).tolist() if cols else []
    out = []
    for row in rows:
        n_pos = sum(v == INF for v in row)
        if any(math.isnan(v) for v in row) or n_pos > 1 or (row and max(row) == -INF):
            out.append([NAN] * len(row))
        elif n_pos == 1:
            out.append([1.0 if v == INF else 0.0 for v in row])
        else:
            m = max(row)
            e = [math.exp(v - m) for v in row]  # math.exp(-inf) is exactly 0.0
            s = math.fsum(e)
            out.append([v / s for v in e])
    return torch.tensor(out, dtype=torch.float64).reshape(x.shape)


def special_error(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float) -> float:
    """The worst error of `got` against the float64 reference `want`, as a multiple of the tolerance
    atol + rtol * |want| (<= 1 passes).  nan exactly where `want` is nan; where `want` is exact (an
    infinity, or 0 from a masked entry, an infinite limit or a one-hot) `got` must equal it; 1e9 if not."""
    got = got.detach().double().cpu()
    want = want.double()
    if got.shape != want.shape or not torch.equal(torch.isnan(got), torch.isnan(want)):
        return 1e9
    exact = torch.isinf(want) | (want == 0)
    if not torch.equal(got[exact], want[exact]):
        return 1e9
    rest = ~exact & ~torch.isnan(want)
    if not rest.any():
        return 0.0
    return ((got[rest] - want[rest]).abs() / (atol + rtol * want[rest].abs())).max().item()
