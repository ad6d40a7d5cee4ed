"""build_info() and runtime_info(): what the compiled `_C` extension was built with, and what it finds
when it runs, as plain JSON-serialisable dicts (fields documented in docs/extension.md).

Both load the extension first (building it when allowed, see extension.load) and never raise: when the
extension cannot be had (torch missing, build disabled or failed) they return `"available": false`, the
reason, and the extension's status, so the doctor can report it as a fact.
"""

from __future__ import annotations

import json

_STATUS_KEYS = ("state", "mode", "path", "built_against", "running_torch", "running_torch_cuda", "error",
                "rebuild_command", "stale_aot")


def _extension_block(status: dict) -> dict:
    block = {k: status.get(k) for k in _STATUS_KEYS}
    return block


def _load(build: bool | None):
    """(module or None, status dict, reason or None).  Never raises."""
    from torch_envcheck.ext import extension

    try:
        mod = extension.load(build=build)
    except extension.ExtensionUnavailable as exc:
        st = extension.status()
        tried = build if build is not None else extension._autobuild_default()
        if tried and st.get("state") not in ("torch-missing", "ok"):
            # A build was attempted and failed (compiler error, or CUDA required but impossible).
            st["state"] = "build-failed"
            st["error"] = str(exc)
        return None, st, str(exc)
    except ImportError as exc:  # torch itself is not importable
        st = extension.status()
        return None, st, f"torch is not importable ({type(exc).__name__}: {exc})"
    except Exception as exc:  # anything else from a broken install: a fact, not a crash
        st = extension.status()
        return None, st, f"{type(exc).__name__}: {exc}"
    st = extension.loaded_status() or extension.status()
    return mod, st, None


def _call_json(mod, name: str) -> tuple[dict | None, str | None]:
    try:
        data = json.loads(getattr(mod, name)())
    except Exception as exc:  # an old binary without the function, or bad JSON
        return None, f"{name}() failed: {type(exc).__name__}: {exc}"
    if not isinstance(data, dict):
        return None, f"{name}() returned {type(data).__name__}, expected a JSON object"
    return data, None


def _kernel_isa() -> dict | None:
    """The kernels' own report (torch.ops.envcheck.cpu_kernel_isa), when this build has that op."""
    try:
        import torch
        op = torch.ops.envcheck.cpu_kernel_isa
    except (ImportError, AttributeError, RuntimeError):
        return None
    try:
        data = json.loads(op())
    except Exception as exc:
        return {"error": f"cpu_kernel_isa failed: {type(exc).__name__}: {exc}"}
    return data if isinstance(data, dict) else {"error": f"cpu_kernel_isa returned {data!r}"}


def _unavailable(reason: str, status: dict) -> dict:
    return {"available": False, "reason": reason, "extension": _extension_block(status)}


def build_info(build: bool | None = None) -> dict:
    """Facts compiled into the extension, merged with the build metadata file."""
    mod, st, reason = _load(build)
    if mod is None:
        return _unavailable(reason, st)
    data, err = _call_json(mod, "build_info_json")
    if data is None:
        return _unavailable(err, st)
    meta = st.get("meta") or {}
    cuda_meta = meta.get("cuda") or {}
    out = {"available": True, "reason": None}
    out.update(data)
    try:
        import torch
        running = torch.__version__.split("+")[0]
    except Exception:
        running = None
    headers = out.get("torch_headers") or {}
    headers["matches_running_torch"] = (headers.get("version") == running) if running else None
    # Why CUDA was (not) compiled, and the SASS/PTX split: only the build knows these (nvcc's
    # __CUDA_ARCH_LIST__ lists virtual architectures without saying which ones were kept as PTX).
    out["cuda_reason"] = cuda_meta.get("reason")
    if isinstance(out.get("cuda"), dict):
        out["cuda"]["gencode"] = cuda_meta.get("gencode")
        out["cuda"]["torch_cuda_arch_list"] = cuda_meta.get("torch_cuda_arch_list")
        out["cuda"]["nvcc_path"] = cuda_meta.get("nvcc")
        out["cuda"]["cuda_home"] = cuda_meta.get("cuda_home")
    if isinstance(out.get("cpu_isa"), dict):
        out["cpu_isa"]["kernels"] = _kernel_isa()
    out["build_meta"] = meta or None
    out["extension"] = _extension_block(st)
    return out


def _python_facts() -> dict:
    """What torch itself says, next to what the extension measures.  None of these calls creates a CUDA
    context: torch.cuda.is_available() only counts devices, cudnn.version() only asks the library."""
    facts: dict = {"torch_version": None, "torch_cuda": None, "torch_cudnn": None, "torch_cudnn_error": None,
                   "torch_cuda_available": None, "torch_cuda_initialized": None, "torch_arch_list": None,
                   "error": None}
    try:
        import torch
    except Exception as exc:
        facts["error"] = f"torch is not importable ({type(exc).__name__}: {exc})"
        return facts
    facts["torch_version"] = torch.__version__
    facts["torch_cuda"] = torch.version.cuda
    try:
        facts["torch_cudnn"] = torch.backends.cudnn.version()
    except Exception as exc:  # e.g. "cuDNN version incompatibility": the message is the fact
        facts["torch_cudnn_error"] = f"{type(exc).__name__}: {exc}"
    try:
        facts["torch_cuda_available"] = bool(torch.cuda.is_available())
        facts["torch_cuda_initialized"] = bool(torch.cuda.is_initialized())
        facts["torch_arch_list"] = list(torch.cuda.get_arch_list())
    except Exception as exc:
        facts["error"] = f"{type(exc).__name__}: {exc}"
    return facts


def runtime_info(build: bool | None = None) -> dict:
    """Facts the extension finds at run time (this is the call that may create a CUDA context)."""
    mod, st, reason = _load(build)
    python = _python_facts()
    if mod is None:
        out = _unavailable(reason, st)
        out["python"] = python
        return out
    data, err = _call_json(mod, "runtime_info_json")
    if data is None:
        out = _unavailable(err, st)
        out["python"] = python
        return out
    out = {"available": True, "reason": None}
    out.update(data)
    out["python"] = python
    out["extension"] = _extension_block(st)
    return out
