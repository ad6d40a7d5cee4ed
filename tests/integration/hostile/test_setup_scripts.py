"""Setup scripts: `advise --script` deletes only what it made.  A folder is the script's own
only when it holds the script's marker file, written as soon as the script made the folder: an
existing venv or conda env (~/miniconda3), a symlink, a folder whose marker is a symlink are all
refused, never removed.  The .bat keeps DEST in `set "ENV_DIR=..."` and uses it only quoted (cmd
splits an unquoted `envs,old` at the comma)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import shell_models as M
from hostile_support import posix_only

from torch_envcheck.advice import plan as planmod
from torch_envcheck.advice import scripts
from _rules_helpers import load

bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

FAKE = textwrap.dedent("""\
    #!{python}
    import os, sys
    if sys.argv[1:3] == ["-m", "venv"]:
        d = sys.argv[3]
        os.makedirs(os.path.join(d, "bin"), exist_ok=True)
        open(os.path.join(d, "pyvenv.cfg"), "w").close()
        os.symlink(os.path.abspath(__file__), os.path.join(d, "bin", "python"))
""")


@pytest.fixture
def script(tmp_path):
    plan = planmod.from_advice(load("h100_cu130_healthy"), companions=())
    path = tmp_path / "setup.sh"
    path.write_text(scripts.render(plan, "sh", "unused", "torch_envcheck"))
    fake = tmp_path / "fakepython"
    fake.write_text(FAKE.format(python=sys.executable))
    fake.chmod(0o755)
    return path, {**os.environ, "PYTHON": str(fake)}


def _run(script, env, dest):
    return subprocess.run(["bash", str(script), str(dest)], env=env, capture_output=True, text=True, timeout=60)


@bash
@posix_only
@pytest.mark.parametrize("kind", ["venv", "conda", "plain"])
def test_an_environment_the_script_did_not_make_is_never_removed(tmp_path, script, kind):
    path, env = script
    victim = tmp_path / "miniconda3"
    victim.mkdir()
    if kind == "venv":
        (victim / "pyvenv.cfg").write_text("home = /usr/bin\n")
    elif kind == "conda":
        (victim / "conda-meta").mkdir()
        (victim / "conda-meta" / "history").write_text("==> 2024 <==\n")
    (victim / "precious.txt").write_text("keep me")
    r = _run(path, env, victim)
    assert r.returncode == 1 and "is not an environment this script made" in r.stderr, r.stderr
    assert (victim / "precious.txt").read_text() == "keep me"


@bash
@posix_only
def test_links_are_refused_even_to_the_scripts_own_folder(tmp_path, script):
    path, env = script
    own = tmp_path / "own"
    assert _run(path, env, own).returncode == 0 and (own / scripts.MARKER).is_file()
    link = tmp_path / "link"
    link.symlink_to(own)
    r = _run(path, env, link)
    assert r.returncode == 1 and own.exists()
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / scripts.MARKER).symlink_to(own / scripts.MARKER)
    (planted / "precious.txt").write_text("keep me")
    r = _run(path, env, planted)
    assert r.returncode == 1 and (planted / "precious.txt").exists()
    # its own folder is rebuilt: removed and made again, marker and all
    (own / "stale.txt").write_text("from the last run")
    assert _run(path, env, own).returncode == 0
    assert not (own / "stale.txt").exists() and (own / scripts.MARKER).is_file()


def test_ps1_and_bat_remove_only_a_marked_folder():
    plan = planmod.from_advice(load("windows_cpu_wheel_rtx4070"), companions=())
    ps1 = scripts.render(plan, "ps1", "C:\\envs\\old", "torch_envcheck")
    assert "pyvenv.cfg" not in ps1 and "conda-meta" not in ps1
    assert "Test-Path -LiteralPath (Join-Path $EnvDir $Mark) -PathType Leaf" in ps1 and "ReparsePoint" in ps1
    bat = scripts.render(plan, "bat", "envs,old", "torch_envcheck")
    assert "pyvenv.cfg" not in bat and 'if exist "%ENV_DIR%\\%MARK%" goto :remove' in bat


def test_bat_keeps_a_dest_with_cmd_separators_whole():
    plan = planmod.from_advice(load("windows_cpu_wheel_rtx4070"), companions=())
    for dest in ("envs,old", "a;b=c d", "x & calc", "C:\\Program Files (x86)\\env"):
        bat = scripts.render(plan, "bat", dest, "torch_envcheck").split("\r\n")
        assert f'set "ENV_DIR={dest}"' in bat
        for line in bat:
            if "%ENV_DIR%" in line and not line.startswith("::"):
                # every use is inside double quotes: after expansion, what stands outside quotes is
                # the same as with a plain name (the value's , ; = & ( ) stay literal)
                assert _outside(line.replace("%ENV_DIR%", dest)) == _outside(line.replace("%ENV_DIR%", "plain")), line
        rm = next(ln for ln in bat if ln.startswith("rmdir"))
        assert M.argvs(M.cmd(rm.replace("%ENV_DIR%", dest).replace(" || goto :fail", "")))[0] == ["rmdir", "/s", "/q", dest]


def _outside(line: str) -> str:
    out, quoted = [], False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            out.append(ch)
    return "".join(out)
