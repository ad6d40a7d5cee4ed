"""Benchmark: rank 0's share of a 1024-rank fleet, without the processes.

    python benchmarks/fleet_scale.py [--ranks 1024] [--snapshots tests/snapshots] [--all-distinct]

Builds the payload bytes 1024 ranks would send (128 nodes x 8 ranks) from the recorded snapshots,
varied the way real nodes differ: a GPU UUID per node, a timestamp and probe timings per rank,
CUDA_VISIBLE_DEVICES=LOCAL_RANK on half the nodes (a snapshot that differs on every rank), every
recorded snapshot on some node, an older driver, NCCL_* variables on one node, two truncated
payloads and one missing rank; with the preflight's results (fleet --preflight): each rank's compute
and ring-link times, node 7 three times slower, NVML health on every GPU rank with uncorrectable ECC
errors on node 9.  Then times what rank 0 does with them (decode, validate, diagnose,
fleet rules, heterogeneity table, terminal + Markdown + JSON rendering) and prints the time and the
peak RSS of this process.  Each payload carries the findings its rank computed for itself (as in a
real run); --no-rank-reports leaves them out, so rank 0 diagnoses every snapshot (its fallback for
ranks of another torch_envcheck version, and what --from-json does).  --all-distinct makes every rank's snapshot differ (the worst case for
the per-stack cache).  The targets: under 5 s and under 1 GiB.
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import random
import resource
import sys
import time

from torch_envcheck.fleet import aggregate
from torch_envcheck.fleet import render
from torch_envcheck.fleet import wire

TARGET_S = 5.0
TARGET_RSS = 1 << 30


def _default_dir() -> str:
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(repo, "tests", "snapshots")


def load_snapshots(directory: str) -> dict[str, dict]:
    from torch_envcheck.facts.snapshot import validate  # noqa: PLC0415
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            out[os.path.basename(path)[:-5]] = validate(json.load(fh), path)
    return out


def multi_gpu(s: dict, n: int) -> None:
    """A recorded one-GPU snapshot as the n-GPU node it stands for (GPU servers have 8)."""
    t, d = s.get("torch"), s.get("driver")
    if isinstance(t, dict) and len(t.get("devices") or []) == 1:
        t["devices"] = [dict(t["devices"][0], index=i) for i in range(n)]
        t["device_count"] = n
    if isinstance(d, dict) and len(d.get("gpus") or []) == 1:
        g = d["gpus"][0]
        d["gpus"] = [dict(g, index=i, pci_bus_id=f"00000000:{0x18 + i:02X}:00.0") for i in range(n)]
    if isinstance(d, dict) and len(d.get("pci_gpus") or []) == 1:
        d["pci_gpus"] = [dict(d["pci_gpus"][0], bus_id=f"0000:{0x18 + i:02x}:00.0") for i in range(n)]


def payloads(snaps: dict[str, dict], ranks: int, per_node: int = 8, all_distinct: bool = False,
             seed: int = 0, with_reports: bool = True) -> dict[int, bytes | None]:
    from torch_envcheck._version import __version__  # noqa: PLC0415
    rng = random.Random(seed)
    diagnose = aggregate.Diagnoser()
    names = sorted(snaps)
    main = "h100_cu130_healthy" if "h100_cu130_healthy" in snaps else names[0]
    out: dict[int, bytes | None] = {}
    nodes = (ranks + per_node - 1) // per_node
    for node in range(nodes):
        base = copy.deepcopy(snaps[names[node] if node < len(names) else main])
        multi_gpu(base, per_node)
        for i, g in enumerate(base.get("driver", {}).get("gpus") or [] if isinstance(base.get("driver"), dict) else []):
            if isinstance(g, dict):
                g["uuid"] = f"GPU-{node:08x}-{i:04x}-4e7a-9c0f-{rng.getrandbits(48):012x}"
        if node % 17 == 5 and isinstance(base.get("driver"), dict) and base["driver"].get("version"):
            base["driver"]["version"] = "570.172.08"
        for local in range(per_node):
            rank = node * per_node + local
            if rank >= ranks:
                break
            s = copy.deepcopy(base)
            s["created"] = f"2026-11-30T06:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}+00:00"
            s["probe_seconds"] = {k: round(rng.uniform(0.01, 2.5), 3) for k in ("platform", "torch", "driver")}
            if not isinstance(s.get("env"), dict):  # a recorded scenario may have no env section
                s["env"] = {}
            env = s["env"]
            if node % 2 == 1 or all_distinct:
                env["CUDA_VISIBLE_DEVICES"] = str(local)
            if all_distinct:
                env["PYTORCH_CUDA_ALLOC_CONF"] = f"max_split_size_mb:{rank}"
            devices = [d for d in (s.get("torch") or {}).get("devices") or [] if isinstance(d, dict)] \
                if isinstance(s.get("torch"), dict) else []
            dev = devices[local % len(devices)] if devices else None
            facts = {"rank": rank, "world_size": ranks, "local_rank": local, "host": f"node{node:03d}",
                     "pid": 1000 + rank, "launcher": "torchrun/env://",
                     "device": dict(dev, shared=False) if dev else None,
                     "nccl_version": "2.27.7" if devices else None,
                     "nccl_env": {"NCCL_IB_HCA": "mlx5_1"} if node == 42 else {},
                     "backends": {"gloo": True, "nccl": bool(devices)}, "mem_available_bytes": 512 << 30}
            if devices:
                facts["health"] = {"source": "nvml", "pci_bus_id": f"0000:{0x18 + local:02x}:00",
                                   "ecc_uncorrected_volatile": 2 if node == 9 else 0, "ecc_corrected_volatile": 0,
                                   "retired_pages_pending": False, "remapping_pending": False,
                                   "remapping_failed": False, "clock_event_reasons": [], "pcie_width": 16,
                                   "pcie_width_max": 16, "nvlink_active": 18, "nvlink_inactive": 0,
                                   "xid_source": "kmsg", "xid": []}
            body = {"schema": wire.RANK_SCHEMA, "tool_version": __version__, "rank_facts": facts, "snapshot": s,
                    "probe_error": None, "probe_seconds": 2.0}
            if with_reports:  # what each rank computes for itself, in parallel, before sending
                body["report"] = diagnose(s)
            data = wire.encode(body)
            if rank in (ranks // 3, 2 * ranks // 3):
                data = data[: len(data) // 3]  # a truncated payload
            out[rank] = None if rank == ranks - 5 else data
    return out


def preflight_results(ranks: int, seed: int = 0, per_node: int = 8, slow_node: int = 7) -> dict:
    """What rank 0 gathers from `fleet --preflight`: each rank's fastest matmul, triad and link time,
    within a few percent of each other, node `slow_node` three times slower."""
    from torch_envcheck.fleet.preflight import link_pairs  # noqa: PLC0415
    rng = random.Random(seed)
    rows = []
    for r in range(ranks):
        slow = 3.0 if r // per_node == slow_node else 1.0
        rows.append({"rank": r, "matmul_s": 0.0021 * slow * rng.uniform(0.97, 1.03), "sgemm_s": None,
                     "triad_s": 0.0008 * slow * rng.uniform(0.97, 1.03),
                     "link_s": 0.004 * slow * rng.uniform(0.95, 1.05)})
    return {"ranks": rows, "pairs": [list(p) for p in link_pairs(ranks)], "matmul_n": 4096,
            "matmul_flops": 2 * 4096 ** 3, "triad_bytes": 3 * 4 * (64 << 20), "link_bytes": 64 << 20,
            "device": "cuda", "threads": None, "error": None}


def aggregate_once(data: dict[int, bytes | None], ranks: int) -> tuple[dict, dict[str, str]]:
    arrivals = {r: {"hello": {"host": f"node{r // 8:03d}"}, "data": d} for r, d in data.items() if d is not None}
    records = [aggregate.record_from_arrival(r, arrivals.get(r)) for r in range(ranks)]
    rep = aggregate.build(records, group={"formed": False, "skipped": "benchmark"}, timeout=120, world_size=ranks,
                          preflight=preflight_results(ranks))
    outputs = {"terminal": render.to_terminal(rep), "markdown": render.to_markdown(rep), "json": render.to_json(rep)}
    return rep, outputs


def _rss_bytes() -> int:
    # ru_maxrss: KiB on Linux, bytes on macOS
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/fleet_scale.py", description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--snapshots", default=None, help="directory of recorded snapshots (default: tests/snapshots)")
    parser.add_argument("--all-distinct", action="store_true", help="every rank's snapshot differs (no cache hits)")
    parser.add_argument("--no-rank-reports", action="store_true",
                        help="payloads without the ranks' own findings: rank 0 diagnoses every snapshot itself "
                             "(what it does for ranks of another torch_envcheck version, and --from-json)")
    args = parser.parse_args(argv)
    directory = args.snapshots or _default_dir()
    if not 1 <= args.ranks <= 65536:
        print("bench_scale: error: --ranks must be 1 to 65536", file=sys.stderr)
        return 2
    snaps = load_snapshots(directory) if os.path.isdir(directory) else {}
    if not snaps:
        print(f"bench_scale: error: no recorded snapshots (*.json) in {directory}; pass --snapshots DIR", file=sys.stderr)
        return 2
    data = payloads(snaps, args.ranks, all_distinct=args.all_distinct, with_reports=not args.no_rank_reports)
    total = sum(len(d) for d in data.values() if d)
    rss_before = _rss_bytes()
    t0, c0 = time.perf_counter(), time.process_time()
    rep, outputs = aggregate_once(data, args.ranks)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = _rss_bytes()
    v = rep["verdict"]
    print(f"fleet aggregation: {args.ranks} ranks ({len(snaps)} recorded snapshots, varied; "
          f"{total / 1e6:.1f} MB of payloads)")
    print(f"  findings: {rep['stats']['diagnosed_by_their_rank']} ranks sent their own; rank 0 diagnosed "
          f"{rep['stats']['diagnosed_by_rank_0']} distinct snapshots itself")
    print(f"  verdict: {v['text']}")
    print(f"  preflight: exclude {rep.get('exclude', {}).get('slurm') or 'none'}")
    print(f"  output: terminal {len(outputs['terminal']) / 1e3:.0f} kB, Markdown {len(outputs['markdown']) / 1e3:.0f} kB, "
          f"JSON {len(outputs['json']) / 1e6:.1f} MB")
    print(f"  time: {took:.2f} s wall, {cpu:.2f} s CPU (target < {TARGET_S:g} s); load average now "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"  peak RSS: {rss / (1 << 20):.0f} MiB (before aggregating: {rss_before / (1 << 20):.0f} MiB; "
          f"target < {TARGET_RSS >> 20} MiB)")
    ok = took < TARGET_S and rss < TARGET_RSS
    print("  within targets" if ok else "  OVER TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
