"""Reports: --from-json round trip, bad input (exit 2 with a one-line error), the renderers
(terminal plain/ASCII/colour, markdown, JSON), the report's summary and exit status, and the
advise / readme-line / pin commands on saved snapshots."""

from __future__ import annotations

import copy
import json
import os
import sys

import pytest

import torch_envcheck.doctor as doctor
from doctor_support import run_cli
from torch_envcheck.facts import contract
from torch_envcheck.facts import snapshot as snapmod
from torch_envcheck.doctor.finding import Finding
from torch_envcheck.doctor.render import json_render, markdown, terminal
from torch_envcheck.doctor import report as report_mod


def summarize(findings: list[dict]) -> dict:
    """The report's summary of findings written as JSON objects."""
    return report_mod.summarize([Finding.from_dict(f) for f in findings])


@pytest.fixture
def rules():
    import torch_envcheck.doctor.rules as real
    return real


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A report of this very environment, saved as users save it."""
    proc = run_cli(sys.executable, ["--json"])
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    path = tmp_path_factory.mktemp("report") / "report.json"
    path.write_text(proc.stdout)
    return str(path), json.loads(proc.stdout), proc.returncode


def _synthetic(**over) -> dict:
    snap = {
        "schema": doctor.SNAPSHOT_SCHEMA, "created": "2026-11-30T00:00:00+00:00", "tool_version": "0.1.0",
        "probe_errors": {}, "probe_seconds": {},
        "platform": {"system": "Linux", "release": "6.8", "machine": "x86_64", "os_pretty": "Ubuntu 24.04 LTS",
                     "wsl": None, "mac_ver": None, "apple_silicon": None, "container": None,
                     "python": {"version": "3.12.3", "implementation": "CPython", "executable": "/venv/bin/python",
                                "prefix": "/venv", "base_prefix": "/usr", "venv": True, "conda_env": None,
                                "conda_prefix": None}},
        "torch": {"importable": True, "installed": True, "version": "2.14.1+cu130", "local": "cu130", "cuda": "13.0",
                  "hip": None, "cudnn": 92400, "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"],
                  "cuda_available": True, "device_count": 1, "cuda_init_error": None,
                  "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0",
                               "total_memory_bytes": 85_520_809_984}],
                  "mps": {"built": False, "available": False}, "installer": "pip"},
        "packages": {"torchvision": {"version": "0.29.1+cu130", "installer": "pip", "location": "/venv"},
                     "torchaudio": {"version": "2.14.1+cu130", "installer": "pip", "location": "/venv"},
                     "triton": None, "nvidia": {"nvidia-cudnn-cu13": "9.24.0.43"}},
        "driver": {"source": "nvml", "present": True, "version": "580.65.06", "cuda_version": "13.0",
                   "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0",
                             "memory_total_mib": 81559, "uuid": "GPU-1", "pci_bus_id": "0:18:0"}], "errors": []},
        "env": {"CUDA_VISIBLE_DEVICES": None}, "libraries": {"search_path_var": "LD_LIBRARY_PATH", "entries": []},
        "toolchain": {"nvcc": [], "cuda_home": {"CUDA_HOME": None, "CUDA_PATH": None}, "host_compiler": None,
                      "ninja": None},
        "extension": {"status": {"state": "missing"}, "build_info": None, "runtime_info": None},
    }
    for key, value in over.items():
        snap[key] = value
    return snap


# ---------------------------------------------------------------- --from-json

def test_from_json_round_trip_gives_the_same_findings(saved):
    path, rep, rc = saved
    again = run_cli(sys.executable, ["--json", "--from-json", path])
    assert again.returncode == rc
    rep2 = json.loads(again.stdout)
    assert rep2["findings"] == rep["findings"] and rep2["summary"] == rep["summary"]
    assert rep2["snapshot"] == rep["snapshot"]


def test_from_json_accepts_a_bare_snapshot(saved, tmp_path):
    path, rep, rc = saved
    snap_file = tmp_path / "snap.json"
    snap_file.write_text(json.dumps(rep["snapshot"]))
    again = run_cli(sys.executable, ["--json", "--from-json", str(snap_file)])
    assert again.returncode == rc and json.loads(again.stdout)["findings"] == rep["findings"]


@pytest.mark.parametrize("content, expected", [
    ("{not json", "not valid JSON (line 1, column 2)"),
    ("[1, 2]", "expected a torch_envcheck snapshot or report"),
    ('{"name": "collect_env output"}', 'no "schema" field'),
    ('{"schema": "some.other.tool/3"}', "is not a torch_envcheck schema"),
    ('{"schema": "torch_envcheck.snapshot/9"}', "from another version of torch_envcheck"),
    ('{"schema": "torch_envcheck.report/1", "snapshot": []}', "the report's \"snapshot\" is a list"),
])
def test_invalid_input_exits_2_with_one_clear_line(tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_text(content)
    proc = run_cli(sys.executable, ["--from-json", str(path)])
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and expected in lines[0], proc.stderr


def test_missing_file_exits_2(tmp_path):
    proc = run_cli(sys.executable, ["--from-json", str(tmp_path / "nope.json")])
    assert proc.returncode == 2 and "cannot read it" in proc.stderr and "Traceback" not in proc.stderr


def test_bad_timeout_is_a_usage_error():
    proc = run_cli(sys.executable, ["--timeout", "-3"])
    assert proc.returncode == 2 and "--timeout" in proc.stderr


# ---------------------------------------------------------------- report()

def test_report_summary_and_exit_status(rules):
    rep = doctor.report(_synthetic())
    assert rep["schema"] == doctor.REPORT_SCHEMA and list(rep["summary"]) == list(doctor.AREAS)
    rank = {"ok": 0, "warning": 1, "failure": 2}
    for area, sev in rep["summary"].items():
        worst = max([rank[f["severity"]] for f in rep["findings"] if f["area"] == area], default=0)
        assert rank[sev] == worst
    assert rep["exit_status"] == (1 if any(f["severity"] == "failure" for f in rep["findings"]) else 0)
    json.dumps(rep.to_dict())  # serialisable


def test_crashing_rules_do_not_crash_the_report(monkeypatch):
    import types

    broken = types.ModuleType("torch_envcheck.doctor.rules")

    def evaluate(snap):
        raise KeyError("driver")

    broken.evaluate = evaluate
    monkeypatch.setitem(sys.modules, "torch_envcheck.doctor.rules", broken)
    monkeypatch.setattr(doctor, "rules", broken, raising=False)
    rep = doctor.report(_synthetic())
    assert rep["exit_status"] == 1 and "KeyError" in rep["errors"][0]
    text = terminal.render(rep)
    assert "Doctor errors" in text and "KeyError" in text


def test_snapshot_validation_accepts_nulls():
    snap = _synthetic(driver=None, toolchain=None)
    n = snapmod.validate(snap)
    assert n["driver"] is None and n["toolchain"] is None and n["normalised"] == []
    assert n["torch"]["version"] == snap["torch"]["version"]


def test_a_wrong_typed_section_is_unknown_not_an_error():
    # wrong types are read as unknown when loading (facts/contract.py), and say so
    n = snapmod.validate({"schema": "torch_envcheck.snapshot/1", "torch": "2.1"})
    assert n["torch"] is None and n["normalised"] == ["torch: expected object, got string"]


# ---------------------------------------------------------------- renderers

_FINDINGS = [
    {"code": "TE301", "slug": "driver-missing", "area": "driver", "severity": "failure",
     "message": "no NVIDIA driver is loaded", "explanation": "torch 2.14.1+cu130 needs an NVIDIA driver >= 580.",
     "fix": "sudo apt install nvidia-driver-580", "details": {}},
    {"code": "TE601", "slug": "nvcc-missing", "area": "toolchain", "severity": "warning", "message": "no nvcc",
     "explanation": "Only compiling extensions needs it.", "fix": "conda install -c nvidia cuda-nvcc", "details": {}},
    {"code": "TE205", "slug": "torch-cuda-ok", "area": "torch", "severity": "ok", "message": "CUDA works",
     "explanation": None, "fix": None, "details": {}},
]


def _rep():
    rep = {"schema": doctor.REPORT_SCHEMA, "tool_version": "0.1.0", "snapshot": _synthetic(),
           "findings": copy.deepcopy(_FINDINGS)}
    rep["summary"] = summarize(rep["findings"])
    rep["exit_status"] = 1
    return rep


def test_terminal_plain():
    text = terminal.render(_rep(), color=False)
    assert "\x1b[" not in text
    assert "[✗] NVIDIA driver" in text and "[!] Compiler toolchain" in text and "[✓] PyTorch" in text
    assert "torch 2.14.1+cu130, CUDA 13.0, cuDNN 9.24.0" in text
    assert "1 GPU: NVIDIA H100 80GB HBM3 (sm_90, 80 GiB)" in text
    fixes = text.split("To fix:")[1]
    # failures first, then warnings, each with its command
    assert fixes.index("sudo apt install nvidia-driver-580") < fixes.index("conda install -c nvidia cuda-nvcc")
    assert "1 failure, 1 warning: this environment needs fixing (NVIDIA driver)" in text


def test_verdict_line_names_the_failing_areas_and_claims_nothing_else():
    rep = _rep()
    rep["findings"][0] = {"code": "TE204", "slug": "companion-cuda-mismatch", "area": "torch", "severity": "failure",
                          "message": "torchvision 0.29.1+cpu is a cpu build", "explanation": "x", "fix": None,
                          "details": {}}
    rep["summary"] = summarize(rep["findings"])
    text = terminal.render(rep, color=False)
    assert "this environment needs fixing (PyTorch)" in text and "GPU" not in text.splitlines()[-2]
    rep["findings"] = [f for f in rep["findings"] if f["severity"] != "failure"]
    rep["summary"] = summarize(rep["findings"])
    assert "No failures; 1 warning." in terminal.render(rep, color=False)


def test_one_command_for_two_findings_is_printed_once():
    rep = _rep()
    rep["findings"].append({"code": "TE302", "area": "driver", "severity": "failure", "message": "driver too old",
                            "fix": "sudo apt install nvidia-driver-580"})
    fixes = terminal.render(rep).split("To fix:")[1]
    assert fixes.count("sudo apt install nvidia-driver-580") == 1
    assert "(the command of 1. fixes this too)" in fixes


def test_terminal_ascii_fallback_and_colour():
    text = terminal.render(_rep(), color=False, unicode=False)
    assert "[x] NVIDIA driver" in text and "[!] Compiler" in text and "[+] PyTorch" in text
    text.encode("ascii")
    coloured = terminal.render(_rep(), color=True)
    assert "\x1b[31m[✗] \x1b[0m" in coloured


class _Stream:
    def __init__(self, encoding):
        self.encoding, self.parts = encoding, []

    def write(self, s):
        self.parts.append(s)

    def isatty(self):
        return False


def test_print_report_picks_ascii_for_a_latin1_stream(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    s = _Stream("latin-1")
    terminal.print_report(_rep(), stream=s)
    out = "".join(s.parts)
    assert "[x] NVIDIA driver" in out and "\x1b[" not in out  # not a tty: no colour
    assert terminal.wants_color(s) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal.wants_color(type("T", (), {"isatty": lambda self: True})()) is False


def test_terminal_verbose_lists_every_fact():
    text = terminal.render(_rep(), verbose=True)
    assert "driver.version: 580.65.06" in text and "platform.python.executable: /venv/bin/python" in text
    assert "packages.nvidia.nvidia-cudnn-cu13: 9.24.0.43" in text


def test_markdown():
    text = markdown.render(_rep())
    assert text.startswith("### torch-envcheck 0.1.0 report")
    assert "| ❌ | NVIDIA driver | no NVIDIA driver found |" not in text  # the driver is present here
    assert "| ❌ | NVIDIA driver | driver 580.65.06 (supports CUDA up to 13.0), read through nvml |" in text
    assert "**TE301** no NVIDIA driver is loaded" in text and "sudo apt install nvidia-driver-580" in text
    details = text.split("<details>")[1]
    body = details.split("```json\n")[1].split("\n```")[0]
    assert json.loads(body)["findings"][0]["code"] == "TE301"
    assert text.rstrip().endswith("</details>")


def test_json_renderer_round_trips():
    rep = _rep()
    assert json.loads(json_render.render(rep)) == rep
    loaded = snapmod.validate(json.loads(json_render.render(rep)))
    assert loaded == contract.normalise(rep["snapshot"]) and snapmod.validate(loaded) == loaded


def test_cli_markdown_and_human_output(saved):
    path = saved[0]
    md = run_cli(sys.executable, ["--markdown", "--from-json", path])
    assert md.returncode == saved[2] and "<details>" in md.stdout
    human = run_cli(sys.executable, ["--from-json", path], env={"NO_COLOR": "1"})
    assert human.returncode == saved[2] and "\x1b[" not in human.stdout and "[" in human.stdout
    assert "Traceback" not in human.stderr
    coloured = run_cli(sys.executable, ["--from-json", path], env={"FORCE_COLOR": "1"}, drop=("NO_COLOR",))
    assert coloured.returncode == saved[2] and "\x1b[" in coloured.stdout  # rich, or plain ANSI without it
    assert "NVIDIA driver" in coloured.stdout


# ---------------------------------------------------------------- readme-line, pin, advise

def test_readme_line():
    from torch_envcheck.commands.readme_line import line

    assert line(_synthetic()) == ("torch 2.14.1+cu130 / Python 3.12 / driver 580.65.06 / cuDNN 9.24 / "
                                  "NVIDIA H100 80GB HBM3")
    cpu = _synthetic(driver={"present": False, "gpus": []},
                     torch={"importable": True, "version": "2.13.0+cpu", "local": "cpu", "cuda": None})
    assert line(cpu) == "torch 2.13.0+cpu / Python 3.12 / no NVIDIA driver"


def test_pin_cuda_build():
    from torch_envcheck.commands.pin import lines

    out = lines(_synthetic())
    assert out[1:] == ["--extra-index-url https://download.pytorch.org/whl/cu130", "torch==2.14.1+cu130",
                       "torchvision==0.29.1+cu130", "torchaudio==2.14.1+cu130"]
    assert out[0].startswith("# torch 2.14.1+cu130 (CUDA 13.0) on Linux x86_64, Python 3.12")


def test_pin_pypi_and_missing_torch():
    from torch_envcheck.commands.pin import lines

    out = lines(_synthetic(torch={"version": "2.14.1", "cuda": "13.2"}, packages={}))
    assert "torch==2.14.1" in out and not any(x.startswith("--extra-index-url") for x in out)
    with pytest.raises(ValueError, match="nothing to pin"):
        lines(_synthetic(torch={"importable": False, "version": None}))


def test_pin_and_readme_line_commands_on_this_environment():
    pin = run_cli(sys.executable, ["pin"])
    import torch

    assert pin.returncode == 0 and f"torch=={torch.__version__}" in pin.stdout.splitlines()
    local = torch.__version__.partition("+")[2]
    if local:
        assert f"--extra-index-url https://download.pytorch.org/whl/{local}" in pin.stdout
    rl = run_cli(sys.executable, ["readme-line"])
    assert rl.returncode == 0 and rl.stdout.startswith(f"torch {torch.__version__} / Python ")


def test_advise_for_a_driver_and_gpu():
    from torch_envcheck.advice.recommend import advise

    why, cmd = advise(_synthetic())
    assert cmd and "--index-url https://download.pytorch.org/whl/cu1" in cmd and cmd.startswith("/venv/bin/python")
    # an old driver (CUDA 12.4 at most) rules out the cu130 builds
    old = _synthetic(driver={"present": True, "version": "550.54.15", "cuda_version": "12.4",
                             "gpus": [{"capability": "6.1", "name": "GTX 1080"}]})
    why, cmd = advise(old)
    assert cmd and "whl/cu13" not in cmd and "compute capability 6.1" in " ".join(why)


def test_advise_without_driver_or_on_macos():
    from torch_envcheck.advice.recommend import advise

    why, cmd = advise(_synthetic(driver={"present": False, "gpus": []}))
    assert cmd.endswith("--index-url https://download.pytorch.org/whl/cpu") and "no NVIDIA driver" in why[0]
    mac = _synthetic(platform={"system": "Darwin", "machine": "arm64", "apple_silicon": True,
                               "python": {"executable": "python3", "version": "3.12.1"}})
    why, cmd = advise(mac)
    assert cmd == "python3 -m pip install torch torchvision" and "MPS" in why[0]
    wsl1 = _synthetic(platform={"system": "Linux", "wsl": 1, "python": {"executable": "python"}})
    assert "WSL 1" in advise(wsl1)[0][0]


def test_advise_on_aarch64_uses_the_aarch64_wheels_arch_lists():
    from _rules_helpers import load
    from torch_envcheck.advice.recommend import advise

    # A T4G (7.5) on Graviton: the aarch64 CUDA wheels start at sm_80, so no CUDA build fits
    snap = load("aarch64_t4g_cu130")
    why, cmd = advise(snap)
    assert cmd is None and "Linux aarch64" in why[2] and "CPU architecture" in why[-1]
    # the same GPU on x86_64: the x86_64 cu130 wheel has sm_75
    snap["platform"]["machine"] = "x86_64"
    why, cmd = advise(snap)
    assert cmd and cmd.endswith("/whl/cu130")
    # a Hopper GPU (GH200-like) on aarch64: the aarch64 cu130 wheel covers sm_90
    snap = load("aarch64_t4g_cu130")
    snap["driver"]["gpus"][0].update(name="NVIDIA GH200 480GB", capability="9.0")
    why, cmd = advise(snap)
    assert cmd and " torch==2.14." in cmd and cmd.endswith("/whl/cu130")


def test_advise_on_wsl2_reads_the_windows_driver_table():
    from _rules_helpers import load
    from torch_envcheck.advice.recommend import advise

    # Windows driver 527.41 runs CUDA 12.0 itself, but minor-version compat for 12.x needs >= 528.33 on Windows
    # (>= 525.60.13 on Linux): through WSL 2 only a CUDA 11.8 build fits
    snap = load("wsl2_rtx3070_windows_driver_527")
    why, cmd = advise(snap)
    assert "the Windows driver, used by WSL 2" in why[0]
    assert cmd and cmd.endswith("/whl/cu118")
    # read with the Linux table (as a plain Linux machine would be), 527.41 would run cu126 through compat
    snap["platform"]["wsl"] = None
    why, cmd = advise(snap)
    assert cmd and cmd.endswith("/whl/cu126")


def test_advise_without_driver_reads_the_pci_bus():
    from torch_envcheck.advice.recommend import advise

    why, cmd = advise(_synthetic(driver={"present": False, "gpus": [], "pci_gpus": []}))
    assert cmd.endswith("/whl/cpu") and "no NVIDIA GPU on this machine's PCI bus" in why[0]
    why, cmd = advise(_synthetic(driver={"present": False, "gpus": [], "pci_gpus": [
        {"bus_id": "0000:01:00.0", "device_id": "0x2684", "class": "0x030000"}]}))
    assert cmd.endswith("/whl/cpu") and "0000:01:00.0" in why[0] and "install the driver" in why[0]
    wsl2 = _synthetic(driver={"present": False, "gpus": [], "pci_gpus": []})
    wsl2["platform"] = dict(wsl2["platform"], wsl=2)
    assert "no NVIDIA driver found" in advise(wsl2)[0][0]  # WSL 2's GPU is never on the PCI bus


def test_advise_from_json_invalid_exits_2(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    proc = run_cli(sys.executable, ["advise", "--from-json", str(bad)])
    assert proc.returncode == 2 and "no \"schema\" field" in proc.stderr
