"""Every torch build the tables know, judged for one machine: which ones it could run, and for each
one it could not, why (the driver, the GPU's compute capability, the Python, the platform).  The
answer `advise --json` and torch_envcheck.advise() give an installer, beside the build chosen.

    candidates(s) -> [dict]   one per (release, CUDA build), newest first:
        {'torch', 'tag', 'cuda', 'index_url', 'via', 'driver_support', 'hard': [(check, detail)]}

The checks mirror knowledge.latest_release_for() (the search recommend_build() runs) one by one, so
that a rejected build always names the check that rejected it; the test of the API checks that the
build chosen is one of those with no hard rejection.
"""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck.facts import core as F

# a rejection's check: what an installer can change to make the build fit
CHECKS = ("platform", "python", "driver", "capability", "requirements", "preference")


def _python_text(rel: str) -> str:
    rng = kb.python_range(rel)
    return f"Python {rng[0]} to {rng[1]}" if rng else "other Pythons"


def judge(s, rel: dict, build: dict, capability) -> dict:
    """One build of one release, judged against the machine of snapshot `s`."""
    os_name, machine = F.system(s), F.machine(s)
    cuda = kb.cuda_from_tag(build["tag"])
    out = {"torch": rel["torch"], "tag": build["tag"], "cuda": cuda, "index_url": kb.index_url(build["tag"]),
           "via": None, "driver_support": None, "hard": []}
    hard = out["hard"]
    where = " ".join(x for x in (os_name, machine) if x) or "this platform"
    if F.is_macos(s):
        hard.append(("platform", "download.pytorch.org publishes no CUDA wheels for macOS"))
        return out
    if not kb.build_on_platform(build, os_name, machine):
        hard.append(("platform", f"torch {rel['torch']} {build['tag']} is not published for {where}"))
        return out
    arch = kb.build_arch_list(build, os_name, machine)
    if arch is None:
        hard.append(("platform", f"the tables know no arch list of torch {rel['torch']} {build['tag']} for {where}"))
    py = F.python_version(s)
    if py and kb.python_supported(rel["torch"], py) is False:
        hard.append(("python", f"torch {rel['torch']} has wheels for {_python_text(rel['torch'])}, not Python "
                               f"{F.python_mm(s) or py}"))
    if F.driver_present(s) is not True:
        hard.append(("driver", "no NVIDIA driver is loaded: a CUDA build cannot run"))
    else:
        support = kb.driver_runs(cuda, F.driver_version(s), F.driver_cuda(s), F.driver_os(s) or os_name)
        out["driver_support"] = support
        if support == kb.NO:
            need = kb.min_driver_for_cuda(cuda, F.driver_os(s) or os_name) or {}
            want = need.get("compat_floor") or need.get("toolkit_minimum")
            hard.append(("driver", f"CUDA {cuda} needs an NVIDIA driver"
                                   + (f" >= {want}" if want else " for it")
                                   + f"; this one is {F.driver_version(s) or '?'}"
                                   + (f" (CUDA up to {F.driver_cuda(s)})" if F.driver_cuda(s) else "")))
    if capability is not None and arch is not None:
        m = kb.capability_match(capability, arch, cuda)
        if not m["ok"]:
            hard.append(("capability", f"built for compute capability {_arch_text(arch)}: no kernel (SASS or PTX) "
                                       f"runs on this GPU's {capability}"))
        elif kb.cudnn_supports(build.get("cudnn"), capability) is False:
            hard.append(("capability", f"its cuDNN {build.get('cudnn')} does not support compute capability "
                                       f"{capability} (every convolution would fail)"))
        else:
            out["via"] = m["via"]
            if m["via"] == "ptx" and out["driver_support"] == kb.COMPAT:
                hard.append(("driver", f"it runs on this GPU only through PTX JIT of CUDA {cuda} code, which needs "
                                       "that CUDA's own driver; this one runs it only through minor-version "
                                       "compatibility"))
    return out


def _arch_text(arch) -> str:
    text = arch if isinstance(arch, str) else ";".join(map(str, arch))
    return text.replace(";", " ")


def candidates(s, capability=None) -> list[dict]:
    """Every CUDA build of every known release, judged; newest release first, newest CUDA first."""
    if capability is None:
        capability = F.build_capability(s)
    out = []
    for rel in reversed(kb.releases()):
        for b in sorted(rel["builds"], key=lambda b: kb.version_tuple(kb.cuda_from_tag(b["tag"])), reverse=True):
            if not str(b.get("tag", "")).startswith("cu"):
                continue
            out.append(judge(s, rel, b, capability))
    return out


def preference(cand: dict, chosen: dict, installed_release: str | None) -> str:
    """Why a build that fits was not chosen, relative to the chosen one ({'torch', 'tag', 'via'})."""
    ck = kb.version_tuple(chosen.get("torch"))
    k = kb.version_tuple(cand["torch"])
    if cand["via"] == "ptx" and chosen.get("via") != "ptx":
        return ("it has no SASS for this GPU, only PTX (the driver compiles every kernel on first use); "
                f"torch {chosen['torch']} {chosen['tag']} has SASS for it")
    if ck and k and k > ck:
        if installed_release and kb.release_key(installed_release) == chosen.get("torch"):
            return (f"a newer release than the installed torch {installed_release}, which has a build that fits: "
                    "advice keeps a working release and changes only its build")
        return f"a newer release, not chosen over torch {chosen['torch']} {chosen['tag']}"
    if ck and k and k < ck:
        return f"an older release than torch {chosen['torch']} ({chosen['tag']}), which fits"
    if cand["driver_support"] == kb.COMPAT and chosen.get("driver_support") != kb.COMPAT:
        return (f"this driver runs CUDA {cand['cuda']} only through minor-version compatibility; "
                f"CUDA {chosen.get('cuda')} ({chosen['tag']}) it runs natively")
    return f"CUDA {cand['cuda']} is older than CUDA {chosen.get('cuda')} ({chosen['tag']}), which fits as well"
