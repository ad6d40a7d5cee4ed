"""Each conda rule fires on the env that has its problem and stays silent on the one that does not.
The conda facts come from the probe run on prefixes with real conda-meta record shapes."""

from __future__ import annotations

import json

import pytest

from torch_envcheck import doctor
from torch_envcheck.doctor.probes import conda as probe
from torch_envcheck.doctor.report import findings_for

from _conda_helpers import pytorch_cuda_env, record, write_prefix
from _rules_helpers import by_code, load

GPU_BASE = "h100_cu130_healthy"
NO_GPU_BASE = "cpu_venv_no_gpu"


def conda_snap(tmp_path, recs, pip=(), base=GPU_BASE, torch=None, system="Linux", search_path=None, name="dl"):
    site = write_prefix(tmp_path, recs, pip=pip)
    s = load(base)
    facts = probe.probe_prefix(str(tmp_path), env={}, system="Linux", site_dirs=[site])
    facts.update({"prefix": f"/home/user/miniconda3/envs/{name}", "env_name": name})
    if search_path is not None:
        facts["search_path"] = search_path
    s["conda"] = facts
    s["platform"]["system"] = system
    s["platform"]["python"].update({"conda_env": name, "venv": False})
    if torch:
        s["torch"].update(torch)
    return s


def conda_findings(s):
    """The conda area's findings, as the doctor evaluates them."""
    return [f for f in findings_for(s) if f["area"] == "conda"]


def conda_codes(s):
    return [(f["code"], f["severity"]) for f in conda_findings(s)]


def cpu_env():
    recs = [r for r in pytorch_cuda_env() if r["name"] not in ("pytorch", "pytorch-cuda", "pytorch-mutex")]
    return recs + [record("pytorch", "2.3.0", "py3.11_cpu_0", "pytorch", depends=["pytorch-mutex 1.0 cpu"]),
                   record("pytorch-mutex", "1.0", "cpu", "pytorch"), record("cpuonly", "2.0", "0", "pytorch")]


# ---------------------------------------------------------------- silent outside conda, ok inside

def test_silent_outside_a_conda_env():
    s = load(GPU_BASE)
    assert conda_findings(s) == []
    assert not any(f["area"] == "conda" for f in findings_for(s))
    assert "conda" not in doctor.report(s)["summary"]


def test_healthy_env_is_ok(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env())
    found = conda_findings(s)
    assert [(f["code"], f["severity"]) for f in found] == [("TE900", "ok")]
    assert "pytorch 2.3.0 (py3.11_cuda12.1_cudnn8.9.2_0, channel pytorch)" in found[0]["message"]
    assert doctor.report(s)["summary"]["conda"] == "ok"


# ---------------------------------------------------------------- TE901 / TE902

def test_cpu_pytorch_with_gpu_fires_with_the_conda_fix(tmp_path):
    s = conda_snap(tmp_path, cpu_env())
    f = by_code(conda_findings(s), "TE901")[0]
    assert f["severity"] == "failure" and "py3.11_cpu_0" in f["message"] and "cpuonly" in f["message"]
    lines = f["fix"].splitlines()
    # the driver of the base snapshot runs CUDA 13.0: the newest pytorch-cuda of 2.3 (12.1)
    assert lines[0] == "conda remove cpuonly"
    assert lines[1] == "conda install pytorch==2.3.0 torchvision pytorch-cuda=12.1 -c pytorch -c nvidia"
    assert any(line.startswith("conda remove --force pytorch") for line in lines)
    assert "download.pytorch.org/whl/cu" in f["fix"] and f["explains"] == ["TE202"]


def test_cpu_pytorch_fix_fits_an_old_driver(tmp_path):
    s = conda_snap(tmp_path, cpu_env())
    s["driver"]["cuda_version"] = "11.8"
    s["driver"]["version"] = "520.61.05"
    assert "pytorch-cuda=11.8 -c pytorch -c nvidia" in by_code(conda_findings(s), "TE901")[0]["fix"]


def test_cpu_pytorch_silent_without_a_gpu(tmp_path):
    s = conda_snap(tmp_path, cpu_env(), base=NO_GPU_BASE)
    assert conda_codes(s) == [("TE900", "ok")]


def test_conda_forge_cpu_build_gets_the_conda_forge_fix(tmp_path):
    # 2.4.1 is older than conda-forge's first release in the table: its newest CUDA build for the H100 on a
    # CUDA 13.0 driver (2.13, CUDA 13.0: sm_90 in its arch list), with cuda-version pinning the CUDA runtime
    recs = [record("pytorch", "2.4.1", "cpu_mkl_py311h2b2b7e0_100", "conda-forge"), record("python", "3.11.9", "h1_0")]
    f = by_code(conda_findings(conda_snap(tmp_path, recs, torch={"version": "2.4.1", "local": "cpu", "cuda": None})), "TE901")[0]
    assert f["fix"].splitlines()[0] == "conda install -c conda-forge 'pytorch=2.13.*=cuda130*' cuda-version=13.0"
    assert "sm_90" in f["explanation"] and "pytorch-cpu-feedstock" in f["explanation"]


def test_conda_forge_keeps_the_installed_release_when_conda_forge_builds_it(tmp_path):
    recs = [record("pytorch", "2.9.1", "cpu_mkl_py311h2b2b7e0_100", "conda-forge"), record("python", "3.11.9", "h1_0")]
    f = by_code(conda_findings(conda_snap(tmp_path, recs, torch={"version": "2.9.1", "local": "cpu", "cuda": None})), "TE901")[0]
    assert f["fix"].splitlines()[0] == "conda install -c conda-forge 'pytorch=2.9.*=cuda129*' cuda-version=12.9"


def test_conda_forge_fix_never_downgrades_the_installed_torch(tmp_path):
    # a pip torch 2.14 imported in the env: conda-forge's newest (2.13) would be a downgrade, so no conda-forge line
    recs = [record("pytorch", "2.9.1", "cpu_mkl_py311h2b2b7e0_100", "conda-forge"), record("python", "3.11.9", "h1_0")]
    f = by_code(conda_findings(conda_snap(tmp_path, recs, torch={"version": "2.14.1"})), "TE901")[0]
    assert "conda-forge" not in f["fix"] and "download.pytorch.org/whl/cu" in f["fix"]
    assert "without downgrading" in f["explanation"]


def test_pytorch_channel_env_moves_to_conda_forge_when_its_builds_lack_the_gpus_arch(tmp_path):
    # pytorch 2.3 (pytorch channel, cpuonly) on a Blackwell GPU (12.0) with a CUDA 13.0 driver: 2.3's
    # pytorch-cuda builds have no sm_120 (nor PTX), so the fix is conda-forge's 2.13 with CUDA 13.0 (sm_120 in
    # its arch list), after the pytorch channel's packages are taken out
    s = conda_snap(tmp_path, cpu_env(), torch={"version": "2.3.0", "local": "cpu", "cuda": None})
    for g in s["driver"]["gpus"]:
        g["capability"] = "12.0"
    lines = by_code(conda_findings(s), "TE901")[0]["fix"].splitlines()
    assert not any("pytorch-cuda=" in ln for ln in lines if not ln.startswith("conda remove"))
    assert lines[0] == "conda remove --force pytorch torchvision cpuonly pytorch-mutex"
    assert lines[1] == "conda install -c conda-forge 'pytorch=2.13.*=cuda130*' torchvision cuda-version=13.0"

def test_pytorch_cuda_missing_fires_and_is_silent_with_it(tmp_path):
    recs = [r for r in pytorch_cuda_env() if r["name"] not in ("pytorch-cuda", "pytorch-mutex")]
    s = conda_snap(tmp_path / "a", recs)
    f = by_code(conda_findings(s), "TE902")[0]
    assert f["severity"] == "failure" and "without pytorch-cuda" in f["message"]
    assert "pytorch-cuda=12.1 -c pytorch -c nvidia" in f["fix"]
    assert not by_code(conda_findings(conda_snap(tmp_path / "b", pytorch_cuda_env())), "TE902")
    # before 1.13 the pytorch channel used cudatoolkit: no pytorch-cuda expected
    old = [record("pytorch", "1.12.1", "py3.9_cuda11.3_cudnn8.3.2_0", "pytorch",
                  depends=["cudatoolkit >=11.3,<11.4"]), record("cudatoolkit", "11.3.1", "h2bc3f7f_2", "pkgs/main")]
    assert conda_codes(conda_snap(tmp_path / "c", old)) == [("TE900", "ok")]


# ---------------------------------------------------------------- TE903 torch twice

def test_torch_twice_says_pip_is_imported(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env(), pip=[("torch", "2.3.1", "pip", []), ("nvidia-cudnn-cu12", "8.9.2.26", "pip", [])],
                   torch={"version": "2.3.1", "installer": "pip"})
    f = by_code(conda_findings(s), "TE903")[0]
    assert f["severity"] == "warning" and "Python imports pip's torch 2.3.1" in f["message"]
    assert f["details"]["imported"] == "pip" and f["explains"] == ["TE905"]
    assert f["fix"].splitlines()[1] == ("conda install --force-reinstall pytorch==2.3.0 torchvision==0.18.0 "
                                        "pytorch-cuda==12.1 -c pytorch -c nvidia")
    assert "-m pip uninstall -y torch nvidia-cudnn-cu12" in f["fix"].splitlines()[0]


def test_torch_twice_says_conda_is_imported_and_fails_when_torch_breaks(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env(), pip=[("torch", "2.2.0", "pip", [])],
                   torch={"version": "2.3.0", "installer": "conda"})
    assert "Python imports conda's pytorch 2.3.0" in by_code(conda_findings(s), "TE903")[0]["message"]
    s["torch"].update({"importable": False, "version": None})
    f = by_code(conda_findings(s), "TE903")[0]
    assert f["severity"] == "failure" and "torch does not import" in f["message"]


def test_torch_once_is_silent(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env(), pip=[("transformers", "4.41.2", "pip", [])])
    assert conda_codes(s) == [("TE900", "ok")]


# ---------------------------------------------------------------- TE904 / TE905

def test_pip_overwriting_conda_runtime_libraries(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env(), pip=[("intel-openmp", "2024.1.0", "pip", ["../../libgomp.so.1,,"])])
    f = by_code(conda_findings(s), "TE904")[0]
    assert f["severity"] == "warning" and "lib/libgomp.so.1, which conda's libgomp owns" in f["message"]
    assert "torch-envcheck pin --conda > environment.yml" in f["fix"] and "conda env create -n dl-new" in f["fix"]


def test_pip_runtime_file_conda_does_not_own_is_silent(tmp_path):
    s = conda_snap(tmp_path, pytorch_cuda_env(), pip=[("intel-openmp", "2024.1.0", "pip", ["../../libiomp5.so,,"])])
    assert not by_code(conda_findings(s), "TE904")


def test_nvidia_wheels_beside_conda_cuda(tmp_path):
    s = conda_snap(tmp_path / "a", pytorch_cuda_env(), pip=[("nvidia-cublas-cu12", "12.1.3.1", "pip", [])])
    f = by_code(conda_findings(s), "TE905")[0]
    assert "nvidia-cublas-cu12 12.1.3.1" in f["message"] and "pytorch-cuda 12.1" in f["message"]
    # the same wheels in an env where conda has no CUDA package: nothing to clash with
    recs = [record("python", "3.11.9", "h1_0", "pkgs/main")]
    s = conda_snap(tmp_path / "b", recs, pip=[("nvidia-cublas-cu12", "12.1.3.1", "pip", [])])
    assert not by_code(conda_findings(s), "TE905")


# ---------------------------------------------------------------- TE906 TensorFlow

def tf_env(toolkit="11.2.2", cudnn="8.1.0.77"):
    return [record("python", "3.8.18", "h1_0", "pkgs/main"), record("cudatoolkit", toolkit, "h933977f_10", "conda-forge"),
            record("cudnn", cudnn, "h3e0f4f4_0", "conda-forge")]


@pytest.mark.parametrize("toolkit,cudnn,severity,pins", [
    ("11.0.221", "8.1.0.77", "failure", "cudatoolkit=11.2"),
    ("10.1.243", "7.6.5", "failure", "cudatoolkit=11.2 cudnn=8.1"),
    ("11.2.2", "8.0.5", "failure", "cudnn=8.1"),
    ("11.3.1", "8.2.1", "warning", "cudatoolkit=11.2"),
])
def test_tensorflow_against_cudatoolkit_and_cudnn(tmp_path, toolkit, cudnn, severity, pins):
    s = conda_snap(tmp_path, tf_env(toolkit, cudnn), pip=[("tensorflow", "2.6.0", "pip", [])])
    f = by_code(conda_findings(s), "TE906")[0]
    assert f["severity"] == severity and "CUDA 11.2 and cuDNN 8.1" in f["message"]
    assert f["fix"] == f"conda install --force-reinstall -c conda-forge {pins}"


def test_tensorflow_with_its_tested_toolkit_is_silent(tmp_path):
    s = conda_snap(tmp_path, tf_env() + [record("tensorflow", "2.6.0", "gpu_py38h1_0", "pkgs/main")])
    assert conda_codes(s) == [("TE900", "ok")]


# ---------------------------------------------------------------- TE907 pytorch's CUDA

def test_pytorch_cuda_version_mismatch(tmp_path):
    recs = [r for r in pytorch_cuda_env() if r["name"] != "pytorch-cuda"] + [record("pytorch-cuda", "11.8", "h7e8668a_5", "pytorch")]
    f = by_code(conda_findings(conda_snap(tmp_path / "a", recs)), "TE907")[0]
    assert "built for CUDA 12.1" in f["message"] and "pytorch-cuda 11.8" in f["message"]
    assert f["fix"] == "conda install --force-reinstall pytorch-cuda=12.1 -c pytorch -c nvidia"
    old = [record("pytorch", "1.12.1", "py3.9_cuda11.3_cudnn8.3.2_0", "pytorch", depends=["cudatoolkit >=11.3,<11.4"]),
           record("cudatoolkit", "10.2.89", "hfd86e86_1", "pkgs/main")]
    f = by_code(conda_findings(conda_snap(tmp_path / "b", old)), "TE907")[0]
    assert f["fix"] == "conda install --force-reinstall cudatoolkit=11.3 -c pytorch -c conda-forge"
    assert not by_code(conda_findings(conda_snap(tmp_path / "c", pytorch_cuda_env())), "TE907")


# ---------------------------------------------------------------- TE908 Windows PATH

TOOLKIT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin"
ENV_BIN = "C:\\Users\\user\\miniconda3\\envs\\dl\\Library\\bin"


@pytest.mark.parametrize("order,expected,tf", [
    ([(0, "cuda", TOOLKIT, "11.0"), (4, "env-library-bin", ENV_BIN, None)], [("TE908", "failure")], True),
    ([(0, "cuda", TOOLKIT.replace("11.0", "11.2"), "11.2"), (4, "env-library-bin", ENV_BIN, None)], [("TE908", "warning")], True),
    ([(0, "env-library-bin", ENV_BIN, None), (3, "cuda", TOOLKIT, "11.0")], [("TE900", "ok")], True),
    # PATH's order matters only to a framework that searches PATH (TensorFlow <= 2.10); torch
    # loads its DLLs through os.add_dll_directory, so the same PATH in an env without TensorFlow is fine
    ([(0, "cuda", TOOLKIT, "11.0"), (4, "env-library-bin", ENV_BIN, None)], [("TE900", "ok")], False),
])
def test_windows_system_cuda_ahead_of_the_env(tmp_path, order, expected, tf):
    sp = [{"index": i, "kind": k, "dir": d, "cuda_version": v} for i, k, d, v in order]
    s = conda_snap(tmp_path, tf_env(), system="Windows", search_path=sp,
                   pip=[("tensorflow", "2.6.0", "pip", [])] if tf else ())
    assert conda_codes(s) == expected
    if expected[0][0] == "TE908":
        fix = by_code(conda_findings(s), "TE908")[0]["fix"]
        from torch_envcheck._util.escape import shell_quote
        lines = fix.splitlines()  # the shell not told apart: PowerShell's line, then cmd.exe's (Anaconda Prompt)
        assert lines[0] == "# in PowerShell:" and lines[2] == "# in cmd.exe (Anaconda Prompt):"
        assert lines[1] == ("$env:Path = ($env:Path -split ';' | Where-Object { $_ -ne "
                            + shell_quote(order[0][2], "powershell") + " }) -join ';'")
        assert lines[3] == f'set "PATH=%PATH:{order[0][2]};=%"'


def test_windows_rule_is_silent_on_linux(tmp_path):
    sp = [{"index": 0, "kind": "cuda", "dir": "/usr/local/cuda-11.0/bin", "cuda_version": "11.0"}]
    assert conda_codes(conda_snap(tmp_path, tf_env(), search_path=sp)) == [("TE900", "ok")]


# ---------------------------------------------------------------- TE990 / TE991, hostile input

def test_unreadable_record_and_crashed_probe(tmp_path):
    write_prefix(tmp_path, [])
    s = conda_snap(tmp_path, pytorch_cuda_env())
    s["conda"]["errors"] = ["conda-meta/cudnn-8.9.2-h0_0.json: not valid JSON (Expecting value: line 1 column 1)"]
    assert conda_codes(s) == [("TE900", "ok"), ("TE991", "warning")]
    crashed = load(GPU_BASE)
    crashed["probe_errors"] = {"conda": "RuntimeError: cannot list /home/user/env/conda-meta"}
    crashed["conda"] = None
    f = by_code(findings_for(crashed), "TE990")[0]
    assert f["area"] == "conda" and f["severity"] == "warning"
    assert doctor.report(crashed)["summary"]["conda"] == "warning"


def test_hostile_snapshot_values_are_escaped(tmp_path):
    s = conda_snap(tmp_path, cpu_env(), name="dl\x1b[31m\nevil")
    next(p for p in s["conda"]["packages"] if p["name"] == "pytorch")["version"] = "2.3.0; rm -rf ~\n"
    s["conda"]["manager"] = "rm -rf /"
    found = conda_findings(s)
    f = by_code(found, "TE901")[0]
    assert "\x1b" not in f["message"] and "\n" not in f["message"]
    assert "rm -rf ~" not in f["fix"] and f["fix"].splitlines()[1].startswith("conda install pytorch=2.3 ")
    json.dumps([f.to_dict() for f in found])


@pytest.mark.parametrize("junk", [None, [], "x", {"packages": "x", "pip": {"a": 1}, "search_path": 3, "prefix": "/p"},
                                  {"prefix": "/p", "packages": {"pytorch": {"version": 5}}, "pip": [{"name": None}]},
                                  {"prefix": "/p", "packages": [{"name": "pytorch", "version": 5}, None, "x"],
                                   "requested": [None, {"name": 3}], "pip": [{"name": "torch", "version": None}]}])
def test_malformed_conda_section_never_crashes(junk):
    s = load(GPU_BASE)
    s["conda"] = junk
    found = findings_for(s)
    assert not any(f["code"] == "TE990" for f in found)  # no rule crashed


def test_conda_built_tensorflow_depends_win_over_the_upstream_table(tmp_path):
    # a conda tensorflow-base built against cudatoolkit 11.3 (its packager's choice, not TF's tested 11.2)
    tf = [record("tensorflow-base", "2.6.0", "gpu_py39h1_0", "pkgs/main",
                 depends=["cudatoolkit >=11.3,<11.4", "cudnn >=8.2.1,<9.0a0", "python >=3.9,<3.10.0a0"]),
          record("tensorflow", "2.6.0", "gpu_py39h2_0", "pkgs/main")]
    s = conda_snap(tmp_path / "a", tf_env("11.3.1", "8.2.1") + tf)
    assert conda_codes(s) == [("TE900", "ok")]
    s = conda_snap(tmp_path / "b", tf_env("11.2.2", "8.2.1") + tf)
    f = by_code(conda_findings(s), "TE906")[0]
    assert "built with CUDA 11.3," in f["message"] and f["fix"] == "conda install --force-reinstall -c conda-forge cudatoolkit=11.3"


def test_new_env_fix_on_windows_writes_utf8(tmp_path):
    s = conda_snap(tmp_path, tf_env(), pip=[("nvidia-cublas-cu11", "11.11.3.6", "pip", [])], system="Windows", search_path=[])
    fix = by_code(conda_findings(s), "TE905")[0]["fix"].splitlines()
    assert fix[1:5] == ["# in PowerShell:", "torch-envcheck pin --conda | Out-File -Encoding utf8 environment.yml",
                        "# in cmd.exe (Anaconda Prompt):", "torch-envcheck pin --conda > environment.yml"]
    assert fix[5] == "conda env create -n dl-new -f environment.yml"
