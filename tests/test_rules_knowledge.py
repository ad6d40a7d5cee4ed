"""The knowledge tables load, carry their sources, and answer the questions the rules ask."""

from __future__ import annotations

import pytest

from torch_envcheck.doctor import knowledge as kb


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


def test_driver_supports():
    assert kb.driver_supports("580.95.05", "13.0") == "toolkit"
    assert kb.driver_supports("535.183.01", "12.6") == "compat"
    assert kb.driver_supports("535.183.01", "13.0") == "no"
    # 13.2's own driver is not in the table: never claim more than the compatibility floor
    assert kb.driver_supports("590.10", "13.2") == "compat"
    assert kb.driver_supports(None, "13.0") is None


def test_arch_lists_and_capability_match():
    # the real 2.14.1+cu130 wheel ships no PTX (torch._C._cuda_getArchFlags()); 2.13's row keeps the matrix's +PTX
    assert kb.wheel_arch_list("2.14.1", "cu130") == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert kb.wheel_arch_list("2.13.0", "cu130")[-1] == "compute_120"
    assert "compute_120" not in kb.wheel_arch_list("2.13.0", "cu130", "Windows")  # PTX on Linux builds only
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
    assert kb.latest_release_for(driver_version="581.57", capability="8.9", os_name="Windows")["tag"] == "cu130"
    assert kb.latest_release_for(capability="3.5") is None  # Kepler: nothing in the tables


def test_python_range():
    assert kb.python_range("2.14.1+cu130") == ("3.10", "3.15")
    assert kb.python_range("2.2.0") == ("3.8", "3.12")  # 3.12 wheels were published as experimental
    assert kb.python_supported("2.4", "3.13.0") is False
    assert kb.python_range("9.9") is None


def test_pip_command():
    cmd = kb.pip_install_command("/opt/my env/bin/python", "2.14.1", "cu126", ["torchvision", "torchaudio"])
    assert cmd == ('"/opt/my env/bin/python" -m pip install --force-reinstall "torch==2.14.1" '
                   '"torchvision==0.29.*" "torchaudio==2.14.*" --index-url https://download.pytorch.org/whl/cu126')
    assert kb.cuda_from_tag("cu118") == "11.8" and kb.tag_from_cuda("13.0") == "cu130" and kb.local_tag("0.29.1+cu130") == "cu130"


def test_broken_table_gives_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "bad.json").write_text("{not json")
    monkeypatch.setattr(kb, "DATA_DIR", str(tmp_path))
    with pytest.raises(kb.KnowledgeError, match="bad.json"):
        kb.load_table("bad.json")


def test_readme_lists_every_code():
    import os
    from torch_envcheck.doctor.codes import CODES
    doc = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md"),
               encoding="utf-8").read()
    for code, (slug, _area, _title) in CODES.items():
        assert f"| {code} | `{slug}` |" in doc, code


def test_aarch64_wheels_use_their_own_arch_lists():
    assert kb.wheel_arch_list("2.14", "cu130", "Linux", "aarch64") == [
        "sm_80", "sm_90", "sm_100", "sm_110", "sm_120", "compute_120"]
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
