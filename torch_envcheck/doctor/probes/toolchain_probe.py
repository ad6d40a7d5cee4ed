"""The compilers a CUDA extension build would use: every reachable nvcc (torch_envcheck.ext.toolchain
finds them in torch.utils.cpp_extension's order), CUDA_HOME / CUDA_PATH, the host C++ compiler and
ninja.  The programs run in parallel, each with a time limit."""

from __future__ import annotations

import os
import shutil
import threading

from torch_envcheck.ext import toolchain
from torch_envcheck._util import proc as _proc


def _first_line(text: str) -> str | None:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return None


def host_compiler_candidates(env: dict) -> list[str]:
    # torch.utils.cpp_extension compiles with $CXX, else `c++` (cl on Windows).
    names = [env["CXX"]] if env.get("CXX") else []
    names += ["cl"] if os.name == "nt" else ["c++", "g++", "clang++"]
    return names


def _host_compiler(env: dict, timeout: float) -> dict | None:
    for name in host_compiler_candidates(env):
        path = shutil.which(name, path=env.get("PATH", os.defpath))
        if not path:
            continue
        argv = [path] if os.name == "nt" else [path, "--version"]
        try:
            rc, out, err = _proc.run(argv, timeout)
        except _proc.CommandFailed as exc:
            return {"path": path, "version": None, "error": str(exc)}
        # cl prints its banner ("Microsoft (R) C/C++ Optimizing Compiler Version 19.38...") on stderr.
        return {"path": path, "version": _first_line(out) or _first_line(err), "error": None}
    return None


def _ninja(env: dict, timeout: float) -> dict | None:
    path = shutil.which("ninja", path=env.get("PATH", os.defpath))
    if not path:
        return None
    try:
        rc, out, err = _proc.run([path, "--version"], timeout)
    except _proc.CommandFailed as exc:
        return {"path": path, "version": None, "error": str(exc)}
    return {"path": path, "version": _first_line(out), "error": None if rc == 0 else _first_line(err)}


# The Visual Studio Installer puts vswhere.exe here (VS 2017 15.2 and later); `-requires
# Microsoft.VisualStudio.Component.VC.Tools.x86.x64` selects installs with the C++ build tools, as
# microsoft/vswhere's wiki ("Find VC") and setuptools' msvc module ask it.
VSWHERE = ("{ProgramFiles(x86)}", "Microsoft Visual Studio", "Installer", "vswhere.exe")
VC_TOOLS = "Microsoft.VisualStudio.Component.VC.Tools.x86.x64"


def msvc(env: dict, timeout: float) -> dict:
    """Windows: whether Microsoft's C++ compiler exists (nvcc calls cl.exe; torch's extension builds
    activate it through vswhere when it is not on PATH): {'cl', 'vswhere', 'installation',
    'vc_tools', 'error'}."""
    out = {"cl": shutil.which("cl", path=env.get("PATH", os.defpath)), "vswhere": None, "installation": None,
           "vc_tools": None, "error": None}
    root = env.get("ProgramFiles(x86)") or env.get("ProgramFiles")
    exe = os.path.join(root, *VSWHERE[1:]) if root else None
    if not exe or not os.path.isfile(exe):
        out["vc_tools"] = True if out["cl"] else None  # no installer to ask: cl on PATH is the only evidence
        return out
    out["vswhere"] = exe
    try:
        rc, text, err = _proc.run([exe, "-latest", "-products", "*", "-requires", VC_TOOLS,
                                   "-property", "installationPath"], timeout)
    except _proc.CommandFailed as exc:
        out["error"] = str(exc)
        return out
    path = _first_line(text)
    out["installation"] = path
    out["vc_tools"] = bool(path) or bool(out["cl"])
    if rc != 0 and not path:
        out["error"] = _first_line(err) or f"vswhere exited with status {rc}"
    return out


def _nvcc_version(path: str, timeout: float) -> dict:
    try:
        return toolchain.nvcc_version(path, timeout=timeout)
    except Exception as exc:  # nvcc_version never raises by contract; stay safe anyway
        return {"version": None, "error": f"{type(exc).__name__}: {exc}"}


class _Call:
    """fn(*args) on a daemon thread of its own.  Not a ThreadPoolExecutor: the interpreter's exit
    joins an executor's threads, so one stuck in a program or a file would hang the exit for ever;
    a daemon thread is left behind, and the probe's own deadline names it."""

    def __init__(self, fn, *args):
        self._box: dict = {}
        self._th = threading.Thread(target=self._run, args=(fn,) + args, name="torch_envcheck-toolchain", daemon=True)
        self._th.start()

    def _run(self, fn, *args):
        try:
            self._box["value"] = fn(*args)
        except Exception as exc:  # noqa: BLE001  (a raise becomes the caller's, on its thread)
            self._box["error"] = exc

    def result(self):
        self._th.join()  # each call runs programs under `timeout`; the probe's thread has a deadline
        if "error" in self._box:
            raise self._box["error"]
        return self._box.get("value")


def probe(timeout: float = 5.0, env: dict | None = None) -> dict:
    env = dict(os.environ) if env is None else env
    candidates = toolchain.nvcc_candidates(env)
    versions = [_Call(_nvcc_version, c["path"], timeout) for c in candidates]
    host = _Call(_host_compiler, env, timeout)
    ninja = _Call(_ninja, env, timeout)
    vc = _Call(msvc, env, timeout) if os.name == "nt" else None
    nvcc = [dict(c, **f.result()) for c, f in zip(candidates, versions)]
    out = {"nvcc": nvcc, "cuda_home": toolchain.cuda_home_status(env),
           "host_compiler": host.result(), "ninja": ninja.result()}
    if vc is not None:
        out["msvc"] = vc.result()
    return out
