"""`torch-envcheck init`: writes the template, never overwrites without --force, and --check compares."""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys

import pytest

import torch_envcheck
from torch_envcheck.commands import init as init_cli


def run_init(argv, capsys):
    parser = argparse.ArgumentParser(prog="torch-envcheck init")
    init_cli.add_arguments(parser)
    rc = init_cli.run(parser.parse_args([str(a) for a in argv]))
    out, err = capsys.readouterr()
    return rc, out, err


def test_template_is_stamped_with_its_version():
    text = init_cli.template_text()
    version = init_cli.template_version(text)
    assert isinstance(version, int) and version >= 1
    header = text.splitlines()[1]
    assert f"template version {version}" in header
    assert f"torch_envcheck {torch_envcheck.__version__}" in header
    compile(text, "env_check.py", "exec")  # it is valid Python


def test_writes_the_template(tmp_path, capsys):
    rc, out, _ = run_init([tmp_path], capsys)
    assert rc == 0
    path = tmp_path / "env_check.py"
    assert path.read_text() == init_cli.template_text()
    assert os.stat(path).st_mode & stat.S_IXUSR
    assert str(path) in out


def test_never_overwrites_without_force(tmp_path, capsys):
    path = tmp_path / "env_check.py"
    path.write_text("# the user's own script\n")
    rc, _, err = run_init([tmp_path], capsys)
    assert rc == 1
    assert path.read_text() == "# the user's own script\n"
    assert "already exists" in err and "--force" in err


def test_force_overwrites(tmp_path, capsys):
    path = tmp_path / "env_check.py"
    path.write_text("# old\n")
    rc, _, _ = run_init(["--force", tmp_path], capsys)
    assert rc == 0
    assert path.read_text() == init_cli.template_text()


def test_check_same_differs_missing(tmp_path, capsys):
    rc, _, err = run_init(["--check", tmp_path], capsys)
    assert rc == 2 and "does not exist" in err
    run_init([tmp_path], capsys)
    rc, out, _ = run_init(["--check", tmp_path], capsys)
    assert rc == 0 and "up to date" in out

    path = tmp_path / "env_check.py"
    text = path.read_text().replace("default=2048", "default=512") + "# my addition\n"
    path.write_text(text)
    rc, out, _ = run_init(["--check", tmp_path], capsys)
    assert rc == 1
    assert "2 line(s) of yours are not in the template, 1 line(s) of the template are not in yours" in out
    assert "-    parser.add_argument(\"--size\", type=int, default=512," in out
    assert "+    parser.add_argument(\"--size\", type=int, default=2048," in out
    assert "-# my addition" in out
    assert path.read_text() == text  # --check never writes


def test_check_reports_an_old_template_version(tmp_path, capsys):
    text = init_cli.template_text()
    current = init_cli.template_version(text)
    old = text.replace(f"TEMPLATE_VERSION = {current}", "TEMPLATE_VERSION = 0", 1)
    (tmp_path / "env_check.py").write_text(old)
    rc, out, _ = run_init(["--check", tmp_path], capsys)
    assert rc == 1
    assert f"current template (version {current}; yours was written from template version 0)" in out
    (tmp_path / "env_check.py").write_text("print('hi')\n")
    rc, out, _ = run_init(["--check", tmp_path], capsys)
    assert rc == 1 and "no TEMPLATE_VERSION line" in out


def test_bad_directory(tmp_path, capsys):
    rc, _, err = run_init([tmp_path / "nope"], capsys)
    assert rc == 2 and "does not exist" in err
    f = tmp_path / "file"
    f.write_text("")
    rc, _, err = run_init([f], capsys)
    assert rc == 2 and "is not a directory" in err


def test_force_and_check_are_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        run_init(["--force", "--check", tmp_path], capsys)
    assert exc.value.code == 2


def test_through_the_command_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(torch_envcheck.__file__)), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "torch_envcheck", "init", str(tmp_path)]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert second.returncode == 1 and "already exists" in second.stderr
    check = subprocess.run(cmd[:-1] + ["--check", str(tmp_path)], capture_output=True, text=True, env=env,
                           timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
