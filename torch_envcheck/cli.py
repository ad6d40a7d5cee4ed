"""The `torch-envcheck` command: a thin dispatcher.  Each subcommand lives in its own module with
`add_arguments(parser)` and `run(args) -> int`; modules are imported only when their command runs,
so `torch-envcheck` stays fast.  With no subcommand it runs the doctor.

Exit status: 0 healthy, 1 a failure finding (or a failed command), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, help).  The module defines add_arguments(parser) and run(args).
COMMANDS = {
    "doctor": ("torch_envcheck.doctor.cli", "diagnose this environment (the default command)"),
    "advise": ("torch_envcheck.doctor.advise_cli", "print the torch install command that fits this machine"),
    "readme-line": ("torch_envcheck.doctor.readme_line_cli", "one line describing this stack, for a README"),
    "pin": ("torch_envcheck.doctor.pin_cli", "requirements.txt lines that reproduce this torch exactly"),
    "build": ("torch_envcheck.build_cli", "compile the extension for the installed torch (into the cache)"),
    "info": ("torch_envcheck.info_cli", "print the extension's build_info() and runtime_info() as JSON"),
    "bench": ("torch_envcheck.bench.cli", "time the custom kernels against torch's built-in ops"),
    "init": ("torch_envcheck.init_cli", "write env_check.py into a project"),
    "selftest": ("torch_envcheck.selftest_cli", "run the pytest self-test shipped in the package"),
    "fleet": ("torch_envcheck.fleet.cli", "every rank of a torchrun/srun/mpirun job in one report"),
}
DEFAULT = "doctor"


def _module(name: str):
    return importlib.import_module(COMMANDS[name][0])


# Commands whose module failed to import, with the reason: one broken command must not take the
# whole tool (and so the doctor) down with it.
_BROKEN: dict[str, str] = {}


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="torch-envcheck",
        description="Checks that this Python environment can use its GPU with PyTorch; "
                    "names the broken layer and the command that fixes it.")
    parser.add_argument("--version", action="version", version=f"torch-envcheck {__version__}")
    _module(DEFAULT).add_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        try:
            _module(name).add_arguments(sp)
        except Exception as exc:  # noqa: BLE001  (reported when that command is run)
            _BROKEN[name] = f"{type(exc).__name__}: {exc}"
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or DEFAULT
    if command in _BROKEN:
        print(f"torch-envcheck: the {command} command is unavailable: {_BROKEN[command]}; "
              "reinstall torch_envcheck (pip install .)", file=sys.stderr)
        return 2
    try:
        return int(_module(command).run(args) or 0)
    except KeyboardInterrupt:
        print("torch-envcheck: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
