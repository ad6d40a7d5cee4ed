"""fleet --preflight with real processes over loopback: 8 ranks split into 2 named nodes (the
test-only TORCH_ENVCHECK_TEST_NODES), one rank throttled (TORCH_ENVCHECK_TEST_SLOW_RANK): its node,
and only its node, is excluded, in the report, the JSON and the hostfile; the command exits 1.  The
healthy 4-rank preflight runs in the default tier (test_fleet_processes.py); false positives over
repeated healthy fleets are measured by benchmarks/fleet_preflight.py."""

from __future__ import annotations

import pytest

import fleet_support as fs

pytestmark = pytest.mark.slow


def test_eight_ranks_one_slow_rank_names_its_node(tmp_path):
    out, hostfile = tmp_path / "fleet.json", tmp_path / "exclude"
    r = fs.torchrun(fs.python(), 8, ["--timeout", "150", "--preflight", "--no-bandwidth", "--save", str(out),
                                     "--exclude-file", str(hostfile)], timeout=400,
                    extra={"TORCH_ENVCHECK_TEST_NODES": "2", "TORCH_ENVCHECK_TEST_SLOW_RANK": "5"})
    assert r.returncode == 1, r.stdout + r.stderr[-3000:]
    rep = fs.load_json(out)
    assert rep["exclude"] == {"hosts": ["node01"], "slurm": "node01"}
    assert hostfile.read_text(encoding="utf-8") == "node01\n"
    slow = [f for f in rep["findings"] if f["code"] == "TE958"]
    assert len(slow) == 1 and slow[0]["details"]["ranks"] == [5]
    analysis = rep["preflight"]["analysis"]
    reasons = " ".join(s for x in analysis["slow_ranks"] for s in x["reasons"])
    assert "matmul" in reasons and "both ring links" in reasons  # named in compute and in bandwidth
    assert "sbatch --exclude=node01" in r.stdout
