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
    parser.add_argument("--uv", action="store_true",
                        help="uv's form: `uv pip install` of the exact versions from their build's index, and the "
                             "pyproject.toml fragment that makes `uv lock` / `uv sync` install them")
    parser.add_argument("--hashes", action="store_true",
                        help="add the sha256 hashes the indexes publish (pip install --require-hashes -r), each line "
                             "gated by this platform's marker; without network: said, exit status 1")
    parser.add_argument("--index-base", metavar="URL", default=None,
                        help="with --hashes: the PyTorch index base (default https://download.pytorch.org/whl/; "
                             "a mirror, or a file:// folder of simple-index pages)")
    parser.add_argument("--pypi-simple", metavar="URL", default=None,
                        help="with --hashes: the simple index of the other packages (default https://pypi.org/simple/)")
    parser.add_argument("--target", metavar="PLATFORMS", default=None,
                        help="with --uv: the platforms the project locks for (linux, linux-aarch64, windows, macos)")


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
    if getattr(args, "uv", False):
        return _uv(args, snap)
    if conda:
        try:
            sys.stdout.write(build(snap))
        except NotACondaEnv as exc:
            print(f"torch-envcheck pin --conda: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        out = lines(snap)
        if getattr(args, "hashes", False):
            return _hashes(args, snap, out)
        print("\n".join(out))
    except ValueError as exc:
        print(f"torch-envcheck pin: {terminal(exc)}", file=sys.stderr)
        return 1
    return 0


def _uv(args, snap: dict) -> int:
    import sys  # noqa: PLC0415

    from torch_envcheck.advice import uv  # noqa: PLC0415
    from torch_envcheck.commands import advise_forms  # noqa: PLC0415
    ok, tgs = advise_forms.targets(args, "pin")
    if not ok:
        return 2
    try:
        out = uv.pin(snap, tgs)
    except ValueError as exc:
        print(f"torch-envcheck pin: {terminal(exc)}", file=sys.stderr)
        return 1
    return advise_forms.emit(args, out)


def _hashes(args, snap: dict, out: list[str]) -> int:
    import sys  # noqa: PLC0415

    from torch_envcheck.knowledge_update import pin_hashes as hashes  # noqa: PLC0415
    done, problems = hashes.hashed(snap, out, args.index_base or hashes.PYTORCH_BASE,
                                   args.pypi_simple or hashes.PYPI_SIMPLE)
    print("\n".join(terminal(line) for line in done))
    for p in problems:
        print(f"torch-envcheck pin: {terminal(p)}", file=sys.stderr)
    return 1 if problems else 0
