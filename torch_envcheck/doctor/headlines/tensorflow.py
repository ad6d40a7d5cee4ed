"""The TensorFlow area's headline (next to its [✓] mark): what is installed, its build, what it
sees, and how many files two distributions own.  Reads the facts through the rules' accessors."""

from __future__ import annotations

from torch_envcheck.facts import tensorflow as T


def _owners(s) -> str | None:
    summary = T.owners_summary(s)
    if not summary.present:
        return None
    differing = sum(p.differing for p in T.owner_pairs(s))
    if differing:
        return f"{differing} file{'s' if differing != 1 else ''} owned by two distributions"
    n = summary.distributions
    return f"no file owned by two of {n} distributions" if n is not None else None


def headline(s) -> str:
    parts = []
    if not T.tf_recorded(s):
        parts.append("not recorded in this snapshot")  # a snapshot from before the TensorFlow probe
    elif not T.tf_installed(s):
        parts.append("TensorFlow not installed")
    else:
        text = T.tf_label(s)
        if T.importable(s) is False:
            text += " (cannot be imported)"
        elif T.child_error(s):
            text += " (not probed: the child process failed)"
        cuda = T.is_cuda_build(s)
        if cuda:
            text += f", CUDA {T.tf_cuda(s) or '?'}" + (f", cuDNN {T.tf_cudnn(s)}" if T.tf_cudnn(s) else "") + " build"
        elif cuda is False:
            text += ", CPU build"
        parts.append(text)
        if T.child_ran(s) and T.importable(s):
            n = len(T.tf_gpus(s))
            parts.append(f"{n} GPU{'s' if n != 1 else ''} visible")
        elif T.child_skipped(s):
            parts.append(f"not imported ({T.child_skipped(s)})")
    owners = _owners(s)
    if owners:
        parts.append(owners)
    return ", ".join(parts)
