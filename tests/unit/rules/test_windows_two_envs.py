"""The guides' Windows workflow, end to end on recorded machines (Windows 10, driver 472.12, RTX 3060,
Python 3.8): one framework per conda env (tf-gpu: TensorFlow 2.6 + conda-forge's cudatoolkit 11.2 and
cudnn 8.1; pt-gpu: torch 1.9.0+cu111), healthy and each broken twin, pasted into Anaconda Prompt
(cmd.exe) or PowerShell.

What is checked: an env is judged for the frameworks it holds (and --framework), every fix reads back
as the same words under the cmd.exe model and the PowerShell model (tests/support/shell_models.py),
the conda route comes first for TensorFlow's CUDA, and `explain` on each row of the guides' symptom
table names the framework's finding and the layer."""

from __future__ import annotations

import copy

import pytest

import shell_models as M
from _rules_helpers import load
from torch_envcheck._util import escape
from torch_envcheck.advice import check
from torch_envcheck.doctor import report
from torch_envcheck.doctor.probes import shell as S
from torch_envcheck.facts.snapshot import validate
from torch_envcheck.explain import diagnose

TF_OK = "win10_tfgpu_tf26_conda_cuda112_healthy"
TF_CUDART = "win10_tfgpu_tf26_conda_cudart_missing"
TF_DLL = "win10_tfgpu_tf26_dll_load_failed"
PT_OK = "win10_ptgpu_torch190_cu111_healthy"
PT_CPU = "win10_ptgpu_torch190_cpu_build"
BOTH = "win10_tfgpu_tf26_torch190_one_env"
BASE = "win10_conda_base_no_framework"
ALL = (TF_OK, TF_CUDART, TF_DLL, PT_OK, PT_CPU, BOTH, BASE, "conda_windows10_tf26_cuda110_on_path")


def rep(name: str, **request) -> dict:
    s = copy.deepcopy(load(name))
    if request:
        s["request"] = dict(s.get("request") or {}, **request)
    return report(validate(s))


def found(r: dict) -> dict:
    return {f["code"]: f for f in r["findings"]}


# ---------------------------------------------------------------- judged for the frameworks it holds

def test_a_healthy_tensorflow_env_has_no_torch_failure():
    r = rep(TF_OK)
    assert r["exit_status"] == 0
    f = found(r)
    assert f["TE201"]["severity"] == "ok" and f["TE201"]["fix"] is None and "tensorflow 2.6.0" in f["TE201"]["message"]
    assert "TE103" not in f  # Python 3.8 is outside current torch's range: not this env's business
    assert f["TE800"]["severity"] == "ok"


def test_framework_flag_asks_for_torch_in_the_tensorflow_env():
    f = found(rep(TF_OK, frameworks=["torch"]))
    assert f["TE201"]["severity"] == "failure" and f["TE201"]["fix"]
    assert f["TE103"]["severity"] == "failure"  # torch asked for: its Python range applies
    both = found(rep(TF_OK, frameworks=["torch", "tensorflow"]))
    assert both["TE201"]["severity"] == "failure" and both["TE800"]["severity"] == "ok"


def test_framework_flag_asks_for_tensorflow_in_the_torch_env():
    f = found(rep(PT_OK, frameworks=["tensorflow"]))
    assert f["TE813"]["severity"] == "failure" and "conda env pt-gpu" in f["TE813"]["message"]
    assert "TE813" not in found(rep(PT_OK))


def test_a_healthy_torch_env_exits_0_and_its_cpu_twin_gets_the_right_build():
    r = rep(PT_OK)
    assert r["exit_status"] == 0 and found(r)["TE205"]["severity"] == "ok"
    assert "minor-version compatibility" in found(r)["TE304"]["message"]
    bad = found(rep(PT_CPU))
    assert bad["TE202"]["severity"] == "failure"
    fix = bad["TE202"]["fix"]
    assert '"torch==2.4.*"' in fix and fix.endswith("--index-url https://download.pytorch.org/whl/cu118")


def test_each_broken_twin_names_its_layer():
    assert found(rep(TF_CUDART))["TE801"]["area"] == "tensorflow"
    assert found(rep(TF_DLL))["TE808"]["area"] == "tensorflow"
    assert found(rep(PT_CPU))["TE202"]["area"] == "torch"
    assert found(rep(BASE))["TE813"]["area"] == "tensorflow"
    for name in (TF_CUDART, TF_DLL, PT_CPU, BASE):
        assert rep(name)["exit_status"] == 1, name


# ---------------------------------------------------------------- the conda route first

def test_missing_cuda_runtime_in_a_conda_env_gets_conda_install_first():
    fix = found(rep(TF_CUDART))["TE801"]["fix"]
    commands = [ln for ln in fix.splitlines() if not ln.startswith("#")]
    assert commands[0] == "conda install -y -c conda-forge cudatoolkit=11.2 cudnn=8.1"
    assert "developer.nvidia.com" not in fix  # no system toolkit, no cuDNN zip copied by hand


def test_two_frameworks_in_one_env_get_two_conda_envs_with_condas_cuda():
    fix = found(rep(BOTH))["TE812"]["fix"]
    assert "conda install -y -n tf -c conda-forge cudatoolkit=11.2 cudnn=8.1" in fix.splitlines()


def test_the_conda_route_needs_a_win64_build_in_the_table(monkeypatch):
    from torch_envcheck import knowledge
    from torch_envcheck.advice import conda as AC
    s = validate(copy.deepcopy(load(TF_CUDART)))
    assert AC.tensorflow_cuda_route(s, "11.2", "8.1")
    assert AC.tensorflow_cuda_route(s, "10.1", "7.6") is None  # no win-64 build read for it: no such advice
    table = knowledge.load_table("conda_cuda.json")["conda_forge_win64"]
    assert "11.2" in table["cudatoolkit"] and "8.1" in table["cudnn"] and table["route_source"] == "tf_windows_conda"


# ---------------------------------------------------------------- every fix in cmd.exe and PowerShell

def _sections(fix: str) -> list[tuple[str, str]]:
    """(shell, line) of each command line of a fix: "both" for a line outside a shell's section."""
    return [(shell or "both", line) for shell, line in M.sections(fix) if line.strip()]


def _read(shell: str, line: str):
    if shell == "cmd" and line.startswith('set "PATH='):
        return None  # cmd.exe's PATH edit: its folder is checked in test_command_builders_property
    if shell == "powershell" and line.startswith("$env:"):
        return None
    return M.argvs(M.MODELS[shell](line, allow_vars=("USERPROFILE",) if shell == "cmd" else ()))


@pytest.mark.parametrize("name", ALL)
def test_every_fix_runs_in_cmd_and_in_powershell(name):
    r = rep(name)
    fixes = [f for f in r["findings"] if f.get("fix")]
    for f in fixes:
        assert not f["details"].get("fix_problems"), (f["code"], f["details"]["fix_problems"])
        for shell, line in _sections(f["fix"]):
            if shell == "both":
                assert M.argvs(M.cmd(line)) == M.argvs(M.powershell(line)), (f["code"], line)
            else:
                _read(shell, line)  # raises M.Unsafe where that shell would act on something


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("shell", ["cmd", "powershell"])
def test_fixes_for_one_named_shell_are_that_shells(name, shell):
    r = rep(name, shell=shell)
    for f in (f for f in r["findings"] if f.get("fix")):
        assert not f["details"].get("fix_problems"), (f["code"], f["details"]["fix_problems"])
        assert escape.SECTION["powershell"] not in f["fix"] and escape.SECTION["cmd"] not in f["fix"]
        for line in f["fix"].splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                _read(shell, line)
        if shell == "cmd":
            assert "$env:" not in f["fix"] and "'" not in "".join(
                ln for ln in f["fix"].splitlines() if not ln.lstrip().startswith("#")), f["fix"]


def test_the_powershell_only_fix_is_not_a_requirement_in_cmd():
    """What the doctor used to print in Anaconda Prompt: cmd.exe hands pip the single quotes."""
    packaging = pytest.importorskip("packaging.requirements")
    old = ("C:\\Users\\user\\miniconda3\\envs\\tf-gpu\\python.exe -m pip install --force-reinstall 'torch==2.4.*' "
           "--index-url https://download.pytorch.org/whl/cu118")
    word = M.argvs(M.cmd(old))[0][5]
    assert word == "'torch==2.4.*'"
    with pytest.raises(packaging.InvalidRequirement):
        packaging.Requirement(word)
    s = validate(copy.deepcopy(load(PT_CPU)))
    assert any("not a valid requirement" in p.detail for p in check.problems(s, old))
    # the same line for PowerShell alone is fine
    s["request"] = {"frameworks": [], "shell": "powershell"}
    assert not check.problems(s, old)


# ---------------------------------------------------------------- the shell the user is in

@pytest.mark.parametrize("chain,env,name", [
    (["torch-envcheck.exe", "cmd.exe", "explorer.exe"], {}, "cmd"),                      # Anaconda Prompt
    (["python.exe", "torch-envcheck.exe", "powershell.exe", "WindowsTerminal.exe"], {}, "powershell"),
    (["python.exe", "pwsh.exe"], {}, "powershell"),
    (["conda.exe", "cmd.exe"], {}, "cmd"),                                                # conda run
    (["bash.exe", "mintty.exe"], {}, "sh"),                                               # Git Bash
    ([], {"PSModulePath": "C:\\Users\\u\\Documents\\WindowsPowerShell\\Modules;C:\\Program Files\\WindowsPowerShell\\Modules"},
     "powershell"),
    ([], {"PROMPT": "(base) $P$G", "PSModulePath": "C:\\Program Files\\WindowsPowerShell\\Modules"}, "cmd"),
    ([], {}, None),
    (["Code.exe", "explorer.exe"], {"PROMPT": "$P$G"}, "cmd"),  # an IDE: the variables decide
    (["python.exe", "explorer.exe"], {}, None),
])
def test_shell_detection(chain, env, name):
    got = S.detect(env=env, chain=chain, system="Windows")
    assert got["name"] == name and got["evidence"]


def test_detected_shell_decides_the_fix_and_the_flag_wins():
    s = copy.deepcopy(load(PT_CPU))
    s["platform"]["shell"] = {"name": "cmd", "evidence": "parent process cmd.exe"}
    r = report(validate(copy.deepcopy(s)))
    assert found(r)["TE202"]["fix"].startswith("C:\\Users\\user\\miniconda3\\envs\\pt-gpu\\python.exe -m pip")
    s["platform"]["python"]["executable"] = "C:\\Users\\John Smith\\miniconda3\\envs\\pt-gpu\\python.exe"
    fix = found(report(validate(copy.deepcopy(s))))["TE202"]["fix"]
    assert fix.startswith('"C:\\Users\\John Smith\\miniconda3\\envs\\pt-gpu\\python.exe" -m pip')  # cmd.exe: no &
    s["request"] = {"frameworks": [], "shell": "powershell"}
    fix = found(report(validate(copy.deepcopy(s))))["TE202"]["fix"]
    assert fix.startswith('& "C:\\Users\\John Smith\\miniconda3\\envs\\pt-gpu\\python.exe" -m pip')


# ---------------------------------------------------------------- the guides' symptom table, explained

SYMPTOMS = [
    # (snapshot, what the user pastes, signature, layer, the finding that confirms it)
    (BASE, "ModuleNotFoundError: No module named 'tensorflow'", "tensorflow-module-not-found", "env", "TE813"),
    (TF_CUDART, "2022-03-14 10:21:07.516183: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
                "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found",
     "tensorflow-dlopen-library", "tensorflow", "TE801"),
    (PT_CPU, ">>> torch.cuda.is_available()\nFalse\n>>> torch.cuda.is_available() returns False",
     "cuda-is-available-false", "torch-build", "TE202"),
    (TF_CUDART, "nvidia-smi shows 0MiB memory used while training", "gpu-not-used", "gpu-unused", "TE801"),
    (TF_CUDART, "Task Manager: CPU at 100% but GPU utilization 0%", "gpu-not-used", "gpu-unused", "TE801"),
    (PT_CPU, "Task Manager: CPU at 100% but GPU utilization 0%", "gpu-not-used", "gpu-unused", "TE202"),
    (BOTH, "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0", "tensorflow-cudnn-mismatch",
     "cudnn", "TE812"),
    (TF_DLL, "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The specified module could "
             "not be found.", "tensorflow-dll-load-failed", "windows-runtime", "TE808"),
]


@pytest.mark.parametrize("name,text,signature,layer,code", SYMPTOMS, ids=[f"{s[2]}-{s[0]}" for s in SYMPTOMS])
def test_explain_names_the_framework_and_the_layer(name, text, signature, layer, code):
    r = diagnose.diagnose(text, rep(name), machine="saved report")
    assert (r["signature"], r["layer"]) == (signature, layer)
    present = [c for c in r["causes"] if c["present"]]
    assert present and code in present[0]["findings"], r["causes"]
    area = found(rep(name))[code]["area"]
    assert area == ("torch" if code == "TE202" else "tensorflow")


def test_tensorflows_dll_failure_is_not_blamed_on_torch():
    r = diagnose.diagnose("ImportError: DLL load failed while importing _pywrap_tensorflow_internal: x", rep(TF_DLL),
                          machine="saved report")
    assert "TensorFlow" in r["explanation"] and "not torch's" in r["explanation"]
    assert "Visual C++ Redistributable" in r["fix"] or "VCRedist" in r["fix"]
    assert not any(c["present"] and "TE201" in c["findings"] for c in r["causes"])
