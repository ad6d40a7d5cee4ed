"""The command line: the doctor's flags given before a subcommand are applied to it (they were
silently dropped: `--from-json F advise` advised for this machine, `--json doctor` printed text),
or refused with one line and exit 2 when the subcommand does not take them.  And the last-resort
guard: an unexpected exception in a command is one line and exit 2, never a traceback."""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import redirect_stderr

import pytest

from doctor_support import REPO, run_cli, run_inprocess
from torch_envcheck import cli

SNAPS = os.path.join(REPO, "tests", "snapshots")
H100 = os.path.join(SNAPS, "h100_cu130_healthy.json")
MAC = os.path.join(SNAPS, "macos_apple_silicon.json")


def _run(argv):
    return run_inprocess(argv)


@pytest.mark.parametrize("command", ["advise", "pin", "readme-line", "doctor"])
@pytest.mark.parametrize("path", [H100, MAC])
def test_from_json_before_the_subcommand_equals_after(command, path):
    before = _run(["--from-json", path, command])
    after = _run([command, "--from-json", path])
    assert before == after, (before, after)
    assert before[0] in (0, 1) and before[1]


def test_from_json_before_advise_reads_the_file_not_this_machine():
    rc, out, _ = _run(["--from-json", H100, "advise"])
    assert rc == 0 and "/home/ana/venvs/train/bin/python -m pip install" in out and "cu130" in out
    rc, out, _ = _run(["--from-json", MAC, "readme-line"])
    assert rc == 0 and "macOS" in out and "MPS" in out


@pytest.mark.parametrize("flags", [["--json"], ["--markdown"], ["--verbose"], ["-v"], ["--no-color"],
                                   ["--timeout", "7"]])
def test_doctor_flags_before_doctor(flags):
    before = _run(flags + ["--from-json", H100, "doctor"])
    after = _run(["doctor"] + flags + ["--from-json", H100])
    plain = _run(flags + ["--from-json", H100])  # no subcommand: the doctor
    assert before == after == plain
    if flags == ["--json"]:
        assert json.loads(before[1])["schema"] == "torch_envcheck.report/1"
    if flags == ["--markdown"]:
        assert before[1].startswith("### torch-envcheck")


def test_timeout_before_a_subcommand_reaches_it(monkeypatch):
    from torch_envcheck.commands import _source as _args

    seen = {}

    def fake_snapshot(args, only=None):
        seen["timeout"] = args.timeout
        return None

    monkeypatch.setattr(_args, "snapshot", fake_snapshot)
    for command in ("doctor", "advise", "pin", "readme-line"):
        seen.clear()
        assert _run(["--timeout", "9", command])[0] == 2
        assert seen == {"timeout": 9.0}, command


@pytest.mark.parametrize("argv, needle", [
    (["--json", "pin"], "--json does not apply to the pin command"),
    (["--markdown", "pin"], "--markdown does not apply to the pin command"),
    (["--verbose", "readme-line"], "--verbose does not apply to the readme-line command"),
    (["--from-json", H100, "build"], "--from-json does not apply to the build command"),
    (["--json", "doctor", "--markdown"], "--json and --markdown cannot be combined"),
    (["--from-json", H100, "doctor", "--from-json", MAC], "--from-json is given both before and after doctor"),
])
def test_flags_a_subcommand_does_not_take_are_refused(argv, needle):
    rc, out, err = _run(argv)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"torch-envcheck: error: {needle}")


def test_json_before_advise_is_advise_json():
    """advise takes --json (the advice as JSON), so the doctor's --json before it is handed over."""
    assert _run(["--json", "advise", "--from-json", H100]) == _run(["advise", "--json", "--from-json", H100])


def test_same_flag_twice_with_the_same_value_is_fine():
    assert _run(["--from-json", H100, "pin", "--from-json", H100]) == _run(["pin", "--from-json", H100])


def test_subprocess_global_flags():
    """The installed entry point behaves the same (a fresh interpreter, real argv)."""
    proc = run_cli(sys.executable, ["--from-json", H100, "--json", "doctor"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["snapshot"]["driver"]["version"] == "580.95.05"
    proc = run_cli(sys.executable, ["--from-json", H100, "pin"])
    assert proc.returncode == 0 and "torch==2.14.1+cu130" in proc.stdout.splitlines()


@pytest.mark.parametrize("command", ["doctor", "advise", "pin", "readme-line"])
def test_last_resort_guard(monkeypatch, command):
    """A bug in a command (here: its run() raising) is one line and exit 2, not a traceback."""
    mod = cli._module(command)
    monkeypatch.setattr(mod, "run", lambda args: (_ for _ in ()).throw(KeyError("boom\x1b[2J")))
    monkeypatch.delenv("TORCH_ENVCHECK_DEBUG", raising=False)
    rc, out, err = _run([command, "--from-json", H100])
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"torch-envcheck {command}: internal error")
    assert "KeyError" in lines[0] and "\x1b" not in lines[0] and "Traceback" not in err
    monkeypatch.setenv("TORCH_ENVCHECK_DEBUG", "1")
    with pytest.raises(KeyError):
        cli.main([command, "--from-json", H100])


def test_doctor_renderer_failure_still_prints_the_report(monkeypatch):
    """A renderer bug: one line on stderr, the report as JSON on stdout, exit 1."""
    from torch_envcheck.doctor.render import terminal

    monkeypatch.setattr(terminal, "print_report", lambda *a, **k: 1 / 0)
    rc, out, err = _run(["--from-json", H100])
    assert rc == 1
    assert json.loads(out)["snapshot"]["driver"]["version"] == "580.95.05"
    assert err.strip().splitlines() == [err.strip()] and "ZeroDivisionError" in err


def test_python_m_doctor_has_the_guard(monkeypatch):
    """`python -m torch_envcheck.doctor` goes through the command line, its guard included."""
    import runpy
    from torch_envcheck.commands import doctor as doctor_cli

    monkeypatch.setattr(doctor_cli, "run", lambda args: [][1])
    monkeypatch.delenv("TORCH_ENVCHECK_DEBUG", raising=False)
    monkeypatch.setattr(sys, "argv", ["python -m torch_envcheck.doctor", "--from-json", H100])
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as ended:
        runpy.run_path(os.path.join(os.path.dirname(doctor_cli.__file__), "..", "doctor", "__main__.py"),
                       run_name="__main__")
    assert ended.value.code == 2
    assert "torch-envcheck doctor: internal error" in err.getvalue() and "IndexError" in err.getvalue()


# Every spelling from when the doctor's flags were global, before each subcommand that takes it.
OLD_SPELLINGS = [
    (["--from-json", H100], ("doctor", "advise", "pin", "readme-line")),
    (["--from-json=" + H100], ("doctor", "advise", "pin", "readme-line")),
    (["--timeout", "7", "--from-json", H100], ("doctor", "advise", "pin", "readme-line")),
    (["--no-tensorflow", "--from-json", H100], ("doctor", "advise", "pin", "readme-line")),
    (["--json", "--from-json", H100], ("doctor",)),
    (["--markdown", "--from-json", H100], ("doctor",)),
    (["--verbose", "--from-json", H100], ("doctor",)),
    (["-v", "--from-json", H100], ("doctor",)),
    (["--no-color", "--from-json", H100], ("doctor",)),
]


@pytest.mark.parametrize("flags, commands", OLD_SPELLINGS, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_old_global_spellings_still_work(flags, commands):
    for command in commands:
        before = _run(flags + [command])
        assert before == _run([command] + flags), command
        assert before[0] in (0, 1) and before[1], command


def test_every_doctor_flag_given_differs_from_its_default():
    """What lets the command line tell the flags given before a subcommand from the defaults."""
    parser = cli.doctor_flags()
    defaults = vars(parser.parse_args([]))
    given = vars(parser.parse_args(["--json", "--from-json", "", "--timeout", "0.5", "--no-tensorflow",
                                    "-v", "--no-color"]))
    given_md = vars(parser.parse_args(["--markdown"]))
    assert set(defaults) == set(given) == {"json", "markdown", "from_json", "timeout", "no_tensorflow",
                                           "verbose", "no_color"}
    assert all(given[d] != defaults[d] for d in defaults if d != "markdown")
    assert given_md["markdown"] != defaults["markdown"]


def test_the_command_line_does_no_argparse_surgery():
    """Each command's flags on its own subparser: cli.py walks no parser's private action lists."""
    with open(cli.__file__, encoding="utf-8") as fh:
        source = fh.read()
    assert "._actions" not in source and "_option_string_actions" not in source
