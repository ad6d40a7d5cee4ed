"""The maintainers' check in CI: the shipped tables against the recorded PyPI answers
(tests/fixtures/indexes, as a file:// index: no network).  It must find no difference in the
shipped tables, and find each difference planted in a copy of them."""

from __future__ import annotations

import json
import shutil

import pytest

from torch_envcheck import knowledge as kb
from torch_envcheck.knowledge_update import check
from torch_envcheck.knowledge_update import learn

import index_fixture


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return index_fixture.recorded_tree(str(tmp_path_factory.mktemp("recorded")))


def sources(tree, kind="pypi_json"):
    if kind == "pypi_json":
        return learn.Sources(json_api=tree["pypi_json"], pytorch=None, wheel_range=False)
    return learn.Sources(json_api=None, index_url=tree[kind], pytorch=None, wheel_range=False)


@pytest.mark.parametrize("kind", ["pypi_json", "simple_json", "simple_html"])
def test_the_shipped_tables_match_the_recorded_answers(recorded, kind):
    res = check.run_check(sources(recorded, kind))
    assert res["differences"] == [], [d["line"] for d in res["differences"]]
    assert res["torch_releases"] == ["2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.14", "2.15"]
    assert res["tensorflow_releases"] == ["2.20", "2.21"]
    # the recorded metadata: torch 2.14.1 and 2.15.0 (Linux x86_64 + aarch64, Windows), TF 2.20/2.21;
    # the JSON API also gives 2.15.0's Requires-Dist for its macOS wheel (info.requires_dist)
    assert res["metadata_read"] == (9 if kind == "pypi_json" else 8)
    assert any("2.13 (linux_x86_64, linux_aarch64, win_amd64, macos_arm64)" in n for n in res["not_checked"])
    assert not res["problems"]


def _planted(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(kb.DATA_DIR, data)

    def change(name, fn):
        p = data / name
        t = json.loads(p.read_text())
        fn(t)
        p.write_text(json.dumps(t))

    def rel(t, key):
        return next(r for r in t["releases"] if r["torch"] == key)

    def releases(t):
        rel(t, "2.15")["python_max"] = "3.14"
        next(b for b in rel(t, "2.14")["builds"] if b["tag"] == "cu130")["cudnn"] = "9.24.0.1"
        rel(t, "2.14")["pypi"]["linux_aarch64"] = "cpu"
        rel(t, "2.15")["python_min"] = "3.10"
        t["releases"] = [r for r in t["releases"] if r["torch"] != "2.12"]
    change("torch_releases.json", releases)
    change("docker_images.json", lambda t: t["latest_patch"].update({"2.15": "2.15.1"}))

    def tf(t):
        row = next(r for r in t["builds"] if r["tensorflow"] == "2.21" and r["os"] == "linux")
        row["and_cuda"] = [x for x in row["and_cuda"] if not x.startswith("nvidia-nccl")]
        row["cudnn"] = "9.1"
    change("tensorflow_builds.json", tf)
    monkeypatch.setattr(kb, "DATA_DIR", str(data))


def test_planted_differences_are_found(recorded, tmp_path, monkeypatch):
    _planted(tmp_path, monkeypatch)
    res = check.run_check(sources(recorded))
    got = {(d["row"], d["field"]) for d in res["differences"]}
    assert got == {
        ("torch 2.15", "python_max"), ("torch 2.15", "python_min"), ("torch 2.15", "python_min (Requires-Python)"),
        ("torch 2.14 cu130", "cudnn"), ("torch 2.14", "pypi.linux_aarch64"), ("torch 2.12", "release"),
        ("latest_patch 2.15", "newest patch"), ("tensorflow 2.21 linux", "and_cuda pins on one side only"),
        ("tensorflow 2.21 linux", "cudnn"),
    }, got
    d = next(d for d in res["differences"] if d["field"] == "cudnn" and d["row"].startswith("torch"))
    assert (d["tables"], d["index"]) == ("9.24.0.1", "9.24.0.43")
    text = check.render(res)
    assert "differences found: 9" in text and "DIFFERENCE torch_releases.json torch 2.14 cu130: cudnn" in text


def test_a_release_newer_than_the_tables_is_a_difference(tmp_path):
    tree = index_fixture.test_index(str(tmp_path / "idx"))
    res = check.run_check(sources(tree))
    lines = [d["line"] for d in res["differences"]]
    assert any(line.startswith("torch_releases.json torch 2.16: release: tables (none), index 2.16.0") for line in lines)
    assert any("tensorflow 2.22 linux: release" in line for line in lines)
    assert any("latest_patch 2.16" in line for line in lines)


def test_nothing_readable_is_said(tmp_path):
    res = check.run_check(learn.Sources(json_api="file://" + str(tmp_path / "nowhere"), pytorch=None))
    assert res["nothing_read"] and res["problems"] and res["differences"] == []
