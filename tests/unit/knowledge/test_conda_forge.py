"""conda-forge's pytorch builds (conda_cuda.json conda_forge_pytorch, read from the pytorch-cpu
feedstock's recipe): every row cites its source, the arch lists exclude what the recipe does not
build, and the search offers only a build that exists for the platform, carries the GPU's arch, runs
on the driver and serves the Python, never older than the installed torch."""

from __future__ import annotations

import re

import pytest

from torch_envcheck import knowledge as kb
from torch_envcheck.knowledge import conda_forge as CF


def pick(**kw):
    args = {"os_name": "Linux", "machine": "x86_64", "driver_cuda": "13.0", "driver_version": "580.65.06",
            "python_version": "3.12"}
    args.update(kw)
    return CF.forge_pick(**args)


def test_every_row_cites_a_feedstock_commit_and_parses():
    table = kb.load_table("conda_cuda.json")
    sources = table["sources"]
    rows = CF.forge_releases()
    assert [r["pytorch"] for r in rows][:2] == ["2.13", "2.12"] and rows[-1]["pytorch"] == "2.5"
    for r in rows:
        src = sources[r["source"]]
        assert re.search(r"conda-forge/pytorch-cpu-feedstock at commit [0-9a-f]{40}", src), r
        assert r["version"].startswith(r["pytorch"] + ".")
        for b in r["builds"]:
            assert b["platforms"] and set(b["platforms"]) <= {"linux-64", "linux-aarch64", "win-64"}
            assert kb.parse_arch_list(b["arch_list"]) and kb.major_minor(b["cuda"]) >= (12, 6)
    sec = table["conda_forge_pytorch"]
    assert "pytorch-cpu-feedstock at commit 39b84c33" in sources[sec["first_win64_release_source"]]
    assert "__cuda >=X" in sources[sec["virtual_package_source"]]
    assert "138506" in sources["pytorch_conda_end"]


def test_the_cuda_13_builds_exclude_the_archs_they_do_not_build():
    row = CF.forge_release("2.13")
    b13 = next(b for b in row["builds"] if b["cuda"] == "13.0" and "linux-64" in b["platforms"])
    b129 = next(b for b in row["builds"] if b["cuda"] == "12.9")
    judge = dict(platform="linux-64", os_name="Linux", driver_cuda="13.0", python_version="3.12")
    # Pascal (6.1), Volta (7.0) and Maxwell (5.0) are not in CUDA 13.0's list (7.5 and up)...
    for cap in ("5.0", "6.1", "7.0"):
        j = CF.judge(row, b13, capability=cap, **judge)
        assert not j["ok"] and "no kernels" in j["why"], (cap, j)
        # ...but CUDA 12.9's list has them (sm_60 SASS runs on 6.1)
        assert CF.judge(row, b129, capability=cap, **judge)["ok"]
    assert CF.judge(row, b129, capability="6.1", **judge)["entry"] == "sm_60"
    # Kepler (3.7) is in no conda-forge build of the table
    assert pick(capability="3.7") is None and pick(capability="3.5", driver_cuda="12.9") is None
    # the GTX 10-series card on a 580 driver: CUDA 12.9, not the driver's newest 13.0
    assert pick(capability="6.1")["cuda"] == "12.9" and pick(capability="8.6")["cuda"] == "13.0"


def test_only_builds_that_exist_for_the_platform():
    # win-64 is built with CUDA 12.8 and 13.0 (never 12.9), linux-aarch64's 13.0 list adds Orin's 8.7 in 2.13
    assert pick(os_name="Windows", machine="AMD64", capability="6.1")["cuda"] == "12.8"
    assert pick(os_name="Windows", machine="AMD64", capability="8.9")["platform"] == "win-64"
    arm = pick(machine="aarch64", capability="9.0")
    assert arm["platform"] == "linux-aarch64" and "8.7" in arm["arch_list"]
    assert pick(os_name="Darwin", machine="arm64") is None  # no CUDA on macOS
    assert CF.subdir("Windows", "AMD64") == "win-64" and CF.subdir("Linux", "ppc64le") is None
    assert CF.first_windows_release() == "2.5"
    assert all("win-64" in {p for b in r["builds"] for p in b["platforms"]} for r in CF.forge_releases())


def test_ptx_counts_on_linux_only():
    # a GPU newer than every SASS in the list runs 12.0+PTX through the driver's JIT on Linux; the win-64
    # build's PTX was not checked, so nothing is offered there
    assert pick(capability="13.0")["via"] == "ptx"
    assert pick(os_name="Windows", machine="AMD64", capability="13.0") is None


@pytest.mark.parametrize("driver_cuda, driver_version, want", [
    ("11.8", "520.61.05", None),        # conda-forge's builds in the table are CUDA 12.6 and newer
    ("12.4", "550.54.14", "compat"),    # 12.9 through minor-version compatibility
    ("13.0", "580.65.06", "toolkit"),
])
def test_the_driver_decides_the_cuda(driver_cuda, driver_version, want):
    got = pick(capability="8.6", driver_cuda=driver_cuda, driver_version=driver_version)
    assert (got and got["driver_support"]) == want


def test_python_and_the_installed_torch_bound_the_release():
    assert pick(capability="8.6", python_version="3.9")["pytorch"] == "2.7"   # 3.9: up to 2.7.1
    assert pick(capability="8.6", python_version="3.15") is None
    assert pick(capability="8.6", not_below="2.14.1") is None                 # never a downgrade
    assert pick(capability="8.6", not_below="2.13.0")["pytorch"] == "2.13"
    assert pick(capability="8.6", torch_release="2.9")["version"] == "2.9.1"
    assert CF.build_spec(pick(capability="6.1")) == "pytorch=2.13.*=cuda129*"
    assert CF.cuda_version_spec(pick(capability="6.1")) == "cuda-version=12.9"


def test_a_missing_table_is_a_knowledge_error(monkeypatch):
    monkeypatch.setattr(CF, "load_table", lambda name: {"schema_version": 1})
    with pytest.raises(kb.KnowledgeError):
        CF.forge_releases()
