"""CUDA and cuDNN libraries sitting in the directories of LD_LIBRARY_PATH (PATH on Windows).  The
dynamic loader prefers them over the copies inside torch's nvidia-* wheels, so another version
there breaks torch at import or first use (pytorch#111469, torch/backends/cudnn/__init__.py)."""

from __future__ import annotations

import os

# What a library's file name says (its kind and version) is knowledge; the probe only lists the files.
from torch_envcheck.knowledge.libraries import KINDS, parse_library  # noqa: F401 (parse_library: re-exported)


def probe(env: dict | None = None) -> dict:
    env = os.environ if env is None else env
    var = "PATH" if os.name == "nt" else "LD_LIBRARY_PATH"
    entries = []
    seen = set()
    for d in (env.get(var) or "").split(os.pathsep):
        if not d or d in seen:
            continue
        seen.add(d)
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        libs = [lib for lib in map(parse_library, names) if lib is not None]
        if libs:
            entries.append({"dir": d, "libs": libs})
    return {"search_path_var": var, "entries": entries}
