"""A pip command moved into a new environment (advise's two-environment answer: torch's CUDA 13
wheels and TensorFlow's CUDA 12 wheels cannot share one).

The command arrives quoted (escape.Command, from escape.shell_join).  It is never edited as text: a
quoted interpreter path can itself hold ` -m pip ` (`/home/u/a -m pip ;touch PWNED; #/bin/python`),
so cutting the text there would turn part of a path into a command.  The new line is built from the
command's words (Command.argv) by the platform model (platform.py: the venv or conda env, the
layout, the shell), quoted once.
"""

from __future__ import annotations

from torch_envcheck._util.escape import EITHER, shell_for
from torch_envcheck.advice.platform import Platform


def pip_words(cmd) -> list[str] | None:
    """The words after `<python> -m pip` of a quoted pip command, or None when `cmd` is not one
    built by shell_join (a conda command, a multi-line answer)."""
    argv = list(getattr(cmd, "argv", ()) or ())
    if len(argv) >= 3 and argv[1:3] == ["-m", "pip"]:
        return argv[3:]
    return None


def in_new_venv(cmd, name: str, system: str | None, platform: Platform | None = None) -> str:
    """`cmd` (a pip command) run by the Python of a new environment NAME; a command that is not a
    pip command built from words is returned as it is (the reasons say to use two environments)."""
    words = pip_words(cmd)
    if words is None:
        return cmd
    if platform is None:
        # the shell the words were quoted for (the snapshot's: PowerShell on Windows) decides the form
        shell = getattr(cmd, "shell", None) or shell_for(system)
        windows = shell in ("powershell", "cmd", EITHER)
        platform = Platform(os="Windows" if windows else (system or "Linux"), shell=shell,
                            manager="venv", accelerator="unknown")
    return platform.new_environment(name, words)


__all__ = ["pip_words", "in_new_venv"]
