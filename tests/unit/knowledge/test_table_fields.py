"""The audited tables' new fields are read (docs/knowledge-audit.md "new fields for the
reader"): builds[].platforms, releases[].torchaudio, cudnn_min_capability_by_version, driver rows
whose Windows minimum is null, builds without an arch list."""

from __future__ import annotations

import pytest

from torch_envcheck import knowledge as kb


def test_a_build_is_offered_only_where_it_exists():
    b215 = next(b for b in kb.release("2.15")["builds"] if b["tag"] == "cu132")
    assert b215["platforms"] == ["linux_x86_64", "linux_aarch64"]
    assert kb.build_on_platform(b215, "Linux", "x86_64") and kb.build_on_platform(b215, "Linux", "aarch64")
    assert kb.build_on_platform(b215, "Linux", None)
    assert not kb.build_on_platform(b215, "Windows", "AMD64")
    # rows without 'platforms' exist on Linux and Windows, as before
    assert kb.build_on_platform(kb.release("2.14")["builds"][0], "Windows", "AMD64")


def test_windows_never_gets_the_linux_only_215_build():
    # A Windows machine whose driver runs CUDA 13.2 (floor 580): 2.15 cu132 exists for Linux only.
    pick = kb.latest_release_for(driver_cuda="13.2", capability="8.9", os_name="Windows", python_version="3.12",
                                 driver_version="596.10", machine="AMD64")
    assert pick is not None and pick["torch"] != "2.15"
    linux = kb.latest_release_for(driver_cuda="13.2", capability="8.9", os_name="Linux", python_version="3.12",
                                  driver_version="596.10", machine="x86_64")
    assert (linux["torch"], linux["tag"]) == ("2.15", "cu132")
    assert all(r["torch"] != "2.15" for r in kb.releases_supporting("8.9", "Windows", "AMD64"))


def test_torchaudio_pairs_per_release():
    assert kb.torchaudio_for("2.15.0") == "2.11"          # torchaudio 2.11.1 was published with torch 2.15
    assert kb.torchaudio_for("2.14.1") is None            # no torchaudio release pins 2.12-2.14
    assert kb.torchaudio_for("2.12") is None
    assert kb.torchaudio_for("2.10") == "2.10"            # 2.N with 2.N up to 2.10
    assert kb.torchaudio_for("2.3") == "2.3"              # rows without the field keep the old rule
    assert kb.torchaudio_for("9.9") is None


@pytest.mark.parametrize("cudnn,cap,ok", [
    ("9.10.2.21", "6.1", True),     # cuDNN 9.0-9.10: compute capability 5.0 and newer
    ("9.11.0.98", "7.0", False),    # 9.11 dropped everything below 7.5 (cudnn_wheels)
    ("9.26.0.51", "7.5", True),
    ("9.17", "6.1", False),
    ("8.9.2", "3.7", True),
    ("8.9.2", "3.0", False),
])
def test_cudnn_minimum_by_version(cudnn, cap, ok):
    assert kb.cudnn_supports(cudnn, cap) is ok


def test_cudnn_minimum_values():
    assert kb.cudnn_min_capability("9.10.2") == "5.0"
    assert kb.cudnn_min_capability("9.11.0") == "7.5"
    assert kb.cudnn_min_capability("9") == "5.0"        # a bare major: its first row
    assert kb.cudnn_min_capability("8.7.0") == "3.5"


def test_builds_whose_cudnn_drops_the_gpu_are_not_recommended():
    # A Volta (7.0) on driver 580: 2.14 cu130/cu132 pin cuDNN 9.24 (>= 7.5 only, and no sm_70), cu126
    # pins 9.10.2.21 (>= 5.0) with sm_70: the pick is cu126.
    pick = kb.latest_release_for(driver_cuda="13.0", capability="7.0", os_name="Linux", python_version="3.12",
                                 driver_version="580.95.05", machine="x86_64")
    assert (pick["torch"], pick["tag"]) == ("2.14", "cu126")


def test_a_null_windows_minimum_is_unknown_not_zero():
    need = kb.min_driver_for_cuda("13.2", "Windows")
    assert need["toolkit_minimum"] is None and need["compat_floor"] == "580" and need["unverified"]
    # 13.2 on Windows: above the CUDA 13 floor only minor-version compatibility is claimed
    assert kb.driver_runs("13.2", "590.00", None, "Windows") == "compat"
    assert kb.driver_runs("13.2", "575.00", None, "Windows") == "no"
    assert kb.driver_runs("13.2", "595.45.04", None, "Linux") == "toolkit"


def test_a_build_without_arch_list_is_unknown_not_an_error():
    assert kb.build_arch_list({"tag": "cu134", "arch_list": None}) is None
    assert kb.build_arch_list({"tag": "cu134"}, "Linux", "aarch64") is None


def test_release_215_row():
    r = kb.release("2.15.0+cu132")
    assert kb.python_range("2.15") == ("3.11", "3.15")
    assert r["torchvision"] == "0.29" and r["builds_complete"] is False
    assert r["pypi"] == {"linux_x86_64": "cu132", "linux_aarch64": "cu132", "win_amd64": "cpu", "macos_arm64": "cpu"}
