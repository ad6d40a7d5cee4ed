"""The child process of the torch probe: imports torch and writes its facts as JSON lines.

Run by torch_probe.start() as `python -I _torch_child.py PATHS_JSON`: -I keeps PYTHON* variables,
the user's site directory and the current directory out, and the parent's sys.path (PATHS_JSON, less
the current directory) is put back, so this process imports the torch the doctor's own interpreter
would import.  Nothing here may import torch_envcheck before torch: the child must stay cheap.

Protocol: stdout carries only JSON lines, one object each:
    {"section": "torch", "facts": {...}}        after torch was imported and examined
    {"section": "extension", "facts": {...}}    after the extension's state was read
Whatever torch or a library prints to stdout goes to stderr (fd 1 is pointed at fd 2 first), so it
cannot corrupt the protocol.  A torch that hangs, exits or dies on a signal simply leaves lines
missing; the parent turns that into facts.
"""

import json
import os
import sys
import time
import warnings

_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)

if len(sys.argv) > 1:
    sys.path[:] = json.loads(sys.argv[1])

_NUMPY_MARK = "Failed to initialize NumPy"


def _text(exc):
    return f"{type(exc).__name__}: {exc}"


def _emit(section, facts):
    _OUT.write(json.dumps({"section": section, "facts": facts}, default=str) + "\n")
    _OUT.flush()


def _note(out, caught):
    for w in caught:
        msg = str(w.message).strip()
        if _NUMPY_MARK in msg:
            out["numpy_error"] = out["numpy_error"] or msg.split(" (Triggered internally")[0]
            continue
        if msg and msg not in out["cuda_warnings"]:
            out["cuda_warnings"].append(msg)
        if out["cuda_init_error"] is None and "CUDA initialization" in msg:
            out["cuda_init_error"] = msg


def _cuda(torch, out):
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


def _xpu(torch, version, out):
    """torch.xpu (Intel GPUs, torch >= 2.4): whether this is an XPU build and which devices it sees.
    `version` is the torch.version already read (asked once: a torch that fails on a second look
    must fail where the extension probe looks, not here)."""
    xv = getattr(version, "xpu", None)
    out["xpu_version"] = xv if isinstance(xv, str) else None
    xpu = getattr(torch, "xpu", None)
    if xpu is None:
        return
    facts = {"built": None, "available": None, "device_count": None, "devices": [], "error": None}
    try:
        compiled = getattr(xpu, "_is_compiled", None)
        facts["built"] = bool(compiled()) if compiled else None
        facts["available"] = bool(xpu.is_available())
        if facts["available"]:
            facts["device_count"] = int(xpu.device_count())
            facts["devices"] = [str(xpu.get_device_name(i)) for i in range(facts["device_count"])]
        else:
            facts["device_count"] = 0
    except Exception as exc:
        facts["error"] = _text(exc)
    out["xpu"] = facts


def torch_facts():
    out = {"importable": False, "import_error": None, "import_seconds": None, "file": None, "version": None,
           "cuda": None, "hip": None, "cudnn": None, "cudnn_error": None, "arch_list": [], "cuda_available": None,
           "device_count": None, "cuda_init_error": None, "cuda_warnings": [], "devices": [], "mps": None,
           "mkldnn": None, "cxx11_abi": None, "numpy_error": None}
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import torch
        except BaseException as exc:  # ImportError, OSError, even SystemExit from a broken install
            out["import_seconds"] = round(time.perf_counter() - t0, 3)
            out["import_error"] = _text(exc)
            _note(out, caught)
            return None, out
    out["import_seconds"] = round(time.perf_counter() - t0, 3)
    _note(out, caught)
    out["importable"] = True
    out["file"] = getattr(torch, "__file__", None)
    out["version"] = str(getattr(torch, "__version__", None))
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
    _xpu(torch, version, out)
    try:
        out["mkldnn"] = bool(torch.backends.mkldnn.is_available())
    except Exception:
        pass
    abi = getattr(getattr(torch, "_C", None), "_GLIBCXX_USE_CXX11_ABI", None)
    out["cxx11_abi"] = None if abi is None else bool(abi)
    return torch, out


def main():
    torch, facts = torch_facts()
    _emit("torch", facts)
    if torch is None or os.environ.get("TORCH_ENVCHECK_CHILD_NO_EXTENSION"):
        return
    # The extension's binary links against torch: it is loaded here, next to the torch it needs,
    # and a crash while loading it costs only this line, not the torch facts above.  torch_envcheck's
    # own folder goes last, after torch was imported, so it can never stand in for torch.
    if len(sys.argv) > 2 and sys.argv[2] not in sys.path:
        sys.path.append(sys.argv[2])
    from torch_envcheck.doctor.probes import extension_probe
    _emit("extension", extension_probe.probe(torch_facts=facts))


if __name__ == "__main__":
    code = 0
    try:
        main()
    except BaseException:  # a bug here, not in torch: the traceback reaches the parent's stderr tail
        import traceback
        traceback.print_exc()
        code = 3
    _OUT.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: torch's and CUDA's exit handlers can take long or crash, and every
    # fact has been written.
    os._exit(code)
