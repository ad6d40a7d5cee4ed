"""Every fix of every recorded snapshot through the fix checker: no fix leaves an installed
distribution's requirement unsatisfied, installs a wheel that does not exist for the platform, uses a
path of another platform's layout, or carries an unquoted value; and the checker itself fails on the
fixes the issue names as wrong (its oracle is the facts: the pins in the wheels' METADATA, the
tables' platforms, the layout of each OS)."""

from __future__ import annotations

import re

import pytest

import shell_models as M
from _rules_helpers import SNAPSHOT_NAMES as NAMES, load
from torch_envcheck.advice import check
from torch_envcheck._util import escape
from torch_envcheck.advice.platform import Platform
from torch_envcheck.doctor.rules import evaluate


def _fixes(s):
    return [(f["code"], f["fix"], f) for f in evaluate(s) if f.get("fix")]


@pytest.mark.parametrize("name", NAMES)
def test_no_fix_of_a_recorded_snapshot_fails_the_checker(name):
    s = load(name)
    for code, fix, f in _fixes(s):
        assert not check.problems(s, fix), (code, [p.text() for p in check.problems(s, fix)])
        assert "fix_problems" not in f["details"] and not fix.startswith("# caution"), code


# ---------------------------------------------------------------- quoting: each line read back by the shell models

# The fixes' own constructs around quoted values: a new environment's folder ($HOME\venvs\NAME, ~/venvs/NAME)
# is left to the shell to expand, and PATH is edited for the session by a pipeline whose one value is quoted.
_HOME_VENV = re.compile(r"\$HOME\\venvs\\(torch|tf)\b")
_PATH_EDIT = re.compile(r"^\$env:Path = \(\$env:Path -split ';' \| Where-Object \{ \$_ -ne (.+) \}\) -join ';'$")
# TE801's line for the toolkit folder NVIDIA's installer makes (its version from TensorFlow's table, no snapshot value)
_PATH_PREPEND = re.compile(r"^\$env:Path = '(C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v[0-9.]+\\bin);' \+ \$env:Path$")
# cmd.exe's forms of the same PATH edits (escape.path_prepend / path_remove): the folder is literal text
_CMD_PATH = re.compile(r'^set "PATH=(?:%PATH:(?P<drop>[^%"=]+);=%|(?P<first>[^%"]+);%PATH%)"$')
# `pin --conda` written to a file: our own redirection, in each shell's form
_TO_ENV_YML = re.compile(r"( > environment\.yml| \| Out-File -Encoding utf8 environment\.yml)$")
# a placeholder the reader replaces (`wsl --set-version <distro> 2`): words of the fix's own text
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z _-]*>")


def _unquoted_problem(line: str, shell: str) -> str | None:
    """None when the line is a comment or reads back as commands whose words are all literal."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if _PATH_PREPEND.match(text):
        return None
    text = _PLACEHOLDER.sub("PLACEHOLDER", _TO_ENV_YML.sub("", text))
    if shell == "cmd":
        if _CMD_PATH.match(text):
            return None
        try:
            M.cmd(text, allow_vars=("USERPROFILE",))
        except M.Unsafe as exc:
            return str(exc)
        return None
    if shell == escape.EITHER:  # one line for both Windows shells: the same words in each
        try:
            ps, cm = M.argvs(M.powershell(text)), M.argvs(M.cmd(text))
        except M.Unsafe as exc:
            return str(exc)
        return None if ps == cm else f"cmd.exe reads {cm}, PowerShell {ps}"
    if shell == "powershell":
        m = _PATH_EDIT.match(text)
        if m:  # the one value is the folder, which must read back as one literal word
            toks = M.powershell("x " + m.group(1))
            return None if len(toks) == 2 and toks[1][0] == "word" else f"PATH edit value: {m.group(1)}"
        text = _HOME_VENV.sub(lambda mm: f"HOMEVENVS_{mm.group(1)}", text)
    try:
        if shell == "posix":
            M.posix(text, allow_tilde=("~/venvs/",))
        else:
            M.powershell(text)
    except M.Unsafe as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", NAMES)
def test_every_fix_line_is_quoted_for_its_shell(name):
    s = load(name)
    base = Platform.of(s)
    for code, fix, _f in _fixes(s):
        p = base
        for line in fix.splitlines():
            p = check._section(line, p, base)  # a Windows fix's lines for inside WSL 2 are POSIX ones
            problem = _unquoted_problem(line, p.shell)
            assert problem is None, (code, line, problem)


@pytest.mark.parametrize("name", [n for n in NAMES if load(n).get("platform", {}).get("system") == "Windows"])
def test_no_posix_path_in_a_windows_fix(name):
    s = load(name)
    for code, fix, _f in _fixes(s):
        lines = [ln for ln in fix.splitlines() if not ln.lstrip().startswith("#")]
        if any("inside wsl" in ln.lower() for ln in fix.splitlines()):
            lines = lines[:1]  # (the rest runs inside WSL 2: Linux)
        for line in lines:
            assert not re.search(r"~/|/bin/python|bin/activate|/home/", line), (code, line)


# ---------------------------------------------------------------- the checker fails where the issue says a fix is wrong

def _kinds(s, text) -> dict:
    out: dict = {}
    for p in check.problems(s, text):
        out.setdefault(p.kind, []).append(p.detail)
    return out


def test_reinstalling_torch_after_tensorflow_replaced_its_wheels_breaks_tensorflow():
    s = load("tf217_after_torch251_import_fails")
    got = _kinds(s, "/home/lee/ml/bin/python -m pip install --force-reinstall torch==2.5.1 "
                    "--index-url https://download.pytorch.org/whl/cu124")
    # torch 2.5.1's METADATA pins nvidia-cudnn-cu12==9.1.0.70; TensorFlow 2.17's and-cuda extra ==8.9.7.29
    assert any("tensorflow requires nvidia-cudnn-cu12==8.9.7.29" in d for d in got["requires"]), got


def test_reinstalling_tensorflows_pins_after_torch_breaks_torch():
    s = load("tf218_torch251_cudnn_pins_clash_torch_last")
    got = _kinds(s, "/home/lee/ml/bin/python -m pip install 'tensorflow[and-cuda]==2.18.0'")
    assert any(d.startswith("torch requires nvidia-cudnn-cu12==9.1.0.70, which would leave 9.3.0.75")
               for d in got["requires"]), got
    # the same pins in a fresh environment break nothing; both frameworks in one fresh environment do
    assert not check.problems(s, "python3 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install "
                                 "'tensorflow[and-cuda]==2.18.0'")
    both = ("python3 -m venv ~/venvs/x && ~/venvs/x/bin/python -m pip install torch==2.5.1 --index-url "
            "https://download.pytorch.org/whl/cu124\n~/venvs/x/bin/python -m pip install 'tensorflow[and-cuda]==2.18.0'")
    assert "requires" in _kinds(s, both)


def test_an_uninstall_that_leaves_a_requirement_missing_is_caught():
    s = load("tf220_torch271_cu126_one_venv_pins_agree")
    got = _kinds(s, "/home/lee/ml/bin/python -m pip uninstall -y nvidia-cudnn-cu12")
    assert any("nvidia-cudnn-cu12" in d and "missing" in d for d in got["requires"]), got


def test_posix_venv_paths_on_windows_are_caught():
    s = load("win10_tf210_torch_cu118_one_venv")
    got = _kinds(s, "python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/python -m pip install torch")
    assert got.get("path"), got
    ps_line = ("py '-3.10' -m venv $HOME\\venvs\\torch; & $HOME\\venvs\\torch\\Scripts\\python.exe -m pip "
               "install torch==2.3.1 --index-url https://download.pytorch.org/whl/cu118")
    # the shell not told apart: a PowerShell-only line is a shell problem (cmd.exe would run it otherwise)
    assert _kinds(s, ps_line).get("shell") and not _kinds(s, ps_line).get("path")
    s = dict(s, request={"frameworks": [], "shell": "powershell"})  # --shell powershell
    assert not _kinds(s, ps_line)


@pytest.mark.parametrize("name,word,ok", [
    ("win10_tf210_cpu_build_gtx1660", "tensorflow[and-cuda]==2.10.1", False),   # no extra on Windows, none before 2.14
    ("linux_tf212_cpu_build_rtx3090", "tensorflow[and-cuda]==2.12.0", False),   # the extra exists from 2.14
    ("linux_tf212_cpu_build_rtx3090", "tensorflow[and-cuda]==2.16.1", True),
    ("linux_tf212_cpu_build_rtx3090", "tensorflow==2.12.0", True),
])
def test_and_cuda_is_checked_against_the_release_and_the_os(name, word, ok):
    s = load(name)
    exe = s["platform"]["python"]["executable"]
    cmd = (f"{exe} -m pip install '{word}'" if "/" in exe else f"{exe} -m pip install '{word}'")
    assert ("wheel" not in _kinds(s, cmd)) is ok


def test_the_pytorch_index_aarch64_wheel_is_refused_on_a_jetpack_6_jetson():
    s = load("jetson_agx_orin_pytorch_index_aarch64_wheel")
    got = _kinds(s, "/home/user/venv/bin/python -m pip install --force-reinstall torch==2.14.1 "
                    "--index-url https://download.pytorch.org/whl/cu126")
    assert got.get("wheel"), got
    # on Thor (JetPack 7, L4T R38) the index's aarch64 wheels are the ones that fit
    thor = load("jetson_thor_pytorch_index_aarch64_wheel")
    assert "wheel" not in _kinds(thor, "/home/user/venv/bin/python -m pip install torch==2.14.1 "
                                       "--index-url https://download.pytorch.org/whl/cu130")


def test_pip_install_torch_for_an_x86_64_python_under_rosetta_is_refused():
    s = load("macos_rosetta_x86_64_python")
    assert _kinds(s, "/Users/user/venvs/ml/bin/python -m pip install torch").get("wheel")
    # the native venv's python is another interpreter: installing there is the fix
    assert not check.problems(s, "~/venvs/torch-arm64/bin/python -m pip install torch")


def test_a_build_the_tables_do_not_have_for_this_os_is_refused():
    s = load("windows_cpu_wheel_rtx4070")   # 2.15's cu132 build exists for Linux only
    got = _kinds(s, "C:\\Users\\kim\\proj\\.venv\\Scripts\\python.exe -m pip install torch==2.15.0 "
                    "--index-url https://download.pytorch.org/whl/cu132")
    assert got.get("wheel"), got


def test_the_doctor_marks_a_fix_the_checker_rejects():
    # checked() is the runtime pass: a fix with problems says so in its first line and in its details
    s = load("tf217_after_torch251_import_fails")
    fix = ("/home/lee/ml/bin/python -m pip install --force-reinstall torch==2.5.1 --index-url "
           "https://download.pytorch.org/whl/cu124")
    text, found = check.checked(s, fix)
    assert text.startswith("# caution: torch-envcheck's fix checker found: requires:") and text.endswith("\n" + fix)
    assert found and found[0].startswith("requires")
    # through the report: the finding carries both
    from torch_envcheck.doctor.finding import finding
    from torch_envcheck.doctor.report import check_fixes
    (f,) = check_fixes(s, [finding("TE201", "failure", "x", fix=fix)])
    assert f.fix == text and f.details["fix_problems"] == found
