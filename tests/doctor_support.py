"""Test helpers for the doctor's tests (not a test module).

`python tests/doctor_support.py ARGS...` runs the `torch-envcheck` command line in a subprocess,
like `python -m torch_envcheck ARGS...`, with two test-only fallbacks so the doctor's tests also run
on the doctor's own branch before the other branches are merged:
  * when some subcommand module of torch_envcheck.cli.COMMANDS is not present yet, the doctor's
    own commands are dispatched directly (same add_arguments/run functions);
  * when torch_envcheck.doctor.rules is not present yet, a small stand-in with a few real-code
    rules is used.  With the real package merged, neither fallback is taken.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DOCTOR_COMMANDS = {"doctor": "torch_envcheck.doctor.cli", "advise": "torch_envcheck.doctor.advise_cli",
                   "readme-line": "torch_envcheck.doctor.readme_line_cli", "pin": "torch_envcheck.doctor.pin_cli"}


def _stand_in_rules() -> types.ModuleType:
    def f(code, severity, area, message, fix=None):
        return {"code": code, "slug": code.lower(), "area": area, "severity": severity, "message": message,
                "explanation": "stand-in rule used by the doctor's tests", "fix": fix, "details": {}}

    def evaluate(snap):
        out = []
        t, drv = snap.get("torch") or {}, snap.get("driver") or {}
        if not t.get("importable"):
            out.append(f("TE201", "failure", "torch", f"torch cannot be imported: {t.get('import_error')}",
                         "pip install torch"))
        elif t.get("cuda") and not drv.get("present"):
            out.append(f("TE301", "failure", "driver", "no NVIDIA driver is loaded", "install the NVIDIA driver"))
        elif not t.get("cuda"):
            out.append(f("TE203", "ok", "torch", "CPU-only torch on a machine without an NVIDIA GPU"))
        if not (snap.get("toolchain") or {}).get("nvcc"):
            out.append(f("TE601", "warning", "toolchain", "no nvcc"))
        for name, err in (snap.get("probe_errors") or {}).items():
            out.append(f("TE303", "warning", "platform", f"probe {name} failed: {err}"))
        return out

    mod = types.ModuleType("torch_envcheck.doctor.rules")
    mod.evaluate = evaluate
    mod.STAND_IN = True
    return mod


def real_rules_present() -> bool:
    return os.path.isdir(os.path.join(REPO, "torch_envcheck", "doctor", "rules")) or \
        os.path.isfile(os.path.join(REPO, "torch_envcheck", "doctor", "rules.py"))


def _main(argv: list[str]) -> int:
    import torch_envcheck.doctor as doctor

    if importlib.util.find_spec("torch_envcheck.doctor.rules") is None:
        sys.modules["torch_envcheck.doctor.rules"] = doctor.rules = _stand_in_rules()
    from torch_envcheck import cli

    def present(mod: str) -> bool:
        try:
            return importlib.util.find_spec(mod) is not None
        except ImportError:  # its parent package is missing too
            return False

    if all(present(mod) for mod, _ in cli.COMMANDS.values()):
        return cli.main(argv)
    import argparse

    command = argv[0] if argv and argv[0] in DOCTOR_COMMANDS else "doctor"
    rest = argv[1:] if argv and argv[0] in DOCTOR_COMMANDS else argv
    module = importlib.import_module(DOCTOR_COMMANDS[command])
    parser = argparse.ArgumentParser(prog=f"torch-envcheck {command}")
    module.add_arguments(parser)
    return int(module.run(parser.parse_args(rest)) or 0)


def run_cli(python: str, args: list[str], env: dict | None = None, drop: tuple = (), timeout: float = 120,
            path_prefix: str | None = None) -> subprocess.CompletedProcess:
    """Run the command line with `python`; env entries replace os.environ's, `drop` removes some."""
    e = {k: v for k, v in os.environ.items() if k not in drop}
    e.update(env or {})
    e["PYTHONPATH"] = REPO + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.setdefault("TORCH_ENVCHECK_CACHE", os.path.join(REPO, ".pytest_cache", "te-cache"))
    if path_prefix:
        e["PATH"] = path_prefix + os.pathsep + e.get("PATH", "")
    argv = [python, os.path.abspath(__file__)] + list(args)
    return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=timeout)


if __name__ == "__main__":
    sys.path.insert(0, REPO)
    sys.exit(_main(sys.argv[1:]))
