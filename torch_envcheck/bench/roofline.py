"""The machine's physical limits and each op's roofline bound (`torch-envcheck bench`).

Peaks are measured, not borrowed from another library: the extension's microkernels
(csrc/ops/cpu/roofline_kernel_isa.h, csrc/ops/cuda/roofline_kernel.cu) run on every thread of torch's
pool (on a GPU: every SM), timed like the ops, best block kept (as STREAM does):
  * compute, per instruction set: "fma" = independent FMA chains on registers (mul+add chains on SSE2,
    which has no FMA), "mixed" = FMA chains and add chains 1:1 (Zen cores add on separate pipes);
  * memory: read (every element loaded once), write (non-temporal stores), copy (loads + non-temporal
    stores), on buffers of the same size as the ops' working sets (several times the last-level cache).

An op's bound is the least time the machine allows it (the roofline):
    t_bound = max(FLOPs / compute ceiling, bytes read / read bandwidth, bytes written / write bandwidth,
                  (bytes read + bytes written) / copy bandwidth)
Reads and writes are bounded separately because on some machines (AMD Zen: separate read and write paths
between core complex and memory) a mix of both moves more bytes per second than either alone; the copy
term bounds the mix itself: the copy kernel (loads + streaming stores) is the most the machine moved
reading and writing at once, so an op that reads n bytes and writes n cannot beat 2n / copy bandwidth.
An op's "% of bound" is t_bound / t_measured: 100% means nothing is left on this machine.  Bytes are the
compulsory traffic (inputs read once, outputs written once); FLOPs are counted in the kernel's own code,
see FLOPS_PER_ELEMENT.  The compute ceiling of an op is the machine's best instruction set's: the
built-ins may run code of any instruction set (MKL picks its own), so only that is a bound for every
point.

For our kernels the report adds the bound of the variant's own code on its own instruction set (the
figure the targets judge): the same terms with that instruction set's FLOP ceiling, and one more, the
instruction mix.  A FLOP roofline does not see the min/max, rounding, conversions, compares and blends of
an exp or an erfc, nor that only the FMA pipes take FMAs, multiplies, divides, vscalefps, lane permutes
and variable blends, nor that adds, min/max and rounding take the add pipes; so the variant's instructions
per vector are counted in its code (INSTRUCTIONS_PER_VECTOR, in three classes) and timed at the rates its
own microkernels measured:
    t_instructions = vectors x max(multiplier instructions / FMA-chain rate,
                                   add-pipe instructions / add rate beside the FMA chains,
                                   all SIMD instructions / best rate of the FMA and the FMA + add chains)
(a rate is chain steps per second x instructions per step, from envcheck::roofline_info).  The add term
applies where the mixed microkernel showed adds on pipes of their own (its adds ran at >= 3/4 of the FMA
chains' rate beside them, as on AMD Zen's two FADD pipes beside two FMA pipes); where adds share the FMA
ports (Intel) the all-instructions term covers them.  It is a bound, not an estimate: it assumes every
instruction issues at the best rate the pipes showed, with no latency left uncovered.
"""

from __future__ import annotations

import math

# FP32 FLOPs per element of each op: additions, subtractions, multiplications and divisions count 1, an
# FMA 2; compares, min/max, selects, conversions, rounding and bit operations are not counted.  Counted in
# the code each variant runs (the built-in is counted with the same figure, the FLOPs the op needs):
#  "aten_vec" (the generic code off x86-64; csrc/ops/cpu/*_kernel_isa.h, csrc/ops/cpu/vec_math.h):
#    softmax 24 = x - max (1) + exp_vf (21: x log2e 1, two reduction FMAs 4, 5 polynomial FMAs 10,
#                 p r 1, r + 1 1, FMA 2, scaling by two multiplies 2) + running sum (1) + scale (1);
#    bias_gelu 40 = + bias (1) + z/sqrt2 (1) + ATen's erf (35: 1/(1 + p|x|) as FMA + divide, 4 FMAs, x*x,
#                 Sleef expf_u10 (20: 1 multiply, 7 FMAs, 1 multiply, 1 add, 1 ldexp counted as 1
#                 multiply), 1 multiply, 1 FMA) + 1 + erf (1) + 0.5 z (1) + product (1);
#  "avx2" (AVX2 on x86-64):
#    softmax 23 = x - max (1) + exp_nonpos_vf (20: n by an FMA 2, n as float 1, two reduction FMAs 4,
#                 the degree-6 polynomial's 6 FMAs 12, scaling by one multiply 1) + sum (1) + scale (1);
#    bias_gelu 48 = + bias (1) + 0.5 z (1) + u = 0.5 z z (1) + t = 1/(1 + p'|z|) (FMA + divide, 3)
#                 + r(t) (4 FMAs, 8) + t r (1) + exp(-u) (18: n by an FMA 2, n as float 1, q by an FMA 2,
#                 6 polynomial FMAs 12, scaling 1) + w (1) + 2 - w (1) + 0.5 z (1 + erf) (1)
#                 + the series below |z| = 0.75 (6 FMAs, 12);
#  "avx512" (the same code, with AVX-512's own GELU and scaling):
#    softmax 21 = x - max (1) + exp_vf (18: x log2e 1, two reduction FMAs 4, 6 polynomial FMAs 12,
#                 vscalefps 1) + sum (1) + scale (1);
#    bias_gelu 42 = + bias (1) + -z/2 (1) + -z^2/2 as s + s_lo (multiply + FMA, 3) + s log2e (1)
#                 + r = s - n ln2 + s_lo (2 FMAs + add, 5) + e^r (6 FMAs, 12) + the table index 2a + 1.5 2^23
#                 (FMA, 2) + its float (1) + u (FMA, 2) + R(u) (5 FMAs, 10) + e R z (2) + vscalefps (1)
#                 + z - z q (1);
#  "sse2" (DEFAULT on x86-64, csrc/ops/cpu/sse2_math.h):
#    softmax 24 = x - max (1) + exp_ps (21: reduction 5, polynomial 10, r^2 p + r + 1 (4), scaling by two
#                 multiplies 2) + sum (1) + scale (1);
#    bias_gelu 28 = + bias (1) + z/sqrt2 (1) + erf_ps (23: x^2, 6 + 4 multiply-adds, x p, divide)
#                 + 0.5 z, 1 + erf, product (3).
#  triad 2 (one FMA), sum 1, sgemm 2 M N K.
FLOPS_PER_ELEMENT = {
    "softmax": {"aten_vec": 24, "avx2": 23, "avx512": 21, "sse2": 24},
    "bias_gelu": {"aten_vec": 40, "avx2": 48, "avx512": 42, "sse2": 28},
    "triad": {"aten_vec": 2, "avx2": 2, "avx512": 2, "sse2": 2},
    "sum": {"aten_vec": 1, "avx2": 1, "avx512": 1, "sse2": 1},
}
# SIMD instructions per vector of the variant's width in our kernels' hot loops (gcc 12 -O3; loads,
# stores, constant broadcasts, loop counters and prefetches not counted), as (all, mul, add): all = every
# arithmetic, logic, compare, conversion, rounding, scaling, permute or blend instruction; mul = those that
# issue only on the FMA pipes: FMAs, multiplies, the divide counted as one (the most favourable figure), and
# on AVX-512 vscalefps and the lane permutes (vpermt2ps/vpermi2ps): on a Zen 5, 12 chains of either beside
# 12 FMA chains ran at the rate of the FMA chains alone (2 per cycle in all), while vminps, vroundscaleps and
# vaddps beside FMAs doubled it (docs/kernels.md, "The instruction mix"); and vblendvps (AVX2), which Zen 4 /
# Zen 5 issue on the FMA pipes (https://www.uops.info/html-instr/VBLENDVPS_YMM_YMM_YMM_YMM.html; not
# measured here); add = those on the add pipes: adds, subtracts, min/max and rounding (the mixed
# microkernel's adds, and vminps / vroundscaleps as measured above); the rest (logic, shifts, compares,
# conversions, abs, register permutes of the horizontal sums) only in "all".  AVX2, AVX-512 and SSE2
# counted in the disassembly of the four-vector loops (divided by 4; tests/integration/ext/test_ops_isa.py
# recounts them in the built library):
#  softmax, rows of up to 16384 floats: the pipelined loop (softmax_kernel_isa.h: x - max, exp, running
#    sum, and the previous row's e * (1 / sum)) + the max pass (1 add-pipe max):
#    AVX-512 17 (mul 11: x log2e, 8 FMAs of the reduction and the degree-6 polynomial, vscalefps, the
#    scaling; add 6: max pass, x - max, min, max, round, sum); AVX2 17 (mul 11: the 9 FMAs, 2^n scaling,
#    the scaling; add 5: max pass, x - max, max, n = m - magic, sum; a shift); SSE2 28 (mul 12, add 15:
#    exp_nonpos_ps's multiply-add pairs, every one counted in the built loop).
#    (Before the degree-6 polynomial and the pipelining: AVX-512 19 / 12, AVX2 18 / 12, SSE2 28 / 13 in
#    (all, mul), the SSE2 multiplies then counted as 13, one more than the built loop had.)
#  softmax, longer rows ("softmax_online"): max, x - max, exp, sum, then x - max, exp, multiply = 2 exp + 5
#    (mul 2 exp + 1, add 2 exp + 4), with exp = the pipelined loop less x - max, sum and scaling: AVX-512
#    13 / 10 / 3, AVX2 13 / 10 / 2, SSE2 24 / 11 / 12.
#  bias_gelu: AVX-512 x + b and gelu_vf (vec_math.h: max, min, -z/2, s, s_lo, s log2e, round, 2 reduction
#    FMAs, + s_lo, 6 polynomial FMAs, |z|, index FMA, its float, u, 6 permutes, 5 table FMAs, e R, (e R) z,
#    vscalefps, compare, masked sub) = 37 (mul 28: 21 FMAs and multiplies, 6 permutes, vscalefps; add 7);
#    AVX2 x + b and gelu_vf (vec_math.h, all in line: max, 0.5 z, u, |z|, FMA + divide, 4 FMAs, t r, min,
#    FMA, sub, FMA, 6 polynomial FMAs, shift, scaling, w, 2 - w, blend, 0.5 z (1 + erf), 5 + 1 series FMAs,
#    compare, blend) = 36 (mul 28 with the two vblendvps, 26 before they were counted there; add 5);
#    SSE2 x + b and gelu_ps: max, z / sqrt 2, erf_ps (clamp 2, x^2, 6 x (multiply, add), 4 x (multiply,
#    add), x P, divide = 25), 0.5 z, 1 + erf, product = 31 (mul 16, add 15).
#  triad: one FMA (SSE2: multiply + add); sum: one add.
INSTRUCTIONS_PER_VECTOR = {
    "softmax": {"sse2": (28, 12, 15), "avx2": (17, 11, 5), "avx512": (17, 11, 6)},
    "softmax_online": {"sse2": (53, 23, 28), "avx2": (31, 21, 8), "avx512": (31, 21, 10)},
    "bias_gelu": {"sse2": (31, 16, 15), "avx2": (36, 28, 5), "avx512": (37, 28, 7)},
    "triad": {"sse2": (2, 1, 1), "avx2": (1, 1, 0), "avx512": (1, 1, 0)},
    "sum": {"sse2": (1, 0, 1), "avx2": (1, 0, 1), "avx512": (1, 0, 1)},
}
# softmax rows longer than this take the online path (kCachedRowFloats in softmax_kernel_isa.h)
SOFTMAX_CACHED_ROW_FLOATS = 16384

# Which compute ceiling bounds an op: sgemm's and triad's FLOPs are all FMAs (multiply + add on SSE2);
# the others mix adds, multiplies and FMAs.
CEILING_OF_OP = {"sgemm": "fma", "triad": "fma", "sum": "mixed", "softmax": "mixed", "bias_gelu": "mixed"}


def code_family(variant: str | None, machine: str | None = None) -> str:
    """Which FLOP count applies: DEFAULT on x86-64 runs the SSE2 code, AVX2 and AVX512 their own math, the
    rest ATen's vectors."""
    import platform  # noqa: PLC0415

    machine = machine or platform.machine()
    if variant == "DEFAULT" and machine.lower() in ("x86_64", "amd64"):
        return "sse2"
    if variant == "AVX512":
        return "avx512"
    if variant == "AVX2" and machine.lower() in ("x86_64", "amd64"):
        return "avx2"
    return "aten_vec"


def op_model(name: str, shape: list, family: str) -> dict:
    """FLOPs and compulsory bytes of one call of `name` on `shape` (float32)."""
    if name == "sgemm":
        m, k, n = shape
        flops, read, written, per = 2.0 * m * n * k, 4.0 * (m * k + k * n), 4.0 * m * n, None
        how = "2 M N K (every FLOP in an FMA)"
    else:
        elems = math.prod(shape)
        per = FLOPS_PER_ELEMENT[name][family]
        flops = float(per * elems)
        if name == "triad":
            read, written = 8.0 * elems, 4.0 * elems
        elif name == "sum":
            read, written = 4.0 * elems, 4.0
        elif name == "softmax":
            read, written = 4.0 * elems, 4.0 * elems
        else:  # bias_gelu: x and the bias row in, y out
            read, written = 4.0 * elems + 4.0 * shape[-1], 4.0 * elems
        how = f"{per} FLOPs per element ({family} code; see torch_envcheck/bench/roofline.py)"
    return {"flops": flops, "bytes_read": read, "bytes_written": written,
            "intensity": flops / (read + written), "flops_per_element": per, "flop_count": how,
            "ceiling": CEILING_OF_OP[name]}


def instruction_family(variant: str | None, machine: str | None = None) -> str | None:
    """Whose instruction counts apply: the x86-64 variants' ("sse2", "avx2", "avx512"); None elsewhere (ATen's
    generic vectors: not counted, the FLOP ceiling alone bounds them)."""
    import platform  # noqa: PLC0415

    machine = (machine or platform.machine()).lower()
    if machine not in ("x86_64", "amd64"):
        return None
    return {"DEFAULT": "sse2", "AVX2": "avx2", "AVX512": "avx512"}.get(variant or "")


def instruction_time(name: str, shape: list, family: str | None, kernel: dict | None,
                     compute_entry: dict | None) -> dict | None:
    """The least time the variant's own instructions for one call of `name` on `shape` take at the rates its
    microkernels measured (see the top of this file); None where the instructions are not counted.
    kernel: the variant's entry of envcheck::roofline_info; compute_entry: its measured "fma" and "mixed"."""
    if name == "softmax" and shape and shape[-1] > SOFTMAX_CACHED_ROW_FLOATS:
        name = "softmax_online"
    counts = INSTRUCTIONS_PER_VECTOR.get(name, {}).get(family or "")
    if counts is None or not kernel or not compute_entry:
        return None
    n_all, n_mul, n_add = counts
    steps_fma = compute_entry["fma"]["gflops"] * 1e9 / kernel["fma_flops_per_step"]  # chain steps per second
    steps_mixed = compute_entry["mixed"]["gflops"] * 1e9 / kernel["mixed_flops_per_step"]
    per_step = 2 if "+" in kernel["chain_step"] else 1  # SSE2: a multiply and an add per chain step
    mul_rate = steps_fma * kernel["fma_chains"]
    all_rate = max(steps_fma * kernel["fma_chains"] * per_step,
                   steps_mixed * (kernel["mixed_fma_chains"] * per_step + kernel["mixed_add_chains"]))
    # adds per second beside the FMA chains (SSE2: the add of each multiply + add step too)
    add_rate = steps_mixed * (kernel["mixed_fma_chains"] * (per_step - 1) + kernel["mixed_add_chains"])
    own_add_pipes = add_rate >= 0.75 * mul_rate
    rows, cols = (math.prod(shape[:-1]), shape[-1]) if name.startswith("softmax") else (1, math.prod(shape))
    vectors = rows * math.ceil(cols / kernel["vector_floats"])
    terms = [vectors * n_mul / mul_rate, vectors * n_all / all_rate]
    if own_add_pipes:
        terms.append(vectors * n_add / add_rate)
    return {"seconds": max(terms), "vectors": vectors, "instructions_per_vector": n_all,
            "multiplier_instructions_per_vector": n_mul, "add_pipe_instructions_per_vector": n_add,
            "instructions_per_s": all_rate, "multiplier_instructions_per_s": mul_rate,
            "add_pipe_instructions_per_s": add_rate if own_add_pipes else None, "counted_as": name}


def bound(model: dict, compute_gflops: float, read_gbs: float, write_gbs: float, copy_gbs: float | None = None,
          instruction_s: float | None = None) -> dict:
    """The roofline bound of one call: the least time and what sets it."""
    parts = {"compute": model["flops"] / (compute_gflops * 1e9),
             "memory read": model["bytes_read"] / (read_gbs * 1e9),
             "memory write": model["bytes_written"] / (write_gbs * 1e9)}
    if copy_gbs:
        parts["memory read + write"] = (model["bytes_read"] + model["bytes_written"]) / (copy_gbs * 1e9)
    if instruction_s is not None:
        parts["compute (instruction mix)"] = instruction_s
    by = max(parts, key=parts.get)
    t = parts[by]
    return {"seconds": t, "by": by, "gflops": model["flops"] / t / 1e9, "compute_gflops": compute_gflops}


def pct(bound_s: float, measured_s: float) -> float:
    return 100.0 * bound_s / measured_s if measured_s > 0 else float("nan")


# --- measuring the peaks ----------------------------------------------------------------------------

def _best_rate(measure, fn, amount: float, min_run_time: float, threads: int, rounds: int) -> dict:
    from torch_envcheck.bench.timing import Timing  # noqa: PLC0415

    t = Timing()
    for _ in range(rounds):
        measure(fn, min_run_time, threads, into=t)
    return {"rate": amount / t.best / 1e9, "median_rate": amount / t.median / 1e9, **t.as_dict()}


def _calibrated_iters(ops, sink, isa: str, mixed: bool, target_s: float) -> int:
    """Steps per call so that one call of the FMA microkernel lasts at least about target_s: grown 4x at a
    time while the fastest of three calls is shorter (a call also pays for waking the thread pool, and on a
    busy machine for waiting until every worker thread runs: far more than a few thousand steps take)."""
    import time  # noqa: PLC0415

    iters = 1000
    while True:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            ops.fma_peak(sink, isa, iters, mixed)
            if sink.device.type == "cuda":
                import torch  # noqa: PLC0415
                torch.cuda.synchronize(sink.device)
            best = min(best, time.perf_counter() - t0)
        if best >= target_s or iters >= 1 << 34:
            return iters
        iters *= 4


def compute_peaks(torch, ops, device: str, variants: list, quick: bool, threads: int, measure) -> dict:
    """{variant: {"fma": {...}, "mixed": {...}, "ceiling_gflops": ...}} measured on `device`."""
    sink = torch.zeros(1, device=device)
    rounds, run_time, target = (1, 0.05, 0.01) if quick else (3, 0.2, 0.05)
    out = {}
    for v in variants:
        entry = {}
        for kind, mixed in (("fma", False), ("mixed", True)):
            iters = _calibrated_iters(ops, sink, v, mixed, target)
            flops = ops.fma_peak(sink, v, iters, mixed)  # the FLOPs of one call, from the kernel
            r = _best_rate(measure, lambda: ops.fma_peak(sink, v, iters, mixed), flops, run_time, threads, rounds)
            entry[kind] = {"gflops": r.pop("rate"), "median_gflops": r.pop("median_rate"), "iters": iters,
                           "flops_per_call": flops, **r}
        entry["ceiling_gflops"] = max(entry["fma"]["gflops"], entry["mixed"]["gflops"])
        out[v] = entry
    return out


def memory_peaks(torch, ops, device: str, ws_bytes: int, isas: list, quick: bool, threads: int, measure) -> dict:
    """Read, write and copy bandwidth (GB/s) on buffers of ws_bytes in all (the ops' working-set size), each
    the best over the instruction sets' kernels: a ceiling must be the fastest way the machine has, not
    one way (on a Zen 4 VM narrower loads streamed faster: SSE2 52.6, AVX2 46.3, AVX-512 38.1 GB/s read
    in one process)."""
    rounds, run_time = (1, 0.05) if quick else (3, 0.2)
    n = max(1 << 16, ws_bytes // 4)
    half = n // 2
    best: dict = {}
    for isa in isas:
        x = torch.empty(n, device=device)
        ops.mem_write(x, 1.0, isa)  # first touch outside the timing
        got = {"read": _best_rate(measure, lambda: ops.mem_read(x, isa), 4.0 * n, run_time, threads, rounds),
               "write": _best_rate(measure, lambda: ops.mem_write(x, 2.0, isa), 4.0 * n, run_time, threads, rounds)}
        del x
        src, dst = torch.ones(half, device=device), torch.empty(half, device=device)
        got["copy"] = _best_rate(measure, lambda: ops.mem_copy(src, dst, isa), 8.0 * half, run_time, threads, rounds)
        del src, dst
        for kind, r in got.items():
            entry = best.setdefault(kind, {"gbs": 0.0, "by_isa": {}})
            entry["by_isa"][isa] = r["rate"]
            if r["rate"] > entry["gbs"]:
                entry.update(gbs=r["rate"], median_gbs=r["median_rate"], isa=isa,
                             **{k: v for k, v in r.items() if k not in ("rate", "median_rate")})
    how = {"read": "every element loaded once (vector loads into 8 accumulators)",
           "write": "non-temporal stores of one value (no read for ownership)",
           "copy": "loads + non-temporal stores; bytes read + bytes written"}
    for kind in best:
        best[kind].update(bytes=8.0 * half if kind == "copy" else 4.0 * n, how=how[kind])
    return {**best, "working_set_bytes": 4 * n}


# --- theoretical figures ----------------------------------------------------------------------------

# FP32 FLOPs per cycle per core of the "fma" microkernel's instruction, where documented.  Zen 4 runs
# AVX-512 on its two 256-bit FMA pipes ("double pumping"), Zen 5 desktop/server cores on two 512-bit
# pipes (mobile Zen 5 keeps 256-bit pipes): A. Yee, "Zen5's AVX512 Teardown",
# http://numberworld.org/blogs/2024_8_7_zen5_avx512_teardown (which also covers Zen 4).  SSE2 has no
# FMA: its chain step is a multiply (2 multiply pipes) and an add (2 add pipes) on 4 floats.
_UARCH = {
    "AMD Zen 4": {"DEFAULT": 16, "AVX2": 32, "AVX512": 32},
    "AMD Zen 5 (desktop/server; mobile parts: AVX512 32)": {"DEFAULT": 16, "AVX2": 32, "AVX512": 64},
}
UARCH_SOURCE = "http://numberworld.org/blogs/2024_8_7_zen5_avx512_teardown"


def _cpuinfo_fields() -> dict:
    out = {}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if not line.strip():
                    break  # the first processor is enough
                key, _, value = line.partition(":")
                out[key.strip()] = value.strip()
    except OSError:
        pass
    return out


def microarchitecture(fields: dict | None = None) -> str | None:
    """AMD Zen 4 / Zen 5 from /proc/cpuinfo's family and model (AMD family 19h models 10h-1Fh, 60h-7Fh,
    A0h-AFh are Zen 4; family 1Ah is Zen 5); None for anything else."""
    f = _cpuinfo_fields() if fields is None else fields
    if f.get("vendor_id") != "AuthenticAMD":
        return None
    try:
        family, model = int(f.get("cpu family", "")), int(f.get("model", ""))
    except ValueError:
        return None
    if family == 0x19 and (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF):
        return "AMD Zen 4"
    if family == 0x1A:
        return "AMD Zen 5 (desktop/server; mobile parts: AVX512 32)"
    return None


def max_clock_ghz() -> tuple[float | None, str]:
    """The CPU's maximum clock from cpufreq, if this system exposes it (VMs often do not)."""
    path = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
    try:
        with open(path) as fh:
            return int(fh.read().strip()) / 1e6, "cpufreq cpuinfo_max_freq"
    except (OSError, ValueError):
        return None, "not readable (no cpufreq: /proc/cpuinfo's 'cpu MHz' is not the running clock)"


def cpu_theoretical(peaks: dict, threads: int) -> dict:
    """Per variant: FLOPs/cycle/core from the table, GFLOP/s at the maximum clock when readable, and the
    clock the measured "fma" peak implies (measured / (FLOPs per cycle x threads))."""
    uarch = microarchitecture()
    clock, clock_src = max_clock_ghz()
    out = {"microarchitecture": uarch, "source": UARCH_SOURCE if uarch else None, "max_clock_ghz": clock,
           "clock_source": clock_src, "threads": threads, "variants": {}}
    if uarch is None:
        out["note"] = "this CPU is not in the table of documented FMA pipes (torch_envcheck/bench/roofline.py)"
        return out
    for v, entry in peaks.items():
        per_cycle = _UARCH[uarch].get(v)
        if per_cycle is None:
            continue
        row = {"flops_per_cycle_per_core": per_cycle}
        if clock:
            row["gflops"] = per_cycle * clock * threads
            row["measured_pct"] = 100.0 * entry["fma"]["gflops"] / row["gflops"]
        row["implied_clock_ghz"] = entry["fma"]["gflops"] / (per_cycle * threads)
        out["variants"][v] = row
    return out


# FP32 lanes (FFMA results per cycle) per SM by compute capability: CUDA C++ Programming Guide,
# "Arithmetic Instructions" throughput table,
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#arithmetic-instructions
_FP32_LANES = {(6, 0): 64, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128, (8, 9): 128,
               (9, 0): 128, (10, 0): 128, (10, 3): 128, (11, 0): 128, (12, 0): 128, (12, 1): 128}


def gpu_theoretical(props) -> dict:
    """The published-peak formulas from the device's attributes: FP32 = SMs x lanes x 2 x clock; memory =
    2 (double data rate) x memory clock x bus width / 8 (as NVIDIA's bandwidthTest sample computes it)."""
    cap = (props.major, props.minor)
    lanes = _FP32_LANES.get(cap)
    clock_khz = getattr(props, "clock_rate", None)
    mem_khz, bus = getattr(props, "memory_clock_rate", None), getattr(props, "memory_bus_width", None)
    out = {"name": props.name, "compute_capability": f"{cap[0]}.{cap[1]}", "sms": props.multi_processor_count,
           "fp32_lanes_per_sm": lanes, "source": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"
                                                 "index.html#arithmetic-instructions"}
    if lanes and clock_khz:
        out["fp32_gflops"] = props.multi_processor_count * lanes * 2 * clock_khz * 1e3 / 1e9
        out["clock_ghz"] = clock_khz / 1e6
    if mem_khz and bus:
        out["memory_gbs"] = 2 * mem_khz * 1e3 * bus / 8 / 1e9
    return out


def merge_best(first: dict, second: dict) -> dict:
    """Two measurements of the same peaks (before and after the ops) -> the best of each.  A peak is the
    most the machine did; measuring it twice, around the ops, keeps a busy moment in one measurement from
    lowering a bound the ops may then beat."""
    compute = {}
    for v, e in first["compute"].items():
        e2 = second["compute"].get(v, e)
        entry = {k: (e[k] if e[k]["gflops"] >= e2[k]["gflops"] else e2[k]) for k in ("fma", "mixed")}
        entry["ceiling_gflops"] = max(entry["fma"]["gflops"], entry["mixed"]["gflops"])
        compute[v] = entry
    memory = dict(first["memory"])
    for k in ("read", "write", "copy"):
        if second["memory"][k]["gbs"] > memory[k]["gbs"]:
            memory[k] = second["memory"][k]
    return {"compute": compute, "memory": memory, "measurements": 2}


def ceilings(compute: dict, memory: dict) -> dict:
    """The machine's ceilings: the best instruction set's compute, and read / write bandwidth."""
    best_fma = max(e["fma"]["gflops"] for e in compute.values())
    best_mixed = max(e["ceiling_gflops"] for e in compute.values())
    return {"fma_gflops": best_fma, "mixed_gflops": max(best_fma, best_mixed),
            "read_gbs": memory["read"]["gbs"], "write_gbs": memory["write"]["gbs"], "copy_gbs": memory["copy"]["gbs"]}


def ceiling_gflops(ceil: dict, kind: str) -> float:
    return ceil["fma_gflops"] if kind == "fma" else ceil["mixed_gflops"]


def isa_ceiling_gflops(compute_entry: dict, kind: str) -> float:
    return compute_entry["fma"]["gflops"] if kind == "fma" else compute_entry["ceiling_gflops"]


def violations(report: dict) -> list:
    """Every point above 100% of its bound: the bound (a peak measurement) is then wrong, not the op."""
    out = []
    for dev, d in report.get("devices", {}).items():
        for r in d.get("ops", []):
            rl = r.get("roofline") or {}
            for side in ("custom_pct", "builtin_pct", "custom_isa_pct"):
                v = rl.get(side)
                if v is not None and v > 100.0:
                    out.append(f"{dev} {r['op']} {side.replace('_', ' ')} {v:.0f}% of its bound")
    return out
