"""The `torch-envcheck` command: a registry of subcommands, each imported only when it runs.

Each command lives in a module with `add_arguments(parser)` and `run(args) -> int` (commands/, or
bench/, fleet/, rebuild/ for the rooms that carry their own).  As in pip's command registry
(src/pip/_internal/commands/__init__.py), the registry holds each command's module *name* and
summary: `torch-envcheck --help` lists every command without importing one, and a run imports the
doctor (whose flags are global: they may stand before a subcommand) and the command that runs.
With no subcommand it runs the doctor.

Exit status: 0 healthy, 1 a failure finding (or a failed command), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple


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
# The doctor's flags are kept under these names on the main parser (see build_parser).
GLOBAL = "global__"


def _module(name: str):
    return importlib.import_module(COMMANDS[name].module)


class CommandUnavailable(Exception):
    """A command's module failed to import: reported when that command is run, never before, so one
    broken command cannot take the others (and so the doctor) down with it."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: the doctor's flags at the top, every command listed, and the arguments of
    `command` alone (the only command module imported besides the doctor's)."""
    from torch_envcheck._version import __version__  # noqa: PLC0415

    parser = argparse.ArgumentParser(
        prog="torch-envcheck",
        description="Checks that this Python environment can use its GPU with PyTorch; "
                    "names the broken layer and the command that fixes it.")
    parser.add_argument("--version", action="version", version=f"torch-envcheck {__version__}")
    _module(DEFAULT).add_arguments(parser)
    # The doctor's flags also stand before a subcommand (`--from-json F advise`).  argparse lets a
    # subcommand's defaults overwrite what the main parser read, so the main parser keeps them
    # under their own names (GLOBAL + dest) and main() hands them to the subcommand, or refuses.
    for action in parser._actions:  # noqa: SLF001  (argparse has no public walk of its actions)
        if action.option_strings and action.dest not in ("help", "version"):
            action.dest = GLOBAL + action.dest
            action.default = argparse.SUPPRESS
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.subcommands = {}
    for name, info in COMMANDS.items():
        sp = sub.add_parser(name, help=info.summary, description=info.summary)
        parser.subcommands[name] = sp
        if name in (command, DEFAULT):  # the doctor's module is imported anyway (its flags are global)
            try:
                _module(name).add_arguments(sp)
            except Exception as exc:  # noqa: BLE001  (reported as that command's failure)
                raise CommandUnavailable(f"{type(exc).__name__}: {exc}") from exc
    return parser


def _takes_value(parser: argparse.ArgumentParser, token: str) -> bool:
    """Whether the main parser's option `token` (possibly abbreviated, as argparse allows) reads the
    next word as its value."""
    if "=" in token or not token.startswith("-"):
        return False
    exact = parser._option_string_actions.get(token)  # noqa: SLF001
    if exact is None and token.startswith("--"):
        matches = {a for opt, a in parser._option_string_actions.items() if opt.startswith(token)}  # noqa: SLF001
        exact = matches.pop() if len(matches) == 1 else None
    return exact is not None and exact.nargs != 0


def find_command(argv: list[str]) -> str | None:
    """The subcommand named on the command line (None: the doctor), found before any command
    module is imported: the first word that is not one of the doctor's flags or its value."""
    parser = build_parser()
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token == "--":
            return None
        if token.startswith("-") and token != "-":
            skip = _takes_value(parser, token)
            continue
        return token if token in COMMANDS else None
    return None


def _refuse(message: str):
    print(f"torch-envcheck: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def _apply_globals(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str]) -> argparse.Namespace:
    """Move the flags given before the subcommand onto the subcommand's own arguments; refuse
    (exit 2, one line) a flag that the subcommand does not take or that is given twice."""
    given = {k[len(GLOBAL):]: v for k, v in vars(args).items() if k.startswith(GLOBAL)}
    command = args.command or DEFAULT
    if args.command is None:
        # No subcommand: the doctor reads the whole command line itself.
        return parser.subcommands[DEFAULT].parse_args(argv)
    if not given:
        return args
    sp = parser.subcommands[command]
    own = {a.dest: a for a in sp._actions if a.option_strings}  # noqa: SLF001
    main_opts = {a.dest[len(GLOBAL):]: a.option_strings[-1] for a in parser._actions  # noqa: SLF001
                 if a.dest.startswith(GLOBAL)}
    for dest, value in given.items():
        flag = main_opts.get(dest, dest)
        if dest not in own:
            _refuse(f"{flag} does not apply to the {command} command; "
                    f"see `torch-envcheck {command} --help`")
        current = getattr(args, dest, own[dest].default)
        if current != own[dest].default and current != value:
            _refuse(f"{flag} is given both before and after {command} with different values")
        setattr(args, dest, value)
    if getattr(args, "json", False) and getattr(args, "markdown", False):
        _refuse("--json and --markdown cannot be combined")
    for name in given:
        delattr(args, GLOBAL + name)
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
    named = find_command(argv)
    try:
        parser = build_parser(named)
    except CommandUnavailable as exc:
        return _unavailable(named, str(exc))
    args = _apply_globals(parser, parser.parse_args(argv), argv)
    command = getattr(args, "command", None) or DEFAULT
    try:
        return int(_module(command).run(args) or 0)
    except KeyboardInterrupt:
        print("torch-envcheck: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001  (last resort: one line, never a traceback)
        return internal_error(command, exc)


def internal_error(command: str, exc: BaseException) -> int:
    """An unexpected exception as one line on stderr and exit 2.  TORCH_ENVCHECK_DEBUG=1 re-raises
    it (with its traceback) for whoever is fixing the bug."""
    import os  # noqa: PLC0415

    if os.environ.get("TORCH_ENVCHECK_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
        raise exc
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415

    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    at = f" at {os.path.basename(where.tb_frame.f_code.co_filename)}:{where.tb_lineno}" if where else ""
    try:
        print(f"torch-envcheck {command}: internal error{at}: {terminal(type(exc).__name__)}: "
              f"{terminal(str(exc))[:300]} (please report it; TORCH_ENVCHECK_DEBUG=1 shows the traceback)",
              file=sys.stderr)
    except Exception:  # noqa: BLE001  (no usable stderr)
        pass
    return 2


if __name__ == "__main__":
    sys.exit(main())
