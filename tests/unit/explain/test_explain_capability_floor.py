"""A component's floor on the GPU's compute capability, in each form components print it: a number ("capability >=
7.0", vLLM's "Minimum capability: 89"), a pair (xformers' "> (8, 0) ... (7, 5)"), an architecture (flash-attn's
"only supports Ampere GPUs or newer").  The texts follow each message's format as its source writes it (quoted in
explain/layer_rules/capability.py); the oracle is the GPU's capability (the CUDA GPUs table) against the floor, and
what sets the floor says the fix: never a reinstall, since no build changes a GPU."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.layer_rules.capability import _norm

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)
FLASH = "RuntimeError: FlashAttention only supports Ampere GPUs or newer."


@pytest.mark.parametrize("printed, capability", [("89", "8.9"), ("86", "8.6"), ("120", "12.0"), ("100", "10.0"),
                                                 ("7", "7.0"), ("7.5", "7.5"), ("12.1", "12.1")])
def test_capabilities_are_read_as_components_print_them(printed, capability):
    assert _norm(printed) == capability


@pytest.mark.parametrize("gpu, have", [("Tesla V100-SXM2-32GB", "7.0"), ("Tesla T4", "7.5"),
                                       ("NVIDIA GeForce RTX 2080 Ti", "7.5")])
def test_flash_attention_on_a_gpu_before_ampere_names_both_capabilities_and_another_attention(gpu, have):
    r = diagnose.diagnose(f"GPU 0: {gpu}\n" + FLASH)
    assert r["layer"] == "arch" and r["signature"] == "gpu-below-attention-capability", r
    assert "8.0" in r["fix"] and have in r["fix"] and "sdpa" in r["fix"], r["fix"]
    assert not REINSTALL.search(r["fix"]), r["fix"]


def test_flash_attention_floor_without_a_gpu_named_still_explains():
    r = diagnose.diagnose(FLASH)
    assert r["layer"] == "arch" and "8.0" in r["fix"] and "sdpa" in r["fix"], r
    assert "{" not in r["fix"] and "{" not in r["title"], r


@pytest.mark.parametrize("gpu", ["NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3"])
def test_the_floor_does_not_answer_for_a_gpu_that_meets_it(gpu):
    r = diagnose.diagnose(f"GPU 0: {gpu}\n" + FLASH)
    assert (r or {}).get("signature") != "gpu-below-attention-capability", r


def test_xformers_operator_table_with_an_old_gpu():
    text = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(1, 4096, 8, 40) (torch.float16)\n"
            "`flshattF@v2.3.2` is not supported because:\n"
            "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n")
    r = diagnose.diagnose(text)
    assert r["layer"] == "arch" and "7.5" in r["fix"] and "8.0" in r["fix"], r
    assert not REINSTALL.search(r["fix"]), r["fix"]


def test_xformers_table_that_also_says_it_was_not_built_with_cuda_is_the_build_not_the_gpu():
    text = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "`flshattF@v2.3.2` is not supported because:\n"
            "    xFormers wasn't build with CUDA support\n"
            "    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)\n")
    r = diagnose.diagnose(text)
    assert (r or {}).get("signature") != "gpu-below-attention-capability", r


@pytest.mark.parametrize("need, have", [("89", "86"), ("90", "80"), ("80", "75")])
def test_a_quantization_method_above_the_gpu_is_the_models_format_not_the_install(need, have):
    text = (f"ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: {need}. "
            f"Current capability: {have}.")
    r = diagnose.diagnose(text)
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert _norm(need) in r["fix"] and _norm(have) in r["fix"] and not REINSTALL.search(r["fix"]), r["fix"]


def test_a_gpu_at_the_quantization_floor_is_not_below_it():
    r = diagnose.diagnose("ValueError: The quantization method awq is not supported for the current GPU. Minimum "
                          "capability: 75. Current capability: 86.")
    assert (r or {}).get("signature") != "gpu-below-dtype-capability", r


def test_a_lone_dash_reads_standard_input():
    out = subprocess.run([sys.executable, "-m", "torch_envcheck", "explain", "--no-probe", "-"], input=FLASH + "\n",
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "gpu-below-attention-capability" in out.stdout, (out.stdout, out.stderr)
