"""CUDA library rules: libraries on LD_LIBRARY_PATH (PATH on Windows) that can be loaded instead of
the ones torch ships, and cuDNN build/run-time mismatches or failed handles."""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck.knowledge import windows_dlls as WD
from torch_envcheck.advice import recommend as A
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F


def _path_searched_by_torch(s) -> bool:
    """Whether torch finds its CUDA libraries through the recorded search path.  On native Windows it
    does not (torch 1.5.1 on: os.add_dll_directory and LOAD_LIBRARY_SEARCH flags, never PATH;
    data/windows_dll_search.json), so PATH's CUDA folders cannot shadow torch's own DLLs."""
    if F.system(s) != "Windows":
        return True
    try:
        return WD.path_searched("torch", F.torch_version(s)) is not False
    except kb.KnowledgeError:
        return True


def _shadows(s) -> list[dict]:
    found = []
    if not _path_searched_by_torch(s):
        return found
    for e in F.library_entries(s):
        for lib in e.libs:
            kind, ver = lib.kind, lib.version
            # "libcudnn_ops.so.9" carries the major only: it cannot be compared to a minor
            mm = versions.major_minor(ver) if ver and len(versions.version_tuple(ver) or ()) >= 2 else None
            exp = F.torch_library(s, kind) if kind else None
            if not (mm and exp):
                continue
            # A different major has a different soname (libcudart.so.12 vs .so.13): it cannot be
            # picked up in place of torch's copy.  Same major, other minor: it can.
            if mm[0] == exp[0][0] and mm != exp[0]:
                found.append({"dir": e.dir, "file": lib.file, "kind": kind, "version": ver,
                              "torch_has": f"{exp[0][0]}.{exp[0][1]}", "torch_source": exp[1],
                              "older": mm < exp[0]})
    return found


def ld_library_path(s) -> list[dict]:
    if not F.is_cuda_torch(s):
        return []
    hits = _shadows(s)
    if not hits:
        return []
    var = F.library_path_var(s)
    dirs = list(dict.fromkeys(h["dir"] for h in hits))
    fix = A.drop_from_library_path(s, var, dirs)
    first = hits[0]
    older = any(h["older"] for h in hits)
    listing = "; ".join(f"{h['file'] or h['kind']} ({h['version']}, torch has {h['torch_has']}) in {h['dir']}" for h in hits[:4])
    return [finding(
        "TE501", "warning",
        f"{var} puts {first['kind']} {first['version']} from {first['dir']} ahead of torch's {first['kind']} {first['torch_has']}"
        + (f" (+{len(hits) - 1} more)" if len(hits) > 1 else ""),
        f"Same-major libraries share a soname, so the dynamic loader may take these instead of the copies torch "
        f"ships: {listing}. "
        + ("Older ones are known to break torch (e.g. \"libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1\", "
           "or a cuDNN version incompatibility error). " if older else
           "Newer ones usually work but are not what torch was tested with. ")
        + f"Drop these directories from {var} for Python sessions that use torch.",
        fix, {"shadowing": hits, "search_path_var": var}, hides=["TE500"])]


def path_breaks_import(s) -> list[dict]:
    """`import torch` fails on a library error while the search path holds CUDA libraries: that
    folder is the cause (e.g. an older CUDA's libnvJitLink, "undefined symbol: __nvJitLinkComplete_12_4"),
    and reinstalling torch cannot help while it wins.  Explains TE201."""
    b = F.import_broken_by_search_path(s)
    if b is None:
        return []
    err, var, suspects, need = b.error, b.var, b.suspects, b.needs
    listing = "; ".join(f"{l.file or l.kind} {l.version or ''}".strip() + f" in {l.dir}" for l in suspects[:4])
    return [finding(
        "TE505", "failure", F.import_breaker_label(b),
        f"torch's import error: {err.splitlines()[0][:240]}. The dynamic loader searches {var} before the "
        f"CUDA libraries torch ships in its nvidia-* pip packages, and this folder holds another CUDA's "
        f"libraries: {listing}. Reinstalling torch cannot help while that folder comes first; drop it from "
        f"{var} for Python sessions that use torch (command below).",
        A.search_path_fix(s, b), {"import_error": err, "suspects": F.as_details(suspects), "search_path_var": var,
                                  "symbol_needs": need and
                                  {"library": need[0], "version": f"{need[1][0]}.{need[1][1]}"}},
        explains=["TE201"])]


FAMILY_PACKAGE = {"cudart": "nvidia-cuda-runtime", "cudnn": "nvidia-cudnn", "cublas": "nvidia-cublas"}


def loaded_elsewhere(s) -> list[dict]:
    """Evidence rather than suspicion: the extension lists the CUDA/cuDNN files really mapped into
    the process (/proc/self/maps).  A family torch gets from a pip nvidia-* wheel but loaded from
    outside site-packages means another copy won."""
    if not F.is_cuda_torch(s):
        return []
    site = F.torch_location(s)
    if not F.ext_loaded_libraries_known(s) or not site:
        return []
    site = site.rstrip("/\\")
    if site.endswith("torch"):
        site = site[: -len("torch")].rstrip("/\\")
    foreign = []
    for family, pkg_prefix in FAMILY_PACKAGE.items():
        pkg = F.nvidia_package_version(s, pkg_prefix)
        if not pkg:
            continue
        for path in F.ext_loaded_files(s, family):
            if not path.startswith(site):
                foreign.append({"family": family, "path": path, "wheel": f"{pkg[0]} {pkg[1]}"})
    if not foreign:
        return []
    first = foreign[0]
    return [finding(
        "TE501", "warning",
        f"{first['family']} is loaded from {first['path']}, not from torch's {first['wheel']} in {site}"
        + (f" (+{len(foreign) - 1} more)" if len(foreign) > 1 else ""),
        "The process mapped a CUDA library from outside the Python environment, so a system copy shadows the "
        "one torch ships (LD_LIBRARY_PATH, LD_PRELOAD or /etc/ld.so.conf.d). If versions differ this breaks "
        "torch at import or first use.", None, {"foreign": foreign, "site_packages": site}, hides=["TE500"])]


def cudnn_mismatch(s) -> list[dict]:
    if not F.is_cuda_torch(s):
        return []
    out = []
    texts = [F.cudnn_error(s), F.cuda_init_error(s), F.import_error(s), F.ext_torch_cudnn_error(s)] + \
        [v for v in F.probe_errors(s).values() if isinstance(v, str)]
    hit = next((t for t in texts if t and "cuDNN version incompatibility" in t), None)
    if hit:
        out.append(finding("TE502", "failure", "torch refuses the loaded cuDNN: " + hit.splitlines()[0][:240],
                           "The cuDNN found at run time is not the one torch was built with; usually a system "
                           "cuDNN on LD_LIBRARY_PATH wins over the wheel's nvidia-cudnn package.", None,
                           {"error": hit}, hides=["TE500"]))
        return out
    # Expected: the cuDNN torch ships (its nvidia-cudnn wheel), else the cudnn.h our extension was
    # compiled with.  Loaded: what cudnnGetVersion() returns in this process, else torch's view.
    pkg = F.nvidia_package_version(s, "nvidia-cudnn")
    built = F.cudnn_tuple(pkg[1]) if pkg else None
    expected_from = f"the installed {pkg[0]} {pkg[1]}" if pkg else None
    if built is None:
        built = F.cudnn_tuple(F.ext_cudnn_headers_version(s)) or \
            F.cudnn_tuple(F.ext_cudnn_compiled_version(s))
        expected_from = "the cudnn.h the extension was compiled with" if built else None
    loaded = F.cudnn_tuple(F.ext_loaded_cudnn_version(s))
    loaded_from = "cudnnGetVersion() in this process" if loaded else None
    if loaded is None:
        loaded = F.torch_cudnn(s)
        loaded_from = "torch.backends.cudnn.version()" if loaded else None
    source = f"{loaded_from} vs {expected_from}"
    lib_path = F.ext_loaded_cudnn_path(s)
    if not (built and loaded) or built[:2] == loaded[:2]:
        return out
    # torch accepts a run-time cuDNN of the same major with minor >= the build's (backends/cudnn).
    fatal = loaded[0] != built[0] or loaded[1] < built[1]
    out.append(finding(
        "TE502", "failure" if fatal else "warning",
        f"cuDNN {F.fmt_version(loaded)} is loaded, but {F.fmt_version(built)} is the one expected ({source})",
        ("torch raises \"cuDNN version incompatibility\" for a different major or an older minor. " if fatal else
         "A newer minor of the same major is accepted by torch, but it is not the copy it ships. ")
        + (f"It was loaded from {lib_path}. " if lib_path else "")
        + "Another cuDNN is being found first: check LD_LIBRARY_PATH and /etc/ld.so.conf.d for a system cuDNN.",
        None, {"expected": F.fmt_version(built), "loaded": F.fmt_version(loaded), "compared": source,
               "loaded_from_path": lib_path}, hides=["TE500"]))
    return out


def handle_failed(s) -> list[dict]:
    if not F.is_cuda_torch(s) or F.driver_present(s) is not True or F.cuda_available(s) is not True:
        return []  # handles are judged where CUDA works: without it every handle fails (the driver area says why)
    out = []
    for d in F.ext_devices(s):
        for lib in ("cudnn", "cublas"):
            handle, status = (d.cudnn_handle, d.cudnn_status) if lib == "cudnn" else (d.cublas_handle, d.cublas_status)
            if handle is not False:
                continue
            status = F.text(status) or "no status recorded"
            out.append(finding("TE503", "failure",
                               f"creating a {lib} handle on GPU {d.index} ({d.name or '?'}) failed: {status}",
                               f"{lib} loaded but could not initialise on the GPU: operations that use it (convolutions, "
                               "matmuls) fail. Usual causes: out of GPU memory, a mismatched library copy, or a GPU this "
                               "library version does not support.", None, {"library": lib, "device": d.to_dict()},
                               hides=["TE500"]))
    return out


def libraries_ok(s) -> list[dict]:
    if not F.is_cuda_torch(s) or F.is_macos(s):
        return []
    # (a library shadowing torch's, a cuDNN mismatch or a failed handle, TE501-TE503, hides it)
    var = F.library_path_var(s)
    cudnn = F.torch_cudnn(s)
    msg = f"{var} holds no other copies of torch's CUDA/cuDNN libraries"
    if cudnn:
        msg += f"; torch reports cuDNN {F.fmt_version(cudnn)}"
    return [finding("TE500", "ok", msg, "", None, {"search_path_var": var})]


RULES = [path_breaks_import, ld_library_path, loaded_elsewhere, cudnn_mismatch, handle_failed, libraries_ok]


def advisories(s) -> list[dict]:
    """Installed library versions with a published silent-corruption or crash bug (knowledge/data/
    advisories.json, each with its source and fixed version): a failure where it happens on this
    machine's GPUs, a warning where the GPUs are unknown."""
    installed = dict(F.installed_versions(s))
    for name, ver in F.nvidia_packages(s).items():
        installed.setdefault(versions_key(name), ver)
    caps = F.capabilities(s)
    tc = F.torch_cuda(s) if F.is_cuda_torch(s) else None
    try:
        hits = kb.advisories_for(installed, tc, caps)
    except kb.KnowledgeError:
        return []
    out = []
    for h in hits:
        if h.on_gpu is False:
            continue
        pkg = h.package
        fixed = h.fixed
        sev = (h.severity or "failure") if h.on_gpu is True else "warning"
        where = "torch's CUDA" if pkg == "torch-cuda" else pkg
        msg = (f"{where} {h.installed} has a published {h.kind.replace('-', ' ')} bug"
               + (" on this machine's GPUs" if h.on_gpu else "") + f": {h.summary}")
        expl = (f"Affected: {pkg} {h.affected}"
                + (f" on compute capability {', '.join(str(c) + '.x' for c in h.capabilities)}" if h.capabilities else "")
                + (f"; fixed in {fixed}" if fixed else "; the source names no fixed version on this line")
                + f". Source: {h.source_text}")
        if pkg == "torch-cuda":
            fix = None
            build = A.recommend_build(s, capability=F.build_capability(s))
            if build:
                fix = A.install_command(s, build)
        elif fixed and not _pinned_below(s, pkg, fixed):
            fix = A.pip_command(s, "install", f"{pkg}>={fixed}")
        elif fixed:
            pins = _pinned_below(s, pkg, fixed)
            expl += (f" {pins[0]} pins {pkg} to a version without the fix, so upgrading it alone would break that "
                     "requirement: a torch release whose pins include the fixed version is the fix (torch_envcheck "
                     "advise names the newest that fits this machine).")
            fix = None
        else:
            fix = ("# no fixed release on this line is named by the source: move to a torch build of the next CUDA "
                   "line, whose libraries carry the fix")
        out.append(finding("TE506", sev, msg, expl, fix,
                           {"advisory": h.id, "package": pkg, "installed": h.installed, "affected": h.affected,
                            "fixed": fixed, "capabilities": list(h.capabilities) or None, "source": h.source_text}))
    return out


def _pinned_below(s, pkg: str, fixed: str) -> list[str]:
    """The installed distributions whose Requires-Dist rules out `pkg` >= fixed (torch pins its CUDA
    wheels exactly): 'torch==2.14.1 (nvidia-cublas==13.0.0.19)'."""
    out = []
    for r in F.requires_dist(s):
        for line in r.requires:
            m = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;()]*)", str(line))
            if not m or versions_key(m.group(1)) != pkg or not m.group(2).strip():
                continue
            if versions.satisfies(fixed, m.group(2).strip()) is False:
                out.append(f"{r.name}=={r.version} ({pkg}{m.group(2).strip()})")
    return out


def versions_key(name: str) -> str:
    return name.lower().replace("_", "-")


RULES += [advisories]
