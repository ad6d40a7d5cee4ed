"""Layer rules for what the installed torch release has or lacks, read from the text: a package that asks for a
newer torch, a `torch` name the release does not have (or a `torch` that is not the package at all), torch 2.6's
default of torch.load(weights_only=True), torch.compile on a Windows torch that refuses it.

    package_needs_newer_torch  "X requires torch>=A but found B", "upgrade torch to at least vA"
                     -> torch >= A from the index of the CUDA build in use, or the release of X made for B
    torch_attribute_missing  "module 'torch' has no attribute 'X'"
                     -> a local torch.py / leftover folder (partially initialised, or a core name missing), the calling
                        package older than torch (a private _name), or torch older than the code (a public name)
    torch_load_weights_only  torch >= 2.6's weights-only unpickler refusing a checkpoint -> the program's torch.load
                     call (weights_only=False for a trusted file, or add_safe_globals): not-environment
    compile_refused_on_windows  "Windows not yet supported for torch.compile / inductor" -> eager, WSL 2, a torch
                     whose inductor runs on Windows
    torch_cuda_older_than_gpu  the 0.x start-up warning "Found GPU0 X which requires CUDA_VERSION >= N ... compiled with
                     CUDA_VERSION M" -> torch-build: a build of a newer CUDA
    build_without_device_type  c10's "PyTorch is not linked with support for X devices" -> torch-build: the installed
                     build (the Python wheel, a LibTorch, R torch's) has no backend for X: its build with X"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _match, _sig, last_in_tail

_VER = r"v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
# a package's own check of torch's version, in the words packages use (transformers' check_torch_load_is_safe in
# src/transformers/utils/import_utils.py, huggingface/transformers; diffusers', accelerate's and others' version
# checks): the floor and, where printed, the torch found
_NEEDS_TORCH = re.compile(r"(?i)(?:\b(?P<pkg>[A-Za-z][\w.-]{1,40})\s(?:requires|needs)\s|\brequires?\s(?:users\s)?to\s"
                          r"upgrade\s|\bplease\s(?:upgrade|update)\s(?:your\s)?)(?:torch|PyTorch)(?:\sversion)?\s?(?:to\s)?"
                          r"(?:>=|≥|at\sleast|of\sat\sleast|version\s>=|v(?=\d))\s?" + _VER.replace("(", "(?P<need>", 1))
_HAVE_TORCH = re.compile(r"(?i)(?:but\s|,\s)?(?:found|you\shave|got|installed|current(?:ly)?)[^\n\d]{0,30}?"
                         + _VER.replace("(", "(?P<have>", 1))
# a package's name that is not a package: the words before "requires" in a sentence
_NOT_A_PACKAGE = frozenset({"this", "it", "which", "that", "function", "feature", "model", "code", "script", "module",
                            "operation", "also", "now", "users", "version", "and", "library", "package"})


# distributions whose wheels hold C++/CUDA extensions compiled against one torch release: their floor is their build's
# torch, and the first fix is their release for the installed torch (the toolchain layer: a build for another torch)
_BUILT_AGAINST_TORCH = frozenset({"xformers", "flash-attn", "flash_attn", "flashattention", "torchvision", "torchaudio",
                                  "mmcv", "mmcv-full", "apex", "pytorch3d", "detectron2", "torch-scatter", "torch_scatter",
                                  "torch-sparse", "torch_sparse", "torch-cluster", "torch_cluster", "spconv", "vllm",
                                  "auto-gptq", "auto_gptq", "mamba-ssm", "mamba_ssm", "causal-conv1d", "sageattention",
                                  "torchao", "fbgemm-gpu", "fbgemm_gpu", "dgl", "natten"})


_BUILD_TAG = re.compile(r"\+(cu\d{2,3}|rocm\d{1,2}(?:\.\d{1,2}){0,2})\b")


def _vt(v: str) -> tuple:
    return tuple(int(p) for p in v.split("."))


_NEWER_TORCH_FIX = ("Upgrade torch to {{need}} or newer from the index of the CUDA build you use, with the torchvision / "
                    "torchaudio of that release (e.g. `pip install --upgrade \"torch>={{need}}\" torchvision torchaudio "
                    "--index-url https://download.pytorch.org/whl/{index}); or keep torch and install the release of "
                    "{{pkg|the package}} that still supports it. Where the check is torch.load's (CVE-2025-32434), "
                    "weights in safetensors format load without it.")


def package_needs_newer_torch(ent, text):
    """A package's own version check asking for a newer torch than the one found: torch at that floor, installed
    from the index of the CUDA build in use (so CUDA stays), or the release of the package made for this torch.
    A floor the torch found already meets is not this (the text then says something else)."""
    m, at = last_in_tail(_NEEDS_TORCH, text)
    if m is None:
        return None
    need = m.group("need")
    have_m = _HAVE_TORCH.search(text, m.end(), m.end() + 160)
    have = have_m.group("have") if have_m else None
    # the build tag after the version found (2.1.2+cu121): the index to upgrade from, so CUDA stays
    tag_m = _BUILD_TAG.match(text, have_m.end(), have_m.end() + 16) if have_m else None
    if have is not None and _vt(have)[:2] >= _vt(need)[:2]:
        return None
    pkg = m.group("pkg")
    pkg = pkg if pkg and pkg.lower() not in _NOT_A_PACKAGE else None
    compiled = pkg is not None and pkg.lower() in _BUILT_AGAINST_TORCH
    if compiled:
        sig = _sig("compiled-package-needs-newer-torch", "toolchain", "{pkg} (built against torch) needs torch {need} or "
                   "newer (installed: {have|older})", 70,
                   "{pkg} ships C++/CUDA code compiled against one torch release; the installed {pkg} was built for "
                   "torch {need} or newer, and the torch here is older.",
                   fix="Install the release of {pkg} built for the installed torch (its compatibility table or release "
                       "notes name the torch each release was built for; from the same index as torch, e.g. "
                       "`pip install \"{pkg}==<the version for your torch>\" --index-url "
                       "https://download.pytorch.org/whl/cuXYZ` where the package is published there); or upgrade torch "
                       "to {need}+ within its CUDA build together with {pkg}'s matching release.",
                   causes=(("ext-build", "a compiled package built for another torch", ()),), areas=("torch", "toolchain"),
                   sources=(SOURCES["ext"], SOURCES["torch_index"]))
        return _match(sig, text, at, {"need": need, "pkg": pkg, "have": have})
    sig = _sig("package-needs-newer-torch", "torch-build",
               "{pkg|a package} needs torch {need} or newer (installed: {have|older})", 70,
               "The package checks torch's version and stops: it uses what torch {need} added (or, for torch.load, "
               "what torch {need} fixed), and the installed torch is older. Upgrading torch within its CUDA build, or "
               "installing the package's release made for the installed torch, both fix it.",
               fix=_NEWER_TORCH_FIX.format(index="{tag}`, the build installed now" if tag_m else
                                           "cu126`; check the cuXYZ your driver supports at "
                                           "https://pytorch.org/get-started/locally/"),
               causes=(("torch-version", "the installed torch is older than a package requires", ()),),
               areas=("torch",),
               sources=(SOURCES["torch_index"],
                        {"url": "https://nvd.nist.gov/vuln/detail/CVE-2025-32434",
                         "what": "torch.load with weights_only=True is unsafe before torch 2.6"},
                        {"url": "https://github.com/huggingface/transformers/pull/37785",
                         "what": "transformers requires torch >= 2.6 to call torch.load"}))
    values = {"need": need, "pkg": pkg, "tag": tag_m.group(1) if tag_m else None}
    if have:
        values["have"] = have
    return _match(sig, text, at, values)


_NO_ATTR = re.compile(r"(?P<partial>partially initialized )?module '?(?P<mod>torch(?:\.\w+){0,4})'? has no attribute "
                      r"'?(?P<attr>\w{1,80})'?")
# names every torch since 1.0 has at its top level: missing, the module is not the package
_CORE_NAMES = frozenset({"cuda", "nn", "Tensor", "tensor", "zeros", "ones", "float32", "float16", "__version__",
                         "version", "device", "randn", "rand", "from_numpy", "no_grad", "load", "save", "utils",
                         "backends", "optim", "manual_seed", "cat", "stack", "float", "long", "is_tensor", "jit",
                         "autograd", "distributed", "FloatTensor", "LongTensor", "set_grad_enabled", "empty", "arange"})
# torch.distributed's API in every build with distributed support since 1.0 (torch/distributed/distributed_c10d.py),
# and the C functions that register it: missing, the build has no distributed package (is_available() is False)
_DISTRIBUTED_CORE = frozenset({"init_process_group", "destroy_process_group", "get_rank", "get_world_size",
                               "is_initialized", "barrier", "all_reduce", "all_gather", "broadcast", "reduce",
                               "gather", "scatter", "send", "recv", "isend", "irecv", "new_group", "get_backend",
                               "Backend", "ReduceOp", "group", "is_nccl_available", "is_mpi_available"})
_C10D_INIT = frozenset({"_c10d_init", "_distributed_c10d", "_rpc_init", "_dist_autograd_init"})
_SHADOW_FIX = ("Something named torch is imported instead of the installed package: a file torch.py (or a folder "
               "torch/) in the working directory or on sys.path, often the script itself. Find it with `python -c "
               "\"import torch; print(torch.__file__)\"` (it should end in site-packages/torch/__init__.py); rename it "
               "and delete its __pycache__; where the path is site-packages/torch but the name is still missing, a "
               "failed uninstall left a torch folder without its code: remove that folder and install torch again "
               "(the build for your CUDA, https://pytorch.org/get-started/locally/).")
_OLDER_CALLER_FIX = ("{mod}.{attr} is a private name the installed torch no longer has: the calling package was "
                     "written for an older torch. Upgrade that package (the frame above the error names it) to a "
                     "release made for this torch, or use the torch release it was made for.")
_OLDER_TORCH_FIX = ("The installed torch has no {mod}.{attr}: the code (or a package it calls) was written for a newer "
                    "torch. Check `python -c \"import torch; print(torch.__version__)\"` against its requirements and "
                    "upgrade torch within its CUDA build (`pip install --upgrade torch torchvision torchaudio "
                    "--index-url https://download.pytorch.org/whl/cuXYZ`, the cuXYZ of the build you have), or install "
                    "the release of that package made for this torch.")


# a submodule and its function joined by an underscore (torch.backends.mps_is_available for
# torch.backends.mps.is_available): a name no torch release has, whatever its version
_JOINED_SUBMODULE = re.compile(r"(?P<sub>[a-z]{2,12})_(?P<fn>is_available|is_built|is_enabled|enabled|version|"
                               r"allow_tf32|benchmark|deterministic|empty_cache|device_count|synchronize)$")
_BACKEND_SUBMODULES = {"torch.backends": ("cpu", "cuda", "cudnn", "mha", "mps", "mkl", "mkldnn", "nnpack", "openmp",
                                          "opt_einsum", "xeon", "cusparselt", "kleidiai"),
                       "torch": ("cuda", "mps", "xpu", "backends")}


def torch_attribute_missing(ent, text):
    """A name missing from torch says which torch the code met: a core name (or a partially initialised module) -
    not the package at all (a local torch.py, a leftover folder); a private name - removed, so the caller predates
    this torch; a public name - added later, so this torch predates the caller."""
    m, at = last_in_tail(_NO_ATTR, text, "has no attribute")
    if m is None:
        return None
    mod, attr = m.group("mod"), m.group("attr")
    if m.group("partial") or (mod == "torch" and attr in _CORE_NAMES):
        sig = _sig("torch-is-not-the-package", "env", "`import torch` loads something other than the torch package", 74,
                   "torch's core name {mod}.{attr} is missing (or the module is only partially initialised): the "
                   "module imported as torch is a file or folder of that name ahead of site-packages, or a folder a "
                   "failed uninstall left behind, not the installed package.", fix=_SHADOW_FIX,
                   causes=(("shadow", "a local torch.py or a leftover torch folder is imported instead", ()),),
                   areas=("torch", "python"),
                   sources=({"url": "https://docs.python.org/3/tutorial/modules.html#the-module-search-path",
                             "what": "the script's folder is searched before site-packages"},))
    elif mod == "torch._C" and attr.startswith("_cuda_"):
        sig = _sig("torch-c-without-cuda-functions", "torch-build",
                   "torch._C has no {attr}: the installed torch is a build without CUDA", 78,
                   "torch's CUDA functions (torch._C._cuda_*) exist only in its CUDA builds: torch.cuda itself tests "
                   "for torch._C._cuda_getDeviceCount to decide whether torch was compiled with CUDA. A CPU-only build "
                   "(+cpu, PyPI's on Windows, a conda cpu build) lacks them, so the first CUDA call fails this way.",
                   fix="Check `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"`; with None "
                       "install the CUDA build from the PyTorch index (`pip install torch torchvision torchaudio "
                       "--index-url https://download.pytorch.org/whl/cu128`, the cuXYZ your driver supports), in the "
                       "environment that runs the program.",
                   causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),), areas=("torch",),
                   sources=(SOURCES["torch_index"],
                            {"url": "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py",
                             "what": "torch.cuda._is_compiled(): hasattr(torch._C, '_cuda_getDeviceCount')"}))
    elif (mod in ("torch.backends", "torch") and _JOINED_SUBMODULE.match(attr)
          and _JOINED_SUBMODULE.match(attr).group("sub") in _BACKEND_SUBMODULES.get(mod, ())):
        sub = _JOINED_SUBMODULE.match(attr)
        sig = _sig("torch-name-misspelt", "not-environment",
                   "{mod}.{attr} does not exist: {mod}.{sub}.{fn} is meant", 76,
                   "{mod} has a submodule {sub} with a function {fn}; no release of torch has them joined with an "
                   "underscore, so the code (or the tutorial it came from) misspells the call. The installation is fine.",
                   look_at="Write {mod}.{sub}.{fn} (for example torch.backends.mps.is_available()).",
                   areas=("program",),
                   sources=({"url": "https://docs.pytorch.org/docs/stable/backends.html",
                             "what": "torch.backends' submodules: cpu, cuda, cudnn, mha, mps, mkl, mkldnn, nnpack, "
                                     "openmp, opt_einsum, xeon"},))
        return _match(sig, text, at, {"mod": mod, "attr": attr, "sub": sub.group("sub"), "fn": sub.group("fn")})
    elif (mod == "torch.distributed" and attr in _DISTRIBUTED_CORE) or (mod == "torch._C" and attr in _C10D_INIT):
        sig = _sig("torch-built-without-distributed", "torch-build",
                   "{mod}.{attr} is missing: this torch was built without torch.distributed", 78,
                   "torch.distributed.is_available() is hasattr(torch._C, '_c10d_init'), and where it is False "
                   "torch.distributed exposes no other API: {mod}.{attr}, present in every torch built with distributed "
                   "support since 1.0, is missing because this build was made without it (USE_DISTRIBUTED=0: the "
                   "default of a macOS source build, Windows wheels before 1.7, some ARM and Jetson wheels, custom "
                   "builds).",
                   fix="Check `python -c \"import torch, torch.distributed as d; print(torch.__version__, "
                       "d.is_available())\"`. With False install a build that has it: the PyTorch index's wheel for "
                       "your platform (Linux; Windows from 1.7 on, Gloo only), on Jetson NVIDIA's wheel for your "
                       "JetPack built with distributed support, or build from source with USE_DISTRIBUTED=1; a program "
                       "that runs on one process can skip torch.distributed when is_available() is False.",
                   causes=(("wrong-build", "the installed build lacks a component the program needs", ()),),
                   areas=("torch",),
                   sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/distributed/__init__.py",
                             "what": "is_available(): hasattr(torch._C, '_c10d_init'); USE_DISTRIBUTED=1 to build it"},
                            {"url": "https://pytorch.org/blog/pytorch-1.7-released/",
                             "what": "PyTorch 1.7: distributed training on Windows (prototype, Gloo)"}))
    elif attr.startswith("_"):
        sig = _sig("torch-name-removed", "torch-build", "{mod}.{attr}: a private torch name this torch no longer has", 66,
                   "Names starting with _ are torch's internals and change between releases without notice; code that "
                   "uses one was written against the release that had it, older than the installed one.",
                   fix=_OLDER_CALLER_FIX, causes=(("torch-version", "a package older than the installed torch", ()),),
                   areas=("torch",),
                   sources=({"url": "https://pytorch.org/docs/stable/notes/serialization.html",
                             "what": "torch's public API; underscore names are private"},))
    else:
        sig = _sig("torch-name-missing", "torch-build", "this torch has no {mod}.{attr}: the code needs a newer torch", 66,
                   "Public torch names are added release by release and kept; one missing means the installed torch "
                   "predates the code that calls it.", fix=_OLDER_TORCH_FIX,
                   causes=(("torch-version", "the installed torch is older than the code", ()),), areas=("torch",),
                   sources=(SOURCES["torch_index"],
                            {"url": "https://github.com/pytorch/pytorch/releases",
                             "what": "torch's release notes: what each release added"}))
    return _match(sig, text, at, {"mod": mod, "attr": attr})


# torch/serialization.py's messages since torch 2.6 (pytorch/pytorch): the default weights_only=True unpickler
_WEIGHTS_ONLY = re.compile(r"Weights only load failed|Cannot use ``?weights_only=True``? with TorchScript archives|"
                           r"we changed the default value of the `weights_only` argument")


def torch_load_weights_only(ent, text):
    """torch.load refusing a checkpoint under torch >= 2.6's weights_only=True default: the program's call is the
    fix (the file's trust decides which), not the installation."""
    m, at = last_in_tail(_WEIGHTS_ONLY, text)
    if m is None:
        return None
    sig = _sig("torch-load-weights-only", "not-environment", "torch.load's weights-only default (torch 2.6+) refused "
               "this checkpoint", 84,
               "Since torch 2.6, torch.load unpickles only tensors and allow-listed types unless told otherwise; a "
               "checkpoint holding other Python objects (or a TorchScript archive) is refused. The installation is "
               "fine.",
               look_at="Only for a file from a source you trust: pass `weights_only=False` to that torch.load call "
                       "(or the library's option for it); better, allow just the types the message names with "
                       "`torch.serialization.add_safe_globals([...])` or the `torch.serialization.safe_globals([...])` "
                       "context manager; load TorchScript archives with torch.jit.load; a library that calls "
                       "torch.load may have a newer release that passes weights_only itself. No reinstall is needed.",
               sources=({"url": "https://pytorch.org/docs/stable/notes/serialization.html#weights-only",
                         "what": "torch.load(weights_only=True), the default since torch 2.6, and add_safe_globals"},))
    return _match(sig, text, at, {})


# torch/_dynamo/eval_frame.py in torch 2.0-2.1 (pytorch/pytorch#94940), then the inductor backend's own check until
# Windows support landed (pytorch/pytorch#131112)
_WINDOWS_COMPILE = re.compile(r"Windows not yet supported for (?:torch\.compile|inductor)")


def compile_refused_on_windows(ent, text):
    """The installed torch refuses torch.compile on Windows: run eager (the program's compile option), WSL 2, or a
    torch whose inductor runs on Windows (with the Windows build of Triton for GPU kernels)."""
    m, at = last_in_tail(_WINDOWS_COMPILE, text, "Windows not yet supported")
    if m is None:
        return None
    sig = _sig("compile-refused-on-windows", "toolchain", "this torch does not support torch.compile on Windows", 80,
               "torch 2.0 and 2.1 raise this for any torch.compile on Windows, later releases for the inductor backend "
               "until its Windows support landed; eager mode runs the same model without compiling.",
               fix="Run without torch.compile: turn off the program's compile option (e.g. `--compile=False`, "
                   "compile=False in its config) or set TORCHDYNAMO_DISABLE=1; or run under WSL 2; or upgrade torch "
                   "to a release whose inductor supports Windows (the CPU backend needs the MSVC Build Tools, GPU "
                   "kernels the Windows build of Triton: `pip install triton-windows`).",
               causes=(), areas=("torch", "platform"),
               sources=({"url": "https://github.com/pytorch/pytorch/pull/94940",
                         "what": "torch.compile raises on Windows (torch 2.0)"},
                        {"url": "https://github.com/pytorch/pytorch/pull/131112",
                         "what": "inductor enabled on Windows"},
                        {"url": "https://github.com/woct0rdho/triton-windows",
                         "what": "triton-windows: Triton built for Windows"}))
    return _match(sig, text, at, {})


# torch.compile (Dynamo) refusing the interpreter: "Dynamo is not supported on Python 3.12+" (torch up to 2.3),
# "torch.compile is not supported on Python 3.15+" (today's wording); support for a new Python arrives releases after
# its wheels. The first release whose torch.compile runs on each Python, with the maintainers' word
_COMPILE_PYTHON = re.compile(r"(?:Dynamo|torch\.compile) is not supported on Python (?P<py>3\.\d{1,2})\+")
_COMPILE_FIRST = {"3.12": ("2.4", "https://github.com/kyutai-labs/moshi/issues/156",
                           "Dynamo refuses Python 3.12 under torch 2.3.1"),
                  "3.13": ("2.6", "https://github.com/pytorch/pytorch/issues/144048",
                           "maintainer: Python 3.13 support lands in the 2.6 release")}


def compile_unsupported_python(ent, text):
    m, at = last_in_tail(_COMPILE_PYTHON, text, "is not supported on Python")
    if m is None:
        return None
    py = m.group("py")
    first = _COMPILE_FIRST.get(py)
    sig = _sig("compile-unsupported-python", "torch-build",
               "this torch's torch.compile does not support Python {python}", 84,
               "torch.compile (Dynamo) rewrites Python bytecode, so each Python release needs explicit support, which "
               "arrives in torch releases after the first wheels for that Python: the installed torch runs on Python "
               "{python} but refuses to compile there.",
               fix=("Upgrade torch to " + (f"{first[0]} or newer (the first release whose torch.compile supports Python "
                                           "{python})" if first else "a release whose torch.compile supports Python "
                                           "{python} (its release notes)") +
                    " in its CUDA build, or run the program with a Python older than {python} (a new environment), or "
                    "without compiling: the program's compile option off, or TORCHDYNAMO_DISABLE=1."),
               causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
               areas=("torch", "platform"),
               sources=((({"url": first[1], "what": first[2]},) if first else ()) +
                        ({"url": "https://docs.pytorch.org/docs/stable/torch.compiler.html",
                          "what": "torch.compile and the Python versions it supports"},)))
    return _match(sig, text, at, {"python": py})


# a nightly's version: X.Y.Z.devYYYYMMDD (download.pytorch.org/whl/nightly), with or without its +cuXYZ label
_NIGHTLY = re.compile(r"^\d{1,2}\.\d{1,3}\.\d{1,3}\.dev(?P<date>20\d{6})")
_FAILS = re.compile(r"(?i)\berror\b|\bfail(?:s|ed|ure)?\b|exception|traceback|crash|segmentation fault")
_MPS_TEXT = re.compile(r"\bMPS\b|\bmps\b|Metal")


def nightly_regression(ent, text):
    """A failure in a torch nightly (X.Y.Z.devYYYYMMDD): nightlies are untested snapshots whose regressions later
    nightlies fix, so the first thing to try is the release (or a newer nightly); the layer is the failing part's
    (MPS on a Mac, else torch's build)."""
    m = _NIGHTLY.match(ent.versions.get("torch") or "")
    tail = text[-CONTEXT_TAIL:]
    if m is None or _FAILS.search(tail) is None:
        return None
    mac = bool(ent.platform.get("macos")) or _MPS_TEXT.search(tail) is not None
    date = m.group("date")
    sig = _sig("torch-nightly-regression", "macos" if mac else "torch-build",
               "the failing torch is a nightly build ({torch}): a regression of that snapshot comes first", 52,
               "torch {torch} is a nightly, built from the main branch on {day} without a release's testing; failures "
               "that the releases do not show are most often regressions of that snapshot, fixed in a later nightly.",
               fix="Try the latest release first: `pip install --upgrade torch torchvision torchaudio` (with its "
                   "--index-url for your CUDA build on Linux/Windows), or a newer nightly: `pip install --pre --upgrade "
                   "torch --index-url https://download.pytorch.org/whl/nightly/cpu` (nightly/cuXYZ for CUDA). If the "
                   "newest nightly still fails, report it to pytorch/pytorch with the nightly's date.",
               causes=(("torch-version", "a torch nightly with a regression", ()),), areas=("torch",),
               sources=({"url": "https://pytorch.org/get-started/locally/",
                         "what": "torch's releases and its nightly (preview) builds"},))
    return _match(sig, text, len(text) - len(tail) + _FAILS.search(tail).start(),
                  {"torch": ent.versions.get("torch"), "day": f"{date[:4]}-{date[4:6]}-{date[6:]}"})


# inductor's probe of the GPU (torch/_inductor/codegen/cuda/cuda_env.py, get_cuda_arch): it logs the exception with
# this line and returns None, and compilation carries on for the devices the program uses
_INDUCTOR_ARCH_PROBE = re.compile(r"Error getting cuda arch")


def inductor_cuda_probe_logged(ent, text):
    """inductor's "Error getting cuda arch" is a logged exception, not a failure: on a machine or build without CUDA
    the probe returns None and torch.compile compiles for the CPU. Not the installation, unless the program meant to
    use a GPU (then torch.cuda's own error, raised by the program, says so)."""
    m, at = last_in_tail(_INDUCTOR_ARCH_PROBE, text, "getting cuda arch")
    if m is None:
        return None
    sig = _sig("inductor-cuda-probe-logged", "not-environment",
               "inductor logged its GPU probe's exception: torch.compile carries on for the CPU", 88,
               "torch.compile's inductor asks for the GPU's compute capability while it sets up; where torch has no "
               "CUDA (a CPU build, no GPU) the call raises, inductor logs it as \"Error getting cuda arch\" and continues "
               "with none. Compiling for CPU tensors is unaffected (the probe was changed upstream: pytorch/pytorch pull "
               "request 151528).",
               look_at="Nothing to install for a CPU run: the line is noise (raise the torch._inductor log level to hide "
                       "it). If the program meant to run on a GPU, the problem is elsewhere: "
                       "`torch.cuda.is_available()` is False on this machine.",
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/codegen/cuda/cuda_env.py",
                         "what": "get_cuda_arch: logs 'Error getting cuda arch' and returns None"},))
    return _match(sig, text, at, {})



# torch/cuda/__init__.py's start-up check of the 0.x releases: a GPU whose architecture needs a newer CUDA than the one
# the binary was compiled with ("requires CUDA_VERSION >= 8000 ... compiled with CUDA_VERSION 7500")
_OLD_CUDA_BUILD = re.compile(r"Found GPU(?P<idx>\d{1,2}) (?P<name>[^\n]{1,80}?) which requires CUDA_VERSION >= "
                             r"(?P<need>\d{4,5})[\s\S]{0,200}?compiled\s{1,20}with CUDA_VERSION (?P<have>\d{4,5})")


def torch_cuda_older_than_gpu(ent, text):
    m, at = last_in_tail(_OLD_CUDA_BUILD, text, "CUDA_VERSION")
    if m is None:
        return None
    need, have = int(m.group("need")), int(m.group("have"))
    caps = {"name": m.group("name").strip(), "need": f"{need // 1000}.{need % 1000 // 10}",
            "have": f"{have // 1000}.{have % 1000 // 10}"}
    sig = _sig("torch-cuda-older-than-gpu", "torch-build",
               "this torch was compiled with CUDA {have}; the {name} needs CUDA {need} or newer", 84,
               "torch checks at start-up that the CUDA it was compiled with knows each GPU: the {name}'s architecture "
               "arrived with CUDA {need}, and this binary was built with CUDA {have}, so its kernels run only by "
               "JIT-compiling PTX (slow start-up) or not at all.",
               fix="Install a torch build compiled with CUDA {need} or newer (the PyTorch index's cuXYZ builds; `pip "
                   "install torch --index-url https://download.pytorch.org/whl/cuXYZ` with a cuXYZ your driver "
                   "supports), from pytorch.org's install selector.",
               causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("torch",), sources=(SOURCES["torch_index"],))
    return _match(sig, text, at, caps)


# c10/core/impl/DeviceGuardImplInterface.h: no guard registered for the device type, i.e. the library of that backend
# (torch_cuda, torch_hip, torch_xpu, ...) is not part of this build
_NOT_LINKED = re.compile(r"PyTorch is not linked with support for (?P<dev>\w{2,12}) devices")
_DEVICE_GUARD = {"url": "https://github.com/pytorch/pytorch/blob/main/c10/core/impl/DeviceGuardImplInterface.h",
                 "what": "getDeviceGuardImpl: \"PyTorch is not linked with support for <type> devices\""}
_R_TORCH = {"url": "https://cran.r-project.org/web/packages/torch/vignettes/installation.html",
            "what": "R torch: GPU installation, the CUDA environment variable read by install_torch()"}
# R's error frames ("Error in (function (self, ...") and R torch's own libraries (lantern)
_R_CONTEXT = re.compile(r"^Error in \(?function|\blantern\b|\bliblantern\b|torch::install_torch|library\(torch\)", re.M)


def build_without_device_type(ent, text):
    m, at = last_in_tail(_NOT_LINKED, text, "is not linked with support for")
    if m is None:
        return None
    dev = m.group("dev").lower()
    r_torch = _R_CONTEXT.search(text[-CONTEXT_TAIL:]) is not None
    if dev == "cuda":
        fix = ("Install the CUDA build: in Python `pip install torch --index-url https://download.pytorch.org/whl/cuXYZ` "
               "(a cuXYZ of pytorch.org's selector that your driver runs; check with `python -c \"import torch; "
               "print(torch.version.cuda, torch.cuda.is_available())\"`); with LibTorch, the CUDA LibTorch archive.")
        if r_torch:
            fix = ("R torch installed its CPU libraries: reinstall them for CUDA, `Sys.setenv(CUDA = \"X.Y\")` "
                   "(X.Y: a CUDA version R torch's installation page lists for your release) then `torch::install_torch(reinstall = TRUE)`, "
                   "or install the pre-built CUDA binaries that page names; restart R and check "
                   "`torch::cuda_is_available()`.")
    elif dev == "mps":
        fix = ("MPS exists only in torch's macOS arm64 builds: run an arm64 Python on Apple silicon (`python -c \"import "
               "platform; print(platform.machine())\"` prints arm64) with torch from PyPI; elsewhere use 'cpu' or 'cuda'.")
    elif dev in ("hip", "rocm"):
        fix = ("Install torch's ROCm build: `pip install torch --index-url https://download.pytorch.org/whl/rocmX.Y` "
               "(a ROCm version pytorch.org's selector lists).")
    elif dev == "xpu":
        fix = ("Install torch's XPU build for Intel GPUs: `pip install torch --index-url "
               "https://download.pytorch.org/whl/xpu`.")
    else:
        fix = "Install the torch build that includes the {dev} backend (pytorch.org's install selector lists them)."
    sig = _sig("torch-build-without-device-type", "torch-build",
               "this torch build has no {dev} backend" + (" (R torch's libraries)" if r_torch else ""), 86,
               "torch finds the code of each device type in a library of its own (torch_cuda for CUDA); the installed "
               "build was made without the {dev} one, so every tensor or module moved to a {dev} device fails. A "
               "CUDA toolkit or driver installed beside it does not change the build.",
               fix=fix, causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),) if dev == "cuda" else (),
               areas=("torch",), sources=(_DEVICE_GUARD, _R_TORCH) if r_torch else (_DEVICE_GUARD, SOURCES["torch_index"]))
    return _match(sig, text, at, {"dev": dev})
