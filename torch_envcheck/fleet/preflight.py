"""A rank's part of `fleet --preflight`: time its own compute and its ring links, the same way on
every rank and at the same moment, so that rank 0 can name the node that would slow the job.

Compute: a float32 matmul (torch.matmul, and the extension's own sgemm when it is already built:
the preflight never compiles) and a memory-bound STREAM triad, each the fastest of several
repetitions.  The fastest, not the median: on a host shared by several ranks the scheduler adds
pauses that say nothing about the node, while a slow node (thermal or power throttling, a bad DIMM,
a GPU at a lower clock) is slow on every repetition.  CPU ranks are timed on one thread each, so that
ranks sharing a host compare; GPU ranks with CUDA events on their own device.

Links: every rank pings its ring neighbour (rank i -> i+1, the last -> 0) with a fixed message
and times the round trip; the links are scheduled in at most three rounds in which no rank is in two
pairs, so the test takes the same time for 8 ranks as for 1,024.  The schedule runs twice and each
link keeps its fastest round trip: a burst of load from outside the job rarely hits the same link
in both passes, while a slow link or node is slow in both.

All ranks end with one all_gather of a fixed-size float tensor on the gloo group: no pickled
objects cross ranks (a rank's bytes are a stranger's).  The test-only knob TORCH_ENVCHECK_TEST_SLOW_RANK
(a rank number) makes that rank repeat its compute TORCH_ENVCHECK_TEST_SLOW_FACTOR times (default 4)
and wait before each link reply, so the tests can check the analysis on a fleet with one slow rank.
"""

from __future__ import annotations

import math
import os
import time

# the per-rank vector gathered to rank 0; its order is the wire format between ranks
FIELDS = ("matmul_s", "sgemm_s", "triad_s", "link_s")
CPU_MATMUL_N = 256
GPU_MATMUL_N = 4096
CPU_TRIAD_ELEMENTS = 4 << 20     # 16 MiB per array: past most last-level caches per core
GPU_TRIAD_ELEMENTS = 64 << 20
CPU_LINK_BYTES = 4 << 20      # large enough that copying, not scheduling latency, sets the time
GPU_LINK_BYTES = 64 << 20
REPS = 9
LINK_REPS = 15
LINK_WARMUP = 3
PASSES = 2                   # compute and links twice, the fastest kept: a burst of outside load rarely hits both
ENV_SLOW_RANK = "TORCH_ENVCHECK_TEST_SLOW_RANK"
ENV_SLOW_FACTOR = "TORCH_ENVCHECK_TEST_SLOW_FACTOR"
SLOW_LINK_DELAY_S = 0.02


def link_pairs(n: int) -> list[tuple[int, int]]:
    """The ring links (i, i+1 mod n) measured by the preflight: n links, or one for two ranks."""
    if n < 2:
        return []
    if n == 2:
        return [(0, 1)]
    return [(i, (i + 1) % n) for i in range(n)]


def link_rounds(n: int) -> list[list[tuple[int, int]]]:
    """The links in rounds where no rank is in two pairs: greedy in ring order, at most three
    rounds (an odd ring needs the third)."""
    rounds: list[list[tuple[int, int]]] = []
    busy: list[set] = []
    for a, b in link_pairs(n):
        for i, used in enumerate(busy):
            if a not in used and b not in used:
                rounds[i].append((a, b))
                used.update((a, b))
                break
        else:
            rounds.append([(a, b)])
            busy.append({a, b})
    return rounds


def turns(hosts: list) -> list[int]:
    """Each rank's turn among the ranks of its host (0, 1, ... in rank order): CPU ranks sharing a
    host measure one at a time, all hosts at once, so that a rank's time is its hardware's and not
    its neighbours' contention for the same cores, caches and memory bus."""
    seen: dict = {}
    out = []
    for h in hosts:
        out.append(seen.get(h, 0))
        seen[h] = out[-1] + 1
    return out


def split_by_host(pairs: list[tuple[int, int]], hosts: list) -> list[list[tuple[int, int]]]:
    """A round's pairs in sub-rounds where no host takes part in two pairs (CPU ranks: two pairs on
    one host would share its cores and memory bus); the number of sub-rounds is bounded by the ranks
    per host, never by the world size."""
    subs: list[list[tuple[int, int]]] = []
    used: list[set] = []
    for a, b in pairs:
        ends = {hosts[a] if a < len(hosts) else a, hosts[b] if b < len(hosts) else b}
        for i, u in enumerate(used):
            if not (ends & u):
                subs[i].append((a, b))
                u.update(ends)
                break
        else:
            subs.append([(a, b)])
            used.append(set(ends))
    return subs


def _slow_factor(rank: int) -> int:
    try:
        slow = int(os.environ.get(ENV_SLOW_RANK, ""))
    except ValueError:
        return 1
    if slow != rank:
        return 1
    try:
        return max(1, min(100, int(os.environ.get(ENV_SLOW_FACTOR, "4"))))
    except ValueError:
        return 4


class _Clock:
    """Seconds of one call of fn: perf_counter on CPUs, CUDA events on a GPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"
        if self.cuda:
            import torch  # noqa: PLC0415
            self.torch = torch

    def best(self, fn, reps: int) -> float:
        fn()  # warm-up: first-touch page faults, kernel selection, lazy module loading
        times = []
        for _ in range(reps):
            if self.cuda:
                start = self.torch.cuda.Event(enable_timing=True)
                end = self.torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1000.0)
            else:
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
        return min(times)


def _sgemm_fn(a, b):
    """The extension's sgemm when it is loaded or loadable without compiling, else None."""
    try:
        from torch_envcheck.ext import extension  # noqa: PLC0415
        st = extension.status()
        if st.get("state") != "ok":
            return None
        from torch_envcheck.ext import ops  # noqa: PLC0415
        ops.load()
        return lambda: ops.sgemm(a, b)
    except Exception:  # noqa: BLE001  (a broken binary is the doctor's finding, not the preflight's)
        return None


def compute(rank: int, device) -> dict:
    """This rank's compute times (seconds, the fastest of REPS) and what was timed."""
    import torch  # noqa: PLC0415

    factor = _slow_factor(rank)
    gpu = device.type == "cuda"
    threads = torch.get_num_threads()
    if not gpu:
        torch.set_num_threads(1)
    try:
        clock = _Clock(device)
        n = GPU_MATMUL_N if gpu else CPU_MATMUL_N
        gen = torch.Generator(device="cpu").manual_seed(1234)
        a = torch.rand(n, n, generator=gen).to(device)
        b = torch.rand(n, n, generator=gen).to(device)

        def repeat(fn):
            def run():
                for _ in range(factor):
                    fn()
            return run

        out = {"matmul_s": clock.best(repeat(lambda: torch.matmul(a, b)), REPS), "matmul_n": n,
               "matmul_flops": 2 * n ** 3, "sgemm_s": None, "factor": factor, "device": device.type,
               "threads": 1 if not gpu else None}
        sg = None if gpu else _sgemm_fn(a, b)  # the CUDA sgemm is a correctness kernel, not a timing one
        if sg is not None:
            out["sgemm_s"] = clock.best(repeat(sg), REPS)
        elements = GPU_TRIAD_ELEMENTS if gpu else CPU_TRIAD_ELEMENTS
        x = torch.ones(elements, device=device)
        y = torch.ones(elements, device=device)
        z = torch.empty(elements, device=device)
        out["triad_s"] = clock.best(repeat(lambda: torch.add(x, y, alpha=2.0, out=z)), REPS)
        out["triad_bytes"] = 3 * 4 * elements
        return out
    finally:
        if not gpu:
            torch.set_num_threads(threads)


def links(dist, group, rank: int, world: int, device, control_group, hosts: list | None = None) -> dict:
    """Ping-pong with the ring neighbour, round by round (CPU ranks: no host in two pairs at once);
    this rank's result for the link it starts (rank -> rank+1), None when it starts none."""
    import torch  # noqa: PLC0415

    nbytes = GPU_LINK_BYTES if device.type == "cuda" else CPU_LINK_BYTES
    buf = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    delay = SLOW_LINK_DELAY_S if _slow_factor(rank) > 1 else 0.0
    mine = None
    rounds = link_rounds(world)
    if device.type != "cuda" and hosts:
        rounds = [sub for r in rounds for sub in split_by_host(r, hosts)]
    for pairs in [p for _ in range(PASSES) for p in rounds]:
        for a, b in pairs:
            if rank not in (a, b):
                continue
            times = []
            for i in range(LINK_REPS + LINK_WARMUP):  # the first round trips are a warm-up
                if rank == a:
                    t0 = time.perf_counter()
                    if delay:  # the test-only throttle: inside the timed round trip, as a slow NIC would be
                        time.sleep(delay)
                    dist.send(buf, b, group=group)
                    dist.recv(buf, b, group=group)
                    if device.type == "cuda":
                        torch.cuda.synchronize(device)
                    if i >= LINK_WARMUP:
                        times.append((time.perf_counter() - t0) / 2)
                else:
                    dist.recv(buf, a, group=group)
                    if delay:
                        time.sleep(delay)
                    dist.send(buf, a, group=group)
            if rank == a:
                mine = min(times + ([mine] if mine is not None else []))
        dist.barrier(group=control_group)  # the next round starts when this one is over everywhere
    return {"link_s": mine, "link_bytes": nbytes}


def run(dist, group, control_group, rank: int, world: int, device, hosts: list | None = None) -> dict | None:
    """Both measurements on every rank; on rank 0 the gathered results, else None.  `hosts`: every
    rank's host (rank 0's plan), for the CPU ranks' turns.  Errors are recorded (a rank that fails its
    compute still joins the gather with NaN)."""
    import torch  # noqa: PLC0415

    mine: dict = {"error": None}
    hosts = hosts if isinstance(hosts, list) and len(hosts) == world else None
    # GPU ranks each have their own device and measure at once (as the job will run: a node's power
    # limit shows); CPU ranks of one host take turns
    my_turn, slots = 0, 1
    if device.type != "cuda" and hosts:
        order = turns(hosts)
        my_turn, slots = order[rank], max(order) + 1
    for _ in range(PASSES):  # each time the fastest: a burst of outside load rarely hits a rank twice
        for slot in range(slots):
            if slot == my_turn and not mine["error"]:
                try:
                    got = compute(rank, device)
                    for k, v in got.items():
                        old = mine.get(k)
                        keep = k.endswith("_s") and isinstance(old, float) and (v is None or old < v)
                        mine[k] = old if keep else v
                except Exception as exc:  # noqa: BLE001
                    mine["error"] = f"compute: {type(exc).__name__}: {str(exc)[:200]}"
            dist.barrier(group=control_group)
    try:
        mine.update(links(dist, group, rank, world, device, control_group, hosts))
    except Exception as exc:  # noqa: BLE001
        mine["error"] = (mine["error"] + "; " if mine["error"] else "") + f"links: {type(exc).__name__}: {str(exc)[:200]}"
        raise
    vec = torch.tensor([_num(mine.get(k)) for k in FIELDS], dtype=torch.float64)
    gathered = [torch.zeros(len(FIELDS), dtype=torch.float64) for _ in range(world)]
    dist.all_gather(gathered, vec, group=control_group)
    if rank != 0:
        return None
    ranks = []
    for r, row in enumerate(gathered):
        ranks.append({"rank": r, **{k: (None if math.isnan(v) else v) for k, v in zip(FIELDS, row.tolist())}})
    return {"ranks": ranks, "pairs": [list(p) for p in link_pairs(world)],
            "matmul_n": mine.get("matmul_n"), "matmul_flops": mine.get("matmul_flops"),
            "triad_bytes": mine.get("triad_bytes"), "link_bytes": mine.get("link_bytes"),
            "device": device.type, "threads": mine.get("threads"), "error": mine["error"]}


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else math.nan
