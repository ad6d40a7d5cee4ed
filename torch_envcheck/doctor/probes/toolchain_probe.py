"""The compilers a CUDA extension build would use: every reachable nvcc (torch_envcheck.ext.toolchain
finds them in torch.utils.cpp_extension's order), CUDA_HOME / CUDA_PATH, the host C++ compiler and
ninja.  The programs run in parallel, each with a time limit."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

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


def _nvcc_version(path: str, timeout: float) -> dict:
    try:
        return toolchain.nvcc_version(path, timeout=timeout)
    except Exception as exc:  # nvcc_version never raises by contract; stay safe anyway
        return {"version": None, "error": f"{type(exc).__name__}: {exc}"}


def probe(timeout: float = 5.0, env: dict | None = None) -> dict:
    env = dict(os.environ) if env is None else env
    candidates = toolchain.nvcc_candidates(env)
    with ThreadPoolExecutor(max_workers=max(2, len(candidates) + 2)) as pool:
        versions = [pool.submit(_nvcc_version, c["path"], timeout) for c in candidates]
        host = pool.submit(_host_compiler, env, timeout)
        ninja = pool.submit(_ninja, env, timeout)
        nvcc = [dict(c, **f.result()) for c, f in zip(candidates, versions)]
        return {"nvcc": nvcc, "cuda_home": toolchain.cuda_home_status(env),
                "host_compiler": host.result(), "ninja": ninja.result()}
