"""`advise --uv` and `pin --uv`: the `uv pip install` line carries the build `advise` picks, the
pyproject.toml fragment is valid TOML with uv's fields and sends each targeted platform to that
build's index (the fix checker, check.fragment_problems, says so and catches broken fragments),
and `uv lock --offline` on the fragment, against a local index of tiny wheels, resolves torch to
the advised build on Linux and Windows and to PyPI's on macOS."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

from _rules_helpers import SNAPSHOT_NAMES as NAMES, load, snapshot_path as path
from doctor_support import run_words as run
from torch_envcheck.advice import api, check, targets, uv

ALL = [targets.TARGETS[n] for n in ("linux", "windows", "macos")]


def fragment(out: str) -> str:
    i = out.find("# pyproject.toml (uv)")
    return out[i:] if i >= 0 else ""


@pytest.mark.parametrize("name", NAMES)
def test_advise_uv_carries_the_advised_build_and_passes_the_checker(name):
    rc, out, err = run("advise", "--uv", "--from-json", path(name))
    adv = api.advice_for(load(name))
    assert "caution" not in out, out
    if adv.kind in (None, "native-python") or adv.kind == "keep" and not adv.build["tag"]:
        assert rc == 1 and "no uv command" in out
        return
    if adv.kind == "keep":  # a kept ROCm/XPU build: nothing to install, the fragment locks its index
        assert rc == 0 and "no uv command: nothing to install" in out and "uv pip install" not in out
        assert f'url = "https://download.pytorch.org/whl/{adv.build["tag"]}"' in out
        return
    assert rc == 0, err
    cmds = [ln for ln in out.splitlines() if ln.startswith("uv ")]
    assert len(cmds) == 1 and "uv pip install --python" in cmds[0]
    tag = adv.build["tag"]
    if adv.kind in ("cuda", "cpu") and targets.own(adv.machine["os"], adv.machine["machine"]):
        assert (f"--torch-backend {tag}" in cmds[0]) == bool(uv.backend_since(tag))
        frag = fragment(out)
        doc = tomllib.loads(frag)
        own = targets.own(adv.machine["os"], adv.machine["machine"])
        env = targets.TARGETS[own].env()
        from packaging.markers import Marker
        srcs = [e for e in doc["tool"]["uv"]["sources"]["torch"] if Marker(e["marker"]).evaluate(env)]
        assert [e["index"] for e in srcs] == [f"pytorch-{tag}"], (srcs, tag)
        assert all(ix["explicit"] is True for ix in doc["tool"]["uv"]["index"])
        # the requirements it names are those of the build
        for req in adv.build["requirements"]:
            assert json.dumps(req) in frag


def test_checker_catches_broken_fragments():
    chosen = {"linux": "cu126", "windows": "cu126", "macos": None}
    reqs = ["torch==2.14.1", "torchvision==0.29.*"]
    good = uv.project_fragment(reqs, chosen, ALL)
    assert check.fragment_problems(good, "uv", ALL, chosen, reqs) == []

    def probs(text, ch=chosen, rq=reqs):
        return [p.detail for p in check.fragment_problems(text, "uv", ALL, ch, rq)]

    assert any("not valid TOML" in p for p in probs(good.replace("explicit = true", "explicit = tru")))
    assert any("not explicit" in p for p in probs(good.replace("explicit = true", "explicit = false")))
    assert any("does not parse" in p for p in probs(good.replace("sys_platform == 'win32'", "sys_platform = 'win32'")))
    assert any("not declared" in p for p in probs(good.replace('index = "pytorch-cu126"', 'index = "pytorch-cu999"', 1)))
    # a build the tables do not have (2.14 has no cu118) and one not published for Windows
    bad = uv.project_fragment(reqs, {"linux": "cu118", "windows": "cu118", "macos": None}, ALL)
    assert any("no cu118 build" in p for p in probs(bad, {"linux": "cu118", "windows": "cu118", "macos": None}))
    w = uv.project_fragment(["torch==2.15.0"], {"linux": "cu132", "windows": "cu132", "macos": None}, ALL)
    assert any("not published for windows" in p for p in probs(w, {"linux": "cu132", "windows": "cu132", "macos": None},
                                                                 ["torch==2.15.0"]))
    # a platform sent to another build than advised
    assert any("not the advised" in p for p in probs(good, {"linux": "cu130", "windows": "cu126", "macos": None}))


def test_driver_only_choice_is_uvs_table():
    # uv's LINUX_CUDA_DRIVERS: 580 -> cu132 first; 550 -> cu129 first; 470 -> cu118 first (cited table)
    assert uv.auto_backend("580.95.05", "Linux")[0] == "cu132"
    assert uv.auto_backend("550.54.14", "Linux")[0] == "cu129"
    assert uv.auto_backend("470.82.01", "Linux")[0] == "cu118"
    assert uv.auto_backend("528.33", "Windows")[0] == "cu129" and uv.auto_backend(None, "Linux") == []


def test_target_flag():
    rc, out, _ = run("advise", "--uv", "--target", "linux", "--from-json", path("pascal_gtx1080_cu130"))
    assert rc == 0 and "win32" not in out and "darwin" not in out
    rc, _, err = run("advise", "--uv", "--target", "linux,beos", "--from-json", path("pascal_gtx1080_cu130"))
    assert rc == 2 and "unknown platform 'beos'" in err


def test_pin_uv_pins_the_installed_build():
    rc, out, err = run("pin", "--uv", "--from-json", path("h100_cu130_healthy"))
    assert rc == 0, err
    s = load("h100_cu130_healthy")
    tv = api.F.torch_version(s)
    assert f"torch=={tv.split('+')[0]}" in out and "--torch-backend cu130" in out
    doc = tomllib.loads(fragment(out))
    assert [ix["url"] for ix in doc["tool"]["uv"]["index"]] == ["https://download.pytorch.org/whl/cu130"]
    rc, _, err = run("pin", "--uv", "--from-json", path("macos_rosetta_x86_64_python_no_torch"))
    assert rc == 1 and "nothing to pin" in err


# ---------------------------------------------------------------- uv itself, on a local index

def _wheel(folder: str, name: str, version: str, tag: str, requires=()) -> None:
    dist = f"{name}-{version}"
    fname = f"{name}-{version}-py3-none-{tag}.whl"
    info = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    files = {f"{info}/METADATA": meta,
             f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-{tag}\n",
             f"{name.replace('-', '_')}/__init__.py": ""}
    files[f"{info}/RECORD"] = "".join(f"{k},,\n" for k in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(folder, fname), "w") as z:
        for k, v in files.items():
            z.writestr(k, v)
    assert dist


PLATFORM_TAGS = {"linux": "manylinux_2_28_x86_64", "windows": "win_amd64", "macos": "macosx_11_0_arm64"}


def _index(root: str, tag: str | None, plats) -> str:
    folder = os.path.join(root, tag or "pypi")
    os.makedirs(folder, exist_ok=True)
    local = f"+{tag}" if tag else ""
    for p in plats:
        _wheel(folder, "torch", f"2.14.1{local}", PLATFORM_TAGS[p])
        _wheel(folder, "torchvision", f"0.29.1{local}", PLATFORM_TAGS[p], [f"torch==2.14.1"])
    return folder


@pytest.mark.skipif(shutil.which("uv") is None and not os.path.exists(os.path.join(os.path.dirname(sys.executable), "uv")),
                    reason="uv is not installed (pip install uv): the lock test needs it")
def test_uv_lock_resolves_the_fragment_to_the_advised_build(tmp_path):
    exe = shutil.which("uv") or os.path.join(os.path.dirname(sys.executable), "uv")
    rc, out, err = run("advise", "--uv", "--from-json", path("pascal_gtx1080_cu130"))
    assert rc == 0, err
    frag = fragment(out)
    tag = "cu126"
    assert f'"pytorch-{tag}"' in frag
    idx = tmp_path / "idx"
    # the advised build's index; the driver-only choice's (cu132) and PyPI's torch (its Linux wheel
    # is a CUDA 13 build) as decoys a wrong fragment would pick
    own = _index(str(idx), tag, ("linux", "windows"))
    _index(str(idx), "cu132", ("linux", "windows"))
    pypi = _index(str(idx), None, ("linux", "windows", "macos"))
    local = frag.replace(f'url = "https://download.pytorch.org/whl/{tag}"',
                         f'url = "{pathlib.Path(own).as_uri()}"\nformat = "flat"')
    assert local != frag
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["torch==2.14.1", "torchvision==0.29.*"]\n\n' + local
        + f'\n[[tool.uv.index]]\nname = "local-pypi"\nurl = "{pathlib.Path(pypi).as_uri()}"\nformat = "flat"\n'
        'default = true\n')
    # (not --no-config: it would drop the project's own [tool.uv] settings; no user uv.toml is read)
    env = dict(os.environ, UV_CACHE_DIR=str(tmp_path / "cache"), UV_PYTHON_DOWNLOADS="never",
               UV_PYTHON=sys.executable, UV_NO_PROGRESS="1", XDG_CONFIG_HOME=str(tmp_path / "config"))
    for k in ("UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_TORCH_BACKEND"):
        env.pop(k, None)
    res = subprocess.run([exe, "lock", "--offline"], cwd=proj, env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    lock = tomllib.loads((proj / "uv.lock").read_text())
    root = next(p for p in lock["package"] if p["name"] == "p")
    from packaging.markers import Marker
    got = {}
    for t in ALL:
        hits = [d for d in root["dependencies"] if d["name"] == "torch"
                and Marker(d.get("marker", "python_version >= '0'")).evaluate(t.env())]
        assert len(hits) == 1, (t.name, root["dependencies"])
        got[t.name] = hits[0].get("version")
    assert got == {"linux": "2.14.1+cu126", "windows": "2.14.1+cu126", "macos": "2.14.1"}, got
    torch_pkgs = {p["version"]: json.dumps(p["source"]) for p in lock["package"] if p["name"] == "torch"}
    assert re.search(r"cu126", torch_pkgs["2.14.1+cu126"]) and "2.14.1+cu132" not in torch_pkgs
