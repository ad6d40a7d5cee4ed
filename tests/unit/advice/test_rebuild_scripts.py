"""The setup scripts of `advise --script`: the POSIX one is parsed by bash and run against a stand-in
Python that records every command, so hostile values (quotes, $(...), backticks, spaces) must arrive
as the exact words planned; the PowerShell and cmd ones are checked word by word against their
quoting rules (no PowerShell parser installs from Debian's packages), and all three keep their shape."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from torch_envcheck import cli
from torch_envcheck._util import escape
from torch_envcheck.advice import plan as planmod
from torch_envcheck.advice import scripts
from torch_envcheck.advice.sources import Sources

from paths import SNAP_DIR as SNAPS
HOSTILE_DEST = "/tmp/my env/it's $(touch PWNED) `touch PWNED2` \"q\" ; rm -rf ~"
HOSTILE_SPEC = "/home/user/src/torch_envcheck $(touch PWNED3)"

FAKE_PYTHON = textwrap.dedent("""\
    #!{python}
    # Stand-in interpreter: records its arguments; `-m venv DIR` makes a venv-shaped folder.
    import json, os, sys
    with open(os.environ["FAKE_LOG"], "a") as fh:
        fh.write(json.dumps(sys.argv[1:]) + "\\n")
    if sys.argv[1:3] == ["-m", "venv"]:
        d = sys.argv[3]
        os.makedirs(os.path.join(d, "bin"))
        open(os.path.join(d, "pyvenv.cfg"), "w").close()
        os.symlink(os.path.abspath(__file__), os.path.join(d, "bin", "python"))
""")


def _snap(name):
    with open(os.path.join(SNAPS, name), encoding="utf-8") as fh:
        return json.load(fh)


def _plan(tmp_path, **kw):
    req = tmp_path / "req dir" / "requirements $(x).txt"
    req.parent.mkdir()
    req.write_text("numpy>=1.26\n")
    return planmod.from_advice(_snap("h100_cu130_healthy.json"), companions=("torchvision", "torchaudio"),
                               requirements=str(req),
                               sources=Sources(mirror="https://mirror.example/pytorch-wheels/",
                                               find_links=("/srv/wheels dir/it's",)), **kw)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_sh_script_runs_the_planned_words_exactly(tmp_path):
    plan = _plan(tmp_path)
    text = scripts.render(plan, "sh", HOSTILE_DEST, HOSTILE_SPEC)
    script = tmp_path / "setup.sh"
    script.write_text(text)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    fake = tmp_path / "fakepython"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable))
    fake.chmod(0o755)
    dest = str(tmp_path / "my env" / "it's $(touch PWNED) `touch PWNED2` \"q\"")
    log = tmp_path / "log.jsonl"
    work = tmp_path / "cwd"
    work.mkdir()
    env = {**os.environ, "PYTHON": str(fake), "FAKE_LOG": str(log)}
    for run in range(2):  # re-runnable: the second run removes the first run's environment
        r = subprocess.run(["bash", str(script), dest], cwd=work, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr + r.stdout
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    per_run = len(calls) // 2
    first = calls[:per_run]
    assert first[0] == ["-m", "venv", dest]
    expected = [["-m", "pip", "install", *s["pip"]] for s in plan.steps()]
    assert first[1:1 + len(expected)] == expected
    assert first[-2] == ["-m", "pip", "install", HOSTILE_SPEC, "pytest", "--find-links", "/srv/wheels dir/it's"]
    assert first[-1] == ["-m", "torch_envcheck", "selftest"]
    assert calls[per_run:] == first
    assert not any(p.name.startswith("PWNED") for p in work.iterdir()) and not (tmp_path / "PWNED").exists()
    assert "source" in r.stdout and "bin/activate" in r.stdout


def test_sh_script_refuses_a_folder_it_did_not_make(tmp_path):
    text = scripts.render(_plan(tmp_path), "sh", "unused", "torch_envcheck")
    (tmp_path / "setup.sh").write_text(text)
    victim = tmp_path / "precious"
    victim.mkdir()
    (victim / "data.txt").write_text("keep me")
    r = subprocess.run(["bash", str(tmp_path / "setup.sh"), str(victim)], capture_output=True, text=True,
                       env={**os.environ, "PYTHON": "/nonexistent"})
    assert r.returncode == 1 and "is not an environment this script made" in r.stderr
    assert (victim / "data.txt").read_text() == "keep me"


def _ps_words(value):
    return escape.shell_quote(value, "powershell")


def test_ps1_script_quotes_every_value_for_powershell(tmp_path):
    plan = _plan(tmp_path)
    plan.os_name = "Windows"
    text = scripts.render(plan, "ps1", "C:\\Users\\o'brien\\env $(x)", "C:\\src\\torch_envcheck")
    assert "param([string]$EnvDir = 'C:\\Users\\o''brien\\env $(x)')" in text
    for s in plan.steps():
        assert "& $Py -m pip install " + " ".join(_ps_words(w) for w in s["pip"]) + ";" in text
    assert "'/srv/wheels dir/it''s'" in text
    assert f"py -{plan.python} -m venv $EnvDir" in text
    assert "VC\\Runtimes\\x64" in text and "vc_redist.x64.exe" in text  # the VC++ runtime check
    # no PATH-order warning: torch loads the DLLs its wheel bundles and never searches PATH for them
    # (knowledge/data/windows_dll_search.json), so a CUDA toolkit on PATH changes nothing for it
    assert "NVIDIA GPU Computing Toolkit" not in text and "cudaOnPath" not in text
    assert "Computing Toolkit" not in scripts.render(plan, "bat", "C:\\env", "C:\\src\\torch_envcheck")
    # Outside single-quoted strings no data value appears: strip every '...' and look for the values.
    import re
    # (comment lines hold values too, as text that cannot end the comment: test_comments_cannot_be_ended_by_a_value)
    code = "\n".join(ln for ln in text.split("\r\n") if not ln.lstrip().startswith("#"))
    bare = re.sub(r"'(?:[^']|'')*'", "''", code)
    for needle in ("o'brien", "$(x)", "wheels dir", "requirements $(x)"):
        assert needle not in bare


def test_bat_script_quotes_every_value_for_cmd(tmp_path):
    plan = _plan(tmp_path)
    plan.os_name = "Windows"
    text = scripts.render(plan, "bat", "C:\\env 100%", "C:\\src\\torch_envcheck")
    assert 'set "ENV_DIR=C:\\env 100%%"' in text
    for s in plan.steps():
        assert '"%PY%" -m pip install ' + " ".join(escape.shell_quote(w, "cmd") for w in s["pip"]) + " || goto :fail" in text
    assert text.count("goto :fail") >= len(plan.steps()) + 2
    assert "\r\n" in text and text.startswith("@echo off")


def test_conda_scripts_create_a_conda_env(tmp_path):
    plan = _plan(tmp_path, conda=True)
    sh = scripts.render(plan, "sh", "envs/torch", "torch_envcheck")
    assert f"create -y -p \"$ENV_DIR\" python={plan.python} pip" in sh and "conda activate" in sh
    assert subprocess.run(["bash", "-n"], input=sh, text=True).returncode == 0
    ps1 = scripts.render(plan, "ps1", "envs\\torch", "torch_envcheck")
    assert f"create -y -p $EnvDir python={plan.python} pip" in ps1


def test_conda_scripts_take_conda_forges_pytorch_where_it_fits(tmp_path):
    """advise --conda --script: the conda env is created with conda-forge's pytorch for this machine (the
    GTX 1080: CUDA 12.9, whose list has sm_60), quoted for each script's shell, and pip installs no torch."""
    from doctor_support import run_inprocess
    path = os.path.join(SNAPS, "pascal_gtx1080_cu130.json")
    words = {"sh": "-c conda-forge 'pytorch=2.13.*=cuda129*' torchvision cuda-version=12.9 python=3.12 pip",
             "ps1": "-c conda-forge 'pytorch=2.13.*=cuda129*' torchvision cuda-version=12.9 python=3.12 pip",
             "bat": '-c conda-forge "pytorch=2.13.*=cuda129*" torchvision cuda-version=12.9 python=3.12 pip'}
    for kind, want in words.items():
        rc, text, err = run_inprocess(["advise", "--conda", "--script", kind, "--from-json", path])
        assert rc == 0, err
        assert want in text and "pytorch/pytorch#138506" in text
        assert "download.pytorch.org" not in text and "pip install torch" not in text.replace("torch_envcheck", "")
    rc, sh, _err = run_inprocess(["advise", "--conda", "--script", "sh", "--from-json", path])
    assert subprocess.run(["bash", "-n"], input=sh, text=True).returncode == 0
    # --torch 2.14: conda-forge has no 2.14 in the tables, so the env is made with pip's torch
    rc, sh, _err = run_inprocess(["advise", "--conda", "--torch", "2.14", "--script", "sh", "--from-json", path])
    assert rc == 0 and "conda-forge" not in sh and "download.pytorch.org/whl/cu126" in sh


def test_comments_cannot_be_ended_by_a_value(tmp_path):
    plan = _plan(tmp_path)
    plan.reasons.append("GPU name\nrm -rf / #\x1b]0;title\x07")
    text = scripts.render(plan, "sh", "env", "torch_envcheck")
    assert "\nrm -rf /" not in text and "\x1b" not in text


def test_advise_script_command_writes_an_executable_file(tmp_path, capsys):
    out = tmp_path / "setup_env.sh"
    snap_file = os.path.join(SNAPS, "h100_cu130_healthy.json")
    rc = cli.main(["advise", "--from-json", snap_file, "--script", "sh", "-o", str(out), "--with", "torchaudio"])
    assert rc == 0 and os.access(out, os.X_OK)
    text = out.read_text()
    # torch 2.14 has no paired torchaudio release: torchaudio is installed unpinned, never as 2.14.*
    assert " torchaudio " in text and "torchaudio==2.14" not in text and "download.pytorch.org/whl/cu" in text
    rc = cli.main(["advise", "--from-json", snap_file, "--mirror", "https://mirror.example/whl/"])
    printed = capsys.readouterr().out
    assert rc == 0 and "--index-url https://mirror.example/whl/cu" in printed
    rc = cli.main(["advise", "--from-json", snap_file, "--mirror", "not a url"])
    assert rc == 2 and "is not a URL" in capsys.readouterr().err


def test_advise_docker(capsys):
    snap_file = os.path.join(SNAPS, "h100_cu130_healthy.json")
    assert cli.main(["advise", "--from-json", snap_file, "--docker", "--devel"]) == 0
    out = capsys.readouterr().out
    assert "docker pull pytorch/pytorch:" in out and "-devel" in out and "docker run --gpus all" in out
    assert cli.main(["advise", "--from-json", os.path.join(SNAPS, "cpu_venv_no_gpu.json"), "--docker"]) == 1
