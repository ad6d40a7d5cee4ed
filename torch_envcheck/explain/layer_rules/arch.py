"""Layer rule for a GPU the text names (or its architecture) beside a kernel that has no code for it, when the CUDA
the build was made with is not printed: the fix names what that GPU needs of a build.

    gpu_arch_needs  no kernel image / invalid device function / "supports CUDA capabilities ..." and a GPU or an
                    NVIDIA architecture named -> its sm target, the first CUDA that builds it, the torch builds
                    (cuXYZ) made with that CUDA or newer (knowledge.gpu_generations, knowledge.releases)
    ggml_kernel_without_arch  ggml's "has no device code compatible with CUDA arch N" (llama.cpp, whisper.cpp,
                    llama-cpp-python) -> the build's architectures (CMAKE_CUDA_ARCHITECTURES), or a feature the GPU lacks

The GPU's capability and the first CUDA per sm target are a table with its sources (knowledge.gpu_generations);
which torch releases ship a cuXYZ build is torch's release table (knowledge.releases)."""

from __future__ import annotations

import importlib
import re

from torch_envcheck._util.versions import major_minor
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import gpu_generations
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _bare, _cu_tag, _match, _sig

# a kernel without code for the GPU: these codes and sentences say nothing else (an execution failure may be anything)
_NO_CODE_BARES = frozenset({"nokernelimagefordevice", "invaliddevicefunction", "nobinaryforgpu", "invalidkernelimage"})
_NO_CODE_WORDS = re.compile(r"no kernel image (?:is )?available|invalid device function|is not compatible with the current "
                            r"PyTorch installation|supports CUDA capabilities|no binary for GPU")
# torch's warning lists the targets the build has (torch/cuda/__init__.py): a GPU whose target is listed is served
_SUPPORTED_LIST = re.compile(r"supports CUDA capabilities((?: sm_\d{2,3}[af]?)+)")
_GENERATION_WORDS = re.compile(r"\b(?:Blackwell|Hopper|Ada Lovelace|Ampere|Turing|Volta)\b")


def _first_torch(capability: str, tag: str) -> str | None:
    """The oldest torch release with a build of CUDA tag `tag` that serves `capability`, when the release table
    reaches back to that build (else None: the table starts later than the GPU)."""
    try:
        rel = importlib.import_module("torch_envcheck.knowledge.releases")
        found = rel.releases_supporting(capability.split("/")[-1])
    except (ImportError, OSError, ValueError, KeyError):
        return None
    same = [r for r in found if r.get("tag") == tag]
    if not same:
        return None
    return min(same, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r["torch"])[:2]))["torch"]


def _need(ent, tail: str) -> dict | None:
    for g in reversed(ent.gpus):
        need = gpu_generations.requirement_of(g)
        if need:
            return need
    m = last_match(_GENERATION_WORDS, tail)
    return gpu_generations.requirement_of(m.group(0)) if m else None


def gpu_arch_needs(ent, text):
    """A kernel with no code for the GPU, the GPU (or its architecture) named, the build's CUDA not printed: the
    installed build predates the GPU or left its target out, and what it needs is read from the GPU: its sm
    target and a build made with the first CUDA that has it, or newer. The build's own CUDA, when printed, is
    gpu_newer_than_build's; a build whose listed targets include the GPU's is an extension's problem, not this."""
    if ent.platform.get("amd") or ent.versions.get("torch_cuda") or ent.versions.get("cuda"):
        return None
    tail = text[-CONTEXT_TAIL:]
    code = next((c for c in reversed(ent.codes) if c.get("family") in ("cudaError_t", "CUresult")
                 and _bare(c) in _NO_CODE_BARES), None)
    # the first of the sentences: torch's warning names the GPU on its first line and lists the targets on the next,
    # and the fix completes the sentence matched on the first
    words = _NO_CODE_WORDS.search(tail)
    if code is None and words is None:
        return None
    need = _need(ent, tail)
    listed = last_match(_SUPPORTED_LIST, tail)
    if need is None or (listed and any(a in listed.group(1).split() for a in need["sm"].split("/"))):
        return None
    at = code["at"] if code is not None else len(text) - len(tail) + words.start()
    tag = _cu_tag(need["first_cuda"])
    first_torch = _first_torch(need["capability"], tag)
    values = dict(need, cu_tag=tag, first_torch=first_torch)
    sig = _sig("gpu-arch-needs-cuda", "arch", "{gpu} ({sm}) needs a build made with CUDA {first_cuda} or newer", 72,
               "{gpu} is compute capability {capability} ({sm}). CUDA toolkits before {first_cuda} cannot compile for "
               "it, so a build made with an older CUDA (torch, or an extension) has no code that runs on it; a build "
               "made with a newer CUDA may still leave {sm} out of its architecture list.",
               fix="{gpu} ({sm}) needs code built with CUDA {first_cuda} or newer: install a torch build made with "
                   "CUDA {first_cuda}+ (a {cu_tag} or newer cuXYZ wheel, https://pytorch.org/get-started/locally/; the "
                   "first torch release with {cu_tag} wheels for it: {first_torch|see the previous-versions page}), check that `torch.cuda.get_arch_list()` lists {sm}, and rebuild any extension that fails "
                   "with a CUDA {first_cuda}+ toolkit and TORCH_CUDA_ARCH_LIST including {capability}.",
               causes=(("arch", "the installed build has no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu", "torch"), generic=True,
               sources=({"url": "https://developer.nvidia.com/cuda-gpus", "what": "compute capability of each NVIDIA GPU"},
                        {"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                         "what": "the CUDA release that added each sm_XY target"}, SOURCES["torch_index"]))
    return _match(sig, text, at, values)


# a compiler refusing a target: nvcc's and NVRTC's words, and the target the command line asked for
_COMPILER_REFUSES = re.compile(r"invalid value for --gpu-architecture|Unsupported gpu architecture|"
                               r"Value '(?:sm|compute)_\d{2,3}[af]?' is not defined for option 'gpu-architecture'")
_ASKED_TARGET = re.compile(r"(?:-arch[= ]|--gpu-architecture[= ]|gpu architecture '|Value ')(?:sm|compute)_(?P<cc>\d{2,3})")


def arch_vs_toolkit(ent, text):
    """nvcc or NVRTC refusing a GPU target, with the toolkit's CUDA printed and the target known (asked on the
    command line, or the GPU named): the toolkit predates the target (it needs the first CUDA that has it) or
    postdates it (the target was dropped: the last CUDA that has it, or a newer GPU). Either way the versions say
    which, and the fix names them."""
    tail = text[-CONTEXT_TAIL:]
    refuses = _COMPILER_REFUSES.search(tail)
    if refuses is None or ent.platform.get("amd"):
        return None
    v = ent.versions
    cuda = v.get("nvcc") or v.get("torch_cuda") or v.get("cuda") or v.get("driver_cuda")
    have = major_minor(cuda)
    if have is None:
        return None
    asked = last_match(_ASKED_TARGET, tail)
    if asked is not None:
        cc = f"{asked.group('cc')[:-1]}.{asked.group('cc')[-1]}"
        gpu = f"compute_{asked.group('cc')}"
    else:
        need = _need(ent, tail)
        if need is None or "/" in need["capability"]:
            return None
        cc, gpu = need["capability"], need["gpu"]
    first, last = gpu_generations.first_cuda_for(cc), gpu_generations.last_cuda_for(cc)
    sm = "sm_" + cc.replace(".", "")
    values = {"gpu": gpu, "capability": cc, "sm": sm, "cuda": f"{have[0]}.{have[1]}"}
    if first and have < major_minor(first):
        values["first_cuda"] = first
        fix = ("{gpu} (compute capability {capability}, {sm}) is newer than CUDA {cuda}, the toolkit that compiles here: "
               "its compiler has no name for it. Use CUDA {first_cuda} or newer (the toolkit, and the package's build "
               "made with it: a newer CuPy / torch wheel for that CUDA).")
        title = "CUDA {cuda} predates {sm}: it needs CUDA {first_cuda} or newer"
    elif last and have > major_minor(last):
        values["last_cuda"] = last
        fix = ("CUDA {cuda} no longer compiles for compute capability {capability} ({gpu}): that target is not "
               "supported after CUDA {last_cuda}, the GPU is too old for this toolkit. Use CUDA {last_cuda} or older with "
               "this GPU (the toolkit and a build of the package made with it), or a newer GPU.")
        title = "{sm} is not supported after CUDA {last_cuda}; the toolkit here is CUDA {cuda}"
    else:
        return None
    sig = _sig("arch-vs-toolkit", "arch", title, 69,
               "The compiler of CUDA {cuda} (nvcc, or NVRTC at run time) refused the target {sm}: the CUDA releases "
               "that build it are known (the toolkit release notes), and {cuda} is not one of them.",
               fix=fix, causes=(("arch", "the toolkit and the GPU target do not overlap", ("TE602",)),),
               areas=("gpu", "toolchain"), generic=True,
               sources=({"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                         "what": "the CUDA release that added each sm_XY target and the one that removed it"},
                        {"url": "https://developer.nvidia.com/cuda-gpus", "what": "compute capability of each NVIDIA GPU"}))
    return _match(sig, text, len(text) - len(tail) + refuses.start(), values)


# ggml's no_device_code() (ggml/src/ggml-cuda/common.cuh): "ERROR: CUDA kernel <k> has no device code compatible with
# CUDA arch <__CUDA_ARCH__>. ggml-cuda.cu was compiled for: <list>"; HIP builds print "HIP arch" and no list
_GGML_NO_DEVICE_CODE = re.compile(r"(?:(?:CUDA|HIP) kernel )?(?P<kernel>\w{1,80}) has no device code compatible with "
                                  r"(?P<api>CUDA|HIP) arch (?P<arch>\d{3,4})\.?(?:\s{0,4}ggml-cuda\.cu was compiled for:\s{0,2}"
                                  r"(?P<built>\d{2,4}(?:[ ,;]{1,3}\d{2,4}){0,20}))?")


def ggml_kernel_without_arch(ent, text):
    """ggml (llama.cpp, whisper.cpp and their Python bindings) stops a kernel whose code for the architecture
    running it was compiled out.  The architecture printed is the code's (__CUDA_ARCH__): below the GPU's, the build
    did not include the GPU's own (a build made where nvcc fell back to its default, sm_52), so rebuild for it; equal
    to the GPU's, the kernel needs a newer GPU than this one, so the feature that selects it must be turned off."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_GGML_NO_DEVICE_CODE, tail) if "has no device code" in tail else None
    if m is None:
        return None
    arch = int(m.group("arch"))
    built = m.group("built")
    hip = m.group("api") == "HIP"
    sm = f"sm_{arch // 10}" if not hip else f"gfx{arch}"
    sig = _sig("ggml-kernel-without-arch", "arch" if not hip else "rocm",
               "ggml's {kernel} has no code for {sm} (compiled for: {built|the build's architectures})", 86,
               "ggml compiles each CUDA kernel for the architectures given when it was built "
               "({built|its list}), and {kernel} has no code for {sm}, the one running. If {sm} is older than the "
               "GPU (a build made without the GPU's architecture runs the oldest code through the driver's JIT, "
               "typically sm_52, nvcc's default when CMake cannot detect a GPU), the build lacks the GPU's "
               "architecture; if {sm} is the GPU's own, this kernel needs a newer GPU.",
               fix="Rebuild for this GPU's architecture (`nvidia-smi --query-gpu=compute_cap --format=csv` gives it, "
                   "8.6 -> 86): llama.cpp / whisper.cpp `cmake -B build -DGGML_CUDA=ON "
                   "-DCMAKE_CUDA_ARCHITECTURES=native` (or the number, e.g. 86); llama-cpp-python `CMAKE_ARGS=\"-DGGML_CUDA=on "
                   "-DCMAKE_CUDA_ARCHITECTURES=native\" pip install --no-cache-dir --force-reinstall "
                   "llama-cpp-python`. If {sm} is already the GPU's architecture, turn off the feature that needs a "
                   "newer GPU (e.g. flash attention: `-fa off`) or use a GPU of a newer generation.",
               causes=(), areas=("extension",),
               sources=({"url": "https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md",
                         "what": "llama.cpp's CUDA build: GGML_CUDA and CMAKE_CUDA_ARCHITECTURES"},
                        {"url": "https://cmake.org/cmake/help/latest/variable/CMAKE_CUDA_ARCHITECTURES.html",
                         "what": "CMAKE_CUDA_ARCHITECTURES: the architectures a CUDA build compiles for (native)"}))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"kernel": m.group("kernel"), "sm": sm, "built": re.sub(r"\s+", " ", built).strip() if built else None})


# torch's own capability warnings (torch/cuda/__init__.py: _check_capability, _warn_unsupported_code, _check_cubins):
# the GPU's capability, the build's range or target list, and the CUDA builds torch itself suggests
_FOUND_CC = re.compile(r"which is of (?:cuda |compute )?capability(?: \(CC\))? (?P<cc>\d{1,2}\.\d)")
_SM_NOT_COMPATIBLE = re.compile(r"with CUDA capability sm_(?P<sm>\d{2,3}) is not compatible")
_MIN_MAX = re.compile(r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s{0,8}"
                      r"\((?P<lo>\d{1,2}\.\d)\)\s{0,4}-\s{0,4}\((?P<hi>\d{1,2}\.\d)\)")
_TORCH_SUGGESTS = re.compile(r"Please install PyTorch with a following CUDA\s{1,12}configurations?:\s{1,8}"
                             r"(?P<cudas>\d{1,2}\.\d(?:[ ,]{1,4}\d{1,2}\.\d){0,5})|For CUDA (?P<cuda>\d{1,2}\.\d) use pip "
                             r"install torch==")
_TORCH_PLUS_TAG = re.compile(r"(?P<ver>\d{1,2}\.\d{1,3}\.\d{1,3})\+(?P<tag>cu\d{3})\b")
_OLDER_WORDS = re.compile(r"no kernel image (?:is )?available|invalid device function|is not compatible with the current "
                          r"PyTorch installation|does not include kernels for this GPU|Minimum and Maximum cuda capability|"
                          r"No published PyTorch CUDA builds for release|which is of compute capability \(CC\)")
# _warn_unsupported_code's list (torch 2.11 and later): one line per target the build has, with the capabilities that
# target's code runs on ("- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}")
_TARGET_LINE = re.compile(r"^[ \t]{0,8}-[ \t]{0,2}(?P<cc>\d{1,2}\.\d) which supports hardware CC\s{0,2}>=\s{0,2}(?P<lo>\d{1,2}\.\d)"
                          r"\s{0,2},\s{0,2}<\s{0,2}(?P<hi>\d{1,2}\.\d)(?:\s{1,4}except\s{1,4}\{(?P<ex>[\d., ]{1,40})\})?", re.M)


def _cc(v: str) -> tuple:
    a, _, b = v.partition(".")
    return int(a), int(b or 0)


def _gpu_capability(ent, tail: str) -> tuple:
    """(capability, GPU name): torch's warning's own number first, then the GPU's name read through the table."""
    name = ent.gpus[-1] if ent.gpus else None
    m = last_match(_FOUND_CC, tail)
    if m:
        return m.group("cc"), name
    m = last_match(_SM_NOT_COMPATIBLE, tail)
    if m:
        return f"{m.group('sm')[:-1]}.{m.group('sm')[-1]}", name
    for g in reversed(ent.gpus):
        cc = gpu_generations.capability_of(g)
        if cc:
            return cc, g
    return None, name


def _target_lines(tail: str) -> list:
    """torch's target list, one (target, lowest served, first not served, excepted) of capabilities per line."""
    return [(_cc(t.group("cc")), _cc(t.group("lo")), _cc(t.group("hi")),
             {_cc(x) for x in re.findall(r"\d{1,2}\.\d", t.group("ex") or "")}) for t in _TARGET_LINE.finditer(tail)]


def _native_windows(ent) -> bool:
    return bool(ent.platform.get("windows") and not ent.platform.get("wsl"))


def _build_targets(ent, tail: str) -> tuple:
    """(lowest capability the build has code for, where that was read): the text's target list or range first, then
    the release table's arch list for the torch+cuXYZ the text prints."""
    listed = last_match(_SUPPORTED_LIST, tail)
    if listed:
        caps = [_cc(f"{s[3:-1]}.{s[-1]}") for s in re.findall(r"sm_\d{2,3}", listed.group(1))]
        if caps:
            return min(caps), "listed"
    lines = _target_lines(tail)
    if lines:
        return min(t[0] for t in lines), "listed"
    m = last_match(_MIN_MAX, tail)
    if m:
        return _cc(m.group("lo")), "range"
    t = last_match(_TORCH_PLUS_TAG, ent.versions.get("torch") or "")
    if t is None:
        return None, None
    try:
        rel = importlib.import_module("torch_envcheck.knowledge.releases")
        arch = rel.wheel_arch_list(t.group("ver"), t.group("tag"),
                                   "Windows" if _native_windows(ent) else "Linux")
    except (ImportError, OSError, ValueError, KeyError):
        return None, None
    caps = [_cc(f"{n[:-1]}.{n[-1]}") for n in (re.fullmatch(r"(?:sm|compute)_(\d{2,3})[af]?", a) for a in arch or ())
            for n in ([n.group(1)] if n else [])]
    return (min(caps), "table") if caps else (None, None)


def _serving_build(ent, tail: str, capability: str, installed: str | None, oldest_cuda: bool = False) -> dict | None:
    """The build to install: the installed release's own build with code for the GPU (the CUDA torch's warning
    suggests first, taken only where the release table has it), else the newest release that has one; within the
    release the newest CUDA that serves the GPU, or with oldest_cuda the oldest (a GPU newer than the build: the one
    that asks least of the driver)."""
    suggested = []
    for m in _TORCH_SUGGESTS.finditer(tail):
        suggested += re.findall(r"\d{1,2}\.\d", m.group("cudas") or m.group("cuda") or "")
    try:
        rel = importlib.import_module("torch_envcheck.knowledge.releases")
        found = rel.releases_supporting(capability, "Windows" if _native_windows(ent) else "Linux")
    except (ImportError, OSError, ValueError, KeyError):
        return None
    found = [f for f in found if f.get("via") == "sass"] or found
    if not found:
        return None
    mm = ".".join((installed or "").split(".")[:2])
    same = [f for f in found if f["torch"] == mm]
    pool = same or found
    for cuda in suggested:
        hit = next((f for f in pool if f["cuda"] == cuda), None)
        if hit:
            return hit
    newest = pool[0]["torch"]
    within = [f for f in pool if f["torch"] == newest]
    return within[-1] if oldest_cuda else within[0]


def _pick_values(pick: dict, installed) -> dict:
    """The values a fix names for the build picked: its tag, release and index, and the pip spec (the installed
    version with the new tag when the release is the installed one, else the release's newest patch)."""
    same = installed is not None and pick["torch"] == ".".join(installed.group("ver").split(".")[:2])
    return {"tag": pick["tag"], "release": pick["torch"], "index": pick["index_url"],
            "spec": f"torch=={installed.group('ver')}+{pick['tag']}" if same else f"torch=={pick['torch']}.*"}


def gpu_older_than_build(ent, text):
    """A kernel with no code for the GPU where the GPU is older than the lowest target the installed torch build
    has (its warning's list or range, or the release table's arch list for the +cuXYZ printed): newer CUDA builds of
    recent releases dropped older architectures (cu128 dropped sm_50-sm_61 in 2.8 and sm_70 in 2.11), while the
    same release's older-CUDA build (cu126) still has them. The fix names that build from the release table."""
    if ent.platform.get("amd"):
        return None
    tail = text[-CONTEXT_TAIL:]
    code = next((c for c in reversed(ent.codes) if c.get("family") in ("cudaError_t", "CUresult")
                 and _bare(c) in _NO_CODE_BARES), None)
    words = _OLDER_WORDS.search(tail)
    if code is None and words is None:
        return None
    cc, gpu = _gpu_capability(ent, tail)
    if cc is None:
        return None
    lowest, _how = _build_targets(ent, tail)
    have = _cc(cc)
    if lowest is None or have >= lowest:
        return None
    installed = ent.versions.get("torch") or ""
    plus = last_match(_TORCH_PLUS_TAG, installed)
    pick = _serving_build(ent, tail, cc, plus.group("ver") if plus else installed)
    at = code["at"] if code is not None else len(text) - len(tail) + words.start()
    values = {"gpu": gpu or "this GPU", "capability": cc, "sm": "sm_" + cc.replace(".", ""),
              "lowest": f"{lowest[0]}.{lowest[1]}", "installed": installed or None}
    sources = ({"url": "https://developer.nvidia.com/cuda-gpus", "what": "compute capability of each NVIDIA GPU"},
               {"url": "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
                "what": "the CUDA builds of each torch release"}, SOURCES["torch_index"])
    if pick is None:
        fix = ("No torch build in the release table has code for {gpu} (compute capability {capability}): build torch "
               "from source with TORCH_CUDA_ARCH_LIST={capability} and a CUDA toolkit that still compiles {sm}, or use "
               "a GPU of compute capability {lowest} or newer.")
    else:
        values.update(_pick_values(pick, plus))
        fix = ("{gpu} (compute capability {capability}, {sm}) is older than every target of the installed build (the "
               "lowest is {lowest}): the newer-CUDA wheels of recent torch releases dropped it, while the {tag} build of "
               "torch {release} still has code for it. Replace the build: `pip uninstall -y torch` then `pip install "
               "{spec} --index-url {index}` (torchvision and torchaudio, if installed, from the same index), and "
               "check `python -c \"import torch; print(torch.cuda.get_arch_list())\"` lists {sm}; or use a GPU of "
               "compute capability {lowest} or newer.")
    sig = _sig("gpu-older-than-build", "arch", "{gpu} ({sm}) is older than every target of the installed torch build",
               91, "{gpu} has compute capability {capability}, and the installed torch build's lowest target is "
               "{lowest}: it carries no code that runs on this GPU. torch's wheels made with newer CUDA versions "
               "leave older architectures out (the toolkit or the wheel size), while an older-CUDA build of the "
               "same release may still have them.",
               fix=fix, causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu", "torch"), sources=sources)
    return _match(sig, text, at, values)


_BINARY_COMPAT = {"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility",
                  "what": "a cubin for compute capability X.y runs on devices of capability X.z with z >= y"}


def gpu_beyond_build_targets(ent, text):
    """torch's capability warning for a GPU newer than the build's targets: its list (torch 2.11 and later) or its
    range (earlier releases). A GPU of a newer major capability than every target has no code in the build: the fix
    is a build that has it (torch's own suggestion, taken only where the release table confirms the build serves the
    GPU). A GPU of the same major as the range's highest target, just above it (sm_121 beside sm_120), runs that
    target's code by CUDA's binary compatibility: the older range check warns, and nothing needs to change. Jetson
    boards (their own builds) and GPUs older than the build (gpu_older_than_build) are left to others."""
    if ent.platform.get("amd"):
        return None
    tail = text[-CONTEXT_TAIL:]
    found = last_match(_FOUND_CC, tail)
    if found is None:
        return None
    cc = found.group("cc")
    have = _cc(cc)
    gpu = ent.gpus[-1] if ent.gpus else None
    if have in ((7, 2), (8, 7)) or re.search(r"(?i)\b(?:Orin|Xavier|Jetson|Thor)\b", gpu or ""):
        return None
    lines = _target_lines(tail)
    listed = [t[0] for t in lines]
    rng = last_match(_MIN_MAX, tail)
    if listed:
        if any(lo <= have < hi and have not in excepted for _t, lo, hi, excepted in lines):
            return None  # a listed target's code runs on this GPU
        lowest, highest = min(listed), max(listed)
    elif rng is not None:
        lowest, highest = _cc(rng.group("lo")), _cc(rng.group("hi"))
    else:
        return None
    if have < lowest or (not listed and have <= highest):
        return None
    at = len(text) - len(tail) + found.start()
    values = {"gpu": gpu or "this GPU", "capability": cc, "sm": "sm_" + cc.replace(".", ""),
              "highest": f"{highest[0]}.{highest[1]}"}
    if not listed and have[0] == highest[0] and have > highest:
        if _NO_CODE_WORDS.search(tail, found.end()):
            return None  # a kernel failed after the warning: that kernel's build is the question, not the range check
        sig = _sig("gpu-within-family-of-build", "not-environment",
                   "{gpu} ({sm}) runs the build's compute capability {highest} code: the warning is a range check", 72,
                   "torch compares the GPU's capability ({capability}) with the range of its build's targets (up to "
                   "{highest}) and warns outside it. CUDA runs code compiled for capability X.y on any GPU of "
                   "capability X.z with z >= y, so the build's {highest} code runs on this GPU; newer torch releases "
                   "check it that way and do not warn.",
                   look_at="Nothing needs to change for this warning: check that work runs on the GPU (`python -c "
                           "\"import torch; print(torch.ones(2, device='cuda') * 2)\"`). If a kernel fails with \"no "
                           "kernel image is available\", that kernel (an extension, a library) was built without code "
                           "for capability {highest} or PTX: rebuild it for {sm}.",
                   areas=("gpu", "torch"), sources=(_TORCH_CUDA_INIT, _BINARY_COMPAT))
        return _match(sig, text, at, values)
    if have[0] <= highest[0]:
        return None
    installed = last_match(_TORCH_PLUS_TAG, tail) or last_match(_TORCH_PLUS_TAG, ent.versions.get("torch") or "")
    pick = _serving_build(ent, tail, cc, installed.group("ver") if installed else None, oldest_cuda=True)
    first = gpu_generations.first_cuda_for(cc)
    if pick is None:
        fix = ("No torch build in the release table has code for {gpu} (compute capability {capability}): install "
               "the newest torch from a CUDA " + (first or "newer") + " or newer index that pytorch.org's selector "
               "lists, and check `python -c \"import torch; print(torch.cuda.get_arch_list())\"` lists {sm}.")
    else:
        values.update(_pick_values(pick, installed))
        fix = ("{gpu} (compute capability {capability}, {sm}) is newer than every target of the installed build (the "
               "highest is {highest}); the {tag} build of torch {release} has code for it. Replace the build: `pip "
               "uninstall -y torch` then `pip install {spec} --index-url {index}` (torchvision and torchaudio, if "
               "installed, from the same index), check that the driver supports CUDA " + pick["cuda"] + " "
               "(`nvidia-smi`), and that `python -c \"import torch; print(torch.cuda.get_arch_list())\"` lists {sm}.")
    sig = _sig("gpu-newer-than-build-targets", "arch", "{gpu} ({sm}) is newer than every target of the installed torch "
               "build", 90, "{gpu} has compute capability {capability}, and the installed torch build's newest target is "
               "{highest}: code for an older major architecture does not run on it" +
               (f" (sm_{cc.replace('.', '')} arrived with CUDA {first})" if first else "") + ".",
               fix=fix, causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu", "torch"), sources=(_TORCH_CUDA_INIT, {"url": "https://developer.nvidia.com/cuda-gpus",
                                                                   "what": "compute capability of each NVIDIA GPU"},
                                                SOURCES["torch_index"]))
    return _match(sig, text, at, values)


# torch/cuda/__init__.py's incompatible-device warning, when its first line (the GPU's sm, the catalogue's sentence) is
# not in the text: its second line names the GPU ("If you want to use the <name> GPU with PyTorch, please check the
# instructions at https://pytorch.org/get-started/locally/"), and another names the build's arch list ("The current
# PyTorch install supports CUDA capabilities sm_50 ... sm_90.")
_TORCH_GPU_WARN = re.compile(r"If you want to use the (?P<gpu>[^\n]{2,80}?) GPU with PyTorch, please check the instructions")
_TORCH_ARCH_LIST = re.compile(r"The current PyTorch install supports CUDA capabilities (?P<list>(?:sm_\d{2,3}[a-z]?[ ,]{0,2}){1,24})")
_TORCH_CUDA_INIT = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py",
                    "what": "_check_capability: incompatible_device_warn, the build's arch list against the GPU's"}


def torch_arch_list_without_gpu(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "PyTorch" not in tail:
        return None
    g = last_match(_TORCH_GPU_WARN, tail)
    a = last_match(_TORCH_ARCH_LIST, tail)
    if g is None and a is None:
        return None
    sms = sorted({int(x) for x in re.findall(r"sm_(\d{2,3})", a.group("list"))}) if a else []
    gpu = g.group("gpu").strip() if g else None
    # the GPU named in the warning, or elsewhere in the text (a title, nvidia-smi)
    need = gpu_generations.requirement_of(gpu) if gpu else _need(ent, tail)
    if need and gpu is None:
        gpu = need["gpu"]
    if need and sms and any(int(x[3:]) in sms for x in need["sm"].split("/")):
        return None  # the build lists the GPU's target: whatever failed, the GPU is served (an extension's question)
    listed = " ".join(f"sm_{x}" for x in sms)
    if need:
        tag = _cu_tag(need["first_cuda"])
        fix = ("Install a torch build whose arch list includes " + need["sm"] + " ({gpu} is compute capability " +
               need["capability"] + "): a build for CUDA " + need["first_cuda"] + " or newer, `pip install torch "
               "--index-url https://download.pytorch.org/whl/" + tag + "` or a newer cuXYZ that pytorch.org's selector "
               "and your driver allow; check with `python -c \"import torch; print(torch.cuda.get_arch_list())\"`.")
    else:
        # every generation, oldest first: the first one past the list's newest target
        nxt = next((gen for gen in gpu_generations.generations_beyond("0.0")
                    if sms and int(gen["sm"].split("/")[0][3:]) > sms[-1]), None)
        fix = ("The GPU is not among the architectures this torch was built for" +
               (f" (its newest: sm_{sms[-1]})" if sms else "") + ". A GPU newer than them " +
               (f"({nxt['generation']}: {nxt['sm']}, {nxt['examples']}) needs a build for CUDA {nxt['first_cuda']} or "
                f"newer: `pip install torch --index-url https://download.pytorch.org/whl/{_cu_tag(nxt['first_cuda'])}`"
                if nxt is not None else "needs a build for a newer CUDA") +
               "; a GPU older than its oldest needs an older torch release or a build for an older CUDA. Check with "
               "`nvidia-smi --query-gpu=name,compute_cap --format=csv` and `python -c \"import torch; "
               "print(torch.cuda.get_arch_list())\"`.")
    sig = _sig("torch-arch-list-without-gpu", "arch",
               "this torch build has no kernels for the GPU" + (" ({gpu})" if gpu else ""), 83,
               "torch warns when the GPU's architecture is not in the list the build was compiled for" +
               (f" ({listed})" if sms else "") + ": its kernels cannot run on that GPU, and CUDA calls then fail with "
               "\"no kernel image is available\".",
               fix=fix, causes=(("arch-missing", "the installed torch's arch list lacks the GPU's", ("TE401",)),),
               areas=("gpu", "torch"), sources=(_TORCH_CUDA_INIT, SOURCES["torch_index"]))
    at = len(text) - len(tail) + (g or a).start()
    return _match(sig, text, at, {"gpu": gpu})


# candle's kernel build (candle-kernels/build.rs) asks nvcc --list-gpu-code for the targets it can build and stops when
# the GPU's (or CUDA_COMPUTE_CAP's) is not among them: the toolkit predates the architecture
_NVCC_CANNOT_TARGET = re.compile(r"nvcc cannot target gpu arch (?P<arch>\d{2,3})\.? Available nvcc targets are "
                                 r"\[(?P<list>[\d, ]{2,200})\]")
_CANDLE = {"url": "https://github.com/huggingface/candle#faq",
           "what": "candle's CUDA kernels: built for CUDA_COMPUTE_CAP (or the GPU's), by the nvcc on PATH"}


def nvcc_cannot_target_arch(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NVCC_CANNOT_TARGET, tail)
    if m is None:
        return None
    arch = m.group("arch")
    cap = f"{arch[:-1]}.{arch[-1]}"
    first = gpu_generations.first_cuda_for(cap)
    sig = _sig("nvcc-cannot-target-arch", "arch", "this nvcc cannot build for sm_{arch} (compute capability {cap})", 84,
               "The build compiles its CUDA kernels for the GPU's architecture, sm_{arch}, and the nvcc on PATH lists only "
               "older targets ({list}): its CUDA toolkit predates the GPU" +
               (f" (sm_{arch} arrived with CUDA {first})" if first else "") + ".",
               fix=("Install CUDA " + first + " or newer and put its nvcc first on PATH (CUDA_HOME / CUDA_PATH too), then "
                    "build again" if first else "Install a CUDA toolkit whose nvcc lists sm_{arch} and build again") +
                   "; or build for a target this nvcc has that the GPU runs (CUDA_COMPUTE_CAP for candle), at the cost of "
                   "the GPU's newer features.",
               areas=("toolchain",), sources=(_CANDLE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"arch": arch, "cap": cap, "list": m.group("list").strip()})
