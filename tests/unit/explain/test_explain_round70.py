"""explain's seventieth round, from test89's misses (TensorFlow on native Windows): the DirectML plugin under a
TensorFlow newer than 2.10, a custom op's kernel helper header of another TensorFlow. The texts are written for these
tests from the messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_directml_plugin_under_a_newer_tensorflow():
    r = diagnose.diagnose("tensorflow.python.framework.errors_impl.NotFoundError: C:\\venv\\lib\\site-packages\\"
                          "tensorflow-plugins\\tfdml_plugin.dll not found")
    assert r["signature"] == "tensorflow-directml-plugin-not-loaded" and r["layer"] == "env"
    assert "tensorflow-cpu==2.10" in _fix(r)


def test_a_custom_op_for_a_newer_tensorflow():
    r = diagnose.diagnose('op.cu.cc:3:10: fatal error: tensorflow/core/util/gpu_kernel_helper.h: No such file or '
                          'directory\n #include "tensorflow/core/util/gpu_kernel_helper.h"')
    assert r["signature"] == "tensorflow-kernel-helper-header" and "cuda_kernel_helper.h" in _fix(r)


def test_a_custom_op_for_an_older_tensorflow():
    r = diagnose.diagnose("fatal error: tensorflow/core/util/cuda_kernel_helper.h: No such file or directory")
    assert r["signature"] == "tensorflow-kernel-helper-header" and "gpu_kernel_helper.h" in _fix(r)
