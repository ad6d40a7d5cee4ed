"""Knowing what the tables do not know: the freshness findings (TE207, TE208, TE308,
TE407, TE810) and the rule that no fix and no `advise` downgrades a working torch because the
tables end earlier."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re

import pytest

from torch_envcheck import cli
from torch_envcheck import knowledge as kb
from torch_envcheck.doctor import report
from torch_envcheck.facts import core as F
from torch_envcheck.knowledge import freshness

from _rules_helpers import SNAPSHOT_NAMES, load as snap


def codes(s) -> dict:
    return {f["code"]: f for f in report(s)["findings"]}


def run_cli(argv, s=None, tmp_path=None):
    if s is not None:
        path = tmp_path / "snap.json"
        path.write_text(json.dumps(s))
        argv = [argv[0], "--from-json", str(path), *argv[1:]]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ gaps

def test_torch_gaps():
    assert freshness.torch_gap("2.99.0+cu140", "cu140")["kind"] == "release"
    gap = freshness.torch_gap("2.15.0+cu130", "cu130")
    assert gap["kind"] == "build" and gap["known_tags"] == ["cu132"] and gap["complete"] is False
    assert gap["updated"] == "2026-12-01" and gap["newest"] == "2.15"
    assert freshness.torch_gap("2.15.0+cu132", "cu132") is None
    assert freshness.torch_gap("2.14.1+cu126", "cu126") is None
    assert freshness.torch_gap("1.13.1+cu117", "cu117") is None       # older than the tables: not a gap
    assert freshness.torch_gap("2.99.0+cpu", "cpu") is None           # CPU and ROCm builds are not judged
    assert freshness.torch_gap("2.99.0+rocm7.1", "rocm7.1") is None


def test_other_gaps():
    assert freshness.driver_gap("620.10.05", "14.0", "14.0")["kind"] == "torch-cuda"
    assert freshness.driver_gap("610.00", "13.4", "13.0")["kind"] == "driver"
    assert freshness.driver_gap("580.95.05", "13.0", "13.0") is None
    assert freshness.gpu_gap("13.0")["newest"] == "12.1"
    assert freshness.gpu_gap("12.0") is None and freshness.gpu_gap("junk") is None
    assert freshness.tensorflow_gap("2.22.0")["newest"] == "2.21"
    assert freshness.tensorflow_gap("2.21.0") is None


def test_keep_installed_only_when_live_facts_allow_it():
    kept = freshness.keep_installed("2.99.0+cu140", "cu140", "14.0", True, "9.0", ["sm_80", "sm_90"])
    assert kept["kept"] and kept["torch"] == "2.99" and kept["tag"] == "cu140" and kept["entry"] == "sm_90"
    assert freshness.keep_installed("2.99.0+cu140", "cu140", "14.0", False, "9.0", ["sm_90"]) is None
    # the binary has no kernels for a Volta: not kept
    assert freshness.keep_installed("2.99.0+cu140", "cu140", "14.0", None, "7.0", ["sm_80", "sm_90"]) is None
    # a version that is not PEP 440 never reaches a command; a nightly lives on another index
    assert freshness.keep_installed("2.99.0;rm -rf /+cu140", "cu140", "14.0", True) is None
    assert freshness.keep_installed("2.99.0.dev20270101+cu140", "cu140", "14.0", True) is None
    # the tables describe it: nothing to keep by live facts
    assert freshness.keep_installed("2.15.0+cu132", "cu132", "13.2", True, "8.0", ["sm_80"]) is None


# ------------------------------------------------------------------ findings on the recorded snapshots

def test_torch_newer_than_every_table():
    s = snap("h100_torch299_cu140_newer_than_tables")
    found = codes(s)
    f = found["TE207"]
    assert f["severity"] == "warning" and f["fix"] == "torch-envcheck knowledge update"
    assert "2026-12-01" in f["message"] and "2.15" in f["message"] and "live facts" in f["message"]
    assert "sm_90" in f["explanation"] and "initialised CUDA 14.0" in f["explanation"]
    assert found["TE308"]["severity"] == "ok" and "13.2" in found["TE308"]["message"]
    assert found["TE400"]["severity"] == "ok" and report(s)["exit_status"] == 0
    assert all("torch==2.1" not in (x["fix"] or "") for x in report(s)["findings"])


def test_build_not_in_tables():
    s = snap("a100_torch215_cu130_build_not_in_tables")
    f = codes(s)["TE208"]
    assert f["severity"] == "warning" and "cu130" in f["message"] and "cu132" in f["message"]
    assert "incomplete" in f["explanation"]
    assert report(s)["exit_status"] == 0


def test_healthy_215_has_no_freshness_finding():
    found = codes(snap("a100_torch215_cu132_healthy"))
    assert not {"TE207", "TE208", "TE308", "TE407"} & set(found)
    assert all(f["severity"] == "ok" for f in found.values())


def test_driver_newer_than_the_tables_is_ok():
    s = snap("h100_cu130_healthy")
    s["driver"].update(version="610.20.01", cuda_version="13.4")
    f = codes(s)["TE308"]
    assert f["severity"] == "ok" and "meets every minimum" in f["message"]


def test_torch_cuda_newer_than_driver_tables_without_proof_is_a_warning():
    s = snap("h100_torch299_cu140_newer_than_tables")
    s["torch"].update(cuda_available=False, device_count=0, devices=[], cuda_init_error=None)
    s["driver"].update(version="595.58.03", cuda_version="13.2")
    found = codes(s)
    assert found["TE308"]["severity"] == "warning"


def test_gpu_newer_than_the_tables():
    s = snap("h100_cu130_healthy")
    for g in s["driver"]["gpus"] + s["torch"]["devices"]:
        g["capability"] = "13.0"
    s["extension"]["runtime_info"]["cuda"]["devices"][0]["compute_capability"] = {"major": 13, "minor": 0}
    f = codes(s)["TE407"]
    assert f["severity"] == "ok" and "12.1" in f["message"]  # the extension's kernels launched: proved
    s["extension"] = None
    assert codes(s)["TE407"]["severity"] == "warning"
    s["torch"]["arch_list"].append("sm_130")
    assert codes(s)["TE407"]["severity"] == "ok"


def test_tensorflow_newer_than_the_tables():
    s = snap("tf_wsl2_tf221_and_cuda")
    s["tensorflow"]["version"] = "2.22.0"
    f = codes(s)["TE810"]
    assert f["severity"] == "warning" and "2.21" in f["message"] and f["fix"] == "torch-envcheck knowledge update"


# ------------------------------------------------------------------ no downgrade

@pytest.mark.parametrize("name,want", [
    ("a100_torch215_cu132_healthy", "torch==2.15.0 'torchvision==0.29.*' --index-url https://download.pytorch.org/whl/cu132"),
    ("a100_torch215_cu130_build_not_in_tables", "torch==2.15.0 'torchvision==0.29.*' --index-url https://download.pytorch.org/whl/cu130"),
    ("h100_torch299_cu140_newer_than_tables", "torch==2.99.0 torchvision --index-url https://download.pytorch.org/whl/cu140"),
])
def test_advise_keeps_a_working_newer_install(name, want, tmp_path):
    rc, out, err = run_cli(["advise", "-q"], snap(name), tmp_path)
    assert rc == 0 and out.strip().endswith(want), out
    assert "2.14" not in out and err == ""


def test_driver_570_fix_is_the_driver_and_the_downgrade_is_said(tmp_path):
    s = snap("a100_torch215_cu132_driver_570")
    f = codes(s)["TE302"]
    assert "ubuntu-drivers" in f["fix"] and "pip install" not in f["fix"]
    assert ">= 580" in f["explanation"] and "older release" in f["explanation"]
    assert "https://download.pytorch.org/whl/cu126" in f["explanation"]
    rc, out, err = run_cli(["advise"], s, tmp_path)
    assert "# a downgrade: torch 2.14 cu126 is an older release than the installed 2.15.0+cu132" in out
    assert "newest fit that the tables know" in out and "or keep torch 2.15.0+cu132: upgrade the NVIDIA driver to one for CUDA 13.2 (>= 580 on Linux)" in out
    rc, out, err = run_cli(["advise", "-q"], s, tmp_path)
    assert rc == 0 and out.count("\n") == 1 and "torch==2.14.*" in out     # stdout: the command alone
    assert err.startswith("torch-envcheck advise: note: a downgrade:")      # never silent


def test_gpu_the_build_lacks_names_the_older_release(tmp_path):
    f = codes(snap("v100_torch215_cu132_gpu_not_in_build"))["TE401"]
    assert "torch==2.14.*" in f["fix"] and "cu126" in f["fix"]
    assert "older release than the installed 2.15.0+cu132" in f["explanation"]


def test_a_newer_torch_that_does_not_import_is_reinstalled_not_downgraded():
    s = snap("h100_torch299_cu140_newer_than_tables")
    s["torch"].update(importable=False, import_error="ImportError: libcudnn.so.9: cannot open shared object file",
                      cuda_available=None, device_count=None, devices=[], arch_list=None)
    f = codes(s)["TE201"]
    assert "'torch==2.99.*'" in f["fix"] and "/whl/cu140" in f["fix"]


def test_a_newer_cpu_wheel_names_its_downgrade():
    s = snap("windows_cpu_wheel_rtx4070")
    s["torch"]["version"] = "2.99.0+cpu"
    f = codes(s)["TE202"]
    assert "older release than the installed 2.99.0+cpu" in f["explanation"]


def _works(s) -> bool:
    """A pip CUDA wheel (a download.pytorch.org tag; not conda's pytorch, whose advice follows conda's
    records, nor a vendor build such as NVIDIA's Jetson wheels) that runs here by the live facts."""
    from torch_envcheck.facts.conda import in_conda_env
    tag = F.torch_local(s) or kb.tag_from_cuda(F.torch_cuda(s))
    return (F.is_cuda_torch(s) and bool(re.fullmatch(r"cu\d+", tag or "")) and not in_conda_env(s)
            and F.cuda_works(s) and F.installed_fits(s, F.build_capability(s)) is True
            # a torch shadowed by the user site or PYTHONPATH: advise installs nothing until that is fixed
            and not F.torch_shadowed(s))


WORKING = [n for n in SNAPSHOT_NAMES if _works(snap(n))]


@pytest.mark.parametrize("name", WORKING)
def test_no_fix_or_advice_downgrades_a_working_newer_torch(name, tmp_path):
    """Every recorded working CUDA machine, with its torch renamed to a release newer than the
    tables: no fix and no advise command installs any other torch release."""
    s = copy.deepcopy(snap(name))
    tag = F.torch_local(s) or kb.tag_from_cuda(F.torch_cuda(s))
    s["torch"]["version"] = f"2.99.0+{tag}"
    s["torch"]["local"] = tag
    fixes = " ".join(f["fix"] or "" for f in report(s)["findings"])
    _rc, out, _err = run_cli(["advise", "-q"], s, tmp_path)
    for text in (fixes, out):
        assert not re.search(r"torch==(?!2\.99\.0\b)", text), text
    assert "torch==2.99.0" in out
