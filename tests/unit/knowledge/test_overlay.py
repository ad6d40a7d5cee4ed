"""The knowledge overlay: where it lives, how it is validated (a corrupt, planted or edited one is
ignored with one warning line and the shipped tables serve), and how it merges with the shipped
tables (hints that fill gaps, never replacing a verified value)."""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest

from torch_envcheck import knowledge as kb
from torch_envcheck.knowledge import freshness
from torch_envcheck.knowledge import overlay
from torch_envcheck.knowledge_update import overlay_write


YESTERDAY = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=1)).isoformat(timespec="seconds")


def doc(fetched=YESTERDAY, **tables):
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
    # a learned release is a hint: the newest release of the advice stays the verified one
    assert kb.latest_known_release() == "2.15" and kb.latest_learned_release()["torch"] == "2.16"
    assert kb.python_range("2.16.0") == ("3.11", "3.15")
    r = kb.release("2.16")
    b = r["builds"][0]
    assert b["tag"] == "cu134" and b["arch_list"] is None and b["unverified"] and r["unverified"]
    # no arch list: never recommended on a guess; the newest verified fit stays 2.15
    pick = kb.latest_release_for(driver_cuda="13.4", capability="9.0", os_name="Linux", python_version="3.12",
                                 driver_version="600.10", machine="x86_64")
    assert pick["torch"] == "2.15"
    assert freshness.torch_gap("2.16.0+cu134", "cu134")["kind"] == "arch"
    assert freshness.torch_gap("2.16.0+cu126", "cu126")["kind"] == "build"
    # a learned patch never becomes an image tag or a pin: it is kept beside the shipped ones
    docker = kb.load_table("docker_images.json")
    assert "2.16" not in docker["latest_patch"] and docker["latest_patch_learned"]["2.16"] == "2.16.0"
    assert freshness.table_dates()["overlay"] == YESTERDAY
    assert kb.torchaudio_for("2.16") is None and kb.torchvision_for("2.16") is None


def test_an_overlay_never_replaces_a_shipped_value(kdir):
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [
        {"torch": "2.15", "python_min": "3.9", "python_max": "3.9",
         "builds": [{"tag": "cu126", "cudnn": "9.10.2.21"}, {"tag": "cu132", "cudnn": "9.26.0.99"}]}]},
        "docker_images.json": {"latest_patch": {"2.15": "2.15.9"}}}))
    r = kb.release("2.15")
    cu132 = next(b for b in r["builds"] if b["tag"] == "cu132")
    assert cu132["cudnn"] == "9.26.0.51"                       # the verified pin stays
    assert cu132["cudnn_learned"]["cudnn"] == "9.26.0.99"       # the index's is shown beside it
    assert cu132["arch_list"] == "7.5;8.0;8.6;9.0;10.0;12.0"
    assert (r["python_min"], r["python_max"]) == ("3.11", "3.15") and r["torchaudio"] == "2.11"
    cu126 = next(b for b in r["builds"] if b["tag"] == "cu126")
    assert cu126["unverified"] and cu126["arch_list"] is None  # a build the tables lack: added, as a hint
    assert [b["tag"] for b in r["builds"]] == ["cu132", "cu126"]
    docker = kb.load_table("docker_images.json")
    assert docker["latest_patch"]["2.15"] != "2.15.9" and docker["latest_patch_learned"]["2.15"] == "2.15.9"


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
    # a planted overlay: far-future date, fields update never writes, values it never writes
    (json.dumps(doc(fetched="9999-12-31T00:00:00+00:00")), "in the future"),
    (json.dumps(doc(fetched="1999-01-01T00:00:00+00:00")), "before"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.15", "builds": [
        {"tag": "cu130", "arch_list": "5.0"}]}]}})), "never writes"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.99", "unverified": False}]}})), "writes True"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.99", "torchvision": "0.99"}]}})), "null"),
    (json.dumps(doc(**{"torch_releases.json": {"releases": [{"torch": "2.99", "note": "trust me"}]}})), "never writes"),
    (json.dumps(dict(doc(), future={"x": 1})), "never writes"),
    (json.dumps(doc(**{"cuda_drivers.json": {"toolkit_minimums": []}})), "never writes"),
    (json.dumps(doc()), "no digest"),
    (json.dumps(dict(doc(), digest="sha256:" + "0" * 64)), "digest does not match"),
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


def test_an_edited_overlay_fails_its_digest(kdir, capsys):
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [R216]}}))
    assert kb.latest_learned_release()["torch"] == "2.16"
    f = kdir / overlay.FILE_NAME
    f.write_text(f.read_text().replace('"3.15"', '"3.16"'))
    kb.clear_caches()
    assert kb.release("2.16") is None and "digest does not match" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
def test_an_overlay_others_may_write_or_do_not_own_is_refused(kdir, capsys, monkeypatch):
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [R216]}}))
    f = kdir / overlay.FILE_NAME
    assert (f.stat().st_mode & 0o777) == 0o600
    os.chmod(f, 0o666)
    kb.clear_caches()
    assert kb.release("2.16") is None and "other users may write it" in capsys.readouterr().err
    os.chmod(f, 0o644)
    uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)  # as if another user had planted it
    kb.clear_caches()
    assert kb.release("2.16") is None and "owned by user id" in capsys.readouterr().err
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    target = kdir / "elsewhere.json"
    os.replace(f, target)
    os.symlink(target, f)
    kb.clear_caches()
    assert kb.release("2.16") is None and "symbolic link" in capsys.readouterr().err


def test_writes_are_validated(kdir):
    with pytest.raises(overlay.OverlayError):
        overlay_write.write(doc(**{"torch_releases.json": {"releases": [{"torch": "two"}]}}))
    with pytest.raises(overlay.OverlayError):
        overlay_write.write(doc(**{"torch_releases.json": {"releases": [dict(R216, shiny="new field")]}}))


def test_the_shipped_tables_are_never_modified(kdir):
    before = json.dumps(kb.load_table(kb.RELEASES_FILE), sort_keys=True)
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [R216]}}))
    kb.release("2.16")["python_min"] = "mutated by a caller"
    kb.clear_caches()
    os.remove(kdir / overlay.FILE_NAME)
    kb.clear_caches()
    assert json.dumps(kb.load_table(kb.RELEASES_FILE), sort_keys=True) == before


def test_advice_from_a_learned_row_names_the_index_it_came_from(kdir):
    url = "https://mirror.example/whl/cu134/torch-2.16.0%2Bcu134-cp312-cp312-manylinux_2_28_x86_64.whl"
    row = dict(R216, learned_from=url, builds=[dict(R216["builds"][0], learned_from=url)])
    overlay_write.write(doc(**{"torch_releases.json": {"releases": [row]}}))
    kept = freshness.keep_installed("2.16.0+cu134", "cu134", "13.4", None)
    assert kept and "https://mirror.example/whl/cu134" in freshness.kept_line(kept)
    note = freshness.newer_unpicked({"torch": "2.15", "tag": "cu132"})
    assert "torch 2.16 is newer" in note and "https://mirror.example/whl/cu134" in note and "unverified" in note
