"""conda-forge in the conda advice: `advise` in a conda env and `advise --conda` for a new one write
conda-forge's pytorch (build string with its CUDA, cuda-version) in the user's shell's quoting
(sh, cmd.exe, PowerShell, or lines valid in both on Windows when the shell is unknown), on the
recorded Windows conda env and on the recorded GTX 1080 machine.  (Kepler and the other archs no
conda-forge build carries: tests/unit/knowledge/test_conda_forge.py.)"""

from __future__ import annotations

import copy

import pytest

from _rules_helpers import load, snapshot_path as _snap_path
from doctor_support import run_inprocess
from torch_envcheck.advice.conda import conda_form
from torch_envcheck.advice.recommend import advise

WIN = "conda_win11_pytorch23_cuda124_first_on_path"


def _win(shell: str | None) -> dict:
    # the recorded Windows 11 env (RTX 3060 Ti, 8.6; driver 561.09, CUDA 12.6) without its pytorch: conda-forge's newest
    s = copy.deepcopy(load(WIN))
    s["conda"]["packages"] = [p for p in s["conda"]["packages"] if p["name"] != "pytorch"]
    if shell:
        s.setdefault("request", {})["shell"] = shell
    return s


@pytest.mark.parametrize("shell, install", [
    (None, 'conda install -c conda-forge "pytorch=2.13.*=cuda128*" torchvision cuda-version=12.8'),
    ("cmd", 'conda install -c conda-forge "pytorch=2.13.*=cuda128*" torchvision cuda-version=12.8'),
    ("powershell", "conda install -c conda-forge 'pytorch=2.13.*=cuda128*' torchvision cuda-version=12.8"),
])
def test_windows_conda_form_is_quoted_for_the_shell(shell, install):
    s = _win(shell)
    why, cmd = conda_form(s, *advise(s))
    # win-64 has CUDA 12.8 and 13.0 builds (never 12.9); this driver (CUDA 12.6) runs 12.8 through
    # minor-version compatibility, not 13.0
    assert cmd.splitlines() == ["conda remove --force torchvision pytorch-cuda pytorch-mutex", install], cmd
    assert any("win-64" in w and "sm_86" in w for w in why)


def test_advise_conda_makes_a_conda_forge_env_in_the_shells_quoting(tmp_path):
    import json
    s = _win(None)
    s["conda"] = {}  # a machine outside any conda env: `advise --conda` makes a new one
    s["platform"]["python"]["conda_env"] = None
    path = tmp_path / "win.json"
    path.write_text(json.dumps(s))
    for shell, spec in (("cmd", '"pytorch=2.13.*=cuda128*"'), ("powershell", "'pytorch=2.13.*=cuda128*'")):
        rc, out, err = run_inprocess(["advise", "--conda", "--shell", shell, "--from-json", str(path)])
        assert rc == 0, err
        lines = [ln for ln in out.splitlines() if not ln.startswith("#")]
        assert lines == [f"conda create -y -n torch -c conda-forge python=3.11 {spec} torchvision cuda-version=12.8",
                         "conda activate torch"], out
        assert "pytorch/pytorch#138506" in out


def test_gtx_1080_gets_the_conda_forge_build_with_its_arch():
    # the recorded GTX 1080 (6.1) on a CUDA 13.0 driver: conda-forge's CUDA 13.0 build starts at 7.5, the
    # 12.9 build carries sm_60 (which runs on 6.1): advise --conda takes 12.9, never the driver's newest
    rc, out, err = run_inprocess(["advise", "--conda", "--from-json", _snap_path("pascal_gtx1080_cu130")])
    assert rc == 0, err
    assert "conda create -y -n torch -c conda-forge python=3.12 'pytorch=2.13.*=cuda129*' torchvision " \
           "cuda-version=12.9" in out.splitlines()
    assert "sm_60" in out


def test_advise_conda_takes_an_asked_release_from_conda_forge_or_keeps_pip():
    # --torch 2.7: conda-forge's 2.7 (2.7.1, CUDA 12.9 on linux-64)
    rc, out, _err = run_inprocess(["advise", "--conda", "--torch", "2.7", "--from-json",
                                   _snap_path("pascal_gtx1080_cu130")])
    assert rc == 0 and "cuda-version=12.9" in out and "'pytorch=2.7.*=cuda129*'" in out
    rc, out, _err = run_inprocess(["advise", "--conda", "--torch", "2.14", "--from-json",
                                   _snap_path("pascal_gtx1080_cu130")])
    # --torch 2.14: conda-forge has no 2.14 in the tables, so the pip plan in a new conda env
    assert rc == 0 and "conda-forge" not in out and "pip install" in out
