"""explain's fiftieth round, from test51's misses (torch.compile, Inductor and Triton): inductor's check for MSVC's
cl.exe, Dynamo's recompile limit, and Triton's compiler passes failing on a kernel. The texts are written for these
tests from torch's and Triton's messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


def test_cl_not_found_is_msvc_on_path():
    r = diagnose.diagnose('  File "C:\\env\\Lib\\site-packages\\torch\\_inductor\\cpp_builder.py", line 135, in '
                          'check_compiler_exist_windows\n    raise RuntimeError(f"Compiler: {compiler} is not found.") '
                          'from exc\nRuntimeError: Compiler: cl is not found.')
    assert r["signature"] == "inductor-cxx-compiler-not-found" and r["layer"] == "toolchain"
    assert "vcvarsall.bat" in _fix(r) and "Native Tools" in _fix(r) and "eager" in _fix(r)


def test_another_cxx_named_says_cxx():
    r = diagnose.diagnose("torch._inductor.exc.InductorError: RuntimeError: Compiler: clang-cl is not found.")
    assert r["signature"] == "inductor-cxx-compiler-not-found" and "CXX" in _fix(r)
    assert "clang-cl" in r["title"]


@pytest.mark.parametrize("text, cfg, reason", [
    ("W0530 torch/_dynamo/convert_frame.py:964] [10/8] torch._dynamo hit config.recompile_limit (8)\n"
     "   function: 'forward' (model.py:232)\n   last reason: 10/7: tensor 'x' size mismatch at index 1. expected 1920, "
     "actual 1280", "recompile_limit", "tensor 'x' size mismatch at index 1. expected 1920, actual 1280"),
    ("torch._dynamo hit config.cache_size_limit (8)\n   last reason: L['self'].step == 3", "cache_size_limit",
     "L['self'].step == 3"),
    ("last reason: 2/7: tensor 'w' size mismatch at index 0. expected 64, actual 8. Guard failed on a parameter, "
     "consider using torch._dynamo.config.force_parameter_static_shapes = False\ntorch._dynamo.exc.FailOnRecompileLimitHit:"
     " recompile_limit reached with fullgraph=True.", "recompile_limit", "tensor 'w' size mismatch at index 0. expected "
     "64, actual 8"),
])
def test_the_recompile_limit_is_the_programs_inputs(text, cfg, reason):
    r = diagnose.diagnose(text)
    assert r["signature"] == "dynamo-recompile-limit" and r["layer"] == "not-environment", r
    assert r["environment_problem"] is False and not _INSTALL.search(_fix(r))
    assert reason in r["title"] and f"config.{cfg}" in _fix(r) and "mark_dynamic" in _fix(r)


def test_a_triton_pass_failure_is_the_kernels_configuration():
    r = diagnose.diagnose('  File "/venv/lib/python3.11/site-packages/triton/backends/nvidia/compiler.py", line 323, in '
                          'make_llir\n    pm.run(mod)\nRuntimeError: PassManager::run failed')
    assert r["signature"] == "triton-compiler-pass-failed" and r["environment_problem"] is False
    assert "num_stages" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("text", [
    "RuntimeError: PassManager::run failed",  # no Triton stage in the text: another MLIR user
    "make_ttgir\nerror: unsupported target sm_120a\nRuntimeError: PassManager::run failed",  # the architecture
])
def test_a_pass_failure_without_a_triton_stage_or_with_arch_words_is_not_this_rule(text):
    r = diagnose.diagnose(text)
    assert r is None or r["signature"] != "triton-compiler-pass-failed"
