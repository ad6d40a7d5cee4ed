"""Layer rules for the libraries LLMs are fine-tuned with (transformers' Trainer, peft, trl, torchao, xformers under
unsloth and LLaMA-Factory), read from their own checks and pip's words about their wheels.

    trainer_bf16_refused  transformers' "Your setup doesn't support bf16/gpu" -> arch: a GPU without bf16 (fp16), or a
                     torch older than 1.10 where the text shows one (torch-build)
    quantization_needs_packages  transformers' "Using `load_in_8bit=True` requires Accelerate ... and the latest version of
                     bitsandbytes" -> torch-build: with both installed, a torch that sees no CUDA GPU
    torchao_extensions_skipped  torchao's "Skipping import of cpp extensions due to incompatible torch version" -> the
                     torchao release of the installed torch
    torch_extension_wheel_not_found  pip finding no version of a package built per torch (xformers, flash-attn, ...) ->
                     its wheel for this torch/CUDA/Python, from its own index, or a build
    name_missing_from_package  "cannot import name 'X' from 'pkg'" for a pure-Python library -> env: the release of pkg
                     the code was written for
    flash_attention_2_refused  transformers refusing attn_implementation="flash_attention_2": a model class without it,
                         float32 weights (not-environment); flash_attn not installed (toolchain: its build, or sdpa)
    offloaded_model_moved  accelerate's and diffusers' refusal to move a model whose modules are offloaded ("You can't move
                         a model that has some modules offloaded", sequential CPU offloading then .to(cuda)) -> not-environment
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import compiled_modules

_TRAINING_ARGS = {"url": "https://github.com/huggingface/transformers/blob/main/src/transformers/training_args.py",
                  "what": "TrainingArguments.__post_init__: bf16 needs a GPU (Ampere or newer) and torch >= 1.10"}

_BF16 = re.compile(r"Your setup doesn't support bf16/(?:gpu|\(`--bf16`\))")
_OLD_TORCH = re.compile(r"\btorch(?:==| version:? | )(?P<v>1\.[0-9])\b(?!\d)")


def trainer_bf16_refused(ent, text):
    m, at = last_in_tail(_BF16, text, "doesn't support bf16")
    if m is None:
        return None
    old = _OLD_TORCH.search(text[-CONTEXT_TAIL:])
    if old:
        sig = _sig("trainer-bf16-old-torch", "torch-build", "bf16 training needs torch 1.10 or newer (torch {v} here)", 84,
                   "transformers' TrainingArguments refuses bf16=True when torch is older than 1.10, which has no bf16 "
                   "autocast on the GPU.",
                   fix="Install a torch 1.10 or newer CUDA build (the index URL of its CUDA from pytorch.org), or train "
                       "with fp16=True instead of bf16.",
                   areas=("torch",), sources=(_TRAINING_ARGS,))
        return _match(sig, text, at, {"v": old.group("v")})
    sig = _sig("trainer-bf16-unsupported-gpu", "arch", "the GPU has no bf16: the trainer refuses bf16=True", 84,
               "transformers' TrainingArguments (which trl's and LLaMA-Factory's configs extend) checks that the GPU "
               "supports bfloat16: NVIDIA GPUs from Ampere (compute capability 8.0, RTX 30xx, A100) on do; this one "
               "(a T4, V100, RTX 20xx or older), or a run without a visible GPU, does not.",
               fix="Train in fp16 instead: bf16=False, fp16=True (--fp16 / `fp16: true` in the config; unsloth picks "
                   "`is_bfloat16_supported()`), or fp32; bf16 needs an Ampere or newer GPU (compute capability 8.0).",
               areas=("gpu",), sources=(_TRAINING_ARGS,))
    return _match(sig, text, at, {})


_QUANT_NEEDS = re.compile(r"Using `(?:load_in_8bit|load_in_4bit|bitsandbytes)[^`\n]{0,30}`[^\n]{0,40}requires Accelerate|"
                          r"requires the latest version of bitsandbytes|requires Accelerate: `pip install accelerate`")


def quantization_needs_packages(ent, text):
    m, at = last_in_tail(_QUANT_NEEDS, text)
    if m is None:
        return None
    sig = _sig("quantization-needs-cuda-torch", "torch-build",
               "transformers finds accelerate or bitsandbytes unusable for 8-/4-bit loading", 80,
               "transformers raises this when accelerate is not importable or bitsandbytes counts as unavailable; with "
               "both installed, the usual reason is that torch sees no CUDA GPU (a CPU-only torch, or no GPU visible), "
               "since transformers then treats bitsandbytes as unavailable.",
               fix="Check `python -c \"import torch; print(torch.__version__, torch.cuda.is_available())\"`: False, or a "
                   "+cpu version, means installing torch's CUDA build (the index URL of its CUDA from pytorch.org) "
                   "in this environment; otherwise `pip install -U accelerate bitsandbytes` into the Python that runs "
                   "the program. 8-bit and 4-bit loading need an NVIDIA GPU.",
               areas=("torch",),
               sources=({"url": "https://huggingface.co/docs/transformers/main/en/quantization/bitsandbytes",
                         "what": "bitsandbytes quantization in transformers: accelerate, bitsandbytes and a CUDA GPU"},))
    return _match(sig, text, at, {})


_TORCHAO = re.compile(r"Skipping import of cpp extensions due to incompatible torch version")
_TORCHAO_VERSIONS = re.compile(r"upgrade to torch >= ?(?P<need>\d[\w.]{0,12}?)\.? {0,2}\(found (?P<have>\d[\w.+]{0,24})\)")


def torchao_extensions_skipped(ent, text):
    m, at = last_in_tail(_TORCHAO, text, "Skipping import of cpp extensions")
    if m is None:
        return None
    v = _TORCHAO_VERSIONS.search(text, at, at + 300)
    sig = _sig("torchao-built-for-another-torch", "toolchain",
               "torchao's C++ extensions are built for another torch{found_note|}", 80,
               "torchao ships compiled kernels built against one torch release and skips loading them when the "
               "installed torch is another{need_note|}: its Python parts work, its custom kernels (quantized matmuls, "
               "low-bit optimizers) are missing.",
               fix="Install the torchao release built for the installed torch (torchao's README lists which torch each "
                   "release pairs with), or the torch it names{need_note|}, keeping the other packages' torch pins "
                   "(unsloth, vllm) satisfied: `pip install \"torchao==<the release for your torch>\"`.",
               areas=("toolchain",),
               sources=({"url": "https://github.com/pytorch/ao#installation",
                         "what": "torchao's installation: each release is built against one torch"},))
    return _match(sig, text, at, {"found_note": f" (found torch {v.group('have')})" if v else None,
                                  "need_note": f" (torch >= {v.group('need')})" if v else None})


_NO_DIST = re.compile(r"(?:Could not find a version that satisfies the requirement|No matching distribution found for) "
                      r"(?P<pkg>[A-Za-z][\w.-]{1,60})(?:==(?P<ver>[\w.+!-]{1,40}))?")


def torch_extension_wheel_not_found(ent, text):
    m, at = last_in_tail(_NO_DIST, text)
    if m is None:
        return None
    key = m.group("pkg").lower().replace("-", "_")
    dist = compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.get(key)
    if dist is None or dist in ("torchvision", "torchaudio"):
        return None
    index = compiled_modules.prebuilt_index(dist)
    sig = _sig("torch-extension-wheel-not-found", "toolchain", "pip finds no {dist}{ver_note|} for this torch and Python",
               80,
               "{dist} is built per torch release (and CUDA, Python): pip found no release{ver_note|} with a wheel for "
               "this interpreter and platform on the indexes it searched. Its wheels for a given torch often live on "
               "their own index (or are built only for some CUDA and Python versions), and a pin written for another "
               "torch names a version that does not exist here.",
               fix="Install the {dist} release that matches the installed torch, from the index its install page gives "
                   + ("(" + index["url"] + ") " if index else "(xformers: the PyTorch index of torch's CUDA, e.g. "
                      "--index-url https://download.pytorch.org/whl/cu12X) ") +
                   "with the same Python and CUDA, or build it from source against the installed torch (`pip install "
                   "--no-build-isolation {dist}` with a CUDA toolkit of torch's CUDA version).",
               areas=("toolchain",),
               sources=({"url": index["source"], "what": f"{dist}'s wheels per torch and CUDA"},) if index else
               ({"url": "https://pytorch.org/get-started/locally/", "what": "the PyTorch index per CUDA"},))
    return _match(sig, text, at, {"dist": dist, "ver_note": f" {m.group('ver')}" if m.group("ver") else None})


# a name imported from a library that does not have it: the library is of another release than the code expects.
# Frameworks (their build is another layer), private names (compiled parts), namespace shadows and stdlib are not this.
_NAME_MISSING = re.compile(r"cannot import name ['\"](?P<name>[A-Za-z]\w{0,80})['\"] from ['\"](?P<pkg>[A-Za-z][\w.]{0,80})"
                           r"['\"](?P<rest>[^\n]{0,200})")
_NOT_THIS = frozenset({"torch", "torchvision", "torchaudio", "tensorflow", "keras", "jax", "jaxlib", "numpy", "scipy",
                       "triton", "apex", "typing", "collections", "os", "sys", "distutils", "setuptools", "pkg_resources",
                       "importlib", "typing_extensions"})


# Python before 3.7 printed the name without its module: the import statement above names it
_NAME_ONLY = re.compile(r"cannot import name ['\"](?P<name>[A-Za-z]\w{0,80})['\"](?! from)")
_FROM_IMPORT = re.compile(r"from (?P<pkg>[A-Za-z][\w.]{0,80}) import [^\n]{0,300}")


# import names whose distribution is named otherwise (each distribution's PyPI page names its import package)
_IMPORT_DIST = {"PIL": "Pillow", "cv2": "opencv-python", "sklearn": "scikit-learn", "skimage": "scikit-image",
                "yaml": "PyYAML", "zmq": "pyzmq", "bs4": "beautifulsoup4"}


def name_missing_from_package(ent, text):
    m, at = last_in_tail(_NAME_MISSING, text, "cannot import name")
    if m is not None:
        name, pkg, rest = m.group("name"), m.group("pkg"), m.group("rest")
    else:
        n, at = last_in_tail(_NAME_ONLY, text, "cannot import name")
        if n is None:
            return None
        name, pkg, rest = n.group("name"), None, ""
        for f in _FROM_IMPORT.finditer(text, max(0, at - 2000), at):
            if re.search(r"\b" + re.escape(name) + r"\b", f.group(0)):
                pkg = f.group("pkg")
        if pkg is None:
            return None
    top = pkg.split(".")[0]
    if top.lower() in _NOT_THIS or top.startswith("_") or "unknown location" in rest:
        return None
    if compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.get(top.lower()) or compiled_modules.distribution_of(top):
        return None  # a compiled package's missing name is its build's, not its release's
    dist = _IMPORT_DIST.get(top, top.replace("_", "-"))
    # the last Python file the traceback names before the error (the extractor's paths: frames and installed files)
    importer = next((p["path"] for p in reversed(ent.paths) if p["at"] < at and p["path"].endswith(".py")), None)
    if importer and re.search(r"[/\\]" + re.escape(top) + r"[/\\]", importer):
        # the package's own module imports from the package: its files are of two releases
        sig = _sig("package-files-of-two-releases", "env",
                   "{dist}'s own modules disagree ({pkg} has no {name}): its files are of two releases", 76,
                   "{name} is imported from {pkg} by {dist}'s own code ({importer_name}), so the two files come from "
                   "different releases of {dist}: it was upgraded while this process (a notebook kernel, a running "
                   "server) had already imported part of it, or an install was interrupted or laid over another.",
                   fix="Restart the kernel or runtime (Colab: Runtime > Restart session) so that it loads only the "
                       "installed release; if the error stays, reinstall it cleanly: `pip install --force-reinstall "
                       "--no-deps {dist}` (with the version the environment needs).",
                   areas=("python",),
                   sources=({"url": "https://ipython.readthedocs.io/en/stable/interactive/magics.html#magic-pip",
                             "what": "a kernel keeps the modules it imported; installs take effect after a restart"},))
        return _match(sig, text, at, {"name": name, "pkg": pkg, "dist": dist,
                                      "importer_name": importer.replace("\\", "/").rsplit("/", 1)[-1]})
    sig = _sig("name-missing-from-package", "env", "{pkg} has no {name}: the installed {dist} is another release", 74,
               "The code imports {name} from {pkg}, and the installed {dist} does not define it: {name} was added in a "
               "later release (the usual case: the code follows a newer {dist}) or removed or renamed in a release the "
               "environment has moved to.",
               fix="Install the {dist} release the code was written for: its requirements file or README pins it "
                   "(`pip install -U {dist}` when the name is new; `pip install \"{dist}==<that version>\"` when it was "
                   "removed); check the installed one with `pip show {dist}`.",
               areas=("python",),
               sources=({"url": "https://docs.python.org/3/reference/simple_stmts.html#the-import-statement",
                         "what": "from ... import: ImportError when the module has no such name"},))
    return _match(sig, text, at, {"name": name, "pkg": pkg, "dist": dist})


# transformers/modeling_utils.py (_check_and_enable_flash_attn_2): the three ways it refuses Flash Attention 2
_FA2_CLASS = re.compile(r"(?P<cls>\w{2,80}) does not support Flash Attention 2\.0 yet")
_FA2_DTYPE = re.compile(r"Flash Attention 2\.0 only supports torch\.float16 and torch\.bfloat16 dtypes")
_FA2_MISSING = re.compile(r"FlashAttention2 has been toggled on, but it cannot be used due to the following error: the "
                          r"package flash_attn seems to be not installed")
_TRANSFORMERS_FA2 = {"url": "https://huggingface.co/docs/transformers/main/en/perf_infer_gpu_one#flashattention",
                     "what": "transformers: attn_implementation='flash_attention_2' needs flash-attn, fp16/bf16 weights "
                             "and a model that supports it; 'sdpa' otherwise"}


def flash_attention_2_refused(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "Flash" not in tail:
        return None
    for rx, kind in ((_FA2_MISSING, "missing"), (_FA2_DTYPE, "dtype"), (_FA2_CLASS, "class")):
        m = last_match(rx, tail)
        if m is not None:
            break
    else:
        return None
    at = len(text) - len(tail) + m.start()
    if kind == "missing":
        sig = _sig("flash-attention-2-not-installed", "toolchain",
                   "transformers was asked for Flash Attention 2 and flash-attn is not installed", 82,
                   "attn_implementation=\"flash_attention_2\" (or a program's flash-attention switch) makes transformers "
                   "import the flash-attn package, a compiled extension built for one torch, CUDA and Python; it is not "
                   "installed in this environment (or its build failed).",
                   fix="Install flash-attn's wheel for the installed torch, CUDA and Python (its release page lists them; "
                       "Linux x86_64/aarch64, Ampere or newer GPUs), or build it: `pip install --no-build-isolation "
                       "flash-attn`; or load the model with attn_implementation=\"sdpa\" (torch's own attention), which "
                       "needs nothing extra.",
                   areas=("extension",), sources=(_TRANSFORMERS_FA2,))
    elif kind == "dtype":
        sig = _sig("flash-attention-2-float32", "not-environment",
                   "Flash Attention 2 was asked for a model loaded in float32", 80,
                   "Flash Attention 2 computes in float16 or bfloat16 only, and the model's weights are float32.",
                   look_at="Load the model with torch_dtype=torch.bfloat16 (or float16) when asking for flash_attention_2, "
                           "or use attn_implementation=\"sdpa\" for float32. Nothing to install.",
                   sources=(_TRANSFORMERS_FA2,))
    else:
        sig = _sig("flash-attention-2-unsupported-model", "not-environment",
                   "{cls} does not support Flash Attention 2 (in this transformers or its remote code)", 80,
                   "transformers checks that the model's class declares Flash Attention 2 support; {cls} does not, so "
                   "attn_implementation=\"flash_attention_2\" (or use_flash_attention_2=True) is refused.",
                   look_at="Load {cls} without flash_attention_2 (attn_implementation=\"sdpa\" or \"eager\"), or use the "
                           "model's own flash-attention option where its code has one (trust_remote_code models often "
                           "take use_flash_attn=True in their config). Nothing to install.",
                   sources=(_TRANSFORMERS_FA2,))
    return _match(sig, text, at, {"cls": m.groupdict().get("cls")})


# accelerate (big_modeling.py) and diffusers (pipeline_utils.py): a model or pipeline with offload hooks moved by hand
_OFFLOADED_MOVED = re.compile(r"You can't move a model that has some modules offloaded to cpu or disk|It seems like you have "
                              r"activated sequential model offloading by calling `enable_sequential_cpu_offload`")


def offloaded_model_moved(ent, text):
    m, at = last_in_tail(_OFFLOADED_MOVED, text)
    if m is None:
        return None
    sig = _sig("offloaded-model-moved", "not-environment",
               "a model with offloaded modules was moved to a device by hand", 82,
               "accelerate (device_map with CPU or disk offload) and diffusers (enable_model_cpu_offload, "
               "enable_sequential_cpu_offload) place each module themselves through hooks; calling .to(\"cuda\") or "
               ".cuda() on the model or pipeline afterwards is refused. The installation is not at fault.",
               look_at="Choose one: offloading (then never call .to(device) on that model or pipeline; the hooks move it) "
                       "or the whole model on the GPU (load it without offloading, then .to(\"cuda\")).",
               sources=({"url": "https://huggingface.co/docs/diffusers/optimization/memory#cpu-offloading",
                         "what": "diffusers: CPU offloading moves modules itself; do not move the pipeline to CUDA"},))
    return _match(sig, text, at, {})
