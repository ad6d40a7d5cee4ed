"""Platform facts: operating system, CPU, WSL, macOS / Apple silicon, containers, and the Python
environment (virtualenv or conda).  Reads files and variables only; runs no program."""

from __future__ import annotations

import os
import platform as _platform
import sys

from torch_envcheck._util import safe_open


def _read(path: str, limit: int = 65536) -> str | None:
    """The start of a text file; None when it is missing, unreadable or not a regular file (a FIFO
    at /etc/os-release must not hang the doctor: _util/safe_open.py)."""
    try:
        return safe_open.read_text(path, limit, overflow="head")
    except OSError:
        return None


def parse_os_release(text: str | None) -> dict:
    """KEY=value lines of /etc/os-release (values may be quoted)."""
    out = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.startswith("#"):
            out[key.strip()] = value.strip().strip('"').strip("'")
    return out


def detect_wsl(osrelease: str | None, proc_version: str | None, dxg_exists: bool, env: dict) -> int | None:
    """1, 2 or None (not WSL).  WSL 2 kernels say "microsoft-standard" (or "WSL2") and expose
    /dev/dxg; the WSL 1 compatibility layer reports a "Microsoft" kernel with neither.
    (NVIDIA CUDA on WSL user guide; Microsoft's WSL docs.)"""
    text = f"{osrelease or ''} {proc_version or ''}"
    low = text.lower()
    marked = "microsoft" in low or "wsl" in low or bool(env.get("WSL_DISTRO_NAME"))
    if not marked:
        return None
    if "microsoft-standard" in low or "wsl2" in low or dxg_exists or bool(env.get("WSL_INTEROP")):
        return 2
    return 1


def detect_container(env: dict, exists=os.path.exists, read=_read) -> str | None:
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if env.get("SINGULARITY_CONTAINER") or env.get("APPTAINER_CONTAINER"):
        return "singularity"
    if exists("/.dockerenv"):
        return "docker"
    if exists("/run/.containerenv"):
        return "podman"
    container = env.get("container")  # set by systemd-nspawn, podman, lxc
    cgroup = (read("/proc/1/cgroup") or "").lower()
    for marker, name in (("kubepods", "kubernetes"), ("docker", "docker"), ("libpod", "podman"),
                         ("lxc", "lxc"), ("containerd", "containerd")):
        if marker in cgroup:
            return name
    return container or None


def pyvenv_cfg(prefix: str) -> dict:
    """KEY = value lines of PREFIX/pyvenv.cfg (venv, virtualenv and uv write it; uv adds `uv = X`)."""
    out = {}
    for line in (_read(os.path.join(prefix, "pyvenv.cfg"), 16384) or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip().lower()] = value.strip()
    return out


def uv_project(prefix: str) -> str | None:
    """The uv project whose environment this is: PREFIX is a project's .venv (uv's default,
    https://docs.astral.sh/uv/concepts/projects/layout/) beside its pyproject.toml and uv.lock."""
    parent = os.path.dirname(os.path.abspath(prefix).rstrip(os.sep))
    if os.path.basename(os.path.abspath(prefix).rstrip(os.sep)) != ".venv":
        return None
    if os.path.isfile(os.path.join(parent, "pyproject.toml")) and os.path.isfile(os.path.join(parent, "uv.lock")):
        return parent
    return None


def _pip_installed() -> bool | None:
    # PathFinder looks at sys.path only: importlib.util.find_spec would run every sys.meta_path hook,
    # and setuptools' _distutils_hack imports modules from its hook for "pip" (on a probe thread).
    try:
        import importlib.machinery  # noqa: PLC0415
        return importlib.machinery.PathFinder.find_spec("pip") is not None
    except Exception:
        return None


def _user_site() -> tuple[str | None, bool | None]:
    try:
        import site  # noqa: PLC0415
        return site.getusersitepackages(), bool(site.ENABLE_USER_SITE)
    except Exception:
        return None, None


def python_env(env: dict) -> dict:
    prefix, base = sys.prefix, getattr(sys, "base_prefix", sys.prefix)
    conda_meta = os.path.isdir(os.path.join(prefix, "conda-meta"))
    conda_prefix = prefix if conda_meta else (env.get("CONDA_PREFIX") or None)
    conda_env = None
    if conda_meta:
        conda_env = env.get("CONDA_DEFAULT_ENV") if env.get("CONDA_PREFIX") == prefix else None
        conda_env = conda_env or os.path.basename(prefix.rstrip(os.sep)) or prefix
    user_site, user_enabled = _user_site()
    return {
        "version": _platform.python_version(),
        "implementation": _platform.python_implementation(),
        "executable": sys.executable,
        "prefix": prefix,
        "base_prefix": base,
        "venv": prefix != base,
        "conda_env": conda_env,
        "conda_prefix": conda_prefix,
        "bits": 64 if sys.maxsize > 2**32 else 32,
        "uv": (pyvenv_cfg(prefix).get("uv") or None) if prefix != base else None,
        "pip": _pip_installed(),
        "user_site": user_site,
        "user_site_enabled": user_enabled,
        "uv_project": uv_project(prefix) if prefix != base else None,
    }


def _rosetta() -> bool | None:
    """True when this process runs translated by Rosetta 2 (sysctl.proc_translated = 1)."""
    try:
        import ctypes  # noqa: PLC0415
        import ctypes.util  # noqa: PLC0415

        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        value, size = ctypes.c_int(0), ctypes.c_size_t(ctypes.sizeof(ctypes.c_int))
        if libc.sysctlbyname(b"sysctl.proc_translated", ctypes.byref(value), ctypes.byref(size), None, 0) != 0:
            return False  # the name does not exist on Intel Macs
        return value.value == 1
    except Exception:
        return None


TEGRA_RELEASE = "/etc/nv_tegra_release"  # written by NVIDIA's L4T (JetPack) on Jetson boards
DEVICE_TREE_MODEL = "/proc/device-tree/model"


def detect_jetson(read=_read) -> dict | None:
    """{'model': 'NVIDIA Jetson AGX Orin Developer Kit', 'l4t': 'R36 (release), REVISION: 4.3'} on a
    Jetson board (L4T's /etc/nv_tegra_release), None elsewhere."""
    rel = read(TEGRA_RELEASE, 4096)
    if not rel:
        return None
    line = rel.strip().splitlines()[0] if rel.strip() else ""
    l4t = line.lstrip("# ").split(", GCID")[0].strip()[:120] or None
    model = (read(DEVICE_TREE_MODEL, 256) or "").replace("\x00", "").strip()[:120] or None
    return {"model": model, "l4t": l4t}


def probe(env: dict | None = None) -> dict:
    env = dict(os.environ) if env is None else env
    system = _platform.system()
    out = {
        "system": system,
        "release": _platform.release(),
        "machine": _platform.machine(),
        "os_pretty": None,
        "wsl": None,
        "mac_ver": None,
        "apple_silicon": None,
        "container": None,
        "python": python_env(env),
    }
    if system == "Linux":
        rel = parse_os_release(_read("/etc/os-release") or _read("/usr/lib/os-release"))
        out["os_pretty"] = rel.get("PRETTY_NAME") or (" ".join(filter(None, [rel.get("NAME"), rel.get("VERSION")]))
                                                       or None)
        out["wsl"] = detect_wsl(_read("/proc/sys/kernel/osrelease"), _read("/proc/version"),
                                os.path.exists("/dev/dxg"), env)
        out["container"] = detect_container(env)
        out["jetson"] = detect_jetson()
    elif system == "Darwin":
        ver = _platform.mac_ver()[0] or None
        out["mac_ver"] = ver
        out["os_pretty"] = f"macOS {ver}" if ver else "macOS"
        # An x86_64 Python under Rosetta reports machine "x86_64" on an Apple silicon Mac: such a
        # Python gets x86 wheels without MPS.  The kernel says whether this process is translated.
        out["rosetta"] = _rosetta()
        out["apple_silicon"] = out["machine"] == "arm64" or bool(out["rosetta"])
    elif system == "Windows":
        out["os_pretty"] = f"Windows {_platform.release()} ({_platform.version()})"
    try:  # where the user pastes fix commands: cmd.exe, PowerShell or a POSIX shell
        from torch_envcheck.doctor.probes import shell  # noqa: PLC0415
        out["shell"] = shell.detect(env, system=system)
    except Exception as exc:  # noqa: BLE001  (the platform facts above matter more)
        out["shell"] = {"name": None, "evidence": f"not read: {type(exc).__name__}: {exc}"[:200]}
    return out
