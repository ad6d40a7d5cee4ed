"""The conda area's headline (the text beside its [✓] mark): which env, which manager, how many
packages, and its CUDA-relevant packages with their build strings.  Reads the facts through the
conda accessors; renderers escape it like every other headline."""

from __future__ import annotations

from torch_envcheck._util.escape import terminal
from torch_envcheck.facts import conda as C


def headline(s) -> str:
    if not C.has_conda_facts(s):
        name = C.env_name(s)
        return f"conda env {terminal(name)} (no conda facts in this snapshot)" if name else "not a conda env"
    parts = [f"{C.env_name(s) or C.prefix(s)} ({C.manager(s) if C.manager_recorded(s) else 'conda-meta'}, "
             f"{C.records(s) or 0} packages)"]
    pkgs = C.packages(s)
    for name in ("pytorch", "pytorch-cuda", "cpuonly", "cudatoolkit", "cuda-runtime", "cudnn", "tensorflow",
                 "tensorflow-gpu"):
        rec = pkgs.get(name)
        if rec:
            parts.append(f"{name} {C.version(rec)}" + (f" {C.build(rec)}" if name == "pytorch" else ""))
    pip = C.pip_dists(s)
    if pip:
        parts.append(f"{len(pip)} pip package{'s' if len(pip) != 1 else ''}")
    return terminal(", ".join(parts))
