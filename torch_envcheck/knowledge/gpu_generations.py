"""NVIDIA GPUs by name: their compute capability and the first CUDA toolkit that builds code for it.

A pure table (no I/O).  explain reads a GPU named in an error text ("NVIDIA GeForce RTX 4090", "A100-SXM4-40GB",
"GTX 1080 Ti") and the CUDA a build was made with, and says when the GPU is newer than that CUDA can serve.

    capability_of(name) -> "8.9" | None
    first_cuda_for(capability) -> "11.8" | None
    needs_newer_cuda(name, cuda) -> {"gpu", "capability", "sm", "first_cuda", "cuda"} | None
    requirement_of(name) -> {"gpu", "capability", "sm", "first_cuda"} | None   (a GPU or an architecture's name)
    last_cuda_for(capability) -> "8.0" | None   (the last toolkit that still builds it, for dropped targets)

Sources: the capabilities are NVIDIA's list of CUDA GPUs (https://developer.nvidia.com/cuda-gpus); the first toolkit
per capability is the CUDA toolkit release that added the sm_XY target to nvcc (CUDA Toolkit release notes,
https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html and its archive: sm_70 in 9.0, sm_75 in 10.0,
sm_80 in 11.0, sm_86 in 11.1, sm_89 and sm_90 in 11.8, sm_100 and sm_120 in 12.8).  The architecture names are
NVIDIA's generations (the same list groups the GPUs by them): Volta 7.0, Turing 7.5, Ampere 8.0/8.6, Ada Lovelace 8.9,
Hopper 9.0, Blackwell 10.0 (data center) / 12.0 (GeForce, RTX PRO).  The last toolkit per dropped target is the release
before the one whose notes removed it: Fermi (sm_20/21) removed in CUDA 9.0, sm_30/32 in 11.0, sm_35/37 in 12.0,
Maxwell, Pascal and Volta (sm_50 to sm_72) in 13.0 (the same release notes)."""

from __future__ import annotations

import re

from torch_envcheck._util.versions import major_minor

# (pattern over the GPU's name, compute capability), the most specific first
_BY_NAME = (
    (r"(?:RTX|GTX) ?50\d0|RTX PRO \d{4}", "12.0"),
    (r"\bB[12]\d0\b|GB200", "10.0"),
    (r"H100|H200|H800|\bH20\b|GH200", "9.0"),
    (r"(?:RTX|GTX) ?40\d0|\bL40S?\b|\bL4\b|RTX \d{4} Ada|RTX [2-6]000 Ada", "8.9"),
    (r"(?:RTX|GTX) ?30\d0|\bA10G?\b|\bA40\b|\bA16\b|\bA2\b|RTX A\d{4}|A[2-6]000", "8.6"),
    (r"A100|A800|\bA30\b", "8.0"),
    (r"(?:RTX|GTX) ?20\d0|GTX ?16\d0|\bT4\b|Quadro RTX|TITAN RTX", "7.5"),
    (r"V100|TITAN V\b", "7.0"),
    (r"P100", "6.0"),
    (r"GTX ?10[5-8]0|\bP40\b|\bP4\b|TITAN Xp?\b", "6.1"),
    (r"GTX ?9[5-8]0|\bM40\b|TITAN X\b", "5.2"),
    (r"K80", "3.7"),
)
_COMPILED = tuple((re.compile(p), cc) for p, cc in _BY_NAME)
_DATACENTER_BLACKWELL = re.compile(r"\bB[12]\d0\b|GB200")

# the first CUDA toolkit whose nvcc builds sm_XY for a capability (and so the first whose libraries ship code for it)
FIRST_CUDA = {"3.7": "5.0", "5.2": "6.5", "6.0": "8.0", "6.1": "8.0", "7.0": "9.0", "7.5": "10.0", "8.0": "11.0",
              "8.6": "11.1", "8.9": "11.8", "9.0": "11.8", "10.0": "12.8", "12.0": "12.8"}


def capability_of(name: str | None) -> str | None:
    if not name:
        return None
    if _DATACENTER_BLACKWELL.search(name):
        return "10.0"
    for pattern, cc in _COMPILED:
        if pattern.search(name):
            return cc
    return None


def first_cuda_for(capability: str | None) -> str | None:
    return FIRST_CUDA.get(capability or "")


# the last CUDA toolkit whose nvcc still builds a capability that a later release removed
LAST_CUDA = {"2.0": "8.0", "2.1": "8.0", "3.0": "10.2", "3.2": "10.2", "3.5": "11.8", "3.7": "11.8", "5.0": "12.9",
             "5.2": "12.9", "5.3": "12.9", "6.0": "12.9", "6.1": "12.9", "6.2": "12.9", "7.0": "12.9", "7.2": "12.9"}


def last_cuda_for(capability: str | None) -> str | None:
    return LAST_CUDA.get(capability or "")


# an architecture named instead of a GPU ("Blackwell cards"): its targets and the first CUDA that builds all of them
_GENERATIONS = (
    (re.compile(r"\bBlackwell\b"), "sm_100/sm_120", "10.0/12.0", "12.8"),
    (re.compile(r"\bHopper\b"), "sm_90", "9.0", "11.8"),
    (re.compile(r"\bAda(?: Lovelace)?\b(?! ?Boost)"), "sm_89", "8.9", "11.8"),
    (re.compile(r"\bAmpere\b"), "sm_80/sm_86", "8.0/8.6", "11.1"),
    (re.compile(r"\bTuring\b"), "sm_75", "7.5", "10.0"),
    (re.compile(r"\bVolta\b"), "sm_70", "7.0", "9.0"),
)


def requirement_of(name: str | None) -> dict | None:
    """What a GPU (by name) or an NVIDIA architecture (by its generation's name) needs of a build: its compute
    capability, the sm target(s) and the first CUDA toolkit that builds code for it; None when unknown."""
    cc = capability_of(name)
    first = first_cuda_for(cc)
    if cc and first:
        return {"gpu": name, "capability": cc, "sm": "sm_" + cc.replace(".", ""), "first_cuda": first}
    for pattern, sm, caps, first in _GENERATIONS:
        if pattern.search(name or ""):
            return {"gpu": pattern.search(name).group(0), "capability": caps, "sm": sm, "first_cuda": first}
    return None


def needs_newer_cuda(name: str | None, cuda: str | None) -> dict | None:
    """When code built with CUDA `cuda` cannot have been compiled for GPU `name` (its toolkit predates the GPU's
    architecture): what the GPU needs; else None (also when either is unknown)."""
    cc = capability_of(name)
    first = first_cuda_for(cc)
    have = major_minor(cuda)
    if not cc or not first or have is None or have >= major_minor(first):
        return None
    return {"gpu": name, "capability": cc, "sm": "sm_" + cc.replace(".", ""), "first_cuda": first,
            "cuda": f"{have[0]}.{have[1]}"}


# the GPUs users know each generation by, for a sentence that cannot name the user's own GPU
_EXAMPLES = {"Volta": "V100, TITAN V", "Turing": "RTX 20xx, GTX 16xx, T4", "Ampere": "RTX 30xx, A100, A10",
             "Ada": "RTX 40xx, L4, L40", "Hopper": "H100, H200", "Blackwell": "RTX 50xx, B200"}


def first_generation_beyond(cuda: str | None) -> dict | None:
    """The oldest NVIDIA architecture a build made with CUDA `cuda` has no code for (its first CUDA is newer):
    {"generation", "sm", "first_cuda", "examples"}; None when `cuda` is unknown or builds them all."""
    beyond = generations_beyond(cuda)
    return beyond[0] if beyond else None


def generations_beyond(cuda: str | None) -> list:
    """Every NVIDIA architecture a build made with CUDA `cuda` has no code for, oldest first, each as
    first_generation_beyond gives it; [] when `cuda` is unknown or builds them all."""
    have = major_minor(cuda)
    if have is None:
        return []
    out = []
    for pattern, sm, _caps, first in reversed(_GENERATIONS):
        if have < major_minor(first):
            name = re.match(r"\\b(\w+)", pattern.pattern).group(1)
            out.append({"generation": name, "sm": sm, "first_cuda": first, "examples": _EXAMPLES.get(name, "")})
    return out

