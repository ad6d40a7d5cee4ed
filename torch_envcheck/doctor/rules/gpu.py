"""GPU rules: each GPU's compute capability against the torch build's arch list (SASS runs on the same
major with an equal or higher minor; PTX compute_XY is JIT-compiled for any capability >= X.Y, which
needs the driver of the toolkit that wrote it), and CUDA_VISIBLE_DEVICES."""

from __future__ import annotations

import re

from .. import knowledge as kb
from ..finding import finding
from . import _facts as F


def _applies(s) -> bool:
    return F.is_cuda_torch(s) and not F.is_macos(s) and F.wsl(s) != 1


def _coverage(s):
    """[(gpu, capability_match)] for GPUs with a known capability."""
    arch = F.arch_list(s)
    out = []
    for g in F.gpus(s):
        cap = F.text(g.get("capability"))
        if cap and arch:
            out.append((g, kb.capability_match(cap, arch)))
    return out, arch


def arch_unsupported(s) -> list[dict]:
    if not _applies(s):
        return []
    cov, arch = _coverage(s)
    out = []
    for g, m in cov:
        if m["ok"] is not False:
            continue
        cap = g["capability"]
        lo, hi = m["min"], m["max"]
        if lo and kb.major_minor(cap) < kb.major_minor(lo):
            how = "too old"
        elif hi and kb.major_minor(cap) > kb.major_minor(hi):
            how = "too new"
        else:
            how = "not covered"
        build = F.recommend_build(s, capability=cap)
        fits_any = []
        try:
            fits_any = kb.releases_supporting(cap, F.system(s), F.text(F.dig(s, "platform", "machine")))
        except kb.KnowledgeError:
            pass
        msg = (f"{F.gpu_label(g)} is {how} for {F.torch_label(s)}, whose kernels cover {lo}-{hi} "
               f"({' '.join(arch)})")
        expl = (f"CUDA ops fail with \"no kernel image is available for execution on the device\" (torch warns "
                f"\"... with CUDA capability sm_{cap.replace('.', '')} is not compatible with the current PyTorch installation\"). "
                "SASS sm_XY runs only on the same major with minor >= Y; PTX compute_XY runs on capability >= X.Y.")
        if build:
            how_run = (f"its {build['entry']} kernels run on {cap}" if build.get("via") == "sass"
                       else f"PTX JIT of {build['entry']}")
            expl += (f" torch {build['torch']} {build['tag']} supports it ({how_run}) and fits this driver"
                     + (" (table row not independently verified)" if build.get("unverified") else "") + ".")
        elif fits_any:
            f0 = fits_any[0]
            expl += (f" The newest build that supports it is torch {f0['torch']} {f0['tag']}, but it does not fit this "
                     "driver or Python: upgrade the driver first.")
        else:
            expl += " No PyTorch release in the doctor's tables ships kernels for this GPU; build PyTorch from source."
        out.append(finding("TE401", "failure", msg, expl, F.install_command(s, build) if build else None,
                           {"gpu": g, "capability": cap, "arch_list": arch, "problem": how,
                            "recommended_build": build,
                            "other_builds": [f"{b['torch']} {b['tag']}" for b in fits_any[:6]]}))
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
            verdict = kb.driver_supports(F.driver_version(s), F.torch_cuda(s), F.driver_os(s))
            need = kb.min_driver_for_cuda(F.torch_cuda(s), F.driver_os(s)) or {}
        except kb.KnowledgeError:
            continue
        if verdict != "compat":
            continue
        out.append(finding(
            "TE404", "failure",
            f"{F.gpu_label(g)} runs {F.torch_label(s)} only through PTX JIT ({m['entry']}), which needs driver >= "
            f"{need.get('toolkit_minimum')}; this driver is {F.driver_version(s)}",
            "The driver JIT-compiles PTX only if it is at least as new as the toolkit that wrote it "
            "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION otherwise); minor-version compatibility does not cover PTX. "
            "Upgrade the driver, or install a build with SASS for this GPU.", None,
            {"gpu": g, "entry": m["entry"], "driver_version": F.driver_version(s), "needs": need}))
    return out


def _cvd_fix(s, value: str | None) -> str:
    from ..escape import env_assign  # noqa: PLC0415  (the value comes from the snapshot: quoted)
    return env_assign("CUDA_VISIBLE_DEVICES", value or None, F.shell(s))


def visible_devices(s) -> list[dict]:
    raw = F.env(s, "CUDA_VISIBLE_DEVICES")
    if raw is None or F.is_macos(s) or not (F.is_cuda_torch(s) or F.driver_gpus(s)):
        return []
    n = len(F.driver_gpus(s)) if F.driver_present(s) else None
    if not raw.strip():
        sev = "failure" if n else "warning"
        return [finding("TE402", sev,
                        "CUDA_VISIBLE_DEVICES is set but empty: CUDA sees no GPU"
                        + (f" (this machine has {n})" if n else ""),
                        "An empty CUDA_VISIBLE_DEVICES hides every GPU (torch.cuda.device_count() == 0). It must be "
                        "set before CUDA initialises; changing it later in the process has no effect.",
                        _cvd_fix(s, None), {"CUDA_VISIBLE_DEVICES": raw, "driver_gpu_count": n})]
    if not n:
        return []  # without the driver's GPU list an index cannot be judged
    uuids = [F.text(g.get("uuid")) for g in F.driver_gpus(s)]
    valid, bad = [], None
    for item in (x.strip() for x in raw.split(",")):
        if re.fullmatch(r"\d+", item):
            ok = int(item) < n
        elif item.upper().startswith(("GPU-", "MIG-")):
            ok = None if not any(uuids) or item.upper().startswith("MIG-") else \
                any(u and u.lower().startswith(item.lower()) for u in uuids)
        else:
            ok = False
        if ok is False:
            bad = item
            break  # CUDA stops parsing at the first invalid entry
        valid.append(item)
    if bad is None:
        return []
    sev = "failure" if not valid else "warning"
    keep = ",".join(valid) if valid else ",".join(str(i) for i in range(n))
    return [finding("TE403", sev,
                    f"CUDA_VISIBLE_DEVICES={raw} names '{bad}', but this machine has {n} GPU{'s' if n != 1 else ''} "
                    f"(indices 0-{n - 1})" + ("" if valid else ": CUDA sees no GPU"),
                    "CUDA reads the list up to the first invalid entry and ignores the rest; with none valid it "
                    "reports \"no CUDA-capable device is detected\".", _cvd_fix(s, keep),
                    {"CUDA_VISIBLE_DEVICES": raw, "invalid": bad, "valid_prefix": valid, "driver_gpu_count": n})]


def gpu_ok(s) -> list[dict]:
    if not _applies(s):
        return []
    cov, arch = _coverage(s)
    if not cov or any(m["ok"] is False for _, m in cov) or ptx_driver(s):
        return []
    parts = [f"{F.gpu_label(g)} via {m['entry']}" + (" (PTX JIT: the first use compiles kernels)" if m["via"] == "ptx" else "")
             for g, m in cov]
    return [finding("TE400", "ok", f"{F.torch_label(s)} has kernels for " + "; ".join(parts), "", None,
                    {"arch_list": arch, "gpus": [g for g, _ in cov]})]


RULES = [arch_unsupported, ptx_driver, visible_devices, gpu_ok]
