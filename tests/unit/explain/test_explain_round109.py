"""explain's hundred-and-ninth round, from the misses of test199 to test208: argparse refusing a GPU value where the
program's choices come from its installed runtime, insightface's log of sessions that got only the CPU provider,
and thrust's system_error carrying the CUDA runtime's message. The texts are written for these tests from the
programs' message formats (argparse's "invalid choice", insightface's "Applied providers", thrust's "<what>:
<cudaGetErrorString>"), not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_a_gpu_value_refused_where_the_choices_offer_only_the_cpu():
    r = diagnose.diagnose("usage: swap.py [-h] [--execution-provider {cpu}]\nswap.py: error: argument "
                          "--execution-provider: invalid choice: 'cuda' (choose from 'cpu')")
    assert r["signature"] == "gpu-choice-not-offered" and r["layer"] == "gpu-unused" and r["environment_problem"]
    assert "onnxruntime-gpu" in r["fix"]
    # a device option of a torch program: torch's CUDA build, not ONNX Runtime's package
    t = diagnose.diagnose("train.py: error: argument --device: invalid choice: 'gpu' (choose from 'cpu')")
    assert t["signature"] == "gpu-choice-not-offered" and "download.pytorch.org/whl/cu" in t["fix"]
    assert "onnxruntime" not in t["fix"]


def test_a_gpu_offered_under_another_name_is_the_programs_question():
    r = diagnose.diagnose("setup.py: error: argument --backend: invalid choice: 'cuda' (choose from 'default', "
                          "'cuda-12.4', 'rocm', 'cpu')")
    assert r["signature"] == "gpu-choice-under-another-name" and r["environment_problem"] is False
    assert "cuda-12.4" in (r["generic_fix"] or "")


def test_other_invalid_choices_are_not_read_as_the_gpu():
    r = diagnose.diagnose("main.py: error: argument --mode: invalid choice: 'fast' (choose from 'slow', 'exact')")
    assert r["signature"] not in ("gpu-choice-not-offered", "gpu-choice-under-another-name")


def test_insightface_sessions_that_got_only_the_cpu_provider():
    log = ("Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}\n"
           "find model: /home/user/.insightface/models/buffalo_l/det_10g.onnx detection [1, 3, '?', '?'] 127.5 128.0\n"
           "Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}\n"
           "find model: /home/user/.insightface/models/buffalo_l/w600k_r50.onnx recognition ['None', 3, 112, 112] "
           "127.5 127.5\n")
    r = diagnose.diagnose(log)
    assert r["signature"] == "onnxruntime-sessions-on-cpu" and r["layer"] == "gpu-unused"
    assert "onnxruntime-gpu" in r["fix"]
    # one session with CUDA's provider: the GPU is in use
    mixed = log.replace("Applied providers: ['CPUExecutionProvider'], with options: {'CPUExecutionProvider': {}}\nfind "
                        "model: /home/user/.insightface/models/buffalo_l/det_10g",
                        "Applied providers: ['CUDAExecutionProvider', 'CPUExecutionProvider'], with options: {}\nfind "
                        "model: /home/user/.insightface/models/buffalo_l/det_10g")
    assert diagnose.diagnose(mixed)["signature"] != "onnxruntime-sessions-on-cpu"
    # a failure after the log is what to read
    failed = log + "Traceback (most recent call last):\n  File \"app.py\", line 3\nValueError: shape mismatch"
    assert diagnose.diagnose(failed)["signature"] != "onnxruntime-sessions-on-cpu"


def test_thrusts_error_carries_the_cuda_runtimes_message():
    r = diagnose.diagnose("terminate called after throwing an instance of 'thrust::system::system_error'\n"
                          "  what():  device free failed: driver shutting down")
    assert r["signature"] == "code-cudaerror-cudartunloading" and r["environment_problem"] is False
    assert "exit" in (r["generic_fix"] or "")
