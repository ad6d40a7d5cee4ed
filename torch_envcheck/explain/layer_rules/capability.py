"""Layer rule for a component's own floor on the GPU's compute capability, stated beside the GPU's (or the GPU's
name): what sets the floor says what the fix is.

    gpu_below_capability_floor  "capability >= X ... your GPU has Y", "Minimum capability: 89. Current capability: 86",
                     "requires device with capability > (8, 0) but your GPU has capability (7, 5)", "<X> only
                     supports Ampere GPUs or newer"
                     -> Triton (torch.compile): run eager; a number format (bf16, fp8, a quantization method): the
                        program's dtype / the model's format; FlashAttention / xformers kernels: another attention
                        implementation; anything else: turn the feature off or an older release of it

The capability of a named GPU or architecture is knowledge.gpu_generations' table (with its sources); the floors are
the components' own words, quoted below with where they are written."""

from __future__ import annotations

import re

from torch_envcheck.knowledge import gpu_generations
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig


# torch's GPUTooOldForTriton ("Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA
# capability 6.1", torch/_inductor/exc.py in pytorch/pytorch), vLLM's dtype check ("Bfloat16 is only supported on GPUs
# with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5", vllm/config.py in
# vllm-project/vllm), and the like in other packages' words: "capability >= X", "capability of at least X",
# "capability X or higher".
_CAP_NUM = r"(?:\d{1,2}\.\d(?!\d)|\d{1,3}(?!\d|\.\d))"
_CAP_FLOOR = re.compile(r"(?i)\bcapabilit(?:y|ies)\s{0,3}(?:of\s{1,3})?(?:at least|>=|≥|minimum(?: of)?|no less than)\s{0,3}"
                        r"(?P<need>" + _CAP_NUM + r")|\bcapability\s{0,3}(?P<need2>\d{1,2}\.\d)\s{0,3}(?:or (?:higher|newer|"
                        r"above|later)|\+)|\bminimum (?:compute )?capability\s{0,3}(?:is\s{1,3}|:\s{0,2}|=\s{0,2})?"
                        r"(?P<need3>" + _CAP_NUM + r")")
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
_CAP_COMPILER = re.compile(r"(?i)triton|torch\.compile|inductor|dynamo")
_CAP_DTYPE = re.compile(r"(?i)\bbfloat16\b|\bbf16\b|\bfp8\b|\bfloat8")
_CAP_QUANT = re.compile(r"(?i)quantization method|\bquantiz")
_CAP_ATTENTION = re.compile(r"(?i)flash[_ -]?att|FlashAttention|\bflshatt|xformers|memory_efficient_attention")
_XFORMERS_BUILD = re.compile(r"wasn't build with CUDA support|was built for|not built for|operator wasn't built")

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


def _floors(ent, tail: str):
    """(need, have, start, end, what) for each floor the tail states with the GPU below it, the last first."""
    for floor in reversed(list(_CAP_FLOOR.finditer(tail))[-8:]):
        need = _norm(floor.group("need") or floor.group("need2") or floor.group("need3"))
        have = _CAP_HAVE.search(tail, floor.end(), floor.end() + 400)
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
    for t in reversed(list(_CAP_TUPLES.finditer(tail))[-8:]):
        need, have = f"{t.group('nm')}.{t.group('nn')}", f"{t.group('hm')}.{t.group('hn')}"
        if _cap(have) < _cap(need) and not _XFORMERS_BUILD.search(tail):
            yield need, have, t.start(), t.end(), "xformers"
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
    found = next(_floors(ent, tail), None)
    if found is None:
        return None
    need, have, start, end, what = found
    around = tail[max(0, start - 400):end]
    at = len(text) - len(tail) + start
    caps = {"need": need, "have": have}
    if _CAP_COMPILER.search(around):
        sig = _sig("gpu-below-triton-capability", "arch", "this GPU (capability {have|below it}) is older than torch.compile's "
                   "Triton backend supports ({need}+)", 88,
                   "torch.compile generates GPU code with Triton, which supports only GPUs of compute capability "
                   "{need} and newer; on this GPU (capability {have|below it}) compiled code cannot run, eager code can.",
                   fix=_TRITON_FLOOR_FIX, causes=(("arch", "the GPU is older than a component supports", ()),),
                   areas=("gpu", "torch"),
                   sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/_inductor/exc.py",
                             "what": "GPUTooOldForTriton: Triton only supports CUDA capability >= 7.0"},))
    elif _CAP_DTYPE.search(around) or _CAP_QUANT.search(around):
        quant = _CAP_QUANT.search(around) is not None
        sig = _sig("gpu-below-dtype-capability", "not-environment", "the program asks for a number format this GPU "
                   "(capability {have|below it}) does not have", 88,
                   "bfloat16, fp8 and some quantization kernels need a GPU of compute capability {need} or newer; the "
                   "program (or the model's config) chose it on a GPU of capability {have|below it}. The installation is fine: "
                   "the program's dtype or the model's format is the fix.",
                   look_at=_QUANT_FLOOR_FIX if quant else _DTYPE_FLOOR_FIX,
                   sources=({"url": "https://github.com/vllm-project/vllm/blob/main/vllm/config.py",
                             "what": "vLLM: Bfloat16 is only supported on GPUs with compute capability of at least "
                                     "8.0; use float16 (--dtype=half)"},))
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
    else:
        sig = _sig("gpu-below-capability-floor", "arch", "this GPU (capability {have|below it}) is older than the component "
                   "supports ({need}+)", 86,
                   "The component states the lowest compute capability it supports ({need}); this GPU's is {have|lower}.",
                   fix=_FLOOR_FIX, causes=(("arch", "the GPU is older than a component supports", ()),),
                   areas=("gpu",), sources=({"url": "https://developer.nvidia.com/cuda-gpus",
                                             "what": "compute capability of each NVIDIA GPU"},))
    return _match(sig, text, at, caps)
