"""Shared test setup.

Markers: `gpu` tests are skipped without a usable NVIDIA GPU; `slow` tests compile the extension or
create virtual environments.

Some tests need the *other* torch of the pair this project is tested with (a CUDA build and a CPU
build, each in its own venv).  .ci/run exports their interpreters:
  TE_TEST_CUDA_PYTHON  python of a venv with a CUDA build of torch
  TE_TEST_CPU_PYTHON   python of a venv with a CPU build of torch
Tests that need one skip, saying so, when it is not set.

TE_TEST_EVERY_WAY=1 makes the slow tier's robustness sweep (tests/unit/rules/test_rules_robust.py)
spoil every key of every recorded snapshot every way, not two more ways (some four minutes of CPU).
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Bytecode.  The tests start hundreds of Python processes that import this package from the source
# tree (doctor_support.run_cli puts it first on PYTHONPATH).  Where PYTHONDONTWRITEBYTECODE is set
# (some containers set it) none of them writes bytecode, so each compiles every module it imports
# again: about twice the CPU of a command that reads bytecode.  The session compiles the package
# and the tests' helpers once (compileall writes whatever the variable says, and every process reads
# bytecode that exists), and lets pytest keep the test modules it rewrites, so that the next session
# does not rewrite them again.  The __pycache__ folders are git-ignored.
if sys.dont_write_bytecode:
    import compileall as _compileall

    for _tree in ("torch_envcheck", os.path.join("tests", "support")):
        _compileall.compile_dir(os.path.join(REPO, _tree), quiet=2)
    sys.dont_write_bytecode = False

# The knowledge overlay (`torch-envcheck knowledge update`) lives in the user's cache; the
# tests judge against the shipped tables unless a test writes its own overlay (into a folder of its own,
# through this variable).  An empty folder of this session, inherited by every subprocess.
if not os.environ.get("TORCH_ENVCHECK_KNOWLEDGE_DIR"):
    import atexit as _atexit
    import tempfile as _tempfile

    os.environ["TORCH_ENVCHECK_KNOWLEDGE_DIR"] = _tempfile.mkdtemp(prefix="te-tests-knowledge-")
    _atexit.register(shutil.rmtree, os.environ["TORCH_ENVCHECK_KNOWLEDGE_DIR"], True)


def _gpu_available() -> bool:
    try:
        import torch
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU with a working driver (none here)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (the README's command): one worker per core, at most 8.  Each worker imports torch
    and many tests start torch-importing children; past 8 the memory grows faster than the time
    falls."""
    return max(1, min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def _python_from_env(var: str) -> str:
    path = os.environ.get(var)
    if not path:
        pytest.skip(f"{var} is not set (see tests/conftest.py)")
    if not (os.path.isfile(path) or shutil.which(path)):
        pytest.fail(f"{var}={path} does not exist")
    return path


@pytest.fixture(scope="session")
def repo_root() -> str:
    return REPO


@pytest.fixture(scope="session")
def cuda_python() -> str:
    return _python_from_env("TE_TEST_CUDA_PYTHON")


@pytest.fixture(scope="session")
def cpu_python() -> str:
    return _python_from_env("TE_TEST_CPU_PYTHON")
