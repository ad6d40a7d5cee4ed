"""`advise --pixi`: the pixi.toml fragment is valid TOML (tomllib), sets only fields of pixi's
manifest schema (prefix-dev/pixi schema/model.py, cited in advice/fragments.py), and asks conda-forge
for the build `advise` picks: `*cuda*` with cuda-version and [system-requirements] cuda equal to the
advised build's CUDA, `*cpu*` on a machine without a CUDA build, conda-forge's own on macOS.  (pixi
itself is not installed here: no solve is run.)"""

from __future__ import annotations

import os
import tomllib

import pytest

from _rules_helpers import load
from paths import SNAP_DIR
from doctor_support import run_inprocess
from torch_envcheck.advice import api, check, pixi, targets

NAMES = sorted(f[:-5] for f in os.listdir(SNAP_DIR) if f.endswith(".json"))
ALL = [targets.TARGETS[n] for n in ("linux", "windows", "macos")]


def run(*argv) -> tuple[int, str, str]:
    return run_inprocess(list(argv))


@pytest.mark.parametrize("name", NAMES)
def test_advise_pixi_fragment_is_valid_and_carries_the_advised_cuda(name):
    rc, out, err = run("advise", "--pixi", "--from-json", os.path.join(SNAP_DIR, name + ".json"))
    adv = api.advice_for(load(name))
    assert "caution" not in out, out
    if adv.kind in (None, "native-python", "jetpack") or adv.kind == "keep" and adv.build["tag"]:
        assert rc == 1 and "no pixi fragment" in out
        return
    assert rc == 0, err
    doc = tomllib.loads(out)
    deps = {k: v["dependencies"] for k, v in doc["target"].items()}
    assert doc["workspace"]["channels"] == ["conda-forge"]
    own = targets.own(adv.machine["os"], adv.machine["machine"])
    if own is None:
        return
    mine = deps[targets.TARGETS[own].conda]
    if adv.kind == "cuda":
        cuda = ".".join(adv.build["cuda"].split(".")[:2])
        assert doc["system-requirements"]["cuda"] == cuda
        assert mine["pytorch"]["build"] == "*cuda*" and mine["cuda-version"] == cuda + ".*"
        assert mine["pytorch"]["version"] == adv.build["torch"] + ".*"
    elif adv.kind == "cpu":
        assert "system-requirements" not in doc and mine["pytorch"]["build"] == "*cpu*"
    else:  # macOS: conda-forge's own build, no build string
        spec = mine["pytorch"]
        assert (spec == "*" or "build" not in spec) and "system-requirements" not in doc


def test_gtx_10_series_on_driver_580_gets_cuda_12_6_in_pixi():
    rc, out, _ = run("advise", "--pixi", "--from-json", os.path.join(SNAP_DIR, "pascal_gtx1080_cu130.json"))
    doc = tomllib.loads(out)
    assert rc == 0 and doc["system-requirements"]["cuda"] == "12.6"
    assert doc["target"]["linux-64"]["dependencies"]["cuda-version"] == "12.6.*"


def test_checker_catches_broken_pixi_fragments():
    rec = {"kind": "cuda", "torch": "2.14", "cuda": "12.6", "tag": "cu126"}
    chosen = pixi.picks(rec, ALL)
    good = pixi.fragment(rec, ALL, chosen)
    assert check.fragment_problems(good, "pixi", ALL, chosen, []) == []

    def probs(text):
        return [p.detail for p in check.fragment_problems(text, "pixi", ALL, chosen, [])]

    assert any("not valid TOML" in p for p in probs(good.replace('channels = ["conda-forge"]', "channels = [")))
    assert any("no field 'cudaa'" in p for p in probs(good.replace('cuda = "12.6"', 'cudaa = "12.6"')))
    assert any("not a conda platform" in p for p in probs(good.replace('"win-64"', '"windows-64"', 1)))
    assert any("does not match" in p for p in probs(good.replace('cuda-version = "12.6.*"', 'cuda-version = "13.0.*"', 1)))
    assert any("not the advised cuda" in p for p in probs(good.replace('build = "*cuda*"', 'build = "*cpu*"', 1)))
    assert any("no field 'bulid'" in p for p in probs(good.replace('build = "*cuda*"', 'bulid = "*cuda*"', 1)))
