"""The benchmark itself: which ops, which inputs, which limits and targets; returns a JSON-able report.

Rates: bandwidth ops count the bytes each call must move at least (inputs read once, output written
once, as STREAM counts them); sgemm counts 2*M*N*K flops.  `speed_ratio` is built-in median time /
custom median time (above 1: ours is faster).  Machine limits are STREAM-style: the best (shortest)
time over all measured blocks of a plain copy (dst.copy_(src)) and a triad (torch.add(b, c, alpha=s,
out=a)) on arrays several times the last-level cache, and the built-in matmul's rate.
"""

from __future__ import annotations

import math
import platform
import time

from torch_envcheck.bench import machine
from torch_envcheck.bench.timing import Timing, interleaved, measure

OPS = ("triad", "sum", "softmax", "bias_gelu", "sgemm")

# (device, op, metric, threshold, label).  metric: "ratio" = speed_ratio, "pct_limit" = % of limit.
TARGETS = [
    ("cpu", "triad", "ratio", 0.95, "triad >= 0.95x torch.add"),
    ("cpu", "triad", "pct_limit", 80.0, "triad >= 80% of measured STREAM triad"),
    ("cpu", "sum", "ratio", 0.95, "sum >= 0.95x torch.sum"),
    ("cpu", "softmax", "ratio", 0.9, "softmax >= 0.9x torch.softmax"),
    ("cpu", "bias_gelu", "ratio", 1.4, "bias_gelu >= 1.4x eager F.gelu(x + b)"),
    ("cpu", "sgemm", "ratio", 0.6, "sgemm >= 0.6x torch.matmul (2048^3)"),
    ("cpu", "sgemm", "ratio", 0.8, "sgemm stretch >= 0.8x torch.matmul (2048^3)"),
    ("cuda", "triad", "pct_limit", 85.0, "triad >= 85% of measured device bandwidth"),
    ("cuda", "sum", "pct_limit", 85.0, "sum >= 85% of measured device bandwidth"),
    ("cuda", "softmax", "ratio", 0.9, "softmax >= 0.9x torch.softmax"),
    ("cuda", "bias_gelu", "ratio", 1.7, "bias_gelu >= 1.7x eager F.gelu(x + b)"),
    ("cuda", "sgemm", "ratio", 0.5, "sgemm >= 0.5x cuBLAS FP32, TF32 off (4096^3)"),
    ("cuda", "sgemm", "ratio", 0.7, "sgemm stretch >= 0.7x cuBLAS FP32, TF32 off (4096^3)"),
]


def _rate(amount: float, seconds: float, unit: str) -> float:
    return amount / seconds / 1e9 if seconds > 0 else float("nan")


def _sizes(device: str, quick: bool, cache_bytes: int) -> dict:
    """Working sets: at least 4x the LLC (L2 on GPU) for the bandwidth ops, 2x in --quick."""
    factor = 2 if quick else 4
    ws = factor * cache_bytes
    if device == "cuda":
        ws = max(ws, (64 if quick else 512) << 20)
    cols = 4096
    return {
        "triad_n": int(math.ceil(ws / 12)),
        "sum_n": int(math.ceil(ws / 4)),
        "rowwise": (max(1, int(math.ceil(ws / 8 / cols))), cols),
        "gemm": (512 if quick else 2048) if device == "cpu" else (2048 if quick else 4096),
    }


def _cases(torch, ops, device: str, sizes: dict):
    """(name, builtin label, unit, amount, shape, custom fn, builtin fn, limit key) for each op."""
    F = torch.nn.functional
    gen = torch.Generator(device="cpu").manual_seed(1234)

    def rnd(*shape):
        return torch.randn(*shape, generator=gen).to(device)

    n = sizes["triad_n"]
    b, c, a = rnd(n), rnd(n), torch.empty(n, device=device)
    yield ("triad", "torch.add(b, c, alpha=s, out=)", "GB/s", 12.0 * n, [n],
           lambda: ops.triad_out(b, c, 3.0, a), lambda: torch.add(b, c, alpha=3.0, out=a), "stream_triad")
    del b, c, a
    n = sizes["sum_n"]
    x = rnd(n)
    yield ("sum", "torch.sum(x)", "GB/s", 4.0 * n, [n], lambda: ops.sum(x), lambda: torch.sum(x), "bandwidth")
    del x
    rows, cols = sizes["rowwise"]
    x = rnd(rows, cols)
    yield ("softmax", "torch.softmax(x, -1)", "GB/s", 8.0 * rows * cols, [rows, cols],
           lambda: ops.softmax(x), lambda: torch.softmax(x, -1), "bandwidth")
    bias = rnd(cols)
    yield ("bias_gelu", "F.gelu(x + b) (eager)", "GB/s", 8.0 * rows * cols + 4 * cols, [rows, cols],
           lambda: ops.bias_gelu(x, bias), lambda: F.gelu(x + bias), "bandwidth")
    del x, bias
    g = sizes["gemm"]
    ga, gb, gc = rnd(g, g), rnd(g, g), torch.empty(g, g, device=device)
    yield ("sgemm", "torch.matmul(a, b, out=)" + (" TF32 off" if device == "cuda" else ""), "GFLOP/s",
           2.0 * g ** 3, [g, g, g], lambda: ops.sgemm(ga, gb), lambda: torch.matmul(ga, gb, out=gc), "matmul")


def _limits(torch, device: str, sizes: dict, rounds: int, min_run_time: float, threads: int, progress) -> dict:
    n = sizes["triad_n"]
    src, dst = torch.randn(n, device=device), torch.empty(n, device=device)
    b, c = torch.randn(n, device=device), torch.randn(n, device=device)
    copy_t, triad_t = Timing(), Timing()
    for _ in range(rounds):
        measure(lambda: dst.copy_(src), min_run_time, threads, into=copy_t)
        measure(lambda: torch.add(b, c, alpha=3.0, out=dst), min_run_time, threads, into=triad_t)
    progress(f"{device}: memory bandwidth")
    copy_bw = _rate(8.0 * n, copy_t.best, "GB/s")
    triad_bw = _rate(12.0 * n, triad_t.best, "GB/s")
    del src, dst, b, c
    return {
        "stream_copy": {"rate": copy_bw, "unit": "GB/s", "how": "best of dst.copy_(src), 8 bytes/element",
                        "elements": n, **copy_t.as_dict()},
        "stream_triad": {"rate": triad_bw, "unit": "GB/s",
                         "how": "best of torch.add(b, c, alpha=s, out=a), 12 bytes/element", "elements": n,
                         **triad_t.as_dict()},
        "bandwidth": {"rate": max(copy_bw, triad_bw), "unit": "GB/s", "how": "max(STREAM copy, STREAM triad)"},
    }


def _bench_device(torch, ops, device: str, quick: bool, threads: int, progress, only) -> dict:
    if device == "cuda":
        cache, cache_src = machine.gpu_l2_bytes(torch, torch.cuda.current_device()), "GPU L2"
    else:
        cache, cache_src = machine.cpu_llc_bytes()
    sizes = _sizes(device, quick, cache)
    rounds = 2 if quick else 4
    min_run_time = 0.05 if quick else 0.3
    limits = _limits(torch, device, sizes, rounds, min_run_time, threads, progress)
    results = []
    for name, builtin, unit, amount, shape, custom_fn, builtin_fn, limit_key in _cases(torch, ops, device, sizes):
        if only and name not in only:
            progress(f"{device}: {name} (not selected)")
            continue
        # sgemm calls take ~0.1 s on a small CPU: give each round time for several of them.
        run_time = min_run_time * (3 if name == "sgemm" else 1)
        tc, tb = interleaved(custom_fn, builtin_fn, rounds, run_time, threads)
        cr, br = _rate(amount, tc.median, unit), _rate(amount, tb.median, unit)
        if name == "sgemm":  # the built-in matmul's best rate is the compute limit
            limits["matmul"] = {"rate": _rate(amount, tb.best, unit), "unit": unit,
                                "how": f"best of the built-in {builtin}"}
        lim = limits[limit_key]
        results.append({
            "op": name, "builtin": builtin, "shape": shape, "dtype": "float32", "unit": unit, "amount": amount,
            "custom": {"rate": cr, **tc.as_dict()}, "builtin_timing": {"rate": br, **tb.as_dict()},
            "speed_ratio": tb.median / tc.median,
            "limit": {"name": limit_key, "rate": lim["rate"]},
            "pct_of_limit": 100.0 * cr / lim["rate"],
        })
        progress(f"{device}: {name}")
    return {"device": device, "cache_bytes": cache, "cache_source": cache_src, "sizes": sizes,
            "rounds": rounds, "min_run_time_s": min_run_time, "limits": limits, "ops": results}


def _targets(report: dict) -> list:
    out = []
    for device, op, metric, threshold, label in TARGETS:
        dev = report["devices"].get(device, {})
        entry = {"device": device, "op": op, "target": label, "metric": metric, "threshold": threshold}
        row = next((r for r in dev.get("ops", []) if r["op"] == op), None)
        if row is None:
            entry.update(value=None, met=None, note=dev.get("skipped", "not measured in this run"))
        else:
            value = row["speed_ratio"] if metric == "ratio" else row["pct_of_limit"]
            entry.update(value=value, met=bool(value >= threshold))
            if report["quick"]:
                entry["note"] = "--quick: smaller sizes than the target assumes"
        out.append(entry)
    return out


def _classic_matmul(torch, quick: bool, threads: int, has_cuda: bool, cuda_reason: str, progress) -> dict:
    n = 1024 if quick else 4096
    flops = 2.0 * n ** 3
    res = {"n": n, "what": "torch.matmul of two n x n float32 matrices, synchronised (TF32 off on GPU)"}
    a, b = torch.randn(n, n), torch.randn(n, n)
    t = measure(lambda: torch.matmul(a, b), 0.2 if quick else 1.0, threads)
    res["cpu"] = {"gflops": _rate(flops, t.median, "GFLOP/s"), **t.as_dict()}
    progress("classic: CPU matmul")
    if has_cuda:
        ag, bg = a.cuda(), b.cuda()
        t = measure(lambda: torch.matmul(ag, bg), 0.2 if quick else 1.0, threads)
        res["cuda"] = {"gflops": _rate(flops, t.median, "GFLOP/s"), **t.as_dict()}
        res["speedup"] = res["cpu"]["median_s"] / res["cuda"]["median_s"]
    else:
        res["cuda"] = {"skipped": cuda_reason}
        res["speedup"] = None
    progress("classic: GPU matmul")
    return res


def plan_steps(devices: list) -> int:
    return sum(6 for _ in devices) + 2


def run_benchmarks(quick: bool = False, devices: list | None = None, progress=None, only=None) -> dict:
    """Run the benchmark; returns the report dict (see docs/kernels.md)."""
    import torch  # noqa: PLC0415

    from torch_envcheck.ext import ops as ops_mod  # noqa: PLC0415

    progress = progress or (lambda step: None)
    ops = ops_mod.load()
    cuda_ok = torch.cuda.is_available()
    if not cuda_ok:
        cuda_reason = ("torch is a CPU-only build" if not torch.version.cuda
                       else "torch.cuda.is_available() is False (no usable GPU or driver)")
    else:
        cuda_reason = ""
    if devices is None:
        devices = ["cpu", "cuda"]
    threads = torch.get_num_threads()
    prev_tf32 = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 cuBLAS, as our kernel computes in FP32
    t0 = time.monotonic()
    report = {
        "schema": 1, "quick": quick, "torch": torch.__version__, "threads": threads,
        "machine": {"cpu": machine.cpu_model(), "platform": platform.platform(),
                    "gpu": torch.cuda.get_device_name() if cuda_ok else None},
        "cpu_kernel_isa": ops_mod.cpu_kernel_isa(),
        "ratio_definition": "speed_ratio = built-in median time / custom median time (>1: custom faster)",
        "devices": {},
    }
    try:
        with torch.no_grad():
            for dev in devices:
                if dev == "cuda" and not cuda_ok:
                    report["devices"]["cuda"] = {"skipped": cuda_reason}
                    for _ in range(6):
                        progress("cuda: skipped")
                    continue
                report["devices"][dev] = _bench_device(torch, ops, dev, quick, threads, progress, only)
            report["classic_matmul"] = _classic_matmul(torch, quick, threads, cuda_ok and "cuda" in devices,
                                                       cuda_reason or "not requested", progress)
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = prev_tf32
    report["targets"] = _targets(report)
    report["seconds"] = round(time.monotonic() - t0, 1)
    return report
