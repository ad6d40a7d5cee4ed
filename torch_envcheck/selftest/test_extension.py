"""The compiled extension: it loads, registers its operators, and each kernel agrees with torch's own op
on the CPU and on every GPU (the same inputs, torch's result as the reference)."""

from __future__ import annotations

import math

import pytest

from torch_envcheck.selftest._support import REBUILD, fail

OPS = ("triad", "sum", "softmax", "bias_gelu", "sgemm")


def test_extension_loads(extension):
    if extension["module"] is not None:
        return
    st = extension.get("status") or {}
    stale = (st.get("stale_aot") or {}).get("reason")
    if st.get("state") == "stale" or stale:
        fail("TE701", f"the compiled extension does not fit this torch ({stale or st.get('error')}), and "
                      f"building a fresh one failed: {extension['error']}", REBUILD)
    fail("TE703", f"the extension could not be loaded or built: {extension['error']}", f"{REBUILD} --verbose")


def _op(torch, extension, name):
    """torch.ops.envcheck.<name>, or a failure that says the loaded binary lacks it."""
    try:
        return getattr(torch.ops.envcheck, name)
    except (AttributeError, RuntimeError) as exc:
        st = extension["status"]
        fail("TE703", f"torch.ops.envcheck.{name} is not registered: the loaded extension ({st.get('path')}, "
                      f"{st.get('mode')} build) does not define it ({type(exc).__name__}: {exc}); it was "
                      "built from other sources than this torch_envcheck's", f"{REBUILD} --verbose")


@pytest.mark.parametrize("name", OPS)
def test_op_registered(torch, loaded_extension, name):
    op = _op(torch, loaded_extension, name)
    assert callable(op)


def _inputs(torch, name, device):
    """Inputs with awkward sizes (not multiples of any vector or block width), the same on every device."""
    g = torch.Generator().manual_seed(1234)

    def randn(*shape):
        return torch.randn(*shape, generator=g).to(device)

    if name == "triad":
        return (randn(100_003), randn(100_003), 3.25)
    if name == "sum":
        return (randn(100_003),)
    if name == "softmax":
        x = randn(37, 1027)
        x[0] += 1000.0  # a row that overflows exp() unless the kernel subtracts the row maximum
        return (x,)
    if name == "bias_gelu":
        return (randn(37, 771), randn(771))
    if name == "sgemm":
        return (randn(129, 257), randn(257, 65))
    raise AssertionError(name)


def _reference(torch, name, args):
    """torch's built-in result, computed in float64 on the CPU so that it is the better of the two."""
    d = [a.double().cpu() if isinstance(a, torch.Tensor) else a for a in args]
    if name == "triad":
        return d[0] + d[2] * d[1]
    if name == "sum":
        return d[0].sum()
    if name == "softmax":
        return torch.softmax(d[0], dim=-1)
    if name == "bias_gelu":
        return torch.nn.functional.gelu(d[0] + d[1])  # the exact (erf) GELU
    if name == "sgemm":
        return d[0] @ d[1]
    raise AssertionError(name)


def _tolerance(name, args):
    # fp32 rounding: elementwise ops are within a few ulp; reductions and products grow with their length.
    if name == "sum":
        return {"rtol": 0.0, "atol": 1e-6 * float(args[0].abs().sum())}
    if name == "sgemm":
        return {"rtol": 1e-4, "atol": 1e-4 * math.sqrt(args[0].shape[1])}
    return {"rtol": 1e-5, "atol": 1e-6}


def _device_error(torch, device, name, exc, extension):
    text = f"{type(exc).__name__}: {exc}".strip()
    meta = extension["status"].get("meta") or {}
    if "no kernel image" in text:
        cap = torch.cuda.get_device_capability(device)
        fail("TE702", f"envcheck::{name} has no kernel for {device} (compute capability {cap[0]}.{cap[1]}): {text}",
             f"TORCH_CUDA_ARCH_LIST={cap[0]}.{cap[1]} {REBUILD}")
    if device.type == "cuda" and ("CUDA' backend" in text or "CUDA backend" in text):
        why = (meta.get("cuda") or {}).get("reason") or "it was compiled without CUDA"
        fail("TE703", f"envcheck::{name} has no CUDA kernel in the loaded extension ({why})",
             f"make nvcc reachable (CUDA_HOME), then {REBUILD} --verbose")
    fail("TE704", f"envcheck::{name} fails on {device}: {text}", f"{REBUILD} --verbose, then report the error")


@pytest.mark.parametrize("name", OPS)
def test_op_matches_torch(torch, loaded_extension, device, name):
    op = _op(torch, loaded_extension, name)
    args = _inputs(torch, name, device)
    try:
        out = op(*args)
        if device.type == "cuda":
            torch.cuda.synchronize(device)  # kernel errors surface at the next synchronisation
    except Exception as exc:
        _device_error(torch, device, name, exc, loaded_extension)
    expected = _reference(torch, name, args)
    if not isinstance(out, torch.Tensor) or out.device != device or out.dtype != torch.float32 \
            or tuple(out.shape) != tuple(expected.shape):
        fail("TE704", f"envcheck::{name} on {device} returned "
                      f"{type(out).__name__}{'' if not isinstance(out, torch.Tensor) else f' {out.dtype} {tuple(out.shape)} on {out.device}'}"
                      f"; expected float32 {tuple(expected.shape)} on {device}", f"{REBUILD} --verbose")
    try:
        torch.testing.assert_close(out.cpu().double(), expected, **_tolerance(name, args))
    except AssertionError as exc:
        fail("TE704", f"envcheck::{name} on {device} disagrees with torch:\n{exc}",
             f"{REBUILD} --verbose; if it persists, report it with the output of `torch-envcheck info`")
