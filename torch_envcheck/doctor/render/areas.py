"""One-line descriptions of each area's facts (the headline next to the [✓] mark) and the full
fact list shown by --verbose.  Works on any snapshot, however incomplete."""

from __future__ import annotations

TITLES = {
    "platform": "Platform", "torch": "PyTorch", "driver": "NVIDIA driver", "gpu": "GPUs",
    "libraries": "CUDA libraries", "toolchain": "Compiler toolchain", "extension": "torch_envcheck extension",
    "tensorflow": "TensorFlow",
}


def _d(value) -> dict:
    return value if isinstance(value, dict) else {}


def _l(value) -> list:
    return value if isinstance(value, list) else []


def cudnn_text(v) -> str | None:
    """92400 -> "9.24.0", 8902 -> "8.9.2" (cuDNN 9 encodes major*10000+minor*100+patch, 8 major*1000+...)."""
    if not isinstance(v, int) or v <= 0:
        return None
    if v >= 10000:
        return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"
    return f"{v // 1000}.{(v % 1000) // 100}.{v % 100}"


def _gib(nbytes) -> str | None:
    return f"{nbytes / 2**30:.0f} GiB" if isinstance(nbytes, (int, float)) and nbytes > 0 else None


def headline(area: str, snap: dict) -> str:
    try:
        return _HEADLINES[area](snap) or ""
    except Exception:  # a hand-edited snapshot must not break the report
        return "(unreadable facts)"


def _platform(s):
    p, py = _d(s.get("platform")), _d(_d(s.get("platform")).get("python"))
    parts = [p.get("os_pretty") or p.get("system"), p.get("machine")]
    if p.get("wsl"):
        parts.append(f"WSL {p['wsl']}")
    if p.get("container"):
        parts.append(f"in {p['container']}")
    env = "conda env " + str(py.get("conda_env")) if py.get("conda_env") else ("venv" if py.get("venv") else None)
    if py.get("version"):
        parts.append(f"Python {py['version']}" + (f" ({env})" if env else ""))
    return ", ".join(str(x) for x in parts if x)


def _torch(s):
    t = _d(s.get("torch"))
    if not t.get("importable"):
        if t.get("installed") or t.get("version"):
            return f"torch {t.get('version') or '?'} is installed but cannot be imported"
        return "torch is not installed in this interpreter"
    parts = [f"torch {t.get('version')}"]
    if t.get("cuda"):
        parts.append(f"CUDA {t['cuda']}")
    elif t.get("hip"):
        parts.append(f"ROCm/HIP {t['hip']}")
    else:
        parts.append("CPU-only build")
    if cudnn_text(t.get("cudnn")):
        parts.append(f"cuDNN {cudnn_text(t['cudnn'])}")
    if t.get("cuda") or t.get("hip"):
        n = t.get("device_count")
        parts.append(f"CUDA available ({n} device{'s' if n != 1 else ''})" if t.get("cuda_available")
                     else "CUDA not available")
    mps = _d(t.get("mps"))
    if mps.get("available"):
        parts.append("MPS available")
    return ", ".join(parts)


def _driver(s):
    d = _d(s.get("driver"))
    if not d.get("present"):
        pci = d.get("pci_gpus")
        # WSL 2's GPU is never on the Linux PCI bus: there the bus says nothing about it.
        if isinstance(pci, list) and _d(s.get("platform")).get("wsl") != 2:
            return "no NVIDIA driver found; " + (f"{len(pci)} NVIDIA GPU{'s' if len(pci) != 1 else ''} on the PCI bus"
                                                 if pci else "no NVIDIA GPU on the PCI bus")
        return "no NVIDIA driver found"
    text = f"driver {d.get('version') or '?'}"
    if d.get("cuda_version"):
        text += f" (supports CUDA up to {d['cuda_version']})"
    return text + f", read through {d.get('source')}"


def _gpu(s):
    t, d = _d(s.get("torch")), _d(s.get("driver"))
    gpus = _l(t.get("devices")) or _l(d.get("gpus"))
    if not gpus:
        vis = _d(s.get("env")).get("CUDA_VISIBLE_DEVICES")
        return "no GPU visible" + (f" (CUDA_VISIBLE_DEVICES={vis!r})" if vis is not None else "")
    names = []
    for g in gpus[:4]:
        g = _d(g)
        mem = _gib(g.get("total_memory_bytes")) or (
            f"{g['memory_total_mib'] / 1024:.0f} GiB" if isinstance(g.get("memory_total_mib"), int) else None)
        extra = ", ".join(x for x in (f"sm_{str(g.get('capability')).replace('.', '')}"
                                      if g.get("capability") else None, mem) if x)
        names.append(f"{g.get('name')}" + (f" ({extra})" if extra else ""))
    more = f" and {len(gpus) - 4} more" if len(gpus) > 4 else ""
    return f"{len(gpus)} GPU{'s' if len(gpus) != 1 else ''}: " + "; ".join(names) + more


def _libraries(s):
    lib = _d(s.get("libraries"))
    var = lib.get("search_path_var") or "LD_LIBRARY_PATH"
    entries = _l(lib.get("entries"))
    if not entries:
        return f"no CUDA/cuDNN libraries in {var}"
    files = sum(len(_l(_d(e).get("libs"))) for e in entries)
    dirs = ", ".join(str(_d(e).get("dir")) for e in entries[:3])
    return f"{files} CUDA/cuDNN librar{'ies' if files != 1 else 'y'} in {var}: {dirs}"


def _toolchain(s):
    tc = _d(s.get("toolchain"))
    parts = []
    nvcc = [_d(n) for n in _l(tc.get("nvcc"))]
    if nvcc:
        # the first nvcc with a toolkit beside it is the one a build can use (a bare wrapper cannot)
        first = next((n for n in nvcc if n.get("toolkit_found")), nvcc[0])
        parts.append(f"nvcc {first.get('version') or '?'} ({first.get('path')})"
                     + (f" + {len(nvcc) - 1} more" if len(nvcc) > 1 else ""))
    else:
        parts.append("no nvcc")
    hc = _d(tc.get("host_compiler"))
    parts.append((hc.get("version") or f"C++ compiler {hc.get('path')} (version unknown)") if hc
                 else "no C++ compiler")
    nj = _d(tc.get("ninja"))
    parts.append(f"ninja {nj.get('version')}" if nj else "no ninja")
    return ", ".join(str(p) for p in parts)


def _extension(s):
    st = _d(_d(s.get("extension")).get("status"))
    state = st.get("state")
    if state == "ok":
        return f"compiled ({st.get('mode')}) for torch {st.get('built_against') or st.get('running_torch')}"
    if state == "stale":
        return f"stale: built against torch {st.get('built_against')}"
    if state == "missing":
        return "not compiled for this torch yet"
    if state == "torch-missing":
        return "needs torch"
    return f"{state}: {st.get('error')}" if state else "unknown"


def _tensorflow(s):
    from .tf_headline import headline as tf_headline  # noqa: PLC0415
    return tf_headline(s)


_HEADLINES = {"platform": _platform, "torch": _torch, "driver": _driver, "gpu": _gpu, "libraries": _libraries,
              "toolchain": _toolchain, "extension": _extension, "tensorflow": _tensorflow}

# --verbose: which snapshot sections are listed under which area.
SECTIONS = {"platform": ("platform",), "torch": ("torch", "packages"), "driver": ("driver",),
            "gpu": (), "libraries": ("libraries", "env"), "toolchain": ("toolchain",), "extension": ("extension",),
            "tensorflow": ("tensorflow", "file_owners")}


def flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    """[("python.version", "3.11.7"), ...] for the --verbose listing."""
    out = []
    if isinstance(value, dict):
        if not value and prefix:
            out.append((prefix, "{}"))
        for k, v in value.items():
            out.extend(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list):
        if not value:
            out.append((prefix, "[]"))
        elif all(not isinstance(v, (dict, list)) for v in value):
            out.append((prefix, ", ".join(str(v) for v in value)))
        else:
            for i, v in enumerate(value):
                out.extend(flatten(v, f"{prefix}[{i}]"))
    else:
        out.append((prefix, "null" if value is None else str(value)))
    return out
