"""The `torch-envcheck` command: a registry of subcommands, each imported only when it runs.

Each command lives in a module of commands/ with `add_arguments(parser)` and `run(args) -> int`.
As in pip's command registry (src/pip/_internal/commands/__init__.py), the registry holds each command's module *name* and
summary: `torch-envcheck --help` lists every command without importing one, and a run imports the
command that runs.  Each command's flags are its own; with no subcommand it runs the doctor, and the
doctor's flags may still stand before a subcommand (`--from-json F advise`), the spelling from when
they were global: parse() applies them to the subcommand or refuses them in one line.

Exit status: 0 healthy, 1 a failure finding (or a failed command), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple

from torch_envcheck._util.internal_error import internal_error


class CommandInfo(NamedTuple):
    module: str
    summary: str


COMMANDS: dict[str, CommandInfo] = {
    "doctor": CommandInfo("torch_envcheck.commands.doctor", "diagnose this environment (the default command)"),
    "advise": CommandInfo("torch_envcheck.commands.advise", "print the torch install command that fits this machine"),
    "readme-line": CommandInfo("torch_envcheck.commands.readme_line", "one line describing this stack, for a README"),
    "pin": CommandInfo("torch_envcheck.commands.pin", "requirements.txt lines that reproduce this torch exactly"),
    "build": CommandInfo("torch_envcheck.commands.build", "compile the extension for the installed torch (into the cache)"),
    "info": CommandInfo("torch_envcheck.commands.info", "print the extension's build_info() and runtime_info() as JSON"),
    "bench": CommandInfo("torch_envcheck.commands.bench", "time the custom kernels against torch's built-in ops"),
    "init": CommandInfo("torch_envcheck.commands.init", "write env_check.py into a project"),
    "selftest": CommandInfo("torch_envcheck.commands.selftest", "run the pytest self-test shipped in the package"),
    "rebuild": CommandInfo("torch_envcheck.commands.rebuild", "build a fresh environment from the advised plan and verify it"),
    "fleet": CommandInfo("torch_envcheck.commands.fleet", "every rank of a torchrun/srun/mpirun job in one report"),
    "explain": CommandInfo("torch_envcheck.commands.explain", "explain an error message: its layer, cause on this machine, fix"),
    "run": CommandInfo("torch_envcheck.commands.run", "run a command; explain its error, or say whether it used a GPU"),
    "knowledge": CommandInfo("torch_envcheck.commands.knowledge",
                             "update, show or check the doctor's knowledge of releases (package indexes)"),
}
DEFAULT = "doctor"


def _module(name: str):
    return importlib.import_module(COMMANDS[name].module)


class CommandUnavailable(Exception):
    """A command's module failed to import: reported when that command is run, never before, so one
    broken command cannot take the others (and so the doctor) down with it."""

    def __init__(self, command: str, exc: Exception):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.command = command


class UsageError(Exception):
    """A command line the parser refused (raised instead of printing usage and exiting)."""


class _QuietParser(argparse.ArgumentParser):
    """A parser that raises UsageError where argparse would print and exit: for trying whether the
    words before a subcommand are the doctor's flags."""

    def error(self, message):
        raise UsageError(message)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: every command listed, and the arguments of `command` alone (the only command
    module imported).  Each command's flags live on its own subparser."""
    from torch_envcheck._version import __version__  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="torch-envcheck",
        description="Checks that this Python environment can use its GPU with PyTorch; "
                    "names the broken layer and the command that fixes it.",
        epilog="With no COMMAND, or with the doctor's flags alone, it runs the doctor "
               "(`torch-envcheck doctor --help` lists them).")
    parser.add_argument("--version", action="version", version=f"torch-envcheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.subcommands = {}
    for name, info in COMMANDS.items():
        sp = sub.add_parser(name, help=info.summary, description=info.summary)
        parser.subcommands[name] = sp
        if name == command:
            try:
                _module(name).add_arguments(sp)
            except Exception as exc:  # noqa: BLE001  (reported as that command's failure)
                raise CommandUnavailable(name, exc) from exc
    return parser


def doctor_flags() -> argparse.ArgumentParser:
    """The doctor's flags alone, as they may also stand before a subcommand (`--from-json F advise`:
    the spelling from when they were global)."""
    parser = _QuietParser(prog="torch-envcheck", add_help=False)
    try:
        _module(DEFAULT).add_arguments(parser)
    except Exception as exc:  # noqa: BLE001  (reported as the doctor's failure)
        raise CommandUnavailable(DEFAULT, exc) from exc
    return parser


def _split(argv: list[str]) -> int | None:
    """Where the subcommand stands in `argv` (None: no subcommand, the doctor): the first word that
    names a command and before which every word is one of the doctor's flags or its value."""
    flags = None
    for i, token in enumerate(argv):
        if token == "--":
            return None
        if token not in COMMANDS:
            continue
        if i == 0:
            return 0
        flags = flags or doctor_flags()
        try:
            _ns, extra = flags.parse_known_args(argv[:i])
        except UsageError:
            continue  # e.g. the word is the value of the flag before it (`--from-json advise pin`)
        if not extra:
            return i
    return None


def find_command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (None: the doctor), found before the command's
    module is imported."""
    i = _split(argv)
    return None if i is None else argv[i]


def _refuse(message: str):
    print(f"torch-envcheck: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _apply_earlier_flags(sp: argparse.ArgumentParser, command: str, args: argparse.Namespace,
                         earlier: list[str]) -> argparse.Namespace:
    """The doctor's flags given before the subcommand, onto the subcommand's own arguments; refuse
    (exit 2, one line) a flag that the subcommand does not take or that is given twice with two
    values.  A doctor flag given always differs from its default (None or False), so the values
    that differ are the flags given (tests/integration/cli/test_hostile_cli.py holds this)."""
    flags = doctor_flags()
    try:
        given = vars(flags.parse_args(earlier))
    except UsageError as exc:
        _refuse(str(exc))
    defaults = vars(flags.parse_args([]))
    for dest, value in given.items():
        if value == defaults[dest]:
            continue
        flag = "--" + dest.replace("_", "-")
        if not hasattr(args, dest):
            _refuse(f"{flag} does not apply to the {command} command; see `torch-envcheck {command} --help`")
        current = getattr(args, dest)
        if current != sp.get_default(dest) and current != value:
            _refuse(f"{flag} is given both before and after {command} with different values")
        setattr(args, dest, value)
    if getattr(args, "json", False) and getattr(args, "markdown", False):
        _refuse("--json and --markdown cannot be combined")
    return args


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line as the command's arguments (args.command names the command): the doctor's
    flags alone run the doctor; those before a subcommand are applied to it."""
    asks_main = any(t in ("-h", "--help", "--version") for t in argv[: argv.index("--") if "--" in argv else None])
    i = _split(argv)
    if i is None and not asks_main:
        argv, i = [DEFAULT, *argv], 0
    if i is None:
        build_parser().parse_args(argv)  # --help or --version: prints and exits
        i = 0
    command = argv[i]
    parser = build_parser(command)
    args = parser.parse_args(argv[i:])
    if i:
        args = _apply_earlier_flags(parser.subcommands[command], command, args, argv[:i])
    return args


def _unavailable(command: str, reason: str) -> int:
    print(f"torch-envcheck: the {command} command is unavailable: {reason}; "
          "reinstall torch_envcheck (pip install .)", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv is sys.argv[1:] or argv == sys.argv[1:]:  # the torch-envcheck script: no __main__.py ran
        from torch_envcheck._util import stopflag  # noqa: PLC0415
        if not stopflag.received:
            stopflag.install_early(argv)
    from torch_envcheck._util.textout import harden  # noqa: PLC0415
    for stream in (sys.stdout, sys.stderr):  # a cp1252 or ASCII console: escapes, never a crash mid-report
        harden(stream)
    try:
        args = parse(argv)
    except CommandUnavailable as exc:
        return _unavailable(exc.command, str(exc))
    command = args.command
    from torch_envcheck._util import watchdog  # noqa: PLC0415
    watchdog.disarm_current()  # the start is over; the command bounds its own phases
    try:
        status = int(_module(command).run(args) or 0)
    except KeyboardInterrupt:
        print("torch-envcheck: interrupted", file=sys.stderr)
        status = 130
    except Exception as exc:  # noqa: BLE001  (last resort: one line, never a traceback)
        status = internal_error(command, exc)
    _bound_exit(status)
    return status


# The work is done and written; the interpreter's exit (atexit handlers, joining the threads a library
# left, flushing) gets this long before the process ends anyway, with the command's own status.
EXIT_S = 30.0


def _bound_exit(status: int) -> None:
    from torch_envcheck._util import watchdog  # noqa: PLC0415
    if not watchdog.owned:
        return
    for stream in (sys.stdout, sys.stderr):  # the report reaches its reader even if the exit hangs
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    watchdog.arm(EXIT_S, "the process's exit, after its work was done and written,", status)


# Importing the command line and the command, and parsing it: seconds at most, on any machine.
START_S = 120.0


def script() -> int:
    """The torch-envcheck program: this process is ours to bound (_util/watchdog.py)."""
    from torch_envcheck._util import watchdog  # noqa: PLC0415
    watchdog.owned = True
    watchdog.arm(START_S, "starting (importing the command line and parsing it)")
    return main()


if __name__ == "__main__":
    sys.exit(main())
