"""The typed report keeps the torch_envcheck.report/1 schema: a report saved with `--json` reads
back (Report.from_json) and writes out again byte for byte, and what a renderer prints from the
read-back report is what it printed from the live one."""

from __future__ import annotations

import dataclasses
import glob
import json
import os

import pytest

from paths import DATA, SNAP_DIR
from torch_envcheck.doctor import report as R
from torch_envcheck.doctor.finding import Finding, finding
from torch_envcheck.doctor.render import json_render, markdown, terminal
from torch_envcheck.facts.snapshot import load

SAVED = os.path.join(DATA, "report_v1_saved.json")   # `torch-envcheck --from-json <a snapshot> --json`, as written
NAMES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(SNAP_DIR, "*.json")))


def test_a_saved_report_reads_back_and_writes_out_byte_for_byte():
    with open(SAVED, encoding="utf-8") as fh:
        text = fh.read()
    rep = R.Report.from_json(text)
    assert rep.to_json() == text
    assert json_render.render(rep) == text
    # and it is typed, not a dict in disguise
    assert isinstance(rep.findings[0], Finding) and isinstance(rep.areas["gpu"], R.AreaLine)
    cause = next(f for f in rep.findings if f.code == "TE403")
    assert [s.code for s in rep.symptoms_of(cause)] == ["TE303"] and cause.counts
    assert rep.exit_status == 1 and rep.status("gpu") == "failure" and rep.areas["gpu"].causes == ("TE403",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.findings[0].severity = "ok"


@pytest.mark.parametrize("name", NAMES)
def test_every_recorded_snapshot_round_trips(name):
    live = R.build(load(os.path.join(SNAP_DIR, name + ".json")))
    text = live.to_json()
    again = R.Report.from_json(text)
    assert again.to_json() == text and again == live
    assert terminal.render(again, verbose=True) == terminal.render(live, verbose=True)
    assert markdown.render(again) == markdown.render(live)


def test_unknown_keys_of_a_newer_report_are_kept_and_bad_values_read_as_absent():
    with open(SAVED, encoding="utf-8") as fh:
        data = json.load(fh)
    data["findings"][0]["future_field"] = {"x": 1}
    data["later_key"] = [1, 2]
    data["findings"].append("not a finding")
    data["findings"].append({"code": "TE999", "severity": "catastrophic", "message": 5})
    rep = R.Report.from_dict(data)
    out = rep.to_dict()
    assert out["findings"][0]["future_field"] == {"x": 1} and out["later_key"] == [1, 2]
    odd = rep.findings[-1]
    assert len(rep.findings) == len(data["findings"]) - 1          # the string is dropped
    assert odd.severity == "warning" and odd.message == "5" and odd.area == "platform"


def test_the_report_owns_hiding_outranking_and_linking():
    ok = finding("TE400", "ok", "kernels for every GPU")
    cause = finding("TE403", "failure", "bad CUDA_VISIBLE_DEVICES", "why", "export CUDA_VISIBLE_DEVICES=0",
                    explains=["TE303"], hides=["TE400"])
    symptom = finding("TE303", "failure", "CUDA failed to initialise", "why")
    snap = load(os.path.join(SNAP_DIR, "h100_cu130_healthy.json"))
    found = R.assemble(snap, [ok, cause, symptom])
    assert [f.code for f in found] == ["TE403", "TE303"]
    assert found[1].explained_by == "TE403" and not found[1].counts
    assert "hides" not in found[0].to_dict()
    summary = R.summarize(found, snap)
    assert summary["gpu"] == "failure" and summary["driver"] == "ok"   # the symptom's area is not blamed
