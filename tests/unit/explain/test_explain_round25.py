"""explain's twenty-fifth round, from test25's misses (a feature the GPU, build or backend lacks) read as structure:
a capability floor stated as the refusal states it ("less than 7.0 are not supported", "< 7.5 detected"), the GPU's
capability then read from its name; features refused in words (bitsandbytes' int8 matmul, fast FP16, ggml's CUDA
graphs); torch.autocast's own refusals (bfloat16 on this GPU, a device with its index as the device type); engines
that run fp16/bf16 only; SDPA's "No available kernel"; xFormers' operator table when the reasons are the inputs.
The oracle is each component's documented behaviour (bitsandbytes' 0.37.0 changelog, torch/amp/autocast_mode.py,
xFormers' dispatch reasons)."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose


def test_a_floor_stated_as_the_refusal_with_the_gpus_named():
    r = diagnose.diagnose("RuntimeError: GPUs with compute capability less than 7.0 are not supported.\n"
                          "|   0  NVIDIA A100-PCIE-40GB          Off |\n|   1  Tesla P100-PCIE-16GB           Off |")
    assert r["signature"] == "gpu-below-capability-floor" and r["layer"] == "arch", r
    assert "7.0" in r["fix"] and "6.0" in r["fix"], r["fix"]  # the P100's capability, from its name


def test_bitsandbytes_slow_int8_below_its_floor():
    r = diagnose.diagnose("UserWarning: WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul is "
                          "supported for your GPU!")
    assert r["signature"] == "gpu-below-int8-capability" and r["layer"] == "arch", r
    assert "4-bit" in r["fix"] and "0.37" in r["fix"], r["fix"]


@pytest.mark.parametrize("text, sig, word", [
    ("ERROR: Your GPU does not support Int8 Matmul!", "gpu-lacks-int8-matmul", "0.37"),
    ("engine.cc:80] You specify FP16 mode, but the hardware do not support FP16 speed up, use FP32 instead.",
     "gpu-lacks-fast-fp16", "FP32"),
    ("RuntimeError: TCNN was not compiled with half-precision support.", "gpu-lacks-fast-fp16", "FP32"),
    ("ggml_backend_cuda_graph_compute: disabling CUDA graphs due to GPU architecture", "gpu-lacks-cuda-graphs",
     "GRAPHS=OFF"),
])
def test_features_refused_in_words(text, sig, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == "arch", r
    assert word in r["fix"], r["fix"]


def test_autocast_refusals_are_the_program():
    bf16 = diagnose.diagnose("RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
                             "float16.")
    assert bf16["signature"] == "autocast-bf16-unsupported" and bf16["environment_problem"] is False, bf16
    assert "is_bf16_supported" in bf16["fix"] and "float16" in bf16["fix"]
    dev = diagnose.diagnose("RuntimeError: User specified an unsupported autocast device_type 'cuda:0'")
    assert dev["signature"] == "autocast-device-type" and dev["environment_problem"] is False, dev
    assert "'cuda'" in dev["fix"], dev["fix"]
    other = diagnose.diagnose("RuntimeError: User specified an unsupported autocast device_type 'npu'")
    assert other["signature"] == "autocast-device-type" and "index" not in other["explanation"]


def test_an_engine_that_runs_half_precision_only():
    r = diagnose.diagnose("NotImplementedError: Only fp16 and bf16 are supported")
    assert r["signature"] == "engine-half-precision-only" and r["environment_problem"] is False, r


def test_sdpa_without_a_kernel():
    r = diagnose.diagnose("    out = F.scaled_dot_product_attention(\nRuntimeError: No available kernel.  Aborting "
                          "execution.")
    assert r["signature"] == "sdpa-no-kernel" and r["layer"] == "not-environment", r
    assert "MATH" in r["fix"] or "math" in r["fix"]


_XF = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
       "     query       : shape=(1, 257, 6, 64) (torch.float32)\n")


def test_xformers_refusing_cpu_tensors():
    r = diagnose.diagnose(_XF + "`fa2F@v2.5.7-pt` is not supported because:\n    device=cpu (supported: {'cuda'})\n"
                                "    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})\n"
                                "`cutlassF-pt` is not supported because:\n    device=cpu (supported: {'cuda'})\n")
    assert r["signature"] == "xformers-inputs-refused" and r["environment_problem"] is False, r
    assert ".to('cuda')" in r["fix"]


def test_xformers_refusing_a_misaligned_bias_on_a_gpu_that_runs_the_operator():
    r = diagnose.diagnose(_XF + "`fa3F@0.0.0` is not supported because:\n    requires device with capability > (9, 0) "
                                "but your GPU has capability (8, 9) (too old)\n`cutlassF-pt` is not supported because:\n"
                                "    attn_bias.stride(-2) % 8 != 0 (attn_bias.stride() = (1, 248004, 498, 1))\n")
    assert r["signature"] == "xformers-inputs-refused", r
    assert "cutlassF-pt" in r["explanation"] and "8-aligned" in r["fix"], r


def test_xformers_held_back_by_the_gpu_alone_is_the_gpu():
    r = diagnose.diagnose(_XF + "`fa2F` is not supported because:\n    requires device with capability > (8, 0) but "
                                "your GPU has capability (7, 5) (too old)\n")
    assert r["signature"] != "xformers-inputs-refused" and r["layer"] == "arch", r
