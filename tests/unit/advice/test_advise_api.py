"""The advice for installers: torch_envcheck.advise() and `advise --json` on every recorded scenario.
Each document validates against docs/schemas/advise.schema.json; its build is the one `advise`
prints; the build chosen passes every check, every other build names the check that rejected it;
and a GTX 10-series card (sm_61) on a 580 driver gets a build with sm_61 kernels, where uv's
driver-only choice (cu132) has none."""

from __future__ import annotations

import json
import os
import re

import pytest

import schema_lite
from _rules_helpers import SNAPSHOT_NAMES as NAMES, load, snapshot_path as path
import torch_envcheck
from doctor_support import run_words as run
from torch_envcheck import knowledge as kb
from torch_envcheck.advice import alternatives, api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
with open(os.path.join(ROOT, "docs", "schemas", "advise.schema.json"), encoding="utf-8") as _fh:
    SCHEMA = json.load(_fh)


@pytest.mark.parametrize("name", NAMES)
def test_advise_json_validates_and_agrees_with_advise(name):
    rc, out, err = run("advise", "--json", "--uv", "--from-json", path(name))
    doc = json.loads(out)
    assert schema_lite.validate(doc, SCHEMA) == [], schema_lite.validate(doc, SCHEMA)[:5]
    assert rc == (0 if doc["kind"] is not None else 1), (rc, err, doc["problems"])
    assert doc["problems"] == []
    # the same build as the plain `advise` (its pip command names the index of the build it picked)
    rc2, plain, _ = run("advise", "--from-json", path(name))
    idx = re.findall(r"download\.pytorch\.org/whl/([a-z0-9.]+)", plain)
    if doc["kind"] in ("cuda", "cpu") and idx and "conda install" not in plain:
        assert idx[-1] == doc["build"]["tag"], (idx, doc["build"])
        from torch_envcheck.advice import uv
        tag = doc["build"]["tag"]
        assert (f"--torch-backend {tag}" if uv.backend_since(tag) else f"--index-url {doc['build']['index_url']}") \
            in doc["commands"]["uv"]
    if doc["kind"] is None:
        assert doc["build"] is None and doc["commands"]["pip"] is None
    if doc["kind"] == "keep":  # the installed ROCm/XPU/MPS build: nothing to install
        assert doc["commands"]["pip"] is None and doc["build"]["requirements"][0].startswith("torch==")
    lines = [ln for ln in plain.splitlines() if ln and not ln.startswith("#")]
    from torch_envcheck.facts import tensorflow as T
    assert (doc["tensorflow"] is not None) == T.tf_installed(load(name))  # TensorFlow's plan where the env holds it
    if doc["tensorflow"] is not None:  # TensorFlow's plan: the command lines `advise` prints for both frameworks
        flat = [ln for c in doc["tensorflow"]["commands"] for ln in c.splitlines()]
        assert flat and lines[-len(flat):] == flat, (flat, lines)
    elif "conda" in doc["commands"] and doc["commands"]["conda"]:  # the conda form `advise` prints in a conda env
        assert lines == doc["commands"]["conda"].splitlines()
    forge = doc["conda_forge"]
    if forge is not None:  # conda-forge's build: it carries this GPU's arch (PTX counted on Linux only)
        assert doc["kind"] == "cuda" and forge["specs"][0].startswith(f"pytorch={forge['pytorch']}.*=cuda")
        arch = kb.parse_arch_list(forge["arch_list"], doc["machine"]["os"])
        cap = doc["machine"]["build_capability"]
        assert cap is None or kb.capability_match(cap, arch, forge["cuda"])["ok"]  # (no GPU seen: as the pip advice)
    # the chosen build is never also listed as rejected; every alternative says why
    chosen = (doc["build"] or {}).get("torch"), (doc["build"] or {}).get("tag")
    assert all((a["torch"], a["tag"]) != chosen for a in doc["alternatives"])
    assert all(a["rejected"] for a in doc["alternatives"])


@pytest.mark.parametrize("name", NAMES)
def test_chosen_cuda_build_passes_every_check_the_alternatives_fail(name):
    s = load(name)
    adv = api.advice_for(s)
    if adv.kind != "cuda" or adv.build["kept_installed"]:
        return
    rel = kb.release(adv.build["torch"])
    build = next(b for b in rel["builds"] if b["tag"] == adv.build["tag"])
    judged = alternatives.judge(s, rel, build, adv.machine["build_capability"])
    assert judged["hard"] == [], judged
    # every build that passes the hard checks and is not chosen is rejected by preference alone
    for a in adv.alternatives:
        checks = {r.check for r in a.rejected}
        assert checks, a
        if "preference" in checks:
            assert checks == {"preference"}


def test_gtx_10_series_on_driver_580_gets_sm61_kernels_where_uv_auto_would_not():
    s = load("pascal_gtx1080_cu130")
    assert api.F.driver_version(s).startswith("580.") and api.F.build_capability(s) == "6.1"
    adv = torch_envcheck.advise(s, forms=("uv",))
    b = adv.build
    arch = kb.wheel_arch_list(b["torch"], b["tag"], "Linux", "x86_64")
    assert kb.capability_match("6.1", arch, b["cuda"])["via"] == "sass", arch
    auto = adv.commands["uv_driver_only"]
    assert auto["tag"] == "cu132" and auto["has_kernels"] is False, auto   # uv: the driver alone
    auto_arch = kb.wheel_arch_list(b["torch"], auto["tag"], "Linux", "x86_64")
    assert kb.capability_match("6.1", auto_arch, "13.2")["ok"] is False
    rejected = {(a.torch, a.tag): {r.check for r in a.rejected} for a in adv.alternatives}
    assert rejected[(b["torch"], "cu132")] == {"capability"}
    assert rejected[(b["torch"], "cu130")] == {"capability"}
    assert "--torch-backend cu126" in adv.commands["uv"] and b["tag"] == "cu126"


def test_rejections_name_driver_python_and_platform():
    old = api.advice_for(load("v100_driver_418_older_than_every_build"))
    assert old.kind != "cuda"
    assert all(any(r.check == "driver" for r in a.rejected) for a in old.alternatives), old.alternatives[:2]
    mac = api.advice_for(load("macos_apple_silicon"))
    assert mac.kind in ("pypi", "keep") and all(a.rejected[0].check == "platform" for a in mac.alternatives)
    s = load("pascal_gtx1080_cu130")
    s = json.loads(json.dumps(s))
    s["platform"]["python"]["version"] = "3.8.10"
    py = api.advice_for(s)
    newest = [a for a in py.alternatives if a.torch == kb.latest_known_release()]
    assert newest and all("python" in {r.check for r in a.rejected} for a in newest)


def test_validator_can_fail():
    doc = api.advice_for(load("pascal_gtx1080_cu130")).to_dict()
    assert schema_lite.validate(doc, SCHEMA) == []
    bad = json.loads(json.dumps(doc))
    del bad["build"]["tag"]
    bad["kind"] = "gpu"
    bad["alternatives"][0]["rejected"] = []
    errs = schema_lite.validate(bad, SCHEMA)
    assert any("missing 'tag'" in e for e in errs) and any("'gpu'" in e for e in errs)
    assert any("fewer than 1" in e for e in errs)


def test_advise_api_refuses_a_non_snapshot():
    with pytest.raises(TypeError):
        torch_envcheck.advise("tests/snapshots/x.json")


def test_example_installer_uses_the_api():
    import subprocess
    import sys
    script = os.path.join(ROOT, "docs", "examples", "install_torch.py")
    res = subprocess.run([sys.executable, script, "--uv", "--from-json", path("pascal_gtx1080_cu130")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "--torch-backend cu126" in res.stdout and "by capability" in res.stdout


@pytest.mark.parametrize("name", NAMES)
def test_docker_image_carries_the_same_build(name):
    adv = api.advice_for(load(name))
    rc, out, _ = run("advise", "--docker", "--from-json", path(name))
    pulls = [ln.split()[-1] for ln in out.splitlines() if ln.startswith("docker pull ")]
    if adv.kind != "cuda":
        assert rc == 1 and not pulls
        return
    if not pulls:
        return  # no official image for this CPU architecture or release (the reasons say so)
    tag = pulls[0].strip("'").split(":", 1)[1]
    assert tag.startswith(adv.build["torch"] + ".") and f"-cuda{adv.build['cuda']}-" in tag, (tag, adv.build)


@pytest.mark.parametrize("name", [n for n in NAMES if "tf" in n][:6] + ["h100_cu130_healthy"])
def test_advise_json_carries_tensorflows_plan_where_asked(name):
    """TensorFlow's plan is in the document where the env holds TensorFlow or --framework asks; the
    torch build stays the same, and --framework torch leaves TensorFlow out."""
    _rc, out, _err = run("advise", "--json", "--framework", "both", "--from-json", path(name))
    both = json.loads(out)
    assert schema_lite.validate(both, SCHEMA) == []
    tf = both["tensorflow"]
    assert tf is not None and tf["reasons"] and isinstance(tf["two_environments"], bool)
    # TensorFlow's own install words are in the commands (as they are, or inside a new environment's line)
    words = tf["command"].split(" install ", 1)[1] if tf["command"] else None
    assert words is None or any(words in c for c in tf["commands"]), (words, tf["commands"])
    _rc, out, _err = run("advise", "--json", "--framework", "torch", "--from-json", path(name))
    torch_only = json.loads(out)
    assert torch_only["tensorflow"] is None and torch_only["build"] == both["build"]
    _rc, plain, _err = run("advise", "--framework", "both", "--from-json", path(name))
    lines = [ln for ln in plain.splitlines() if ln and not ln.startswith("#")]
    flat = [ln for c in tf["commands"] for ln in c.splitlines()]
    assert lines[-len(flat):] == flat
