"""The recorded snapshots (machines we do not have) and what the doctor must say about each: one
table, tests/data/scenarios.json, checked here for every snapshot (the exact findings, those that
must fire or stay silent, pieces of fixes and messages, what a cause explains, advise agreeing with
a fix line), then the few properties a table row cannot state."""

from __future__ import annotations

import json
import os
import re

import pytest

from torch_envcheck.advice.recommend import advise
from torch_envcheck.doctor.codes import CODES
from torch_envcheck.doctor.report import build, findings_for
from torch_envcheck.doctor.rules import AREAS, OPTIONAL_AREAS

from _rules_helpers import SNAPSHOT_NAMES, by_code, load
from paths import DATA

with open(os.path.join(DATA, "scenarios.json"), encoding="utf-8") as _fh:
    TABLE = {k: v for k, v in json.load(_fh).items() if not k.startswith("_")}
FIELDS = {"why", "findings", "area", "fire", "silent", "fix", "message", "explains", "advise"}
ORDER = AREAS + OPTIONAL_AREAS


def _pieces(value) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _codes(found, area=None) -> list[list[str]]:
    return [[f["code"], f["severity"]] for f in found if area is None or f["area"] == area]


def test_the_table_covers_every_recorded_snapshot():
    recorded = set(SNAPSHOT_NAMES)
    assert set(TABLE) == recorded, set(TABLE) ^ recorded
    for name, row in TABLE.items():
        assert set(row) <= FIELDS and row["why"].strip(), name
        assert set(row) - {"why", "area"}, f"{name} asserts nothing"
        codes = [c for c, _ in row.get("findings", ())] + list(row.get("fire", ())) + row.get("silent", []) \
            + list(row.get("fix", ())) + list(row.get("message", ())) + list(row.get("explains", ()))
        assert all(c in CODES for c in codes), name


@pytest.mark.parametrize("name", sorted(TABLE))
def test_scenario(name):
    row = TABLE[name]
    found = findings_for(load(name))
    got = {f["code"]: f for f in found}
    if "findings" in row:
        assert _codes(found, row.get("area")) == row["findings"]
    for code, sev in row.get("fire", {}).items():
        assert code in got, f"{code} must fire: {_codes(found)}"
        assert got[code]["severity"] == sev, (code, got[code]["severity"])
    for code in row.get("silent", ()):
        assert code not in got, f"{code} must stay silent: {got[code]['message'] if code in got else ''}"
    for field in ("fix", "message"):
        for code, pieces in row.get(field, {}).items():
            for piece in _pieces(pieces):
                assert piece in (got[code][field] or ""), (code, field, got[code][field])
    for cause, symptoms in row.get("explains", {}).items():
        assert got[cause].get("explains") == symptoms, (cause, got[cause].get("explains"))
    if "advise" in row:
        assert advise(load(name))[1] == got[row["advise"]]["fix"], "advise and the doctor's fix line agree"
    # no rule of any area crashed on it
    assert not [f for f in found if f["slug"].endswith("probe-failed")]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_findings_follow_the_contract(name):
    found = findings_for(load(name))
    json.dumps([f.to_dict() for f in found])  # serialisable
    order = [ORDER.index(f["area"]) for f in found]
    assert order == sorted(order), "findings come in report (area) order"
    for f in found:
        assert set(f) - {"explains", "explained_by"} == {"code", "slug", "area", "severity", "message", "explanation", "fix", "details"}
        assert CODES[f["code"]][0] == f["slug"] and CODES[f["code"]][1] == f["area"]
        assert f["message"] and "\n" not in f["message"]
        assert f["fix"] is None or isinstance(f["fix"], str) and f["fix"].strip()
        if f["severity"] != "ok":
            assert f["explanation"], f["code"]
        for code in f.get("explains", ()):
            assert code in CODES and code != f["code"]


# ---------------------------------------------------------------- what a table row cannot state

def test_fix_lines_run_this_interpreter_and_keep_the_release():
    f = by_code(findings_for(load("pascal_gtx1080_cu130")), "TE401")[0]
    assert f["fix"].startswith("/home/ana/venvs/train/bin/python -m pip install")
    # driver 575 runs CUDA <= 12.9 only: cu130/cu132 builds are excluded, the newest with sm_120 is cu128
    assert "cu13" not in by_code(findings_for(load("rtx5090_cu121")), "TE401")[0]["fix"]


def test_windows_cpu_wheel_fix_uses_the_driver_cuda_index():
    f = by_code(findings_for(load("windows_cpu_wheel_rtx4070")), "TE202")[0]
    assert "RTX 4070" in f["message"] and "581.57" in f["message"]
    assert "PyPI" in f["explanation"]
    # PowerShell: a plain path is a bare word (a quoted one would need the call operator `&`)
    assert f["fix"].startswith("C:\\Users\\kim\\proj\\.venv\\Scripts\\python.exe -m pip install")
    assert f["fix"].endswith("/whl/cu130")


def test_dev_machine_names_both_remedies_when_a_gpu_is_unknown():
    f = by_code(findings_for(load("devbox_cuda_wheel_no_driver")), "TE301")[0]
    assert "If this machine has an NVIDIA GPU" in f["explanation"]


def test_no_gpu_on_the_pci_bus_makes_a_cuda_torch_a_warning_about_disk_space():
    f = by_code(findings_for(load("devbox_probed_cuda_no_driver")), "TE301")[0]
    assert "no NVIDIA GPU" in f["message"] and "torch runs on the CPU" in f["message"]
    assert "several GB" in f["explanation"] and "If this machine has an NVIDIA GPU" not in f["explanation"]
    assert f["fix"].endswith("/whl/cpu") and not f["fix"].startswith("#")  # no "only if" hedge: we know
    assert f["details"]["pci_gpus"] == []


def test_gpu_on_the_pci_bus_without_driver_is_a_failure_naming_the_device():
    f = by_code(findings_for(load("docker_gpu_host_without_gpus_flag")), "TE301")[0]
    assert "0000:01:00.0" in f["message"] and "0x2684" in f["message"] and ">= 580" in f["message"]
    assert "--gpus all" in f["explanation"]  # the container case: map the host's driver in
    assert "whl/cpu" not in f["fix"], "a GPU machine must not be told to install the CPU wheel"
    assert "--gpus all" in f["fix"] and f["fix"].splitlines()[-1] == "nvidia-smi"
    s = load("docker_gpu_host_without_gpus_flag"); s["platform"].update(container=None, os_pretty="Ubuntu 24.04.1 LTS")
    f = by_code(findings_for(s), "TE301")[0]
    assert f["fix"].startswith("sudo ubuntu-drivers install") and "--gpus" not in f["explanation"]


def test_gpu_on_the_pci_bus_is_a_gpu_for_the_cpu_wheel_rule():
    f = by_code(findings_for(load("cpu_wheel_gpu_without_driver")), "TE202")[0]
    assert "0000:01:00.0" in f["message"] and "No NVIDIA driver is loaded either" in f["explanation"]
    # the same machine without the PCI device: the CPU wheel fits it
    s = load("cpu_wheel_gpu_without_driver"); s["driver"]["pci_gpus"] = []
    assert "no NVIDIA GPU" in by_code(findings_for(s), "TE203")[0]["message"]


def test_summary_is_worst_severity_per_area():
    s = build(load("pascal_gtx1080_cu130")).summary
    assert s["gpu"] == "failure" and s["driver"] == "ok" and s["platform"] == "ok"
    # every area the report shows, each "ok" on a healthy machine (conda: not a conda env, not shown)
    assert build(load("h100_cu130_healthy")).summary == {a: "ok" for a in AREAS}


def test_symptom_fixes_never_reinstall_torch_while_a_library_path_breaks_it():
    found = findings_for(load("ld_library_path_cuda121_breaks_import_torch"))
    assert all("--force-reinstall" not in (f["fix"] or "") for f in found)
    cause = by_code(found, "TE505")[0]
    assert "/usr/local/cuda-12.1/lib64" in cause["message"] and "nvjitlink 12.4" in cause["message"]


def test_forward_compat_is_never_called_too_old_and_no_reinstall_is_advised():
    found = findings_for(load("dgx_h100_container_forward_compat"))
    assert not [f for f in found if f["severity"] == "failure"]
    f = by_code(found, "TE305")[0]
    assert "/usr/local/cuda/compat/lib.real" in f["explanation"] and f["fix"] is None


def test_kepler_advice_names_cudnn_9():
    for name, code in (("kepler_k80_torch27_cu118_cudnn9", "TE406"), ("kepler_k40_torch214_cu126", "TE401")):
        f = by_code(findings_for(load(name)), code)[0]
        assert "cuDNN 9" in f["explanation"] and "2.4" in f["explanation"], name


def test_driver_older_than_every_build_offers_no_torch():
    f = by_code(findings_for(load("v100_driver_418_older_than_every_build")), "TE307")[0]
    assert "pip install" not in f["fix"] and "418.226.00" in f["message"] and "450.80.02" in f["message"]


def test_arch_list_source_is_named_when_it_comes_from_the_tables():
    assert "from the doctor's tables" in by_code(findings_for(load("pascal_1080ti_cu130_no_binary_arch_list")), "TE401")[0]["message"]
    assert "tables" not in by_code(findings_for(load("h100_source_build_arch_86_only")), "TE401")[0]["message"]


@pytest.mark.parametrize("name", ["torch_facts_null", "schema_line_only"])
def test_missing_torch_facts_are_not_health(name):
    found = findings_for(load(name))
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


@pytest.mark.parametrize("name", SNAPSHOT_NAMES)
def test_recorded_snapshots_carry_no_development_machine_paths(name):
    bad = [s for s in _strings(load(name)) if _MACHINE_PATH.search(s)]
    assert not bad, f"{name} carries this machine's paths (anonymise as /home/user/...): {bad[:3]}"


def test_the_path_check_can_fail():
    assert _MACHINE_PATH.search("/work/venvs/cuda/bin/python") and _MACHINE_PATH.search("/tmp/x")
    assert _MACHINE_PATH.search("/root/.pyenv") and not _MACHINE_PATH.search("/home/user/venv/bin/python")
    assert not _MACHINE_PATH.search("/Library/Frameworks/Python.framework")
