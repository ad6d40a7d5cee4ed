"""`torch-envcheck knowledge update | show | check` end to end: `update` against an index the
tests build and serve on 127.0.0.1 (PEP 691 / PEP 503, .metadata files) and against a file:// simple
index learns a release the shipped tables lack (a made-up torch 2.16.0), and then the doctor
(`--from-json` a 2.16 snapshot) and `advise` use it; hostile and unreachable indexes give one line;
the maintainers' check runs against the recorded answers."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest

import index_fixture
from paths import DATA, REPO, SNAP_DIR

# Saved reports, recorded snapshots and indexes the tests serve: nothing here reads this machine's torch.
pytestmark = pytest.mark.any_torch_build

SNAP_216 = os.path.join(DATA, "knowledge", "h100_torch216_cu134_made_up.json")


def cli(args, kdir, timeout=120):
    env = dict(os.environ, TORCH_ENVCHECK_KNOWLEDGE_DIR=str(kdir), PYTHONPATH=REPO, NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "torch_envcheck", *args], capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=REPO)
    return p.returncode, p.stdout, p.stderr


def codes(kdir, snap_path) -> dict:
    rc, out, err = cli(["--from-json", str(snap_path), "--json"], kdir)
    return {f["code"]: f for f in json.loads(out)["findings"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("served"))
    index_fixture.test_index(root)
    with index_fixture.IndexServer(root) as srv:
        yield srv


@pytest.fixture(scope="module")
def learned(served, tmp_path_factory):
    """`knowledge update` against the served test index, once for the module."""
    kdir = tmp_path_factory.mktemp("kdir")
    rc, out, err = cli(["knowledge", "update", "--index-url", served.url + "/simple-json",
                        "--mirror", served.url + "/whl"], kdir)
    return kdir, rc, out, err


def test_update_learns_a_release_the_tables_lack(learned):
    kdir, rc, out, err = learned
    assert rc == 0, err
    assert "torch 2.16 (newest 2.16.0, Python 3.11-3.15): builds cu126 (cuDNN 9.10.2.21), cu134 (cuDNN 9.30.0.7)" in out
    assert "torch 2.15: builds cu126 (cuDNN 9.10.2.21)" in out
    assert "tensorflow 2.22 (linux)" in out
    doc = json.loads((kdir / "overlay.json").read_text())
    assert doc["schema"] == "torch_envcheck.knowledge-overlay/1" and doc["fetched"][:4].isdigit()
    assert all(u.startswith("http://127.0.0.1:") for u in doc["sources"])


def test_the_doctor_and_advise_use_what_update_learned(learned, tmp_path):
    kdir, *_ = learned
    empty = tmp_path / "empty"
    before, after = codes(empty, SNAP_216), codes(kdir, SNAP_216)
    assert before["TE207"]["severity"] == "warning" and "TE207" not in after
    # the overlay's Python range (3.11-3.15, from the wheels) is what the doctor judges Python by
    with open(SNAP_216, encoding="utf-8") as fh:
        s = json.load(fh)
    s["platform"]["python"]["version"] = "3.10.14"
    p = tmp_path / "py310.json"
    p.write_text(json.dumps(s))
    assert "TE103" not in codes(empty, p)
    assert "3.11-3.15" in codes(kdir, p)["TE103"]["message"]
    rc, out, err = cli(["advise", "--from-json", SNAP_216], kdir)
    assert rc == 0 and "keep the installed torch 2.16.0+cu134" in out and "from a package index" in out
    assert out.strip().endswith("torch==2.16.0 torchvision --index-url https://download.pytorch.org/whl/cu134")
    rc, out, err = cli(["advise", "--from-json", os.path.join(SNAP_DIR, "torch_facts_null.json")], kdir)
    assert "torch 2.16 is newer (learned by `torch-envcheck knowledge update`" in out
    assert "https://download.pytorch.org/whl/cu134" in out and "'torch==2.15.*'" in out  # never a guessed 2.16
    rc, out, err = cli(["advise", "--from-json", os.path.join(SNAP_DIR, "a100_torch215_cu132_driver_570.json")], kdir)
    assert "the package index also lists torch 2.15 cu126" in out


def test_tensorflow_learned(learned, tmp_path):
    kdir, *_ = learned
    with open(os.path.join(SNAP_DIR, "tf_wsl2_tf221_and_cuda.json"), encoding="utf-8") as fh:
        s = json.load(fh)
    s["tensorflow"]["version"] = "2.22.0"
    p = tmp_path / "tf222.json"
    p.write_text(json.dumps(s))
    assert "TE810" in codes(tmp_path / "empty", p) and "TE810" not in codes(kdir, p)


def test_show(learned, tmp_path):
    kdir, *_ = learned
    rc, out, err = cli(["knowledge", "show"], kdir)
    assert rc == 0 and "torch_releases.json      updated 2026-12-01" in out
    assert "with the overlay: torch 2.16 (builds cu126, cu134)" in out and "adds torch 2.16" in out
    rc, out, err = cli(["knowledge", "show", "--json"], kdir)
    info = json.loads(out)
    assert info["overlay"]["sources"] and info["tables"][0]["newest_with_overlay"].startswith("torch 2.16")
    rc, out, err = cli(["knowledge", "show"], tmp_path / "none")
    assert "Overlay: none" in out and "shipped tables serve" in out


def test_file_index_gives_the_same_overlay(tmp_path, learned):
    kdir, *_ = learned
    tree = index_fixture.test_index(str(tmp_path / "tree"))
    rc, out, err = cli(["knowledge", "update", "--index-url", tree["simple_html"], "--mirror", tree["mirror"]],
                       tmp_path / "k")
    assert rc == 0, err
    served = json.loads((kdir / "overlay.json").read_text())["tables"]
    filed = json.loads((tmp_path / "k" / "overlay.json").read_text())["tables"]

    def strip(t):
        t = copy.deepcopy(t)
        for r in t.get("torch_releases.json", {}).get("releases", []) + t.get("tensorflow_builds.json", {}).get("builds", []):
            r.pop("learned_from", None)
            for b in r.get("builds", []):
                b.pop("learned_from", None)
        return t
    assert strip(served) == strip(filed)


@pytest.mark.parametrize("route,words", [("/garbage", "lists no wheels"), ("/wrongtype", "expected a simple index"),
                                         ("/loop", "redirect refused"), ("/ansi", "lists no wheels")])
def test_a_bad_index_gives_one_clear_line(served, tmp_path, route, words):
    rc, out, err = cli(["knowledge", "update", "--index-url", served.url + route, "--no-pytorch-index"], tmp_path)
    assert rc == 1 and words in err and err.count("\n") == 1
    assert "\x1b" not in out + err and not (tmp_path / "overlay.json").exists()


def test_an_unreachable_index_leaves_the_shipped_tables(tmp_path):
    rc, out, err = cli(["knowledge", "update", "--index-url", "http://127.0.0.1:9/simple", "--no-pytorch-index",
                        "--timeout", "3"], tmp_path)
    assert rc == 1 and "no overlay written, the shipped tables serve" in err
    rc, out, err = cli(["knowledge", "show"], tmp_path)
    assert "Overlay: none" in out


def test_a_corrupt_overlay_is_one_warning_and_the_report_stays_json(tmp_path):
    (tmp_path / "overlay.json").write_text('{"schema": "torch_envcheck.knowledge-overlay/1", "fetched": 7}')
    rc, out, err = cli(["--from-json", os.path.join(SNAP_DIR, "h100_cu130_healthy.json"), "--json"], tmp_path)
    assert rc == 0 and json.loads(out)["exit_status"] == 0
    assert err.count("\n") == 1 and "ignoring the knowledge overlay" in err


@pytest.mark.parametrize("args,words", [
    (["knowledge", "update", "--index-url", "not a url"], "is not a URL"),
    (["knowledge", "update", "--cuda-tag", "cu13;rm"], "is not a CUDA tag"),
    (["knowledge", "check", "--since", "two"], "is not a release"),
    (["knowledge"], "name a subcommand"),
])
def test_usage_errors(tmp_path, args, words):
    rc, out, err = cli(args, tmp_path)
    assert rc == 2 and words in err and err.count("\n") == 1


def test_the_maintainers_check_on_the_recorded_answers(tmp_path):
    tree = index_fixture.recorded_tree(str(tmp_path / "rec"))
    rc, out, err = cli(["knowledge", "check", "--pypi-json", tree["pypi_json"], "--no-pytorch-index",
                        "--no-wheel-range"], tmp_path)
    assert rc == 0 and out.rstrip().endswith("differences found: 0"), out + err
    rc, out, err = cli(["knowledge", "check", "--index-url", tree["simple_json"], "--no-pytorch-index",
                        "--no-wheel-range", "--json"], tmp_path)
    assert rc == 0 and json.loads(out)["differences"] == []
    made_up = index_fixture.test_index(str(tmp_path / "new"))
    rc, out, err = cli(["knowledge", "check", "--pypi-json", made_up["pypi_json"], "--no-pytorch-index",
                        "--no-wheel-range"], tmp_path)
    assert rc == 1 and "DIFFERENCE torch_releases.json torch 2.16: release" in out
