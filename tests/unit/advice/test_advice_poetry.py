"""`advise --poetry`: the fragment is valid TOML, the PyTorch index is an explicit source, exactly
one torch entry matches each targeted platform and sends it to the advised build (PyPI on macOS);
the checker catches a fragment that does not."""

from __future__ import annotations

import tomllib

import pytest

from _rules_helpers import SNAPSHOT_NAMES as NAMES, load, snapshot_path
from doctor_support import run_words as run
from torch_envcheck.advice import api, check, poetry, targets

ALL = [targets.TARGETS[n] for n in ("linux", "windows", "macos")]


@pytest.mark.parametrize("name", NAMES)
def test_advise_poetry_sends_each_platform_to_the_advised_build(name):
    rc, out, err = run("advise", "--poetry", "--from-json", snapshot_path(name))
    adv = api.advice_for(load(name))
    assert "caution" not in out, out
    if adv.kind not in ("cuda", "cpu", "pypi") and not (adv.kind == "keep" and adv.build["tag"]):
        assert rc == 1
        return
    assert rc == 0, err
    doc = tomllib.loads(out)["tool"]["poetry"]
    own = targets.own(adv.machine["os"], adv.machine["machine"])
    if own is None or adv.kind == "pypi":
        return
    from packaging.markers import Marker
    env = targets.TARGETS[own].env()
    hit = [e for e in doc["dependencies"]["torch"] if Marker(e["markers"]).evaluate(env)]
    assert len(hit) == 1 and hit[0]["source"] == f"pytorch-{adv.build['tag']}"
    assert all(s["priority"] == "explicit" for s in doc["source"])


def test_checker_catches_broken_poetry_fragments():
    chosen = {"linux": "cu126", "windows": "cu126", "macos": None}
    reqs = ["torch==2.14.1", "torchvision==0.29.*"]
    good = poetry.fragment(reqs, chosen, ALL)
    assert check.fragment_problems(good, "poetry", ALL, chosen, reqs) == []

    def probs(text):
        return [p.detail for p in check.fragment_problems(text, "poetry", ALL, chosen, reqs)]

    assert any("not explicit" in p for p in probs(good.replace('priority = "explicit"', 'priority = "primary"')))
    assert any("not one of Poetry's" in p for p in probs(good.replace('priority = "explicit"', 'priority = "first"')))
    assert any("2 entries match" in p for p in probs(good.replace("sys_platform == 'darwin'", "sys_platform != 'x'", 1)))
    assert any("not declared" in p for p in probs(good.replace('source = "pytorch-cu126"', 'source = "torch"', 1)))
