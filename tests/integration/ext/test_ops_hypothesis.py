"""Property tests: the custom CPU ops match float64 references for random shapes (hypothesis)."""

from __future__ import annotations

import math

import pytest
import torch

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from _ops_helpers import assert_gelu_close, assert_sgemm_close, load_ops, rand  # noqa: E402

E = None


def ops():
    global E
    if E is None:
        E = load_ops()
    return E


dims = st.integers(min_value=0, max_value=70)
SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(m=dims, k=dims, n=dims, ta=st.booleans(), tb=st.booleans())
def test_sgemm_shapes(m, k, n, ta, tb):
    a = rand(k, m).t() if ta else rand(m, k)
    b = rand(n, k).t() if tb else rand(k, n)
    assert_sgemm_close(ops().sgemm(a, b), a, b)


@SETTINGS
@given(shape=st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=3))
def test_elementwise_and_softmax_shapes(shape):
    x = rand(*shape) * 3
    bias = rand(shape[-1])
    assert_gelu_close(ops().bias_gelu(x, bias), x, bias)
    # float64 references: the oracle is never another float32 kernel.
    torch.testing.assert_close(ops().softmax(x).double(), torch.softmax(x.double(), -1), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(ops().triad(x, bias.expand_as(x), -2.0).double(), x.double() - 2.0 * bias.double(),
                               rtol=1e-6, atol=1e-6)
    ref = x.double().sum().item()
    tol = 4 * max(1.0, math.log2(max(x.numel(), 2))) * 2.0 ** -24 * x.double().abs().sum().item() + 1e-30
    assert abs(ops().sum(x).item() - ref) <= tol
