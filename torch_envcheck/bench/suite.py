"""The benchmark itself: which ops, which inputs, the machine's physical limits and each op's roofline;
returns a JSON-able report.

`speed_ratio` is the median over interleaved call pairs of built-in time / custom time (above 1: ours is
faster), measured side by side in one run (timing.paired).  Next to it, each op's roofline (see
roofline.py): its FLOPs and compulsory bytes for the shape run, the least time the machine allows (from
the measured peak FP32 arithmetic and read / write bandwidth) and both sides' median time as % of that
bound.  Rates: bandwidth ops in GB/s of compulsory bytes (inputs read once, outputs written once), sgemm
in GFLOP/s (2*M*N*K).
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import time

from torch_envcheck.bench import comparable
from torch_envcheck.bench import machine
from torch_envcheck.bench import roofline
from torch_envcheck.bench.timing import measure, paired

OPS = ("triad", "sum", "softmax", "bias_gelu", "sgemm")

# (device, op, metric, threshold, label).  metric: "ratio" = speed_ratio, "pct_bound" = % of the op's
# roofline bound (the machine's physical limit for it).
TARGETS = [
    ("cpu", "triad", "ratio", 0.95, "triad >= 0.95x torch.add"),
    ("cpu", "triad", "pct_bound", 80.0, "triad >= 80% of its roofline bound"),
    ("cpu", "sum", "ratio", 0.95, "sum >= 0.95x torch.sum"),
    ("cpu", "softmax", "ratio", 0.9, "softmax >= 0.9x torch.softmax"),
    ("cpu", "softmax", "pct_bound", 80.0, "softmax >= 80% of its roofline bound"),
    ("cpu", "bias_gelu", "ratio", 1.4, "bias_gelu >= 1.4x eager F.gelu(x + b)"),
    ("cpu", "bias_gelu", "pct_bound", 80.0, "bias_gelu >= 80% of its roofline bound"),
    ("cpu", "sgemm", "ratio", 0.6, "sgemm >= 0.6x torch.matmul (2048^3)"),
    ("cpu", "sgemm", "ratio", 0.8, "sgemm stretch >= 0.8x torch.matmul (2048^3)"),
    ("cpu", "sgemm", "pct_bound", 85.0, "sgemm >= 85% of its own FMA bound (2048^3)"),
    ("cuda", "triad", "pct_bound", 85.0, "triad >= 85% of its roofline bound"),
    ("cuda", "sum", "pct_bound", 85.0, "sum >= 85% of its roofline bound"),
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
        "working_set_bytes": int(ws),
        "triad_n": int(math.ceil(ws / 12)),
        "sum_n": int(math.ceil(ws / 4)),
        "rowwise": (max(1, int(math.ceil(ws / 8 / cols))), cols),
        "gemm": (512 if quick else 2048) if device == "cpu" else (2048 if quick else 4096),
    }


def _cases(torch, ops, device: str, sizes: dict):
    """(name, builtin label, unit, amount, shape, custom fn, builtin fn) for each op."""
    gen = torch.Generator(device="cpu").manual_seed(1234)

    def rnd(*shape):
        return torch.randn(*shape, generator=gen).to(device)

    n = sizes["triad_n"]
    b, c, a = rnd(n), rnd(n), torch.empty(n, device=device)
    yield ("triad", "torch.add(b, c, alpha=s, out=)", "GB/s", 12.0 * n, [n],
           lambda: ops.triad_out(b, c, 3.0, a), lambda: torch.add(b, c, alpha=3.0, out=a))
    del b, c, a
    n = sizes["sum_n"]
    x = rnd(n)
    yield ("sum", "torch.sum(x)", "GB/s", 4.0 * n, [n], lambda: ops.sum(x), lambda: torch.sum(x))
    del x
    # The row-wise ops write into preallocated outputs on both sides, as triad does.  A fresh output of
    # the working set's size is fresh pages from the OS on every call (glibc maps an allocation this
    # large anew; torch's CPU allocator does not cache): the page faults and the kernel's zeroing then
    # cost several times the op itself and measure the OS, not the kernels (docs/kernels.md).
    rows, cols = sizes["rowwise"]
    x, y, t = rnd(rows, cols), torch.empty(rows, cols, device=device), torch.empty(rows, cols, device=device)
    aten = torch.ops.aten
    yield ("softmax", "torch._softmax(x, -1, out=)", "GB/s", 8.0 * rows * cols, [rows, cols],
           lambda: ops.softmax_out(x, y), lambda: aten._softmax.out(x, -1, False, out=y))
    bias = rnd(cols)

    def gelu_builtin():  # F.gelu(x + b) as eager torch runs it, into the same kind of buffers
        torch.add(x, bias, out=t)
        return aten.gelu.out(t, out=y)

    yield ("bias_gelu", "F.gelu(x + b) (eager: add, gelu, out=)", "GB/s", 8.0 * rows * cols + 4 * cols,
           [rows, cols], lambda: ops.bias_gelu_out(x, bias, y), gelu_builtin)
    del x, y, t, bias
    g = sizes["gemm"]
    ga, gb, gc = rnd(g, g), rnd(g, g), torch.empty(g, g, device=device)
    yield ("sgemm", "torch.matmul(a, b, out=)" + (" TF32 off" if device == "cuda" else ""), "GFLOP/s",
           2.0 * g ** 3, [g, g, g], lambda: ops.sgemm(ga, gb), lambda: torch.matmul(ga, gb, out=gc))


def _peaks(torch, ops, device: str, sizes: dict, quick: bool, threads: int, progress) -> dict:
    """The machine's physical limits on `device` (roofline.py): compute per instruction set, memory."""
    from torch_envcheck.ext import ops as ops_mod  # noqa: PLC0415

    if device == "cpu":
        info = json.loads(ops.roofline_info())
        variants = list(info["variants"])
    else:
        info, variants = None, ["best"]
    compute = roofline.compute_peaks(torch, ops, device, variants, quick, threads, measure)
    progress(f"{device}: peak FP32 arithmetic")
    memory = roofline.memory_peaks(torch, ops, device, sizes["working_set_bytes"], variants, quick, threads, measure)
    progress(f"{device}: memory bandwidth")
    out = {"threads": threads, "compute": compute, "memory": memory, "variants": variants,
           "how": "extension microkernels (csrc/ops/cpu/roofline_kernel_isa.h, csrc/ops/cuda/roofline_kernel.cu) "
                  "on every thread (every SM), best block of several, measured before and after the ops; see "
                  "torch_envcheck/bench/roofline.py"}
    if device == "cpu":
        out["kernels"] = info["variants"]
        out["selected"] = ops_mod.cpu_kernel_isa()["selected"]
    return out


def _remeasure(torch, ops, device: str, sizes: dict, quick: bool, threads: int, peaks: dict, progress) -> dict:
    """Measure the peaks again after the ops and keep the best of both (not in --quick); add ceilings and
    the theoretical figures."""
    if not quick:
        compute = roofline.compute_peaks(torch, ops, device, peaks["variants"], quick, threads, measure)
        memory = roofline.memory_peaks(torch, ops, device, sizes["working_set_bytes"], peaks["variants"], quick,
                                       threads, measure)
        peaks.update(roofline.merge_best(peaks, {"compute": compute, "memory": memory}))
    progress(f"{device}: peaks again" if not quick else f"{device}: peaks (measured once in --quick)")
    peaks["ceilings"] = roofline.ceilings(peaks["compute"], peaks["memory"])
    if device == "cpu":
        peaks["theoretical"] = roofline.cpu_theoretical(peaks["compute"], threads)
    else:
        peaks["theoretical"] = roofline.gpu_theoretical(
            torch.cuda.get_device_properties(torch.cuda.current_device()))
    return peaks


def _roofline_row(name: str, shape: list, model: dict, peaks: dict, device: str, custom_s: float,
                  builtin_s: float) -> dict:
    ceil = peaks["ceilings"]
    kind = model["ceiling"]
    mem = (ceil["read_gbs"], ceil["write_gbs"], ceil["copy_gbs"])
    b = roofline.bound(model, roofline.ceiling_gflops(ceil, kind), *mem)
    row = {**model, "bound_s": b["seconds"], "bound_by": b["by"], "bound_gflops": b["gflops"],
           "compute_ceiling_gflops": b["compute_gflops"],
           "custom_gflops": model["flops"] / custom_s / 1e9, "builtin_gflops": model["flops"] / builtin_s / 1e9,
           "custom_pct": roofline.pct(b["seconds"], custom_s), "builtin_pct": roofline.pct(b["seconds"], builtin_s)}
    if device == "cpu":
        v = peaks["selected"]
        own = peaks["compute"].get(v)
        if own is not None:
            ins = roofline.instruction_time(name, shape, roofline.instruction_family(v),
                                            peaks.get("kernels", {}).get(v), own)
            bi = roofline.bound(model, roofline.isa_ceiling_gflops(own, kind), *mem,
                                instruction_s=ins["seconds"] if ins else None)
            row.update(isa=v, isa_bound_s=bi["seconds"], isa_bound_by=bi["by"],
                       custom_isa_pct=roofline.pct(bi["seconds"], custom_s), isa_instructions=ins)
    return row


def _bench_device(torch, ops, device: str, quick: bool, threads: int, progress, only) -> dict:
    if device == "cuda":
        cache, cache_src = machine.gpu_l2_bytes(torch, torch.cuda.current_device()), "GPU L2"
    else:
        cache, cache_src = machine.cpu_llc_bytes()
    sizes = _sizes(device, quick, cache)
    min_run_time = 0.1 if quick else 1.2  # per side and op: the two sides alternate call by call (timing.py)
    sync = (lambda: torch.cuda.synchronize()) if device == "cuda" else None
    peaks = _peaks(torch, ops, device, sizes, quick, threads, progress)
    family = roofline.code_family(peaks.get("selected")) if device == "cpu" else "aten_vec"
    results, timings = [], []
    for name, builtin, unit, amount, shape, custom_fn, builtin_fn in _cases(torch, ops, device, sizes):
        if only and name not in only:
            progress(f"{device}: {name} (not selected)")
            continue
        # sgemm calls take ~0.1 s on a small CPU: give it time for a few dozen pairs.
        run_time = min_run_time * (3 if name == "sgemm" else 1)
        tc, tb, ratios = paired(custom_fn, builtin_fn, run_time, sync=sync)
        cr, br = _rate(amount, tc.median, unit), _rate(amount, tb.median, unit)
        timings.append((name, shape, roofline.op_model(name, shape, family), tc.median, tb.median))
        results.append({
            "op": name, "builtin": builtin, "shape": shape, "dtype": "float32", "unit": unit, "amount": amount,
            "custom": {"rate": cr, **tc.as_dict()}, "builtin_timing": {"rate": br, **tb.as_dict()},
            "speed_ratio": statistics.median(ratios), "ratio_of_medians": tb.median / tc.median,
            "pairs": len(ratios), "ratio_quartiles": _quartiles(ratios),
        })
        progress(f"{device}: {name}")
    peaks = _remeasure(torch, ops, device, sizes, quick, threads, peaks, progress)
    for row, (name, shape, model, custom_s, builtin_s) in zip(results, timings):
        row["roofline"] = _roofline_row(name, shape, model, peaks, device, custom_s, builtin_s)
    return {"device": device, "cache_bytes": cache, "cache_source": cache_src, "sizes": sizes,
            "min_run_time_s": min_run_time, "peaks": peaks, "ops": results}


def _mark_comparable(report: dict) -> None:
    """Each CPU row's `comparable`: did the built-in run our variant's instruction set (comparable.py)?"""
    cpu = report["devices"].get("cpu") or {}
    peaks = cpu.get("peaks") or {}
    for row in cpu.get("ops", []):
        rl = row.get("roofline") or {}
        kind = rl.get("ceiling", "fma")
        ceilings = {v: roofline.isa_ceiling_gflops(e, kind) for v, e in (peaks.get("compute") or {}).items()}
        row["comparable"] = comparable.mark(peaks.get("selected"), row["op"], report.get("builtin_dispatch"),
                                            rl.get("builtin_gflops"), ceilings, rl.get("bound_by") == "compute")


def _targets(report: dict) -> list:
    out = []
    for device, op, metric, threshold, label in TARGETS:
        dev = report["devices"].get(device, {})
        entry = {"device": device, "op": op, "target": label, "metric": metric, "threshold": threshold}
        row = next((r for r in dev.get("ops", []) if r["op"] == op), None)
        mark = (row or {}).get("comparable") or {}
        if row is None:
            entry.update(value=None, met=None, note=dev.get("skipped", "not measured in this run"))
        elif metric == "ratio" and mark.get("comparable") is False:
            # Another instruction set on the built-in's side: the op is judged on its own bound only.
            entry.update(value=row["speed_ratio"], met=None, comparable=False,
                         note=comparable.ratio_text(row["speed_ratio"], mark) + "; judged on its own bound")
        else:
            # % of bound: against the roofline of the variant's own instruction set where there is one
            rl = row["roofline"]
            value = row["speed_ratio"] if metric == "ratio" else rl.get("custom_isa_pct", rl["custom_pct"])
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


def _quartiles(values: list) -> list:
    if len(values) < 2:
        return [values[0]] * 3 if values else []
    return statistics.quantiles(values, n=4, method="inclusive")


def _load_average() -> list | None:
    """1, 5 and 15-minute load averages (Unix), or None."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def plan_steps(devices: list) -> int:
    return sum(8 for _ in devices) + 2


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
    load_start = _load_average()
    report = {
        "schema": 1, "quick": quick, "torch": torch.__version__, "threads": threads,
        "machine": {"cpu": machine.cpu_model(), "platform": platform.platform(),
                    "gpu": torch.cuda.get_device_name() if cuda_ok else None},
        "cpu_kernel_isa": ops_mod.cpu_kernel_isa(),
        "builtin_dispatch": machine.builtin_dispatch(torch) if "cpu" in devices else None,
        "ratio_definition": "speed_ratio = median over interleaved call pairs of built-in time / custom time "
                            "(>1: custom faster); ratio_of_medians beside it",
        "roofline_definition": "% of bound = least time the measured peaks allow / median time (100%: nothing "
                               "left); bound = max(FLOPs / compute ceiling, bytes read / read bandwidth, bytes "
                               "written / write bandwidth, (bytes read + written) / copy bandwidth); the variant's "
                               "own bound (custom_isa_pct, the targets' figure) adds its instruction mix: SIMD "
                               "instructions counted in its code at the rates its own microkernels measured "
                               "(torch_envcheck/bench/roofline.py)",
        "devices": {},
    }
    try:
        with torch.no_grad():
            for dev in devices:
                if dev == "cuda" and not cuda_ok:
                    report["devices"]["cuda"] = {"skipped": cuda_reason}
                    for _ in range(8):
                        progress("cuda: skipped")
                    continue
                report["devices"][dev] = _bench_device(torch, ops, dev, quick, threads, progress, only)
            report["classic_matmul"] = _classic_matmul(torch, quick, threads, cuda_ok and "cuda" in devices,
                                                       cuda_reason or "not requested", progress)
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = prev_tf32
    report["machine"]["load_average"] = {"start": load_start, "end": _load_average(),
                                          "cpus": os.cpu_count()}
    _mark_comparable(report)
    report["targets"] = _targets(report)
    report["roofline_violations"] = roofline.violations(report)
    report["seconds"] = round(time.monotonic() - t0, 1)
    return report
