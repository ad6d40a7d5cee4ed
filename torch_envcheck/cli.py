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
}
DEFAULT = "doctor"


def _module(name: str):
    return importlib.import_module(COMMANDS[name][0])


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
        if name != DEFAULT:
            _module(name).add_arguments(sp)
        else:
            _module(DEFAULT).add_arguments(sp)
    return parser


def _argv_command(argv: list[str]) -> str | None:
    for a in argv:
        if a in COMMANDS:
            return a
        if not a.startswith("-"):
            return None
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or DEFAULT
    try:
        return int(_module(command).run(args) or 0)
    except KeyboardInterrupt:
        print("torch-envcheck: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
