"""The recorded snapshots (machines we do not have) produce exactly the expected findings."""

from __future__ import annotations

import json

import pytest

from torch_envcheck.doctor.codes import CODES
from torch_envcheck.doctor.rules import AREAS, evaluate, summary

from _rules_helpers import by_code, codes, load

EXPECTED = {
    "h100_cu130_healthy": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE400", "ok"), ("TE500", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    "pascal_gtx1080_cu130": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE401", "failure"), ("TE500", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    "rtx5090_cu121": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE401", "failure"), ("TE500", "ok"), ("TE601", "warning"),
        ("TE703", "warning")],
    "old_driver_535_cu130": [
        ("TE100", "ok"), ("TE302", "failure"), ("TE400", "ok"), ("TE500", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    "wsl1_cu130": [("TE101", "failure"), ("TE500", "ok"), ("TE601", "warning"), ("TE703", "warning")],
    "macos_apple_silicon": [("TE102", "ok"), ("TE200", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    "windows_cpu_wheel_rtx4070": [
        ("TE100", "ok"), ("TE202", "failure"), ("TE300", "ok"), ("TE600", "ok"), ("TE703", "warning")],
    # hand-written, without driver.pci_gpus (a snapshot from before that fact): whether a GPU exists is unknown
    "devbox_cuda_wheel_no_driver": [
        ("TE100", "ok"), ("TE301", "warning"), ("TE500", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    "cpu_venv_no_gpu": [("TE100", "ok"), ("TE203", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    # Graviton (aarch64) + T4G 7.5: the aarch64 cu130 wheel's arch list starts at 8.0
    "aarch64_t4g_cu130": [
        ("TE100", "ok"), ("TE205", "ok"), ("TE300", "ok"), ("TE401", "failure"), ("TE500", "ok"), ("TE600", "ok"),
        ("TE700", "ok")],
    # WSL 2 with the Windows driver 527.41 (CUDA 12.0) and a cu130 torch
    "wsl2_rtx3070_windows_driver_527": [
        ("TE100", "ok"), ("TE302", "failure"), ("TE400", "ok"), ("TE500", "ok"), ("TE601", "warning"),
        ("TE703", "warning")],
    # recorded by the doctor-probes helper's collect() on the development machine (no GPU, no driver,
    # extension not built yet), with the CUDA venv and with the CPU venv
    # (its PCI bus holds no NVIDIA device: a CUDA torch there is a warning, not a failure)
    "devbox_probed_cuda_no_driver": [
        ("TE100", "ok"), ("TE301", "warning"), ("TE500", "ok"), ("TE600", "ok"), ("TE703", "warning")],
    "devbox_probed_cpu": [("TE100", "ok"), ("TE203", "ok"), ("TE600", "ok"), ("TE703", "warning")],
    # the same, with the extension built (its real build_info/runtime_info: no driver, handles fail)
    "devbox_probed_cuda_ext_built": [
        ("TE100", "ok"), ("TE301", "warning"), ("TE500", "ok"), ("TE600", "ok"), ("TE700", "ok")],
    # devbox_probed_cuda_no_driver with an RTX 4090 on the PCI bus: a GPU host's container started without --gpus
    "docker_gpu_host_without_gpus_flag": [
        ("TE100", "ok"), ("TE301", "failure"), ("TE500", "ok"), ("TE600", "ok"), ("TE703", "warning")],
    # devbox_probed_cpu outside a container, with an RTX 4090 on the PCI bus and no driver installed yet
    "cpu_wheel_gpu_without_driver": [("TE100", "ok"), ("TE202", "failure"), ("TE600", "ok"), ("TE703", "warning")],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_snapshot_findings(name):
    found = evaluate(load(name))
    assert codes(found) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_findings_follow_the_contract(name):
    found = evaluate(load(name))
    json.dumps(found)  # serialisable
    order = [AREAS.index(f["area"]) for f in found]
    assert order == sorted(order), "findings must come in report (area) order"
    for f in found:
        assert set(f) - {"explains"} == {"code", "slug", "area", "severity", "message", "explanation", "fix", "details"}
        assert CODES[f["code"]][0] == f["slug"] and CODES[f["code"]][1] == f["area"]
        assert f["message"] and "\n" not in f["message"]
        assert f["fix"] is None or isinstance(f["fix"], str) and f["fix"].strip()
        if f["severity"] != "ok":
            assert f["explanation"], f["code"]


def test_pascal_names_a_build_that_supports_it():
    f = by_code(evaluate(load("pascal_gtx1080_cu130")), "TE401")[0]
    assert "GTX 1080" in f["message"] and "6.1" in f["message"] and "too old" in f["message"]
    # cu126 ships sm_60 SASS, which runs on 6.1; the installed release 2.14 keeps its exact version
    assert f["fix"].endswith("--index-url https://download.pytorch.org/whl/cu126")
    assert " torch==2.14.1 " in f["fix"] and "'torchvision==0.29.*'" in f["fix"]
    assert f["fix"].startswith("/home/ana/venvs/train/bin/python -m pip install")


def test_blackwell_on_cu121_gets_a_cu128_build_the_driver_runs():
    f = by_code(evaluate(load("rtx5090_cu121")), "TE401")[0]
    assert "RTX 5090" in f["message"] and "too new" in f["message"] and "5.0-9.0" in f["message"]
    # driver 575 runs CUDA <= 12.9 only: cu130/cu132 builds are excluded, the newest with sm_120 is cu128
    assert "/whl/cu128" in f["fix"] and "cu13" not in f["fix"]


def test_old_driver_names_versions_and_a_build_for_it():
    f = by_code(evaluate(load("old_driver_535_cu130")), "TE302")[0]
    assert "535.183.01" in f["message"] and "13.0" in f["message"] and ">= 580" in f["message"]
    # 535 runs any CUDA 12.x build through minor-version compatibility: same release, cu126
    assert f["fix"].endswith("/whl/cu126") and " torch==2.14.1 " in f["fix"]
    assert not by_code(evaluate(load("old_driver_535_cu130")), "TE303"), "too-old driver is not a second failure"
    assert not by_code(evaluate(load("old_driver_535_cu130")), "TE503"), "handle failure is explained by the driver"


def test_windows_cpu_wheel_fix_uses_the_driver_cuda_index():
    f = by_code(evaluate(load("windows_cpu_wheel_rtx4070")), "TE202")[0]
    assert "RTX 4070" in f["message"] and "581.57" in f["message"]
    assert "PyPI" in f["explanation"]
    # PowerShell: a plain path is a bare word (a quoted one would need the call operator `&`)
    assert f["fix"].startswith("C:\\Users\\kim\\proj\\.venv\\Scripts\\python.exe -m pip install")
    assert f["fix"].endswith("/whl/cu130")


def test_dev_machine_names_the_missing_driver_and_invents_no_gpu_problem():
    found = evaluate(load("devbox_cuda_wheel_no_driver"))
    f = by_code(found, "TE301")[0]
    assert ">= 580" in f["message"] and "2.14.1+cu130" in f["message"]
    assert "if this machine has an NVIDIA GPU" in f["explanation"].lower() or "If this machine has an NVIDIA GPU" in f["explanation"]
    assert "/whl/cpu" in f["fix"]
    assert not [x for x in found if x["area"] == "gpu"]
    assert not by_code(found, "TE503") and not by_code(found, "TE303")


def test_no_gpu_on_the_pci_bus_makes_a_cuda_torch_a_warning_about_disk_space():
    f = by_code(evaluate(load("devbox_probed_cuda_no_driver")), "TE301")[0]
    assert f["severity"] == "warning"
    assert "no NVIDIA GPU" in f["message"] and "torch runs on the CPU" in f["message"]
    assert "several GB" in f["explanation"] and "If this machine has an NVIDIA GPU" not in f["explanation"]
    assert f["fix"].endswith("/whl/cpu") and not f["fix"].startswith("#")  # no "only if" hedge: we know
    assert f["details"]["pci_gpus"] == []


def test_gpu_on_the_pci_bus_without_driver_is_a_failure_naming_the_device():
    found = evaluate(load("docker_gpu_host_without_gpus_flag"))
    f = by_code(found, "TE301")[0]
    assert f["severity"] == "failure"
    assert "0000:01:00.0" in f["message"] and "0x2684" in f["message"] and ">= 580" in f["message"]
    assert "--gpus all" in f["explanation"]  # the container case: map the host's driver in
    assert "whl/cpu" not in f["fix"], "a GPU machine must not be told to install the CPU wheel"
    assert "--gpus all" in f["fix"] and f["fix"].splitlines()[-1] == "nvidia-smi"
    s = load("docker_gpu_host_without_gpus_flag"); s["platform"].update(container=None, os_pretty="Ubuntu 24.04.1 LTS")
    f = by_code(evaluate(s), "TE301")[0]
    assert f["fix"].startswith("sudo ubuntu-drivers install") and "--gpus" not in f["explanation"]
    assert not [x for x in found if x["area"] == "gpu"]


def test_gpu_on_the_pci_bus_is_a_gpu_for_the_cpu_wheel_rule():
    f = by_code(evaluate(load("cpu_wheel_gpu_without_driver")), "TE202")[0]
    assert "0000:01:00.0" in f["message"] and "No NVIDIA driver is loaded either" in f["explanation"]
    assert "/whl/cu" in f["fix"]
    # the same machine without the PCI device: the CPU wheel fits it
    s = load("cpu_wheel_gpu_without_driver"); s["driver"]["pci_gpus"] = []
    assert "no NVIDIA GPU" in by_code(evaluate(s), "TE203")[0]["message"]


def test_summary_is_worst_severity_per_area():
    s = summary(evaluate(load("pascal_gtx1080_cu130")))
    assert s["gpu"] == "failure" and s["driver"] == "ok" and s["platform"] == "ok"
    # TensorFlow's area has findings only when TensorFlow is installed (or files are owned twice)
    assert summary(evaluate(load("h100_cu130_healthy"))) == {a: "ok" for a in AREAS if a != "tensorflow"}
