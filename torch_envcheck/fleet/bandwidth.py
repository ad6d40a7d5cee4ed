"""Collective bandwidth, measured the way nccl-tests does: a sweep of message sizes (1 KiB up to
256 MiB, capped by the memory of the tightest node), a warm-up, then the median time per iteration
(CUDA events with NCCL on GPUs; perf_counter with gloo on CPUs), the slowest rank's median counting.

    algbw = bytes / time
    busbw = algbw * 2(n-1)/n   (all_reduce)      algbw * (n-1)/n (all_gather)      algbw (broadcast)

(the factors of nccl-tests' doc/PERFORMANCE.md).  For all_gather, `bytes` is the gathered output,
each rank contributing bytes/n.  All ranks run the same plan, which rank 0 wrote to the store, and
stop at the same size: the decision to go on is taken from values every rank has (an all_reduce).
"""

from __future__ import annotations

import statistics
import time

OPS = ("all_reduce", "all_gather", "broadcast")
MIN_BYTES = 1 << 10
MAX_BYTES = 256 << 20
ELEMENT = 4  # float32


def bus_factor(op: str, n: int) -> float:
    if n <= 1:
        return 0.0 if op != "broadcast" else 1.0
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n, "broadcast": 1.0}[op]


def sizes(max_bytes: int, min_bytes: int = MIN_BYTES, factor: int = 2) -> list[int]:
    out, s = [], min_bytes
    while s <= max_bytes:
        out.append(s)
        s *= factor
    return out


def mem_available() -> int | None:
    """MemAvailable of this host in bytes (Linux), else None."""
    from torch_envcheck._util import safe_open  # noqa: PLC0415
    try:
        for line in safe_open.read_text("/proc/meminfo", 64 << 10, overflow="head").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_cap(records, max_bytes: int, gpu: bool) -> tuple[int, str]:
    """The largest message every rank can afford: a quarter of the free GPU memory, or of the free
    host memory shared by the ranks of that host (gloo keeps copies of the buffer)."""
    per_host: dict[str, int] = {}
    for r in records:
        host = str((r.get("rank_facts") or {}).get("host"))
        per_host[host] = per_host.get(host, 0) + 1
    cap, why = max_bytes, "the sweep's top size (--bandwidth-max)"
    for r in records:
        facts = r.get("rank_facts") or {}
        free = facts.get("gpu_free_bytes") if gpu else facts.get("mem_available_bytes")
        if not isinstance(free, int) or isinstance(free, bool) or free <= 0:
            continue
        share = free // (4 if gpu else 4 * per_host.get(str(facts.get("host")), 1))
        if share < cap:
            cap = share
            why = (f"a quarter of rank {r['rank']}'s free GPU memory" if gpu else
                   f"a quarter of host memory per rank on {facts.get('host')} "
                   f"({per_host.get(str(facts.get('host')), 1)} ranks share it)")
    cap = max(MIN_BYTES, 1 << (max(cap, 1).bit_length() - 1))
    return cap, why


def link_type(records, backend: str) -> str:
    hosts = {str((r.get("rank_facts") or {}).get("host")) for r in records}
    if backend == "gloo":
        return "TCP over loopback (one host)" if len(hosts) == 1 else "network (TCP between hosts)"
    links = {str((r.get("rank_facts") or {}).get("gpu_link")) for r in records}
    intra = links.pop() if len(links) == 1 else "mixed (" + ", ".join(sorted(links)) + ")"
    if len(hosts) == 1:
        return f"one host: {intra}"
    return f"network between hosts (NCCL picks InfiniBand or sockets); within a host: {intra}"


class _Timer:
    def __init__(self, device, limit_s: float = 60.0):
        self.device = device
        # NCCL returns before its kernels finish; waiting for them with torch.cuda.synchronize()
        # would hang with a stuck collective, so the last event is polled against this limit.
        self.limit_s = limit_s
        if device.type == "cuda":
            import torch  # noqa: PLC0415
            self.torch = torch
            self.name = "CUDA events"
        else:
            self.name = "time.perf_counter"

    def run(self, fn, iters: int) -> list[float]:
        """Seconds per iteration."""
        if self.device.type != "cuda":
            out = []
            for _ in range(iters):
                t0 = time.perf_counter()
                fn()
                out.append(time.perf_counter() - t0)
            return out
        torch = self.torch
        pairs = []
        for _ in range(iters):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            pairs.append((start, end))
        end = time.monotonic() + self.limit_s
        while not pairs[-1][1].query():
            if time.monotonic() > end:
                raise TimeoutError(f"the collectives did not complete within {self.limit_s:g} s")
            time.sleep(0.0005)
        return [s.elapsed_time(e) / 1000.0 for s, e in pairs]


def sweep(dist, group, control_group, rank: int, world: int, device, plan: dict) -> dict:
    """Run the plan on every rank; rank 0 returns the results (others return what they saw).
    `group` carries the measured collectives (NCCL or gloo), `control_group` (gloo) the agreement
    on each size's slowest median."""
    import torch  # noqa: PLC0415

    ops = [op for op in plan.get("ops", ["all_reduce"]) if op in OPS]
    iters, warmup = int(plan.get("iters", 20)), int(plan.get("warmup", 5))
    budget = float(plan.get("seconds", 30.0))
    timer = _Timer(device, float(plan.get("wait_limit", budget)))
    # all_gather_single is the new name (all_gather_into_tensor warns that it is deprecated)
    gather_into = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    results: dict[str, list] = {op: [] for op in ops}
    out = {"ops": results, "iters": iters, "warmup": warmup, "timer": timer.name, "dtype": "float32",
           "error": None}
    notes: list[str] = []
    try:
        for op in ops:
            spent = 0.0
            for nbytes in plan["sizes"]:
                count = max(1, nbytes // ELEMENT)
                if op == "all_gather":
                    chunk = max(1, count // world)
                    count = chunk * world
                    src = torch.ones(chunk, dtype=torch.float32, device=device)
                    outs = torch.empty(count, dtype=torch.float32, device=device)
                    fn = lambda: gather_into(outs, src, group=group)  # noqa: E731
                else:
                    buf = torch.ones(count, dtype=torch.float32, device=device)
                    fn = (lambda: dist.all_reduce(buf, group=group)) if op == "all_reduce" else \
                        (lambda: dist.broadcast(buf, src=0, group=group))  # noqa: E731
                timer.run(fn, warmup)
                med = statistics.median(timer.run(fn, iters))
                slowest = torch.tensor([med], dtype=torch.float64)
                dist.all_reduce(slowest, op=dist.ReduceOp.MAX, group=control_group)
                t = float(slowest.item())
                real_bytes = count * ELEMENT
                algbw = real_bytes / t / 1e9 if t > 0 else None
                results[op].append({"bytes": real_bytes, "count": count, "iters": iters, "time_us": t * 1e6,
                                    "algbw_gbps": algbw,
                                    "busbw_gbps": algbw * bus_factor(op, world) if algbw is not None else None})
                # Every rank sees the same t (the all_reduce above), so every rank takes the same
                # decision here; wall clocks would differ from rank to rank and split the plan.
                spent += t * (iters + warmup)
                if spent + 2 * t * (iters + warmup) > budget / len(ops) and nbytes != plan["sizes"][-1]:
                    notes.append(f"{op} stopped at {human(real_bytes)}: the next size would pass its share "
                                 f"of the {budget:g} s budget (--bandwidth-seconds)")
                    break
                del fn
    except Exception as exc:  # a collective timed out or a rank died part-way: keep what was measured
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
    if notes:
        out["budget_note"] = "; ".join(notes)
    return out


def human(n: int) -> str:
    from torch_envcheck.fleet.render import human_bytes  # noqa: PLC0415
    return human_bytes(n)
