"""The Python environments of this machine, for `torch-envcheck --all-envs` / `--env`: every conda
env and the venvs named on the command line, each with the interpreter that runs in it.  Gathers,
never judges: an env whose interpreter is missing is listed with python=None and the reason.

    discover(env=os.environ, timeout=10.0) -> {"envs": [Env dict, ...], "source": str, "errors": [str]}
    resolve(spec, known, system=None) -> Env dict     (--env NAME_OR_PATH)
    python_in(prefix, kind, system) -> the interpreter path of that layout

Where conda's envs come from, in order (the first that answers):
  1. `conda env list --json` ({"envs": [prefix, ...]}), with CONDA_EXE (set by `conda activate` and
     Anaconda Prompt) or the `conda` on PATH, bounded by `timeout`;
  2. conda's own files when conda does not answer: ~/.conda/environments.txt (every prefix conda
     created, one a line) and the envs folders (CONDA_ENVS_PATH / CONDA_ENVS_DIRS, `envs_dirs:` of
     ~/.condarc, ROOT/envs of the conda install that CONDA_EXE or CONDA_PREFIX names).
A prefix counts as a conda env only when it holds conda-meta/ (what conda itself checks).

The layout of each platform: a conda env keeps its python at PREFIX\\python.exe on Windows and at
PREFIX/bin/python elsewhere; a venv at VENV\\Scripts\\python.exe and VENV/bin/python.
"""

from __future__ import annotations

import json
import os
import shutil

from torch_envcheck._util import safe_open
from torch_envcheck._util.proc import CommandFailed, run_capped

MAX_ENVS = 64                 # a machine with more is listed to this many (named in errors)
MAX_LIST_BYTES = 256 << 10    # environments.txt, .condarc, conda's JSON answer


def python_in(prefix: str, kind: str, system: str | None = None) -> str:
    """The interpreter of an environment: conda keeps python.exe at the prefix's root on Windows,
    a venv in Scripts\\; both keep bin/python elsewhere."""
    root = prefix.rstrip("/\\")
    if (system or _system()) == "Windows":
        return root + ("\\python.exe" if kind == "conda" else "\\Scripts\\python.exe")
    return root + "/bin/python"


def _system() -> str:
    import platform  # noqa: PLC0415
    return platform.system()


def _is_conda_prefix(prefix: str) -> bool:
    return os.path.isdir(os.path.join(prefix, "conda-meta"))


def _is_venv(prefix: str) -> bool:
    return os.path.isfile(os.path.join(prefix, "pyvenv.cfg"))


def _entry(prefix: str, kind: str, source: str, name: str | None = None, system: str | None = None) -> dict:
    prefix = os.path.normpath(prefix)
    python = python_in(prefix, kind, system)
    if not os.path.exists(python) and (system or _system()) != "Windows" and kind == "conda":
        alt = os.path.join(prefix, "bin", "python3")
        python = alt if os.path.exists(alt) else python
    found = os.path.exists(python)
    return {"name": name or _name(prefix), "prefix": prefix, "kind": kind, "source": source,
            "python": python if found else None,
            "python_expected": python,
            "error": None if found else f"no interpreter at {python}"}


def _name(prefix: str) -> str:
    base = os.path.basename(prefix.rstrip("/\\")) or prefix
    parent = os.path.basename(os.path.dirname(prefix.rstrip("/\\")))
    # the root install of conda (no envs/ parent, holds condabin/ or envs/): conda calls it base
    if parent != "envs" and (os.path.isdir(os.path.join(prefix, "condabin")) or os.path.isdir(os.path.join(prefix, "envs"))):
        return "base"
    return base


def _read(path: str) -> str | None:
    try:
        return safe_open.read_text(path, MAX_LIST_BYTES, overflow="head")
    except (OSError, ValueError):
        return None


def _conda_exe(env: dict) -> str | None:
    exe = env.get("CONDA_EXE")
    if exe and os.path.isfile(exe):
        return exe
    for name in ("conda", "mamba", "micromamba"):
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    return None


def _from_conda(env: dict, timeout: float, errors: list) -> list[str] | None:
    exe = _conda_exe(env)
    if exe is None:
        return None
    argv = [exe, "env", "list", "--json"]
    if os.path.basename(exe).lower().startswith("micromamba"):
        argv = [exe, "env", "list", "--json"]
    try:
        res = run_capped(argv, timeout, env=env, stdout_cap=(MAX_LIST_BYTES, 0), stderr_cap=(4096, 0))
    except CommandFailed as exc:
        errors.append(str(exc))
        return None
    if res.timed_out:
        errors.append(f"`conda env list --json` did not answer within {timeout:g} s")
        return None
    try:
        data = json.loads(res.text("stdout") or "null")
    except ValueError:
        errors.append("`conda env list --json` printed no JSON")
        return None
    envs = data.get("envs") if isinstance(data, dict) else None
    if not isinstance(envs, list):
        errors.append("`conda env list --json` gave no \"envs\" list")
        return None
    return [p for p in envs if isinstance(p, str) and p.strip()]


def _home(env: dict) -> str:
    return env.get("USERPROFILE") or env.get("HOME") or os.path.expanduser("~")


def _condarc_envs_dirs(text: str) -> list[str]:
    """`envs_dirs:` of a .condarc (a YAML list), read line by line: no YAML library needed."""
    out, inside = [], False
    for line in text.splitlines()[:2000]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not line[:1].isspace():
            inside = stripped.startswith("envs_dirs:")
            continue
        if inside and stripped.startswith("- "):
            out.append(stripped[2:].strip().strip("'\""))
    return out


def _roots(env: dict) -> list[str]:
    """conda installs this process can name: CONDA_EXE's (ROOT/Scripts/conda.exe, ROOT/bin/conda),
    CONDA_PREFIX's when it is the root, CONDA_ROOT."""
    roots = []
    exe = env.get("CONDA_EXE")
    if exe:
        roots.append(os.path.dirname(os.path.dirname(exe)))
    for var in ("CONDA_ROOT", "CONDA_PREFIX_1", "CONDA_PREFIX", "MAMBA_ROOT_PREFIX"):
        p = env.get(var)
        if p and os.path.basename(os.path.dirname(p.rstrip("/\\"))) != "envs":
            roots.append(p)
    return roots


def _from_files(env: dict) -> list[str]:
    home = _home(env)
    prefixes: list[str] = []
    text = _read(os.path.join(home, ".conda", "environments.txt"))
    if text:
        prefixes += [line.strip() for line in text.splitlines() if line.strip()]
    dirs = []
    for var in ("CONDA_ENVS_PATH", "CONDA_ENVS_DIRS"):
        if env.get(var):
            dirs += [d for d in env[var].split(os.pathsep) if d]
    rc = _read(os.path.join(home, ".condarc"))
    if rc:
        dirs += [os.path.expanduser(d) if d.startswith("~") else d for d in _condarc_envs_dirs(rc)]
    for root in _roots(env):
        prefixes.append(root)
        dirs.append(os.path.join(root, "envs"))
    for d in dirs:
        try:
            names = sorted(os.listdir(d))[:MAX_ENVS * 4]
        except OSError:
            continue
        prefixes += [os.path.join(d, n) for n in names]
    return prefixes


def discover(env: dict | None = None, timeout: float = 10.0, system: str | None = None) -> dict:
    """Every conda env of this machine (see the module's docstring), in conda's order, once each."""
    env = dict(os.environ if env is None else env)
    errors: list[str] = []
    listed = _from_conda(env, timeout, errors)
    source = "conda env list"
    if listed is None:
        listed, source = _from_files(env), "envs_dirs / environments.txt"
    out, seen = [], set()
    for prefix in listed:
        key = os.path.normcase(os.path.normpath(prefix))
        if key in seen or not _is_conda_prefix(prefix):
            continue
        seen.add(key)
        if len(out) >= MAX_ENVS:
            errors.append(f"more than {MAX_ENVS} conda envs: the first {MAX_ENVS} are checked")
            break
        out.append(_entry(prefix, "conda", source, system=system))
    return {"envs": out, "source": source, "errors": errors}


def resolve(spec: str, known: list[dict], system: str | None = None) -> dict:
    """An --env argument: a conda env's name (among `known`), a prefix or venv folder, or the path of
    an interpreter.  One that is none of these is an entry with python=None and the reason."""
    for e in known:
        if spec == e["name"]:
            return dict(e, source="--env")
    path = os.path.abspath(os.path.expanduser(spec))
    if os.path.isfile(path):  # an interpreter
        folder = os.path.dirname(path)
        root = os.path.dirname(folder) if os.path.basename(folder).lower() in ("bin", "scripts") else folder
        kind = "conda" if _is_conda_prefix(root) else "venv"
        return {"name": _name(root), "prefix": root, "kind": kind, "source": "--env", "python": path,
                "python_expected": path, "error": None}
    if os.path.isdir(path):
        if _is_conda_prefix(path):
            return _entry(path, "conda", "--env", system=system)
        if _is_venv(path):
            return _entry(path, "venv", "--env", system=system)
        return {"name": os.path.basename(path.rstrip("/\\")) or path, "prefix": path, "kind": "unknown", "source": "--env",
                "python": None, "python_expected": None,
                "error": "neither a conda env (no conda-meta/) nor a venv (no pyvenv.cfg)"}
    return {"name": spec, "prefix": None, "kind": "unknown", "source": "--env", "python": None, "python_expected": None,
            "error": "no conda env of that name and no such folder or interpreter"}
