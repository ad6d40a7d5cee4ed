"""`torch-envcheck --all-envs` and `--env NAME_OR_PATH` (repeatable): the doctor in every conda env
of this machine and in the environments named, each in its own interpreter, one table above the
per-env reports (terminal, --json, --markdown).

Each environment is diagnosed by its own python: this package is loaded into it from where it is
installed (its folder alone, by file location: nothing else of this interpreter's site-packages
leaks into the other env), and the doctor runs there with --json, its probes importing that env's
torch and TensorFlow.  Its snapshot is judged here, by the same rules as --from-json.  Each run is
bounded in time; an env whose python is missing, cannot start, crashes or says nothing readable is
a finding of the table (TE193), never a crash of this command.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

from torch_envcheck.commands import _source as _args

# Runs in the other env's python: loads this package from its folder by location, runs the doctor.
_BOOT = (
    "import importlib.util, json, os, sys\n"
    "pkg = sys.argv[1]\n"
    "spec = importlib.util.spec_from_file_location('torch_envcheck', os.path.join(pkg, '__init__.py'),"
    " submodule_search_locations=[pkg])\n"
    "mod = importlib.util.module_from_spec(spec)\n"
    "sys.modules['torch_envcheck'] = mod\n"
    "spec.loader.exec_module(mod)\n"
    "from torch_envcheck.cli import main\n"
    "sys.exit(main(json.loads(sys.argv[2])))\n"
)
# the time one environment may take: its doctor imports torch and TensorFlow in children of its own
ENV_LIMIT_S = 180.0
STDERR_TAIL = 4096


def add_arguments(parser) -> None:
    parser.add_argument("--all-envs", action="store_true",
                        help="diagnose every conda env of this machine (and each --env), each in its own "
                             "interpreter: one table, then each env's report")
    parser.add_argument("--env", action="append", default=None, metavar="NAME_OR_PATH",
                        help="diagnose this conda env (name or prefix) or venv (folder or python) in its own "
                             "interpreter; repeatable")
    parser.add_argument("--env-timeout", type=_args.seconds, default=None, metavar="SECONDS",
                        help=f"time limit for each environment's diagnosis (default {ENV_LIMIT_S:g})")


def wanted(args) -> bool:
    return bool(getattr(args, "all_envs", False) or getattr(args, "env", None))


def _package_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _child_argv(args) -> list[str]:
    argv = ["doctor", "--json"]
    if getattr(args, "timeout", None):
        argv += ["--timeout", str(args.timeout)]
    if getattr(args, "no_tensorflow", False):
        argv.append("--no-tensorflow")
    for flag in ("framework", "shell"):
        if getattr(args, flag, None):
            argv += [f"--{flag}", getattr(args, flag)]
    return argv


def _unreadable(env: dict, why: str):
    from torch_envcheck.doctor.finding import finding  # noqa: PLC0415
    from torch_envcheck.doctor.report import Report  # noqa: PLC0415
    f = finding("TE193", "failure", f"could not diagnose {env['kind']} env {env['name']}: {why}",
                "The doctor runs in each environment's own python. Check that it starts: run it with `-c \"import "
                "sys; print(sys.version)\"`; a conda env whose python was removed is repaired with `conda install "
                "-n NAME python`, or removed with `conda env remove -n NAME`.",
                None, {"env": {k: env.get(k) for k in ("name", "prefix", "kind", "python", "source")}})
    return Report(snapshot={}, findings=(f,), summary={"platform": "failure"}, exit_status=1)


def diagnose_env(env: dict, args, limit: float) -> dict:
    """The report for one environment, or a report holding only TE193 when it could not be made."""
    from torch_envcheck._util.proc import CommandFailed, run_capped  # noqa: PLC0415
    from torch_envcheck.doctor import report  # noqa: PLC0415
    from torch_envcheck.doctor.probes import OTHER_ENV  # noqa: PLC0415
    from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415

    if not env.get("python"):
        return _unreadable(env, env.get("error") or "no interpreter")
    child_env = dict(os.environ)
    child_env[OTHER_ENV] = "1"
    for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__"):
        child_env.pop(var, None)
    argv = [env["python"], "-I", "-c", _BOOT, _package_dir(), json.dumps(_child_argv(args))]
    try:
        res = run_capped(argv, limit, env=child_env, shown=env["python"],
                         stdout_cap=(8 << 20, 0), stderr_cap=(0, STDERR_TAIL))
    except CommandFailed as exc:
        return _unreadable(env, f"its python cannot start ({exc})")
    tail = [line for line in res.text("stderr").strip().splitlines() if line.strip()]
    if res.timed_out:
        return _unreadable(env, f"its diagnosis did not finish within {limit:g} s")
    if not res.stdout.strip():
        why = tail[-1][:300] if tail else f"exit status {res.returncode}, no output"
        return _unreadable(env, f"its python ran but gave no report ({why})")
    fd, path = tempfile.mkstemp(prefix="torch-envcheck-env-", suffix=".json")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(res.stdout)
        snap = load(path)
    except SnapshotError as exc:
        return _unreadable(env, f"its report could not be read ({str(exc).split(': ', 1)[-1][:200]})")
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    snap = _args.with_request(snap, args)
    return report(snap)


def environments(args) -> tuple[list[dict], dict]:
    from torch_envcheck.doctor.probes import environments as E  # noqa: PLC0415
    limit = float(getattr(args, "timeout", None) or 10.0)
    found = E.discover(timeout=limit) if getattr(args, "all_envs", False) else \
        {"envs": [], "source": None, "errors": []}
    envs = list(found["envs"])
    known = envs if envs else E.discover(timeout=limit)["envs"] if getattr(args, "env", None) else []
    for spec in getattr(args, "env", None) or []:
        e = E.resolve(spec, known)
        key = os.path.normcase(e.get("prefix") or e["name"])
        if not any(os.path.normcase(x.get("prefix") or x["name"]) == key for x in envs):
            envs.append(e)
    return envs, found


def run(args) -> int:
    from torch_envcheck.doctor.render import envs_table  # noqa: PLC0415

    envs, found = environments(args)
    limit = float(getattr(args, "env_timeout", None) or ENV_LIMIT_S)
    results = []
    for env in envs:
        if not getattr(args, "json", False):
            print(f"torch-envcheck: diagnosing {env['kind']} env {env['name']} ...", file=sys.stderr, flush=True)
        rep = diagnose_env(env, args, limit)
        results.append({"env": env, "report": rep, "diagnosed": bool(rep.snapshot)})
    out = envs_table.build(results, found)
    try:
        if getattr(args, "json", False):
            sys.stdout.write(envs_table.to_json(out))
        elif getattr(args, "markdown", False):
            from torch_envcheck._util import textout  # noqa: PLC0415
            textout.write(envs_table.to_markdown(out))
        else:
            from torch_envcheck.doctor.render import terminal  # noqa: PLC0415
            envs_table.print_terminal(out, color=terminal.wants_color(sys.stdout, getattr(args, "no_color", False)),
                                      verbose=getattr(args, "verbose", False))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return int(out["exit_code"])
