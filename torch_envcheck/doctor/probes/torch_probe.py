"""Facts about torch, taken by importing it in this process (the doctor's one expensive step).

An ImportError or OSError is kept verbatim: its text ("libcudnn.so.9: cannot open shared object
file", "undefined symbol ...") is usually the diagnosis.  CUDA initialisation errors are captured
from the warning torch emits ("CUDA initialization: ...") or from torch.cuda.init()."""

from __future__ import annotations

import re
import time
import warnings

from . import dists

_LOCAL_RE = re.compile(r"\+(.+)$")


def local_suffix(version: str | None) -> str | None:
    m = _LOCAL_RE.search(version or "")
    return m.group(1) if m else None


def _blank() -> dict:
    return {
        "importable": False, "installed": False, "import_error": None, "import_seconds": None,
        "version": None, "local": None, "cuda": None, "hip": None, "cudnn": None, "cudnn_error": None,
        "arch_list": [], "cuda_available": None, "device_count": None, "cuda_init_error": None,
        "cuda_warnings": [], "devices": [], "mps": None, "mkldnn": None, "cxx11_abi": None,
        "installer": None, "location": None, "requires_python": None, "file": None,
    }


def _metadata(out: dict) -> None:
    dist = dists.distribution("torch")
    if dist is None:
        return
    out["installed"] = True
    out["version"] = dist.version
    out["local"] = local_suffix(dist.version)
    out["installer"] = dists.installer(dist, "torch")
    out["location"] = dists.location(dist)
    try:
        out["requires_python"] = dist.metadata.get("Requires-Python")
    except Exception:
        pass


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _note(out: dict, caught) -> None:
    for w in caught:
        msg = str(w.message).strip()
        if msg and msg not in out["cuda_warnings"]:
            out["cuda_warnings"].append(msg)
        if out["cuda_init_error"] is None and "CUDA initialization" in msg:
            out["cuda_init_error"] = msg


def _cuda(torch, out: dict) -> None:
    cuda = torch.cuda
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            flags = torch._C._cuda_getArchFlags() if hasattr(torch._C, "_cuda_getArchFlags") else None
            # get_arch_list() returns [] when no GPU is usable; the build's list is what we want.
            out["arch_list"] = flags.split() if flags else list(cuda.get_arch_list())
        except Exception as exc:
            out["cuda_warnings"].append(f"arch list: {_text(exc)}")
        try:
            out["cuda_available"] = bool(cuda.is_available())
            out["device_count"] = int(cuda.device_count())
        except Exception as exc:
            out["cuda_init_error"] = _text(exc)
        if out["cuda_available"]:
            try:
                for i in range(out["device_count"] or 0):
                    p = cuda.get_device_properties(i)
                    out["devices"].append({"index": i, "name": p.name, "capability": f"{p.major}.{p.minor}",
                                           "total_memory_bytes": int(p.total_memory)})
            except Exception as exc:
                out["cuda_init_error"] = out["cuda_init_error"] or _text(exc)
        elif (out["cuda"] or out["hip"]) and out["cuda_init_error"] is None:
            # is_available() can be False without a word (no driver, CUDA_VISIBLE_DEVICES="");
            # torch.cuda.init() says why, and creates no context when it fails.
            try:
                cuda.init()
            except Exception as exc:
                out["cuda_init_error"] = _text(exc)
        _note(out, caught)


def probe() -> dict:
    out = _blank()
    _metadata(out)
    t0 = time.perf_counter()
    try:
        import torch  # noqa: PLC0415
    except (Exception, SystemExit) as exc:  # ImportError, OSError, even SystemExit from a broken install
        out["import_seconds"] = round(time.perf_counter() - t0, 3)
        out["import_error"] = _text(exc)
        return out
    out["import_seconds"] = round(time.perf_counter() - t0, 3)
    out["importable"] = True
    out["installed"] = True
    out["file"] = getattr(torch, "__file__", None)
    out["version"] = str(getattr(torch, "__version__", out["version"]))
    out["local"] = local_suffix(out["version"])
    version = getattr(torch, "version", None)
    out["cuda"] = getattr(version, "cuda", None)
    out["hip"] = getattr(version, "hip", None)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out["cudnn"] = torch.backends.cudnn.version()
        for w in caught:
            out["cudnn_error"] = out["cudnn_error"] or str(w.message)
    except Exception as exc:  # "cuDNN version incompatibility: ..." is raised from here
        out["cudnn_error"] = _text(exc)
    if out["cuda"] or out["hip"]:
        _cuda(torch, out)
    else:
        out["cuda_available"] = False
        out["device_count"] = 0
    try:
        mps = torch.backends.mps
        out["mps"] = {"built": bool(mps.is_built()), "available": bool(mps.is_available())}
    except Exception:
        out["mps"] = None
    try:
        out["mkldnn"] = bool(torch.backends.mkldnn.is_available())
    except Exception:
        pass
    abi = getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", None)
    out["cxx11_abi"] = None if abi is None else bool(abi)
    return out
