"""facts/memo.py: inside one report's reading an accessor reads a snapshot once; outside it, and for
another snapshot object, it reads anew; what it hands out cannot be changed by its callers."""

from __future__ import annotations

import copy

from torch_envcheck import knowledge as kb
from torch_envcheck.doctor.report import findings_for
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F
from torch_envcheck.facts import memo


def _counting():
    calls = []

    @memo.per_report
    def gpus(s, kind="all"):
        calls.append((id(s), kind))
        return [g for g in s.get("gpus", []) if kind == "all" or g == kind]
    return gpus, calls


def test_one_read_per_snapshot_and_arguments_inside_a_reading():
    gpus, calls = _counting()
    s, t = {"gpus": ["a", "b"]}, {"gpus": ["a", "b"]}
    with memo.reading():
        assert gpus(s) == ["a", "b"] and gpus(s) == ["a", "b"]
        assert gpus(s, "a") == ["a"]
        assert gpus(t) == ["a", "b"]          # an equal but other snapshot is read on its own
        with memo.reading():                  # a nested reading shares the outer one's answers
            assert gpus(s) == ["a", "b"]
    assert calls == [(id(s), "all"), (id(s), "a"), (id(t), "all")]


def test_outside_a_reading_every_call_reads_and_a_changed_snapshot_is_seen():
    gpus, calls = _counting()
    s = {"gpus": ["a"]}
    with memo.reading():
        assert gpus(s) == ["a"]
    s["gpus"].append("b")
    assert gpus(s) == ["a", "b"] and gpus(s) == ["a", "b"]
    with memo.reading():                      # a new reading starts empty
        assert gpus(s) == ["a", "b"]
    assert len(calls) == 4


def test_a_kept_list_is_handed_out_as_a_copy():
    gpus, _ = _counting()
    s = {"gpus": ["a", "b"]}
    with memo.reading():
        first = gpus(s)
        first.reverse()
        first.append("x")
        assert gpus(s) == ["a", "b"]


def test_an_unhashable_argument_is_read_anew_not_an_error():
    gpus, calls = _counting()
    s = {"gpus": ["a"]}
    with memo.reading():
        assert gpus(s, ["a"]) == [] and gpus(s, ["a"]) == []
    assert len(calls) == 2


def test_the_accessors_read_the_same_with_and_without_a_reading():
    s = {"conda": {"packages": [{"name": "pytorch", "version": "2.5.1", "build": "py3.12_cuda12.4_cudnn9.1.0_0"},
                                {"name": "pytorch", "version": "1.0", "build": "second of a name: not counted"},
                                {"name": "cudatoolkit", "version": "11.8.0"}]},
         "driver": {"gpus": [{"name": "NVIDIA A100-SXM4-80GB", "capability": [8, 0]}]}}
    plain = (dict(C.packages(s)), F.driver_gpus(s))
    with memo.reading():
        kept = (dict(C.packages(s)), F.driver_gpus(s))
        again = (dict(C.packages(s)), F.driver_gpus(s))
    assert plain == kept == again
    assert kept[0]["pytorch"].version == "2.5.1" and [g.name for g in kept[1]] == ["NVIDIA A100-SXM4-80GB"]


def test_a_report_sees_a_snapshot_changed_after_the_last_report():
    s = {"conda": {"packages": [{"name": "pytorch", "version": "2.5.1", "build": "py3.12_cpu_0"}]}}
    findings_for(copy.deepcopy(s))
    with memo.reading():
        assert C.package(s, "pytorch").build == "py3.12_cpu_0"
    s["conda"]["packages"][0]["build"] = "py3.12_cuda12.4_cudnn9.1.0_0"
    with memo.reading():
        assert C.package(s, "pytorch").build == "py3.12_cuda12.4_cudnn9.1.0_0"


def test_the_newest_release_a_machine_runs_is_a_fresh_dict_each_time():
    # a driver that runs CUDA 12.4 at most: the newest build is a CUDA 12 one
    first = kb.latest_release_for(driver_cuda="12.4", capability="8.0", os_name="Linux", python_version="3.11")
    assert first is not None and first["cuda"].startswith("12.")
    first["torch"] = "spoiled"
    again = kb.latest_release_for(driver_cuda="12.4", capability="8.0", os_name="Linux", python_version="3.11")
    assert again["torch"] != "spoiled" and again is not first
    # a new overlay generation computes the answer again (the same tables: the same answer)
    kb.clear_caches()
    assert kb.latest_release_for(driver_cuda="12.4", capability="8.0", os_name="Linux", python_version="3.11") == again
