"""`knowledge update` against an index an attacker wrote, and an overlay an attacker planted: neither
can turn a working install's advice into a reinstall or a downgrade.  And an index listing a torch
release the tables do not know, without metadata: update keeps what it could learn and names the
release it could not learn, and why."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import pytest

import index_fixture
from paths import REPO, SNAP_DIR

from torch_envcheck.knowledge import overlay

# Saved reports, recorded snapshots and indexes the tests serve: nothing here reads this machine's torch.
pytestmark = pytest.mark.any_torch_build

HEALTHY = ["h100_cu130_healthy.json", "a100_torch215_cu132_healthy.json",
           "h100_torch299_cu140_newer_than_tables.json", "gh200_aarch64_cu130_healthy.json"]


def cli(args, kdir, timeout=120):
    env = dict(os.environ, TORCH_ENVCHECK_KNOWLEDGE_DIR=str(kdir), PYTHONPATH=REPO, NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "torch_envcheck", *args], capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=REPO)
    return p.returncode, p.stdout, p.stderr


def _meta(version: str, cuda: str, cudnn: str) -> str:
    return (f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\nSummary: MADE-UP hostile test metadata\n"
            "Requires-Python: >=3.9\n"
            f"Requires-Dist: cuda-toolkit[cudart]=={cuda}; platform_system == \"Linux\"\n"
            f"Requires-Dist: nvidia-cudnn-cu13=={cudnn}; platform_system == \"Linux\"\n")


def _page(root: str, rel: str, wheels: dict, extra: str = "") -> None:
    """<root>/<rel>/index.html listing `wheels` (name -> metadata text, or None: no .metadata)."""
    files = os.path.join(root, "files")
    os.makedirs(files, exist_ok=True)
    links = []
    for name, meta in wheels.items():
        if meta is not None:
            with open(os.path.join(files, name + ".metadata"), "w", encoding="utf-8") as fh:
                fh.write(meta)
        attr = " data-core-metadata='true'" if meta is not None else ""
        links.append(f"<a href='file://{files}/{name}'{attr}>{name}</a>")
    folder = os.path.join(root, rel)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "index.html"), "w", encoding="utf-8") as fh:
        fh.write("<html><body>" + "\n".join(links) + extra + "</body></html>")


def hostile_tree(root: str) -> None:
    """A made-up torch 2.999 (every platform, pins of a CUDA nobody ships), links to local files,
    and a PyTorch-index mirror re-listing shipped releases' builds with other cuDNN pins."""
    plats = ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "win_amd64")
    new = {f"torch-2.999.0-cp{py}-cp{py}-{p}.whl": _meta("2.999.0", "13.9.0", "9.99.0.1")
           for py in ("39", "312", "313") for p in plats}
    planted = "<a href='file:///etc/torch-2.999.1-cp312-cp312-manylinux_2_28_x86_64.whl'>x</a>"
    _page(root, "simple/torch", new, planted)
    for tag, ver in (("cu130", "2.14.1"), ("cu132", "2.15.0"), ("cu126", "2.999.0")):
        _page(root, f"whl/{tag}/torch", {f"torch-{ver}+{tag}-cp312-cp312-{p}.whl": _meta(f"{ver}+{tag}", "12.0.0",
                                                                                         "8.0.0.1") for p in plats})


def advice(kdir, snap: str) -> tuple[str, set]:
    rc, out, err = cli(["advise", "--from-json", os.path.join(SNAP_DIR, snap)], kdir)
    command = [line for line in out.splitlines() if line and not line.startswith("#")]
    rc2, doc, err2 = cli(["--from-json", os.path.join(SNAP_DIR, snap), "--json"], kdir)
    return "\n".join(command), {f["code"] for f in json.loads(doc)["findings"]}


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    empty = tmp_path_factory.mktemp("none")
    return {snap: advice(empty, snap) for snap in HEALTHY}


@pytest.fixture(scope="module")
def hostile_learned(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("hostile"))
    hostile_tree(root)
    kdir = tmp_path_factory.mktemp("k")
    with index_fixture.IndexServer(root) as srv:
        rc, out, err = cli(["knowledge", "update", "--pypi-json", "none", "--index-url", srv.url + "/simple",
                            "--mirror", srv.url + "/whl", "--timeout", "10"], kdir)
    return kdir, rc, out, err


def test_a_hostile_index_is_learned_as_hints_only(hostile_learned):
    kdir, rc, out, err = hostile_learned
    assert rc == 0, out + err
    assert "file: link on an http: page" in out                  # the planted link was refused and named
    ov = json.loads((kdir / "overlay.json").read_text())
    assert ov["digest"] == overlay.digest(ov)
    rows = {r["torch"]: r for r in ov["tables"]["torch_releases.json"]["releases"]}
    assert rows["2.999"]["unverified"] is True and all("arch_list" not in b for b in rows["2.999"]["builds"])


@pytest.mark.parametrize("snap", HEALTHY)
def test_a_hostile_index_never_changes_a_working_installs_advice(baseline, hostile_learned, snap):
    kdir, *_ = hostile_learned
    assert advice(kdir, snap) == baseline[snap]


def _planted(kdir, fetched: str, tables: dict, sign: bool = True) -> None:
    doc = {"schema": overlay.SCHEMA, "tool_version": "9.9.9", "fetched": fetched,
           "sources": ["https://evil.example/simple/torch/"], "tables": tables}
    if sign and hasattr(overlay, "digest"):
        doc["digest"] = overlay.digest(doc)  # as if written by update: the digest alone proves nothing
    os.makedirs(kdir, exist_ok=True)
    path = os.path.join(kdir, "overlay.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    os.chmod(path, 0o600)


FAR_FUTURE = {"torch_releases.json": {"releases": [
    {"torch": "2.14", "builds": [{"tag": "cu130", "arch_list": "5.0", "unverified": False}]},
    {"torch": "2.15", "python_max": "3.9", "builds": [{"tag": "cu132", "platforms": ["win_amd64"]}]},
    {"torch": "2.999", "latest_patch": "2.999.0", "python_min": "3.9", "python_max": "3.14",
     "builds": [{"tag": "cu130", "arch_list": "9.0;10.0"}, {"tag": "cu126", "arch_list": "8.0;9.0"}]}]},
    "docker_images.json": {"latest_patch": {"2.14": "2.14.9", "2.999": "2.999.0"}}}
# the same attack with only the fields and values update writes: it may add hints, never replace
WELL_FORMED = {"torch_releases.json": {"releases": [
    {"torch": "2.14", "python_max": "3.9", "builds": [{"tag": "cu130", "cudnn": "8.0.0.1",
                                                      "platforms": ["win_amd64"]}]},
    {"torch": "2.15", "python_min": "3.14", "python_max": "3.9",
     "builds": [{"tag": "cu132", "cudnn": "8.0", "platforms": ["win_amd64"]}, {"tag": "cu126"}]},
    {"torch": "2.999", "latest_patch": "2.999.0", "python_min": "3.9", "python_max": "3.14",
     "builds": [{"tag": "cu130", "cudnn": "9.99"}, {"tag": "cu126"}, {"tag": "cu140"}]}]},
    "docker_images.json": {"latest_patch": {"2.14": "2.14.9", "2.15": "2.15.9", "2.999": "2.999.0"}}}


def _an_hour_ago() -> str:
    return (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)).isoformat(timespec="seconds")


@pytest.mark.parametrize("when,tables", [("far-future", FAR_FUTURE), ("recent", FAR_FUTURE),
                                         ("far-future", WELL_FORMED), ("recent", WELL_FORMED)],
                         ids=["far-future-hostile-fields", "recent-hostile-fields", "far-future-update-fields",
                              "recent-update-fields"])
@pytest.mark.parametrize("snap", HEALTHY)
def test_a_planted_overlay_never_changes_a_working_installs_advice(baseline, tmp_path, when, tables, snap):
    _planted(tmp_path, "9999-12-31T00:00:00+00:00" if when == "far-future" else _an_hour_ago(), tables)
    command, found = advice(tmp_path, snap)
    assert (command, found) == baseline[snap]
    assert "--force-reinstall torch==2.999" not in command and "cu140" not in command.replace(
        baseline[snap][0], "")


def test_a_newer_torch_keeps_its_newer_than_the_tables_warning_under_a_made_up_release(tmp_path):
    _planted(tmp_path, _an_hour_ago(), WELL_FORMED)
    rc, out, err = cli(["advise", "--from-json", os.path.join(SNAP_DIR, "h100_torch299_cu140_newer_than_tables.json")],
                       tmp_path)
    assert "keep the installed torch 2.99.0+cu140" in out and "2.15" not in out.splitlines()[-1]
    rc, doc, err = cli(["--from-json", os.path.join(SNAP_DIR, "h100_torch299_cu140_newer_than_tables.json"), "--json"],
                       tmp_path)
    f = {x["code"]: x for x in json.loads(doc)["findings"]}
    assert "TE207" in f and "end at torch 2.15" in f["TE207"]["message"]


# ------------------------------------------------------------------ a release the tables do not know

@pytest.mark.parametrize("with_tensorflow", [False, True])
def test_update_names_a_release_it_saw_but_could_not_learn(tmp_path, with_tensorflow):
    root = str(tmp_path / "idx")
    plats = ("manylinux_2_28_x86_64", "win_amd64")
    _page(root, "torch", {f"torch-2.99.0+cu130-cp312-cp312-{p}.whl": None for p in plats})
    if with_tensorflow:
        _page(root, "tensorflow", {"tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl": None})
    rc, out, err = cli(["knowledge", "update", "--index-url", "file://" + root, "--pypi-json", "none",
                        "--no-pytorch-index"], tmp_path / "k")
    assert rc == 0, out + err
    assert "nothing could be read" not in err
    line = next(x for x in out.splitlines() if x.startswith("not learned: torch 2.99"))
    assert "2.99.0+cu130" in line and "could not be read" in line and "cuDNN pin is unknown" in line
    # what could be learned is kept: the release and its cu130 build, as hints without an arch list
    assert "torch 2.99 (newest 2.99.0, Python 3.12-3.12): builds cu130" in out
    doc = json.loads((tmp_path / "k" / "overlay.json").read_text())
    row = doc["tables"]["torch_releases.json"]["releases"][0]
    assert row["torch"] == "2.99" and row["builds"][0]["tag"] == "cu130" and row["unverified"] is True


def test_one_bad_learned_row_is_dropped_and_named_and_dry_run_says_the_same(tmp_path):
    from torch_envcheck.knowledge_update import learn, update
    got = learn.Learned()
    got.torch["2.98"] = learn.TorchRelease("2.98", "2.98.0", ["2.98.0"], pythons=["3.12"],
                                          learned_from="https://idx.example/f/torch-2.98.0-cp312-cp312-win_amd64.whl")
    got.torch["2.99"] = learn.TorchRelease("2.99", "2.99.0", ["2.99.0"], pythons=["3.12"],
                                          requires_python=">=3.9; import os",  # not a specifier
                                          learned_from="https://idx.example/f/torch-2.99.0-cp312-cp312-win_amd64.whl")
    got.read.append("https://idx.example/simple/torch/ (pep503: 2 wheels)")
    dropped: list = []
    doc = update.overlay_doc(got, learn.Sources(), dropped=dropped)
    assert [r["torch"] for r in doc["tables"]["torch_releases.json"]["releases"]] == ["2.98"]
    assert len(dropped) == 1 and dropped[0].startswith("torch 2.99 dropped:") and "requires_python" in dropped[0]
    overlay.validate(doc)  # what is kept is what would be written
