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
