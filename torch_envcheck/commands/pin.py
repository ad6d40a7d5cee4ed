"""`torch-envcheck pin`: requirements.txt lines that reproduce this torch exactly: the pinned
versions with their local labels (+cu130, +cpu) and the download.pytorch.org index they come from,
torchvision and torchaudio included.

Every version goes into a requirements line, so only a PEP 440 version is printed
(escape.requirement_version): a stranger's report cannot smuggle in a newline, an `--index-url`
to another index or a second requirement.  A companion with an invalid version is left out with
a comment saying so; an invalid torch version is refused."""

from __future__ import annotations

from torch_envcheck.advice.env_yml import NotACondaEnv, build
from torch_envcheck.advice.recommend import index_tag, index_url, recommend
from torch_envcheck._util import versions
from torch_envcheck.advice.tensorflow import pin_lines
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.commands import _source as _args
from torch_envcheck.facts import core as F
from torch_envcheck._util.escape import requirement_version, terminal

PROBES = ("platform", "torch", "packages", "tensorflow")
CONDA_PROBES = ("platform", "conda")
COMPANIONS = ("torchvision", "torchaudio")


def add_arguments(parser) -> None:
    _args.add_source(parser)
    parser.add_argument("--conda", action="store_true",
                        help="write a conda environment.yml (channels, CUDA packages pinned to their build strings, "
                             "pip section) instead of requirements.txt lines")


def lines(snap: dict) -> list[str]:
    """The requirement lines; raises ValueError when there is no torch to pin."""
    raw = F.torch_version(snap)
    if not raw:
        raise ValueError("torch is not installed in this environment: nothing to pin")
    # every version goes into a requirements line: only a valid PEP 440 version may (no newline,
    # no `--index-url` smuggled in)
    version = requirement_version(raw)
    if version is None:
        raise ValueError("torch's version in this report is not a PEP 440 version: nothing safe to pin")
    pins = [("torch", version)]
    dropped = []
    for name in COMPANIONS:
        v = F.package_version(snap, name)
        if v and requirement_version(v):
            pins.append((name, requirement_version(v)))
        elif v:
            dropped.append(name)
    where = " ".join(x for x in (F.system(snap), F.machine(snap)) if x)
    build = f"CUDA {F.torch_cuda(snap)}" if F.torch_cuda(snap) else (f"ROCm {F.torch_hip(snap)}" if F.is_rocm_torch(snap)
                                                                      and F.torch_hip(snap) else "CPU")
    out = [terminal(f"# torch {version} ({build}) on {where or 'unknown OS'}, Python {F.python_mm(snap) or '?'}; "
                    "from `torch-envcheck pin`")]
    out += [f"# {name}: left out: its version in this report is not a PEP 440 version" for name in dropped]
    if F.torch_installer(snap) == "conda":
        out.append("# torch was installed by conda; these lines install the matching pip wheels instead")
    if F.is_macos(snap) and F.rosetta(snap) is True:
        # the pins reproduce this Python's x86_64 wheels, without MPS; `advise` says how to leave them
        out.append("# this Python runs under Rosetta (x86_64): these are torch's x86_64 macOS wheels, without MPS; on a "
                   "native arm64 Python install a current torch instead (`torch-envcheck advise`)")
    rec = recommend(snap) if F.is_tegra(snap) else None
    if rec is not None and rec["kind"] == "jetpack":
        if versions.public(rec["torch"]) == versions.public(version):
            out.append(terminal(f"# torch is NVIDIA's JetPack wheel, on no package index: install it first with "
                                f"`pip install {rec['wheel']}`; torchvision is built from source for it"))
        else:
            out.append(terminal(f"# a Jetson: NVIDIA's JetPack wheel fits this board ({rec['wheel']}); the torch "
                                "pinned below is not one (`torch-envcheck advise`)"))
    tags = []
    for _, v in pins:
        tag = index_tag(v.split("+", 1)[1] if "+" in v else None)
        if tag and tag not in tags:
            tags.append(tag)
    if not tags and "+" not in version:
        out.append("# a plain PyPI build: PyPI's default index serves it")
    # --extra-index-url keeps PyPI for everything else in the file (numpy, ...).
    out += [f"--extra-index-url {index_url(tag)}" for tag in tags]
    out += [f"{name}=={v}" for name, v in pins]
    if T.tf_installed(snap):
        out += pin_lines(snap)
    return out


def run(args) -> int:
    import sys  # noqa: PLC0415

    conda = getattr(args, "conda", False)
    args.no_tensorflow = True  # TensorFlow's metadata is enough to pin it
    snap = _args.snapshot(args, only=CONDA_PROBES if conda else PROBES)
    if snap is None:
        return 2
    if conda:
        try:
            sys.stdout.write(build(snap))
        except NotACondaEnv as exc:
            print(f"torch-envcheck pin --conda: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        print("\n".join(lines(snap)))
    except ValueError as exc:
        print(f"torch-envcheck pin: {terminal(exc)}", file=sys.stderr)
        return 1
    return 0
