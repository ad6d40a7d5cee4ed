"""The doctor's design contracts: one facts layer whose decisions everyone shares (GPU
selection, nvcc in use, cuDNN decoding, the recommendation, quoting), causes folded over their
symptoms, unknown facts that are "could not judge" (never health), one boolean flag parser."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import sys

import pytest

from doctor_support import run_cli

import torch_envcheck.doctor as doctor
from torch_envcheck._util import envflags
from torch_envcheck.advice import recommend as A
from torch_envcheck.facts import core as F
from torch_envcheck.doctor import report, rules
from torch_envcheck.facts import contract
from torch_envcheck.facts import snapshot as snapmod
from torch_envcheck.advice.recommend import advise
from torch_envcheck.doctor.finding import finding
from torch_envcheck.commands.pin import lines as pin_lines
from torch_envcheck.commands.readme_line import line as readme_line
from torch_envcheck.doctor.render import areas, markdown, terminal
from torch_envcheck.doctor.rules import toolchain as toolchain_rules

from paths import REPO, SNAP_DIR
TEMPLATE = os.path.join(REPO, "torch_envcheck", "templates", "env_check.py")


def _snap(name: str) -> dict:
    with open(os.path.join(SNAP_DIR, name + ".json"), encoding="utf-8") as fh:
        return snapmod.validate(json.load(fh), name)


def _template():
    spec = importlib.util.spec_from_file_location("env_check_template", TEMPLATE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------- causes before symptoms

def _with_cause(monkeypatch, snap):
    real = rules.evaluate

    def evaluate(s):
        out = [f for f in real(s) if f["severity"] == "ok"]
        out.append(finding("TE403", "failure", "CUDA_VISIBLE_DEVICES=7 names no GPU", "only 1 GPU", "unset CUDA_VISIBLE_DEVICES",
                           explains=["TE303"]))
        out.append(finding("TE303", "failure", "CUDA failed to initialise", "", "reinstall torch"))
        return out
    monkeypatch.setattr(rules, "evaluate", evaluate)
    return doctor.report(snap)


def test_an_explained_finding_folds_under_its_cause(monkeypatch):
    rep = _with_cause(monkeypatch, _snap("h100_cu130_healthy"))
    by = {f["code"]: f for f in rep["findings"]}
    assert by["TE303"]["explained_by"] == "TE403" and "explained_by" not in by["TE403"]
    # the summary counts the cause's area, not the symptom's
    assert rep["summary"]["gpu"] == "failure" and rep["summary"]["driver"] == "ok"
    assert rep["exit_status"] == 1
    assert rep["areas"]["driver"]["explained"] == ["TE303 (explained by TE403)"]
    text = terminal.render(rep)
    assert "1 failure, 0 warnings" in text, "the verdict counts the cause only"
    cause_line = next(i for i, ln in enumerate(text.splitlines()) if "TE403" in ln)
    assert "explains TE303" in text.splitlines()[cause_line + 2] or "explains TE303" in "\n".join(
        text.splitlines()[cause_line:cause_line + 4])
    assert "reinstall torch" not in text, "a symptom's fix is not offered while its cause stands"
    md = markdown.render(rep)
    assert "- explains **TE303**" in md and "- ❌ **TE303**" not in md
    assert json.loads(rep.to_json())["findings"][-1]["explained_by"] == "TE403"  # JSON keeps both, linked


def test_a_symptom_alone_still_counts(monkeypatch):
    real = rules.evaluate
    monkeypatch.setattr(rules, "evaluate", lambda s: [f for f in real(s) if f["severity"] == "ok"] + [
        finding("TE303", "failure", "CUDA failed to initialise", "", None)])
    rep = doctor.report(_snap("h100_cu130_healthy"))
    assert rep["exit_status"] == 1 and rep["summary"]["driver"] == "failure"


def test_cause_cycles_do_not_hide_both():
    a = finding("TE403", "failure", "a", explains=["TE303"])
    b = finding("TE303", "failure", "b", explains=["TE403"])
    out = report.link_explained([a, b])
    assert [f for f in out if f.counts], "one of the two still counts"


def test_a_cause_hides_what_it_names_and_nothing_else():
    ok = finding("TE400", "ok", "kernels for every GPU")
    cause = finding("TE404", "failure", "PTX needs a newer driver", "why", hides=["TE400"])
    other = finding("TE402", "warning", "empty CUDA_VISIBLE_DEVICES", "why", hides=["TE402", "TE303"])
    out = report.apply_hides([ok, cause, other])
    assert [f.code for f in out] == ["TE404", "TE402"], "a finding never hides itself"
    assert all("hides" not in f.to_dict() for f in out), "hides is not part of a report"
    # through evaluate: the gpu area's ok finding and a problem never stand side by side
    s = _snap("h100_cu130_healthy")
    s["torch"].update(version="2.11.0+cu128", local="cu128", cuda="12.8", arch_list=["sm_90", "compute_90"])
    s["torch"]["devices"][0].update(capability="10.0", name="NVIDIA B200")
    s["driver"].update(version="560.35.03", cuda_version="12.6")
    codes = [f.code for f in report.findings_for(s) if f.area == "gpu"]
    assert "TE404" in codes and "TE400" not in codes


# ---------------------------------------------------------------- could not judge

@pytest.mark.parametrize("torch_value", ["null", "missing", "wrong-type"])
def test_missing_torch_facts_are_could_not_judge(torch_value):
    s = json.loads(json.dumps(_snap("cpu_venv_no_gpu")))
    if torch_value == "null":
        s["torch"] = None
    elif torch_value == "missing":
        del s["torch"]
    else:
        s["torch"] = ["not", "an", "object"]
    rep = doctor.report(snapmod.validate(s))
    codes = {f["code"]: f for f in rep["findings"]}
    assert codes["TE280"]["severity"] == "failure" and rep["exit_status"] == 1
    assert not [f for f in rep["findings"] if f["area"] == "torch" and f["code"] != "TE280"]
    assert rep["areas"]["torch"]["headline"].startswith("could not judge")
    assert "not installed" not in terminal.render(rep)


def test_a_schema_line_alone_is_could_not_judge_everywhere(tmp_path):
    path = tmp_path / "bare.json"
    path.write_text(json.dumps({"schema": "torch_envcheck.snapshot/1"}))
    proc = run_cli(sys.executable, ["--from-json", str(path)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    for code in ("TE180", "TE280", "TE380", "TE480", "TE580", "TE680", "TE780"):
        assert code in proc.stdout
    assert "not installed" not in proc.stdout and "No issues found" not in proc.stdout
    assert "Traceback" not in proc.stderr


def test_a_full_snapshot_is_judged():
    for name in ("h100_cu130_healthy", "cpu_venv_no_gpu", "macos_apple_silicon"):
        rep = doctor.report(_snap(name))
        assert not [f for f in rep["findings"] if f["slug"].endswith("-unknown")], name


# ---------------------------------------------------------------- wrong types never crash the commands

WRONG = [1, "x", True, [], {}, None, [[]], {"a": {"b": []}}, 1.5]


@pytest.mark.parametrize("section", list(contract.SECTIONS))
def test_commands_survive_wrong_types(section):
    base = _snap("h100_cu130_healthy")
    fields = list(contract.SECTIONS[section])
    for bad in WRONG:
        raw = copy.deepcopy(base)
        if isinstance(raw.get(section), dict):
            for name in fields:
                raw[section][name] = bad
        for s in (raw, snapmod.validate(raw)):  # given directly (not normalised) and loaded
            advise(s)
            readme_line(s)
            try:
                pin_lines(s)
            except ValueError:
                pass
            terminal.render(doctor.report(s))
            markdown.render(doctor.report(s))


def test_normalised_types_give_unknown_not_guesses():
    raw = json.loads(json.dumps(_snap("h100_cu130_healthy")))
    raw["torch"]["cudnn"] = "92400"
    raw["torch"]["importable"] = "true"
    s = snapmod.validate(raw)
    assert s["torch"]["cudnn"] is None and s["torch"]["importable"] is None
    assert "cuDNN" not in readme_line(s)
    assert any(f["code"] == "TE280" for f in doctor.report(s)["findings"])


# ---------------------------------------------------------------- one decision per fact

def test_one_gpu_selection_for_advise_and_rules():
    s = _snap("h100_cu130_healthy")
    # CUDA_VISIBLE_DEVICES=0 hides the T4 from torch; the machine still has it: a wheel must serve it
    s["driver"]["gpus"].append({"index": 1, "name": "Tesla T4", "capability": "7.5", "memory_total_mib": 15360,
                                "uuid": "GPU-2", "pci_bus_id": "0:19:0"})
    assert [g.capability for g in F.gpus(s)] == ["9.0"], "what the program sees: torch's devices"
    assert F.build_capability(s) == "7.5" == min(F.capabilities(s), key=F.capability_tuple)
    why, _cmd = advise(s)
    assert "compute capability 7.5 (the lowest of this machine's GPUs)" in " ".join(why)
    assert A.recommend_build(s) == A.recommend_build(s, capability="7.5")


def test_the_conda_form_serves_the_same_gpus_as_the_pip_advice():
    from torch_envcheck.advice.conda import conda_form

    s = _snap("h100_cu130_healthy")
    s["platform"]["python"]["conda_env"] = "train"
    # the env's torch is 2.14.1 (pip): conda-forge's newest (2.13) and the pytorch channel's 2.5 would both
    # downgrade it, so the conda form is the pip command itself
    why, cmd = conda_form(s, *advise(s))
    assert "conda install" not in cmd and "/whl/cu130" in cmd and "without downgrading" in " ".join(why)
    s["torch"]["version"] = "2.5.1"
    assert conda_form(s, *advise(s))[1] == "conda install -c conda-forge 'pytorch=2.13.*=cuda130*' torchvision cuda-version=13.0"
    # a Kepler GPU that CUDA_VISIBLE_DEVICES hides from torch: no pytorch-channel 2.5 build serves it, so the
    # conda form must not offer one (it did, judging the visible H100 alone, while the pip advice served the K80)
    s["driver"]["gpus"].append({"index": 1, "name": "Tesla K80", "capability": "3.7", "memory_total_mib": 11441,
                                "uuid": "GPU-2", "pci_bus_id": "0:19:0"})
    why, cmd = conda_form(s, *advise(s))
    assert "neither conda-forge" in " ".join(why) and "pytorch-cuda" not in cmd and "conda-forge" not in cmd
    assert "/whl/cu118" in cmd


def test_one_nvcc_in_use_for_headline_and_rules():
    s = _snap("h100_cu130_healthy")
    s["toolchain"]["nvcc"] = [
        {"path": "/usr/bin/nvcc", "source": "PATH", "cuda_home": "/usr", "toolkit_found": False, "version": "12.0",
         "error": None},
        {"path": "/usr/local/cuda-13.0/bin/nvcc", "source": "CUDA_HOME", "cuda_home": "/usr/local/cuda-13.0",
         "toolkit_found": True, "version": "13.0", "error": None},
        {"path": "/opt/broken/nvcc", "source": "PATH", "cuda_home": "/opt", "toolkit_found": True, "version": None,
         "error": "exit 1"}]
    used = toolchain_rules.used_nvcc(s)
    assert used is F.nvcc_in_use(s) or used == F.nvcc_in_use(s)
    assert used.path == "/usr/local/cuda-13.0/bin/nvcc"
    assert areas.headline("toolchain", s).startswith("nvcc 13.0 (/usr/local/cuda-13.0/bin/nvcc)")


@pytest.mark.parametrize("value,text", [(92400, "9.24.0"), (90100, "9.1.0"), (8907, "8.9.7"), (8600, "8.6.0"),
                                        (7605, "7.6.5"), (100100, "10.1.0"), (0, None), (True, None),
                                        (None, None)])
def test_one_cudnn_decoder(value, text):
    from torch_envcheck import pytest_plugin

    assert F.cudnn_text(value) == text
    assert areas.cudnn_text(value) == text
    assert _template().cudnn_text(value) == text
    if isinstance(value, int) and not isinstance(value, bool) and value:
        assert pytest_plugin._cudnn_version(value) == text
        assert F.cudnn_mm(value) == ".".join(text.split(".")[:2])


def test_python_cmd_is_one_quoted_word():
    s = _snap("h100_cu130_healthy")
    s["platform"]["python"]["executable"] = "/home/user/$(touch pwned)/`id`/bin/python"
    assert A.python_cmd(s) == "'/home/user/$(touch pwned)/`id`/bin/python'"
    build = A.recommend_build(s)
    cmd = A.install_command(s, build)
    assert cmd.startswith("'/home/user/$(touch pwned)/`id`/bin/python' -m pip install")
    import shlex
    assert shlex.split(cmd)[0] == s["platform"]["python"]["executable"]
    s["platform"]["system"] = "Windows"
    s["platform"]["python"]["executable"] = "C:\\Users\\o'neil\\py\\python.exe"
    # the shell unknown: one word that cmd.exe and PowerShell both read; a quoted program gets a
    # line per shell (PowerShell needs `&` before it, which cmd.exe rejects)
    assert A.python_cmd(s) == '"C:\\Users\\o\'neil\\py\\python.exe"'
    lines = A.install_command(s, build).splitlines()
    assert lines[0] == "# in PowerShell:" and lines[1].startswith("& 'C:\\Users\\o''neil\\py\\python.exe'")
    assert lines[2] == "# in cmd.exe (Anaconda Prompt):" and lines[3].startswith('"C:\\Users\\o\'neil\\py\\python.exe" -m pip')
    s["request"] = {"shell": "powershell"}  # --shell powershell
    assert A.python_cmd(s) == "'C:\\Users\\o''neil\\py\\python.exe'"
    assert A.install_command(s, build).startswith("& 'C:\\Users\\o''neil\\py\\python.exe'")


# ---------------------------------------------------------------- one flag parser

@pytest.mark.parametrize("raw,expected", [("1", True), ("true", True), (" YES ", True), ("on", True), ("0", False),
                                          ("false", False), ("False", False), ("no", False), ("off", False),
                                          ("", None), ("maybe", None), (None, None)])
def test_one_flag_parser(raw, expected):
    assert envflags.parse_flag(raw) is expected
    assert _template().parse_flag(raw) is expected


def test_env_flag_defaults_and_errors():
    assert envflags.env_flag("X", environ={}) is False and envflags.env_flag("X", True, environ={"X": ""}) is True
    assert envflags.env_flag("X", environ={"X": "false"}) is False
    with pytest.raises(envflags.EnvFlagError, match="X='maybe' is not a boolean"):
        envflags.env_flag("X", environ={"X": "maybe"})
    assert envflags.env_flag("X", environ={"X": "maybe"}, invalid=True) is True


def test_template_require_gpu_flag(monkeypatch, capsys):
    tmpl = _template()
    monkeypatch.setenv("ENV_CHECK_REQUIRE_GPU", "false")
    assert tmpl.parse_args([]).require_gpu is False
    monkeypatch.setenv("ENV_CHECK_REQUIRE_GPU", "true")
    assert tmpl.parse_args([]).require_gpu is True
    monkeypatch.setenv("ENV_CHECK_REQUIRE_GPU", "maybe")
    with pytest.raises(SystemExit) as exc:
        tmpl.parse_args([])
    assert exc.value.code == 2 and "ENV_CHECK_REQUIRE_GPU='maybe' is not a boolean" in capsys.readouterr().err


# ---------------------------------------------------------------- a proving fact outranks a table

def test_a_proving_fact_outranks_a_table():
    s = _snap("h100_cu130_healthy")  # torch initialised CUDA and sees its GPU
    table = finding("TE302", "failure", "the driver is too old for CUDA 13.0", "", "reinstall", basis="table")
    observed = finding("TE303", "failure", "CUDA failed", "", None, basis="fact")
    out = report.outrank_tables(s, [table, observed])
    table = out[0]
    assert table.severity == "ok" and table.table_severity == "failure" and table.fix is None
    assert table.outranked_by.startswith("torch.cuda_available=True")
    assert out[1] == observed and observed.severity == "failure", "an observed fact is never outranked"
    rep_text = terminal.render({"snapshot": s, "findings": [table.to_dict()], "summary": {}})
    assert "outranked by torch.cuda_available=True" in rep_text
    broken = _snap("devbox_probed_cuda_no_driver")  # nothing proves the driver works here
    t2 = finding("TE302", "failure", "too old", basis="table")
    (t2,) = report.outrank_tables(broken, [t2])
    assert t2.severity == "failure" and "outranked_by" not in t2.to_dict()
    with pytest.raises(ValueError):
        finding("TE302", "failure", "x", basis="guess")
