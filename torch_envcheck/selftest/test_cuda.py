"""The GPU stack: CUDA initialises, every device computes with torch's own kernels, cuDNN works and a
large allocation succeeds.  Skipped (with the reason) on a machine without an NVIDIA GPU."""

from __future__ import annotations

import os

from torch_envcheck.selftest._support import DOCTOR, classify_cuda_error, fail

ENV_ALLOC_CAP = "TORCH_ENVCHECK_SELFTEST_ALLOC_GIB"
DEFAULT_ALLOC_CAP_GIB = 8.0  # enough to prove a big block works, small enough to stay quick


def test_cuda_initialises(torch, gpu):
    # The gpu fixture already failed or skipped when CUDA does not initialise; check what it promises.
    props = torch.cuda.get_device_properties(gpu)
    if props.total_memory <= 0:
        fail("TE303", f"cuda:{gpu} ({props.name}) reports no memory", f"run `{DOCTOR}`")


def _first_line(exc):
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"


def test_torch_matmul_on_device(torch, gpu):
    g = torch.Generator().manual_seed(7)
    a, b = torch.randn(257, 129, generator=g), torch.randn(129, 63, generator=g)
    device = torch.device("cuda", gpu)
    try:
        got = (a.to(device) @ b.to(device)).cpu()
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}"
        if "no kernel image" in text:
            cap = torch.cuda.get_device_capability(gpu)
            fail("TE401", f"torch has no kernels for cuda:{gpu} (compute capability {cap[0]}.{cap[1]}; "
                          f"this build has {' '.join(torch.cuda.get_arch_list())}): {_first_line(exc)}",
                 "install a torch build for this GPU: `torch-envcheck advise`")
        code, fix = classify_cuda_error(text)
        fail(code, f"a matmul on cuda:{gpu} fails: {_first_line(exc)}", fix)
    # TF32 (if a user enabled it) stays within 1e-2 relative; wrong results are far off.
    err = ((got.double() - a.double() @ b.double()).norm() / (a.double() @ b.double()).norm()).item()
    if not err < 1e-2:
        fail("TE303", f"torch's matmul on cuda:{gpu} is wrong (relative error {err:.1e})", f"run `{DOCTOR}`")


def test_cudnn_convolution_matches_cpu(torch, gpu):
    if not torch.backends.cudnn.is_available():
        fail("TE503", "torch cannot load cuDNN", "reinstall torch (its nvidia-cudnn wheel): `torch-envcheck advise`")
    g = torch.Generator().manual_seed(3)
    x, w = torch.randn(2, 3, 17, 19, generator=g), torch.randn(5, 3, 3, 3, generator=g)
    expected = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    device = torch.device("cuda", gpu)
    try:
        # Enabled, deterministic and without TF32, so the result is comparable with the CPU's.
        with torch.backends.cudnn.flags(enabled=True, benchmark=False, deterministic=True, allow_tf32=False):
            got = torch.nn.functional.conv2d(x.to(device), w.to(device), padding=1).cpu()
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}"
        if "version incompatibility" in text:
            fail("TE502", f"cuDNN does not match torch: {_first_line(exc)}",
                 "remove other cuDNN libraries from LD_LIBRARY_PATH; `torch-envcheck` names them")
        fail("TE503", f"a cuDNN convolution on cuda:{gpu} fails (creating the cuDNN handle or running it): "
                      f"{_first_line(exc)}", f"run `{DOCTOR}`: it checks LD_LIBRARY_PATH and the driver")
    try:
        torch.testing.assert_close(got.double(), expected, rtol=1e-4, atol=1e-4)
    except AssertionError as exc:
        fail("TE503", f"the cuDNN convolution on cuda:{gpu} disagrees with the CPU:\n{exc}", f"run `{DOCTOR}`")


def _alloc_cap_bytes() -> int:
    """TORCH_ENVCHECK_SELFTEST_ALLOC_GIB in bytes: a positive, finite number of GiB (at most 1 TiB);
    anything else (nan, inf, negative, zero, not a number) is the default."""
    raw = os.environ.get(ENV_ALLOC_CAP, "")
    try:
        gib = float(raw) if raw else DEFAULT_ALLOC_CAP_GIB
    except ValueError:
        gib = DEFAULT_ALLOC_CAP_GIB
    if not (0 < gib <= 1024):  # `not (...)`: nan fails it too
        gib = DEFAULT_ALLOC_CAP_GIB
    return int(gib * 2**30)


def test_large_allocation(torch, gpu):
    free, total = torch.cuda.mem_get_info(gpu)
    # 80% of what is free now, in one block, capped (TORCH_ENVCHECK_SELFTEST_ALLOC_GIB) to stay quick.
    nbytes = min(int(free * 0.8), _alloc_cap_bytes())
    device = torch.device("cuda", gpu)
    try:
        block = torch.empty(nbytes, dtype=torch.uint8, device=device)
        block.fill_(7)  # touch every page: an allocation the driver cannot back fails here, not later
        ends = (int(block[0]), int(block[-1]))
        del block
    except Exception as exc:
        fail("TE303", f"allocating {nbytes / 2**30:.1f} GiB on cuda:{gpu} (of {free / 2**30:.1f} GiB free, "
                      f"{total / 2**30:.1f} GiB total) fails: {_first_line(exc)}",
             "see which processes hold GPU memory with `nvidia-smi`; set "
             f"{ENV_ALLOC_CAP} lower to test a smaller block")
    finally:
        torch.cuda.empty_cache()  # give the block back so the rest of the session has the memory
    if ends != (7, 7):
        fail("TE303", f"a {nbytes / 2**30:.1f} GiB block on cuda:{gpu} does not hold what was written: {ends}",
             f"run `{DOCTOR}`")
