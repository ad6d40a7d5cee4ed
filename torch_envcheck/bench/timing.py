"""Timing: the custom op and its built-in side by side, and single functions (the peaks).

paired(): the two sides alternate sample by sample (custom, built-in, built-in, custom, ...), each
sample one call (or a few, for calls under a millisecond), and the speed ratio is the median over the
pairs of built-in time / custom time.  On a machine shared with other processes a call of a
multi-threaded op waits whenever one of its worker threads is not running (on Linux in steps of the
scheduler tick: the times of a 2-thread sum cluster at 4, 8, 12, 16 ms); such waits come in bursts, and
a side measured for a few hundred milliseconds at a time could catch a burst the other side did not (a
sum ran at "0.62x" torch.sum that way).  Adjacent calls share the machine's state, so the per-pair
ratios see the same bursts, and their median is what the two kernels' speeds are.  The per-side medians
over the same samples give the rates.

measure(): one function with torch.utils.benchmark's Timer.blocked_autorange (warm-up excluded; on CUDA
it synchronises the device around each block).
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


def paired(custom, builtin, min_run_time: float, sync=None, min_pairs: int = 10,
           max_pairs: int = 100_000) -> tuple[Timing, Timing, list]:
    """(custom times, built-in times, per-pair ratios built-in / custom), each time per call in seconds,
    sampled alternately for about 2 * min_run_time in all (and at least min_pairs pairs)."""
    import gc  # noqa: PLC0415
    import time  # noqa: PLC0415

    sync = sync or (lambda: None)
    clock = time.perf_counter

    def sample(fn, k: int) -> float:
        sync()
        t0 = clock()
        for _ in range(k):
            fn()
        sync()
        return (clock() - t0) / k

    for fn in (custom, builtin):  # lazy initialisation, allocator and cache warm-up
        fn()
    # Calls per sample: enough for a millisecond, so that the clock and sync overheads stay small.
    k = max(1, min(10_000, int(1e-3 / max(1e-9, min(sample(custom, 1), sample(builtin, 1))))))
    tc, tb, ratios = Timing(), Timing(), []
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        i = 0
        while i < max_pairs and (i < min_pairs or clock() - start < 2 * min_run_time):
            if i % 2 == 0:
                c, b = sample(custom, k), sample(builtin, k)
            else:
                b, c = sample(builtin, k), sample(custom, k)
            tc.times.append(c)
            tb.times.append(b)
            ratios.append(b / c if c > 0 else float("nan"))
            i += 1
    finally:
        if was_enabled:
            gc.enable()
    return tc, tb, ratios
