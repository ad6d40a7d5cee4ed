"""explain's hundred-and-seventh round, from the misses of test194 to test198 (embedding libraries, annotation tools,
AutoML, Android and Termux, federated learning): ONNX Runtime's nodes-on-CPU warning as a notice, and a library that
says its own build has no GPU support. The texts are written for these tests from the programs' message formats, not
copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_onnxruntime_nodes_on_cpu_is_a_notice():
    r = diagnose.diagnose("[W:onnxruntime:, session_state.cc:1166 VerifyEachNodeIsAssignedToAnEp] Some nodes were not "
                          "assigned to the preferred execution providers which may or may not have an negative impact on "
                          "performance.")
    assert r["signature"] == "onnxruntime-nodes-on-cpu-notice" and r["environment_problem"] is False
    # a failure after the warning is what to read
    assert diagnose.diagnose("Some nodes were not assigned to the preferred execution providers\nTraceback (most recent "
                             "call last):\nRuntimeError: CUDA error: out of memory")["signature"] != \
        "onnxruntime-nodes-on-cpu-notice"


def test_a_library_that_says_its_build_has_no_gpu():
    r = diagnose.diagnose("[WARNING] fastdeploy_runtime.cc(141)::UseGpu The FastDeploy didn't compile with GPU, will force "
                          "to use CPU.")
    assert r["signature"] == "library-built-without-gpu" and r["layer"] == "gpu-unused"
    assert "fastdeploy-gpu-python" in r["fix"]
    other = diagnose.diagnose("WARN: Foolib was not compiled with CUDA support, falling back to CPU")
    assert other["signature"] == "library-built-without-gpu" and "fastdeploy" not in other["fix"]
