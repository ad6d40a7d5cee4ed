"""explain's ninety-eighth round, from the misses of test150 (diffusers pipelines): a model or pipeline with offload
hooks moved to a device by hand. The texts are written for these tests from accelerate's and diffusers' message
formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_moving_an_offloaded_model_is_the_programs():
    for text in ("RuntimeError: You can't move a model that has some modules offloaded to cpu or disk.",
                 "It seems like you have activated sequential model offloading by calling `enable_sequential_cpu_offload`, "
                 "but are now attempting to move the pipeline to GPU."):
        r = diagnose.diagnose(text)
        assert r["signature"] == "offloaded-model-moved" and r["environment_problem"] is False, text
