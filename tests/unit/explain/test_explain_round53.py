"""explain's fifty-third round, from test54's misses (numerics and precision): TF32 notices, deterministic algorithms
(cuBLAS' workspace variable, operations without a deterministic kernel), FlashAttention given float32, fp16 loss
scaling skipping steps, Triton's fp8 floors, and half precision on the CPU by what the text shows. The texts are written
for these tests from the libraries' messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


@pytest.mark.parametrize("text", [
    "UserWarning: Please use the new API settings to control TF32 behavior, such as "
    "torch.backends.cuda.matmul.fp32_precision = 'ieee'. Old settings will be deprecated after Pytorch 2.9.",
    "eval_frame.py:318: UserWarning: Tensor cores are available but not enabled. Consider setting "
    "torch.backends.cuda.matmul.allow_tf32 == True in your python script for speedups",
    "compile_fx.py:236: UserWarning: TensorFloat32 tensor cores for float32 matrix multiplication available but not "
    "enabled. Consider setting `torch.set_float32_matmul_precision('high')` for better performance.",
])
def test_tf32_notices_are_the_programs_settings(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "tf32-notice" and r["environment_problem"] is False
    assert "fp32_precision" in _fix(r) or "set_float32_matmul_precision" in _fix(r)
    assert not _INSTALL.search(_fix(r))


def test_cublas_determinism_names_the_variable_for_every_shell():
    r = diagnose.diagnose("RuntimeError: Deterministic behavior was enabled with either "
                          "`torch.use_deterministic_algorithms(True)` or `at::Context::setDeterministicAlgorithms(true)`, "
                          "but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2.")
    assert r["signature"] == "deterministic-cublas-workspace" and r["layer"] == "env"
    fix = _fix(r)
    assert "export CUBLAS_WORKSPACE_CONFIG=:4096:8" in fix and "$env:CUBLAS_WORKSPACE_CONFIG" in fix
    assert "set CUBLAS_WORKSPACE_CONFIG=:4096:8" in fix


def test_an_operation_without_a_deterministic_kernel_is_the_program():
    r = diagnose.diagnose("RuntimeError: adaptive_avg_pool2d_backward_cuda does not have a deterministic "
                          "implementation, but you set 'torch.use_deterministic_algorithms(True)'. You can turn off "
                          "determinism just for this operation.")
    assert r["signature"] == "operation-not-deterministic" and r["environment_problem"] is False
    assert "adaptive_avg_pool2d_backward_cuda" in r["title"] and "warn_only=True" in _fix(r)


def test_flash_attention_given_float32():
    r = diagnose.diagnose('  File "flash_attn_interface.py", line 96, in _flash_attn_forward\n'
                          "RuntimeError: FlashAttention only support fp16 and bf16 data type")
    assert r["signature"] == "flash-attention-dtype" and r["environment_problem"] is False
    assert "torch_dtype=torch.bfloat16" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("text", [
    "WARNING: The grad norm is nan. Skipping updating the model",
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768",
    "2021-03-01 | INFO | fairseq.trainer | NOTE: overflow detected, setting loss scale to: 64.0",
    "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
])
def test_loss_scaling_skips_are_expected_now_and_then(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "loss-scale-skipped-step" and r["environment_problem"] is False
    assert "bfloat16" in _fix(r)


@pytest.mark.parametrize("text, have", [
    ("AssertionError: fp8e4nv data type is not supported on CUDA arch < 89", None),
    ("Error: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\n"
     "GPU: 2x A10 24GB", "8.6"),
])
def test_tritons_fp8_floor_is_the_programs_number_format(text, have):
    r = diagnose.diagnose(text)
    assert r["signature"] == "gpu-below-dtype-capability" and r["environment_problem"] is False
    assert "8.9" in _fix(r)
    if have:
        assert have in r["title"]


def test_a_gpu_at_or_above_the_fp8_floor_is_not_blamed():
    r = diagnose.diagnose("AssertionError: fp8e4nv data type is not supported on CUDA arch < 89\nGPU: NVIDIA H100 80GB")
    assert r["signature"] != "gpu-below-dtype-capability"


def test_half_on_the_cpu_is_the_programs_dtype_without_gpu_words():
    r = diagnose.diagnose("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'")
    assert r["signature"] == "half-precision-on-cpu" and r["environment_problem"] is False
    assert "model.float()" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("context", ["I use ZLUDA on stable diffusion.",
                                     "torch.cuda.is_available() returned False"])
def test_half_on_the_cpu_where_the_gpu_did_not_engage(context):
    r = diagnose.diagnose(context + "\nRuntimeError: \"LayerNormKernelImpl\" not implemented for 'Half'")
    assert r["signature"] == "half-precision-on-cpu-gpu-meant" and r["layer"] == "gpu-unused"
    assert "torch.cuda.is_available()" in _fix(r)
