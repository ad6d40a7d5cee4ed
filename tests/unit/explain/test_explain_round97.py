"""explain's ninety-seventh round, from the misses of test146 (pose estimation and face libraries): ONNX Runtime 1.9+
refusing a session without its providers argument. The text is written for this test from ONNX Runtime's message
format, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_onnxruntime_without_providers_is_the_programs_call():
    r = diagnose.diagnose("ValueError: This ORT build has ['CUDAExecutionProvider', 'CPUExecutionProvider'] enabled. "
                          "Since ORT 1.9, you are required to explicitly set the providers parameter when instantiating "
                          "InferenceSession.")
    assert r["signature"] == "onnxruntime-providers-required" and "providers=" in _fix(r)
