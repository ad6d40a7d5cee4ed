"""Layer rules for numerics and precision, read from the messages of torch and of the libraries that choose a number
format: TF32 notices, deterministic algorithms, FlashAttention's dtypes, and the skipped steps of fp16 loss scaling.

    tf32_notice          torch's TF32 API deprecation warning and inductor's "tensor cores available but not enabled"
                         hints -> not-environment: optional settings of the program
    deterministic_algorithms  use_deterministic_algorithms(True) meeting cuBLAS without CUBLAS_WORKSPACE_CONFIG -> env
                         (the variable, set before the process starts); an operation without a deterministic
                         implementation -> not-environment (warn_only, another operation)
    flash_attention_dtype  FlashAttention refusing float32 inputs -> not-environment: half precision or another attention
    loss_scale_skipped_step  fp16 loss scaling skipping a step on inf/NaN gradients (ESPnet, DeepSpeed, fairseq, apex)
                         -> not-environment: expected now and then; every step -> the model's range in fp16
    cpu_autocast_dtype   torch's CPU autocast refusing float16 ("AutocastCPU only support Bfloat16") -> not-environment:
                         the program's autocast dtype on the CPU (or a run that fell back to the CPU)
    nan_in_output        NumPy's "RuntimeWarning: invalid value encountered in cast" (NaN or inf turned into integers:
                         black or empty images) -> not-environment: the model's output has NaN
    grad_scaler_misuse   GradScaler's "unscale_() has already been called on this optimizer since the last update()"
                         -> not-environment: the training loop's order of unscale_, step and update
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_CUDA_NOTES = {"url": "https://docs.pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",
               "what": "TF32 on Ampere and later: torch.backends.cuda.matmul.fp32_precision / allow_tf32, "
                       "torch.set_float32_matmul_precision"}
_CONTEXT_CPP = {"url": "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/Context.cpp",
                "what": "alertCuBLASConfigNotDeterministic (CUBLAS_WORKSPACE_CONFIG=:4096:8 or :16:8 with CUDA >= 10.2), "
                        "alertNotDeterministic ('... does not have a deterministic implementation'), the TF32 API warning"}

_TF32 = re.compile(r"Please use the new API settings to control TF32 behavior"
                   r"|Tensor cores are available but not enabled"
                   r"|TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled")


def tf32_notice(ent, text):
    m, at = last_in_tail(_TF32, text)
    if m is None:
        return None
    api = m.group(0).startswith("Please use")
    sig = _sig("tf32-notice", "not-environment",
               "a TF32 notice: " + ("the program sets TF32 through the old allow_tf32 flags" if api else
                                    "float32 matmuls do not use TF32 tensor cores (a speed hint)"), 78,
               ("torch warns that torch.backends.cuda.matmul.allow_tf32 / torch.backends.cudnn.allow_tf32 (and "
                "allowTF32CuBLAS/allowTF32CuDNN) give way to the fp32_precision settings after torch 2.9; the "
                "program still runs as set." if api else
                "torch.compile's inductor notes that the GPU has TF32 tensor cores and float32 matrix multiplications "
                "run without them; results are right, only slower than they could be.") +
               " A warning about the program's settings: nothing is wrong with the installation.",
               look_at=("Set TF32 with the new settings (torch.backends.cuda.matmul.fp32_precision = 'tf32' or 'ieee', "
                        "torch.backends.cudnn.conv.fp32_precision = 'tf32'), or leave it: the old flags still work."
                        if api else
                        "Optional: torch.set_float32_matmul_precision('high') at start-up lets float32 matmuls use "
                        "TF32 (slightly lower precision, faster); leave it at 'highest' where exact float32 matters."),
               areas=("program",), sources=(_CUDA_NOTES, _CONTEXT_CPP))
    return _match(sig, text, at, {})


_CUBLAS_DETERMINISM = re.compile(r"Deterministic behavior was enabled with either[^\n]{0,160}?but this operation is not "
                                 r"deterministic because it uses CuBLAS")
_NOT_DETERMINISTIC = re.compile(r"(?P<op>[\w.:<>]{1,100}) does not have a deterministic implementation, but you set "
                                r"'torch\.use_deterministic_algorithms\(True\)'")


def deterministic_algorithms(ent, text):
    m, at = last_in_tail(_CUBLAS_DETERMINISM, text, "Deterministic behavior was enabled")
    if m is not None:
        sig = _sig("deterministic-cublas-workspace", "env",
                   "deterministic algorithms are on, and cuBLAS runs without CUBLAS_WORKSPACE_CONFIG", 86,
                   "torch.use_deterministic_algorithms(True) asks every operation for reproducible results; cuBLAS "
                   "(CUDA 10.2 and newer) gives them only with a fixed workspace, chosen by the environment variable "
                   "CUBLAS_WORKSPACE_CONFIG, which this process did not have when cuBLAS started.",
                   fix="Set CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8, less memory) before the process starts: `export "
                       "CUBLAS_WORKSPACE_CONFIG=:4096:8` (Linux/macOS shells), `set CUBLAS_WORKSPACE_CONFIG=:4096:8` "
                       "(cmd), `$env:CUBLAS_WORKSPACE_CONFIG=\":4096:8\"` (PowerShell), or "
                       "os.environ[\"CUBLAS_WORKSPACE_CONFIG\"] = \":4096:8\" before the first CUDA operation; or call "
                       "use_deterministic_algorithms(True, warn_only=True) if reproducibility is not required.",
                   areas=("env",), sources=(_CONTEXT_CPP,
                                            {"url": "https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility",
                                             "what": "cuBLAS: results reproducibility and CUBLAS_WORKSPACE_CONFIG"}))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_NOT_DETERMINISTIC, text, "does not have a deterministic implementation")
    if m is None:
        return None
    sig = _sig("operation-not-deterministic", "not-environment",
               "{op} has no deterministic implementation, and deterministic algorithms are on", 84,
               "torch.use_deterministic_algorithms(True) makes torch raise for every operation that has only a "
               "non-deterministic kernel on this device; {op} is one (torch's documentation lists them).",
               look_at="Pass warn_only=True (torch.use_deterministic_algorithms(True, warn_only=True)) to keep the other "
                       "operations deterministic and only warn for this one, replace the operation with a "
                       "deterministic equivalent, or turn deterministic algorithms off for that part.",
               areas=("program",), sources=(_CONTEXT_CPP,
                                            {"url": "https://docs.pytorch.org/docs/stable/generated/"
                                                    "torch.use_deterministic_algorithms.html",
                                             "what": "the operations that raise under deterministic algorithms"}))
    return _match(sig, text, at, {"op": m.group("op")})


_FA_DTYPE = re.compile(r"FlashAttention only supports? fp16 and bf16 data type")


def flash_attention_dtype(ent, text):
    m, at = last_in_tail(_FA_DTYPE, text, "FlashAttention only support")
    if m is None:
        return None
    sig = _sig("flash-attention-dtype", "not-environment",
               "FlashAttention got float32 tensors: it takes only fp16 and bf16", 86,
               "flash-attn's kernels exist for float16 and bfloat16 only and check the query's dtype; the model (or the "
               "attention's inputs, after a layer that upcasts) is in float32. The installation is fine.",
               look_at="Run the model in half precision: load it with torch_dtype=torch.bfloat16 (or float16), set "
                       "bf16=True / fp16=True in the trainer's arguments, or wrap the forward in torch.autocast('cuda', "
                       "dtype=torch.bfloat16); for float32, choose another attention (attn_implementation='sdpa').",
               areas=("program",),
               sources=({"url": "https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp",
                         "what": "TORCH_CHECK: 'FlashAttention only support fp16 and bf16 data type'"},))
    return _match(sig, text, at, {})


# fp16 loss scaling's own words when it skips a step: ESPnet (espnet2/train/trainer.py), DeepSpeed
# (deepspeed/runtime/fp16/loss_scaler.py: "OVERFLOW! Rank N Skipping step. Attempted loss scale: A, reducing to B"),
# fairseq (fairseq/trainer.py: "overflow detected, setting loss scale to: X"), apex (apex/amp/handle.py: "Gradient
# overflow.  Skipping step, loss scaler 0 reducing loss scale to X")
_SKIPPED_STEP = re.compile(r"(?i)grad(?:ient)? norm is (?:nan|inf)\b[^\n]{0,20}skipping"
                           r"|OVERFLOW!(?: Rank \d{1,6})? Skipping step"
                           r"|overflow detected, setting loss scale to"
                           r"|Gradient overflow\.\s{1,3}Skipping step")


def loss_scale_skipped_step(ent, text):
    m, at = last_in_tail(_SKIPPED_STEP, text)
    if m is None:
        return None
    sig = _sig("loss-scale-skipped-step", "not-environment",
               "mixed-precision training skipped a step on inf/NaN gradients (loss scaling)", 82,
               "With fp16 mixed precision the loss is multiplied by a scale before backward so small gradients do not "
               "vanish; when a gradient overflows to inf/NaN the step is skipped and the scale lowered (GradScaler, "
               "DeepSpeed, fairseq and apex all do this). Now and then, above all at the start, this is the scale "
               "search working as designed.",
               look_at="Occasional skips need nothing. Skips on every step mean the model overflows float16 itself: "
                       "train in bfloat16 (same range as float32, no loss scaling needed) where the GPU has it, lower "
                       "the learning rate or clip gradients, or keep the loss computation outside autocast.",
               areas=("program",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/amp.html#gradient-scaling",
                         "what": "GradScaler: steps with inf/NaN gradients are skipped and the scale reduced"},))
    return _match(sig, text, at, {})


# torch's CPU autocast before it accepted float16 (torch/amp/autocast_mode.py: "Currently, AutocastCPU only support
# Bfloat16 as the autocast_cpu_dtype"; later releases warn "CPU Autocast only supports dtype of torch.bfloat16 ...")
_CPU_AUTOCAST = re.compile(r"AutocastCPU only support[s]? Bfloat16|CPU Autocast only supports dtypes? of torch\.bfloat16")


def cpu_autocast_dtype(ent, text):
    m, at = last_in_tail(_CPU_AUTOCAST, text, "utocast")
    if m is None:
        return None
    sig = _sig("cpu-autocast-dtype", "not-environment", "torch's CPU autocast was asked for float16", 80,
               "The program enters autocast on the CPU with float16; this torch's CPU autocast supports bfloat16 only. "
               "Code written for the GPU meets it when it runs on the CPU: a machine without a usable GPU, or a "
               "device chosen as 'cpu'.",
               look_at="If the GPU was meant, check that torch sees it (`python -c \"import torch; "
                       "print(torch.cuda.is_available())\"`) and that the program runs on it; on the CPU use "
                       "torch.autocast('cpu', dtype=torch.bfloat16), or no autocast (the program's fp32 / --cpu option).",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/blob/main/torch/amp/autocast_mode.py",
                         "what": "torch.autocast: the dtypes CPU autocast supports"},))
    return _match(sig, text, at, {})


# NumPy's floating-point warning when NaN/inf meet an integer cast (an image turned to uint8): the values were already
# NaN, which a model in half precision, or an attention kernel in a mode the model does not support, produces
_NAN_CAST = re.compile(r"RuntimeWarning: invalid value encountered in (?:cast|true_divide|divide|multiply|scalar)")


def nan_in_output(ent, text):
    m, at = last_in_tail(_NAN_CAST, text, "invalid value encountered in")
    if m is None:
        return None
    sig = _sig("nan-in-output", "not-environment", "the program's output holds NaN (NumPy's invalid-value warning)", 62,
               "NumPy warns so when NaN or inf values are cast or divided: an image or tensor turned into integers came "
               "out of the model as NaN, which shows as black or empty output. Half precision overflowing, an "
               "attention kernel in a mode the model does not support, or a bad input produces it; the installation "
               "does not.",
               look_at="Run the step in float32 (or bfloat16) instead of float16, turn off the optional attention backend "
                       "(SageAttention, xformers) or choose the mode its project recommends for the model, and check the "
                       "inputs for NaN (torch.isnan(x).any()). Nothing to install.",
               sources=({"url": "https://numpy.org/doc/stable/reference/generated/numpy.errstate.html",
                         "what": "NumPy's floating-point error handling: 'invalid' is raised for NaN results and casts"},))
    return _match(sig, text, at, {})


# torch/amp/grad_scaler.py: unscale_ twice before update()
_UNSCALE_TWICE = re.compile(r"unscale_\(\) has already been called on this optimizer since the last update\(\)")


def grad_scaler_misuse(ent, text):
    m, at = last_in_tail(_UNSCALE_TWICE, text, "unscale_() has already been called")
    if m is None:
        return None
    sig = _sig("grad-scaler-misuse", "not-environment", "GradScaler.unscale_() ran twice for one optimizer step", 82,
               "torch's GradScaler allows one unscale_() per optimizer between update() calls; the training loop (or a "
               "framework's, with gradient clipping or accumulation in its own hooks) called it again. The "
               "installation is not at fault.",
               look_at="Call scaler.unscale_(optimizer) once per step, before clipping, then scaler.step(optimizer) and "
                       "scaler.update(); where a framework does this itself (Lightning's precision plugin, Accelerate), "
                       "remove the loop's own call or upgrade the framework if its release has the bug.",
               sources=({"url": "https://pytorch.org/docs/stable/notes/amp_examples.html#gradient-clipping",
                         "what": "AMP examples: unscale_ once per step, before clipping"},))
    return _match(sig, text, at, {})
