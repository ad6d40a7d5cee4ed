"""The machine-limit microkernels (envcheck::fma_peak, mem_read, mem_write, mem_copy, roofline_info) compute
what they claim: the FLOP count they return is the work their chains did (the chains' values are checked),
the memory kernels read, write and copy every element, on every variant this CPU runs.  No timing here:
the rates are the benchmark's business (torch-envcheck bench)."""

from __future__ import annotations

import json

import pytest
import torch

from _ops_helpers import load_ops


@pytest.fixture(scope="module")
def E():
    return load_ops()


@pytest.fixture(scope="module")
def info(E):
    return json.loads(E.roofline_info())


def test_info_lists_the_runnable_variants(E, info):
    from torch_envcheck.ext import ops
    isa = ops.cpu_kernel_isa()
    assert list(info["variants"])[0] == "DEFAULT"
    assert set(info["variants"]) == {"DEFAULT"} | set(isa["cpu_supports"])
    assert info["best"] == list(info["variants"])[-1]
    for v, k in info["variants"].items():
        assert k["fma_flops_per_step"] == k["fma_chains"] * k["vector_floats"] * 2, v
        assert k["mixed_flops_per_step"] == (k["mixed_fma_chains"] * 2 + k["mixed_add_chains"]) * k["vector_floats"]


@pytest.mark.parametrize("mixed", [False, True])
def test_fma_peak_counts_the_flops_its_chains_did(E, info, mixed):
    """Each chain runs a <- a * m + c (m = 1 - 2^-10, c = 2^-10) and converges to its fixed point 1 (in
    float32 to within 2^-15: below that a step's change rounds away); add chains b <- b + c start at 0.25 k
    and end at 0.25 k + iters * 2^-10 (exact in float32 here).  So the checksum the kernel leaves in the
    sink is known from the chain counts, and the FLOPs it returns must be threads x iters x FLOPs per step."""
    threads = torch.get_num_threads()
    iters = 40_000  # enough for (1 - 2^-10)^iters to vanish: every FMA chain reaches its fixed point
    for v, k in info["variants"].items():
        sink = torch.zeros(1)
        flops = E.fma_peak(sink, v, iters, mixed)
        per_step = k["mixed_flops_per_step"] if mixed else k["fma_flops_per_step"]
        assert flops == threads * iters * per_step, v
        fma_chains = k["mixed_fma_chains"] if mixed else k["fma_chains"]
        add_chains = k["mixed_add_chains"] if mixed else 0
        lanes = k["vector_floats"]
        want = fma_chains * lanes * 1.0 + sum(0.25 * j + iters / 1024 for j in range(add_chains)) * lanes
        assert sink.item() == pytest.approx(threads * want, rel=1e-4), v


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 1000, 65537, 1 << 20])
def test_memory_kernels_touch_every_element(E, info, n):
    """Sizes around the vector and unroll widths; offset 1 starts the buffer off the vector alignment."""
    for v in info["variants"]:
        for offset in (0, 1):
            base = torch.arange(n + offset, dtype=torch.float32) % 7 - 3
            x = base[offset:]
            assert E.mem_read(x, v).item() == pytest.approx(x.double().sum().item(), abs=1e-3), (v, n, offset)
            out = torch.full((n + offset,), -1.0)[offset:]
            E.mem_write(out, 2.5, v)
            assert bool((out == 2.5).all()), (v, n, offset)
            dst = torch.full((n + offset,), -1.0)[offset:]
            E.mem_copy(x, dst, v)
            assert torch.equal(dst, x), (v, n, offset)


def test_best_is_the_highest_variant(E, info):
    x = torch.ones(100)
    assert E.mem_read(x, "best").item() == 100.0
    assert E.fma_peak(torch.zeros(1), "best", 10, False) == \
        torch.get_num_threads() * 10 * info["variants"][info["best"]]["fma_flops_per_step"]


def test_bad_arguments_are_clear_errors(E):
    with pytest.raises(RuntimeError, match=r"envcheck::fma_peak: this CPU cannot run the SSE9 kernels \(it runs: "
                                           r"DEFAULT.*; or \"best\"\)"):
        E.fma_peak(torch.zeros(1), "SSE9", 10, False)
    with pytest.raises(RuntimeError, match=r"envcheck::fma_peak: expected iters >= 1, got 0"):
        E.fma_peak(torch.zeros(1), "best", 0, False)
    with pytest.raises(RuntimeError, match=r"envcheck::mem_read: expected x of dtype torch.float32"):
        E.mem_read(torch.ones(4, dtype=torch.float64), "best")
    with pytest.raises(RuntimeError, match=r"envcheck::mem_copy: expected a contiguous x"):
        E.mem_copy(torch.ones(4, 4).t(), torch.empty(4, 4), "best")
    with pytest.raises(RuntimeError, match=r"envcheck::mem_copy: expected out of shape"):
        E.mem_copy(torch.ones(4), torch.empty(5), "best")


@pytest.mark.gpu
def test_cuda_microkernels(E):
    if not torch.cuda.is_available():
        pytest.skip("no GPU")
    sink = torch.zeros(1, device="cuda")
    props = torch.cuda.get_device_properties(0)
    flops = E.fma_peak(sink, "best", 100, False)
    # 8 blocks of 256 threads per SM, 8 FFMA chains each (csrc/ops/cuda/launchers.h)
    assert flops == props.multi_processor_count * 8 * 256 * 100 * 8 * 2
    torch.cuda.synchronize()
    assert sink.item() == 0.0  # the chains never reach the impossible value that would write it
    for n in (0, 1, 17, (1 << 20) + 3):
        for offset in (0, 1):
            x = (torch.arange(n + offset, dtype=torch.float32, device="cuda") % 7 - 3)[offset:]
            assert E.mem_read(x, "best").item() == pytest.approx(x.double().sum().item(), abs=1e-3)
            out = torch.full((n + offset,), -1.0, device="cuda")[offset:]
            E.mem_write(out, 2.5, "best")
            assert bool((out == 2.5).all())
            dst = torch.empty_like(x)
            E.mem_copy(x, dst, "best")
            assert torch.equal(dst, x)
    with pytest.raises(RuntimeError, match=r"on CUDA isa must be \"best\""):
        E.mem_read(torch.ones(4, device="cuda"), "AVX2")
