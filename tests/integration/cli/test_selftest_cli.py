"""`torch-envcheck selftest`: the pytest command it runs and how it maps pytest's exit status."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

import torch_envcheck
from torch_envcheck.commands import selftest as selftest_cli

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torch_envcheck.__file__)))


def parse(argv):
    parser = argparse.ArgumentParser(prog="torch-envcheck")
    sub = parser.add_subparsers(dest="command")
    selftest_cli.add_arguments(sub.add_parser("selftest"))
    return parser.parse_args(["selftest", *argv])


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def fake_call(cmd, env, cwd=None):
        seen.append((cmd, env))
        return seen_rc[0]
    seen_rc = [0]
    monkeypatch.setattr(selftest_cli.subprocess, "call", fake_call)
    return seen, seen_rc


def test_runs_the_shipped_suite_with_the_header(calls, monkeypatch):
    seen, _ = calls
    monkeypatch.setattr(selftest_cli, "_plugin_autoloaded", lambda: True)
    monkeypatch.delenv(selftest_cli.ENV_REQUIRE_GPU, raising=False)
    assert selftest_cli.run(parse(["--", "-x", "-k", "cuda"])) == 0
    cmd, env = seen[0]
    # -P: the working directory (a source checkout, say) must not shadow the installed package.
    safe = ["-P"] if sys.version_info >= (3, 11) else []
    assert cmd[:5 + len(safe)] == [sys.executable, *safe, "-m", "pytest", "--pyargs", "torch_envcheck.selftest"]
    assert "-rs" in cmd and "--envcheck" in cmd
    assert "-p" not in cmd[cmd.index("no:cacheprovider") + 1:]  # the entry point loads the plugin
    assert cmd[-3:] == ["-x", "-k", "cuda"]  # the `--` separator is not passed on
    assert selftest_cli.ENV_REQUIRE_GPU not in env  # GPU tests may skip unless asked


def test_loads_the_plugin_itself_when_not_installed(calls, monkeypatch):
    seen, _ = calls
    monkeypatch.setattr(selftest_cli, "_plugin_autoloaded", lambda: False)
    selftest_cli.run(parse([]))
    cmd = seen[0][0]
    i = cmd.index(selftest_cli.PLUGIN_MODULE)
    assert cmd[i - 1] == "-p" and cmd[-1] == "--envcheck"


def test_require_gpu_sets_the_environment(calls):
    seen, _ = calls
    selftest_cli.run(parse(["--require-gpu"]))
    assert seen[0][1][selftest_cli.ENV_REQUIRE_GPU] == "1"


@pytest.mark.parametrize("pytest_rc, ours", [(0, 0), (1, 1), (2, 2), (3, 1), (4, 2), (5, 1)])
def test_exit_status(calls, pytest_rc, ours):
    _, rc = calls
    rc[0] = pytest_rc
    assert selftest_cli.run(parse([])) == ours


def test_without_pytest(monkeypatch, capsys):
    real = selftest_cli.importlib.util.find_spec
    monkeypatch.setattr(selftest_cli.importlib.util, "find_spec",
                        lambda name, *a: None if name == "pytest" else real(name, *a))
    assert selftest_cli.run(parse([])) == 2
    assert "pytest is not installed" in capsys.readouterr().err


def test_really_runs(tmp_path):
    # A real run, narrowed to the quick torch checks: the header comes first, the result last.
    pytest.importorskip("torch")
    code = ("import sys; from torch_envcheck.commands import selftest as s; import argparse;"
            "p = argparse.ArgumentParser(); s.add_arguments(p);"
            "sys.exit(s.run(p.parse_args(sys.argv[1:])))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p))
    p = subprocess.run([sys.executable, "-c", code, "--", "-k", "test_torch_imports or test_torch_computes_on_cpu"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "envcheck: Python" in out and "2 passed" in out


ISOLATION_CASES = {
    # a project's conftest that uses a hook of a plugin the environment lacks
    "conftest.py": "def pytest_unknown_envcheck_hook(config):\n    pass\n",
    # its pytest configuration naming a plugin that is not installed
    "pytest.ini": "[pytest]\naddopts = -p no_such_envcheck_plugin\n",
}


def test_runs_isolated_from_the_folder_it_is_started_in(tmp_path):
    # Started from a project whose conftest.py and pytest.ini would break any pytest run there
    # (pytest would stop at "unknown hook ..." or the missing plugin), the self-test still passes.
    pytest.importorskip("torch")
    for name, text in ISOLATION_CASES.items():
        (tmp_path / name).write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (PKG_PARENT, os.environ.get("PYTHONPATH")) if p),
               PYTEST_ADDOPTS="-p no_such_envcheck_plugin_either")
    p = subprocess.run([sys.executable, "-m", "torch_envcheck", "selftest", "--", "-k", "test_torch_imports"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert "1 passed" in out and "unknown hook" not in out


def test_the_command_carries_its_own_configuration(calls, tmp_path):
    seen, _ = calls
    assert selftest_cli.run(parse([])) == 0
    cmd, env = seen[0]
    ini = cmd[cmd.index("-c") + 1]
    assert os.path.basename(ini) == "pytest.ini" and cmd[cmd.index("--rootdir") + 1] == os.path.dirname(ini)
    assert cmd[cmd.index("--confcutdir") + 1].endswith("selftest")
    assert "PYTEST_ADDOPTS" not in env and "PYTEST_PLUGINS" not in env
