"""The requirements of the build advised, as a lockfile or a project's dependencies pin them
('torch==2.14.1', 'torchvision==0.29.*'): shared by the JSON advice (api.py) and uv's and pixi's
forms, so all of them name the same versions as `advise`'s pip command."""

from __future__ import annotations

from torch_envcheck import knowledge as kb
from torch_envcheck._util import escape, versions
from torch_envcheck.advice.recommend import companions_installed
from torch_envcheck.facts import core as F


def exact_version(s, rec: dict) -> str | None:
    """The exact torch version the commands install ('2.14.1'): the installed patch when the advice
    keeps its release (as recommend.install_command does), else None (the release's newest)."""
    tv = F.torch_version(s)
    rel = rec.get("torch")
    if tv and rel and kb.release_key(tv) == rel:
        return escape.requirement_version(versions.public(tv))
    return None


def companions(s) -> list[str]:
    """The companions `advise` installs with a CUDA torch: those installed now (none: torch alone);
    torchvision when the report does not say which are installed."""
    return companions_installed(s) if F.section_known(s, "packages") else ["torchvision"]


def requirements(s, rec: dict) -> list[str]:
    """PEP 508 requirements of recommend()'s build: torch pinned ('==2.14.1', or '==2.14.*' for the
    release's newest patch) and the paired companions; ['torch'] for a native Python's fresh install,
    the wheel URL for a JetPack wheel, [] when nothing fits."""
    kind = rec.get("kind")
    if kind is None:
        return []
    if kind == "native-python":
        return ["torch"]
    if kind == "jetpack":
        return [f"torch @ {rec['wheel']}"]
    if kind == "keep":  # the installed ROCm/XPU/MPS build: its exact versions
        out = [f"torch=={rec['torch']}"] if escape.requirement_version(rec.get("torch") or "") else ["torch"]
        for name in companions_installed(s):
            v = escape.requirement_version(versions.public(F.package_version(s, name)) or "")
            out.append(f"{name}=={v}" if v else name)
        return out
    if kind in ("cpu", "pypi") and not rec.get("torch"):
        return ["torch", "torchvision"]  # advise's newest CPU / PyPI build
    rel = rec.get("torch")
    exact = exact_version(s, rec)
    out = [f"torch=={exact}" if exact else (f"torch=={rel}.*" if rel else "torch")]
    for name in companions(s):
        pair = (kb.torchvision_for(rel) if name == "torchvision" else kb.torchaudio_for(rel)) if rel else None
        out.append(f"{name}=={pair}.*" if pair else name)
    return out
