"""`torch-envcheck readme-line`: one line naming this stack, for a README or a bug report, e.g.
`torch 2.14.1+cu130 (CUDA 13.0) / Python 3.11 / driver 580.65.06 / cuDNN 9.24 / NVIDIA H100 80GB HBM3`."""

from __future__ import annotations

from . import _args
from .facts import cudnn_mm, d, gpus, python_mm

PROBES = ("platform", "torch", "driver", "tensorflow")


def add_arguments(parser) -> None:
    _args.add_source(parser)


def line(snap: dict) -> str:
    t, drv, plat = d(snap.get("torch")), d(snap.get("driver")), d(snap.get("platform"))
    parts = []
    if t.get("version"):
        build = f"CUDA {t['cuda']}" if t.get("cuda") else (f"ROCm {t['hip']}" if t.get("hip") else None)
        text = f"torch {t['version']}" + (f" ({build})" if build and not t.get("local") else "")
        if not t.get("importable", True):
            text += " (not importable)"
        parts.append(text)
    else:
        parts.append("torch not installed")
    if python_mm(snap):
        parts.append(f"Python {python_mm(snap)}")
    if plat.get("system") == "Darwin":
        parts.append(plat.get("os_pretty") or "macOS")
        if d(t.get("mps")).get("available"):
            parts.append("MPS")
    elif drv.get("present"):
        parts.append(f"driver {drv.get('version') or '?'}")
    elif t.get("cuda") or drv:
        parts.append("no NVIDIA driver")
    if cudnn_mm(t.get("cudnn")):
        parts.append(f"cuDNN {cudnn_mm(t['cudnn'])}")
    tf = d(snap.get("tensorflow"))
    if tf.get("installed") and tf.get("version"):
        from .tf_advise import tf_line  # noqa: PLC0415
        parts.append(tf_line(snap))
    names = [str(g.get("name")) for g in gpus(snap) if g.get("name")]
    if names:
        parts.append(names[0] + (f" x{len(names)}" if len(names) > 1 and len(set(names)) == 1 else
                                 (f" +{len(names) - 1}" if len(names) > 1 else "")))
    return " / ".join(parts)


def run(args) -> int:
    snap = _args.snapshot(args, only=PROBES)
    if snap is None:
        return 2
    print(line(snap))
    return 0
