"""The benchmark's "not comparable" mark: given our kernel variant and what the built-in's library said it
ran (or a rate only wider instructions allow), the expected mark; targets on a marked ratio are not judged
and the renderers say why."""

from __future__ import annotations

import io

import pytest

from torch_envcheck.bench import comparable, report as report_mod, suite

# MKL_VERBOSE's own words (the first line's "architecture ..." part) on an Intel AVX-512 CPU and on an AMD one.
MKL_INTEL_512 = {"version": "2024.0", "isa": "AVX512",
                 "says": "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) enabled processors"}
MKL_AMD = {"version": "2024.0", "isa": None, "says": "Intel(R) Architecture processors"}


def dispatch(mkl=None, onednn=None, aten="AVX512"):
    return {"aten_capability": aten, "blas": "MKL", "mkl": mkl,
            "onednn": {"version": "3.12.0", "implementation": onednn, "alg": "eltwise_gelu_erf"} if onednn else None}


@pytest.mark.parametrize("variant, mkl, expected, isa", [
    ("AVX512", MKL_INTEL_512, True, "AVX512"),
    ("AVX2", MKL_INTEL_512, False, "AVX512"),
    ("DEFAULT", MKL_INTEL_512, False, "AVX512"),
    ("AVX2", {"version": "2024.0", "isa": "AVX2", "says": "Intel(R) AVX2 enabled processors"}, True, "AVX2"),
    # MKL_ENABLE_INSTRUCTIONS=SSE4_2 honoured on Intel: the same 128-bit class as our SSE2 DEFAULT
    ("DEFAULT", {"version": "2024.0", "isa": "SSE4_2", "says": "Intel(R) SSE4.2 enabled processors"}, True, "SSE4_2"),
])
def test_stated_isa_decides(variant, mkl, expected, isa):
    m = comparable.mark(variant, "sgemm", dispatch(mkl=mkl))
    assert (m["comparable"], m["builtin_isa"], m["basis"]) == (expected, isa, "stated")


PEAKS = {"DEFAULT": 100.0, "AVX2": 200.0, "AVX512": 400.0}  # GFLOP/s: each variant's measured FMA ceiling


@pytest.mark.parametrize("variant, builtin_gflops, expected, isa", [
    ("DEFAULT", 150.0, False, "AVX2"),     # above the SSE2 peak, within AVX2's: AVX2 or wider
    ("DEFAULT", 300.0, False, "AVX512"),   # above AVX2's too
    ("AVX2", 300.0, False, "AVX512"),
    ("DEFAULT", 90.0, None, None),         # within the SSE2 peak: no proof either way
    ("AVX512", 150.0, None, None),         # a narrower built-in cannot be told from a slower one
])
def test_unstated_isa_is_inferred_only_from_a_rate_above_the_variants_peak(variant, builtin_gflops, expected, isa):
    m = comparable.mark(variant, "sgemm", dispatch(mkl=MKL_AMD), builtin_gflops, PEAKS, compute_bound=True)
    assert (m["comparable"], m["builtin_isa"]) == (expected, isa)
    if expected is False:
        assert m["basis"] == "measured"
        assert f"above the {comparable.label(variant)} peak of {PEAKS[variant]:.0f}" in m["reason"]


def test_rate_proves_nothing_for_a_memory_bound_op():
    m = comparable.mark("DEFAULT", "sgemm", dispatch(mkl=MKL_AMD), 300.0, PEAKS, compute_bound=False)
    assert m["comparable"] is None


@pytest.mark.parametrize("impl, variant, expected", [
    ("jit:avx512_core_bf16", "AVX2", False),
    ("jit:avx512_core_bf16", "AVX512", True),
    ("jit:avx2", "AVX2", True),
    ("jit:sse41", "DEFAULT", True),
    ("ref:any", "AVX2", None),
])
def test_gelu_follows_onednn(impl, variant, expected):
    assert comparable.mark(variant, "bias_gelu", dispatch(onednn=impl))["comparable"] is expected


@pytest.mark.parametrize("aten, variant, expected", [("AVX2", "AVX2", True), ("DEFAULT", "DEFAULT", True),
                                                     ("AVX512", "AVX2", False), (None, "AVX2", None)])
def test_aten_ops_follow_atens_capability(aten, variant, expected):
    assert comparable.mark(variant, "softmax", dispatch(aten=aten))["comparable"] is expected


def test_other_blas_names_nothing():
    d = {"aten_capability": "AVX2", "blas": "OpenBLAS", "mkl": None, "onednn": None}
    assert comparable.mark("AVX2", "sgemm", d)["comparable"] is None


def _report(variant, mkl, builtin_gflops):
    rl = {"ceiling": "fma", "bound_by": "compute", "builtin_gflops": builtin_gflops, "custom_pct": 60.0,
          "custom_isa_pct": 88.0, "builtin_pct": 150.0, "intensity": 341.0}
    row = {"op": "sgemm", "shape": [2048, 2048, 2048], "speed_ratio": 0.41, "unit": "GFLOP/s", "builtin": "torch.matmul",
           "custom": {"median_s": 0.2, "iqr_s": 0.01, "rate": 80.0},
           "builtin_timing": {"median_s": 0.08, "iqr_s": 0.01, "rate": builtin_gflops}, "roofline": rl}
    compute = {v: {"fma": {"gflops": g}, "mixed": {"gflops": g}, "ceiling_gflops": g} for v, g in PEAKS.items()}
    rep = {"quick": False, "builtin_dispatch": dispatch(mkl=mkl),
           "devices": {"cpu": {"peaks": {"selected": variant, "compute": compute}, "ops": [row]}}}
    suite._mark_comparable(rep)
    rep["targets"] = suite._targets(rep)
    return rep


def test_marked_ratio_targets_are_not_judged_and_own_bound_is():
    rep = _report("DEFAULT", MKL_INTEL_512, 200.0)
    row = rep["devices"]["cpu"]["ops"][0]
    assert row["comparable"]["comparable"] is False
    sgemm = {t["target"]: t for t in rep["targets"] if t["device"] == "cpu" and t["op"] == "sgemm"}
    ratio = [t for t in sgemm.values() if t["metric"] == "ratio"]
    assert ratio and all(t["met"] is None and t["comparable"] is False for t in ratio)
    assert all("not comparable (built-in ran AVX-512): 0.41x" in t["note"] for t in ratio)
    own = [t for t in sgemm.values() if t["metric"] == "pct_bound"]
    assert [(t["value"], t["met"]) for t in own] == [(88.0, True)]


def test_comparable_ratio_targets_are_judged():
    rep = _report("AVX512", MKL_INTEL_512, 200.0)
    ratio = [t for t in rep["targets"] if t["device"] == "cpu" and t["op"] == "sgemm" and t["metric"] == "ratio"]
    assert [t["met"] for t in ratio] == [False, False]  # 0.41x against 0.6x and 0.8x


def test_renderers_say_not_comparable():
    rep = _report("DEFAULT", MKL_AMD, 150.0)
    rows = report_mod.rows(rep)
    assert rows[0][report_mod.HEADERS.index("speed ratio")] == "not comparable (built-in ran AVX2 or wider): 0.41x"
    lines = report_mod._target_lines(rep)
    assert ("cpu", "sgemm >= 0.6x torch.matmul (2048^3)", "not judged",
            "not comparable (built-in ran AVX2 or wider): 0.41x; judged on its own bound") in lines
    cell = report_mod._isa_cell(rep["devices"]["cpu"]["ops"][0])
    assert cell.startswith("not comparable (built-in ran AVX2 or wider): 0.41x (")


def test_plain_rendering_of_a_comparable_ratio_is_unchanged():
    rep = _report("AVX512", MKL_INTEL_512, 200.0)
    assert report_mod.rows(rep)[0][report_mod.HEADERS.index("speed ratio")] == "0.41x"
