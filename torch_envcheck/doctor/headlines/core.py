"""The area headlines of the core areas (platform, torch, driver, GPUs, CUDA libraries, toolchain,
extension): each area's facts in one line, the text beside its [✓] mark.  Descriptive only: whether
the facts are good is the findings' call.  Reads facts only through the facts layer; works on any
snapshot, however incomplete (an unknown fact reads "unknown")."""

from __future__ import annotations

from torch_envcheck.facts import core as F


def _gib(nbytes) -> str | None:
    return f"{nbytes / 2**30:.0f} GiB" if isinstance(nbytes, (int, float)) and not isinstance(nbytes, bool) \
        and nbytes > 0 else None


def _unknown(what: str) -> str:
    return f"{what} unknown"


def platform_headline(s):
    if not F.section_known(s, "platform"):
        return _unknown("platform")
    parts = [F.os_pretty(s) or F.system(s), F.machine(s)]
    if F.wsl(s):
        parts.append(f"WSL {F.wsl(s)}")
    if F.container(s):
        parts.append(f"in {F.container(s)}")
    env = ("conda env " + F.conda_env(s)) if F.conda_env(s) else ("venv" if F.in_venv(s) is True else None)
    if F.python_version(s):
        parts.append(f"Python {F.python_version(s)}" + (f" ({env})" if env else ""))
    return ", ".join(str(x) for x in parts if x)


def torch_headline(s):
    imp = F.torch_importable(s)
    if imp is None:
        return _unknown("torch")
    if not imp:
        if F.torch_installed(s) is True or F.torch_version(s):
            return f"torch {F.torch_version(s) or '?'} is installed but cannot be imported"
        if F.torch_installed(s) is False:
            return "torch is not installed in this interpreter"
        return "torch cannot be imported"
    cuda, hip = F.torch_recorded_cuda(s), F.torch_hip(s)
    parts = [f"torch {F.torch_version(s) or '?'}"]
    if cuda:
        parts.append(f"CUDA {cuda}")
    elif hip:
        parts.append(f"ROCm/HIP {hip}")
    else:
        parts.append("CPU-only build")
    if F.cudnn_text(F.torch_cudnn(s)):
        parts.append(f"cuDNN {F.cudnn_text(F.torch_cudnn(s))}")
    if cuda or hip:
        n, avail = F.device_count(s), F.cuda_available(s)
        if avail is True:
            parts.append(f"CUDA available ({n} device{'s' if n != 1 else ''})" if n is not None
                         else "CUDA available")
        elif avail is False:
            parts.append("CUDA not available")
    if F.mps_available(s):
        parts.append("MPS available")
    return ", ".join(parts)


def driver_headline(s):
    present = F.driver_present(s)
    if present is None:
        return _unknown("NVIDIA driver")
    if not present:
        pci = F.pci_gpus(s)  # None under WSL 2: its GPU is never on the Linux PCI bus
        if pci is not None:
            return "no NVIDIA driver found; " + (f"{len(pci)} NVIDIA GPU{'s' if len(pci) != 1 else ''} on the PCI bus"
                                                 if pci else "no NVIDIA GPU on the PCI bus")
        return "no NVIDIA driver found"
    text = f"driver {F.driver_version(s) or '?'}"
    if F.driver_cuda(s):
        text += f" (supports CUDA up to {F.driver_cuda(s)})"
    src = F.driver_source(s)
    return text + (f", read through {src}" if src else "")


def gpu_headline(s):
    gpus = F.gpus(s)
    if not gpus:
        if F.driver_present(s) is None and F.torch_importable(s) is None:
            return _unknown("GPUs")
        vis = F.env(s, "CUDA_VISIBLE_DEVICES")
        return "no GPU visible" + (f" (CUDA_VISIBLE_DEVICES={vis!r})" if vis is not None else "")
    names = []
    for g in gpus[:4]:
        mem = _gib(g.memory_bytes)
        cap = F.text(g.capability)
        extra = ", ".join(x for x in (f"sm_{cap.replace('.', '')}" if cap else None, mem) if x)
        names.append(f"{F.text(g.name) or '?'}" + (f" ({extra})" if extra else ""))
    more = f" and {len(gpus) - 4} more" if len(gpus) > 4 else ""
    return f"{len(gpus)} GPU{'s' if len(gpus) != 1 else ''}: " + "; ".join(names) + more


def libraries_headline(s):
    if not F.section_known(s, "libraries"):
        return _unknown("CUDA libraries")
    var = F.library_path_var(s)
    entries = F.library_listing(s)
    if not entries:
        return f"no CUDA/cuDNN libraries in {var}"
    files = sum(e.files for e in entries)
    dirs = ", ".join(e.dir or "?" for e in entries[:3])
    return f"{files} CUDA/cuDNN librar{'ies' if files != 1 else 'y'} in {var}: {dirs}"


def toolchain_headline(s):
    if not F.section_known(s, "toolchain"):
        return _unknown("toolchain")
    parts = []
    cands = F.nvcc_candidates(s)
    used = F.nvcc_in_use(s)  # the same nvcc TE600-TE603 judge
    if used:
        parts.append(f"nvcc {used.version} ({F.text(used.path) or '?'})"
                     + (f" + {len(cands) - 1} more" if len(cands) > 1 else ""))
    elif cands:
        parts.append(f"{len(cands)} nvcc that do{'es' if len(cands) == 1 else ''} not run")
    else:
        parts.append("no nvcc")
    hc = F.host_compiler(s)
    if hc is not None:
        parts.append(F.text(hc.version) or f"C++ compiler {F.text(hc.path) or '?'} (version unknown)")
    else:
        parts.append("no C++ compiler")
    nj = F.ninja(s)
    parts.append(f"ninja {F.text(nj.version) or '?'}" if nj is not None else "no ninja")
    return ", ".join(str(p) for p in parts)


def extension_headline(s):
    st = F.ext_status(s)
    state = F.text(st.state)
    if state == "ok":
        return f"compiled ({st.mode}) for torch {st.built_against or st.running_torch}"
    if state == "stale":
        return f"stale: built against torch {st.built_against}"
    if state == "missing":
        return "not compiled for this torch yet"
    if state == "torch-missing":
        return "needs torch"
    if state == "not-checked":
        return "not checked in another environment (it belongs to the one torch-envcheck is installed in)"
    return f"{state}: {st.error}" if state else _unknown("extension state")
