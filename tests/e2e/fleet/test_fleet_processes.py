"""Fleet mode with real processes over loopback (127.0.0.1, free ports): torchrun with 4 and 16
ranks, a heterogeneous fleet started by hand through env://, and ranks that die, hang or send
garbage.  Each test bounds its own time; no test can hang the suite.  The default tier keeps the
healthy 4-rank fleet; the fault fleets (which wait out their timeouts by design, a minute), the
heterogeneous fleet and the 16 ranks are the slow tier's."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

import fleet_support as fs


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("fleet4") / "fleet.json"
    t0 = time.monotonic()
    r = fs.torchrun(fs.python(), 4, ["--timeout", "150", "--save", str(out), "--preflight"] + fs.QUICK_BW, timeout=400)
    return r, out, time.monotonic() - t0


def test_torchrun_4_ranks_gloo_is_healthy(four_ranks):
    r, out, _ = four_ranks
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    text = r.stdout
    assert "Fleet: 4 of 4 ranks reported" in text
    assert "TE940 all 4 ranks reported and their stacks match" in text
    assert "What differs across ranks: nothing" in text
    assert "Collective bandwidth (backend gloo, cpu, 4 ranks, link: TCP over loopback (one host)" in text
    rep = fs.load_json(out)
    assert rep["schema"] == "torch_envcheck.fleet/1"
    assert [x["status"] for x in rep["ranks"]] == ["ok"] * 4
    assert [x["rank_facts"]["local_rank"] for x in rep["ranks"]] == [0, 1, 2, 3]
    assert rep["group"]["formed"] and rep["group"]["barrier_missing"] is None
    rows = rep["bandwidth"]["ops"]["all_reduce"]
    assert [x["bytes"] for x in rows] == [1024, 2048, 4096, 8192, 16384, 32768, 65536]
    for x in rows:
        assert x["time_us"] > 0 and x["iters"] == 3
        assert x["busbw_gbps"] == pytest.approx(x["algbw_gbps"] * 2 * 3 / 4)
    assert rep["bandwidth"]["backend"] == "gloo" and rep["bandwidth"]["warmup"] == 1


def test_healthy_preflight_measures_every_rank_and_excludes_nobody(four_ranks):
    r, out, _ = four_ranks
    rep = fs.load_json(out)
    pf = rep["preflight"]
    assert [x["rank"] for x in pf["ranks"]] == [0, 1, 2, 3]
    for x in pf["ranks"]:
        assert x["matmul_s"] > 0 and x["triad_s"] > 0 and x["link_s"] > 0
    assert pf["pairs"] == [[0, 1], [1, 2], [2, 3], [3, 0]]
    assert rep["exclude"] == {"hosts": [], "slurm": ""}
    assert not [f for f in rep["findings"] if f["code"] in ("TE958", "TE960")]
    assert "Preflight (cpu; matmul 256^3 float32" in r.stdout and "exclude: none" in r.stdout


def test_saved_fleet_report_rerenders_and_each_rank_rediagnoses(four_ranks, tmp_path):
    from torch_envcheck.cli import main as te_main  # noqa: PLC0415
    from torch_envcheck.commands.fleet import main as fleet_main  # noqa: PLC0415
    _, out, _ = four_ranks
    assert fleet_main(["--from-json", str(out), "--markdown"]) == 0
    for rank in range(4):
        one = tmp_path / f"rank{rank}.json"
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert fleet_main(["--from-json", str(out), "--rank", str(rank), "--json"]) == 0
        one.write_text(buf.getvalue(), encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()) as doc:
            te_main(["--from-json", str(one), "--json"])
        assert json.loads(doc.getvalue())["snapshot"]["schema"] == "torch_envcheck.snapshot/1"


@pytest.mark.slow
def test_torchrun_16_ranks(tmp_path):
    out = tmp_path / "fleet16.json"
    t0 = time.monotonic()
    r = fs.torchrun(fs.python(), 16, ["--timeout", "300", "--save", str(out)] + fs.QUICK_BW, timeout=600)
    took = time.monotonic() - t0
    (tmp_path / "report.txt").write_text(r.stdout, encoding="utf-8")  # kept for the README's example
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert "Fleet: 16 of 16 ranks reported" in r.stdout
    rep = fs.load_json(out)
    assert sorted(x["rank"] for x in rep["ranks"]) == list(range(16))
    assert all(x["status"] == "ok" for x in rep["ranks"])
    assert rep["group"]["formed"] and rep["bandwidth"]["world_size"] == 16
    assert rep["bandwidth"]["ops"]["all_reduce"][-1]["busbw_gbps"] == pytest.approx(
        rep["bandwidth"]["ops"]["all_reduce"][-1]["algbw_gbps"] * 2 * 15 / 16)
    print(f"16-rank torchrun fleet: {took:.1f} s")


@pytest.mark.slow
def test_heterogeneous_fleet_by_hand(cuda_python, cpu_python, tmp_path):
    """Ranks started one by one through env://: one with NCCL_* set, one with another
    CUDA_VISIBLE_DEVICES, one from a venv with another torch (2.13 CPU beside 2.14 CUDA)."""
    # (sys.prefix, not the interpreter's real path: venvs share one base interpreter)
    if os.path.abspath(sys.prefix) == os.path.abspath(os.path.dirname(os.path.dirname(cpu_python))):
        pytest.skip("the same two venvs as in the CUDA venv's run: runs once, from there")
    port, world = fs.free_port(), 4
    save = tmp_path / "mixed.json"
    args = ["--timeout", "150"] + fs.QUICK_BW
    # rank 1 finds its place through Open MPI's variables and rank 2 through Slurm's (no RANK /
    # WORLD_SIZE / LOCAL_RANK), as under mpirun and srun
    ompi = {"RANK": None, "WORLD_SIZE": None, "LOCAL_RANK": None, "OMPI_COMM_WORLD_RANK": "1",
            "OMPI_COMM_WORLD_SIZE": str(world), "OMPI_COMM_WORLD_LOCAL_RANK": "1"}
    slurm = {"RANK": None, "WORLD_SIZE": None, "LOCAL_RANK": None, "SLURM_PROCID": "2",
             "SLURM_NTASKS": str(world), "SLURM_LOCALID": "2"}
    procs = [
        fs.start_rank(cuda_python, 0, world, port, args + ["--save", str(save)], {"CUDA_VISIBLE_DEVICES": "0"}),
        fs.start_rank(cuda_python, 1, world, port, args, dict(ompi, CUDA_VISIBLE_DEVICES="0", NCCL_DEBUG="WARN",
                                                              NCCL_SOCKET_IFNAME="lo")),
        fs.start_rank(cuda_python, 2, world, port, args, dict(slurm, CUDA_VISIBLE_DEVICES="1")),
        fs.start_rank(cpu_python, 3, world, port, args, {"CUDA_VISIBLE_DEVICES": "0"}),
    ]
    results = fs.finish(procs, 400)
    code, text, err = results[0]
    assert code == 1, text + err[-3000:]
    assert all(x[0] == 0 for x in results[1:]), [x[2][-500:] for x in results[1:]]
    assert all(not x[1] for x in results[1:])  # only rank 0 prints to stdout
    rep = fs.load_json(save)
    rows = {row["key"]: row for row in rep["heterogeneity"]}
    torch_groups = {g["value"]: g["ranks"] for g in rows["torch"]["groups"]}
    cpu_version = next(v for v in torch_groups if "+cpu" in v)
    assert torch_groups[cpu_version] == [3] and len(torch_groups) == 2
    assert {g["value"]: g["ranks"] for g in rows["env:NCCL_DEBUG"]["groups"]} == {"(unset)": [0, 2, 3], "WARN": [1]}
    assert {g["value"]: g["ranks"] for g in rows["CUDA_VISIBLE_DEVICES"]["groups"]} == {"0": [0, 1, 3], "1": [2]}
    codes = {f["code"]: f for f in rep["findings"]}
    assert codes["TE944"]["severity"] == "failure" and "rank 3" in codes["TE944"]["message"]
    nccl = sorted(f["message"].split(" ")[0] for f in rep["findings"] if f["code"] == "TE950")
    assert nccl == ["NCCL_DEBUG", "NCCL_SOCKET_IFNAME"]
    # torch 2.13 and 2.14 do form one gloo group: the barrier passes and the sweep runs across them
    assert rep["group"]["formed"] and rep["group"]["error"] is None
    assert rep["bandwidth"]["ops"]["all_reduce"] and rep["bandwidth"]["error"] is None
    assert "ranks 0-2: " in text and "rank 3: " + cpu_version in text
    launchers = {x["rank"]: x["rank_facts"]["launcher"] for x in rep["ranks"]}
    assert launchers == {0: "torchrun/env://", 1: "open-mpi", 2: "slurm", 3: "torchrun/env://"}
    assert [x["rank_facts"]["local_rank"] for x in rep["ranks"]] == [0, 1, 2, 3]


FAULT_TIMEOUT, BARRIER_TIMEOUT = 40, 20


@pytest.fixture(scope="module")
def faulty_fleets(tmp_path_factory):
    """Two fleets at once (their waits overlap, so the suite pays for the longer one only):
    five ranks of which one exits before joining, one hangs in its probe, one hangs whole and one
    sends a truncated snapshot; and two ranks of which one joins the group but never reaches
    monitored_barrier."""
    tmp = tmp_path_factory.mktemp("faults")
    py = fs.python()
    fport, bport = fs.free_port(), fs.free_port()
    fargs = ["--timeout", str(FAULT_TIMEOUT)] + fs.QUICK_BW
    bargs = ["--timeout", str(BARRIER_TIMEOUT)] + fs.QUICK_BW
    t0 = time.monotonic()
    faults = [fs.start_rank(py, 0, 5, fport, fargs + ["--save", str(tmp / "faults.json"), "--json"]),
              fs.start_rank(py, 1, 5, fport, fargs, fault="exit-early"),
              fs.start_rank(py, 2, 5, fport, fargs, fault="hang-probe"),
              fs.start_rank(py, 3, 5, fport, fargs, fault="hang-process"),
              fs.start_rank(py, 4, 5, fport, fargs, fault="garbage")]
    barrier = [fs.start_rank(py, 0, 2, bport, bargs + ["--save", str(tmp / "barrier.json")]),
               fs.start_rank(py, 1, 2, bport, bargs, fault="hang-barrier")]
    try:
        zero = fs.finish([faults[0], barrier[0]], 2 * FAULT_TIMEOUT + 240)
        took = time.monotonic() - t0
    finally:
        others = fs.finish(faults[1:] + barrier[1:], 10)
    return {"faults": (zero[0], others[:4], tmp / "faults.json"), "barrier": (zero[1], tmp / "barrier.json"),
            "seconds": took}


@pytest.mark.slow
def test_dead_hung_and_garbage_ranks_are_reported_within_the_timeout(faulty_fleets):
    (code, text, err), others, save = faulty_fleets["faults"]
    timeout = FAULT_TIMEOUT
    assert code == 1, text + err[-3000:]
    rep = fs.load_json(save)
    status = {x["rank"]: x["status"] for x in rep["ranks"]}
    assert status == {0: "ok", 1: "missing", 2: "late", 3: "late", 4: "garbage"}
    codes = {f["code"]: f for f in rep["findings"]}
    assert codes["TE941"]["message"] == f"rank 1 never reached rank 0 within {timeout} s"
    assert "ranks 2-3" in codes["TE942"]["message"] and "not valid JSON" in codes["TE943"]["message"]
    assert rep["group"]["skipped"]  # no group is formed that would wait for the missing rank
    assert json.loads(text) == rep  # --json on stdout: only rank 0 writes there, and only the report
    from torch_envcheck.fleet import render  # noqa: PLC0415
    from torch_envcheck.fleet.load import load  # noqa: PLC0415
    terminal = render.to_terminal(load(str(save)))
    assert "rank 1 never reached rank 0" in terminal and "Fleet: 1 of 5 ranks reported" in terminal
    # rank 0's own work is bounded by --timeout (plus the start of the processes: importing torch)
    assert rep["launch"]["seconds"] < timeout + 10
    assert others[0][0] == 3 and others[1][0] == 0 and others[3][0] == 0  # the hung process is killed here
    print(f"fault fleets: both rank 0s done after {faulty_fleets['seconds']:.1f} s "
          f"(the fault fleet's own part {rep['launch']['seconds']:.1f} s)")


@pytest.mark.slow
def test_monitored_barrier_names_a_rank_that_joined_and_hung(faulty_fleets):
    """Every rank delivers, the group forms, then rank 1 never reaches the barrier: rank 0's
    monitored_barrier (gloo) names it within the timeout and the report says so."""
    (code, text, err), save = faulty_fleets["barrier"]
    assert code == 1, text + err[-3000:]
    rep = fs.load_json(save)
    assert [x["status"] for x in rep["ranks"]] == ["ok", "ok"]
    assert rep["group"]["formed"] and rep["group"]["barrier_missing"] == [1]
    assert rep["group"]["stage"] == "monitored_barrier"
    codes = {f["code"]: f for f in rep["findings"]}
    assert codes["TE955"]["message"] == "monitored_barrier: rank 1 did not reach the barrier"
    assert "TE954" in codes and rep["bandwidth"].get("skipped")
    assert rep["launch"]["seconds"] < 2 * BARRIER_TIMEOUT + 10


@pytest.mark.gpu
def test_torchrun_nccl_on_every_gpu(tmp_path):
    """On a GPU machine: one rank per GPU, NCCL for the measured collectives (CUDA events), the
    gloo group beside it for the barrier."""
    import torch  # noqa: PLC0415
    n = torch.cuda.device_count()
    if n < 2:
        pytest.skip(f"NCCL collectives need two GPUs (one rank each); this machine has {n}")
    out = tmp_path / "nccl.json"
    r = fs.torchrun(fs.python(), n, ["--timeout", "150", "--save", str(out), "--bandwidth-max", "64M"], timeout=400)
    assert r.returncode in (0, 1), r.stderr[-3000:]
    rep = fs.load_json(out)
    assert rep["group"]["formed"] and rep["group"]["gloo_group"] == "new_group(backend='gloo') beside NCCL"
    bw = rep["bandwidth"]
    assert bw["backend"] == "nccl" and bw["timer"] == "CUDA events" and bw["error"] is None
    assert bw["ops"]["all_reduce"][-1]["bytes"] <= 64 << 20
    assert all(x["rank_facts"]["device"]["index"] == x["rank_facts"]["local_rank"] for x in rep["ranks"])
