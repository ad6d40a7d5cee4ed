"""Helpers shared by the self-test modules: failures and skips that name a finding code and a fix."""

from __future__ import annotations

import os

import pytest

from torch_envcheck.doctor.codes import CODES

ENV_REQUIRE_GPU = "TORCH_ENVCHECK_REQUIRE_GPU"
REBUILD = "torch-envcheck build"
DOCTOR = "torch-envcheck"  # the doctor: names the broken layer and prints the command that fixes it


def tagged(code: str, message: str) -> str:
    return f"[{code} {CODES[code][0]}] {message}"


def fail(code: str, message: str, fix: str | None = None):
    """Fail the current test with the finding code, what went wrong and the command that fixes it."""
    text = tagged(code, message)
    if fix:
        text += f"\n  fix: {fix}"
    # `from None`: called from an except block, the original exception is already in the message;
    # pytest would otherwise print it again as "During handling of the above exception...".
    raise pytest.fail.Exception(text, pytrace=False) from None


def gpu_required() -> bool:
    from torch_envcheck._util.envflags import env_flag  # noqa: PLC0415
    return env_flag(ENV_REQUIRE_GPU, default=False, invalid=True)  # a garbled "require" fails closed


def nvidia_driver_loaded() -> bool:
    # The kernel module lists each GPU here (Linux).  A driver that is loaded means a GPU is expected to
    # work, so CUDA failing there is a failure, not a reason to skip.
    d = "/proc/driver/nvidia/gpus"
    try:
        return bool(os.listdir(d))
    except OSError:
        return False


def classify_cuda_error(text: str) -> tuple[str, str]:
    """(finding code, fix) for a CUDA initialisation error text (the texts of torch/cuda/__init__.py's
    _lazy_init and the driver's CUDA errors, as users report them, e.g. ultralytics/yolov5#2389)."""
    low = text.lower()
    if "too old" in low or "insufficient" in low:
        return "TE302", "install a newer NVIDIA driver (see `torch-envcheck` for the minimum), or a torch built for an older CUDA"
    if "no nvidia driver" in low or "no cuda-capable device" in low:
        return "TE301", "install the NVIDIA driver (or check CUDA_VISIBLE_DEVICES); `torch-envcheck` shows what is missing"
    if "not compiled with cuda" in low:
        return "TE202", "install a CUDA build of torch: `torch-envcheck advise` prints the command"
    return "TE303", f"run `{DOCTOR}` to see which layer fails"
