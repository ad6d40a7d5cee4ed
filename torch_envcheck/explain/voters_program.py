"""The program's own errors, by family: the default answer's voter for errors a framework raises about what the
program asked of it (shapes, dtypes, devices, autograd, checkpoints, losses, distributed usage, compile tracing,
memory a serving engine plans), never about the installation.

Each family is a set of the frameworks' own wordings for one kind of misuse, as their sources raise them (torch's
ATen/autograd/nn checks, torch.distributed, torch._dynamo, vLLM's engine, NumPy's and TensorFlow's shape checks),
not one thread's sentence; it names what to look at instead of an install.  Used by reading.py (a voter is a pure
function `(text, entities) -> [Vote]`); the answer for such a text is `not-environment` and never a reinstall.

    program_families(text, ent) -> [Vote]   # at most one: the family whose wording is nearest the end"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match

TAIL = 8192

# (family, the frameworks' wordings, what to look at); no wording needs more than the last 8 KiB
FAMILIES = (
    ("checkpoint-vs-model",
     re.compile(r"Error\(s\) in loading state_dict|Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict|"
                r"size mismatch for [\w.]{1,120}: copying a param"),
     "The checkpoint and the model differ (keys or shapes): build the model with the configuration the checkpoint was "
     "saved from (same architecture, number of classes, vocabulary), strip a 'module.' prefix a DataParallel/DDP save "
     "added, or load with load_state_dict(..., strict=False) only for keys meant to differ."),
    ("autograd",
     re.compile(r"backward through the graph a second time|modified by an inplace operation|"
                r"does not require grad and does not have a grad_fn|leaf Variable that requires grad|"
                r"returned nan values in its \d{1,3}(?:st|nd|rd|th) output|Can't call numpy\(\) on Tensor that requires "
                r"grad|grad can be implicitly created only for scalar outputs|a view of a leaf Variable that requires "
                r"grad|only Tensors of floating point(?: and complex)? dtype can require gradients"),
     "The autograd graph was used in a way it does not allow: backward twice needs retain_graph=True, an in-place "
     "operation on a tensor autograd saved must become out-of-place (x = x + y, inplace=False), a tensor that requires "
     "grad needs .detach() before .numpy(); `torch.autograd.set_detect_anomaly(True)` names the operation."),
    ("dtype",
     re.compile(r"can't be cast to the desired output type|expected scalar type \w{2,20} but found \w{2,20}|"
                r"Found dtype \w{2,20} but expected \w{2,20}|\bnot implemented for '(?:Half|BFloat16|Bool|Long|Int|Byte|"
                r"Char|Short|Double|Float|ComplexFloat|ComplexDouble|ComplexHalf|Float8\w{0,12})'|"
                # the GradScaler's words, as users retype them (case, a letter dropped from "Attempting")
                r"(?i:to unscale fp16 gradients)|[Ee]xpected object of scalar type \w{2,20} but got scalar type|"
                # ATen's convolution check names scalar types (c10::Half, float) when only the dtype differs, and
                # tensor types (torch.cuda.FloatTensor, CUDAFloatType) when the device may: the latter is placement
                r"Input type \((?:struct )?(?:c10::)?(?!CUDA|CPU|MPS)\w{2,12}\) and (?:weight|bias) type \((?:struct )?"
                r"(?:c10::)?(?!CUDA|CPU|MPS)\w{2,12}\) should be the same"),
     "A tensor's dtype does not fit the operation: cast the inputs or targets (.float(), .long()), keep the weights "
     "float32 under fp16 mixed precision (torch.autocast with GradScaler, not model.half()), and run half precision on "
     "the GPU only (use float32 on the CPU, where many kernels have no Half version)."),
    ("device-placement",
     re.compile(r"Placeholder storage has not been allocated on MPS device|can't convert (?:cuda|mps|xpu|xla)(?::\d{1,2})? "
                r"device type tensor to numpy|can't convert CUDA tensor to numpy|Expected all tensors to be on the same device|"
                r"Input type \([\w.]{1,60}\) and (?:weight|bias) type \([\w.]{1,60}\) should be the same|"
                r"is on (?:CPU|cpu|cuda:?\d{0,2}|mps), but expected (?:it )?to be on|"
                r"Expected (?:a|all) [\w ]{0,40}tensors? (?:to be )?on (?:the )?(?:same|\w{2,6}) device"),
     "Tensors of one operation are on different devices: move the model and every input to the same device "
     "(model.to(device), x.to(device), map_location= when loading), and call .cpu() before .numpy()."),
    ("tensor-layout",
     re.compile(r"\b(?:Source|Input|Output) tensor must be contiguous\b"),
     "An operation that needs a tensor laid out contiguously in memory got a strided view (transposed, sliced, "
     "permuted): call .contiguous() on it first (np.ascontiguousarray for a NumPy array before torch.from_numpy)."),
    ("loss-targets",
     re.compile(r"target tensor expected, multi-target not supported|\bTarget -?\d{1,9} is out of bounds|"
                r"Expected input batch_size \(\d{1,9}\) to match target batch_size|Using a target size \(torch\.Size"),
     "The targets do not fit the loss: class indices as a Long tensor of shape [N] with values in [0, C) for "
     "CrossEntropyLoss/NLLLoss (C = the model's number of outputs), and as many targets as inputs in the batch."),
    ("distributed-usage",
     re.compile(r"Default process group has not been initialized|Expected to have finished reduction in the prior "
                r"iteration|parameters that were not used in producing (?:the )?loss"),
     "torch.distributed was used in a way it does not allow: call init_process_group before any collective (torchrun "
     "sets the environment it reads); a DDP model with parameters unused in the loss needs "
     "DistributedDataParallel(..., find_unused_parameters=True), or every parameter taking part."),
    ("compile-tracing",
     re.compile(r"torch\._dynamo\.exc\.(?:Unsupported|UserError)\b|\bdynamo\b[^\n]{0,80}\bgraph break"),
     "torch.compile could not trace a line of the program (a graph break where fullgraph=True forbids one, or an "
     "unsupported Python construct): drop fullgraph=True, wrap that function in torch.compiler.disable, or rewrite "
     "the line; the installation is fine."),
    ("serving-memory-plan",
     re.compile(r"maximum number of tokens that can be stored in KV cache|No available memory for the cache blocks|"
                r"larger than the maximum number of tokens that can be stored"),
     "The model's context does not fit the GPU memory left for the KV cache: lower max_model_len, raise "
     "gpu_memory_utilization, or use more GPUs (tensor parallelism), a quantised or smaller model."),
    ("tensor-as-value",
     re.compile(r"Boolean value of Tensor with more than one (?:value|element) is ambiguous|only one element tensors "
                r"can be converted to Python scalars|only integer tensors of a single element can be converted to an "
                r"index|The truth value of an array with more than one element is ambiguous"),
     "A tensor (array) of several elements is used as one value (in an if, as an index, as a float): reduce it first "
     "(.any(), .all(), .item() on a one-element tensor) or index the element meant."),
    ("operator-for-tensor-kind",
     re.compile(r"Could not run '(?:aten|prims?)::[\w.]{1,80}' with arguments from the '(?:Meta|Sparse\w{0,12}|"
                r"Quantized\w{0,12}|MPS|Nested\w{0,12}|MkldnnCPU)' backend"),
     "This operator has no kernel for that kind of tensor (meta, sparse, quantized, MPS, nested): convert the tensor "
     "first (.to_dense(), .dequantize(), .cpu()) or use an operator that supports it."),
)


def program_families(text: str, ent, vote_cls) -> list:
    """At most one vote: the family of the program's own error whose wording is nearest the end of the text."""
    tail = text[-TAIL:]
    base = len(text) - len(tail)
    best = None
    for family, pattern, look in FAMILIES:
        m = last_match(pattern, tail)
        if m is not None and (best is None or m.start() > best[0]):
            best = (m.start(), family, look)
    if best is None:
        return []
    at, family, look = best
    return [vote_cls("not-environment", 2.5, 3, "program", f"the program's own error ({family})", base + at, look)]
