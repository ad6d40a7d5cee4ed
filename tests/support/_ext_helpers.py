"""Helpers shared by the extension tests (test_ext_*.py): subprocess environments that hide nvcc, a
throw-away copy of the repository, and running a snippet under a given interpreter."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

from paths import REPO


# The introspection part of csrc/: enough for a complete, loadable extension (the ops register
# themselves from their own files and nothing here calls them).  Test builds compile only these, so
# each takes well under a minute on 2 cores instead of also compiling every kernel ISA variant.
INTROSPECTION_SOURCES = ("bindings.cpp", "info/build_info.cpp", "info/build_info.h", "info/runtime_info.cpp",
                         "info/runtime_info.h", "info/json.h", "info/build_info_cuda.cu", "info/runtime_probe.cu")


def copy_repo(dest: str, full: bool = False) -> str:
    """A copy of what a build needs (no .so, no caches), so builds never touch the checkout.  Unless
    `full`, csrc/ holds only INTROSPECTION_SOURCES."""
    ignore = shutil.ignore_patterns("*.so", "*.o", "__pycache__", "build", "_build_meta.json", "*.egg-info",
                                    "csrc")
    shutil.copytree(os.path.join(REPO, "torch_envcheck"), os.path.join(dest, "torch_envcheck"), ignore=ignore)
    if full:
        shutil.copytree(os.path.join(REPO, "csrc"), os.path.join(dest, "csrc"),
                        ignore=shutil.ignore_patterns("*.o", "__pycache__"))
    else:
        for rel in INTROSPECTION_SOURCES:
            os.makedirs(os.path.dirname(os.path.join(dest, "csrc", rel)), exist_ok=True)
            shutil.copy2(os.path.join(REPO, "csrc", rel), os.path.join(dest, "csrc", rel))
        # the build reads its ops from the one list: an introspection build lists none
        os.makedirs(os.path.join(dest, "csrc", "ops"), exist_ok=True)
        with open(os.path.join(dest, "csrc", "ops", "op_list.h"), "w", encoding="utf-8") as fh:
            fh.write("// A test build of the introspection part alone: no ops.\n")
    for name in ("setup.py", "pyproject.toml", "README.md", "CMakeLists.txt"):
        if os.path.exists(os.path.join(REPO, name)):
            shutil.copy2(os.path.join(REPO, name), os.path.join(dest, name))
    return dest


def base_env(python: str, cache: str) -> dict:
    """The environment for a child process: its venv's bin first, our cache, no inherited overrides."""
    env = dict(os.environ)
    for var in ("TORCH_ENVCHECK_DISABLE_CUDA", "TORCH_ENVCHECK_REQUIRE_CUDA", "TORCH_ENVCHECK_AUTOBUILD",
                "TORCH_ENVCHECK_IGNORE_AOT", "TORCH_ENVCHECK_SKIP_AOT", "PYTHONPATH"):
        env.pop(var, None)
    env["TORCH_ENVCHECK_CACHE"] = cache
    env["PATH"] = os.path.dirname(python) + os.pathsep + env.get("PATH", "")
    env.setdefault("MAX_JOBS", "2")
    return env


def hide_nvcc(env: dict, shim_dir: str) -> dict:
    """Make nvcc unreachable: PATH without any folder holding an nvcc (tools from those folders that a
    build needs, e.g. ninja, are linked into shim_dir), no CUDA_HOME/CUDA_PATH, and
    TORCH_ENVCHECK_CUDA_DIRS="" so /usr/local/cuda* is not searched (see toolchain.py)."""
    env = dict(env)
    kept = []
    os.makedirs(shim_dir, exist_ok=True)
    for d in env.get("PATH", "").split(os.pathsep):
        if d and os.path.exists(os.path.join(d, "nvcc")):
            for tool in ("ninja", "c++", "g++", "gcc", "cc"):
                src = os.path.join(d, tool)
                dst = os.path.join(shim_dir, tool)
                if os.path.exists(src) and not os.path.exists(dst):
                    os.symlink(src, dst)
            continue
        kept.append(d)
    env["PATH"] = os.pathsep.join([shim_dir] + kept)
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDACXX"):
        env.pop(var, None)
    env["TORCH_ENVCHECK_CUDA_DIRS"] = ""
    return env


def run_py(python: str, code: str, env: dict, cwd: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def json_from(proc: subprocess.CompletedProcess) -> dict:
    """The last stdout line of a child, parsed; fails with the child's output when it is not JSON."""
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise AssertionError(f"child printed no JSON (rc {proc.returncode})\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}") from None


def tmpdir(prefix: str) -> str:
    return tempfile.mkdtemp(prefix=prefix)


PY = sys.executable
