"""The pip command that installs a torch build (and its paired torchvision/torchaudio) from one
PyTorch index, as words and as one command line quoted for a shell.  The knowledge tables say
which versions pair and which index serves a tag; the command is built here, in advice, so the rules
and the commands take their install lines from one place."""

from __future__ import annotations

import re

from torch_envcheck import knowledge as kb
from torch_envcheck._util.escape import EITHER, requirement_version, shell_join, shell_quote
from torch_envcheck._util.versions import release_key


def pip_install_words(python: str | None, torch_spec: str | None, tag: str,
                      companions=(), no_deps: bool = False) -> list[str]:
    """The words of a pip command installing torch (and the companions named) from one index.
    torch_spec '2.14.1' pins exactly (it matches 2.14.1+cu126 on that index), '2.14' pins the
    release ('2.14.*'), None takes the newest.  A torch_spec that is not a PEP 440 version (from a
    stranger's snapshot) is never pasted into the command: its release key is used instead."""
    if torch_spec is not None and requirement_version(torch_spec) is None:
        torch_spec = release_key(torch_spec)
    rel = release_key(torch_spec) if torch_spec else None
    pins = []
    if torch_spec is not None:
        # Only a plain X.Y.Z exists on the index; a source build's '2.14.0a0+git...' pins its release.
        exact = re.fullmatch(r"\d+\.\d+\.\d+", str(torch_spec).split("+", 1)[0]) is not None
        pins.append(f"torch=={torch_spec}" if exact else f"torch=={rel}.*")
    else:
        pins.append("torch")
    for c in companions:
        if c == "torchvision" and rel and kb.torchvision_for(rel):
            pins.append(f"torchvision=={kb.torchvision_for(rel)}.*")
        elif c == "torchaudio" and rel and kb.torchaudio_for(rel):
            # the paired torchaudio; a missing pin fails loudly instead of mixing builds.
            pins.append(f"torchaudio=={kb.torchaudio_for(rel)}.*")
        else:
            pins.append(c)
    flags = ["--force-reinstall", "--no-deps"] if no_deps else ["--force-reinstall"]
    return [python or "python", "-m", "pip", "install", *flags, *pins, "--index-url", kb.index_url(tag)]


def pip_install_command(python: str | None, torch_spec: str | None, tag: str,
                        companions=(), no_deps: bool = False, shell: str = "posix") -> str:
    """pip_install_words() as one command line, every word quoted for `shell` (escape.shell_join:
    "posix", "powershell" or "cmd"), so an interpreter path or version from a snapshot cannot
    inject anything."""
    return shell_join(pip_install_words(python, torch_spec, tag, companions, no_deps), shell)


# ---------------------------------------------------------------- lines run in another Python
# (inside WSL 2, in a new venv, through Windows' py launcher): not this snapshot's interpreter, so
# written for that place's shell rather than the snapshot's.

def pip_install_line(python: str, requirement: str) -> str:
    """`PYTHON -m pip install REQUIREMENT` for a POSIX shell (e.g. python3 inside WSL 2)."""
    return f"{python} -m pip install " + shell_quote(requirement, "posix")


def new_venv_install_line(python_mm: str, venv: str, requirement: str) -> str:
    """A new venv made with Python X.Y and REQUIREMENT installed into it, for a POSIX shell."""
    return f"python{python_mm} -m venv {venv} && {venv}/bin/python -m pip install " + shell_quote(requirement, "posix")


def py_launcher_install_line(python_mm: str, requirement: str) -> str:
    """Windows' py launcher: `py -X.Y -m pip install REQUIREMENT`, every word quoted for both of
    Windows' shells (the requirement holds a distribution name read from the environment)."""
    return shell_join(["py", f"-{python_mm}", "-m", "pip", "install", requirement], EITHER)
