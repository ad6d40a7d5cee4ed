"""Round trips: every report the tool writes, it reads back.  The bounds a saved report is
read with (_util/bounds.py: nesting, entries per list or object, values, bytes) are applied when
collecting too: what exceeds them is cut and the cut is named (probe_errors "<section> (bounds)").
Round trips: a live TensorFlow child listing 20,000 GPUs through `--json` and `--from-json`; a fleet
rank whose snapshot is nested 900 deep through rank 0, `--save` and `fleet --from-json`."""

from __future__ import annotations

import json
import os
import sys
import textwrap

from doctor_support import run_cli

from torch_envcheck._util import bounds
from torch_envcheck.facts import snapshot as snapmod

MANY_GPUS = """\
import sys, types, collections
__version__ = "2.21.0"
class _Dev:
    def __init__(self, i): self.name, self.device_type = f"/physical_device:GPU:{i}", "GPU"
sysconfig = types.SimpleNamespace(get_build_info=lambda: collections.OrderedDict(
    cuda_version="12.5.1", cudnn_version="9", is_cuda_build=True, is_rocm_build=False))
config = types.SimpleNamespace(
    list_physical_devices=lambda kind: [_Dev(i) for i in range(20000)],
    experimental=types.SimpleNamespace(get_device_details=lambda d: {"device_name": "NVIDIA H100",
                                                                     "compute_capability": (9, 0)}))
"""


def test_a_live_tensorflow_child_with_20000_gpus_round_trips(tmp_path):
    root = tmp_path / "fake"
    (root / "tensorflow").mkdir(parents=True)
    (root / "tensorflow" / "__init__.py").write_text(textwrap.dedent(MANY_GPUS))
    info = root / "tensorflow-2.21.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.21.0\n")
    proc = run_cli(sys.executable, ["--json", "--timeout", "30"], env={"PYTHONPATH": str(root), "NO_COLOR": "1"},
                   timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    saved = tmp_path / "report.json"
    saved.write_text(proc.stdout)
    snap = snapmod.load(str(saved))  # what was accepted live is read back
    gpus = snap["tensorflow"]["gpus"]
    assert len(gpus) == bounds.MAX_ITEMS and gpus[0]["device_name"] == "NVIDIA H100"
    note = snap["probe_errors"].get("tensorflow (bounds)")
    assert note and "tensorflow.gpus: 20000 entries, the first 10000 kept" in note
    again = run_cli(sys.executable, ["--from-json", str(saved), "--json"], timeout=120)
    assert again.returncode in (0, 1), again.stderr
    codes = [f["code"] for f in json.loads(again.stdout)["findings"]]
    assert codes  # diagnosed again from the saved file


def _deep(levels: int):
    node: object = "bottom"
    for _ in range(levels):
        node = {"d": node}
    return node


def test_a_fleet_rank_nested_900_deep_round_trips(tmp_path):
    from torch_envcheck.fleet import aggregate, load, render, wire

    snap = json.loads(json.dumps(snapmod.load(os.path.join(os.path.dirname(__file__), "..", "..", "snapshots",
                                                           "h100_cu130_healthy.json"))))
    snap["torch"]["deep"] = _deep(900)  # an undeclared fact, kept by normalise: the bounds cut it
    payload = {"schema": wire.RANK_SCHEMA, "tool_version": "0", "snapshot": snap, "probe_error": None,
               "rank_facts": {"rank": 1, "host": "node1", "backends": ["gloo", "nccl"], "device": "cuda:0",
                              "nccl_env": {"NCCL_DEBUG": "INFO", "x": {"nested": 1}}}}
    data = json.dumps(payload).encode()
    rec = aggregate.record_from_arrival(1, {"hello": {"host": "node1"}, "arrived": True, "data": data})
    assert rec["status"] == "ok", rec.get("error")
    assert rec["rank_facts"]["backends"] == {} and rec["rank_facts"]["device"] is None
    assert rec["rank_facts"]["nccl_env"] == {"NCCL_DEBUG": "INFO"}
    note = rec["snapshot"]["probe_errors"].get("torch (bounds)")
    assert note and "nested deeper than" in note
    rank0 = aggregate.record_from_arrival(0, {"hello": {"host": "node0"}, "arrived": True,
                                              "data": wire.encode(dict(payload, snapshot=snapmod.load(
                                                  os.path.join(os.path.dirname(__file__), "..", "..", "snapshots",
                                                               "h100_cu130_healthy.json")),
                                                  rank_facts={"rank": 0, "host": "node0"}))})
    report = aggregate.build([rank0, rec], world_size=2)
    saved = tmp_path / "fleet.json"
    saved.write_text(render.to_json(report))
    back = load.load(str(saved))  # the saved report is read back, every rank intact
    assert [r["status"] for r in back["ranks"]] == ["ok", "ok"]


def test_make_plan_survives_rank_facts_of_the_wrong_types():
    """A rank whose rank_facts.backends is a list crashed rank 0's plan (AttributeError)."""
    import argparse

    from torch_envcheck.fleet import rank_facts, worker

    recs = [{"rank": i, "status": "ok", "rank_facts": rank_facts.normalise(
        {"rank": i, "backends": ["nccl"], "device": ["cuda"], "gpu_free_bytes": "lots", "host": ["h"]})}
        for i in range(2)]
    args = argparse.Namespace(timeout=10.0, backend="auto", no_bandwidth=False, bandwidth_max=1 << 20, ops=["all_reduce"],
                              iters=2, warmup=1, bandwidth_seconds=5.0)
    plan = worker.make_plan(recs, args)
    assert plan["group"] is True and plan["backend"] == "gloo"


def test_fit_snapshot_cuts_what_a_saved_report_cannot_hold(tmp_path):
    snap = json.loads(json.dumps(snapmod.load(os.path.join(os.path.dirname(__file__), "..", "..", "snapshots",
                                                           "h100_cu130_healthy.json"))))
    snap["driver"]["errors"] = ["x" * (3 << 20)] * 3          # 9 MiB of strings
    snap["env"]["many"] = {f"k{i}": i for i in range(30000)}   # an object over the entry bound
    fitted, notes = bounds.fit_snapshot(snap)
    bounds.note_into(fitted, notes)
    assert bounds.size(fitted) <= bounds.SNAPSHOT_BYTES
    from torch_envcheck.doctor import report
    from torch_envcheck.doctor.render import json_render
    path = tmp_path / "r.json"
    path.write_text(json_render.render(report(snapmod.validate(fitted))))
    back = snapmod.load(str(path))
    assert "driver (bounds)" in back["probe_errors"] and "env (bounds)" in back["probe_errors"]
