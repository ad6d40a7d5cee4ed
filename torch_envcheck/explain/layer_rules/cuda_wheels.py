"""Layer rules for CUDA's libraries as packages and builds: the nvidia-* wheels torch pins, as pip and uv report them, and
an NCCL built without the GPU's architecture.

    nvidia_wheel_pin_conflict  pip's "The user requested nvidia-X==A / torch V depends on nvidia-X==B" -> libraries: the
                         nvidia-* pin dropped (torch pins its own), or the torch build whose libraries match it
    nvidia_wheel_not_served    "no matching distributions available for your environment: nvidia-X" -> torch-build: the
                         index (or its CUDA variant) does not serve a wheel this torch depends on
    nccl_without_gpu_arch  NCCL's "Cuda failure 'named symbol not found'" -> arch: an NCCL built without this GPU's sm
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_PIP_RESOLVER = {"url": "https://pip.pypa.io/en/stable/topics/dependency-resolution/#dealing-with-dependency-conflicts",
                 "what": "pip's ResolutionImpossible report: 'The conflict is caused by' and the requirements in conflict"}

_PIN_CONFLICT = re.compile(r"The user requested (?P<pkg>nvidia-[\w-]{2,60})==(?P<want>[\w.]{1,30})\s{1,20}"
                           r"(?P<by>torch|tensorflow|jax(?:lib)?|[\w-]{2,40}) (?P<byv>[\w.+]{1,30}) depends on "
                           r"(?P=pkg)==(?P<need>[\w.]{1,30})")


def nvidia_wheel_pin_conflict(ent, text):
    m, at = last_in_tail(_PIN_CONFLICT, text, "The user requested nvidia-")
    if m is None:
        return None
    caps = {k: m.group(k) for k in ("pkg", "want", "by", "byv", "need")}
    sig = _sig("nvidia-wheel-pin-conflict", "libraries",
               "{pkg}=={want} is pinned, but {by} {byv} needs {pkg}=={need}", 86,
               "{by} {byv} pins the exact CUDA library wheels its build was made with ({pkg}=={need}); a requirements or "
               "environment file that pins another version of the same wheel cannot be satisfied together with it.",
               fix="Drop the {pkg} pin (and the other nvidia-* pins) from the requirements: {by} brings the versions it "
                   "needs. If that CUDA version is the point, install the {by} build made for it instead (for torch, the "
                   "cuXYZ index of that CUDA) rather than pinning its libraries by hand.",
               areas=("libraries",), sources=(_PIP_RESOLVER,))
    return _match(sig, text, at, caps)


_NOT_SERVED = re.compile(r"no matching distributions? available for your environment:\s{1,20}(?P<pkg>nvidia-[\w-]{2,60})")


def nvidia_wheel_not_served(ent, text):
    m, at = last_in_tail(_NOT_SERVED, text, "no matching distribution")
    if m is None:
        return None
    sig = _sig("nvidia-wheel-not-served", "torch-build",
               "the index does not serve {pkg}, which this torch depends on", 84,
               "torch's CUDA builds depend on nvidia-* library wheels; the resolver looked for {pkg} on the index it "
               "was given (often one CUDA variant of the PyTorch index, or a nightly one) and found none for this "
               "platform, so no torch of that build can be installed from there.",
               fix="Install from an index that serves every wheel the build depends on: another CUDA variant of the "
                   "PyTorch index (e.g. the cu128 or cu130 one), or add PyPI as an extra index (`--extra-index-url "
                   "https://pypi.org/simple`) so {pkg} can come from there.",
               areas=("torch",),
               sources=({"url": "https://docs.astral.sh/uv/guides/integration/pytorch/",
                         "what": "installing torch from the PyTorch index variants with uv and pip"},))
    return _match(sig, text, at, {"pkg": m.group("pkg")})


_NCCL_SYMBOL = re.compile(r"NCCL WARN Cuda failure '?named symbol not found")


def nccl_without_gpu_arch(ent, text):
    m, at = last_in_tail(_NCCL_SYMBOL, text, "named symbol not found")
    if m is None:
        return None
    sig = _sig("nccl-without-gpu-arch", "arch",
               "NCCL's kernels have no code for this GPU (cudaErrorSymbolNotFound in NCCL)", 84,
               "NCCL looks its device kernels up by name when it enqueues a collective; 'named symbol not found' means "
               "the NCCL library loaded has no kernel image for this GPU's architecture: a build whose NVCC_GENCODE "
               "left the GPU's sm out (a cluster build made for older GPUs), or an NCCL older than the GPU.",
               fix="Use an NCCL built for this GPU: the nvidia-nccl wheel torch pins (built for every current "
                   "architecture), or rebuild NCCL with the GPU's sm in NVCC_GENCODE (e.g. -gencode=arch=compute_90,"
                   "code=sm_90 for H100); check with NCCL_DEBUG=INFO which libnccl is loaded.",
               areas=("gpu",),
               sources=({"url": "https://github.com/NVIDIA/nccl#build",
                         "what": "NCCL's build: NVCC_GENCODE selects the GPU architectures compiled"},))
    return _match(sig, text, at, {})
