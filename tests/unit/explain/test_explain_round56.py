"""explain's fifty-sixth round, from test57's misses (macOS and Apple silicon): dyld's "Library not loaded" and a binary
for a newer macOS, ld's undefined OpenMP runtime symbols, the MPS fallback notice, tensorflow-metal built for another
TensorFlow, a misspelt torch.backends name, and the python.org framework path as a sign of macOS. The texts are written
for these tests from the programs' messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


def test_libomp_not_loaded_names_where_to_put_it():
    r = diagnose.diagnose("dyld[123]: Library not loaded: @rpath/libomp.dylib\n  Referenced from: /Users/a/app/libtorch/"
                          "lib/libtorch_cpu.dylib\n  Reason: tried: '/Users/a/app/libtorch/lib/libomp.dylib' (no such file)")
    assert r["signature"] == "dyld-library-not-loaded" and r["layer"] == "macos"
    assert "brew install libomp" in _fix(r) and "libomp" in r["title"]


def test_another_dylib_not_loaded_is_its_providers():
    r = diagnose.diagnose("ImportError: dlopen(x.so, 2): Library not loaded: /usr/local/opt/libpng/lib/libpng16.16.dylib")
    assert r["signature"] == "dyld-library-not-loaded" and "libpng16" in r["title"]
    assert "otool -L" in _fix(r)


def test_a_binary_for_a_newer_macos():
    r = diagnose.diagnose("Reason: no suitable image found.  Did find: /x/libomp.dylib: cannot load 'libomp.dylib' "
                          "(load command 0x80000034 is unknown)")
    assert r["signature"] == "binary-for-newer-macos" and r["layer"] == "macos"


def test_openmp_runtime_not_linked():
    r = diagnose.diagnose('Undefined symbols for architecture arm64:\n  "___kmpc_fork_call", referenced from:\n'
                          "      _foo in bar.o")
    assert r["signature"] == "openmp-runtime-not-linked" and r["layer"] == "toolchain"
    assert "-lomp" in _fix(r) and "arm64" in r["title"]


def test_the_mps_fallback_warning_is_a_notice():
    r = diagnose.diagnose("UserWarning: The operator 'aten::nonzero' is not currently supported on the MPS backend and "
                          "will fall back to run on the CPU. This may have performance implications.")
    assert r["signature"] == "mps-fallback-notice" and r["environment_problem"] is False
    assert "aten::nonzero" in r["title"] and not _INSTALL.search(_fix(r))


def test_tensorflow_metal_built_for_another_tensorflow():
    r = diagnose.diagnose("tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/venv/lib/python3.11/site-"
                          "packages/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): Symbol not found: "
                          "_TF_GetInputPropertiesList")
    assert r["signature"] == "tensorflow-metal-plugin-mismatch" and r["layer"] == "tensorflow"
    assert "compatibility table" in _fix(r)


@pytest.mark.parametrize("attr, meant", [("mps_is_available", "torch.backends.mps.is_available"),
                                         ("cudnn_enabled", "torch.backends.cudnn.enabled")])
def test_a_submodule_and_function_joined_by_an_underscore(attr, meant):
    r = diagnose.diagnose(f"AttributeError: module 'torch.backends' has no attribute '{attr}'")
    assert r["signature"] == "torch-name-misspelt" and r["environment_problem"] is False
    assert meant in _fix(r)


def test_a_public_name_torch_lacks_is_still_a_newer_torchs():
    r = diagnose.diagnose("AttributeError: module 'torch' has no attribute 'compile'")
    assert r["signature"] != "torch-name-misspelt"


def test_the_python_org_framework_path_means_macos():
    r = diagnose.diagnose('  File "/Library/Frameworks/Python.framework/Versions/3.11/lib/python3.11/site-packages/torch/'
                          'cuda/__init__.py", line 239, in _lazy_init\n    raise AssertionError("Torch not compiled with '
                          'CUDA enabled")')
    assert r["signature"] == "cuda-requested-on-macos" and r["environment_problem"] is False
