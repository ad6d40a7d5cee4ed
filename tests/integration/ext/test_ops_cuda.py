"""The custom ops on CUDA against float64 references (skipped without a GPU)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from _ops_helpers import INF, NAN, assert_sgemm_close, gelu_ref, load_ops, rand, softmax_ref, special_error

pytestmark = pytest.mark.gpu

DTYPES = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.float16: dict(rtol=2e-3, atol=2e-3),
       torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2)}


@pytest.fixture(scope="module")
def E():
    ops = load_ops()
    if not torch.cuda.is_available():
        pytest.skip("no GPU")
    from torch_envcheck.ext import extension
    meta = extension.status().get("meta") or {}
    if not meta.get("cuda", {}).get("compiled"):
        pytest.fail("a GPU is present but the extension was built without CUDA kernels")
    return ops


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 33, 1000, 1 << 20, (1 << 22) + 3])
def test_triad(E, dtype, n):
    b, c = rand(n, device="cuda", dtype=dtype), rand(n, device="cuda", dtype=dtype)
    ref = (b.float() + 2.5 * c.float()).to(dtype)
    torch.testing.assert_close(E.triad(b, c, 2.5), ref, **TOL[dtype])
    torch.testing.assert_close(E.triad(b[1:], c[1:], 2.5), ref[1:], **TOL[dtype])  # misaligned: scalar path


@pytest.mark.parametrize("n", [0, 1, 255, 2049, 1 << 20, (1 << 24) + 7])
def test_sum(E, n):
    x = rand(n, device="cuda")
    got = E.sum(x)
    ref = x.double().sum().item()
    assert abs(got.item() - ref) <= 1e-5 * x.double().abs().sum().item() + 1e-30
    assert E.sum(x).item() == got.item()  # deterministic


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (5, 1024), (4, 1025), (2, 3, 5000), (0, 4), (7, 0)])
def test_softmax(E, dtype, shape):
    # float64 references of the very inputs (already rounded to dtype), then rounded to dtype.
    x = (rand(*shape) * 4).to("cuda", dtype)
    torch.testing.assert_close(E.softmax(x), torch.softmax(x.double(), -1).to(dtype), **TOL[dtype])
    xt = (rand(64, 48) * 4).to("cuda", dtype).t()
    torch.testing.assert_close(E.softmax(xt), torch.softmax(xt.double(), -1).to(dtype), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (3, 7), (5, 1024), (2, 3, 1001), (0, 8)])
def test_bias_gelu(E, dtype, shape):
    x = (rand(*shape) * 3).to("cuda", dtype)
    bias = rand(shape[-1]).to("cuda", dtype)
    ref = F.gelu(x.double() + bias.double()).to(dtype)
    torch.testing.assert_close(E.bias_gelu(x, bias), ref, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values(E, dtype):
    """The special-value rules of tests/support/_ops_helpers.py on the GPU, against math in float64: masked
    entries exactly 0, nan rows, all -inf -> nan, one +inf -> one-hot, two +inf -> nan; GELU's limits.
    Rows of 4 + pad columns: the warp kernel (<= 1024) and the block kernel (> 1024)."""
    tol = TOL[dtype]
    rows = torch.tensor([[0., -INF, 1., 2.], [1., NAN, 2., 3.], [-INF, -INF, -INF, -INF], [1., INF, 2., 3.],
                         [INF, 0., INF, 1.], [60000., -60000., 0., 1e-3]])
    for pad in (0, 37, 2000):
        x = torch.cat([rows, torch.full((rows.shape[0], pad), -INF)], dim=1).to(dtype)
        got = E.softmax(x.cuda()).cpu()
        assert special_error(got, softmax_ref(x), atol=tol["atol"], rtol=tol["rtol"]) <= 1.0, got
    g = torch.tensor([[-INF, INF, NAN, 10., -10., 0., 5.5, -5.5, 60000., -60000., -20., -40.]]).to(dtype)
    got = E.bias_gelu(g.cuda(), torch.zeros(g.shape[1], dtype=dtype, device="cuda")).cpu()
    # rounded to dtype: a huge input's GELU is the input itself
    assert special_error(got, gelu_ref(g).to(dtype), atol=tol["atol"], rtol=tol["rtol"]) <= 1.0, got


@pytest.mark.parametrize("mkn", [(1, 1, 1), (0, 3, 4), (3, 0, 4), (127, 9, 129), (200, 300, 257), (1024, 1024, 1024)])
def test_sgemm(E, mkn):
    m, k, n = mkn
    a, b = rand(m, k, device="cuda"), rand(k, n, device="cuda")
    assert_sgemm_close(E.sgemm(a, b), a, b)
    assert_sgemm_close(E.sgemm(a.t().contiguous().t(), b.t().contiguous().t()), a, b)


def test_errors(E):
    with pytest.raises(RuntimeError, match=r"envcheck::triad: expected c on cuda"):
        E.triad(torch.ones(3, device="cuda"), torch.ones(3), 1.0)
    with pytest.raises(RuntimeError, match=r"envcheck::sgemm: expected a of dtype torch.float32"):
        E.sgemm(torch.ones(2, 2, device="cuda", dtype=torch.float16), torch.ones(2, 2, device="cuda"))
    with pytest.raises(RuntimeError, match=r"envcheck::sum: expected x of dtype torch.float32"):
        E.sum(torch.ones(3, device="cuda", dtype=torch.float16))


def test_opcheck_cuda(E):
    from torch.library import opcheck
    x, bias = rand(4, 33, device="cuda"), rand(33, device="cuda")
    a, b = rand(9, 20, device="cuda"), rand(20, 17, device="cuda")
    for op, args in [(E.triad.default, (x, x * 2, 0.5)), (E.sum.default, (x,)), (E.softmax.default, (x,)),
                     (E.bias_gelu.default, (x, bias)), (E.sgemm.default, (a, b))]:
        result = opcheck(op, args)
        assert all(v == "SUCCESS" for v in result.values()), (op, result)
