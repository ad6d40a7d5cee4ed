"""The recorded conda snapshots (machines we do not have) give exactly the expected findings.  Their
conda sections were produced by the conda probe on prefixes with real conda-meta record shapes,
with the paths replaced by /home/user/... and C:\\Users\\user\\..."""

from __future__ import annotations

import json

import pytest

from torch_envcheck.doctor.rules import evaluate

from _rules_helpers import by_code, codes, load

EXPECTED = {
    # Windows 10, conda env tf-gpu (cudatoolkit 11.2 + cudnn 8.1 from conda-forge, pip's tensorflow 2.6), the
    # CUDA 11.0 toolkit's bin first on PATH; torch is not installed in this env
    "conda_windows10_tf26_cuda110_on_path": [
        ("TE103", "failure"), ("TE201", "failure"), ("TE908", "failure")],
    # Linux, conda's pytorch 2.3 + pytorch-cuda 12.1 from -c pytorch -c nvidia, RTX 4090, driver 550 (CUDA 12.4)
    "conda_linux_pytorch23_cu121_healthy": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE400", "ok"), ("TE500", "ok"), ("TE601", "warning"),
        ("TE703", "warning"), ("TE900", "ok")],
    # the same env after `pip install torch` (2.3.1 from PyPI, with its nvidia-* wheels)
    "conda_linux_pytorch23_pip_torch_over": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE400", "ok"), ("TE500", "ok"), ("TE601", "warning"),
        ("TE703", "warning"), ("TE903", "warning"), ("TE905", "warning")],
    # conda's pytorch 2.3 with cpuonly on the RTX 4090 machine
    "conda_linux_cpuonly_on_gpu": [
        ("TE100", "ok"), ("TE202", "failure"), ("TE300", "ok"), ("TE600", "ok"), ("TE703", "warning"),
        ("TE901", "failure")],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_conda_snapshot_findings(name):
    assert codes(evaluate(load(name))) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_conda_snapshots_carry_no_local_paths(name):
    text = json.dumps(load(name))
    for bad in ("/work/", "/tmp/", "/root/"):
        assert bad not in text


def test_windows_snapshot_names_the_toolkit_and_the_env():
    f = by_code(evaluate(load("conda_windows10_tf26_cuda110_on_path")), "TE908")[0]
    assert "CUDA 11.0 toolkit in C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin" in f["message"]
    assert "conda's cudatoolkit 11.2" in f["message"]


def test_pip_over_conda_snapshot_says_which_torch_imports():
    f = by_code(evaluate(load("conda_linux_pytorch23_pip_torch_over")), "TE903")[0]
    assert "Python imports pip's torch 2.3.1" in f["message"] and f["explains"] == ["TE905"]


def test_cpuonly_snapshot_explains_the_torch_finding():
    found = evaluate(load("conda_linux_cpuonly_on_gpu"))
    f = by_code(found, "TE901")[0]
    assert f["explains"] == ["TE202"] and by_code(found, "TE202")
    assert "conda install pytorch==2.3.0 torchvision pytorch-cuda=12.1 -c pytorch -c nvidia" in f["fix"]
