"""torch itself: it imports, computes on the CPU, and the compiled extension was built against it."""

from __future__ import annotations

import importlib

from torch_envcheck.selftest._support import REBUILD, fail


def test_torch_imports():
    try:
        importlib.import_module("torch")
    except Exception as exc:  # ImportError, or OSError from a broken CUDA library
        fail("TE201", f"`import torch` fails: {type(exc).__name__}: {exc}",
             "install torch: `torch-envcheck advise` prints the command for this machine")


def test_torch_computes_on_cpu(torch):
    # A product small enough to check by hand: [[0,1,2],[3,4,5]] @ [1,1,1] = [3, 12].
    got = (torch.arange(6, dtype=torch.float32).reshape(2, 3) @ torch.ones(3)).tolist()
    if got != [3.0, 12.0]:
        fail("TE201", f"torch computes a wrong CPU matmul: {got} instead of [3.0, 12.0]",
             "reinstall torch: `torch-envcheck advise` prints the command")


def _torch_version_in(info: dict):
    """The torch version the extension's C++ was compiled against (build_info()["torch_headers"])."""
    headers = info.get("torch_headers")
    return headers.get("version") if isinstance(headers, dict) else None


def _same_version(built: str, running: str) -> bool:
    # The C++ headers know only major.minor.patch (TORCH_VERSION); the Python side adds "+cu130".
    return built == running or ("+" not in built and built == running.split("+")[0])


def test_extension_built_for_this_torch(torch, loaded_extension):
    meta = loaded_extension["status"].get("meta") or {}
    if meta.get("torch_version") != torch.__version__:
        fail("TE701", f"the loaded extension ({loaded_extension['status'].get('path')}) was built against torch "
                      f"{meta.get('torch_version')}, this is torch {torch.__version__}", REBUILD)
    try:
        import torch_envcheck
        info = torch_envcheck.build_info(build=False)
    except Exception as exc:
        fail("TE703", f"torch_envcheck.build_info() fails: {type(exc).__name__}: {exc}", f"{REBUILD} --verbose")
    built = _torch_version_in(info)
    if built is None:
        fail("TE703", f"build_info() has no torch version (keys: {sorted(info)})", f"{REBUILD} --verbose")
    if not _same_version(built, torch.__version__):
        fail("TE701", f"the extension's headers are torch {built}, the running torch is {torch.__version__}",
             REBUILD)
