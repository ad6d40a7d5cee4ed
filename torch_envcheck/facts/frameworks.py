"""Which deep-learning frameworks an environment holds, and which the doctor judges it for.

The guides' own workflow keeps one framework per environment (a conda env `tf-gpu` for TensorFlow,
`pt-gpu` for torch): an env that holds TensorFlow and not torch is a TensorFlow env, not a broken
torch env.  So torch's findings that only say "torch is missing" (TE201 for a module that is not
there, TE103 for a Python current torch does not support) apply where torch is installed, where
--framework asks for it, or where the env holds no framework at all (the tool's own default).

    held(s)        the frameworks installed here: ('torch', 'tensorflow'), in that order
    judged(s)      those the doctor judges: --framework's when given, else held(s), else ('torch',)
    judges(s, fw)  fw in judged(s)
    asked(s, fw)   --framework named fw
"""

from __future__ import annotations

from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F
from torch_envcheck.facts import tensorflow as T

FRAMEWORKS = ("torch", "tensorflow")


def _torch_held(s) -> bool:
    if F.torch_installed(s) is True or F.torch_importable(s) is True:
        return True
    err = F.import_error(s) or ""
    if F.torch_importable(s) is False and err and "No module named" not in err:
        return True  # installed, broken: a ModuleNotFoundError for torch itself is the only "absent"
    return bool(C.package(s, "pytorch") or C.pip_dist(s, "torch"))


def _tensorflow_held(s) -> bool:
    return T.tf_installed(s) or C.tensorflow(s) is not None


def held(s) -> tuple:
    return tuple(fw for fw, has in (("torch", _torch_held(s)), ("tensorflow", _tensorflow_held(s))) if has)


def asked(s, fw: str) -> bool:
    return fw in F.requested_frameworks(s)


def judged(s) -> tuple:
    return F.requested_frameworks(s) or held(s) or ("torch",)


def judges(s, fw: str) -> bool:
    return fw in judged(s)


def label(s) -> str:
    """'tensorflow 2.6.0', 'torch 1.9.0+cu111', 'torch 2.4.1, tensorflow 2.17.0', or 'none'."""
    out = []
    for fw in held(s):
        if fw == "torch":
            ver = F.torch_version(s) or C.version(C.package(s, "pytorch")) or C.version(C.pip_dist(s, "torch"))
            out.append(f"torch {ver}" if ver else "torch")
        else:
            ver = T.tf_version(s) or (C.tensorflow(s) or (None, None))[1]
            out.append(f"{T.tf_distribution(s) if T.tf_installed(s) else 'tensorflow'} {ver}" if ver else "tensorflow")
    return ", ".join(out) or "none"
