"""`torch-envcheck pin`: requirements.txt lines that reproduce this torch exactly: the pinned
versions with their local labels (+cu130, +cpu) and the download.pytorch.org index they come from,
torchvision and torchaudio included."""

from __future__ import annotations

from . import _args
from .facts import d, index_tag, index_url, python_mm

PROBES = ("platform", "torch", "packages", "tensorflow")
COMPANIONS = ("torchvision", "torchaudio")


def add_arguments(parser) -> None:
    _args.add_source(parser)


def lines(snap: dict) -> list[str]:
    """The requirement lines; raises ValueError when there is no torch to pin."""
    t, pk, plat = d(snap.get("torch")), d(snap.get("packages")), d(snap.get("platform"))
    version = t.get("version")
    if not version:
        raise ValueError("torch is not installed in this environment: nothing to pin")
    pins = [("torch", version)] + [(n, d(pk.get(n)).get("version")) for n in COMPANIONS if d(pk.get(n)).get("version")]
    where = " ".join(str(x) for x in (plat.get("system"), plat.get("machine")) if x)
    build = f"CUDA {t['cuda']}" if t.get("cuda") else (f"ROCm {t['hip']}" if t.get("hip") else "CPU")
    out = [f"# torch {version} ({build}) on {where or 'unknown OS'}, Python {python_mm(snap) or '?'}; "
           "from `torch-envcheck pin`"]
    if t.get("installer") == "conda":
        out.append("# torch was installed by conda; these lines install the matching pip wheels instead")
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
    if d(snap.get("tensorflow")).get("installed"):
        from .tf_advise import pin_lines  # noqa: PLC0415
        out += pin_lines(snap)
    return out


def run(args) -> int:
    import sys  # noqa: PLC0415

    args.no_tensorflow = True  # TensorFlow's metadata is enough to pin it
    snap = _args.snapshot(args, only=PROBES)
    if snap is None:
        return 2
    try:
        print("\n".join(lines(snap)))
    except ValueError as exc:
        print(f"torch-envcheck pin: {exc}", file=sys.stderr)
        return 1
    return 0
