"""explain's ninety-third round, from the misses of test138 (video generation models): torch.OutOfMemoryError's short
form as ComfyUI prints it, and NumPy's invalid-value warning on a cast (NaN in the output). The texts are written for
these tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_allocation_on_device_alone_is_out_of_memory():
    r = diagnose.diagnose("!!! Exception during processing !!! Allocation on device")
    assert r["environment_problem"] is False and r["layer"] == "not-environment"


def test_numpys_invalid_value_on_a_cast_is_nan_in_the_output():
    r = diagnose.diagnose("/app/nodes.py:104: RuntimeWarning: invalid value encountered in cast\n  return (x * 255)"
                          ".astype(np.uint8)")
    assert r["signature"] == "nan-in-output" and r["environment_problem"] is False
