"""Accuracy of the CPU kernels' vector exp over every float, in ulp against float64.

    python benchmarks/exp_ulp_sweep.py [--isa DEFAULT,AVX2,AVX512] [--chunk-bits 24]

Runs envcheck::vec_math(x, "exp", isa) (the exp the softmax kernel calls) on all 2^32 float bit patterns,
chunk by chunk, for each variant this CPU runs, and prints per variant: the largest error in ulp of the
correctly rounded float result where that result is normal, where it is subnormal (ulp 2^-149), the
input it happens at, the share of inputs off by more than half an ulp (not correctly rounded), and
whether every special case is exact (nan -> nan, a result past FLT_MAX -> +inf, -inf -> +0).  The test
suite (tests/integration/ext/test_vec_math.py) checks a million of these points; this checks them all.
"""

from __future__ import annotations

import argparse
import json
import math
import sys


def sweep(E, isa: str, chunk_bits: int) -> dict:
    import torch  # noqa: PLC0415

    worst_n = worst_s = 0.0
    at_n = at_s = None
    off = count = 0
    specials_ok = True
    step = 1 << chunk_bits
    for start in range(0, 1 << 32, step):
        bits = torch.arange(start, start + step, dtype=torch.int64)
        bits = torch.where(bits >= 1 << 31, bits - (1 << 32), bits).to(torch.int32)
        x = bits.view(torch.float32)
        y = E.vec_math(x, "exp", isa).double()
        ref = torch.exp(x.double())
        nan = torch.isnan(x)
        ref32 = ref.float()
        over = ~nan & (ref32 == math.inf)
        specials_ok &= bool(torch.isnan(y[nan]).all()) and bool((y[over] == math.inf).all())
        specials_ok &= bool((y[x == -math.inf] == 0).all())
        finite = ~nan & ~over
        mag = ref.abs().clamp_min(2.0 ** -149)
        ulp = torch.pow(2.0, torch.floor(torch.log2(mag)).clamp_min(-126) - 23)
        err = torch.where(finite, (y - ref).abs() / ulp, torch.zeros_like(ref))
        normal = finite & (ref >= 2.0 ** -126)
        sub = finite & ~normal
        if normal.any():
            e = err.masked_fill(~normal, 0)
            i = int(e.argmax())
            if e[i].item() > worst_n:
                worst_n, at_n = e[i].item(), x[i].item()
            off += int((e > 0.5).sum())
            count += int(normal.sum())
        if sub.any():
            e = err.masked_fill(~sub, 0)
            i = int(e.argmax())
            if e[i].item() > worst_s:
                worst_s, at_s = e[i].item(), x[i].item()
    return {"isa": isa, "max_ulp_normal_result": round(worst_n, 3), "at": at_n,
            "max_ulp_subnormal_result": round(worst_s, 3), "at_subnormal": at_s,
            "share_not_correctly_rounded": round(off / max(count, 1), 4), "normal_results": count,
            "specials_exact": specials_ok}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--isa", default="DEFAULT,AVX2,AVX512")
    ap.add_argument("--chunk-bits", type=int, default=24)
    args = ap.parse_args(argv)
    from torch_envcheck.ext import ops  # noqa: PLC0415

    E = ops.load()
    runnable = ["DEFAULT"] + ops.cpu_kernel_isa()["cpu_supports"]
    for isa in [v.strip().upper() for v in args.isa.split(",") if v.strip()]:
        if isa not in runnable:
            print(json.dumps({"isa": isa, "skipped": "this CPU cannot run it"}))
            continue
        print(json.dumps(sweep(E, isa, args.chunk_bits)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
