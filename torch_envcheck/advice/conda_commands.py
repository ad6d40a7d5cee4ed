"""The conda command lines the doctor's conda rules print, in conda's own words and with the
program that manages the env (conda, mamba or micromamba, from conda-meta/history): install,
remove, a new env from an environment.yml, and pip's uninstall inside the env.  A rule says what
(the packages, their pins, the channels); the words, their order and their quoting for the
snapshot's shell (advice.conda.command_line) are decided here, so no rule builds a command itself
(tests/unit/contract/test_commands_from_advice.py)."""

from __future__ import annotations

from torch_envcheck._util.escape import per_shell
from torch_envcheck.advice.conda import command_line, forge_words
from torch_envcheck.facts import conda as C
from torch_envcheck.facts import core as F

NEW_ENV_NOTE = "# the guides' advice: a new env, conda packages first and pip last"


def _channels(channels) -> list[str]:
    return [w for ch in channels if ch for w in ("-c", ch)]


def install(s, *specs: str, channels=(), force_reinstall: bool = False, channels_first: bool = False) -> str:
    """`<manager> install [--force-reinstall] SPEC... -c CHANNEL...` (channels_first: the channels before
    the specs, as conda-forge's own instructions write them)."""
    words = ["install"] + (["--force-reinstall"] if force_reinstall else [])
    chans = _channels(channels)
    words += chans + list(specs) if channels_first else list(specs) + chans
    return command_line(s, C.manager(s), *words)


def install_forge(s, pick: dict, companions=()) -> str:
    """`<manager> install -c conda-forge` of conda-forge's CUDA pytorch build `pick` (advice.conda.forge_pick),
    its cuda-version and the companions conda-forge builds for that platform."""
    return command_line(s, C.manager(s), "install", *forge_words(pick, companions))


def remove(s, *packages: str, force: bool = False) -> str:
    """`<manager> remove [--force] PACKAGE...` (--force: without removing what depends on them)."""
    return command_line(s, C.manager(s), "remove", *(["--force"] if force else []), *packages)


def pip_uninstall(s, *names: str) -> str:
    """pip's uninstall of distributions in the env, with the env's own interpreter."""
    return command_line(s, F.python_exe(s), "-m", "pip", "uninstall", "-y", *names)


def new_env_lines(s) -> list[str]:
    """The guides' remedy: write this env's environment.yml (`torch-envcheck pin --conda`) and create
    a new env from it, as [the note, the pin line, the create line]."""
    pin = command_line(s, "torch-envcheck", "pin", "--conda")
    # Windows PowerShell 5's `>` writes UTF-16, which conda cannot read
    pin = per_shell(lambda sh: pin + (" | Out-File -Encoding utf8 environment.yml" if sh == "powershell"
                                      else " > environment.yml"), F.shell(s))
    create = command_line(s, C.manager(s), "env", "create", "-n", f"{C.env_name(s) or 'env'}-new", "-f",
                          "environment.yml")
    return [NEW_ENV_NOTE, pin, create]
