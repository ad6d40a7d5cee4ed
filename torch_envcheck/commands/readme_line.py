"""`torch-envcheck readme-line`: one line naming this stack, for a README or a bug report, e.g.
`torch 2.14.1+cu130 (CUDA 13.0) / Python 3.11 / driver 580.65.06 / cuDNN 9.24 / NVIDIA H100 80GB HBM3`."""

from __future__ import annotations

from torch_envcheck._util.escape import terminal
from torch_envcheck.advice.tensorflow import tf_line
from torch_envcheck.commands import _source as _args
from torch_envcheck.facts import tensorflow as T
from torch_envcheck.facts import core as F

PROBES = ("platform", "torch", "driver", "tensorflow")


def add_arguments(parser) -> None:
    _args.add_source(parser)


def line(snap: dict) -> str:
    parts = []
    version = F.torch_version(snap)
    if version:
        cuda, hip = F.torch_recorded_cuda(snap), F.torch_hip(snap)
        build = f"CUDA {cuda}" if cuda else (f"ROCm {hip}" if hip else None)
        text = f"torch {version}" + (f" ({build})" if build and not F.torch_recorded_local(snap) else "")
        if F.torch_importable(snap) is False:
            text += " (not importable)"
        parts.append(text)
    elif F.torch_importable(snap) is None:
        parts.append("torch unknown")
    else:
        parts.append("torch not installed")
    if F.python_mm(snap):
        parts.append(f"Python {F.python_mm(snap)}")
    if F.is_macos(snap):
        parts.append(F.os_pretty(snap) or "macOS")
        if F.mps_available(snap):
            parts.append("MPS")
    elif F.driver_present(snap) is True:
        parts.append(f"driver {F.driver_version(snap) or '?'}")
    elif F.driver_present(snap) is False:
        parts.append("no NVIDIA driver")
    if F.cudnn_mm(F.torch_cudnn(snap)):
        parts.append(f"cuDNN {F.cudnn_mm(F.torch_cudnn(snap))}")
    if T.tf_installed(snap):
        parts.append(tf_line(snap))
    names = [F.text(g.name) for g in F.gpus(snap) if F.text(g.name)]
    if names:
        parts.append(names[0] + (f" x{len(names)}" if len(names) > 1 and len(set(names)) == 1 else
                                 (f" +{len(names) - 1}" if len(names) > 1 else "")))
    return " / ".join(parts)


def run(args) -> int:
    snap = _args.snapshot(args, only=PROBES)
    if snap is None:
        return 2
    print(terminal(line(snap)))
    return 0
