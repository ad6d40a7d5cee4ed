"""Whether an op's speed ratio compares like with like: our kernel variant's instruction set against the one
the built-in ran.

A forced variant (`bench --isa ...`) narrows ATen's own kernels with it, but torch.matmul calls MKL, which
picks its own code path (it ignores ATEN_CPU_CAPABILITY, and MKL_ENABLE_INSTRUCTIONS only on Intel CPUs), and
gelu runs oneDNN's JIT kernel.  The built-in's instruction set comes from the library's own words (the
benchmark's builtin_dispatch: MKL_VERBOSE, ONEDNN_VERBOSE, ATen's capability).  Where the library names none
(MKL on a CPU it does not take for Intel), a compute-bound built-in that ran faster than the variant's own
measured arithmetic peak must have used wider instructions than the variant: that is proof too, and the
mark names the narrowest instruction set whose measured peak allows the rate ("AVX2 or wider").

A ratio marked not comparable is shown but not judged; the op is then judged on its % of the variant's own
roofline bound only.  Pure functions of recorded data: no measuring, no torch.
"""

from __future__ import annotations

# Vector classes, narrowest first.  SSE2 (the DEFAULT variant) and SSE4.x share 128-bit registers without
# FMA, so they count as one class; AVX adds 256-bit registers, AVX2 with FMA3, AVX-512 512-bit ones.
_RANK = {"DEFAULT": 1, "SSE2": 1, "SSE4_1": 1, "SSE4_2": 1, "AVX": 2, "AVX2": 3, "AVX512": 4}
_LABEL = {"DEFAULT": "SSE2", "SSE2": "SSE2", "SSE4_1": "SSE4.1", "SSE4_2": "SSE4.2", "AVX": "AVX", "AVX2": "AVX2",
          "AVX512": "AVX-512"}
# The ops whose built-in is a library with its own dispatch; the rest are ATen's kernels.
_LIBRARY_OPS = {"sgemm": "mkl", "bias_gelu": "onednn"}


def label(isa: str | None) -> str:
    return _LABEL.get(isa or "", isa or "unknown")


def onednn_isa(implementation: str | None) -> str | None:
    """'jit:avx512_core_bf16' -> 'AVX512', 'jit:avx2' -> 'AVX2', 'jit:sse41' -> 'SSE4_1'; None for others
    (e.g. 'ref:any', which names no vector instructions)."""
    text = (implementation or "").lower()
    for key, isa in (("avx512", "AVX512"), ("avx10", "AVX512"), ("avx2", "AVX2"), ("avx", "AVX"),
                     ("sse41", "SSE4_1"), ("sse4", "SSE4_1")):
        if key in text:
            return isa
    return None


def builtin_isa(op: str, dispatch: dict | None) -> tuple[str | None, str]:
    """(the instruction set the built-in for `op` ran, where that comes from); (None, why) when not stated."""
    dispatch = dispatch or {}
    lib = _LIBRARY_OPS.get(op)
    if lib == "mkl" and dispatch.get("blas") == "MKL":
        mkl = dispatch.get("mkl") or {}
        if mkl.get("isa"):
            return mkl["isa"], f"MKL_VERBOSE: \"{mkl.get('says', '')}\""
        return None, "MKL names no instruction set on this CPU" if mkl else "MKL_VERBOSE gave no statement"
    if lib == "mkl":
        return None, f"torch.matmul calls {dispatch.get('blas') or 'a BLAS'}, which does not say"
    if lib == "onednn" and dispatch.get("onednn"):
        impl = dispatch["onednn"].get("implementation")
        isa = onednn_isa(impl)
        return (isa, f"ONEDNN_VERBOSE: {impl}") if isa else (None, f"oneDNN ran {impl}")
    cap = dispatch.get("aten_capability")
    if cap in _RANK:
        return cap, "ATen's CPU capability"
    return None, "ATen's CPU capability unknown"


def mark(variant: str | None, op: str, dispatch: dict | None, builtin_gflops: float | None = None,
         peaks_gflops: dict | None = None, compute_bound: bool = False) -> dict:
    """{"comparable": True/False/None, "builtin_isa", "basis", "reason"} for one op of a CPU run with kernel
    `variant`.  peaks_gflops: each variant's measured arithmetic ceiling for the op's kind (GFLOP/s), used only
    when the library names no instruction set and the op is compute-bound."""
    out = {"comparable": None, "builtin_isa": None, "basis": "unknown", "reason": ""}
    if variant not in _RANK:
        out["reason"] = f"kernel variant {variant!r} has no x86 instruction-set class"
        return out
    isa, source = builtin_isa(op, dispatch)
    if isa is not None:
        out.update(builtin_isa=isa, basis="stated")
        if _RANK[isa] == _RANK[variant]:
            out.update(comparable=True, reason=f"both ran {label(variant)}-class code ({source})")
        else:
            out.update(comparable=False, reason=f"built-in ran {label(isa)} ({source}), ours {label(variant)}")
        return out
    peaks = peaks_gflops or {}
    own = peaks.get(variant)
    if compute_bound and own and builtin_gflops and builtin_gflops > own:
        # Faster than our variant's instructions can go at all: the built-in ran wider ones.
        wider = sorted((v for v in peaks if v in _RANK and _RANK[v] > _RANK[variant]), key=_RANK.get)
        least = next((v for v in wider if peaks[v] >= builtin_gflops), wider[-1] if wider else None)
        name = f"{label(least)} or wider" if least else f"wider than {label(variant)}"
        out.update(comparable=False, builtin_isa=least, basis="measured",
                   reason=f"built-in ran {name}: {builtin_gflops:.0f} GFLOP/s is above the {label(variant)} "
                          f"peak of {own:.0f} ({source})")
        return out
    out["reason"] = source
    return out


def ratio_text(ratio: float, comparable: dict | None) -> str:
    """The speed-ratio cell: '1.15x', or 'not comparable (built-in ran AVX2 or wider): 0.41x'."""
    if comparable and comparable.get("comparable") is False:
        return f"not comparable (built-in ran {_ran(comparable)}): {ratio:.2f}x"
    return f"{ratio:.2f}x"


def _ran(comparable: dict) -> str:
    isa = comparable.get("builtin_isa")
    if comparable.get("basis") == "measured":
        return f"{label(isa)} or wider" if isa else "wider code"
    return label(isa)
