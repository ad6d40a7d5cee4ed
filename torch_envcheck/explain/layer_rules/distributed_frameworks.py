"""Layer rules for frameworks that run training across processes and machines over torch (Horovod), read from their
own build checks.

    horovod_torch_without_cuda  "Horovod build with GPU support was requested but this PyTorch installation does not
                     support CUDA" -> torch-build: the CUDA build of torch before building Horovod
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_HOROVOD_NO_CUDA = re.compile(r"Horovod build with GPU support was requested but this PyTorch installation does not "
                              r"support CUDA")


def horovod_torch_without_cuda(ent, text):
    m, at = last_in_tail(_HOROVOD_NO_CUDA, text, "does not support CUDA")
    if m is None:
        return None
    sig = _sig("horovod-torch-without-cuda", "torch-build", "Horovod's GPU build found a torch without CUDA", 84,
               "Horovod compiles its torch extension against the torch installed in the build environment; GPU support "
               "(HOROVOD_GPU_OPERATIONS=NCCL) was asked for, and that torch is a CPU-only build (or pip's build "
               "isolation installed one for the build).",
               fix="Install torch's CUDA build first (`pip install torch --index-url https://download.pytorch.org/whl/"
                   "cu12X`, the CUDA your driver supports), then build Horovod against it without build isolation: "
                   "`HOROVOD_GPU_OPERATIONS=NCCL HOROVOD_WITH_PYTORCH=1 pip install --no-cache-dir "
                   "--no-build-isolation horovod`.",
               areas=("torch",),
               sources=({"url": "https://horovod.readthedocs.io/en/stable/gpus_include.html",
                         "what": "Horovod with GPUs: HOROVOD_GPU_OPERATIONS=NCCL, built against the installed framework"},))
    return _match(sig, text, at, {})
