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


def probe() -> dict:
    out: dict = {name: dists.info(name) for name in COMPANIONS}
    if out["triton"] is None:  # nightly builds depend on "pytorch-triton"
        out["triton"] = dists.info("pytorch-triton")
    out["nvidia"] = nvidia_wheels()
    return out
