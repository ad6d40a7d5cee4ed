"""Layer rule for a component's own floor on the GPU's compute capability, stated beside the GPU's (or the GPU's
name): what sets the floor says what the fix is.

    gpu_below_capability_floor  "capability >= X ... your GPU has Y", "Minimum capability: 89. Current capability: 86",
                     "requires device with capability > (8, 0) but your GPU has capability (7, 5)", "<X> only
                     supports Ampere GPUs or newer"
                     -> Triton (torch.compile): run eager; a number format (bf16, fp8, a quantization method): the
                        program's dtype / the model's format; FlashAttention / xformers kernels: another attention
                        implementation; int8 matmul (bitsandbytes): 4-bit or bitsandbytes >= 0.37; anything
                        else: turn the feature off or an older release of it; also the floor as a refusal states it
                        ("capability less than 7.0 are not supported", "capability < 7.5 detected"), the GPU's
                        capability then read from its name
    gpu_lacks_feature  a feature refused in words, without numbers: bitsandbytes' "Your GPU does not support Int8
                     Matmul!", "the hardware do not support FP16", TensorRT's "hardware without native FP16
                     support", "not compiled with half-precision support", ggml's "disabling CUDA graphs due to GPU
                     architecture" -> arch: bitsandbytes >= 0.37 / 4-bit, FP32, the build option off

The capability of a named GPU or architecture is knowledge.gpu_generations' table (with its sources); the floors are
the components' own words, quoted below with where they are written."""

from __future__ import annotations

import re

from torch_envcheck.knowledge import gpu_generations
from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail


# torch's GPUTooOldForTriton ("Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA
# capability 6.1", torch/_inductor/exc.py in pytorch/pytorch), vLLM's dtype check ("Bfloat16 is only supported on GPUs
# with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5", vllm/config.py in
# vllm-project/vllm), and the like in other packages' words: "capability >= X", "capability of at least X",
# "capability X or higher".
_CAP_NUM = r"(?:\d{1,2}\.\d(?!\d)|\d{1,3}(?!\d|\.\d))"
_CAP_FLOOR = re.compile(r"(?i)\bcapabilit(?:y|ies)\s{0,3}(?:of\s{1,3})?(?:at least|>=|≥|minimum(?: of)?|no less than)\s{0,3}"
                        r"(?P<need>" + _CAP_NUM + r")|\bcapability\s{0,3}(?P<need2>\d{1,2}\.\d)\s{0,3}(?:or (?:higher|newer|"
                        r"above|later)|\+)|\bminimum (?:required )?(?:cuda )?(?:compute )?capability\s{0,3}(?:is\s{1,3}|:\s{0,2}|=\s{0,2})?"
                        r"(?P<need3>" + _CAP_NUM + r")|\bat least (?:compute )?capability\s{0,3}(?P<need4>\d{1,2}\.\d(?!\d))")
# the floor as the refusal states it, with the GPU below it implied: vLLM's setup ("GPUs with compute capability less
# than 7.0 are not supported", setup.py in vllm-project/vllm then), bitsandbytes' warning ("Compute capability < 7.5
# detected! Only slow 8-bit matmul is supported for your GPU!", bitsandbytes/cuda_setup in 0.38-0.40)
_CAP_BELOW = re.compile(r"(?i)\bcapabilit(?:y|ies)\s{0,3}(?:less than|lower than|below|<)\s{0,3}(?P<need>" + _CAP_NUM +
                        r")[^\n]{0,40}?(?:not supported|unsupported|detected)")
_CAP_HAVE = re.compile(r"(?i)\b(?:your|this|the current|current|the)\b[^\n.]{0,80}?\bcapability\s{0,3}(?:is\s{1,3}|of\s{1,3}|"
                       r"=\s{0,2}|:\s{0,2})?(?P<have>\d{1,2}\.\d(?!\d)|\d{2,3}(?!\d|\.\d))")
# xformers' operator table: "requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)"
# (xformers/ops/fmha/common.py in facebookresearch/xformers)
_CAP_TUPLES = re.compile(r"(?i)requires device with capability\s{0,2}>=?\s{0,2}\((?P<nm>\d{1,2}),\s{0,2}(?P<nn>\d)\)[^\n]{0,40}?"
                         r"capability\s{0,2}\((?P<hm>\d{1,2}),\s{0,2}(?P<hn>\d)\)")
# an architecture as the floor: flash-attn's "FlashAttention only supports Ampere GPUs or newer."
# (csrc/flash_attn/flash_api.cpp in Dao-AILab/flash-attention)
_ARCH_FLOOR = re.compile(r"(?P<what>[A-Z][\w.-]{1,40}) (?:only supports|supports only|requires|is only supported on|"
                         r"needs) (?:an? )?(?:NVIDIA )?(?P<arch>Volta|Turing|Ampere|Ada(?: Lovelace)?|Hopper|Blackwell)"
                         r"(?: \(?sm_?\d{2,3}\)?)? (?:\w+ )?(?:GPUs?|architecture|cards?)?\s{0,2}(?:or|and) (?:newer|later|above)")
# what sets the floor, read around it
_TOO_OLD = re.compile(r"(?i)\btoo old\b|\bis older than\b")
_CAP_STATED = re.compile(r"(?i)\bcompute capability\s{0,3}(?::\s{0,2}|of\s{1,3}|is\s{1,3})?(?P<have>\d{1,2}\.\d)(?!\d)")
_CAP_COMPILER = re.compile(r"(?i)triton|torch\.compile|inductor|dynamo")
_CAP_DTYPE = re.compile(r"(?i)\bbfloat16\b|\bbf16\b|\bfp8\b|\bfloat8")
_CAP_QUANT = re.compile(r"(?i)quantization method|\bquantiz")
_CAP_ATTENTION = re.compile(r"(?i)flash[_ -]?att|FlashAttention|\bflshatt|xformers|memory_efficient_attention")
_CAP_INT8 = re.compile(r"(?i)\bint8\b|\b8-?bit (?:matmul|loading|inference)|igemmlt")
# a number format's own floor, as Triton states it for its fp8 types: "fp8e4nv data type is not supported on CUDA arch
# < 89" (python/triton/language/semantic.py) and "type fp8e4nv not supported in this architecture. The supported fp8
# dtypes are ('fp8e4b15', 'fp8e5')" (the NVIDIA backend's supported_fp8_dtypes), both in triton-lang/triton: e4m3 needs
# sm_89 (Ada) or newer
_DTYPE_ARCH_FLOOR = re.compile(r"(?P<fmt>fp8e4nv|fp8e4b8|fp8e5b16|bf16|bfloat16) (?:data )?type is not supported on "
                               r"CUDA arch < ?(?P<need>\d{2,3})|type (?P<fmt2>fp8e4nv) not supported in this architecture")
_XFORMERS_BUILD = re.compile(r"wasn't build with CUDA support|was built for|not built for|operator wasn't built")

_INT8_FIX = ("bitsandbytes 0.37 and newer run int8 on every GPU (below capability 7.5 through a slower path): "
             "`pip install -U bitsandbytes`; or load the model in 4-bit (`load_in_4bit=True`, which every GPU runs) or "
             "in float16; fast int8 matmul needs a GPU of capability 7.5+ (Turing and newer).")
_BNB_037 = {"url": "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/CHANGELOG.md",
            "what": "bitsandbytes 0.37.0: Int8 now supported on all GPUs; below capability 7.5 the int8 weights are cast "
                    "to 16/32-bit for the matrix multiplication"}
_TRITON_FLOOR_FIX = ("torch.compile's GPU backend (Triton) needs compute capability {need} or higher; this GPU has "
                     "{have|a lower one}. Run without torch.compile (remove the torch.compile call or the program's compile option, "
                     "e.g. compile=False; TORCHDYNAMO_DISABLE=1 turns it off without editing code; or "
                     "torch._dynamo.config.suppress_errors = True to fall back to eager), or use a GPU of capability "
                     "{need} or newer. No reinstall helps: no Triton release supports this GPU.")
_DTYPE_FLOOR_FIX = ("This number format needs a GPU of compute capability {need} or higher; this GPU has {have|a lower one}. Load "
                    "and run the model in float16 instead (e.g. vLLM `--dtype half`, transformers "
                    "`torch_dtype=torch.float16`), or float32; no reinstall is needed.")
_QUANT_FLOOR_FIX = ("This quantization method needs a GPU of compute capability {need} or higher; this GPU has {have|a lower one}. "
                    "Use the model in a format this GPU runs: unquantized float16 (vLLM `--dtype half`), or a "
                    "checkpoint quantized with a method it supports (e.g. AWQ or GPTQ); no reinstall is needed.")
_ATTENTION_FLOOR_FIX = ("{what|These attention} kernels need a GPU of compute capability {need} or higher; this GPU has {have|a lower one}, and no "
                        "reinstall changes that. Use another attention implementation: PyTorch's own "
                        "scaled_dot_product_attention (transformers `attn_implementation=\"sdpa\"` or \"eager\" instead "
                        "of \"flash_attention_2\"; the program's option that turns flash attention or xformers off), "
                        "or flash-attn 1.x, which still supports Turing (7.5); or run on a GPU of capability {need}+.")
_FLOOR_FIX = ("This component needs a GPU of compute capability {need} or higher; this GPU has {have|a lower one}: turn the feature "
              "off or use a release of the component that still supports this GPU, or a newer GPU.")


def _norm(v: str) -> str:
    """'8.9' -> '8.9'; '89' and '120' (vLLM prints major*10+minor) -> '8.9', '12.0'; '7' -> '7.0'."""
    if "." in v:
        return v
    n = int(v)
    return f"{n // 10}.{n % 10}" if n >= 30 else f"{n}.0"


def _cap(v: str) -> float:
    return float(_norm(v))


def _gpu_capability(ent) -> str | None:
    for g in reversed(ent.gpus):
        cap = gpu_generations.capability_of(g)
        if cap and "/" not in cap:
            return cap
    return None


def _lowest_named_capability(ent) -> str | None:
    caps = [c for g in ent.gpus if (c := gpu_generations.capability_of(g)) and "/" not in c]
    return min(caps, key=_cap) if caps else None


def _floors(ent, tail: str):
    """(need, have, start, end, what) for each floor the tail states with the GPU below it, the last first."""
    for floor in reversed(list(_CAP_FLOOR.finditer(tail))[-8:]):
        need = _norm(floor.group("need") or floor.group("need2") or floor.group("need3") or floor.group("need4"))
        have = _CAP_HAVE.search(tail, floor.end(), floor.end() + 400)
        if have is None:
            # the GPU's own capability printed first, in the same message ("Ignoring visible gpu device (...) with
            # Cuda compute capability 3.0. The minimum required Cuda capability is 3.5."; "Your V100 GPU (compute
            # capability 7.0) is not supported on CUDA 13+. Please use a device with at least capability 7.5")
            have = last_match(_CAP_STATED, tail[max(0, floor.start() - 300):floor.start()])
            if have is not None and _cap(have.group("have")) < _cap(need):
                yield need, _norm(have.group("have")), floor.start(), floor.end(), None
                continue
            have = None
        if have is not None and _cap(have.group("have")) >= _cap(need):
            continue
        if have is None:
            # a text cut after the floor still says the GPU is below it, in the words before it ("Found <GPU> which
            # is too old to be supported by ...")
            if not _TOO_OLD.search(tail, max(0, floor.start() - 300), floor.start()):
                continue
            yield need, None, floor.start(), floor.end(), None
        else:
            yield need, _norm(have.group("have")), floor.start(), have.end(), None
    for below in reversed(list(_CAP_BELOW.finditer(tail))[-4:]):
        need = _norm(below.group("need"))
        # the message is printed only when a GPU is below the floor; the GPU's capability from its name when named
        have = _lowest_named_capability(ent)
        yield need, (have if have is not None and _cap(have) < _cap(need) else None), below.start(), below.end(), None
    for t in reversed(list(_CAP_TUPLES.finditer(tail))[-8:]):
        need, have = f"{t.group('nm')}.{t.group('nn')}", f"{t.group('hm')}.{t.group('hn')}"
        if _cap(have) < _cap(need) and not _XFORMERS_BUILD.search(tail):
            yield need, have, t.start(), t.end(), "xformers"
    for d in reversed(list(_DTYPE_ARCH_FLOOR.finditer(tail))[-4:]):
        need = _norm(d.group("need") or "89")
        have = _gpu_capability(ent)
        if have is not None and _cap(have) >= _cap(need):
            continue
        yield need, have, d.start(), d.end(), "dtype"
    for a in reversed(list(_ARCH_FLOOR.finditer(tail))[-4:]):
        req = gpu_generations.requirement_of(a.group("arch").split()[0])
        if not req:
            continue
        need = req["capability"].split("/")[0]
        have = _gpu_capability(ent)
        if have is not None and _cap(have) >= _cap(need):
            continue
        yield need, have, a.start(), a.end(), a.group("what")


def gpu_below_capability_floor(ent, text):
    """A component that states the compute capability it needs (a number or an architecture) and the GPU's, lower:
    torch.compile's Triton on a GPU before Volta (arch: run eager), a number format or quantization the GPU lacks (the
    program's dtype / the model's format: not the installation), attention kernels (another attention), or another
    component (turn it off, an older release of it, a newer GPU)."""
    tail = text[-CONTEXT_TAIL:]
    # the floor stated last is the one that stopped the program (vLLM prints its bfloat16 floor, then refuses the
    # GPU outright)
    floors = list(_floors(ent, tail))
    found = max(floors, key=lambda f: f[2], default=None)
    if found is None:
        return None
    need, have, start, end, what = found
    # the words around it, not reaching back into an earlier floor's message
    before = max((f[3] for f in floors if f[3] <= start), default=0)
    around = tail[max(0, start - 400, before):end]
    at = len(text) - len(tail) + start
    caps = {"need": need, "have": have}
    dtype_floor = what == "dtype"
    if dtype_floor:
        what = None
    if _CAP_COMPILER.search(around) and not dtype_floor:
        sig = _sig("gpu-below-triton-capability", "arch", "this GPU (capability {have|below it}) is older than torch.compile's "
                   "Triton backend supports ({need}+)", 88,
                   "torch.compile generates GPU code with Triton, which supports only GPUs of compute capability "
                   "{need} and newer; on this GPU (capability {have|below it}) compiled code cannot run, eager code can.",
                   fix=_TRITON_FLOOR_FIX, causes=(("arch", "the GPU is older than a component supports", ()),),
                   areas=("gpu", "torch"),
                   sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/exc.py",
                             "what": "GPUTooOldForTriton: Triton only supports CUDA capability >= 7.0"},))
    elif _CAP_INT8.search(tail[max(0, start - 400):end + 120]):  # bitsandbytes names the feature after the floor
        sig = _sig("gpu-below-int8-capability", "arch", "this GPU (capability {have|below it}) is older than fast int8 "
                   "matmul needs ({need}+)", 87,
                   "bitsandbytes' int8 matrix multiplication runs on Tensor Core int8 (cuBLASLt) on GPUs of compute "
                   "capability {need} and newer; below that, releases before 0.37 refuse it and later ones run a slow "
                   "path that casts the weights to 16/32-bit.", fix=_INT8_FIX,
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=(_BNB_037,))
    elif dtype_floor or _CAP_DTYPE.search(around) or _CAP_QUANT.search(around):
        quant = not dtype_floor and _CAP_QUANT.search(around) is not None
        sig = _sig("gpu-below-dtype-capability", "not-environment", "the program asks for a number format this GPU "
                   "(capability {have|below it}) does not have", 88,
                   "bfloat16, fp8 and some quantization kernels need a GPU of compute capability {need} or newer; the "
                   "program (or the model's config) chose it on a GPU of capability {have|below it}. The installation is fine: "
                   "the program's dtype or the model's format is the fix.",
                   look_at=_QUANT_FLOOR_FIX if quant else _DTYPE_FLOOR_FIX,
                   sources=({"url": "https://github.com/vllm-project/vllm/blob/main/vllm/config.py",
                             "what": "vLLM: Bfloat16 is only supported on GPUs with compute capability of at least "
                                     "8.0; use float16 (--dtype=half)"},
                            {"url": "https://github.com/triton-lang/triton/blob/main/python/triton/language/semantic.py",
                             "what": "Triton: fp8e4nv data type is not supported on CUDA arch < 89"}))
    elif what or _CAP_ATTENTION.search(around):
        caps["what"] = what or next((w for w in ("FlashAttention", "xformers") if w.lower() in around.lower()), None)
        sig = _sig("gpu-below-attention-capability", "arch", "this GPU (capability {have|below it}) is older than {what|These attention} "
                   "supports ({need}+)", 87,
                   "{what|These attention} kernels are compiled for compute capability {need} and newer only; on this GPU (capability "
                   "{have|below it}) they cannot run, whatever build is installed. Attention has other implementations that run "
                   "here.", fix=_ATTENTION_FLOOR_FIX,
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=({"url": "https://github.com/Dao-AILab/flash-attention#installation-and-features",
                             "what": "FlashAttention-2 supports Ampere, Ada and Hopper GPUs; FlashAttention 1.x for "
                                     "Turing"},
                            {"url": "https://huggingface.co/docs/transformers/main/en/attention_interface",
                             "what": "transformers' attn_implementation: sdpa, eager, flash_attention_2"}))
    elif re.search(r"(?i)tensorflow|gpu_device\.cc", around):
        caps["last"] = gpu_generations.last_cuda_for(have) if have else None
        sig = _sig("tensorflow-gpu-below-capability", "arch", "TensorFlow ignores this GPU (capability {have|below it}): its "
                   "binaries start at {need}", 88,
                   "TensorFlow's prebuilt GPU binaries carry kernels for compute capability {need} and newer; it ignores "
                   "an older GPU (capability {have|lower}) and runs on the CPU.",
                   fix="Build TensorFlow from source for this GPU (`TF_CUDA_COMPUTE_CAPABILITIES={have|<its capability>}` "
                       "in its configure step, with a CUDA toolkit that still builds it: CUDA {last|of its time} or older), or "
                       "run it on a GPU of "
                       "compute capability {need} or newer; otherwise it stays on the CPU.",
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=({"url": "https://www.tensorflow.org/install/pip#hardware_requirements",
                             "what": "TensorFlow's GPU requirements: the compute capabilities its binaries support"},))
    elif re.search(r"\bCUDA 13\b", around):
        caps["last"] = gpu_generations.last_cuda_for(have) if have else "12.9"
        sig = _sig("gpu-dropped-by-cuda-13", "arch", "CUDA 13 does not support this GPU (capability {have|below 7.5})", 88,
                   "CUDA 13.0 removed Maxwell, Pascal and Volta (compute capability 5.0 to 7.2); a component running on "
                   "CUDA 13 cannot use this GPU. The last toolkit that builds it is CUDA {last}.",
                   fix="Use the component's CUDA 12 build (its cu12x wheels, its cuda12 container image, a CUDA 12.x "
                       "runtime where it lets you choose); where it picks the CUDA runtime from the driver, a driver "
                       "below the 580 branch keeps it on CUDA 12. A GPU of capability 7.5 or newer runs CUDA 13.",
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=({"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                             "what": "CUDA 13.0 release notes: Maxwell, Pascal and Volta architectures removed"},))
    else:
        sig = _sig("gpu-below-capability-floor", "arch", "this GPU (capability {have|below it}) is older than the component "
                   "supports ({need}+)", 86,
                   "The component states the lowest compute capability it supports ({need}); this GPU's is {have|lower}.",
                   fix=_FLOOR_FIX, causes=(("arch", "the GPU is older than a component supports", ()),),
                   areas=("gpu",), sources=({"url": "https://developer.nvidia.com/cuda-gpus",
                                             "what": "compute capability of each NVIDIA GPU"},))
    return _match(sig, text, at, caps)


# a feature the GPU lacks, refused or turned off in the component's own words (no capability number in the text):
# bitsandbytes' "Your GPU does not support Int8 Matmul!" (csrc/ops.cu, igemmlt, before 0.37), Paddle-TRT's "the hardware
# do not support FP16 speed up, use FP32 instead", ggml's "disabling CUDA graphs due to GPU architecture"
# (ggml-cuda.cu), tiny-cuda-nn's "TCNN was not compiled with half-precision support" (its half precision is built
# for capability 7.0+ only)
_FEATURE_REFUSED = re.compile(r"(?P<int8>Your GPU does not support Int8 Matmul)|"
                              r"(?P<fp16>(?i:hardware|GPU|device|platform) without native FP16 support|"
                              r"(?i:hardware|GPU|device|platform) (?:does not|do not|doesn't|don't) support "
                              r"(?i:FP16|half)(?: speed ?up| precision)?|not compiled with half[- ]precision support)|"
                              r"(?P<graphs>disabling CUDA graphs due to (?:the )?GPU architecture)")


# bitsandbytes' int8 matmul calling cuBLASLt's igemmlt on a GPU without int8 Tensor Cores: cuBLAS answers 15,
# CUBLAS_STATUS_NOT_SUPPORTED (cublas_api.h), printed by bitsandbytes' "cuBLAS API failed with status N"
_BNB_CUBLAS_15 = re.compile(r"cuBLAS API failed with status 15\b")


def gpu_lacks_feature(ent, text):
    m, at = last_in_tail(_FEATURE_REFUSED, text)
    if m is None:
        b, b_at = last_in_tail(_BNB_CUBLAS_15, text, "status 15")
        if b is None or "bitsandbytes" not in text[-CONTEXT_TAIL:]:
            return None
        m, at = b, b_at
    if "status 15" in m.group(0) or m.group("int8"):
        sig = _sig("gpu-lacks-int8-matmul", "arch", "bitsandbytes refuses int8 matmul on this GPU", 86,
                   "bitsandbytes releases before 0.37 run int8 matrix multiplication only through cuBLASLt's int8 "
                   "kernels, which need a GPU of compute capability 7.5 or newer (Turing, Ampere and later); on an older "
                   "GPU (Pascal, Volta, Maxwell), or with its no-cuBLASLt library loaded, they refuse it.",
                   fix=_INT8_FIX, causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=(_BNB_037,))
    elif m.group("fp16"):
        sig = _sig("gpu-lacks-fast-fp16", "arch", "this GPU has no fast half precision for the component", 80,
                   "The component found no fast FP16 on this GPU: FP16 math at speed needs Tensor Cores (compute "
                   "capability 7.0, Volta, and newer), and GPUs before them (Pascal's GTX 10-series, Maxwell) run FP16 "
                   "slowly or not at all, so the component refuses it or falls back to FP32.",
                   fix="Run in FP32 (single precision) on this GPU: drop the FP16/half option (TensorRT's FP16 mode, the "
                       "tool's half-precision flag such as --single-precision), or use a GPU with Tensor Cores "
                       "(compute capability 7.0+) for FP16 speed.",
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=({"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#arithmetic-instructions",
                             "what": "CUDA programming guide: FP16 arithmetic throughput per compute capability"},))
    else:
        sig = _sig("gpu-lacks-cuda-graphs", "arch", "ggml turns CUDA graphs off on this GPU's architecture", 78,
                   "The program was built with CUDA graphs enabled (GGML_CUDA_USE_GRAPHS / GGML_CUDA_GRAPHS), and ggml "
                   "turns them off at run time on GPUs older than the architectures it uses them on; the message is "
                   "harmless (the model runs without graphs), only repeated.",
                   fix="Rebuild with CUDA graphs off for this GPU (`-DGGML_CUDA_USE_GRAPHS=OFF`, or GGML_CUDA_GRAPHS=OFF "
                       "in llama.cpp builds), or ignore the notice; a newer GPU runs with graphs.",
                   causes=(("arch", "the GPU is older than a component supports", ()),), areas=("gpu",),
                   sources=({"url": "https://github.com/ggml-org/llama.cpp/blob/master/ggml/CMakeLists.txt",
                             "what": "option(GGML_CUDA_GRAPHS \"ggml: use CUDA graphs (llama.cpp only)\") (forks name it "
                                     "GGML_CUDA_USE_GRAPHS)"},))
    return _match(sig, text, at, {})
