"""GPU rules: each GPU's compute capability against the torch build's arch list (SASS runs on the same
major with an equal or higher minor; PTX compute_XY is JIT-compiled for any capability >= X.Y, which
needs the driver of the toolkit that wrote it), and CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import versions
from torch_envcheck._util.escape import env_assign
from torch_envcheck.advice import recommend as A
from torch_envcheck.doctor.finding import finding
from torch_envcheck.facts import core as F


def _applies(s) -> bool:
    return F.is_cuda_torch(s) and not F.is_macos(s) and F.wsl(s) != 1


def _coverage(s):
    """[(gpu, capability_match)] for GPUs with a known capability.  The arch list is the installed
    binary's (torch._C._cuda_getArchFlags() in the snapshot) whenever recorded, else the tables'."""
    arch = F.arch_list(s)
    out = []
    for g in F.gpus(s):
        cap = F.text(g.capability)
        if cap and arch:
            out.append((g, kb.capability_match(cap, arch, F.torch_cuda(s))))
    return out, arch


def _arch_from(s) -> str:
    return "" if F.arch_list_source(s) == "binary" else " (arch list from the doctor's tables: the snapshot has none from the binary)"


JETPACK_URL = A.JETPACK_PAGE
CUDNN9_MIN = "5.0"


def arch_unsupported(s) -> list[dict]:
    if not _applies(s):
        return []
    cov, arch = _coverage(s)
    out = []
    for g, m in cov:
        if m["ok"] is not False:
            continue
        cap = g.capability
        if _tegra_gpu(s, cap):
            continue  # a Jetson GPU is TE405's (jetson_wheel), with the fix that works on Jetson
        lo, hi = m["min"], m["max"]
        if lo and kb.major_minor(cap) < kb.major_minor(lo):
            how = "too old"
        elif hi and kb.major_minor(cap) > kb.major_minor(hi):
            how = "too new"
        else:
            how = "not covered"
        build = A.recommend_build(s, capability=cap)
        fits_any = []
        try:
            fits_any = kb.releases_supporting(cap, F.system(s), F.machine(s))
        except kb.KnowledgeError:
            pass
        msg = (f"{F.gpu_label(g)} is {how} for {F.torch_label(s)}, whose kernels cover {lo}-{hi} "
               f"({' '.join(arch)})" + _arch_from(s))
        expl = (f"CUDA ops fail with \"no kernel image is available for execution on the device\" (torch warns "
                f"\"... with CUDA capability sm_{cap.replace('.', '')} is not compatible with the current PyTorch installation\"). "
                "SASS sm_XY runs only on the same major with minor >= Y; PTX compute_XY runs on capability >= X.Y.")
        if build:
            how_run = (f"its {build['entry']} kernels run on {cap}" if build.get("via") == "sass"
                       else f"PTX JIT of {build['entry']}")
            expl += (f" torch {build['torch']} {build['tag']} supports it ({how_run}) and fits this driver"
                     + (" (table row not independently verified)" if build.get("unverified") else "") + ".")
            from torch_envcheck.knowledge import freshness  # noqa: PLC0415  (a downgrade is never silent)
            note = freshness.downgrade_note(F.torch_version(s), build, "the newest build the tables know with kernels for it")
            expl += f" Note: {note}" if note else ""
        elif fits_any:
            f0 = fits_any[0]
            expl += (f" The newest build that supports it is torch {f0['torch']} {f0['tag']}, but it does not fit this "
                     "driver or Python: upgrade the driver first.")
        else:
            expl += " No PyTorch release in the doctor's tables ships kernels for this GPU; build PyTorch from source."
        if kb.major_minor(cap) < kb.major_minor(CUDNN9_MIN):
            expl += (f" This is a Kepler-generation GPU (compute capability below {CUDNN9_MIN}): cuDNN 9, which every "
                     "torch wheel ships since torch 2.4, does not support it, so only torch <= 2.3 builds with cuDNN 8 "
                     "(cu118: sm_37) can run convolutions on it" + (f"; torch {build['torch']} {build['tag']} is one."
                                                                     if build else "."))
        out.append(finding("TE401", "failure", msg, expl, A.install_command(s, build) if build else None,
                           {"gpu": g.to_dict(), "capability": cap, "arch_list": arch, "problem": how,
                            "recommended_build": build,
                            "other_builds": [f"{b['torch']} {b['tag']}" for b in fits_any[:6]]},
                           hides=["TE400"]))
    return out


def _tegra_gpu(s, cap) -> bool:
    try:
        return kb.is_tegra(cap) or (bool(F.jetson(s)) and len(F.gpus(s)) == 1)
    except kb.KnowledgeError:
        return False


def jetson_wheel(s) -> list[dict]:
    """A Jetson (Tegra) GPU with a torch whose kernels do not cover it.  By torch's own table
    (pytorch/pytorch torch/cuda/__init__.py, DEVICE_REQUIREMENT) discrete-GPU SASS (sm_80, sm_86)
    does not run on the integrated Jetson GPUs (8.7 Orin, 7.2 Xavier, ...), so the generic aarch64
    wheel of download.pytorch.org does not serve them; NVIDIA's JetPack wheels do."""
    if not _applies(s):
        return []
    cov, arch = _coverage(s)
    out = []
    for g, m in cov:
        cap = g.capability
        if m["ok"] is not False or not _tegra_gpu(s, cap):
            continue
        board = F.jetson_model(s)
        msg = (f"{F.gpu_label(g)} is a Jetson (integrated) GPU and {F.torch_label(s)} has no kernels for it "
               f"({' '.join(arch)})" + _arch_from(s))
        expl = ("The torch wheels on download.pytorch.org are built for discrete GPUs (aarch64: server boards such "
                "as Grace Hopper). Their sm_80/sm_86 code does not run on a Jetson GPU of the same major: torch's own "
                f"capability table lists {cap} only as its own target, so CUDA ops fail with \"no kernel image is "
                "available\". NVIDIA builds torch for each JetPack release: install that wheel"
                + (f" (board: {board})" if board else "") + ".")
        out.append(finding("TE405", "failure", msg, expl, A.jetpack_fix(s),
                           {"gpu": g.to_dict(), "capability": cap, "arch_list": arch, "arch_list_source": F.arch_list_source(s),
                            "jetson": F.as_details(F.jetson(s)), "jetpack_wheels": JETPACK_URL},
                           explains=["TE401"] + _jetson_driver_codes(s), hides=["TE400"]))
    return out


def _jetson_driver_codes(s) -> list[str]:
    """On Jetson the driver comes with JetPack and cannot be upgraded alone: a too-old-driver finding
    (TE307 when no build runs on it, else TE302) is one more symptom of a wheel not built for the board."""
    if not F.driver_too_old_for_torch(s):
        return []
    return ["TE307"] if F.oldest_build_beyond_driver(s) else ["TE302"]


def cudnn_unsupported(s) -> list[dict]:
    """A GPU older than torch's cuDNN supports (cuDNN 9: compute capability >= 5.0, so no Kepler): the
    kernels may load, but every cuDNN op fails.  Only when the arch list covers the GPU; otherwise
    TE401 says so and names a build that fits both."""
    if not _applies(s):
        return []
    cudnn = F.torch_cudnn(s)
    pkg = F.nvidia_package_version(s, "nvidia-cudnn")
    ver = F.fmt_version(cudnn) if cudnn else (pkg[1] if pkg else None)
    if not ver:
        return []
    cov, _ = _coverage(s)
    out = []
    for g, m in cov:
        try:
            ok = kb.cudnn_supports(ver, g.capability)
            lo = kb.cudnn_min_capability(ver)
        except kb.KnowledgeError:
            continue
        if ok is not False or m["ok"] is False:
            continue
        build = A.recommend_build(s, capability=g.capability)
        out.append(finding(
            "TE406", "failure",
            f"{F.gpu_label(g)} is older than cuDNN {ver} supports (compute capability >= {lo}): convolutions and "
            f"other cuDNN ops fail with {F.torch_label(s)}",
            f"cuDNN {versions.major(ver)} supports compute capability {lo} and newer (NVIDIA cuDNN support matrix); "
            "every torch wheel since torch 2.4 ships cuDNN 9, so Kepler GPUs (3.x) need torch <= 2.3 with cuDNN 8"
            + (f": torch {build['torch']} {build['tag']} (command below)." if build else
               ". Or disable cuDNN (torch.backends.cudnn.enabled = False) and accept slower ops."),
            A.install_command(s, build) if build else None,
            {"gpu": g.to_dict(), "cudnn": ver, "cudnn_min_capability": lo, "recommended_build": build}, hides=["TE400"]))
    return out


def ptx_driver(s) -> list[dict]:
    """A GPU covered only by PTX needs the driver of the toolkit that produced the PTX."""
    if not _applies(s) or F.driver_present(s) is not True or not F.driver_version(s):
        return []
    cov, _ = _coverage(s)
    out = []
    for g, m in cov:
        if m["via"] != "ptx":
            continue
        try:
            verdict = F.driver_runs(s, F.torch_cuda(s))
            need = kb.min_driver_for_cuda(F.torch_cuda(s), F.driver_os(s)) or {}
        except kb.KnowledgeError:
            continue
        if verdict != "compat":
            continue
        out.append(finding(
            "TE404", "failure",
            f"{F.gpu_label(g)} runs {F.torch_label(s)} only through PTX JIT ({m['entry']}), which needs driver >= "
            f"{need.get('toolkit_minimum') or '(the CUDA ' + str(F.torch_cuda(s)) + ' toolkit driver: not in the tables)'}; "
            f"this driver is {F.driver_version(s)}",
            "The driver JIT-compiles PTX only if it is at least as new as the toolkit that wrote it "
            "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION otherwise); minor-version compatibility does not cover PTX. "
            "Upgrade the driver, or install a build with SASS for this GPU.", None,
            {"gpu": g.to_dict(), "entry": m["entry"], "driver_version": F.driver_version(s), "needs": need}, hides=["TE400"]))
    return out


def _cvd_fix(s, value: str | None) -> str:
    return env_assign("CUDA_VISIBLE_DEVICES", value or None, F.shell(s))  # the value comes from the snapshot: quoted


def visible_devices(s) -> list[dict]:
    cvd = F.cuda_visible_devices(s)
    if cvd is None:
        return []
    raw, n = cvd.raw, cvd.n
    if cvd.empty:
        sev = "failure" if n else "warning"
        return [finding("TE402", sev,
                        "CUDA_VISIBLE_DEVICES is set but empty: CUDA sees no GPU"
                        + (f" (this machine has {n})" if n else ""),
                        "An empty CUDA_VISIBLE_DEVICES hides every GPU (torch.cuda.device_count() == 0). It must be "
                        "set before CUDA initialises; changing it later in the process has no effect.",
                        _cvd_fix(s, None), {"CUDA_VISIBLE_DEVICES": raw, "driver_gpu_count": n},
                        hides=["TE303"])]  # "CUDA failed to initialise": no, it was told to see no GPU
    bad, valid = cvd.invalid, list(cvd.valid)
    if bad is None:
        return []
    sev = "failure" if not valid else "warning"
    keep = ",".join(valid) if valid else ",".join(str(i) for i in range(n))
    explains = ["TE303"] if sev == "failure" and F.cuda_available(s) is False else []
    return [finding("TE403", sev,
                    f"CUDA_VISIBLE_DEVICES={raw} names '{bad}', but this machine has {n} GPU{'s' if n != 1 else ''} "
                    f"(indices 0-{n - 1})" + ("" if valid else ": CUDA sees no GPU"),
                    "CUDA reads the list up to the first invalid entry and ignores the rest; with none valid it "
                    "reports \"no CUDA-capable device is detected\".", _cvd_fix(s, keep),
                    {"CUDA_VISIBLE_DEVICES": raw, "invalid": bad, "valid_prefix": valid, "driver_gpu_count": n},
                    explains=explains)]


def gpu_ok(s) -> list[dict]:
    if not _applies(s):
        return []
    cov, arch = _coverage(s)
    if not cov:
        return []  # a GPU without kernels (TE401/TE405), PTX on too old a driver (TE404) or cuDNN (TE406) hides it
    parts = [f"{F.gpu_label(g)} via {m['entry']}" + (" (PTX JIT: the first use compiles kernels)" if m["via"] == "ptx" else "")
             for g, m in cov]
    return [finding("TE400", "ok", f"{F.torch_label(s)} has kernels for " + "; ".join(parts), "", None,
                    {"arch_list": arch, "gpus": F.as_details([g for g, _ in cov])})]


def knowledge_gap(s) -> list[dict]:
    """A GPU whose compute capability is newer than the GPU table (torch's device requirements as
    copied): which kernels run on it was judged by the same-major rule torch applies to
    capabilities it does not list, and by what torch and the extension report."""
    from torch_envcheck.knowledge import freshness  # noqa: PLC0415
    out = []
    seen = set()
    for g in F.gpus(s):
        cap = F.text(g.capability)
        if not cap or cap in seen:
            continue
        seen.add(cap)
        try:
            gap = freshness.gpu_gap(cap)
        except kb.KnowledgeError:
            return []
        if gap is None:
            continue
        proven = F.proof(s, "gpu")
        exact = f"sm_{cap.replace('.', '')}" in F.binary_arch_list(s)
        ok = bool(proven) or (F.cuda_works(s) and exact)
        out.append(finding(
            "TE407", "ok" if ok else "warning",
            f"{F.gpu_label(g)} is newer than {gap['tables']}, which end at compute capability {gap['newest']}",
            "Whether a build's kernels run on it was judged by the rule torch applies to capabilities its own table "
            "does not list (the same major, an equal or higher minor)"
            + (f", and the live facts confirm it ({proven or 'torch initialised CUDA and its binary has ' + 'sm_' + cap.replace('.', '')})."
               if ok else "; no live fact confirms it yet (run `torch-envcheck doctor` on the machine with the extension built).")
            + " The GPU table comes with torch_envcheck: a newer torch_envcheck knows newer GPUs "
            f"(`{freshness.UPDATE_COMMAND}` learns releases, not GPUs).",
            None, {"gpu": g.to_dict(), "capability": cap, "newest_in_tables": gap["newest"], "tables_updated": gap["updated"],
                   "judged_from": "live facts" if ok else "same-major rule"}))
    return out


RULES = [arch_unsupported, jetson_wheel, cudnn_unsupported, ptx_driver, visible_devices, gpu_ok, knowledge_gap]


# ---------------------------------------------------------------- MIG

def mig_devices(s) -> list[dict]:
    """MIG (Multi-Instance GPU, NVML's facts): a CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES entry
    MIG-<uuid> that names no MIG device of this machine (a stale UUID after repartitioning: CUDA only
    says "no CUDA GPUs are available"), and a GPU in MIG mode with no MIG device (CUDA sees nothing on it)."""
    out = []
    migs = F.mig_gpus(s)
    existing = F.mig_uuids(s) or []
    for var in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        entries = F.visible_device_entries(s, var)
        missing = [e.entry for e in entries or () if e.kind == "mig-uuid" and e.exists is False]
        if not missing:
            continue
        kept = [e.entry for e in entries if e.exists is True]
        value = ",".join(kept or existing[:1])
        fix = (env_assign(var, value, F.shell(s)) if value else
               "# list the MIG devices and use one of their MIG-... UUIDs:\nnvidia-smi -L")
        if var == "NVIDIA_VISIBLE_DEVICES":
            fix = ("# NVIDIA_VISIBLE_DEVICES is read when the container starts: start it again with\n"
                   f"#   -e NVIDIA_VISIBLE_DEVICES={value or '<a MIG-... UUID from nvidia-smi -L>'}\nnvidia-smi -L")
        sev = "failure" if not kept else "warning"
        out.append(finding(
            "TE408", sev,
            f"{var}={F.env(s, var)} names MIG device {missing[0]}, which does not exist on this machine"
            + (f" (it has {len(existing)}: {', '.join(existing[:4])})" if existing else " (it has no MIG devices)"),
            "A MIG device's UUID changes whenever its GPU instance is destroyed and created again (repartitioning, "
            "a reboot of a node whose MIG layout is rebuilt): a UUID copied before then names nothing, and CUDA says "
            "only \"no CUDA GPUs are available\". `nvidia-smi -L` lists the current MIG-... UUIDs.",
            fix, {"variable": var, "value": F.env(s, var), "missing": missing, "mig_devices": existing},
            explains=["TE303"] if sev == "failure" and F.cuda_available(s) is False else []))
    for g in migs:
        if g.mig_mode and g.mig_devices == ():
            i = g.index if g.index is not None else 0
            out.append(finding(
                "TE409", "failure",
                f"GPU {i} ({g.name or '?'}) is in MIG mode but has no MIG devices: CUDA sees no device on it",
                "With MIG mode on, CUDA uses a GPU only through its MIG devices (GPU instances with compute "
                "instances); none were created (or they were destroyed), so CUDA finds nothing there. Create "
                "instances (list the GPU's profiles first), or turn MIG mode off (needs a GPU reset).",
                f"sudo nvidia-smi mig -i {i} -lgip   # the GPU instance profiles this GPU offers\n"
                f"# create one with its profile id or name and a compute instance in it, e.g.:\n"
                f"#   sudo nvidia-smi mig -i {i} -cgi <profile> -C\n"
                f"# or turn MIG mode off:  sudo nvidia-smi -i {i} -mig 0\nnvidia-smi -L",
                {"gpu": {"index": g.index, "name": F.text(g.name), "uuid": F.text(g.uuid), "mig_mode": g.mig_mode,
                         "mig_devices": []}}, explains=["TE303"] if F.cuda_available(s) is False else []))
    return out


RULES += [mig_devices]
