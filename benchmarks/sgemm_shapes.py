"""envcheck::sgemm against torch.matmul over several shapes, each variant against its own FMA peak.

    python benchmarks/sgemm_shapes.py [--isa avx512,avx2] [--shapes 2048x2048x2048,1000x1000x1000]
                                      [--time 2.0] [--json]

`torch-envcheck bench` times one shape (2048^3); this adds odd sizes (edge tiles in both dimensions,
a K that is not a multiple of the packed slice depth) and a thin one.  Each variant runs in its own
process with ATEN_CPU_CAPABILITY set (as `bench --isa` does), so the kernel table picks that variant;
torch.matmul goes to MKL, whose own dispatch ignores that variable, so the ratio of a narrower variant
compares two instruction sets: the fair measure of a variant is its % of the FMA peak of its own
instruction set, measured in the same process by the extension's FMA-chain microkernel (the "fma" peak
of `bench`, best block of three).

Per shape: speed ratio (median over call pairs of matmul time / sgemm time, the two alternating call by
call: timing.paired), both sides' GFLOP/s at their median time, and those as % of the variant's peak.
As in `bench`, sgemm returns a new tensor and matmul writes into a preallocated one (out=): ours pays for
its allocation (measured on a Zen 5 at 2048^3: torch.matmul allocating vs out= read 0.99x, so about 1%).
The load average (/proc/loadavg) before and after is printed beside the figures: on a shared machine
they are only as good as the load allows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

DEFAULT_SHAPES = "2048x2048x2048,1023x1021x1027,4000x200x1000,1x4096x4096"


def _loadavg() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def measure_here(shapes: list, run_time: float) -> dict:
    import torch  # noqa: PLC0415

    from torch_envcheck.bench import roofline  # noqa: PLC0415
    from torch_envcheck.bench.timing import measure, paired  # noqa: PLC0415
    from torch_envcheck.ext import ops  # noqa: PLC0415

    E = ops.load()
    isa = ops.cpu_kernel_isa()
    variant = isa["selected"]
    threads = torch.get_num_threads()
    load_before = _loadavg()
    peak = roofline.compute_peaks(torch, E, "cpu", [variant], False, threads, measure)[variant]["fma"]["gflops"]
    gen = torch.Generator().manual_seed(0)
    rows = []
    for m, n, k in shapes:
        a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
        c2 = torch.empty(m, n)
        c1 = ops.sgemm(a, b)
        torch.matmul(a, b, out=c2)
        err = (c1 - c2).abs().max().item() / max(1e-30, c2.abs().max().item())
        tc, tb, ratios = paired(lambda: ops.sgemm(a, b), lambda: torch.matmul(a, b, out=c2), run_time)
        flops = 2.0 * m * n * k
        ours, mkl = flops / tc.median / 1e9, flops / tb.median / 1e9
        ratios.sort()
        rows.append({"shape": [m, n, k], "speed_ratio": ratios[len(ratios) // 2], "pairs": len(ratios),
                     "ours_gflops": ours, "matmul_gflops": mkl, "ours_best_gflops": flops / tc.best / 1e9,
                     "ours_pct_peak": 100 * ours / peak, "matmul_pct_peak": 100 * mkl / peak,
                     "max_rel_diff": err})
    return {"variant": variant, "threads": threads, "fma_peak_gflops": peak,
            "register_block": isa["sgemm_register_block"], "blocking": isa["sgemm_blocking"],
            "loadavg_before": load_before, "loadavg_after": _loadavg(), "rows": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--isa", default="avx512,avx2", help="comma-separated: default, avx2, avx512")
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="comma-separated MxNxK")
    p.add_argument("--time", type=float, default=2.0, help="seconds per side and shape")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    shapes = [tuple(int(x) for x in s.lower().split("x")) for s in args.shapes.split(",") if s]
    if any(len(s) != 3 or min(s) < 1 for s in shapes):
        p.error("--shapes: expected MxNxK with positive integers, e.g. 2048x2048x2048")
    if args.child:
        print(json.dumps(measure_here(shapes, args.time)))
        return 0
    results = []
    for v in [x.strip().lower() for x in args.isa.split(",") if x.strip()]:
        if v not in ("default", "avx2", "avx512"):
            p.error(f"--isa: unknown variant {v!r} (default, avx2, avx512)")
        env = {**os.environ, "ATEN_CPU_CAPABILITY": v}
        cmd = [sys.executable, __file__, "--child", "--shapes", args.shapes, "--time", str(args.time)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"{v}: failed: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"{r['variant']}: {r['threads']} threads, register block {r['register_block']}, blocking "
              f"{r['blocking']}, FMA peak {r['fma_peak_gflops']:.1f} GFLOP/s, load {r['loadavg_before']} -> "
              f"{r['loadavg_after']}")
        for row in r["rows"]:
            m, n, k = row["shape"]
            print(f"  {m}x{n}x{k}: {row['speed_ratio']:.2f}x matmul ({row['pairs']} pairs); ours "
                  f"{row['ours_gflops']:.1f} GFLOP/s = {row['ours_pct_peak']:.0f}% of peak (best block "
                  f"{row['ours_best_gflops']:.1f}), matmul {row['matmul_gflops']:.1f} = "
                  f"{row['matmul_pct_peak']:.0f}%; max rel diff {row['max_rel_diff']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
