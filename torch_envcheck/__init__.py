"""torch_envcheck: does this Python environment really work with its GPU and PyTorch, and if not, why.

`import torch_envcheck` is cheap: it imports neither torch nor the compiled extension and creates
no CUDA context.  Everything heavy is loaded on first use of the function that needs it.
"""

from __future__ import annotations

from torch_envcheck._version import __version__

__all__ = ["__version__", "build_info", "runtime_info", "extension_status", "diagnose", "advise", "ops"]


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


def advise(snapshot: dict | None = None, forms=()):
    """The torch build that fits this machine (or a saved snapshot's), why, and every other build
    with the reason it was not chosen: an advice.api.Advice; `.to_dict()` is the JSON document of
    `torch-envcheck advise --json` (docs/advice.md, "The API for installers").  forms: ("uv",)
    adds the uv command.  Without a snapshot, the probes advise needs run here (torch is imported
    only in a child process, as the doctor does)."""
    from torch_envcheck.advice.api import advice_for as _impl
    if snapshot is None:
        from torch_envcheck.doctor import collect
        # the installed torch too (imported in a child process): advice keeps a working release
        snapshot = collect(only=("platform", "driver", "conda", "packages", "torch"), tensorflow=False)
    elif not isinstance(snapshot, dict):
        raise TypeError("advise(snapshot): a snapshot dict (from torch_envcheck.doctor.collect or a saved report)")
    return _impl(snapshot, forms=tuple(forms))


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
