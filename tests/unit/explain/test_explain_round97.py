"""explain's ninety-seventh round, from the misses of test146 (pose estimation and face libraries) and test149
(DirectML): ONNX Runtime 1.9+ refusing a session without its providers argument, or with them as a string. The texts
are written for these tests from ONNX Runtime's message format, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_onnxruntime_without_providers_is_the_programs_call():
    r = diagnose.diagnose("ValueError: This ORT build has ['CUDAExecutionProvider', 'CPUExecutionProvider'] enabled. "
                          "Since ORT 1.9, you are required to explicitly set the providers parameter when instantiating "
                          "InferenceSession.")
    assert r["signature"] == "onnxruntime-providers-required" and "providers=" in _fix(r)


def test_onnxruntime_providers_given_as_a_string():
    r = diagnose.diagnose("ValueError: DmlExecutionProvider does not contain a subset of available providers "
                          "['CPUExecutionProvider', 'DmlExecutionProvider']")
    assert r["signature"] == "onnxruntime-providers-not-a-list" and r["environment_problem"] is False
