"""The knowledge tables load, carry their sources, and answer the questions the rules ask."""

from __future__ import annotations

import pytest

from paths import REPO
from torch_envcheck import knowledge as kb
from torch_envcheck.advice import pip_commands


@pytest.mark.parametrize("name", [kb.DRIVERS_FILE, kb.RELEASES_FILE])
def test_tables_are_versioned_and_sourced(name):
    t = kb.load_table(name)
    assert isinstance(t["schema_version"], int) and t["updated"]
    rows = t.get("compat_floors", []) + t.get("toolkit_minimums", []) + t.get("releases", [])
    rows += [b for r in t.get("releases", []) for b in r["builds"]]
    assert rows
    for row in rows:
        src = row.get("source") or row.get("arch_source")
        assert src in t["sources"], row
        assert isinstance(row.get("unverified"), bool), row


def test_releases_cover_2_0_to_2_14():
    have = [r["torch"] for r in kb.releases()]
    for minor in range(0, 15):
        assert f"2.{minor}" in have
    assert have == sorted(have, key=kb.version_tuple)


def test_min_driver():
    assert kb.min_driver_for_cuda("13.0", "Linux")["toolkit_minimum"] == "580.65.06"
    assert kb.min_driver_for_cuda("13.0", "Windows")["toolkit_minimum"] == "580.88"
    assert kb.min_driver_for_cuda("12.6", "Linux")["compat_floor"] == "525.60.13"
    assert kb.min_driver_for_cuda("12.6", "Windows")["compat_floor"] == "528.33"
    assert kb.min_driver_for_cuda("nonsense") is None


def test_driver_runs():
    assert kb.driver_runs("13.0", "580.95.05") == "toolkit"
    assert kb.driver_runs("12.6", "535.183.01") == "compat"
    assert kb.driver_runs("13.0", "535.183.01") == "no"
    # 13.2's own driver is not in the table: never claim more than the compatibility floor
    assert kb.driver_runs("13.2", "590.10") == "compat"
    assert kb.driver_runs("13.0", None) is None
    # without a driver version (or one the tables cannot judge) the driver's own CUDA answers
    assert kb.driver_runs("12.6", None, "12.8") == "toolkit" and kb.driver_runs("12.6", None, "12.4") == "compat"
    assert kb.driver_runs("13.0", None, "12.9") == "no" and kb.driver_runs("13.0", "junk", "13.0") == "toolkit"
    # a driver whose own CUDA is older is never "toolkit", whatever its version's table row says
    assert kb.driver_runs("13.0", "580.95.05", "12.9") == "compat"


def test_arch_lists_and_capability_match():
    # the published 2.13.0 and 2.14.1 cu130 wheels ship no PTX (their libtorch_cuda.so, docs/knowledge-audit.md);
    # 2.12's cu132 row keeps the release matrix's +PTX (no wheel of it could be read)
    assert kb.wheel_arch_list("2.14.1", "cu130") == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert "compute_120" not in kb.wheel_arch_list("2.13.0", "cu130")
    assert kb.wheel_arch_list("2.12.0", "cu132")[-1] == "compute_120"
    assert "compute_120" not in kb.wheel_arch_list("2.12.0", "cu132", "Windows")  # PTX on Linux builds only
    assert kb.wheel_arch_list("2.14", "cu999") is None
    assert kb.capability_match("8.9", ["sm_80", "sm_86"])["entry"] == "sm_86"
    assert kb.capability_match("8.0", ["sm_86"])["ok"] is False
    assert kb.capability_match("12.1", ["sm_90", "compute_90"]) ["via"] == "ptx"
    assert kb.capability_match("8.9", ["compute_90"])["ok"] is False  # PTX runs only on >= its capability
    assert kb.capability_match("9.0", ["sm_90a"])["ok"] is True and kb.capability_match("10.0", ["sm_90a"])["ok"] is False
    assert kb.capability_match(None, ["sm_90"])["ok"] is None


def test_releases_supporting_and_latest_release_for():
    pascal = kb.releases_supporting("6.1")
    assert pascal[0]["torch"] == "2.14" and pascal[0]["tag"] == "cu126"
    assert all(b["tag"] != "cu130" for b in pascal)
    best = kb.latest_release_for(driver_cuda="12.9", capability="12.0", python_version="3.11")
    assert (best["torch"], best["tag"]) == ("2.11", "cu128")
    # 581.57 meets CUDA 13.0's Windows driver (580.88): the cu130 build, not only minor-version compatibility
    # (2.14: the newest release whose Windows CUDA builds are documented; 2.15's cu132 was seen for Linux only)
    win = kb.latest_release_for(driver_version="581.57", capability="8.9", os_name="Windows", torch_release="2.14")
    assert (win["tag"], win["driver_support"]) == ("cu130", "toolkit")
    assert kb.latest_release_for(capability="3.5") is None  # Kepler: nothing in the tables


def test_python_range():
    assert kb.python_range("2.14.1+cu130") == ("3.10", "3.15")
    assert kb.python_range("2.2.0") == ("3.8", "3.12")  # 3.12 wheels were published as experimental
    assert kb.python_supported("2.4", "3.13.0") is False
    assert kb.python_range("9.9") is None


def test_pip_command():
    # No torchaudio release pins torch 2.12-2.14 (torchaudio_pypi): torchaudio is left to pip's resolver,
    # never pinned to a torchaudio 2.14 that does not exist.
    cmd = pip_commands.pip_install_command("/opt/my env/bin/python", "2.14.1", "cu126", ["torchvision", "torchaudio"])
    assert cmd == ('"/opt/my env/bin/python" -m pip install --force-reinstall torch==2.14.1 '
                   "'torchvision==0.29.*' torchaudio --index-url https://download.pytorch.org/whl/cu126")
    # torch 2.15 pairs with torchaudio 2.11 (2.11.1 was published with it); up to 2.10, 2.N with 2.N.
    assert "'torchaudio==2.11.*'" in pip_commands.pip_install_command("python", "2.15.0", "cu132", ["torchaudio"])
    assert "'torchaudio==2.10.*'" in pip_commands.pip_install_command("python", "2.10", "cu128", ["torchaudio"])
    assert "'torchaudio==2.3.*'" in pip_commands.pip_install_command("python", "2.3", "cu121", ["torchaudio"])
    assert kb.cuda_from_tag("cu118") == "11.8" and kb.tag_from_cuda("13.0") == "cu130" and kb.local_tag("0.29.1+cu130") == "cu130"


def test_broken_table_gives_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{not json")
    monkeypatch.setattr(kb, "DATA_DIR", str(tmp_path))
    with pytest.raises(kb.KnowledgeError, match="bad.json"):
        kb.load_table("bad.json")


def test_aarch64_wheels_use_their_own_arch_lists():
    # the published 2.14 cu130 aarch64 wheel: SASS for 8.0-12.0 and no PTX (its libtorch_cuda.so)
    assert kb.wheel_arch_list("2.14", "cu130", "Linux", "aarch64") == [
        "sm_80", "sm_90", "sm_100", "sm_110", "sm_120"]
    assert kb.wheel_arch_list("2.8", "cu128", "Linux", "aarch64") is None  # not in the tables: unknown
    # a T4 (7.5) on an aarch64 server: the x86_64 cu130 list would cover it, the aarch64 one does not
    assert kb.latest_release_for(capability="7.5", machine="aarch64") is None
    assert kb.latest_release_for(capability="9.0", machine="aarch64")["tag"] == "cu132"


def test_rules_import_neither_torch_nor_optional_extras():
    import subprocess
    import sys
    code = ("import sys, json; from torch_envcheck.doctor.rules import evaluate; evaluate({}); "
            "print(json.dumps([m for m in ('torch', 'packaging', 'rich', 'pynvml') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ torch's capability table, Jetson, cuDNN


def test_sass_follows_torchs_device_requirement_table():
    # discrete-GPU code does not run on the Jetson GPUs of the same major (DEVICE_REQUIREMENT)
    assert kb.sass_runs_on("8.0", "8.6") and kb.sass_runs_on("8.0", "8.9")
    assert not kb.sass_runs_on("8.0", "8.7") and not kb.sass_runs_on("8.6", "8.7")
    assert kb.sass_runs_on("8.7", "8.7") and not kb.sass_runs_on("8.7", "8.9")
    assert not kb.sass_runs_on("7.0", "7.2") and not kb.sass_runs_on("5.0", "5.3") and not kb.sass_runs_on("6.0", "6.2")
    # 10.1 was renamed 11.0: code for either runs on both, and sm_100 code not on them
    assert kb.sass_runs_on("11.0", "10.1") and kb.sass_runs_on("10.1", "11.0") and not kb.sass_runs_on("10.0", "10.1")
    # from CUDA 13.2 on, server aarch64 (SBSA) binaries also run on Jetson
    assert kb.sass_runs_on("8.0", "8.7", build_cuda="13.2") and not kb.sass_runs_on("8.0", "8.7", build_cuda="13.0")
    assert kb.capability_match("8.7", ["sm_80", "sm_90"], "12.6")["ok"] is False
    assert kb.capability_match("8.7", ["sm_80", "sm_90"], "13.2")["entry"] == "sm_80"
    # an unknown code gets the same-major interval, as in torch
    assert kb.sass_runs_on("9.9", "9.9") and not kb.sass_runs_on("9.9", "9.8")


def test_tegra_and_cudnn_tables():
    assert all(kb.is_tegra(c) for c in ("5.3", "6.2", "7.2", "8.7", "10.1", "11.0"))
    assert not any(kb.is_tegra(c) for c in ("8.0", "8.6", "9.0", "12.0", None, "junk"))
    assert kb.cudnn_supports("9.1.0.70", "3.7") is False and kb.cudnn_supports("8.7.0.84", "3.7") is True
    assert kb.cudnn_supports("9.10.2.21", "5.0") is True and kb.cudnn_supports(None, "3.7") is None
    # Kepler: only cuDNN 8 builds are recommended
    best = kb.latest_release_for(capability="3.7", python_version="3.10")
    assert best["torch"] == "2.3" and best["tag"] == "cu118"


def test_min_driver_any_build():
    low = kb.min_driver_any_build("Linux")
    assert low["driver"] == "450.80.02" and low["cuda"].startswith("11.")
    assert kb.min_driver_any_build("Windows")["driver"] == "452.39"


def test_capability_table_matches_the_installed_torch():
    """cuda_capabilities.json copies torch's DEVICE_REQUIREMENT: compare with the running torch's own."""
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.14."):
        # the table was copied from the 2.14.1 revision; older torches have older tables (2.13: no 10.1/11.0 rename)
        pytest.skip(f"the table is torch 2.14's; this is torch {torch.__version__}")
    table = getattr(torch.cuda, "DEVICE_REQUIREMENT", None)
    assert table, "torch 2.14 has DEVICE_REQUIREMENT in torch/cuda/__init__.py"
    for code, req in table.items():
        c = f"{code // 10}.{code % 10}"
        for dev in range(30, 130):
            d = f"{dev // 10}.{dev % 10}"
            assert kb.sass_runs_on(c, d) == (dev in req), (c, d)


def test_2_14_cu130_row_is_the_binarys_arch_list():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.14.") or torch.version.cuda != "13.0":
        pytest.skip("needs the torch 2.14 cu130 wheel")
    flags = torch._C._cuda_getArchFlags().split()
    assert kb.wheel_arch_list(torch.__version__, "cu130", "Linux", "x86_64") == flags


def test_platform_probe_detects_jetson():
    from torch_envcheck.doctor.probes import platform as pp
    files = {pp.TEGRA_RELEASE: "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64\n",
             pp.DEVICE_TREE_MODEL: "NVIDIA Jetson AGX Orin Developer Kit\x00"}
    got = pp.detect_jetson(lambda path, limit=0: files.get(path))
    assert got == {"model": "NVIDIA Jetson AGX Orin Developer Kit", "l4t": "R36 (release), REVISION: 4.3"}
    assert pp.detect_jetson(lambda path, limit=0: None) is None
