"""explain's ninetieth round, from the misses of test132 (Keras 3 and its backends): Keras 2.4+ under an older
TensorFlow, Keras 3's KERAS_BACKEND, a tensorflow without keras, and XLA without a PTX compiler. The texts are written
for these tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_keras_needing_a_newer_tensorflow_names_both_pairs():
    r = diagnose.diagnose("ImportError: Keras requires TensorFlow 2.2 or higher. Install TensorFlow via `pip install "
                          "tensorflow`")
    assert r["signature"] == "keras-needs-newer-tensorflow" and r["layer"] == "tensorflow"
    assert "tensorflow>=2.2" in _fix(r) and "keras<=2.3.1" in _fix(r)


def test_an_unknown_keras_backend_lists_the_valid_ones():
    r = diagnose.diagnose("ValueError: Unable to import backend : mxnet")
    assert r["signature"] == "keras-backend-unknown" and "KERAS_BACKEND" in _fix(r) and "torch" in _fix(r)
    valid = diagnose.diagnose("ValueError: Unable to import backend : jax")
    assert valid["signature"] == "keras-backend-not-installed" and "jax" in _fix(valid)


def test_a_local_tensorflow_folder_without_keras_is_the_shadow():
    r = diagnose.diagnose("ImportError: cannot import name 'keras' from 'tensorflow' (/home/user/proj/tensorflow/"
                          "__init__.py)")
    assert r["signature"] == "tensorflow-without-keras" and "Rename" in _fix(r)
    installed = diagnose.diagnose("ImportError: cannot import name 'keras' from 'tensorflow' (/opt/venv/lib/python3.9/"
                                  "site-packages/tensorflow/__init__.py)")
    assert "pip install -U tensorflow" in _fix(installed)


def test_xla_without_a_ptx_compiler_is_the_cuda_compiler_tools():
    r = diagnose.diagnose("No PTX compilation provider is available. Neither ptxas/nvlink nor nvjtlink is available.")
    assert r["signature"] == "xla-no-ptx-compiler" and r["layer"] == "toolchain" and "jax[cuda12]" in _fix(r)
    tf = diagnose.diagnose("2025-01-01 W tensorflow/compiler/xla/x.cc:1] No PTX compilation provider is available.")
    assert tf["layer"] == "tensorflow" and "tensorflow[and-cuda]" in _fix(tf)
