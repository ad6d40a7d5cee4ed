"""`pytest --envcheck`: a failing test whose error is an environment error gets the explanation in a
report section; other failures get none, and without --envcheck nothing changes."""

from __future__ import annotations

import subprocess
import sys

from _explain_helpers import child_env

from torch_envcheck.commands.selftest import _plugin_autoloaded

PROJECT = '''
import sys

def test_driver_warning_then_failure():
    sys.stderr.write("UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).\\n")
    assert False, "CUDA is not available"

def test_plain_failure():
    assert 1 + 1 == 3

def test_import_error():
    raise ImportError("libcudnn.so.9: cannot open shared object file: No such file or directory")

def test_out_of_memory():
    raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
'''
SECTION = "torch-envcheck: environment error"


def _pytest(tmp_path, *args) -> str:
    (tmp_path / "test_project.py").write_text(PROJECT)
    plugin = [] if _plugin_autoloaded() else ["-p", "torch_envcheck.pytest_plugin"]
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, "-rN", *args, "test_project.py"]
    p = subprocess.run(cmd, cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr  # four failing tests
    return p.stdout


def _sections(out: str) -> dict:
    """test name -> the text of its failure report."""
    parts, name = {}, None
    for line in out.splitlines():
        if line.startswith("____") and line.endswith("____"):
            name = line.strip("_ ")
            parts[name] = ""
        elif name:
            parts[name] += line + "\n"
    return parts


def test_environment_failures_are_explained(tmp_path):
    parts = _sections(_pytest(tmp_path, "--envcheck"))
    assert SECTION in parts["test_driver_warning_then_failure"]
    assert "driver-too-old" in parts["test_driver_warning_then_failure"]  # found in the captured stderr
    assert SECTION in parts["test_import_error"] and "cudnn-library-missing" in parts["test_import_error"]
    assert SECTION not in parts["test_plain_failure"]
    assert SECTION not in parts["test_out_of_memory"]  # not an environment problem


def test_nothing_without_envcheck(tmp_path):
    assert SECTION not in _pytest(tmp_path)
