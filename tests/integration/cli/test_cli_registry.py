"""The command registry (torch_envcheck/cli.py): `--help` lists every command without importing
one, a run imports the command that runs (and the doctor's flags when they stand before it), and a
command whose module is broken fails alone (one line, exit 2) while the others work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from paths import REPO, SNAP_DIR

from torch_envcheck import cli

H100 = os.path.join(SNAP_DIR, "h100_cu130_healthy.json")
COMMAND_MODULES = sorted({info.module for info in cli.COMMANDS.values()})


def _loaded_after(argv: list[str]) -> tuple[set[str], subprocess.CompletedProcess]:
    """The command modules imported by `torch-envcheck ARGV` in a fresh interpreter."""
    code = ("import sys, json\nfrom torch_envcheck import cli\n"
            "try:\n    rc = cli.main(json.loads(sys.argv[1]))\nexcept SystemExit as e:\n    rc = e.code\n"
            "mods = json.loads(sys.argv[2])\n"
            "sys.stderr.write('LOADED ' + json.dumps([m for m in mods if m in sys.modules]) + '\\n')\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(cli.__file__))))
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(argv), json.dumps(COMMAND_MODULES)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED ")][-1]
    return set(json.loads(line[len("LOADED "):])), proc


def test_help_lists_every_command_and_imports_none():
    loaded, proc = _loaded_after(["--help"])
    assert loaded == set()
    for name in cli.COMMANDS:
        assert name in proc.stdout


def test_a_run_imports_its_command_only():
    loaded, proc = _loaded_after(["pin", "--from-json", H100])
    assert "torch==2.14.1+cu130" in proc.stdout
    assert loaded == {cli.COMMANDS["pin"].module}


def test_doctor_flags_before_a_command_import_the_doctors_flags_too():
    loaded, proc = _loaded_after(["--from-json", H100, "pin"])
    assert "torch==2.14.1+cu130" in proc.stdout
    assert loaded == {cli.COMMANDS["doctor"].module, cli.COMMANDS["pin"].module}


def test_the_command_is_found_after_global_flags_and_their_values():
    assert cli.find_command(["--from-json", "advise", "pin"]) == "pin"      # 'advise' is the file name
    assert cli.find_command(["--from-json=advise", "advise"]) == "advise"
    assert cli.find_command(["--from", "pin", "readme-line"]) == "readme-line"  # abbreviated, as argparse allows
    assert cli.find_command(["--json", "-v"]) is None
    assert cli.find_command(["--", "advise"]) is None


def test_a_broken_command_fails_alone(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "pin", cli.CommandInfo("torch_envcheck.no_such_module", "broken"))
    assert cli.main(["pin", "--from-json", H100]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the pin command is unavailable: ModuleNotFoundError" in err[0]
    assert cli.main(["readme-line", "--from-json", H100]) == 0
    assert capsys.readouterr().out.startswith("torch 2.14.1+cu130")
