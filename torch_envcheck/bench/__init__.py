"""`torch-envcheck bench`: the custom kernels timed against torch's built-in ops, and both placed on the
machine's roofline (peak FP32 arithmetic and memory bandwidth measured by the extension's microkernels
in the same run; see roofline.py).

Python API: ``from torch_envcheck.bench import run_benchmarks; report = run_benchmarks(quick=True)``.
"""

from __future__ import annotations

__all__ = ["run_benchmarks"]


def run_benchmarks(*args, **kwargs):
    """See torch_envcheck.bench.suite.run_benchmarks."""
    from torch_envcheck.bench.suite import run_benchmarks as _impl
    return _impl(*args, **kwargs)
