"""`torch-envcheck pin --conda`: an environment.yml that reproduces a conda env.

- `channels:` the channels the env's CUDA-relevant packages came from (pytorch and nvidia first,
  as the pytorch channel's install line orders them), then the others;
- `dependencies:` every CUDA-relevant package pinned with its channel and build string
  (`pytorch::pytorch=2.3.0=py3.11_cuda12.1_cudnn8.9.2_0`), then the other packages the user asked
  conda for (conda-meta/history, as `conda env export --from-history` reads it) pinned to the
  installed version;
- a `pip:` section with the distributions pip installed, except the ones that broke the env (a pip
  torch over conda's pytorch, nvidia-* wheels beside conda's CUDA, wheels that overwrote conda's
  runtime libraries): those are written as comments saying why.

Every value comes from a snapshot, which may be a stranger's: names, versions, build strings and
channels are checked against conda's and PEP 440's grammar (anything else is left out, with a
comment) and written as double-quoted YAML scalars.
"""

from __future__ import annotations

import re

from torch_envcheck._util.escape import requirement_version, terminal
from torch_envcheck.facts import conda as C
from torch_envcheck.knowledge.distributions import CONDA_RELEVANT as RELEVANT

_NAME = re.compile(r"^[a-z0-9_][a-z0-9_.\-]{0,127}$")
_VERSION = re.compile(r"^[A-Za-z0-9_.+!*]{1,64}$")
_BUILD = re.compile(r"^[A-Za-z0-9_.+]{1,128}$")
_CHANNEL = re.compile(r"^(?:[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*|https?://[A-Za-z0-9_.\-/:~%+]+)$")
_PIP_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$")
_ENV_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
# the channel order of `conda install ... -c pytorch -c nvidia`
_FIRST = ("pytorch", "nvidia")


def yaml_str(value: str) -> str:
    """A double-quoted YAML scalar: backslash, quote and every control character escaped."""
    out = []
    for ch in str(value):
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF or code in (0x2028, 0x2029, 0xFEFF):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _comment(text: str) -> str:
    return "# " + terminal(text)  # one line: a newline in a value cannot end the comment


def _yaml_channel(ch: str) -> str:
    return "defaults" if ch in ("pkgs/main", "pkgs/r", "pkgs/msys2") else ch


class NotACondaEnv(ValueError):
    pass


def build(s) -> str:
    """The environment.yml text; NotACondaEnv when the snapshot has no conda facts."""
    if not C.has_conda_facts(s):
        raise NotACondaEnv("this is not a conda env (no conda-meta facts in the snapshot): nothing to pin; "
                           "`torch-envcheck pin` writes requirements.txt lines instead")
    pkgs = C.packages(s)
    notes: list[str] = []
    channels: list[str] = []
    deps: list[str] = []
    seen = set()

    def add_channel(ch):
        if ch and _CHANNEL.match(ch):
            y = _yaml_channel(ch)
            if y not in channels:
                channels.append(y)

    for name in [n for n in _FIRST if any(C.channel(r) == n for r in pkgs.values())]:
        add_channel(name)
    for name in RELEVANT:
        rec = pkgs.get(name)
        if rec is None:
            continue
        ver, bld, ch = C.version(rec), C.build(rec), C.channel(rec)
        if not (_NAME.match(name) and ver and _VERSION.match(ver)):
            notes.append(_comment(f"{name}: left out, its version {ver!r} is not a conda version"))
            continue
        spec = f"{name}={ver}"
        if bld and _BUILD.match(bld):
            spec += f"={bld}"
        if ch and _CHANNEL.match(ch) and not ch.startswith("http"):
            spec = f"{ch}::{spec}"
            add_channel(ch)
        deps.append(spec)
        seen.add(name)
    for name, item in sorted(C.requested(s).items()):
        if name in seen or name == "pip":
            continue
        ver = item.version
        if not _NAME.match(name):
            notes.append(_comment(f"requested package {name!r} left out: not a conda package name"))
            continue
        if ver and _VERSION.match(ver):
            deps.append(f"{name}={ver}")
        elif ver is None:
            notes.append(_comment(f"{name}: asked for in the history but not installed; left out"))
            continue
        else:
            notes.append(_comment(f"{name}: left out, its version {ver!r} is not a conda version"))
            continue
        seen.add(name)
    if "defaults" not in channels and not channels:
        channels.append("defaults")

    pip_lines, pip_notes = [], []
    conda_cuda = [n for n in ("cudatoolkit", "cudnn", "cuda-runtime", "cuda-cudart", "pytorch-cuda", "cuda-libraries")
                  if n in pkgs]
    for d in C.pip_dists(s):
        name, ver = d.name, d.version
        why = None
        if name in ("torch", "torchvision", "torchaudio", "triton") and "pytorch" in pkgs:
            why = f"conda's pytorch {C.version(pkgs['pytorch'])} is the one pinned above"
        elif name.startswith("nvidia-") and conda_cuda:
            why = f"conda's {conda_cuda[0]} provides CUDA in this env"
        elif C.runtime_files(d):
            why = f"it overwrote conda's {C.runtime_files(d)[0]}"
        if not _PIP_NAME.match(name) or requirement_version(ver) is None:
            pip_notes.append(_comment(f"{name} {ver}: left out, not a valid requirement"))
            continue
        if why:
            pip_notes.append(_comment(f"{name}=={ver} left out: {why}"))
            continue
        pip_lines.append(f"{name}=={ver}")

    env = C.env_name(s)
    env = env if env and _ENV_NAME.match(env) else "env"
    out = [_comment(f"conda env '{env}' from `torch-envcheck pin --conda` ({C.records(s) or 0} packages; "
                    "CUDA-relevant ones pinned to their build)"),
           _comment("recreate it: conda env create -f environment.yml (or mamba / micromamba create -f)"),
           f"name: {yaml_str(env)}", "channels:"]
    out += [f"  - {yaml_str(c)}" for c in channels]
    out.append("dependencies:")
    out += [f"  {n}" for n in notes]
    out += [f"  - {yaml_str(d)}" for d in deps]
    if pip_lines or pip_notes:
        if "pip" not in seen:
            out.append(f"  - {yaml_str('pip')}")
        out.append("  - pip:")
        out += [f"    {n}" for n in pip_notes]
        out += [f"    - {yaml_str(p)}" for p in pip_lines]
    return "\n".join(out) + "\n"
