"""Find the CUDA compilers (nvcc) reachable from this environment, and read their versions.

Used both by the build (to decide whether the CUDA part of the extension can be compiled) and by
the doctor's toolchain probe.  Imports nothing heavy: no torch, no third-party packages.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
import sysconfig

from torch_envcheck._util import versions

NVCC_TIMEOUT_S = 10.0

# Toolkit folders searched after CUDA_HOME, CUDA_PATH and PATH.  Unset: /usr/local/cuda,
# /usr/local/cuda-*, /opt/cuda.  Set (os.pathsep-separated, may be empty): exactly those folders.
ENV_NVCC_DIRS = "TORCH_ENVCHECK_CUDA_DIRS"

_RELEASE_RE = re.compile(r"release\s+(\d+)\.(\d+)(?:,\s*V([\d.]+))?")


def parse_nvcc_version(text: str) -> str | None:
    """Return "13.0.88" (or "13.0" when no V-number is printed) from `nvcc --version` output."""
    m = _RELEASE_RE.search(text or "")
    if not m:
        return None
    return m.group(3) or f"{m.group(1)}.{m.group(2)}"


def nvcc_version(nvcc: str, timeout: float = NVCC_TIMEOUT_S) -> dict:
    """Run `nvcc --version`; a fact dict that never raises.

    Runs under the doctor's process-group time limit (a wrapper script's hung children are killed
    with it) and decodes the output with undecodable bytes replaced (a localised or broken nvcc)."""
    from torch_envcheck._util import proc as _proc  # noqa: PLC0415

    try:
        rc, out, err = _proc.run([nvcc, "--version"], timeout, shown=f"{nvcc} --version")
    except _proc.CommandFailed as exc:
        return {"version": None, "error": str(exc)}
    version = parse_nvcc_version(out + err)
    if version is None:
        lines = (out + err).strip().splitlines()
        return {"version": None, "error": f"unrecognised `nvcc --version` output (exit {rc}): "
                                          f"{lines[-1][:200] if lines else '<empty>'}"}
    return {"version": version, "error": None}


def _site_dirs() -> list[str]:
    dirs = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and p not in dirs:
            dirs.append(p)
    for p in sys.path:
        if p.endswith("site-packages") and p not in dirs:
            dirs.append(p)
    return dirs


def nvcc_candidates(env: dict | None = None) -> list[dict]:
    """Every nvcc this environment could use, in the order torch.utils.cpp_extension looks for one
    (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda), then the other usual places.

    Each entry: {"path", "cuda_home", "source"}; duplicates (same real path) are dropped.
    """
    env = os.environ if env is None else env
    found: list[dict] = []
    seen: set[str] = set()

    def add(nvcc: str, source: str, cuda_home: str | None = None) -> None:
        if not nvcc or not os.path.isfile(nvcc) or not os.access(nvcc, os.X_OK):
            return
        real = os.path.realpath(nvcc)
        if real in seen:
            return
        seen.add(real)
        # /usr/local/bin/nvcc is often a link into the toolkit: the toolkit is where the link points.
        home = cuda_home or os.path.dirname(os.path.dirname(real))
        # A wrapper script (e.g. /usr/local/bin/nvcc running /usr/local/cuda/bin/nvcc) has no toolkit
        # beside it: the build needs the toolkit's include/ and lib64/, so say whether they are there.
        toolkit = os.path.isfile(os.path.join(home, "include", "cuda_runtime.h"))
        found.append({"path": nvcc, "cuda_home": home, "source": source, "toolkit_found": toolkit})

    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = env.get(var)
        if home:
            add(os.path.join(home, "bin", "nvcc"), var, home)
    on_path = shutil.which("nvcc", path=env.get("PATH", ""))
    if on_path:
        add(on_path, "PATH")
    dirs = env.get(ENV_NVCC_DIRS)
    if dirs is None:
        add("/usr/local/cuda/bin/nvcc", "/usr/local/cuda", "/usr/local/cuda")
        for nvcc in sorted(glob.glob("/usr/local/cuda-*/bin/nvcc"), reverse=True):
            add(nvcc, "/usr/local/cuda-*")
        add("/opt/cuda/bin/nvcc", "/opt/cuda", "/opt/cuda")
    else:
        for d in filter(None, dirs.split(os.pathsep)):
            add(os.path.join(d, "bin", "nvcc"), ENV_NVCC_DIRS, d)
    conda = env.get("CONDA_PREFIX")
    if conda:
        add(os.path.join(conda, "bin", "nvcc"), "CONDA_PREFIX", conda)
    for site in _site_dirs():
        # pip wheels: nvidia-cuda-nvcc-cu12 lays out nvidia/cuda_nvcc, the CUDA 13 wheels nvidia/cu13.
        for sub in ("cuda_nvcc", "cu13", "cu12"):
            home = os.path.join(site, "nvidia", sub)
            add(os.path.join(home, "bin", "nvcc"), f"pip wheel (nvidia/{sub})", home)
    return found


def cuda_home_status(env: dict | None = None) -> dict:
    """Whether CUDA_HOME / CUDA_PATH point at a real toolkit."""
    env = os.environ if env is None else env
    out = {}
    for var in ("CUDA_HOME", "CUDA_PATH"):
        val = env.get(var)
        if val is None:
            out[var] = None
            continue
        out[var] = {
            "value": val,
            "exists": os.path.isdir(val),
            "has_nvcc": os.path.isfile(os.path.join(val, "bin", "nvcc")),
        }
    return out


# the one version parser (re-exported: buildcfg and the extension tests ask it here)
major_minor = versions.major_minor
