"""What a fresh environment gets: the torch that `advise` recommends for a machine (or the exact pins
of a requirements file written by `torch-envcheck pin`), its companions at the paired versions,
TensorFlow when asked, the project's own requirements, and the self-test that proves it works.

A plan is data: scripts.py renders it for a shell, runner.py carries it out here.  Every value that
comes from a snapshot or a file is validated here (versions against PEP 440, requirement lines
against a strict pattern), and quoted where it is rendered.
"""

from __future__ import annotations

import dataclasses
import os
import re

from torch_envcheck import knowledge
from torch_envcheck._util import escape
from torch_envcheck.advice.recommend import recommend
from torch_envcheck.advice.sources import Sources
from torch_envcheck.facts import core as F

COMPANIONS = ("torchvision", "torchaudio")
TORCH_FAMILY = ("torch",) + COMPANIONS
MAX_REQUIREMENTS_BYTES = 1 << 20   # requirements_file.MAX_BYTES
MAX_REQUIREMENT_LINES = 5000      # requirements_file.MAX_LINES


class PlanError(ValueError):
    """A plan cannot be made (nothing fits, or an input is unusable); the message says why."""


@dataclasses.dataclass
class Plan:
    os_name: str                      # platform.system() of the target: Linux, Windows, Darwin
    python: str | None                # "3.11": the Python the new environment is created with
    reasons: list[str]                # why this torch (the advise reasons), for comments and --dry-run
    torch: str | None = None          # "2.14.1" (exact), "2.14" (newest patch of a release), None (newest)
    tag: str | None = None            # download.pytorch.org index: "cu130", "cpu"; None = PyPI's torch
    companions: tuple = ("torchvision",)
    tensorflow: str | None = None     # a TensorFlow requirement, e.g. "tensorflow[and-cuda]"
    requirements: str | None = None   # the project's requirements file
    pinned: list[str] | None = None   # --from-requirements: the file's requirement lines, verbatim
    pinned_file: str | None = None
    sources: Sources = dataclasses.field(default_factory=Sources)
    conda: bool = False
    requirement_lines: list[str] | None = None  # the project's requirements as checked (rebuild hands pip these)
    wheel: str | None = None          # a torch wheel by URL (a Jetson's JetPack wheel) instead of an index
    base_python: str | None = None    # the interpreter the environment is made from, when it must be a given
                                      # one (an arm64 Python on a Mac whose Python runs under Rosetta)
    conda_specs: tuple = ()           # conda-forge's match specs the conda env is created with (advise --conda
                                      # --script: 'pytorch=2.13.*=cuda129*', ...); torch then comes from conda

    # ------------------------------------------------------------ what pip installs, step by step

    def torch_requirements(self) -> list[str]:
        """The torch step's requirement words (unquoted): torch and its companions, paired; a JetPack
        wheel alone (NVIDIA publishes no torchvision for it: the plan's reasons say how to build it)."""
        if self.wheel:
            return [self.wheel]
        rel = knowledge.release_key(self.torch) if self.torch else None
        exact = self.torch is not None and len(knowledge.version_tuple(self.torch) or ()) >= 3
        out = [f"torch=={self.torch}" if exact else (f"torch=={rel}.*" if rel else "torch")]
        for name in self.companions:
            if name == "torchvision" and rel and knowledge.torchvision_for(rel):
                out.append(f"torchvision=={knowledge.torchvision_for(rel)}.*")
            elif name == "torchaudio" and rel and knowledge.torchaudio_for(rel):
                out.append(f"torchaudio=={knowledge.torchaudio_for(rel)}.*")  # the release's paired torchaudio
            else:
                out.append(name)
        return out

    def steps(self) -> list[dict]:
        """The pip steps after the environment exists: {'name', 'pip': [args after `pip install`]}."""
        src = self.sources
        if self.pinned is not None:
            tags = _tags_of(self.pinned)
            steps = [{"name": f"install the pinned requirements of {os.path.basename(self.pinned_file or 'the file')}",
                      "pip": ["-r", self.pinned_file] + src.pip_args(tags[0] if tags else None,
                                                                     torch_step=bool(tags))}]
        elif self.conda_specs:
            steps = []  # torch and its companions come with the conda env (conda-forge), not from pip
        else:
            steps = [{"name": "install " + ", ".join(self.torch_requirements()),
                      "pip": self.torch_requirements() + src.pip_args(self.tag, torch_step=True)}]
        if self.tensorflow:
            steps.append({"name": f"install {self.tensorflow}", "pip": [self.tensorflow] + src.pip_args()})
        if self.requirements:
            # Naming torch's pin again makes pip refuse, rather than silently replace, a torch
            # that the project's requirements would pull in another version of.
            keep = self.torch_requirements()[:1] if self.pinned is None else []
            steps.append({"name": f"install the project's requirements ({os.path.basename(self.requirements)})",
                          "pip": ["-r", self.requirements] + keep + src.pip_args(self.tag, torch_step=bool(keep))})
        return steps

    def describe(self) -> list[str]:
        lines = list(self.reasons)
        lines += self.sources.describe()
        return lines


def _tags_of(lines: list[str]) -> list[str]:
    tags = []
    for line in lines:
        m = re.match(r"(torch|torchvision|torchaudio)==\S+\+(\w+)$", line)
        tag = m and knowledge.local_tag("0+" + m.group(2))
        if tag and tag not in tags:
            tags.append(tag)
    return tags


# ------------------------------------------------------------ reading requirements files

def _read(path: str):
    """The file, read and checked once (requirements_file.py: no option line, no `${VAR}`)."""
    from torch_envcheck.advice import requirements_file  # noqa: PLC0415
    try:
        return requirements_file.read(path)
    except requirements_file.RequirementsError as exc:
        raise PlanError(str(exc)) from None


def read_requirements(path: str) -> list[str]:
    """The requirement lines of a requirements file, comments dropped; PlanError names the first
    line that is not one (so nothing unexpected reaches pip through a plan)."""
    return list(_read(path).lines)


def pinned_torch(lines: list[str]) -> str | None:
    """The version a requirements file pins torch to (`torch==X`), else None."""
    for line in lines:
        m = re.fullmatch(r"torch\s*===?\s*([^\s;,]+)", line)
        if m:
            return escape.requirement_version(m.group(1))
    return None


# ------------------------------------------------------------ making a plan

def from_advice(snap: dict, *, torch: str | None = None, companions=("torchvision",), tensorflow: bool = False,
                requirements: str | None = None, sources: Sources | None = None, conda: bool = False) -> Plan:
    """The plan for the machine described by `snap`: advise's recommendation, or `torch` (a version
    the user asks for) on the index that fits the machine."""
    rec = recommend(snap)
    if rec["kind"] is None:
        raise PlanError("no torch build fits this machine: " + "; ".join(rec["reasons"]))
    reasons = list(rec["reasons"])
    # A script or a rebuild is re-run later: the newest release known today, not "whatever is
    # newest then", keeps torchvision/torchaudio paired and the result reproducible.
    version = rec.get("torch") or knowledge.latest_known_release()
    if torch is not None:
        if escape.requirement_version(torch) is None:
            raise PlanError(f"--torch {torch!r} is not a version; expected e.g. 2.14.1 or 2.14")
        reasons.append(f"torch {torch} as asked (--torch), instead of the advised {version or 'newest'}")
        version = torch
    req_lines = None
    if requirements:
        parsed = _read(requirements)
        req_lines = list(parsed.lines)
        reasons += list(parsed.notes)
        pin = pinned_torch(req_lines)
        if pin and pin.split("+")[0] != (version or "").split("+")[0]:
            if torch is not None:
                raise PlanError(f"{requirements} pins torch=={pin} but --torch asks for {torch}: "
                                "change one of them")
            reasons.append(f"torch {pin}: pinned by {os.path.basename(requirements)} (advised: {version or 'newest'})")
            version = pin
    tag = rec.get("tag")
    wheel = base_python = None
    if rec["kind"] == "jetpack":
        if torch is not None or requirements:
            raise PlanError("a Jetson installs NVIDIA's JetPack wheel (" + rec["wheel"] + "): --torch and -r pins "
                            "of other torch versions cannot be installed from the PyTorch index on it")
        wheel, version, tag = rec["wheel"], rec["torch"], None
        companions = ()
    elif rec["kind"] == "native-python":
        from torch_envcheck.advice.recommend import NATIVE_PYTHON  # noqa: PLC0415
        base_python = NATIVE_PYTHON
        reasons.append(f"the new environment is made from {NATIVE_PYTHON} (Homebrew's arm64 Python; any native "
                       "arm64 Python will do: pass it with --python, or PYTHON=... for the script)")
    if wheel is None and version and "+" in version:
        local = knowledge.local_tag(version)
        tag = local or tag
        version = version.split("+")[0]
    os_name = _os_name(snap)
    tf_req = None
    if tensorflow:
        tf_req, tf_reason = _tensorflow_requirement(os_name, tag)
        reasons.append(tf_reason)
    return Plan(os_name=os_name, python=rec.get("python"), reasons=reasons, torch=version, tag=tag,
                companions=tuple(c for c in companions if c != "none"), tensorflow=tf_req, requirements=requirements,
                sources=sources or Sources(), conda=conda, requirement_lines=req_lines, wheel=wheel,
                base_python=base_python)


def _os_name(snap: dict) -> str:
    system = F.system(snap)
    return system if system in ("Linux", "Windows", "Darwin") else "Linux"


def _tensorflow_requirement(os_name: str, tag: str | None) -> tuple[str, str]:
    # TensorFlow's pip guide (https://www.tensorflow.org/install/pip): `tensorflow[and-cuda]` pulls
    # its CUDA libraries on Linux; native Windows has no GPU support since TF 2.11.
    if os_name == "Linux" and tag and tag.startswith("cu"):
        note = ""
        if (knowledge.major_minor(knowledge.cuda_from_tag(tag)) or (0, 0))[0] >= 13:
            note = (" (TensorFlow's CUDA 12 wheels and torch's CUDA 13 wheels install some of the same "
                    "files, e.g. nvidia/cudnn/lib/libcudnn.so.9: two environments are safer)")
        return "tensorflow[and-cuda]", "TensorFlow with its CUDA libraries (tensorflow[and-cuda])" + note
    if os_name == "Windows":
        return "tensorflow", "TensorFlow on native Windows: CPU only since TF 2.11 (GPU needs WSL 2)"
    return "tensorflow", "TensorFlow (CPU, or Metal on macOS through tensorflow-metal)"


def from_requirements(path: str, snap: dict, *, sources: Sources | None = None, conda: bool = False) -> Plan:
    """The plan that reproduces a pinned environment (`torch-envcheck pin > requirements.txt`)."""
    parsed = _read(path)
    lines = list(parsed.lines)
    version = pinned_torch(lines)
    if version is None:
        raise PlanError(f"{path} pins no torch (expected a line torch==VERSION, as `torch-envcheck pin` writes)")
    return Plan(os_name=_os_name(snap), python=F.python_mm(snap),
                reasons=[f"reproduce {os.path.basename(path)}: torch=={version} and every other pin in it"]
                + list(parsed.notes),
                torch=version.split("+")[0], tag=_tags_of(lines)[0] if _tags_of(lines) else None,
                companions=(), pinned=lines, pinned_file=path, sources=sources or Sources(), conda=conda)
