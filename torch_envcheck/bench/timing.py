"""Timing with torch.utils.benchmark, interleaving the custom op and its built-in.

Each side is measured with Timer.blocked_autorange (the Timer runs the statement before measuring to
size its blocks, so warm-up is excluded; on CUDA it synchronises the device around each block).
The two sides alternate in rounds (custom, built-in, built-in, custom, ...) so that slow drifts of
the machine (frequency, other load) hit both alike; all per-run times of a side are pooled.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


def _torch_benchmark():
    """torch.utils.benchmark, imported without the warning its import chain prints
    (torch.utils.cpp_extension logs "No CUDA runtime is found, using CUDA_HOME=..." at import time on
    a machine without a GPU): it says nothing about the benchmark and reads like a fault."""
    import logging  # noqa: PLC0415

    log = logging.getLogger("torch.utils.cpp_extension")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        from torch.utils import benchmark  # noqa: PLC0415
    finally:
        log.setLevel(level)
    return benchmark


@dataclass
class Timing:
    times: list = field(default_factory=list)  # seconds per call, one entry per measured block

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[2] - q[0]

    @property
    def best(self) -> float:
        return min(self.times)

    def as_dict(self) -> dict:
        return {"median_s": self.median, "iqr_s": self.iqr, "best_s": self.best, "blocks": len(self.times)}


def measure(fn, min_run_time: float, num_threads: int, into: Timing | None = None) -> Timing:
    benchmark = _torch_benchmark()

    into = into or Timing()
    fn()  # first call outside the Timer: lazy initialisation, allocator warm-up
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=num_threads)
    m = timer.blocked_autorange(min_run_time=min_run_time)
    into.times.extend(m.times)
    return into


def interleaved(custom, builtin, rounds: int, min_run_time: float, num_threads: int) -> tuple[Timing, Timing]:
    tc, tb = Timing(), Timing()
    for r in range(rounds):
        order = [(custom, tc), (builtin, tb)] if r % 2 == 0 else [(builtin, tb), (custom, tc)]
        for fn, acc in order:
            measure(fn, min_run_time, num_threads, into=acc)
    return tc, tb
