"""`torch-envcheck bench --quick --json`: the report's structure, that its ratios and roofline percentages
are computed from the measured times and peaks, the roofline arithmetic, and the figure (no speed
assertions: those belong to the benchmark itself)."""

from __future__ import annotations

import argparse
import json
import math

import os

import pytest

from _ops_helpers import load_ops


@pytest.fixture(scope="module")
def report():
    load_ops()
    import contextlib
    import io

    from torch_envcheck.commands import bench as cli

    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args(["--quick", "--json", "--no-progress", "--device", "cpu"])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = cli.run(args)
    assert rc == 0
    return json.loads(buf.getvalue())


def test_structure(report):
    assert report["quick"] is True
    cpu = report["devices"]["cpu"]
    assert [r["op"] for r in cpu["ops"]] == ["triad", "sum", "softmax", "bias_gelu", "sgemm"]
    peaks = cpu["peaks"]
    isa = report["cpu_kernel_isa"]
    assert list(peaks["compute"]) == ["DEFAULT"] + [v for v in ("AVX2", "AVX512") if v in isa["cpu_supports"]]
    for v, e in peaks["compute"].items():
        assert e["fma"]["gflops"] > 0 and e["mixed"]["gflops"] > 0
        assert e["ceiling_gflops"] == max(e["fma"]["gflops"], e["mixed"]["gflops"])
        assert e["fma"]["flops_per_call"] > 0 and e["fma"]["blocks"] >= 1
    for k in ("read", "write", "copy"):
        assert peaks["memory"][k]["gbs"] > 0
    assert peaks["memory"]["working_set_bytes"] >= 2 * cpu["cache_bytes"]  # >= 2x LLC even in --quick
    assert peaks["ceilings"]["read_gbs"] == peaks["memory"]["read"]["gbs"]
    assert peaks["ceilings"]["mixed_gflops"] == max(e["ceiling_gflops"] for e in peaks["compute"].values())
    assert cpu["sizes"]["triad_n"] * 12 >= 2 * cpu["cache_bytes"]
    assert report["classic_matmul"]["cpu"]["gflops"] > 0
    assert len(report["machine"]["load_average"]["start"]) == 3
    assert {t["device"] for t in report["targets"]} == {"cpu", "cuda"}
    for r in cpu["ops"]:  # every CPU row says whether its built-in ran our variant's instruction set
        assert r["comparable"]["comparable"] in (True, False, None) and r["comparable"]["reason"]
    for t in report["targets"]:
        if t["device"] == "cpu" and t.get("comparable") is False:
            assert t["met"] is None and t["metric"] == "ratio"
        elif t["device"] == "cpu":
            assert t["met"] == (t["value"] >= t["threshold"])
    assert report["roofline_violations"] == [f for f in report["roofline_violations"] if "% of its bound" in f]


def test_ratios_and_roofline_come_from_measured_times(report):
    from torch_envcheck.bench import roofline
    cpu = report["devices"]["cpu"]
    ceil = cpu["peaks"]["ceilings"]
    for r in cpu["ops"]:
        c, b, rl = r["custom"], r["builtin_timing"], r["roofline"]
        # Sampled in pairs (timing.paired): as many custom as built-in samples, at least 10 pairs.
        assert c["blocks"] == b["blocks"] == r["pairs"] >= 10
        assert c["median_s"] > 0 and b["median_s"] > 0 and c["iqr_s"] >= 0
        q1, med, q3 = r["ratio_quartiles"]
        assert q1 <= med <= q3 and math.isclose(r["speed_ratio"], med, rel_tol=1e-9)
        assert math.isclose(r["ratio_of_medians"], b["median_s"] / c["median_s"], rel_tol=1e-9)
        assert math.isclose(c["rate"], r["amount"] / c["median_s"] / 1e9, rel_tol=1e-9)
        # The bound: the largest of the three least times, from the ceilings in the report.
        compute = ceil["fma_gflops"] if rl["ceiling"] == "fma" else ceil["mixed_gflops"]
        want = max(rl["flops"] / compute / 1e9, rl["bytes_read"] / ceil["read_gbs"] / 1e9,
                   rl["bytes_written"] / ceil["write_gbs"] / 1e9,
                   (rl["bytes_read"] + rl["bytes_written"]) / ceil["copy_gbs"] / 1e9)
        assert math.isclose(rl["bound_s"], want, rel_tol=1e-9)
        assert math.isclose(rl["custom_pct"], 100 * want / c["median_s"], rel_tol=1e-9)
        assert math.isclose(rl["builtin_pct"], 100 * want / b["median_s"], rel_tol=1e-9)
        assert math.isclose(rl["custom_gflops"], rl["flops"] / c["median_s"] / 1e9, rel_tol=1e-9)
        assert rl["isa"] == report["cpu_kernel_isa"]["selected"] and rl["custom_isa_pct"] >= rl["custom_pct"] - 1e-9
        # The variant's own bound adds its instruction mix (counted for every op but sgemm on x86-64).
        ins = rl["isa_instructions"]
        if r["op"] == "sgemm" or roofline.instruction_family(rl["isa"]) is None:
            assert ins is None
        else:
            assert ins["seconds"] > 0 and rl["isa_bound_s"] >= ins["seconds"] - 1e-15
            assert rl["isa_bound_s"] >= rl["bound_s"] - 1e-15
        assert rl == {**rl, **roofline.op_model(r["op"], r["shape"], roofline.code_family(rl["isa"]))}


def test_plain_table_renders(report, capsys):
    from torch_envcheck.bench import report as rep
    rep.print_report(report)
    text = capsys.readouterr().out
    for op in ("triad", "sum", "softmax", "bias_gelu", "sgemm"):
        assert op in text
    assert "targets" in text and "peak FP32 GFLOP/s" in text and "memory: read" in text


# --- the roofline model (pure arithmetic: no measurement) --------------------------------------------

def test_op_model_counts():
    from torch_envcheck.bench import roofline
    m = roofline.op_model("sgemm", [64, 32, 16], "aten_vec")
    assert m["flops"] == 2 * 64 * 16 * 32 and m["bytes_read"] == 4 * (64 * 32 + 32 * 16)
    assert m["bytes_written"] == 4 * 64 * 16 and m["ceiling"] == "fma"
    t = roofline.op_model("triad", [1000], "sse2")
    assert (t["flops"], t["bytes_read"], t["bytes_written"]) == (2000, 8000, 4000)
    g = roofline.op_model("bias_gelu", [10, 100], "aten_vec")
    assert g["flops"] == 40 * 1000 and g["bytes_read"] == 4 * 1000 + 4 * 100 and g["bytes_written"] == 4000
    assert roofline.op_model("softmax", [4, 8], "sse2")["flops"] == 24 * 32
    assert roofline.op_model("bias_gelu", [10, 100], "avx512")["flops"] == 42 * 1000
    assert math.isclose(roofline.op_model("sum", [400], "aten_vec")["intensity"], 400 / (1600 + 4))
    assert roofline.code_family("DEFAULT", "x86_64") == "sse2"
    assert roofline.code_family("DEFAULT", "aarch64") == "aten_vec"
    assert roofline.code_family("AVX2", "x86_64") == "avx2"
    assert roofline.op_model("bias_gelu", [10, 100], "avx2")["flops"] == 48 * 1000
    assert roofline.code_family("AVX512", "x86_64") == "avx512"


def test_paired_timing_alternates_and_pairs_samples():
    """Two fake ops whose calls take known, alternating amounts of time: each pair's ratio is computed from
    adjacent samples, so a slow phase that hits both sides does not move the median ratio."""
    import time

    from torch_envcheck.bench import timing
    state = {"calls": 0}

    def slow_phase():
        return (state["calls"] // 8) % 2 == 1  # every other group of 8 calls runs 3x slower

    def custom():
        state["calls"] += 1
        time.sleep(0.002 * (3 if slow_phase() else 1))

    def builtin():
        state["calls"] += 1
        time.sleep(0.003 * (3 if slow_phase() else 1))

    tc, tb, ratios = timing.paired(custom, builtin, min_run_time=0.05, min_pairs=12)
    assert len(tc.times) == len(tb.times) == len(ratios) >= 12
    assert all(math.isclose(r, b / c) for r, b, c in zip(ratios, tb.times, tc.times))
    import statistics
    assert 1.2 < statistics.median(ratios) < 1.8  # 1.5 within sleep jitter


def test_bound_takes_the_slowest_limit_and_violations_are_reported():
    from torch_envcheck.bench import roofline
    model = {"flops": 1e9, "bytes_read": 8e9, "bytes_written": 4e9}
    b = roofline.bound(model, compute_gflops=100.0, read_gbs=40.0, write_gbs=10.0)
    assert b["by"] == "memory write" and math.isclose(b["seconds"], 0.4)
    b = roofline.bound(model, compute_gflops=1.0, read_gbs=40.0, write_gbs=10.0)
    assert b["by"] == "compute" and math.isclose(b["seconds"], 1.0)
    assert math.isclose(roofline.pct(0.4, 0.5), 80.0)
    rep = {"devices": {"cpu": {"ops": [{"op": "sum", "roofline": {"custom_pct": 101.0, "builtin_pct": 50.0}},
                                       {"op": "triad", "roofline": {"custom_pct": 99.0, "builtin_pct": 100.0}}]}}}
    assert roofline.violations(rep) == ["cpu sum custom pct 101% of its bound"]


def test_bound_with_copy_and_instruction_terms():
    from torch_envcheck.bench import roofline
    model = {"flops": 1e9, "bytes_read": 8e9, "bytes_written": 8e9}
    # read 8 / 100 = 0.08 s, write 8 / 100 = 0.08 s, but both through a 50 GB/s copy path: 0.32 s
    b = roofline.bound(model, compute_gflops=100.0, read_gbs=100.0, write_gbs=100.0, copy_gbs=50.0)
    assert b["by"] == "memory read + write" and math.isclose(b["seconds"], 0.32)
    b = roofline.bound(model, 100.0, 100.0, 100.0, 50.0, instruction_s=0.5)
    assert b["by"] == "compute (instruction mix)" and math.isclose(b["seconds"], 0.5)


def test_instruction_time_from_the_microkernels_rates():
    from torch_envcheck.bench import roofline
    # AVX-512: an FMA chain step is one 16-float FMA (32 FLOPs); 16 chains -> 512 FLOPs per step.  The
    # mixed step: 10 FMAs + 10 adds (480 FLOPs).  At 320 GFLOP/s FMA: 10e9 multiplier instructions/s;
    # mixed 480 GFLOP/s: 1e9 steps/s x 20 = 20e9 instructions/s.
    kernel = {"vector_floats": 16, "fma_chains": 16, "mixed_fma_chains": 10, "mixed_add_chains": 10,
              "chain_step": "vfmadd231ps zmm", "fma_flops_per_step": 512, "mixed_flops_per_step": 480}
    entry = {"fma": {"gflops": 320.0}, "mixed": {"gflops": 480.0}}
    t = roofline.instruction_time("bias_gelu", [1000, 1600], "avx512", kernel, entry)
    vectors = 1000 * 100
    n_all, n_mul, n_add = roofline.INSTRUCTIONS_PER_VECTOR["bias_gelu"]["avx512"]
    assert t["vectors"] == vectors
    # adds beside the FMAs: 1e9 steps/s x 10 = 10e9/s, as fast as the FMA chains: pipes of their own
    assert math.isclose(t["seconds"], max(vectors * n_mul / 10e9, vectors * n_all / 20e9, vectors * n_add / 10e9))
    assert t["add_pipe_instructions_per_s"] == 10e9
    # an add-heavy mix is bound by the add pipes (28 adds of 32 instructions: 2.8 ns a vector at 10e9/s,
    # against 32 / 20e9 = 1.6 ns for all)
    heavy = dict(roofline.INSTRUCTIONS_PER_VECTOR, sum={"avx512": (32, 4, 28)})
    try:
        roofline.INSTRUCTIONS_PER_VECTOR, saved = heavy, roofline.INSTRUCTIONS_PER_VECTOR
        h = roofline.instruction_time("sum", [1600], "avx512", kernel, entry)
    finally:
        roofline.INSTRUCTIONS_PER_VECTOR = saved
    assert math.isclose(h["seconds"], 100 * 28 / 10e9)
    # adds sharing the FMA ports (Intel: the mixed kernel ran FMAs and adds at the FMA chains' total rate,
    # 5e9 adds/s beside 10e9 FMAs/s alone): no add term, the all-instructions term covers them
    shared = {"fma": {"gflops": 320.0}, "mixed": {"gflops": 240.0}}
    s = roofline.instruction_time("bias_gelu", [1000, 1600], "avx512", kernel, shared)
    assert s["add_pipe_instructions_per_s"] is None
    assert math.isclose(s["seconds"], max(vectors * n_mul / 10e9, vectors * n_all / 10e9))
    # softmax rows: whole vectors per row (a 17-float row is two 16-float vectors); long rows count twice
    # the exp
    assert roofline.instruction_time("softmax", [3, 17], "avx512", kernel, entry)["vectors"] == 6
    long_rows = roofline.instruction_time("softmax", [2, 20000], "avx512", kernel, entry)
    assert long_rows["counted_as"] == "softmax_online"
    # SSE2: a chain step is a multiply and an add (2 instructions, 8 FLOPs on 4 floats)
    sse = {"vector_floats": 4, "fma_chains": 12, "mixed_fma_chains": 12, "mixed_add_chains": 0,
           "chain_step": "mulps + addps xmm", "fma_flops_per_step": 96, "mixed_flops_per_step": 96}
    e = {"fma": {"gflops": 96.0}, "mixed": {"gflops": 96.0}}  # 1e9 steps/s: 12e9 multiplies, 24e9 all
    t = roofline.instruction_time("triad", [4000], "sse2", sse, e)
    assert math.isclose(t["seconds"], max(1000 * 1 / 12e9, 1000 * 2 / 24e9, 1000 * 1 / 12e9))
    assert roofline.instruction_time("sgemm", [8, 8, 8], "avx512", kernel, entry) is None
    assert roofline.instruction_family("AVX2", "x86_64") == "avx2"
    assert roofline.instruction_family("DEFAULT", "aarch64") is None


def test_merge_keeps_the_best_measurement():
    from torch_envcheck.bench import roofline

    def peaks(f, m, r):
        return {"compute": {"AVX2": {"fma": {"gflops": f}, "mixed": {"gflops": m}, "ceiling_gflops": max(f, m)}},
                "memory": {"read": {"gbs": r}, "write": {"gbs": 5.0}, "copy": {"gbs": 6.0}}}
    merged = roofline.merge_best(peaks(10.0, 30.0, 20.0), peaks(12.0, 25.0, 18.0))
    e = merged["compute"]["AVX2"]
    assert (e["fma"]["gflops"], e["mixed"]["gflops"], e["ceiling_gflops"]) == (12.0, 30.0, 30.0)
    assert merged["memory"]["read"]["gbs"] == 20.0


def test_microarchitecture_table():
    from torch_envcheck.bench import roofline
    zen4 = {"vendor_id": "AuthenticAMD", "cpu family": "25", "model": "17"}
    assert roofline.microarchitecture(zen4) == "AMD Zen 4"
    assert roofline.microarchitecture({**zen4, "model": "33"}) is None  # family 19h model 21h: Zen 3
    assert roofline.microarchitecture({**zen4, "cpu family": "26", "model": "68"}).startswith("AMD Zen 5")
    assert roofline.microarchitecture({"vendor_id": "GenuineIntel", "cpu family": "6", "model": "143"}) is None


# --- the roofline figure --------------------------------------------------------------------------

def _fake_device_report(variant: str, scale: float) -> dict:
    """A device report as _bench_device returns it, with invented times (the figure's input, not a
    measurement)."""
    from torch_envcheck.bench import roofline
    compute = {v: {"fma": {"gflops": g}, "mixed": {"gflops": 1.4 * g}, "ceiling_gflops": 1.4 * g}
               for v, g in (("DEFAULT", 50.0), ("AVX2", 100.0), ("AVX512", 100.0))}
    memory = {"read": {"gbs": 40.0}, "write": {"gbs": 30.0}, "copy": {"gbs": 35.0}}
    peaks = {"threads": 2, "compute": compute, "memory": memory, "ceilings": roofline.ceilings(compute, memory)}
    ops = []
    for name, shape in (("triad", [1 << 20]), ("sum", [1 << 20]), ("softmax", [256, 4096]),
                        ("bias_gelu", [256, 4096]), ("sgemm", [512, 512, 512])):
        model = roofline.op_model(name, shape, roofline.code_family(variant, "x86_64"))
        ceil = peaks["ceilings"]
        b = roofline.bound(model, roofline.ceiling_gflops(ceil, model["ceiling"]), ceil["read_gbs"], ceil["write_gbs"])
        custom_s, builtin_s = b["seconds"] * 1.5 * scale, b["seconds"] * 2.0
        ops.append({"op": name, "roofline": {**model, "bound_s": b["seconds"], "bound_gflops": b["gflops"],
                                             "custom_gflops": model["flops"] / custom_s / 1e9,
                                             "builtin_gflops": model["flops"] / builtin_s / 1e9}})
    return {"peaks": peaks, "ops": ops}


def _fake_isa_report() -> dict:
    variants = []
    for i, v in enumerate(("DEFAULT", "AVX2", "AVX512")):
        sub = {"devices": {"cpu": _fake_device_report(v, 1.0 + 0.2 * i), "cuda": {"skipped": "no GPU"}}}
        variants.append({"variant": v, "status": "measured", "report": sub})
    variants.append({"variant": "AMX", "status": "not runnable on this CPU"})
    return {"kind": "isa_variants", "torch": "2.x", "machine": {"cpu": "test CPU"}, "variants": variants}


def test_svg_figure_has_one_element_per_point():
    """One point per op and variant, ours and the built-in: 5 ops x 3 variants x 2 = 30 elements with ids
    in the SVG, exactly the ids plot.point_ids lists for the report (independent of this machine's CPU)."""
    pytest.importorskip("matplotlib", reason="matplotlib (the `plot` extra) is not installed")
    import tempfile
    import xml.etree.ElementTree as ET

    from torch_envcheck.bench import plot
    report = _fake_isa_report()
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/roofline.svg"
        drawn = plot.draw(report, path)
        root = ET.parse(path).getroot()
    ids = [el.get("id") for el in root.iter() if (el.get("id") or "").startswith("point-")]
    assert sorted(ids) == sorted(drawn) == sorted(plot.point_ids(report))
    assert len(ids) == 5 * 3 * 2 and len(set(ids)) == len(ids)
    assert "point-cpu-AVX2-sgemm-builtin" in ids and "point-cpu-DEFAULT-sum-custom" in ids


def test_the_figure_never_writes_through_a_symlink(tmp_path):
    """--plot at a path where a symlink to a precious file waits: the link is replaced by the figure
    (the one atomic writer), the file it pointed at is untouched."""
    pytest.importorskip("matplotlib", reason="matplotlib (the `plot` extra) is not installed")
    from torch_envcheck.bench import plot
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    link = tmp_path / "roofline.svg"
    os.symlink(precious, link)
    plot.draw(_fake_isa_report(), str(link))
    assert precious.read_text() == "keep me\n"
    assert not link.is_symlink() and link.read_bytes().lstrip().startswith(b"<?xml")


def test_png_figure_of_a_real_run_is_a_valid_image(report, tmp_path):
    """The figure of the measured report: a PNG matplotlib reads back, with one point per op, ours and the
    built-in, for the variant this process ran."""
    pytest.importorskip("matplotlib", reason="matplotlib (the `plot` extra) is not installed")
    import matplotlib.image

    from torch_envcheck.bench import report as rep
    path = tmp_path / "bench.png"
    assert rep.plot(report, str(path)) is None
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = matplotlib.image.imread(str(path))
    assert img.ndim == 3 and img.shape[0] > 300 and img.shape[1] > 400
    assert img.std() > 0.01  # not a blank canvas
    sel = report["cpu_kernel_isa"]["selected"]
    assert sorted(report["plot"]["points"]) == sorted(f"point-cpu-{sel}-{op}-{side}" for op in
                                                      ("triad", "sum", "softmax", "bias_gelu", "sgemm")
                                                      for side in ("custom", "builtin"))


def test_plot_target_is_checked_before_measuring(capsys, monkeypatch):
    """A name that is neither .png nor .svg, or no matplotlib: one line and exit 2, before any measurement."""
    import sys

    from torch_envcheck.bench import suite

    def no_run(*a, **k):
        raise AssertionError("the benchmark ran")
    monkeypatch.setattr(suite, "run_benchmarks", no_run)
    rc, _ = _run_cli(["--plot", "figure.jpg", "--device", "cpu", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.strip() == "torch-envcheck bench: --plot writes PNG or SVG; got 'figure.jpg' (name it " \
                                      ".png or .svg)"
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    rc, _ = _run_cli(["--plot", "figure.png", "--device", "cpu", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "--plot needs matplotlib, which is not installed (pip install 'torch_envcheck[plot]')" in err


def test_unknown_op_is_a_usage_error(capsys):
    from torch_envcheck.commands import bench as cli
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert cli.run(parser.parse_args(["--ops", "nosuchop", "--no-progress"])) == 2
    assert "unknown op(s) nosuchop" in capsys.readouterr().err


# --- --isa: one benchmark per forced CPU kernel variant ------------------------------------------

def _run_cli(argv):
    import contextlib
    import io

    from torch_envcheck.commands import bench as cli
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = cli.run(parser.parse_args(argv))
    return rc, out.getvalue()


@pytest.mark.parametrize("value", ["avx3", "all,avx2", ",", "sse"])
def test_isa_bad_value_is_a_usage_error(capsys, value):
    rc, _ = _run_cli(["--isa", value, "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "unknown --isa value" in err and "expected auto, all, or some of default, avx2, avx512" in err
    assert len(err.strip().splitlines()) == 1


def test_isa_with_cuda_only_is_a_usage_error(capsys):
    rc, _ = _run_cli(["--isa", "all", "--device", "cuda", "--no-progress"])
    assert rc == 2
    assert "--isa selects CPU kernel variants" in capsys.readouterr().err


def test_isa_parse():
    from torch_envcheck.bench import isa
    assert isa.parse("auto") is None and isa.parse("") is None
    assert isa.parse("all") == ["DEFAULT", "AVX2", "AVX512"]
    assert isa.parse("AVX512, default") == ["DEFAULT", "AVX512"]


def test_isa_variants_not_runnable_are_never_started():
    """A fake child runner: records what would run.  AVX512 on a CPU without it is reported, not run; the
    others get ATEN_CPU_CAPABILITY (and a matching MKL_ENABLE_INSTRUCTIONS and ONEDNN_MAX_CPU_ISA) and their
    report is kept."""
    import subprocess

    from torch_envcheck.bench import isa
    calls, onednn = [], []

    def runner(cmd, env, **kw):
        calls.append(env["ATEN_CPU_CAPABILITY"])
        onednn.append(env["ONEDNN_MAX_CPU_ISA"])
        selected = {"default": "DEFAULT", "avx2": "AVX2"}[env["ATEN_CPU_CAPABILITY"]]
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"cpu_kernel_isa": {"selected": selected}}), "")

    info = {"compiled": ["DEFAULT", "AVX2", "AVX512"], "cpu_supports": ["AVX2"]}
    out = isa.run_variants(["DEFAULT", "AVX2", "AVX512"], info, quick=True, ops="sgemm", runner=runner)
    assert calls == ["default", "avx2"]
    assert onednn == ["SSE41", "AVX2"]  # torch's gelu runs oneDNN's JIT, which ignores ATEN_CPU_CAPABILITY
    assert [v["status"] for v in out] == ["measured", "measured", isa.NOT_RUNNABLE]
    assert out[0]["forced_with"]["ATEN_CPU_CAPABILITY"] == "default"
    assert "report" not in out[2] and "AVX512" in out[2]["reason"]


def test_onednn_statement_names_the_eltwise_implementation():
    """oneDNN's verbose lines (as torch 2.14's oneDNN 3.12 prints them for F.gelu) give the version and the
    JIT implementation the built-in gelu ran; no eltwise line means ATen's own kernel ran."""
    from torch_envcheck.bench import machine
    text = ("onednn_verbose,v1,info,oneDNN v3.12.0 (commit 80afa71049cd69a3df32adcccb623b12cd7baa22)\n"
            "onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with Intel DL Boost and bfloat16 support\n"
            "onednn_verbose,v1,primitive,exec,cpu,eltwise,jit:avx2,forward_training,data:f32::blocked:ab::f0,"
            "attr-scratchpad:user,alg:eltwise_gelu_erf alpha:0 beta:0,64x64,0.0412\n")
    assert machine.onednn_statement(text) == {"version": "3.12.0", "implementation": "jit:avx2",
                                              "alg": "eltwise_gelu_erf"}
    assert machine.onednn_statement(text.splitlines()[0]) is None
    assert machine.onednn_statement("") is None


def test_isa_variant_that_selects_another_is_an_error():
    import subprocess

    from torch_envcheck.bench import isa

    def runner(cmd, env, **kw):  # an ATen that ignores ATEN_CPU_CAPABILITY
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"cpu_kernel_isa": {"selected": "AVX2"}}), "")

    def failing(cmd, env, **kw):
        return subprocess.CompletedProcess(cmd, 1, "", "Traceback...\nRuntimeError: boom")

    info = {"compiled": ["DEFAULT", "AVX2", "AVX512"], "cpu_supports": ["AVX2", "AVX512"]}
    (v,) = isa.run_variants(["DEFAULT"], info, quick=True, ops=None, runner=runner)
    assert v["status"] == "error" and "selected AVX2, not DEFAULT" in v["error"]
    (v,) = isa.run_variants(["AVX512"], info, quick=True, ops=None, runner=failing)
    assert v["status"] == "error" and "exit status 1" in v["error"] and "boom" in v["error"]


@pytest.fixture(scope="module")
def isa_all_report():
    load_ops()
    rc, out = _run_cli(["--isa", "all", "--quick", "--ops", "sgemm", "--json", "--no-progress"])
    assert rc == 0
    return json.loads(out)


@pytest.mark.slow  # a benchmark per variant, each in its own process (test_ops_isa.py checks each variant's results)
def test_isa_all_measures_every_runnable_variant(isa_all_report):
    """The real thing: each variant this CPU can run is benchmarked in its own process and really
    selected there; the others are reported as not runnable."""
    from torch_envcheck.bench import isa
    info = isa_all_report["cpu_kernel_isa"]
    assert [v["variant"] for v in isa_all_report["variants"]] == list(isa.VARIANTS)
    assert isa_all_report["machine"]["cpu_flags"]
    for v in isa_all_report["variants"]:
        if v["variant"] not in info["compiled"]:
            assert v["status"] == "not compiled"
        elif v["variant"] != "DEFAULT" and v["variant"] not in info["cpu_supports"]:
            assert v["status"] == isa.NOT_RUNNABLE and "report" not in v
        else:
            assert v["status"] == "measured", v.get("error")
            sub = v["report"]
            assert sub["cpu_kernel_isa"]["selected"] == v["variant"]
            assert sub["cpu_kernel_isa"]["aten_cpu_capability_env"] == isa.ATEN_VALUE[v["variant"]]
            (row,) = sub["devices"]["cpu"]["ops"]
            assert row["op"] == "sgemm" and row["speed_ratio"] > 0


@pytest.mark.slow
def test_isa_all_renders_a_row_per_variant(isa_all_report, capsys):
    from torch_envcheck.bench import report as rep
    rep.print_isa_report(isa_all_report)
    text = capsys.readouterr().out
    summary = text.split("summary", 1)[1]
    for v in isa_all_report["variants"]:
        line = next(ln for ln in summary.splitlines() if ln.startswith(v["variant"] + " "))
        if v["status"] == "measured":
            assert f"{v['report']['devices']['cpu']['ops'][0]['speed_ratio']:.2f}x" in line
        else:
            assert v["status"] in line
