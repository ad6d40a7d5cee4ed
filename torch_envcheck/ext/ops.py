"""The custom kernels as Python functions: triad, sum, softmax, bias_gelu, sgemm.

They are real torch operators in the `envcheck` namespace (torch.ops.envcheck.*), defined in
csrc/ops/<op>.cpp (TORCH_LIBRARY_FRAGMENT) with CPU kernels in csrc/ops/cpu/<op>_kernel.cpp and CUDA
kernels in csrc/ops/cuda/<op>_kernel.cu (+ <op>_glue.cpp).  The first call loads the compiled extension
(building it if needed, see torch_envcheck.ext.extension) and registers, once, what the C++ side does not:
fake (meta) kernels, so torch.compile and torch.library.opcheck can trace the ops, and autograd formulas
for the differentiable ones.
"""

from __future__ import annotations

import json
import math
import threading

import torch

from torch_envcheck.ext import extension

__all__ = ["load", "triad", "sum", "softmax", "bias_gelu", "sgemm", "cpu_kernel_isa", "parallel_threads_used"]

_lock = threading.Lock()
_registered = False


def load():
    """Load the extension and register fakes/autograd; returns the torch.ops.envcheck namespace."""
    global _registered
    if _registered:
        return torch.ops.envcheck
    with _lock:
        if not _registered:
            extension.load()
            _register_fakes()
            _register_autograd()
            _registered = True
    return torch.ops.envcheck


# ---------------------------------------------------------------------------------------------
# Public wrappers

def triad(b: torch.Tensor, c: torch.Tensor, s: float = 1.0, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """b + s * c (STREAM triad).  `out`, when given, must be contiguous with b's shape and dtype."""
    ops = load()
    if out is not None:
        ops.triad_out(b, c, float(s), out)
        return out
    return ops.triad(b, c, float(s))


def sum(x: torch.Tensor) -> torch.Tensor:  # noqa: A001  (mirrors torch.sum)
    """Sum of all elements as a 0-dim float32 tensor, fp32 accumulation, deterministic order."""
    return load().sum(x)


def softmax(x: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over the last dimension (numerically stable)."""
    ops = load()
    if out is None:
        return ops.softmax(x)
    ops.softmax_out(x, out)
    return out


def bias_gelu(x: torch.Tensor, bias: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """gelu(x + bias) with the exact erf GELU, in one pass; bias has shape (x.size(-1),)."""
    ops = load()
    if out is None:
        return ops.bias_gelu(x, bias)
    ops.bias_gelu_out(x, bias, out)
    return out


def sgemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """float32 a @ b by our own kernels (no BLAS library)."""
    return load().sgemm(a, b)


def cpu_kernel_isa() -> dict:
    """{"compiled": [...], "selected": "AVX512", ...}: the CPU kernel variants and the one in use."""
    return json.loads(load().cpu_kernel_isa())


def parallel_threads_used(n: int = 64) -> int:
    """How many distinct threads at::parallel_for used for n small tasks (1 means a serial build)."""
    return int(load().parallel_threads_used(n))


# ---------------------------------------------------------------------------------------------
# Fake (meta) kernels: shapes and dtypes only, the same checks the real kernels make where a
# shape is at stake.

def _register_fakes():
    lib = "envcheck::"

    @torch.library.register_fake(lib + "triad")
    def _(b, c, s):
        torch._check(b.shape == c.shape, lambda: f"envcheck::triad: expected b and c of the same shape, got "
                                                  f"{tuple(b.shape)} and {tuple(c.shape)}")
        return b.new_empty(b.shape)

    @torch.library.register_fake(lib + "triad_out")
    def _(b, c, s, out):
        return None

    @torch.library.register_fake(lib + "sum")
    def _(x):
        return x.new_empty(())

    @torch.library.register_fake(lib + "softmax")
    def _(x):
        torch._check(x.dim() >= 1, lambda: "envcheck::softmax: expected x with at least 1 dimension")
        return x.new_empty(x.shape)

    @torch.library.register_fake(lib + "softmax_out")
    def _(x, out):
        return None

    @torch.library.register_fake(lib + "bias_gelu")
    def _(x, bias):
        torch._check(x.dim() >= 1 and bias.dim() == 1 and bias.shape[0] == x.shape[-1],
                     lambda: f"envcheck::bias_gelu: expected bias of shape ({x.shape[-1] if x.dim() else '?'},)")
        return x.new_empty(x.shape)

    @torch.library.register_fake(lib + "bias_gelu_out")
    def _(x, bias, out):
        return None

    @torch.library.register_fake(lib + "sgemm")
    def _(a, b):
        torch._check(a.dim() == 2 and b.dim() == 2, lambda: "envcheck::sgemm: expected 2-D matrices")
        torch._check(a.shape[1] == b.shape[0], lambda: f"envcheck::sgemm: expected a.size(1) == b.size(0), got "
                                                        f"{tuple(a.shape)} and {tuple(b.shape)}")
        return a.new_empty((a.shape[0], b.shape[1]))


# ---------------------------------------------------------------------------------------------
# Autograd formulas (the *_out ops are not differentiable, like torch's out= variants).

def _register_autograd():
    ops = torch.ops.envcheck

    def triad_setup(ctx, inputs, output):
        ctx.s = inputs[2]

    def triad_backward(ctx, grad):
        return grad, grad * ctx.s, None

    torch.library.register_autograd("envcheck::triad", triad_backward, setup_context=triad_setup)

    def sum_setup(ctx, inputs, output):
        ctx.shape = inputs[0].shape

    def sum_backward(ctx, grad):
        return grad.expand(ctx.shape)

    torch.library.register_autograd("envcheck::sum", sum_backward, setup_context=sum_setup)

    def softmax_setup(ctx, inputs, output):
        ctx.save_for_backward(output)

    def softmax_backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return y * (grad - (grad * y).sum(-1, keepdim=True))

    torch.library.register_autograd("envcheck::softmax", softmax_backward, setup_context=softmax_setup)

    def bias_gelu_setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])

    def bias_gelu_backward(ctx, grad):
        x, bias = ctx.saved_tensors
        z = x + bias
        # d/dz [z * Phi(z)] = Phi(z) + z * phi(z)
        dgelu = 0.5 * (1.0 + torch.erf(z * (1.0 / math.sqrt(2.0)))) + z * torch.exp(-0.5 * z * z) / math.sqrt(
            2.0 * math.pi)
        gx = grad * dgelu
        gb = gx.reshape(-1, x.shape[-1]).sum(0) if ctx.needs_input_grad[1] else None
        return (gx if ctx.needs_input_grad[0] else None), gb

    torch.library.register_autograd("envcheck::bias_gelu", bias_gelu_backward, setup_context=bias_gelu_setup)

    def sgemm_setup(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])

    def sgemm_backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = ops.sgemm(grad, b.t()) if ctx.needs_input_grad[0] else None
        gb = ops.sgemm(a.t(), grad) if ctx.needs_input_grad[1] else None
        return ga, gb

    torch.library.register_autograd("envcheck::sgemm", sgemm_backward, setup_context=sgemm_setup)
