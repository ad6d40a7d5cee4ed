"""Hostile runs, fleet: a rank that exits with an error before it reaches the store (torchrun
then stops rank 0 with SIGTERM) still gets a report that names it; `fleet --from-json ''` inside a
job is refused rather than starting a live fleet; `--save` replaces a planted symlink instead of
writing through it.  (A rank whose rank_facts.backends is a list: test_bounds_roundtrip.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import fleet_support as fs
from hostile_support import posix_only

pytestmark = posix_only


def _fleet_report_file(tmp_path) -> str:
    from torch_envcheck.facts.snapshot import load
    from torch_envcheck.fleet import aggregate, render, wire

    snap = load(os.path.join(fs.REPO, "tests", "snapshots", "h100_cu130_healthy.json"))
    recs = []
    for r in range(2):
        data = wire.encode({"schema": wire.RANK_SCHEMA, "tool_version": "0", "snapshot": snap, "probe_error": None,
                            "rank_facts": {"rank": r, "host": f"node{r}"}})
        recs.append(aggregate.record_from_arrival(r, {"hello": {"host": f"node{r}"}, "arrived": True, "data": data}))
    path = tmp_path / "fleet.json"
    path.write_text(render.to_json(aggregate.build(recs, world_size=2)))
    return str(path)


def test_a_rank_that_dies_at_start_is_named_in_rank_0s_report(tmp_path):
    port = fs.free_port()
    saved = tmp_path / "fleet.json"
    argv = [fs.python(), "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", "2", "--master-addr",
            "127.0.0.1", "--master-port", str(port), fs.FAULT_SCRIPT, "by-rank", "fleet", "--timeout", "120",
            "--no-bandwidth", "--save", str(saved)]
    t0 = time.monotonic()
    r = subprocess.run(argv, env=fs.base_env({"TE_FLEET_FAULT": "1:exit-early"}), cwd=fs.REPO, capture_output=True,
                       text=True, timeout=240)
    took = time.monotonic() - t0
    assert "exitcode  : 3" in r.stderr  # torchrun saw rank 1 fail and stopped the job
    out = r.stdout
    assert "TE941 rank 1 never reached rank 0" in out, out + r.stderr[-3000:]
    assert "stopped by SIGTERM" in out
    rep = json.loads(saved.read_text())
    assert {x["rank"]: x["status"] for x in rep["ranks"]}[1] == "missing"
    assert rep["verdict"]["status"] == "failure"
    assert took < 120  # the report came at once, not after --timeout


def test_from_json_empty_name_inside_a_job_is_refused(tmp_path):
    env = fs.rank_env(0, 2, fs.free_port())
    t0 = time.monotonic()
    r = subprocess.run([fs.python(), "-m", "torch_envcheck", "fleet", "--from-json", ""], env=env, cwd=fs.REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "needs a file name" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 30  # no live fleet was started (it would wait for rank 1)


def test_save_replaces_a_planted_symlink(tmp_path):
    report = _fleet_report_file(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    r = subprocess.run([fs.python(), "-m", "torch_envcheck", "fleet", "--from-json", report, "--save", str(link)],
                       env=fs.base_env(), cwd=fs.REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and json.loads(link.read_text())["schema"] == "torch_envcheck.fleet/1"


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_fleet_markdown_on_a_narrow_stdout(tmp_path, encoding):
    report = _fleet_report_file(tmp_path)
    r = subprocess.run([fs.python(), "-m", "torch_envcheck", "fleet", "--from-json", report, "--markdown"],
                       env=fs.base_env({"PYTHONIOENCODING": encoding}), cwd=fs.REPO, capture_output=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    assert b"internal error" not in r.stderr
    text = r.stdout.decode(encoding)
    assert "### torch-envcheck fleet" in text and ("[ok]" in text or "[!]" in text or "[x]" in text)
