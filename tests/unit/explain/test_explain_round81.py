"""explain's eighty-first round, from the misses of test117 (ARM64 servers): a compiled module named for its
distribution, with no importing frame; an architecture target named only where a backend reports the device it
started on. The texts are written for these tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_compiled_module_named_for_its_distribution_names_that_distribution():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'causal_conv1d_cuda'")
    assert r["signature"] == "package-cuda-module-missing" and r["layer"] == "toolchain"
    assert "causal-conv1d" in r["title"] and "causal-conv1d" in _fix(r)
    flash = diagnose.diagnose("    import flash_attn_2_cuda as flash_attn_gpu\nModuleNotFoundError: No module named "
                              "'flash_attn_2_cuda'")
    assert "flash-attn" in _fix(flash) and "<package>" not in _fix(flash)


def test_an_unknown_compiled_module_without_a_frame_names_no_distribution():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'mystery_pkg_cuda'")
    assert r["signature"] == "package-cuda-module-missing" and "<package>" in _fix(r)


def test_a_target_on_the_backends_start_line_is_not_an_architecture_problem():
    text = ("engine: CUDA backend initialized on NVIDIA H100 80GB HBM3 (sm_90)\nengine: loaded 12 layers\n"
            "engine: decode step failed")
    r = diagnose.diagnose(text)
    assert r.get("layer") == "not-environment" and r.get("environment_problem") is False


def test_a_target_on_a_refusal_line_stays_the_architecture():
    r = diagnose.diagnose("engine: CUDA backend initialized on NVIDIA B200 (sm_100)\nkernel for sm_100 not found: "
                          "the binary was built for sm_80 sm_90 only, launch failed")
    assert r.get("layer") == "arch"
