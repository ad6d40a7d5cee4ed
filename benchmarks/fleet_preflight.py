"""Benchmark: does `fleet --preflight` name the slow node, and only it?

    python benchmarks/fleet_preflight.py [--ranks 8] [--nodes 4] [--healthy 20] [--slow 3]

Starts real fleets over loopback (torchrun, gloo, 127.0.0.1): `--healthy` runs with every rank
alike, then `--slow` runs in which one rank (a different one each time) is throttled by the
test-only knob TORCH_ENVCHECK_TEST_SLOW_RANK.  TORCH_ENVCHECK_TEST_NODES splits the ranks into
named nodes.  Prints, for each run, the exclude list against the expected one, then the false
positives (healthy runs that excluded a node) and the misses.  Exit 1 on any.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "support"))
import fleet_support as fs  # noqa: E402


def one(ranks: int, nodes: int, slow: int | None, workdir: str) -> tuple[list[str], float, int, list[str]]:
    out = os.path.join(workdir, "fleet.json")
    extra = {"TORCH_ENVCHECK_TEST_NODES": str(nodes)}
    if slow is not None:
        extra["TORCH_ENVCHECK_TEST_SLOW_RANK"] = str(slow)
    t0 = time.monotonic()
    r = fs.torchrun(sys.executable, ranks, ["--timeout", "150", "--preflight", "--no-bandwidth", "--save", out],
                    timeout=400, extra=extra)
    with open(out, encoding="utf-8") as fh:
        rep = json.load(fh)
    why = [f["message"] for f in rep.get("findings", []) if f.get("code") in ("TE958", "TE959")]
    return rep.get("exclude", {}).get("hosts", []), time.monotonic() - t0, r.returncode, why


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/fleet_preflight.py", description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--nodes", type=int, default=4)
    p.add_argument("--healthy", type=int, default=20)
    p.add_argument("--slow", type=int, default=3)
    a = p.parse_args(argv)
    fp = miss = 0
    with tempfile.TemporaryDirectory() as d:
        for i in range(a.healthy):
            got, took, rc, why = one(a.ranks, a.nodes, None, d)
            fp += bool(got)
            print(f"healthy run {i + 1}: exclude {got or 'none'} (exit {rc}, {took:.0f} s)", flush=True)
            for w in why:
                print(f"    {w}", flush=True)
        for i in range(a.slow):
            slow = (3 + 2 * i) % a.ranks
            want = [f"node{slow * a.nodes // a.ranks:02d}"]
            got, took, rc, why = one(a.ranks, a.nodes, slow, d)
            miss += got != want
            print(f"slow rank {slow}: exclude {got or 'none'}, expected {want} (exit {rc}, {took:.0f} s)", flush=True)
    print(f"false positives: {fp} of {a.healthy} healthy runs; wrong verdicts: {miss} of {a.slow} slow runs; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 1 if fp or miss else 0


if __name__ == "__main__":
    sys.exit(main())
