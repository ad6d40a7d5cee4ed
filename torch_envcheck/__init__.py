"""torch_envcheck: does this Python environment really work with its GPU and PyTorch, and if not, why.

`import torch_envcheck` is cheap: it imports neither torch nor the compiled extension and creates
no CUDA context.  Everything heavy is loaded on first use of the function that needs it.
"""

from __future__ import annotations

from torch_envcheck._version import __version__

__all__ = ["__version__", "build_info", "runtime_info", "extension_status", "diagnose", "ops"]


def build_info(build: bool | None = None) -> dict:
    """What the `_C` extension was compiled with (docs/extension.md, "build_info() and runtime_info() fields")."""
    from torch_envcheck.ext.info import build_info as _impl
    return _impl(build=build)


def runtime_info(build: bool | None = None) -> dict:
    """What the `_C` extension finds at run time (docs/extension.md, "build_info() and runtime_info() fields")."""
    from torch_envcheck.ext.info import runtime_info as _impl
    return _impl(build=build)


def extension_status() -> dict:
    """The extension's state (ok / stale / missing / ...) without compiling anything."""
    from torch_envcheck.ext.extension import status
    return status()


def diagnose(snapshot: dict | None = None) -> dict:
    """Run the doctor's probes (or take a saved snapshot) and return its report as a JSON object
    (schema torch_envcheck.report/1, what `torch-envcheck --json` prints)."""
    from torch_envcheck.doctor import diagnose as _impl
    return _impl(snapshot).to_dict()


def load_ipython_extension(ipython) -> None:
    """`%load_ext torch_envcheck`: explanations under environment errors, and `%envcheck`."""
    from torch_envcheck.notebook import load_ipython_extension as _load
    _load(ipython)


def unload_ipython_extension(ipython) -> None:
    from torch_envcheck.notebook import unload_ipython_extension as _unload
    _unload(ipython)


def __getattr__(name: str):
    if name == "ops":
        import importlib
        return importlib.import_module("torch_envcheck.ext.ops")
    raise AttributeError(f"module 'torch_envcheck' has no attribute {name!r}")
