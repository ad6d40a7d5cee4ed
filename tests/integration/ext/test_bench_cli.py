"""`torch-envcheck bench --quick --json`: the report's structure, and that its ratios and percentages
are computed from the measured times (no speed assertions: those belong to the benchmark itself)."""

from __future__ import annotations

import argparse
import json
import math

import pytest

from _ops_helpers import load_ops


@pytest.fixture(scope="module")
def report():
    load_ops()
    import contextlib
    import io

    from torch_envcheck.bench import cli

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
    for key in ("stream_copy", "stream_triad", "bandwidth", "matmul"):
        assert cpu["limits"][key]["rate"] > 0
    assert cpu["sizes"]["triad_n"] * 12 >= 2 * cpu["cache_bytes"]  # working set >= 2x LLC even in --quick
    assert report["classic_matmul"]["cpu"]["gflops"] > 0
    assert {t["device"] for t in report["targets"]} == {"cpu", "cuda"}
    for t in report["targets"]:
        if t["device"] == "cpu":
            assert t["met"] == (t["value"] >= t["threshold"])


def test_ratios_come_from_measured_times(report):
    for r in report["devices"]["cpu"]["ops"]:
        c, b = r["custom"], r["builtin_timing"]
        assert c["blocks"] >= 2 and b["blocks"] >= 2
        assert c["median_s"] > 0 and b["median_s"] > 0 and c["iqr_s"] >= 0
        assert math.isclose(r["speed_ratio"], b["median_s"] / c["median_s"], rel_tol=1e-9)
        assert math.isclose(c["rate"], r["amount"] / c["median_s"] / 1e9, rel_tol=1e-9)
        assert math.isclose(r["pct_of_limit"], 100 * c["rate"] / r["limit"]["rate"], rel_tol=1e-9)


def test_plain_table_renders(report, capsys):
    from torch_envcheck.bench import report as rep
    rep.print_report(report)
    text = capsys.readouterr().out
    for op in ("triad", "sum", "softmax", "bias_gelu", "sgemm"):
        assert op in text
    assert "targets" in text


def test_plot_or_clear_reason(report, tmp_path):
    from torch_envcheck.bench import report as rep
    path = tmp_path / "bench.png"
    err = rep.plot(report, str(path))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert err and "matplotlib" in err
    else:
        assert err is None and path.stat().st_size > 1000


def test_unknown_op_is_a_usage_error(capsys):
    from torch_envcheck.bench import cli
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert cli.run(parser.parse_args(["--ops", "nosuchop", "--no-progress"])) == 2
    assert "unknown op(s) nosuchop" in capsys.readouterr().err


# --- --isa: one benchmark per forced CPU kernel variant ------------------------------------------

def _run_cli(argv):
    import contextlib
    import io

    from torch_envcheck.bench import cli
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
    others get ATEN_CPU_CAPABILITY (and a matching MKL_ENABLE_INSTRUCTIONS) and their report is kept."""
    import subprocess

    from torch_envcheck.bench import isa
    calls = []

    def runner(cmd, env, **kw):
        calls.append(env["ATEN_CPU_CAPABILITY"])
        selected = {"default": "DEFAULT", "avx2": "AVX2"}[env["ATEN_CPU_CAPABILITY"]]
        return subprocess.CompletedProcess(cmd, 0, json.dumps({"cpu_kernel_isa": {"selected": selected}}), "")

    info = {"compiled": ["DEFAULT", "AVX2", "AVX512"], "cpu_supports": ["AVX2"]}
    out = isa.run_variants(["DEFAULT", "AVX2", "AVX512"], info, quick=True, ops="sgemm", runner=runner)
    assert calls == ["default", "avx2"]
    assert [v["status"] for v in out] == ["measured", "measured", isa.NOT_RUNNABLE]
    assert out[0]["forced_with"]["ATEN_CPU_CAPABILITY"] == "default"
    assert "report" not in out[2] and "AVX512" in out[2]["reason"]


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
