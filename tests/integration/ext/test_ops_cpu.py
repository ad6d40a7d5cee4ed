"""The custom ops on CPU against torch's own ops: values, edge sizes, strided inputs, errors, opcheck."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from _ops_helpers import (INF, NAN, assert_gelu_close, assert_sgemm_close, gelu_ref, load_ops, rand, softmax_ref,
                          special_error)

# Sizes around the vector widths (8 floats for AVX2/DEFAULT, 16 for AVX-512), the sgemm register
# blocks (6 x 16, 14 x 32, 5 x 8), the parallel grain (32768) and the sum block (65536).
SIZES = [0, 1, 7, 15, 16, 17, 31, 33, 1000, 32769, 65537, 3 * 65536 + 5]


@pytest.fixture(scope="module")
def E():
    return load_ops()


@pytest.mark.parametrize("n", SIZES)
def test_triad(E, n):
    b, c = rand(n), rand(n)
    out = E.triad(b, c, 2.5)
    torch.testing.assert_close(out, b + 2.5 * c, rtol=1e-6, atol=1e-6)
    assert out.shape == b.shape and out.dtype == torch.float32


def test_triad_out_and_strided(E):
    b, c = rand(64, 33), rand(33, 64).t()  # c transposed: not contiguous
    out = torch.empty(64, 33)
    assert E.triad_out(b, c, -1.5, out) is None
    torch.testing.assert_close(out, b - 1.5 * c)
    b2 = rand(10, 20)[:, ::3]
    torch.testing.assert_close(E.triad(b2, b2, 1.0), 2 * b2)


@pytest.mark.parametrize("n", SIZES)
def test_sum(E, n):
    x = rand(n)
    got = E.sum(x)
    assert got.dim() == 0 and got.dtype == torch.float32
    ref = x.double().sum().item()
    # fp32 accumulation: error grows at most ~ log2(n) * eps * sum|x| for our blocked/pairwise order.
    tol = 4 * max(1.0, math.log2(max(n, 2))) * 2.0 ** -24 * x.double().abs().sum().item() + 1e-30
    assert abs(got.item() - ref) <= tol, (got.item(), ref, tol)


def test_sum_deterministic_across_thread_counts(E):
    x = rand(1_000_003)
    old = torch.get_num_threads()
    try:
        results = set()
        for t in (1, 2, max(1, old)):
            torch.set_num_threads(t)
            results.add(E.sum(x).item())
    finally:
        torch.set_num_threads(old)
    assert len(results) == 1, f"sum differs with the thread count: {results}"
    assert E.sum(x).item() == E.sum(x.clone()).item()


def test_sum_strided_and_nd(E):
    x = rand(300, 201)
    for view in (x.t(), x[::2, 1::3]):
        ref = view.double().sum().item()
        tol = 4 * math.log2(view.numel()) * 2.0 ** -24 * view.double().abs().sum().item()
        assert abs(E.sum(view).item() - ref) <= tol, (E.sum(view).item(), ref, tol)


@pytest.mark.parametrize("shape", [(1,), (1, 1), (3, 7), (5, 16), (4, 17), (2, 3, 1000), (33, 4097), (0, 5), (5, 0)])
def test_softmax(E, shape):
    x = rand(*shape) * 4
    torch.testing.assert_close(E.softmax(x).double(), torch.softmax(x.double(), -1), rtol=1e-5, atol=1e-6)


def test_softmax_stability_and_strided(E):
    # References: math in float64 (tests/support/_ops_helpers.py), not torch's float32 kernel.
    x = rand(6, 50) * 30 + 1000.0  # exp(x) overflows without subtracting the max
    y = E.softmax(x)
    assert torch.isfinite(y).all()
    assert special_error(y, softmax_ref(x), atol=1e-6, rtol=1e-5) <= 1.0
    xt = rand(40, 30).t()
    assert special_error(E.softmax(xt), softmax_ref(xt), atol=1e-6, rtol=1e-5) <= 1.0
    x = rand(3, 9)
    x[1, 4] = -INF
    y = E.softmax(x)
    assert y[1, 4].item() == 0.0  # a masked entry is exactly 0
    assert special_error(y, softmax_ref(x), atol=1e-6, rtol=1e-5) <= 1.0
    out = torch.empty(3, 9)
    E.softmax_out(x, out)
    assert special_error(out, softmax_ref(x), atol=1e-6, rtol=1e-5) <= 1.0


def test_softmax_special_values(E):
    """The rules of tests/support/_ops_helpers.py, for the variant this process selected
    (tests/integration/ext/test_ops_isa.py checks every variant): masked entries exactly 0, nan rows, all -inf -> nan, one +inf -> one-hot,
    two +inf -> nan, huge and subnormal values."""
    rows = torch.tensor([[0., -INF, 1., 2.], [1., NAN, 2., 3.], [-INF, -INF, -INF, -INF], [1., INF, 2., 3.],
                         [INF, 0., INF, 1.], [3e38, -3e38, 0., 1e-40], [1e-40, -1e-40, 2e-45, 0.]])
    for pad in (0, 15, 33):  # padded with masked entries: the vector bodies and the tails
        x = torch.cat([rows, torch.full((rows.shape[0], pad), -INF)], dim=1)
        want = softmax_ref(x)
        assert torch.isnan(want[1]).all() and torch.isnan(want[2]).all() and torch.isnan(want[4]).all()
        assert want[3, 1] == 1.0 and want[3].sum() == 1.0  # one +inf: one-hot
        assert special_error(E.softmax(x), want, atol=1e-6, rtol=1e-5) <= 1.0, (E.softmax(x), want)


def test_bias_gelu_special_values(E):
    """GELU at the infinities is its limit (+inf -> +inf, -inf -> 0), nan stays nan, huge values are
    not overflowed, subnormals pass; against math.erfc in float64."""
    x = torch.tensor([-INF, INF, NAN, 1e30, -1e30, 3e38, -3e38, 1e-40, -1e-40, 2e-45, -20., -40., 10., -10., 0.,
                      -0., 5.5, -5.5, 88., -88.])
    want = gelu_ref(x)
    assert want[0].item() == 0.0 and want[1].item() == INF and math.isnan(want[2].item())
    for cols in (x.numel(), 3):  # one long row and rows shorter than a vector
        xs = x[: x.numel() // cols * cols].reshape(-1, cols)
        got = E.bias_gelu(xs, torch.zeros(cols))
        assert special_error(got, want[: xs.numel()].reshape(xs.shape), atol=2e-6, rtol=1e-5) <= 1.0, got


@pytest.mark.parametrize("shape", [(1,), (7,), (3, 17), (2, 5, 33), (129, 1000), (0, 8), (4, 0)])
def test_bias_gelu(E, shape):
    x = rand(*shape) * 3
    bias = rand(shape[-1])
    assert_gelu_close(E.bias_gelu(x, bias), x, bias)


def test_bias_gelu_strided_and_out(E):
    x = rand(65, 40).t()  # (40, 65), not contiguous
    bias = rand(130)[::2]
    assert_gelu_close(E.bias_gelu(x, bias), x, bias)
    out = torch.empty(40, 65)
    E.bias_gelu_out(x, bias, out)
    assert_gelu_close(out, x, bias)


@pytest.mark.parametrize("mkn", [(1, 1, 1), (0, 4, 3), (3, 0, 5), (4, 5, 0), (14, 8, 32), (15, 33, 31),
                                 (29, 257, 65), (200, 300, 129), (13, 1000, 7)])
def test_sgemm(E, mkn):
    m, k, n = mkn
    a, b = rand(m, k), rand(k, n)
    c = E.sgemm(a, b)
    assert c.shape == (m, n) and c.is_contiguous()
    assert_sgemm_close(c, a, b)


def test_sgemm_transposed_and_strided(E):
    a, b = rand(70, 45), rand(33, 70)
    assert_sgemm_close(E.sgemm(a.t(), b.t()), a.t(), b.t())
    a2, b2 = rand(60, 90)[::2, 1::2], rand(90, 100)[::2, ::3]
    assert_sgemm_close(E.sgemm(a2, b2), a2, b2)


@pytest.mark.parametrize("mkn", [(1, 300, 700), (700, 300, 1), (1, 1, 4099), (4099, 1, 1), (20, 700, 45), (28, 5, 100),
                                 (29, 300, 65)])
def test_sgemm_vector_shaped(E, mkn):
    # One row of A or one column of B (a single, mostly padded, micro-panel on one side), and row counts
    # around the unpacked path's limit (2 x MR: 12 with AVX2, 28 with AVX-512) and its second row panel.
    m, k, n = mkn
    a, b = rand(m, k), rand(k, n)
    assert_sgemm_close(E.sgemm(a, b), a, b)


def test_sgemm_row_slices(E):
    # Rows contiguous (stride 1 along them) but further apart than their length: the packers' fast paths
    # for contiguous rows must follow the row stride, and the ragged ends (K not a multiple of 16, N not
    # a multiple of the micro-panel width) go through their scalar tails.
    a = rand(50, 300)[3:, 7:260]
    b = rand(253, 400)[:, 3:350]
    assert a.stride() == (300, 1) and b.stride() == (400, 1)
    assert_sgemm_close(E.sgemm(a, b), a, b)


def test_sgemm_large_k_blocks(E):
    # K beyond one packed slice (KC is 128-1024 with the usual caches) and N over several micro-panels;
    # tests/integration/ext/test_ops_isa.py also runs every variant with tiny MC/KC/NC so that every blocking loop turns.
    a, b = rand(30, 2100), rand(2100, 3100)
    assert_sgemm_close(E.sgemm(a, b), a, b)


@pytest.mark.parametrize("mkn", [(2, 3, 5), (3, 5, 7), (11, 13, 17), (37, 41, 43), (101, 103, 107)])
def test_sgemm_primes(E, mkn):
    m, k, n = mkn
    a, b = rand(m, k), rand(k, n)
    assert_sgemm_close(E.sgemm(a, b), a, b)
    assert_sgemm_close(E.sgemm(a.t().contiguous().t(), b.t().contiguous().t()), a, b)


def test_sgemm_reuses_its_packing_buffers_across_shapes_threads_and_callers(E):
    # The packed panels are kept by the calling thread between calls: a product after a larger one, after
    # a smaller one, with another thread count, and from another Python thread must each see only its own
    # data (a stale panel from the call before would show as a wrong product).
    import threading

    shapes = [(300, 700, 500), (45, 90, 70), (301, 701, 509), (60, 2100, 40)]
    for m, k, n in shapes + shapes[::-1]:
        a, b = rand(m, k), rand(k, n)
        assert_sgemm_close(E.sgemm(a, b), a, b)
    before = torch.get_num_threads()
    try:
        for t in (1, max(2, before)):
            torch.set_num_threads(t)
            a, b = rand(257, 515), rand(515, 263)
            assert_sgemm_close(E.sgemm(a, b), a, b)
    finally:
        torch.set_num_threads(before)
    errors = []

    def other_caller():
        try:
            for m, k, n in shapes:
                a, b = rand(m, k), rand(k, n)
                assert_sgemm_close(E.sgemm(a, b), a, b)
        except AssertionError as exc:  # reported in the main thread, where pytest sees it
            errors.append(exc)

    th = threading.Thread(target=other_caller)
    th.start()
    a, b = rand(299, 640), rand(640, 333)
    assert_sgemm_close(E.sgemm(a, b), a, b)
    th.join()
    assert not errors, errors


def test_sgemm_k0_gives_zeros(E):
    c = E.sgemm(torch.ones(5, 0), torch.ones(0, 7))
    assert c.shape == (5, 7) and bool((c == 0).all())


def test_sgemm_blocking_follows_the_cache_sizes():
    """The selected variant's MC/KC/NC come from the cache sizes it reports (see sgemm_kernel.h): the
    KC x min(NR, 16) micro-panel of B is the largest multiple of 16 rows that fits in L1d, the MC x KC block of A
    fits in half of L2, the KC x NC panel of B in half of L3 (within the clamps), and MC/NC are
    multiples of the register block."""
    from torch_envcheck.ext import ops
    info = ops.cpu_kernel_isa()
    cache, blk = info["cache_bytes"], info["sgemm_blocking"]
    mr, nr = info["sgemm_register_block"]
    assert cache["l1d"] > 0 and cache["l2"] > 0 and cache["l3"] > 0 and cache["source"]
    if blk["from"] != "model":
        pytest.skip("TORCH_ENVCHECK_SGEMM_BLOCKING is set")
    assert blk["mc"] % mr == 0 and blk["nc"] % nr == 0
    w = min(nr, 16)  # a wider micro-panel (AVX-512's 32) is sized as a 16-wide one, read from L2
    assert 64 <= blk["kc"] <= 1024 and (blk["kc"] == 64 or blk["kc"] * w * 4 <= cache["l1d"])
    assert blk["kc"] == 1024 or (blk["kc"] + 16) * w * 4 > cache["l1d"]
    assert blk["mc"] == mr or blk["mc"] * blk["kc"] * 4 <= cache["l2"] // 2
    assert blk["nc"] == 4 * nr or blk["nc"] * blk["kc"] * 4 <= cache["l3"] // 2


def test_triad_streaming_stores(E):
    # >= 2**21 elements: written with non-temporal stores; a misaligned out exercises the scalar head.
    n = (1 << 21) + 37
    b, c = rand(n), rand(n)
    for out in (torch.empty(n), torch.empty(n + 1)[1:]):
        E.triad_out(b, c, 0.25, out)
        torch.testing.assert_close(out, b + 0.25 * c)


def test_large_elementwise(E):
    # 2**24 + 3 elements: many parallel chunks and a ragged tail.  A > 2**31-element check would need
    # 8 GiB per float32 tensor and is not run; indices are int64 throughout the kernels.
    n = (1 << 24) + 3
    b, c = rand(n), rand(n)
    torch.testing.assert_close(E.triad(b, c, 0.5), b + 0.5 * c)
    got, ref = E.sum(b).item(), b.double().sum().item()
    assert abs(got - ref) <= 1e-6 * b.double().abs().sum().item()


@pytest.mark.parametrize("call, match", [
    (lambda E: E.triad(torch.ones(3), torch.ones(4), 1.0), r"envcheck::triad: expected b and c of the same shape"),
    (lambda E: E.triad(torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), 1.0),
     r"envcheck::triad: expected b of dtype torch.float32"),
    (lambda E: E.triad_out(torch.ones(3), torch.ones(3), 1.0, torch.empty(4)), r"envcheck::triad: expected out of shape"),
    (lambda E: E.sum(torch.ones(3, dtype=torch.int32)), r"envcheck::sum: expected x of dtype torch.float32"),
    (lambda E: E.softmax(torch.tensor(1.0)), r"envcheck::softmax: expected x with at least 1 dimension"),
    (lambda E: E.softmax(torch.ones(3, dtype=torch.float16)), r"envcheck::softmax: expected x of dtype torch.float32"),
    (lambda E: E.bias_gelu(torch.ones(2, 3), torch.ones(4)), r"envcheck::bias_gelu: expected bias of shape \(3,\)"),
    (lambda E: E.sgemm(torch.ones(2, 3), torch.ones(4, 5)), r"envcheck::sgemm: expected a.size\(1\) == b.size\(0\)"),
    (lambda E: E.sgemm(torch.ones(3), torch.ones(3, 5)), r"envcheck::sgemm: expected 2-D matrices"),
    (lambda E: E.sgemm(torch.ones(2, 3, dtype=torch.float64), torch.ones(3, 5)),
     r"envcheck::sgemm: expected a of dtype torch.float32"),
])
def test_errors_name_op_and_expectation(E, call, match):
    with pytest.raises(RuntimeError, match=match):
        call(E)


def test_wrong_device_is_refused(E):
    # A meta tensor has no data: the CPU kernels must not run on it; the fake kernel answers instead.
    x = torch.empty(4, 5, device="meta")
    assert E.softmax(x).device.type == "meta"
    if torch.cuda.is_available():
        with pytest.raises(RuntimeError, match=r"envcheck::triad: expected"):
            E.triad(torch.ones(3), torch.ones(3, device="cuda"), 1.0)


def test_openmp_is_really_on(E):
    from torch_envcheck.ext import ops
    isa = ops.cpu_kernel_isa()
    assert isa["openmp"] is True, "the extension was compiled without -fopenmp: at::parallel_for is serial"
    if torch.get_num_threads() < 2:
        pytest.skip("torch uses 1 thread here: cannot observe parallelism")
    used = ops.parallel_threads_used(64)
    assert used >= 2, f"at::parallel_for ran on {used} thread(s) with torch.get_num_threads()={torch.get_num_threads()}"


def test_cpu_kernel_isa_json(E):
    from torch_envcheck.ext import ops
    isa = ops.cpu_kernel_isa()
    assert isa["selected"] in isa["compiled"]
    assert "DEFAULT" in isa["compiled"]
    assert isa["vector_width_floats"] in (8, 16)


def test_autograd(E):
    a = rand(5, 7, dtype=torch.float64).float().requires_grad_()
    b = rand(7, 3).requires_grad_()
    bias = rand(7).requires_grad_()
    for f_custom, f_ref in [
        (lambda: E.sgemm(a, b).sum(), lambda: (a @ b).sum()),
        (lambda: (E.softmax(a) * torch.arange(7.0)).sum(), lambda: (torch.softmax(a, -1) * torch.arange(7.0)).sum()),
        (lambda: E.bias_gelu(a, bias).sum(), lambda: F.gelu(a + bias).sum()),
        (lambda: E.triad(a, a * 2, 3.0).sum(), lambda: (a + 3.0 * (a * 2)).sum()),
        (lambda: E.sum(a * a), lambda: (a * a).sum()),
    ]:
        params = [a, b, bias]
        g1 = torch.autograd.grad(f_custom(), params, allow_unused=True)
        g2 = torch.autograd.grad(f_ref(), params, allow_unused=True)
        for x, y in zip(g1, g2):
            assert (x is None) == (y is None)
            if x is not None:
                torch.testing.assert_close(x, y, rtol=1e-4, atol=1e-5)


def test_opcheck(E):
    from torch.library import opcheck
    x, bias = rand(4, 33), rand(33)
    a, b = rand(9, 20), rand(20, 17)
    cases = [
        (E.triad.default, (x, rand(4, 33), 0.5)),
        (E.sum.default, (x,)),
        (E.softmax.default, (x,)),
        (E.bias_gelu.default, (x, bias)),
        (E.sgemm.default, (a, b)),
        (E.triad_out.default, (x, rand(4, 33), 0.5, torch.empty(4, 33))),
        (E.softmax_out.default, (x, torch.empty(4, 33))),
        (E.bias_gelu_out.default, (x, bias, torch.empty(4, 33))),
    ]
    grad_cases = [
        (E.triad.default, (x.clone().requires_grad_(), rand(4, 33).requires_grad_(), 0.5)),
        (E.sum.default, (x.clone().requires_grad_(),)),
        (E.softmax.default, (x.clone().requires_grad_(),)),
        (E.bias_gelu.default, (x.clone().requires_grad_(), bias.clone().requires_grad_())),
        (E.sgemm.default, (a.clone().requires_grad_(), b.clone().requires_grad_())),
    ]
    for case in cases + grad_cases:
        op, args = case[0], case[1]
        kwargs = case[2] if len(case) > 2 else {}
        result = opcheck(op, args, kwargs)
        failed = {k: v for k, v in result.items() if v != "SUCCESS"}
        assert not failed, f"{op}: {failed}"


def test_torch_compile(E):
    pytest.importorskip("torch._dynamo")
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile not available")

    def f(x, bias, a, b):
        return E.bias_gelu(x, bias).sum() + E.sgemm(a, b).sum()

    x, bias, a, b = rand(4, 8), rand(8), rand(3, 5), rand(5, 2)
    compiled = torch.compile(f, backend="eager", fullgraph=True)
    torch.testing.assert_close(compiled(x, bias, a, b), f(x, bias, a, b))
