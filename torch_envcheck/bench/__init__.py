"""`torch-envcheck bench`: the custom kernels timed against torch's built-in ops, and the machine's
own limits (memory bandwidth, built-in matmul rate) measured in the same run.

Python API: ``from torch_envcheck.bench import run_benchmarks; report = run_benchmarks(quick=True)``.
"""

from __future__ import annotations

__all__ = ["run_benchmarks"]


def run_benchmarks(*args, **kwargs):
    """See torch_envcheck.bench.suite.run_benchmarks."""
    from torch_envcheck.bench.suite import run_benchmarks as _impl
    return _impl(*args, **kwargs)
