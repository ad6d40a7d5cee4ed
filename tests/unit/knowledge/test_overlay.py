"""The knowledge overlay: where it lives, how it is validated (a corrupt one is ignored with
one warning line and the shipped tables serve), and how it merges with the shipped tables."""

from __future__ import annotations

import json
import os

import pytest

from torch_envcheck import knowledge as kb
from torch_envcheck.knowledge import freshness
from torch_envcheck.knowledge import overlay
from torch_envcheck.knowledge_update import overlay_write


def doc(fetched="2026-12-20T10:00:00+00:00", **tables):
    return {"schema": overlay.SCHEMA, "fetched": fetched, "sources": ["https://pypi.org/pypi/torch/json"],
            "tables": tables}


R216 = {"torch": "2.16", "latest_patch": "2.16.0", "python_min": "3.11", "python_max": "3.15",
        "requires_python": ">=3.11", "torchvision": None, "torchaudio": None, "builds_complete": False,
        "pypi": {"linux_x86_64": "cu134", "win_amd64": "cpu"},
        "builds": [{"tag": "cu134", "cudnn": "9.30.0.7", "platforms": ["linux_x86_64", "linux_aarch64"]}]}


@pytest.fixture
def kdir(tmp_path, monkeypatch):
    monkeypatch.setenv(overlay.ENV_DIR, str(tmp_path))
    kb.clear_caches()
    yield tmp_path
    kb.clear_caches()


def write(kdir, data) -> None:
    (kdir / overlay.FILE_NAME).write_text(data if isinstance(data, str) else json.dumps(data))
    kb.clear_caches()


def test_where_it_lives(monkeypatch, tmp_path):
    monkeypatch.setenv(overlay.ENV_DIR, str(tmp_path / "k"))
    assert overlay.path() == str(tmp_path / "k" / "overlay.json")
    monkeypatch.delenv(overlay.ENV_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    want = os.path.join(str(tmp_path / "xdg"), "torch_envcheck", "knowledge", "overlay.json")
    try:
        import platformdirs  # noqa: F401
    except ImportError:
        assert overlay.path() == want  # the XDG folder computed without platformdirs
    else:
        assert overlay.path() == want or overlay.path().endswith(os.path.join("torch_envcheck", "knowledge", "overlay.json"))


def test_no_overlay_is_the_shipped_table(kdir):
    assert kb.latest_known_release() == "2.15"
    assert "overlay" not in kb.load_table(kb.RELEASES_FILE)


def test_an_overlay_adds_a_release_and_the_doctor_uses_it(kdir):
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [R216]},
                         "docker_images.json": {"latest_patch": {"2.16": "2.16.0"}}}))
    assert kb.latest_known_release() == "2.16"
    assert kb.python_range("2.16.0") == ("3.11", "3.15")
    b = kb.release("2.16")["builds"][0]
    assert b["tag"] == "cu134" and b["arch_list"] is None and b["unverified"]
    # no arch list: never recommended on a guess; the newest verified fit stays 2.15
    pick = kb.latest_release_for(driver_cuda="13.4", capability="9.0", os_name="Linux", python_version="3.12",
                                 driver_version="600.10", machine="x86_64")
    assert pick["torch"] == "2.15"
    assert freshness.torch_gap("2.16.0+cu134", "cu134")["kind"] == "arch"
    assert freshness.torch_gap("2.16.0+cu126", "cu126")["kind"] == "build"
    assert kb.load_table("docker_images.json")["latest_patch"]["2.16"] == "2.16.0"
    assert freshness.table_dates()["overlay"].startswith("2026-12-20")
    assert kb.torchaudio_for("2.16") is None and kb.torchvision_for("2.16") is None


def test_an_overlay_row_wins_field_by_field_and_keeps_what_it_lacks(kdir):
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [
        {"torch": "2.15", "builds": [{"tag": "cu126", "cudnn": "9.10.2.21"}, {"tag": "cu132", "cudnn": "9.26.0.99"}]}]}}))
    r = kb.release("2.15")
    cu132 = next(b for b in r["builds"] if b["tag"] == "cu132")
    assert cu132["cudnn"] == "9.26.0.99"                       # the overlay's value wins (it is newer)
    assert cu132["arch_list"] == "7.5;8.0;8.6;9.0;10.0;12.0"   # fields it lacks keep the shipped value
    assert r["python_min"] == "3.11" and r["torchaudio"] == "2.11"
    assert [b["tag"] for b in r["builds"]] == ["cu132", "cu126"]


def test_an_overlay_older_than_the_tables_only_fills_gaps(kdir):
    overlay_write.write(doc(fetched="2026-01-01T00:00:00+00:00", **{"torch_releases.json": {"releases": [
        {"torch": "2.15", "python_min": "3.9", "builds": [{"tag": "cu132", "cudnn": "1.0"}, {"tag": "cu126"}]}]}}))
    r = kb.release("2.15")
    assert r["python_min"] == "3.11"                           # the newer shipped value wins
    assert next(b for b in r["builds"] if b["tag"] == "cu132")["cudnn"] == "9.26.0.51"
    assert any(b["tag"] == "cu126" for b in r["builds"])       # a build the tables lack is still added


@pytest.mark.parametrize("bad,why", [
    ("{not json", "not JSON"),
    (json.dumps({"schema": "something/9", "fetched": "2026-12-20", "tables": {}}), "schema"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.16\x1b[31m"}]}})), "not valid"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.16", "builds": [{"tag": "cu134; rm -rf /"}]}]}})),
     "not valid"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.16", "python_min": 3.11}]}})), "not valid"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.16", "pypi": {"solaris": "cu134"}}]}})),
     "unknown platform"),
    (json.dumps(doc(fetched="yesterday")), "ISO date"),
    ("[" * 100000 + "]" * 100000, "not JSON"),
])
def test_a_corrupt_overlay_is_ignored_with_one_line(kdir, bad, why, capsys):
    write(kdir, bad)
    assert kb.latest_known_release() == "2.15"
    assert kb.release("2.15")["python_min"] == "3.11"
    kb.load_table("docker_images.json")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ignoring the knowledge overlay" in err and why in err
    assert "\x1b" not in err


def test_size_cap_and_special_files(kdir, capsys):
    write(kdir, json.dumps(doc()) + " " * (overlay.MAX_BYTES + 1))
    assert kb.latest_known_release() == "2.15"
    assert "larger than 4 MiB" in capsys.readouterr().err
    os.remove(kdir / overlay.FILE_NAME)
    if hasattr(os, "mkfifo"):
        os.mkfifo(kdir / overlay.FILE_NAME)  # a FIFO nobody writes to: must not block
        kb.clear_caches()
        assert kb.latest_known_release() == "2.15"
        assert "not a regular file" in capsys.readouterr().err


def test_unknown_fields_are_dropped_and_writes_are_validated(kdir):
    d = doc(**{"torch_releases.json": {"releases": [dict(R216, shiny="new field")]}})
    d["future"] = {"x": 1}
    overlay_write.write(d)
    assert "shiny" not in kb.release("2.16") and kb.latest_known_release() == "2.16"
    with pytest.raises(overlay.OverlayError):
        overlay_write.write(doc(**{"torch_releases.json": {"releases": [{"torch": "two"}]}}))


def test_the_shipped_tables_are_never_modified(kdir):
    before = json.dumps(kb.load_table(kb.RELEASES_FILE), sort_keys=True)
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [R216]}}))
    kb.release("2.16")["python_min"] = "mutated by a caller"
    kb.clear_caches()
    os.remove(kdir / overlay.FILE_NAME)
    kb.clear_caches()
    assert json.dumps(kb.load_table(kb.RELEASES_FILE), sort_keys=True) == before
