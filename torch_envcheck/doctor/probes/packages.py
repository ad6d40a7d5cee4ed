"""torch's companion packages (torchvision, torchaudio, triton) and the nvidia-* runtime wheels,
read from their metadata; none of them is imported."""

from __future__ import annotations

import glob
import os
import re
import sys

from torch_envcheck.doctor.probes import dists

COMPANIONS = ("torchvision", "torchaudio", "triton")
# nvidia_cudnn_cu13-9.24.0.43.dist-info -> ("nvidia_cudnn_cu13", "9.24.0.43")
_DIST_INFO_RE = re.compile(r"^(nvidia[-_.][A-Za-z0-9_.-]+?)-(\d[^-]*)\.dist-info$", re.IGNORECASE)


def nvidia_wheels(paths=None) -> dict:
    """{"nvidia-cudnn-cu13": "9.24.0.43", ...} from the .dist-info folder names on sys.path.
    Reading folder names is ~100x faster than parsing every distribution's METADATA."""
    found = {}
    for entry in (sys.path if paths is None else paths):
        if not entry or not os.path.isdir(entry):
            continue
        for path in glob.glob(os.path.join(entry, "nvidia*.dist-info")):
            m = _DIST_INFO_RE.match(os.path.basename(path))
            if m:
                name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
                found.setdefault(name, m.group(2))
    return dict(sorted(found.items()))


# Whose Requires-Dist the dependency checker (advice/deps.py) needs: the two frameworks and their
# companions; every nvidia-* wheel is added (they require each other: cusolver -> cublas, nvjitlink).
FRAMEWORK_DISTS = ("torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "tensorflow", "tensorflow-cpu",
                   "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos", "tensorflow-aarch64",
                   "tensorflow-cpu-aws", "tensorflow-rocm", "tf-nightly", "tf-nightly-cpu", "tf-keras", "keras",
                   "tensorboard")
MAX_REQUIRES_DISTS = 100
MAX_REQUIRES_LINES = 200
MAX_INSTALLED = 500
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    """PEP 503's normalised name: 'Typing_Extensions' -> 'typing-extensions'."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(nvidia: dict, paths=None) -> tuple[list, dict]:
    """([{'name', 'version', 'requires'}], {name: version | None}): the Requires-Dist lines of the
    frameworks' distributions and of the nvidia-* wheels, and the installed version of each of them
    and of every name their lines require.  Each METADATA is read once through the safe opener
    (dists.SafeDistribution); everything is bounded (MAX_* above)."""
    names = [n for n in FRAMEWORK_DISTS] + sorted(nvidia)
    out, installed = [], {}
    for name in names:
        if len(out) >= MAX_REQUIRES_DISTS:
            break
        dist = dists.distribution(name, paths)
        if dist is None:
            continue
        version = dists.version(dist)
        try:
            lines = [str(r)[:300] for r in (dist.requires or [])][:MAX_REQUIRES_LINES]
        except Exception:  # a METADATA that cannot be parsed: its requirements are unknown
            lines = []
        key = canonical(name)
        out.append({"name": key, "version": version, "requires": lines})
        installed[key] = version
    wanted = []
    for item in out:
        for line in item["requires"]:
            m = _REQ_NAME.match(line)
            if m and canonical(m.group(1)) not in installed and canonical(m.group(1)) not in wanted:
                wanted.append(canonical(m.group(1)))
    for name in wanted[:max(0, MAX_INSTALLED - len(installed))]:
        installed[name] = dists.version(dists.distribution(name, paths))
    return out, installed


def probe() -> dict:
    out: dict = {name: dists.info(name) for name in COMPANIONS}
    if out["triton"] is None:  # nightly builds depend on "pytorch-triton"
        out["triton"] = dists.info("pytorch-triton")
    out["nvidia"] = nvidia_wheels()
    out["requires"], out["installed"] = requirements(out["nvidia"])
    return out
