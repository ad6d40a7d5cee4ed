"""Fleet mode without processes: launch variables, the wire format, the heterogeneity table, the
fleet findings, the renderers' escaping, --from-json, and the bandwidth arithmetic."""

from __future__ import annotations

import copy
import re
import json
import os
import subprocess
import sys

import pytest

from torch_envcheck.fleet import FLEET_SCHEMA, aggregate, bandwidth, launch, load, render, rules, table, wire
from torch_envcheck.commands.fleet import main as fleet_main

from paths import REPO, SNAP_DIR


def snap(name: str) -> dict:
    with open(os.path.join(SNAP_DIR, name + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


def payload(rank: int, s: dict | None, host: str = "node0", local_rank: int = 0, **facts) -> bytes:
    device = None
    if s and isinstance(s.get("torch"), dict) and s["torch"].get("devices"):
        d = s["torch"]["devices"][0]
        device = {"index": 0, "name": d["name"], "capability": d["capability"], "shared": False}
    rf = {"rank": rank, "world_size": 0, "local_rank": local_rank, "host": host, "pid": 1, "launcher": "test",
          "device": device, "nccl_version": "2.27.7", "nccl_env": {}, "backends": {"gloo": True, "nccl": True}}
    rf.update(facts)
    return wire.encode({"schema": wire.RANK_SCHEMA, "rank_facts": rf, "snapshot": s, "probe_error": None,
                        "probe_seconds": 1.0})


def records(payloads: dict, world: int) -> list[dict]:
    return [aggregate.record_from_arrival(r, {"hello": {"host": "h"}, "data": payloads.get(r)} if r in payloads else None)
            for r in range(world)]


def fleet(recs, **kw) -> dict:
    return aggregate.build(recs, **kw)


def codes(rep) -> dict:
    return {f["code"]: f for f in rep["findings"]}


# ------------------------------------------------------------------------------------------ launch

def test_launch_reads_torchrun_slurm_and_open_mpi_variables():
    base = {"MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
    tr = launch.from_env(dict(base, RANK="3", WORLD_SIZE="8", LOCAL_RANK="3"))
    assert (tr.rank, tr.world_size, tr.local_rank, tr.launcher) == (3, 8, 3, "torchrun/env://")
    sl = launch.from_env(dict(base, SLURM_PROCID="5", SLURM_NTASKS="16", SLURM_LOCALID="1"))
    assert (sl.rank, sl.world_size, sl.local_rank, sl.launcher) == (5, 16, 1, "slurm")
    om = launch.from_env(dict(base, OMPI_COMM_WORLD_RANK="2", OMPI_COMM_WORLD_SIZE="4",
                              OMPI_COMM_WORLD_LOCAL_RANK="0"))
    assert (om.rank, om.world_size, om.launcher) == (2, 4, "open-mpi")
    # RANK/WORLD_SIZE win over the launcher's own variables
    both = launch.from_env(dict(base, RANK="0", WORLD_SIZE="2", SLURM_PROCID="7", SLURM_NTASKS="9"))
    assert (both.rank, both.world_size) == (0, 2)
    agent = launch.from_env(dict(base, RANK="0", WORLD_SIZE="2", TORCHELASTIC_USE_AGENT_STORE="True",
                                 TORCHELASTIC_RESTART_COUNT="1"))
    assert agent.agent_store and agent.attempt == "1"


@pytest.mark.parametrize("env, words", [
    ({}, "RANK and WORLD_SIZE are not set"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_PORT": "1"}, "MASTER_ADDR is not set"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h"}, "MASTER_PORT is not set"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "RANK=2 is out of range"),
    ({"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "RANK='x' is not a whole number"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "70000"}, "MASTER_PORT=70000 is out of range"),
])
def test_launch_errors_name_the_variable(env, words):
    with pytest.raises(launch.LaunchError, match=words.replace("(", r"\(")):
        launch.from_env(env)


def test_fleet_outside_a_launcher_is_a_one_line_usage_error():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK")}
    env["PYTHONPATH"] = REPO
    r = subprocess.run([sys.executable, "-m", "torch_envcheck", "fleet"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "RANK and WORLD_SIZE are not set" in r.stderr
    assert r.stdout == ""


# ------------------------------------------------------------------------------------------ wire

def test_wire_round_trip_and_every_kind_of_garbage():
    s = snap("h100_cu130_healthy")
    data = payload(1, s)
    assert wire.decode(data, 1)["snapshot"]["torch"]["version"] == "2.14.1+cu130"
    bad = {
        "truncated": (data[: len(data) // 2], "not valid JSON"),
        "binary": (b"\xff\xfe\x00garbage", "not UTF-8"),
        "a list": (b"[1, 2]", "expected a JSON object"),
        "foreign schema": (json.dumps({"schema": "x/9"}).encode(), "schema 'x/9'"),
        "another rank": (data, "it says it is rank 1"),
        "bad snapshot": (payload(0, {"schema": "torch_envcheck.snapshot/7"}), "another version of torch_envcheck"),
        "too deep": (b"[" * 100000 + b"]" * 100000, "nested too deeply|expected a JSON object"),
        "huge": (b" " * (wire.MAX_PAYLOAD + 1), "over the"),
    }
    for name, (blob, words) in bad.items():
        rank = 2 if name == "another rank" else 0
        with pytest.raises(wire.WireError, match=words):
            wire.decode(blob, rank)
        rec = aggregate.record_from_arrival(rank, {"hello": {"host": "h"}, "data": blob})
        assert rec["status"] == "garbage" and rec["error"], name


def test_wire_encode_replaces_an_oversized_snapshot_with_a_reason():
    big = {"schema": wire.RANK_SCHEMA, "rank_facts": {"rank": 0}, "snapshot": {"pad": "x" * (wire.MAX_PAYLOAD + 10)},
           "probe_error": None}
    out = json.loads(wire.encode(big))
    assert out["snapshot"] is None and "over the" in out["probe_error"]
    rec = aggregate.record_from_arrival(0, {"hello": {}, "data": wire.encode(big)})
    assert rec["status"] == "late" and "over the" in rec["error"]


# ------------------------------------------------------------------------------------------ table

def test_rank_ranges_and_labels():
    assert table.rank_ranges([0, 1, 2, 3, 5, 7, 8]) == "0-3, 5, 7-8"
    assert table.ranks_label([7]) == "rank 7"
    assert table.ranks_label(list(range(7)) + list(range(8, 16))) == "ranks 0-6, 8-15"


def test_heterogeneity_table_shows_only_what_differs_grouped():
    h100 = snap("h100_cu130_healthy")
    old = snap("old_driver_535_cu130")
    p = {r: payload(r, h100, host=f"n{r // 8}") for r in range(16)}
    p[7] = payload(7, old, host="n0")
    rows = {row["key"]: row for row in table.build(records(p, 16))}
    assert "driver" in rows and "torch" not in rows
    groups = rows["driver"]["groups"]
    assert groups[0]["ranks"] == list(range(7)) + list(range(8, 16)) and groups[0]["value"] == "580.95.05"
    assert groups[1]["ranks"] == [7] and groups[1]["value"].startswith("535")
    assert groups[0]["hosts"] == ["n0", "n1"]


# ------------------------------------------------------------------------------------------ rules

def test_a_matching_fleet_is_ok_and_exits_0():
    s = snap("h100_cu130_healthy")
    rep = fleet(records({r: payload(r, s) for r in range(4)}, 4))
    assert set(codes(rep)) == {"TE940"}
    assert rep["verdict"]["status"] == "ok" and rep["verdict"]["exit_status"] == 0
    assert rep["stats"]["diagnosed_by_rank_0"] == 1  # one diagnosis for four identical ranks


def test_mixed_torch_nccl_python_and_gpu_generations():
    h100, t4 = snap("h100_cu130_healthy"), snap("aarch64_t4g_cu130")
    cpu = snap("cpu_venv_no_gpu")
    p = {0: payload(0, h100), 1: payload(1, h100), 2: payload(2, t4, nccl_version="2.21.5"), 3: payload(3, cpu)}
    rep = fleet(records(p, 4))
    c = codes(rep)
    assert c["TE944"]["severity"] == "failure" and "2.14.1+cu130" in c["TE944"]["message"]
    assert c["TE944"]["fix"].startswith('python -m pip install "torch==2.14.1" --index-url https://download.pytorch.org/whl/cu130')
    assert "TE945" in c and "2.21.5" in c["TE945"]["message"]
    assert "TE947" in c and "9.0" in c["TE947"]["message"] and "7.5" in c["TE947"]["message"]
    assert rep["verdict"]["exit_status"] == 1


def test_driver_behind_names_the_host():
    h100, old = snap("h100_cu130_healthy"), snap("old_driver_535_cu130")
    p = {r: payload(r, h100, host=f"node{r // 2}") for r in range(6)}
    p[4], p[5] = payload(4, old, host="node2"), payload(5, old, host="node2")
    c = codes(fleet(records(p, 6)))
    assert "node2" in c["TE948"]["message"] and "580.95.05" in c["TE948"]["message"]
    assert c["TE948"]["details"]["ranks"] == "4-5"


def test_identical_stacks_with_different_results_and_missing_gpus():
    h100 = snap("h100_cu130_healthy")
    broken = copy.deepcopy(h100)
    broken["torch"].update(cuda_available=False, device_count=0, devices=[],
                           cuda_init_error="CUDA error: unspecified launch failure")
    p = {r: payload(r, h100, host=f"node{r // 2}") for r in range(4)}
    rf = {"device": {"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0", "shared": False}}
    p[3] = payload(3, broken, host="node1", **rf)
    c = codes(fleet(records(p, 4)))
    assert "TE949" in c and "rank 3" in c["TE949"]["message"]
    assert "TE957" in c  # rank 3's own failure (CUDA does not initialise) counts


def test_nccl_env_differs_and_gpu_shared():
    s = snap("h100_cu130_healthy")
    p = {r: payload(r, s) for r in range(3)}
    p[1] = payload(1, s, nccl_env={"NCCL_IB_DISABLE": "1"})
    p[2] = payload(2, s, device={"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0", "shared": True})
    rep = fleet(records(p, 3))
    c = codes(rep)
    assert "NCCL_IB_DISABLE" in c["TE950"]["message"] and "rank 1: 1" in c["TE950"]["message"]
    assert "TE953" in c and "rank 2" in c["TE953"]["message"]
    assert any(row["key"] == "env:NCCL_IB_DISABLE" for row in rep["heterogeneity"])


def test_missing_late_and_garbage_ranks():
    s = snap("h100_cu130_healthy")
    good = payload(0, s)
    late = wire.encode({"schema": wire.RANK_SCHEMA, "rank_facts": {"rank": 2, "host": "n"}, "snapshot": None,
                        "probe_error": "the probes did not finish within 9 s", "probe_seconds": 9.0})
    arrivals = {0: {"hello": {"host": "n"}, "data": good}, 1: None, 2: {"hello": {"host": "n"}, "data": late},
                3: {"hello": {"host": "n"}, "data": None}, 4: {"hello": {"host": "n"}, "data": b'{"schema": "tor'}}
    recs = [aggregate.record_from_arrival(r, arrivals[r]) for r in range(5)]
    assert [r["status"] for r in recs] == ["ok", "missing", "late", "late", "garbage"]
    rep = fleet(recs, timeout=30)
    c = codes(rep)
    assert c["TE941"]["message"] == "rank 1 never reached rank 0 within 30 s"
    assert "rank 2: the probes did not finish within 9 s" in c["TE942"]["message"]
    assert "rank 3: no snapshot before rank 0's deadline" in c["TE942"]["message"]
    assert "not valid JSON" in c["TE943"]["message"]
    assert rep["verdict"]["exit_status"] == 1 and rep["verdict"]["counts"]["missing"] == 1


def test_group_barrier_and_bandwidth_failures_are_findings():
    s = snap("h100_cu130_healthy")
    recs = records({0: payload(0, s), 1: payload(1, s)}, 2)
    rep = fleet(recs, group={"formed": True, "error": "monitored_barrier: RuntimeError: x", "barrier_missing": [1],
                             "stage": "monitored_barrier"}, bandwidth={"error": "RuntimeError: timed out", "ops": {}})
    c = codes(rep)
    assert {"TE954", "TE955", "TE956"} <= set(c) and "rank 1" in c["TE955"]["message"]


def test_monitored_barrier_message_is_parsed():
    from torch_envcheck.fleet.worker import barrier_missing
    assert barrier_missing(RuntimeError("[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 5000 ms")) == [1, 3]
    assert barrier_missing(RuntimeError("Rank 2 failed to pass monitoredBarrier in 10 ms")) == [2]
    assert barrier_missing(RuntimeError("something else")) is None


# ------------------------------------------------------------------------------------------ render

def _hostile_fleet():
    s = snap("h100_cu130_healthy")
    evil = copy.deepcopy(s)
    evil["torch"]["version"] = "2.14.1\x1b[31m|<b>x</b>`"
    p = {0: payload(0, s, host="ok-host"), 1: payload(1, evil, host="evil\x1b]0;pwned\x07host|`")}
    return fleet(records(p, 2))


def test_renderers_escape_every_value_from_a_rank():
    rep = _hostile_fleet()
    text = render.to_terminal(rep)
    assert "\x1b" not in text and "\x07" not in text and "\\x1b[31m" in text
    md = render.to_markdown(rep)
    assert "\x1b" not in md and "\x07" not in md and "evil\\\\x1b" in md  # md_text escapes the backslash too
    for line in md.splitlines():
        outside_code = re.sub(r"(`+).+?\1", "", line)
        assert "<b>" not in outside_code, line
        if line.startswith("|"):  # table rows keep their four columns: a value's `|` is escaped
            assert len(re.findall(r"(?<!\\)\|", line)) == 5, line
    assert json.loads(render.to_json(rep))["schema"] == FLEET_SCHEMA


def test_terminal_report_sections():
    h100, old = snap("h100_cu130_healthy"), snap("old_driver_535_cu130")
    p = {r: payload(r, h100, host="a") for r in range(8)}
    p[7] = payload(7, old, host="b")
    text = render.to_terminal(fleet(records(p, 8)))
    for words in ("Fleet: 8 of 8 ranks reported", "What differs across ranks:", "driver", "ranks 0-6: 580.95.05",
                  "rank 7: 535", "Fleet findings:", "TE948", "Each rank's failures:", "Same on every rank: torch 2.14.1+cu130"):
        assert words in text, words


# ------------------------------------------------------------------------------------------ --from-json

def test_from_json_rerenders_and_rediagnoses_each_rank(tmp_path, capsys):
    h100, old = snap("h100_cu130_healthy"), snap("old_driver_535_cu130")
    rep = fleet(records({0: payload(0, h100), 1: payload(1, old)}, 3), timeout=10)
    path = tmp_path / "fleet.json"
    path.write_text(render.to_json(rep), encoding="utf-8")
    assert fleet_main(["--from-json", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rank 2 never reached rank 0 within 10 s" in out and "TE948" in out
    again = load.load(str(path))
    assert [r["status"] for r in again["ranks"]] == ["ok", "ok", "missing"]
    assert again["ranks"][1]["report"]["findings"]
    # one rank alone, in the doctor's own format, re-diagnosed by the doctor
    assert fleet_main(["--from-json", str(path), "--rank", "1", "--json"]) == 0
    one = tmp_path / "rank1.json"
    one.write_text(capsys.readouterr().out, encoding="utf-8")
    from torch_envcheck.cli import main as te_main
    assert te_main(["--from-json", str(one), "--json"]) == 1  # the old driver is a failure
    assert "TE302" in capsys.readouterr().out
    assert fleet_main(["--from-json", str(path), "--rank", "2"]) == 2
    assert "rank 2 sent no snapshot" in capsys.readouterr().err


@pytest.mark.parametrize("content, words", [
    ("{", "not valid JSON"),
    ("[]", "expected a torch_envcheck fleet report"),
    (json.dumps({"schema": "torch_envcheck.report/1"}), "a single rank's report"),
    (json.dumps({"schema": FLEET_SCHEMA, "ranks": []}), "non-empty list"),
    (json.dumps({"schema": FLEET_SCHEMA, "ranks": [{"rank": 0}, {"rank": 0}]}), "rank 0 appears twice"),
])
def test_from_json_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    assert fleet_main(["--from-json", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.strip().count("\n") == 0


def test_from_json_keeps_bad_records_as_garbage(tmp_path, capsys):
    s = snap("h100_cu130_healthy")
    data = {"schema": FLEET_SCHEMA, "ranks": [{"rank": 0, "status": "ok", "snapshot": s}, "nonsense",
                                              {"rank": 2, "status": "ok", "snapshot": {"schema": "nope"}}],
            "bandwidth": {"ops": {"all_reduce": [{"bytes": "1", "time_us": []}]}, "backend": ["x"]}}
    path = tmp_path / "f.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    rep = load.load(str(path))
    assert [r["status"] for r in rep["ranks"]] == ["ok", "garbage", "garbage"]
    assert fleet_main(["--from-json", str(path), "--markdown"]) == 1
    assert "TE943" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------ bandwidth

def test_bandwidth_arithmetic_follows_nccl_tests():
    assert bandwidth.bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert bandwidth.bus_factor("all_gather", 4) == pytest.approx(3 / 4)
    assert bandwidth.bus_factor("broadcast", 4) == 1.0
    assert bandwidth.sizes(256 << 20)[0] == 1024 and bandwidth.sizes(256 << 20)[-1] == 256 << 20
    assert len(bandwidth.sizes(256 << 20)) == 19


def test_bandwidth_cap_follows_the_tightest_host():
    recs = [{"rank": r, "rank_facts": {"host": "a" if r < 4 else "b", "mem_available_bytes": 64 << 30 if r < 4 else 8 << 30}}
            for r in range(6)]
    cap, why = bandwidth.memory_cap(recs, 256 << 20, gpu=False)
    assert cap == 256 << 20  # 8 GiB / (4 * 2 ranks) = 1 GiB > 256 MiB
    recs[5]["rank_facts"]["mem_available_bytes"] = 1 << 30
    cap, why = bandwidth.memory_cap(recs, 256 << 20, gpu=False)
    assert cap == 128 << 20 and "b" in why  # 1 GiB / 8 = 128 MiB
    gcap, gwhy = bandwidth.memory_cap([{"rank": 0, "rank_facts": {"gpu_free_bytes": 100 << 20}}], 256 << 20, gpu=True)
    assert gcap == 16 << 20 and "GPU" in gwhy  # 25 MiB, rounded down to a power of two


def test_bandwidth_sweep_on_one_process_gloo_group(tmp_path):
    torch = pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("no gloo in this torch")
    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        out = bandwidth.sweep(dist, None, dist.group.WORLD, 0, 1, torch.device("cpu"),
                              {"sizes": [1024, 4096], "ops": ["all_reduce", "all_gather", "broadcast"],
                               "iters": 3, "warmup": 1, "seconds": 30})
    finally:
        dist.destroy_process_group()
    assert out["error"] is None
    for op in ("all_reduce", "all_gather", "broadcast"):
        rows = out["ops"][op]
        assert [r["bytes"] for r in rows] == [1024, 4096]
        assert all(r["time_us"] > 0 and r["algbw_gbps"] == pytest.approx(r["bytes"] / (r["time_us"] / 1e6) / 1e9)
                   for r in rows)
    assert out["ops"]["all_reduce"][0]["busbw_gbps"] == 0.0  # 2(n-1)/n with n = 1


def test_explained_findings_count_under_their_cause_only():
    s = snap("h100_cu130_healthy")
    recs = records({0: payload(0, s), 1: payload(1, s)}, 2)
    aggregate.diagnose_records(recs)
    cause = {"code": "TE403", "severity": "warning", "message": "CUDA_VISIBLE_DEVICES=7 names no GPU"}
    symptom = {"code": "TE303", "severity": "failure", "message": "CUDA failed to initialise", "explained_by": "TE403"}
    recs[1]["report"] = dict(recs[1]["report"], findings=[cause, symptom])
    rep = fleet(recs)
    assert rep["verdict"]["counts"]["with_failures"] == 0 and rep["verdict"]["counts"]["with_warnings"] == 1
    assert "TE957" not in codes(rep)
    assert [g["finding"]["code"] for g in render.rank_findings(rep["ranks"], "failure")] == []
    assert [g["finding"]["code"] for g in render.rank_findings(rep["ranks"], "warning")] == ["TE403"]


def test_a_rank_report_is_used_only_from_the_same_tool_version():
    from torch_envcheck import __version__
    s = snap("h100_cu130_healthy")
    own = aggregate.short_report(s)
    body = {"schema": wire.RANK_SCHEMA, "tool_version": __version__, "rank_facts": {"rank": 0}, "snapshot": s,
            "probe_error": None, "report": own}
    assert aggregate.use_rank_report(body)["findings"] == own["findings"]
    assert aggregate.use_rank_report(dict(body, tool_version="0.0.1")) is None
    bad = dict(own, findings=[{"code": "TE999", "severity": "ok", "message": "made up"}])
    assert aggregate.use_rank_report(dict(body, report=bad)) is None
    rec = aggregate.record_from_arrival(0, {"hello": {}, "data": wire.encode(dict(body, tool_version="0.0.1"))})
    assert rec["report"] is None  # rank 0 diagnoses it itself
    fleet([rec])
    assert rec["report"]["findings"] == own["findings"]


@pytest.mark.parametrize("flags", [[], ["--all-distinct", "--no-rank-reports"]])
def test_bench_scale_runs_on_every_recorded_snapshot(capsys, flags):
    import fleet_scale as bench_scale
    snaps = SNAP_DIR  # also when installed
    rc = bench_scale.main(["--ranks", "48", "--snapshots", snaps] + flags)  # 48 ranks = 6 nodes: every code path
    out = capsys.readouterr().out
    assert rc in (0, 1), out  # 1 = over the speed target: timing is the benchmark's job, not this test's
    assert "fleet aggregation: 48 ranks" in out and "peak RSS" in out
    assert "45 of 48 ranks reported; 1 missing; 2 garbage" in out


def test_a_slow_link_is_a_warning_beside_matching_stacks():
    # The preflight's timings judge nodes and links, not stacks: a slow link (measured under load from
    # outside the job, or a bad cable) leaves "all ranks reported and their stacks match" standing.
    s = snap("h100_cu130_healthy")
    rows = [{"rank": r, "matmul_s": 0.002, "sgemm_s": None, "triad_s": 0.001,
             "link_s": 0.0002 * (20 if r == 1 else 1)} for r in range(4)]
    pre = {"ranks": rows, "pairs": [[0, 1], [1, 2], [2, 3], [3, 0]], "matmul_n": 256, "matmul_flops": 2 * 256 ** 3,
           "triad_bytes": 12 << 22, "link_bytes": 1 << 20, "device": "cpu"}
    rep = fleet(records({r: payload(r, s) for r in range(4)}, 4), preflight=pre)
    found = codes(rep)
    assert "TE959" in found and found["TE959"]["severity"] == "warning"
    assert "TE940" in found
    assert rep["verdict"]["exit_status"] == 0
    # a stack that differs still withholds it
    p = {r: payload(r, s) for r in range(4)}
    p[3] = payload(3, snap("old_driver_535_cu130"))
    assert "TE940" not in codes(fleet(records(p, 4), preflight=pre))
