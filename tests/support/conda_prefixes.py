"""Real-format conda prefixes and venvs for the --all-envs tests (not a test module).

A conda prefix here is what conda leaves on disk: conda-meta/ with one JSON record per package
(name, version, build, build_number, channel, subdir, depends, files, requested_spec, fn, url,
as conda 4.x-24.x writes them) and conda-meta/history ("==> date <==", "# cmd: ...", "+channel::
name-version-build" lines), and the interpreter in the platform's layout (bin/python here; on
Windows python.exe at the prefix's root).  The interpreter is a real one: a venv made with
`python -m venv --without-pip` from the interpreter running the tests, into which conda-meta is
written, so the env's python starts and reports sys.prefix == the prefix, as conda's own does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHANNELS = {"conda-forge": "https://conda.anaconda.org/conda-forge", "pkgs/main": "https://repo.anaconda.com/pkgs/main"}


def record(name: str, version: str, build: str, channel: str = "conda-forge", subdir: str = "linux-64",
           depends=(), spec: str | None = None) -> dict:
    fn = f"{name}-{version}-{build}.conda"
    return {"build": build, "build_number": int(build.rsplit("_", 1)[-1]) if build.rsplit("_", 1)[-1].isdigit() else 0,
            "channel": f"{CHANNELS.get(channel, channel)}/{subdir}", "constrains": [], "depends": list(depends),
            "extracted_package_dir": "", "features": "", "files": [], "fn": fn, "license": "",
            "md5": "0" * 32, "name": name, "package_tarball_full_path": "", "paths_data": {"paths": [], "paths_version": 1},
            "requested_spec": spec or "None", "size": 0, "subdir": subdir, "timestamp": 0,
            "url": f"{CHANNELS.get(channel, channel)}/{subdir}/{fn}", "version": version}


def make_venv(path: str) -> str:
    """A venv at `path` (no pip: fast); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True, timeout=120)
    return os.path.join(path, "bin", "python")


def site_packages(prefix: str) -> str:
    return os.path.join(prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")


def conda_prefix(path: str, records: list[dict], cmd: str = "conda create -n env python") -> str:
    """A conda prefix at `path` with a working python and these package records."""
    make_venv(path)
    meta = os.path.join(path, "conda-meta")
    os.makedirs(meta, exist_ok=True)
    py = f"{sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}"
    records = [record("python", py, "h2660328_0_cpython", "conda-forge", spec="python")] + list(records)
    for rec in records:
        with open(os.path.join(meta, rec["fn"][: -len(".conda")] + ".json"), "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=2)
    with open(os.path.join(meta, "history"), "w", encoding="utf-8") as fh:
        fh.write("==> 2022-03-14 10:20:00 <==\n# cmd: " + cmd + "\n# conda version: 4.12.0\n")
        fh.write("".join(f"+{r['channel'].rsplit('/', 1)[0].split('/')[-1]}::{r['fn'][:-len('.conda')]}\n" for r in records))
    return os.path.join(path, "bin", "python")


def pip_dist(prefix: str, name: str, version: str, requires=()) -> None:
    """A pip-installed distribution's metadata in the prefix's site-packages (no module files)."""
    d = os.path.join(site_packages(prefix), f"{name.replace('-', '_')}-{version}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as fh:
        fh.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                 + "".join(f"Requires-Dist: {r}\n" for r in requires))
    with open(os.path.join(d, "INSTALLER"), "w", encoding="utf-8") as fh:
        fh.write("pip\n")
    with open(os.path.join(d, "RECORD"), "w", encoding="utf-8") as fh:
        fh.write(f"{os.path.basename(d)}/METADATA,,\n")


def fake_conda(bin_dir: str, envs: list[str]) -> str:
    """A `conda` on PATH that answers `conda env list --json` as conda does ({"envs": [...]})."""
    os.makedirs(bin_dir, exist_ok=True)
    path = os.path.join(bin_dir, "conda")
    with open(path, "w", encoding="utf-8") as fh:
        # printf is the shell's own: the fake needs no other program on PATH
        body = json.dumps({"envs": envs}).replace("'", "'\\''").replace("%", "%%")
        fh.write("#!/bin/sh\n" + 'if [ "$1 $2 $3" = "env list --json" ]; then\n'
                 + f"printf '{body}\\n'\nexit 0\nfi\nexit 2\n")
    os.chmod(path, 0o755)
    return path
