"""`pin --conda`, `advise` in a conda env, and the conda area in the report, on the recorded conda
snapshots (tests/snapshots/conda_*.json) and on hostile ones."""

from __future__ import annotations

import copy
import json
import sys

import pytest

from torch_envcheck.advice.env_yml import NotACondaEnv, build, yaml_str

from _rules_helpers import load
from doctor_support import run_cli

# Saved reports, recorded snapshots and indexes the tests serve: nothing here reads this machine's torch.
pytestmark = pytest.mark.any_torch_build

HEALTHY = "conda_linux_pytorch23_cu121_healthy"
PIP_OVER = "conda_linux_pytorch23_pip_torch_over"
CPUONLY = "conda_linux_cpuonly_on_gpu"
WINDOWS = "conda_windows10_tf26_cuda110_on_path"


def _yaml(text):
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load(text)


def test_pin_conda_pins_channels_and_build_strings():
    doc = _yaml(build(load(HEALTHY)))
    assert doc["name"] == "dl" and doc["channels"][:2] == ["pytorch", "nvidia"] and "defaults" in doc["channels"]
    deps = [d for d in doc["dependencies"] if isinstance(d, str)]
    assert "pytorch::pytorch=2.3.0=py3.11_cuda12.1_cudnn8.9.2_0" in deps
    assert "pytorch::pytorch-cuda=12.1=ha16c6d3_5" in deps and "nvidia::cuda-runtime=12.1.0=0" in deps
    assert "numpy=1.26.4" in deps  # asked for in the history: pinned to what is installed


def test_pin_conda_leaves_out_the_pip_packages_that_broke_the_env():
    text = build(load(PIP_OVER))
    doc = _yaml(text)
    pip = next(d["pip"] for d in doc["dependencies"] if isinstance(d, dict))
    assert pip == ["transformers==4.41.2"]
    assert "# torch==2.3.1 left out: conda's pytorch 2.3.0 is the one pinned above" in text
    assert "# nvidia-cudnn-cu12==8.9.2.26 left out: conda's cuda-runtime provides CUDA in this env" in text


def test_pin_conda_escapes_and_validates_hostile_values():
    s = load(HEALTHY)
    s["conda"]["env_name"] = 'x"\n- evil: 1'
    pkgs = s["conda"]["packages"]
    next(p for p in pkgs if p["name"] == "pytorch")["build"] = "py3\nchannels: [evil]"
    pkgs.append({"name": "cudnn", "version": "8.9; rm -rf ~", "build": "0", "channel": "nvidia"})
    pkgs.append({"name": "nccl", "version": "2.20", "build": "0", "channel": "https://evil.example/x y"})
    s["conda"]["pip"].append({"name": "evil\n- x", "version": "1.0"})
    s["conda"]["pip"].append({"name": "ok-pkg", "version": "1.0 --index-url http://evil"})
    text = build(s)
    doc = _yaml(text)
    assert doc["name"] == "env" and "evil" not in json.dumps(doc["channels"])
    deps = [d for d in doc["dependencies"] if isinstance(d, str)]
    assert "pytorch::pytorch=2.3.0" in deps  # the bad build string is dropped, the pin stays
    assert not any("rm -rf" in d or "evil" in d for d in deps) and "nccl=2.20=0" in deps
    assert all(line.startswith(("#", " ", "name:", "channels:", "dependencies:")) for line in text.splitlines())
    assert yaml_str('a"b\\c\x1b\n') == '"a\\"b\\\\c\\x1b\\x0a"' and _yaml(yaml_str('a"b\\c\x1b\n')) == 'a"b\\c\x1b\n'


def test_pin_conda_outside_conda_is_an_error():
    with pytest.raises(NotACondaEnv, match="not a conda env"):
        build(load("h100_cu130_healthy"))


def test_pin_conda_and_advise_from_the_command_line(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(load(CPUONLY)))
    pin = run_cli(sys.executable, ["pin", "--conda", "--from-json", str(path)])
    assert pin.returncode == 0 and "pytorch::cpuonly=2.0=0" in pin.stdout and pin.stdout.startswith("# conda env 'dl-cpu'")
    adv = run_cli(sys.executable, ["advise", "--from-json", str(path)])
    lines = adv.stdout.splitlines()
    assert adv.returncode == 0, adv.stderr
    # the conda form: the installed release (2.3) with the newest of its pytorch-cuda builds the driver runs
    assert lines[-2:] == ["conda remove cpuonly", "conda install pytorch=2.3 torchvision pytorch-cuda=12.1 -c pytorch -c nvidia"]
    assert any("pytorch/pytorch#138506" in line for line in lines)
    assert any(line.startswith("# or with pip inside the env (the route to any torch the conda channels do not carry):")
               for line in lines)
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(load("h100_cu130_healthy")))
    out = run_cli(sys.executable, ["pin", "--conda", "--from-json", str(plain)])
    assert out.returncode == 1 and "not a conda env" in out.stderr and "Traceback" not in out.stderr
    adv = run_cli(sys.executable, ["advise", "-q", "--from-json", str(plain)])
    assert adv.returncode == 0 and "conda" not in adv.stdout


def test_advise_in_a_conda_env_without_a_driver_gives_cpuonly():
    from torch_envcheck.advice.recommend import advise
    from torch_envcheck.advice.conda import conda_form
    s = load(HEALTHY)
    s["driver"].update({"present": False, "gpus": []})
    assert conda_form(s, *advise(s))[1] == "conda install pytorch=2.3 torchvision cpuonly -c pytorch"
    # without the installed pytorch: conda-forge's newest CPU build, the pytorch channel's packages out first
    s["conda"]["packages"] = [p for p in s["conda"]["packages"] if p["name"] != "pytorch"]
    assert conda_form(s, *advise(s))[1] == ("conda remove --force torchvision pytorch-cuda pytorch-mutex\n"
                                            "conda install -c conda-forge 'pytorch=2.13.*=cpu*' torchvision")


def test_advise_in_a_conda_env_prefers_conda_forge_past_the_pytorch_channel():
    from torch_envcheck.advice.recommend import advise
    from torch_envcheck.advice.conda import conda_form
    s = load(HEALTHY)
    s["conda"]["packages"] = [p for p in s["conda"]["packages"] if p["name"] != "pytorch"]
    why, cmd = conda_form(s, *advise(s))
    # RTX 3090 (8.6), driver 550 (CUDA 12.4): conda-forge's 2.13 with CUDA 12.9 (sm_86 in its arch list), which
    # that driver runs through minor-version compatibility; not the pytorch channel's 2.5 (its last release)
    assert cmd.splitlines() == ["conda remove --force torchvision pytorch-cuda pytorch-mutex",
                                "conda install -c conda-forge 'pytorch=2.13.*=cuda129*' torchvision cuda-version=12.9"]
    assert any("pytorch/pytorch#138506" in w for w in why)
    assert any("sm_86" in w and "pytorch-cpu-feedstock" in w and "minor-version" in w for w in why)


def test_advise_in_a_conda_env_takes_the_pytorch_channel_where_conda_forge_has_nothing():
    from torch_envcheck.advice.recommend import advise
    from torch_envcheck.advice.conda import conda_form
    s = load(HEALTHY)
    s["conda"]["packages"] = [p for p in s["conda"]["packages"] if p["name"] != "pytorch"]
    # a CUDA 11.8 driver: conda-forge's builds in the tables are CUDA 12.6 and newer (no CUDA 11 build runs on
    # it), the pytorch channel's 2.5 has pytorch-cuda 11.8
    s["driver"].update({"version": "520.61.05", "cuda_version": "11.8"})
    why, cmd = conda_form(s, *advise(s))
    assert cmd == "conda install pytorch=2.5 torchvision pytorch-cuda=11.8 -c pytorch -c nvidia"
    assert any("conda-forge has no build" in w for w in why)


def test_report_shows_the_conda_area_only_for_conda_envs(tmp_path):
    conda = run_cli(sys.executable, ["--from-json", str(_write(tmp_path, HEALTHY)), "--no-color"])
    assert "[✓] conda env: dl (conda, 192 packages), pytorch 2.3.0 py3.11_cuda12.1_cudnn8.9.2_0" in conda.stdout
    md = run_cli(sys.executable, ["--from-json", str(_write(tmp_path, HEALTHY)), "--markdown"])
    assert "| conda env |" in md.stdout
    plain = run_cli(sys.executable, ["--from-json", str(_write(tmp_path, "h100_cu130_healthy")), "--no-color"])
    assert "conda env" not in plain.stdout and plain.returncode == 0
    js = json.loads(run_cli(sys.executable, ["--from-json", str(_write(tmp_path, WINDOWS)), "--json"]).stdout)
    assert js["summary"]["conda"] == "failure"


def _write(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(copy.deepcopy(load(name))))
    return path


@pytest.mark.parametrize("name", [HEALTHY, PIP_OVER, CPUONLY, WINDOWS])
def test_conda_consumers_read_only_declared_facts(name):
    """pin --conda, advise's conda form, the conda rules and headline read through the contract's view."""
    from torch_envcheck.facts import contract
    from torch_envcheck.advice.recommend import advise
    from torch_envcheck.advice.conda import conda_form
    from torch_envcheck.doctor.headlines.conda import headline
    from torch_envcheck.doctor.rules import conda as conda_rules
    view, reads = contract.record_reads(load(name))
    build(view)
    conda_form(view, *advise(view))
    for rule in conda_rules.RULES:
        rule(view)
    headline(view)
    assert any(p.startswith("conda.packages[]") for p in reads)
    assert contract.undeclared(reads) == []
