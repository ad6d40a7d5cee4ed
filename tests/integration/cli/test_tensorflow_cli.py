"""TensorFlow in the other commands: `advise` (--framework, two environments when one cannot serve
both CUDA generations), `readme-line`, `pin`, and the env_check.py template's TensorFlow check."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from torch_envcheck.advice import tensorflow as tf_advise
from torch_envcheck.commands.pin import lines as pin_lines
from torch_envcheck.commands.readme_line import line as readme_line

from _rules_helpers import load

from paths import REPO
TEMPLATE = os.path.join(REPO, "torch_envcheck", "templates", "env_check.py")


def _cli(*args, stdin=None):
    env = dict(os.environ, PYTHONPATH=REPO, NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "torch_envcheck", *args], capture_output=True, text=True, env=env,
                          input=stdin, timeout=300)


def _wsl2_cu130(tmp_path):
    """WSL 2, RTX 3070, Windows driver 581.57 (CUDA 13.0): torch's newest fit is cu130, TF's is CUDA 12.5."""
    s = copy.deepcopy(load("tf_wsl2_tf221_and_cuda"))
    s["driver"].update(version="581.57", cuda_version="13.0")
    path = tmp_path / "wsl2.json"
    path.write_text(json.dumps(s))
    return str(path)


def test_advise_two_environments_when_cuda_generations_differ(tmp_path):
    p = _cli("advise", "--framework", "both", "--from-json", _wsl2_cu130(tmp_path))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "one environment cannot serve both" in out
    cmds = [ln for ln in out.splitlines() if not ln.startswith("#")]
    assert len(cmds) == 2
    assert cmds[0].startswith("python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/python -m pip install")
    assert "whl/cu130" in cmds[0]
    assert cmds[1] == "python3 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install 'tensorflow[and-cuda]==2.21.*'"


def test_advise_one_environment_when_both_fit(tmp_path):
    s = copy.deepcopy(load("tf_wsl2_tf221_and_cuda"))
    s["driver"].update(version="560.94", cuda_version="12.6")  # torch's newest fit is a CUDA 12 build too
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s))
    p = _cli("advise", "--from-json", str(path))  # TF installed: both, without --framework
    assert p.returncode == 0, p.stderr
    assert "one environment cannot serve both" not in p.stdout
    cmds = [ln for ln in p.stdout.splitlines() if not ln.startswith("#")]
    assert len(cmds) == 2 and "tensorflow[and-cuda]==2.21.*" in cmds[1] and "-m venv" not in p.stdout
    assert "whl/cu126" in cmds[0]


def test_advise_framework_tensorflow_alone_and_quiet(tmp_path):
    p = _cli("advise", "--framework", "tensorflow", "-q", "--from-json", _wsl2_cu130(tmp_path))
    assert p.returncode == 0
    assert p.stdout.strip() == "/home/lee/.venv/bin/python -m pip install 'tensorflow[and-cuda]==2.21.*'"


def test_advise_without_tensorflow_is_unchanged():
    p = _cli("advise", "-q", "--from-json", os.path.join(REPO, "tests", "snapshots", "h100_cu130_healthy.json"))
    assert p.returncode == 0 and len(p.stdout.strip().splitlines()) == 1 and "tensorflow" not in p.stdout


@pytest.mark.parametrize("name,expect", [
    # native Windows, cmd.exe or PowerShell not told apart: double quotes, which both pass to pip as one word
    ("tf_win11_tf215_rtx4070", 'install "tensorflow==2.15.*"'),        # native Windows: CPU-only TF
    ("tf_torch_cu130_one_venv", "install 'tensorflow-cpu==2.21.*'"),   # no driver: tensorflow-cpu
    ("tf_win10_tf26_cudart_missing", 'install "tensorflow==2.6.*"'),   # before and-cuda: tested toolkit by hand
])
def test_tensorflow_advice_per_machine(name, expect):
    why, cmd, _cuda = tf_advise.advise(load(name))
    assert cmd and cmd.endswith(expect), (why, cmd)
    if name == "tf_win11_tf215_rtx4070":
        assert any("WSL 2" in w for w in why)
    if name == "tf_win10_tf26_cudart_missing":
        assert any("CUDA 11.2 and cuDNN 8.1" in w for w in why)


def test_advise_bad_framework_exits_2():
    p = _cli("advise", "--framework", "jax")
    assert p.returncode == 2 and "invalid choice" in p.stderr


def test_readme_line_includes_tensorflow():
    assert readme_line(load("tf_wsl2_tf221_and_cuda")).endswith(
        "tensorflow 2.21.0 (CUDA 12.5.1) / NVIDIA GeForce RTX 3070")
    assert "tensorflow" not in readme_line(load("h100_cu130_healthy"))


def test_pin_includes_tensorflow():
    out = pin_lines(load("tf_wsl2_tf221_and_cuda"))
    assert "tensorflow[and-cuda]==2.21.0" in out and "keras==3.12.0" in out
    out = pin_lines(load("tf_torch_cu130_one_venv"))  # the and-cuda wheels are missing: no extra
    assert "tensorflow==2.21.0" in out
    s = copy.deepcopy(load("tf_torch_cu130_one_venv"))
    s["tensorflow"]["version"] = "2.21.0\n--index-url http://evil"
    assert not [ln for ln in pin_lines(s) if "evil" in ln]


def _fake_tf_dir(tmp_path, body):
    d = tmp_path / "fake" / "tensorflow"
    d.mkdir(parents=True)
    (d / "__init__.py").write_text(body)
    return str(tmp_path / "fake")


def test_template_reports_a_broken_tensorflow(tmp_path):
    env = dict(os.environ, PYTHONPATH=_fake_tf_dir(tmp_path, "raise ImportError('libcudart.so.12: cannot open')\n"))
    p = subprocess.run([sys.executable, TEMPLATE, "--skip-timing", "--skip-doctor"], capture_output=True, text=True,
                       env=env, timeout=300, cwd=tmp_path)
    assert p.returncode == 1
    assert "TensorFlow is installed but cannot be imported: ImportError: libcudart.so.12" in p.stdout


def test_template_skip_tensorflow(tmp_path):
    env = dict(os.environ, PYTHONPATH=_fake_tf_dir(tmp_path, "raise ImportError('x')\n"))
    p = subprocess.run([sys.executable, TEMPLATE, "--skip-timing", "--skip-doctor", "--skip-tensorflow"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert "TensorFlow" not in p.stdout


def test_template_stays_standalone():
    with open(TEMPLATE, encoding="utf-8") as fh:
        src = fh.read()
    assert "from torch_envcheck" not in src and "import tensorflow" not in src.split('TF_CHILD = r"""')[0]


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="TensorFlow is not installed in this interpreter (CI's tf-cpu venv has it)")
def test_template_runs_a_real_tensorflow_matmul(tmp_path):
    p = subprocess.run([sys.executable, TEMPLATE, "--skip-timing", "--skip-doctor"], capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "tf matmul" in p.stdout and "1024 x 1024 fp32 on " in p.stdout


def test_pin_and_readme_line_take_only_known_distribution_names():
    s = copy.deepcopy(load("tf_torch_cu130_one_venv"))
    s["tensorflow"]["distribution"] = "tensorflow\n--index-url http://evil"
    assert not [ln for ln in pin_lines(s) if "evil" in ln]
    assert "evil" not in readme_line(s)
