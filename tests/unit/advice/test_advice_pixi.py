"""`advise --pixi`: the pixi.toml fragment is valid TOML (tomllib), sets only fields of pixi's
manifest schema (prefix-dev/pixi schema/model.py, cited in advice/fragments.py), and asks conda-forge
for its build that serves this machine (advise --json's conda_forge: the GPU's arch in its list, a CUDA
the driver runs): build string `cudaXY*` with cuda-version and [system-requirements] cuda equal to that
build's CUDA, `*cpu*` on a machine without a CUDA build, conda-forge's own on macOS.  (pixi itself is
not installed here: no solve is run.)"""

from __future__ import annotations

import tomllib

import pytest

from _rules_helpers import SNAPSHOT_NAMES as NAMES, load, snapshot_path
from doctor_support import run_words as run
from torch_envcheck.advice import api, check, pixi, targets

ALL = [targets.TARGETS[n] for n in ("linux", "windows", "macos")]


@pytest.mark.parametrize("name", NAMES)
def test_advise_pixi_fragment_is_valid_and_carries_the_advised_cuda(name):
    rc, out, err = run("advise", "--pixi", "--from-json", snapshot_path(name))
    adv = api.advice_for(load(name))
    assert "caution" not in out, out
    if adv.kind in (None, "native-python", "jetpack") or adv.kind == "keep" and adv.build["tag"] or \
            adv.kind == "cuda" and adv.conda_forge is None:  # (no conda-forge CUDA build serves this GPU and driver)
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
    if adv.kind == "cuda":  # conda-forge's build for this machine (advise --json's conda_forge): its arch list has the GPU
        cuda = adv.conda_forge["cuda"]
        assert doc["system-requirements"]["cuda"] == cuda
        assert mine["pytorch"]["build"] == f"cuda{cuda.replace('.', '')}*" and mine["cuda-version"] == cuda + ".*"
        assert mine["pytorch"]["version"] == adv.conda_forge["pytorch"] + ".*"
    elif adv.kind == "cpu":
        assert "system-requirements" not in doc and mine["pytorch"]["build"] == "*cpu*"
    else:  # macOS: conda-forge's own build, no build string
        spec = mine["pytorch"]
        assert (spec == "*" or "build" not in spec) and "system-requirements" not in doc


def test_gtx_10_series_on_driver_580_gets_conda_forges_cuda_12_9_in_pixi():
    # conda-forge's CUDA 13.0 build starts at 7.5; its 12.9 build carries sm_60 (runs on 6.1); win-64 has 12.8
    rc, out, _ = run("advise", "--pixi", "--from-json", snapshot_path("pascal_gtx1080_cu130"))
    doc = tomllib.loads(out)
    assert rc == 0 and doc["system-requirements"]["cuda"] == "12.9"
    assert doc["target"]["linux-64"]["dependencies"] == {"pytorch": {"version": "2.13.*", "build": "cuda129*"},
                                                         "cuda-version": "12.9.*"}
    assert doc["target"]["win-64"]["dependencies"]["cuda-version"] == "12.8.*"


def test_checker_catches_broken_pixi_fragments():
    chosen = {"linux": "cuda", "windows": "cuda", "macos": None}
    good = pixi.fragment(pixi.Choice("2.13", chosen, {"linux": "12.6", "windows": "12.6"}, "12.6", []), ALL)
    assert check.fragment_problems(good, "pixi", ALL, chosen, []) == []

    def probs(text):
        return [p.detail for p in check.fragment_problems(text, "pixi", ALL, chosen, [])]

    assert any("not valid TOML" in p for p in probs(good.replace('channels = ["conda-forge"]', "channels = [")))
    assert any("no field 'cudaa'" in p for p in probs(good.replace('cuda = "12.6"', 'cudaa = "12.6"')))
    assert any("not a conda platform" in p for p in probs(good.replace('"win-64"', '"windows-64"', 1)))
    assert any("does not match" in p for p in probs(good.replace('cuda-version = "12.6.*"', 'cuda-version = "13.0.*"', 1)))
    assert any("not the advised cuda" in p for p in probs(good.replace('build = "cuda126*"', 'build = "*cpu*"', 1)))
    assert any("not the advised cuda" in p for p in probs(good.replace('build = "cuda126*"', 'build = "cuda129*"', 1)))
    assert probs(good.replace('build = "cuda126*"', 'build = "*cuda*"', 1)) == []
    assert any("no field 'bulid'" in p for p in probs(good.replace('build = "cuda126*"', 'bulid = "cuda126*"', 1)))
