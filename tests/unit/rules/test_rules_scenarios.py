"""The recorded scenario set (issue 8): machines the doctor must judge right.  Each snapshot names the
findings that must fire, the ones that must stay silent (the contradictions and symptoms the issue
reports), the cause each symptom is explained by, and a piece of the fix that must be offered."""

from __future__ import annotations

import json
import os
import re

import pytest

from torch_envcheck.doctor.codes import CODES
from torch_envcheck.doctor.rules import AREAS, evaluate

from _rules_helpers import SNAP_DIR, by_code, load

# name: (must fire {code: severity}, must stay silent [codes], {code: fix substring}, {cause: [explained codes]})
SCENARIOS = {
    # 1. contradictions: a fact that proves CUDA works outranks the driver table
    "dgx_h100_container_forward_compat": (
        {"TE305": "ok", "TE205": "ok", "TE400": "ok"}, ["TE302", "TE303", "TE307", "TE301", "TE401"], {}, {}),
    "dgx_h100_container_driver_535_no_compat": (
        {"TE302": "failure"}, ["TE305", "TE303", "TE307", "TE205"], {"TE302": "/whl/cu126"}, {}),
    # 2. symptoms vs causes: CUDA_VISIBLE_DEVICES
    "a100_cuda_visible_devices_minus_one": (
        {"TE403": "failure", "TE303": "failure"}, ["TE301", "TE302", "TE205"], {"TE403": "export CUDA_VISIBLE_DEVICES=0"},
        {"TE403": ["TE303"]}),
    "a100x4_cuda_visible_devices_past_count": (
        {"TE403": "failure"}, ["TE301", "TE302"], {"TE403": "CUDA_VISIBLE_DEVICES=0,1,2,3"}, {"TE403": ["TE303"]}),
    "l40s_cuda_visible_devices_uuid_of_another_machine": (
        {"TE403": "failure"}, ["TE301", "TE302"], {"TE403": "export CUDA_VISIBLE_DEVICES=0"}, {"TE403": ["TE303"]}),
    "a100x4_cuda_visible_devices_valid_subset": (
        {"TE205": "ok", "TE400": "ok"}, ["TE403", "TE402", "TE303"], {}, {}),
    # 2. symptoms vs causes: a folder on LD_LIBRARY_PATH breaks `import torch`
    "ld_library_path_cuda121_breaks_import_torch": (
        {"TE505": "failure", "TE201": "failure"}, ["TE501"], {"TE505": "export LD_LIBRARY_PATH=/opt/intel/oneapi/lib",
                                                             "TE201": "export LD_LIBRARY_PATH=/opt/intel/oneapi/lib"},
        {"TE505": ["TE201"]}),
    "import_torch_broken_partial_upgrade": (
        {"TE201": "failure"}, ["TE505"], {"TE201": "--force-reinstall"}, {}),
    "h100_ld_library_path_same_cuda_imports_fine": (
        {"TE500": "ok", "TE205": "ok"}, ["TE505", "TE501", "TE201"], {}, {}),
    # 3. Jetson: sm_80 code does not cover Orin/Xavier; the PyTorch index's aarch64 wheel is not for Jetson
    "jetson_agx_orin_pytorch_index_aarch64_wheel": (
        {"TE405": "failure"}, ["TE401", "TE400"], {"TE405": "install-pytorch-jetson-platform"}, {"TE405": ["TE401"]}),
    "jetson_orin_nano_cu130_wheel_on_jetpack6": (
        {"TE405": "failure", "TE302": "failure"}, ["TE401", "TE400", "TE305"], {"TE405": "JetPack"},
        {"TE405": ["TE401", "TE302"]}),
    "jetson_agx_orin_jetpack_wheel": (
        {"TE400": "ok", "TE205": "ok"}, ["TE405", "TE401"], {}, {}),
    "jetson_thor_pytorch_index_aarch64_wheel": (   # 11.0 (Thor, once 10.1) is in the aarch64 wheel's list
        {"TE400": "ok"}, ["TE405", "TE401"], {}, {}),
    "gh200_aarch64_cu130_healthy": (
        {"TE400": "ok", "TE300": "ok"}, ["TE405", "TE401"], {}, {}),
    # 3. a ROCm wheel on NVIDIA-only hardware is the CPU-wheel case
    "rocm_wheel_on_nvidia_rtx4090": (
        {"TE206": "failure"}, ["TE200"], {"TE206": "/whl/cu130"}, {}),
    "rocm_wheel_on_amd_mi300x": (
        {"TE200": "ok"}, ["TE206", "TE202"], {}, {}),
    # 3. an x86_64 Python under Rosetta has no MPS
    "macos_rosetta_x86_64_python": (
        {"TE105": "failure", "TE102": "warning"}, [], {"TE105": "arm64"}, {"TE105": ["TE102"]}),
    "macos_intel_x86_64": (
        {"TE102": "warning"}, ["TE105"], {}, {}),
    # 3. a driver older than every build needs a driver upgrade, not a torch that does not exist
    "v100_driver_418_older_than_every_build": (
        {"TE307": "failure"}, ["TE302", "TE305"], {"TE307": "nvidia-smi"}, {}),
    "t4_driver_470_cu130": (
        {"TE302": "failure"}, ["TE307", "TE305"], {"TE302": "/whl/cu118"}, {}),
    # 3. error 803 (driver/library version mismatch): reboot or reload the modules
    "h100_error_803_after_driver_upgrade": (
        {"TE306": "failure"}, ["TE301", "TE302", "TE307"], {"TE306": "modprobe"}, {"TE306": ["TE303"]}),
    "rtx4090_error_804_compat_on_geforce": (
        {"TE302": "failure"}, ["TE306", "TE305"], {"TE302": "/whl/cu126"}, {}),
    # 3. Kepler: cuDNN 9 (every wheel since 2.4) does not support compute capability < 5.0
    "kepler_k80_torch27_cu118_cudnn9": (
        {"TE406": "failure"}, ["TE400"], {"TE406": "'torch==2.3.*'"}, {}),
    "kepler_k40_torch214_cu126": (
        {"TE401": "failure"}, ["TE400"], {}, {}),
    "maxwell_m40_torch214_cu126": (
        {"TE400": "ok"}, ["TE401", "TE406"], {}, {}),
    # 5. the arch list comes from the binary; the tables only when the snapshot has none
    "h100_source_build_arch_86_only": (
        {"TE401": "failure"}, ["TE400"], {"TE401": "'torch==2.14.*'"}, {}),
    "pascal_1080ti_cu130_no_binary_arch_list": (
        {"TE401": "failure"}, ["TE400"], {"TE401": "/whl/cu126"}, {}),
}

# 4. missing torch facts: core's "could not judge" codes (TEx80-x89), not "torch is not installed"
COULD_NOT_JUDGE = ["torch_facts_null", "schema_line_only"]


def test_the_scenario_set_is_complete():
    names = set(SCENARIOS) | set(COULD_NOT_JUDGE)
    assert len(names) >= 25
    for name in names:
        assert os.path.exists(os.path.join(SNAP_DIR, name + ".json")), name


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_fires_and_stays_silent(name):
    fire, silent, fixes, explains = SCENARIOS[name]
    found = evaluate(load(name))
    got = {f["code"]: f for f in found}
    for code, sev in fire.items():
        assert code in got, f"{code} must fire: {[(f['code'], f['severity']) for f in found]}"
        assert got[code]["severity"] == sev, (code, got[code]["severity"])
    for code in silent:
        assert code not in got, f"{code} must stay silent: {got[code]['message'] if code in got else ''}"
    for code, piece in fixes.items():
        assert piece in (got[code]["fix"] or ""), (code, got[code]["fix"])
    for cause, symptoms in explains.items():
        assert got[cause].get("explains") == symptoms, (cause, got[cause].get("explains"))
        for sym in symptoms:
            assert sym in CODES


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_findings_follow_the_contract(name):
    found = evaluate(load(name))
    json.dumps(found)
    order = [AREAS.index(f["area"]) for f in found]
    assert order == sorted(order)
    for f in found:
        assert set(f) - {"explains"} == {"code", "slug", "area", "severity", "message", "explanation", "fix", "details"}
        assert f["message"] and "\n" not in f["message"]
        if f["severity"] != "ok":
            assert f["explanation"], f["code"]
        for code in f.get("explains", ()):
            assert code in CODES and code != f["code"]


def test_symptom_fixes_never_reinstall_torch_while_a_library_path_breaks_it():
    found = evaluate(load("ld_library_path_cuda121_breaks_import_torch"))
    assert all("--force-reinstall" not in (f["fix"] or "") for f in found)
    cause = by_code(found, "TE505")[0]
    assert "/usr/local/cuda-12.1/lib64" in cause["message"] and "nvjitlink 12.4" in cause["message"]


def test_forward_compat_is_never_called_too_old_and_no_reinstall_is_advised():
    found = evaluate(load("dgx_h100_container_forward_compat"))
    assert not [f for f in found if f["severity"] == "failure"]
    f = by_code(found, "TE305")[0]
    assert "/usr/local/cuda/compat/lib.real" in f["explanation"] and f["fix"] is None


def test_kepler_advice_names_cudnn_9():
    for name, code in (("kepler_k80_torch27_cu118_cudnn9", "TE406"), ("kepler_k40_torch214_cu126", "TE401")):
        f = by_code(evaluate(load(name)), code)[0]
        assert "cuDNN 9" in f["explanation"] and "2.4" in f["explanation"], name


def test_driver_older_than_every_build_offers_no_torch():
    f = by_code(evaluate(load("v100_driver_418_older_than_every_build")), "TE307")[0]
    assert "pip install" not in f["fix"] and "418.226.00" in f["message"] and "450.80.02" in f["message"]


def test_arch_list_source_is_named_when_it_comes_from_the_tables():
    assert "from the doctor's tables" in by_code(evaluate(load("pascal_1080ti_cu130_no_binary_arch_list")), "TE401")[0]["message"]
    assert "tables" not in by_code(evaluate(load("h100_source_build_arch_86_only")), "TE401")[0]["message"]


@pytest.mark.parametrize("name", COULD_NOT_JUDGE)
def test_missing_torch_facts_are_not_health(name):
    found = evaluate(load(name))
    assert not by_code(found, "TE203") and not by_code(found, "TE200"), "unknown must not read as health"
    assert [f for f in found if re.fullmatch(r"TE\d8\d", f["code"]) and f["severity"] != "ok"], \
        [(f["code"], f["severity"]) for f in found]


_MACHINE_PATH = re.compile(r"(?<![\w.-])/(?:work|tmp|root)(?:/|\b)")


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


@pytest.mark.parametrize("name", sorted(f[:-5] for f in os.listdir(SNAP_DIR) if f.endswith(".json")))
def test_recorded_snapshots_carry_no_development_machine_paths(name):
    bad = [s for s in _strings(load(name)) if _MACHINE_PATH.search(s)]
    assert not bad, f"{name} carries this machine's paths (anonymise as /home/user/...): {bad[:3]}"


def test_the_path_check_can_fail():
    assert _MACHINE_PATH.search("/work/venvs/cuda/bin/python") and _MACHINE_PATH.search("/tmp/x")
    assert _MACHINE_PATH.search("/root/.pyenv") and not _MACHINE_PATH.search("/home/user/venv/bin/python")
    assert not _MACHINE_PATH.search("/Library/Frameworks/Python.framework")
