"""Environment variables that change what CUDA and torch do."""

from __future__ import annotations

import os

NAMES = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
         "PYTORCH_CUDA_ALLOC_CONF", "TORCH_CUDA_ARCH_LIST", "CUDNN_HOME", "LD_PRELOAD",
         "CUDA_LAUNCH_BLOCKING", "PYTORCH_NVML_BASED_CUDA_CHECK", "HIP_VISIBLE_DEVICES",
         # NVIDIA Container Toolkit: void/none/empty = the container was given no GPU
         "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
         # folders Python searches before the environment's own site-packages
         "PYTHONPATH", "PYTHONNOUSERSITE",
         # ROCm: the gfx target an AMD GPU outside the build's list is treated as
         "HSA_OVERRIDE_GFX_VERSION")


def probe(env: dict | None = None) -> dict:
    env = os.environ if env is None else env
    # None = unset; "" = set but empty (CUDA_VISIBLE_DEVICES="" hides every GPU).
    return {name: env.get(name) for name in NAMES}
