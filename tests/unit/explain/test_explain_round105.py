"""explain's hundred-and-fifth round, from the misses of test184 to test188 (CUDA graphs, Windows on ARM64, Ascend
NPUs, other vendors' GPU plugins, TPUs): inductor skipping CUDA graphs, a logged error that says it can be ignored,
vLLM's free-memory check wrapped over lines, libtpu held by another process or not loadable, and torch's x86-64-only
Windows requirements on Windows ARM64. The texts are written for these tests from the programs' message formats, not
copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def _r(text):
    return diagnose.diagnose(text)


def test_notices_that_are_not_failures():
    c = _r("skipping cudagraphs due to mutated inputs (2 instances). Found from :\n  File \"model.py\", line 40, in forward")
    assert c["signature"] == "cudagraphs-skipped" and c["environment_problem"] is False and "mutated inputs" in c["title"]
    # followed by a failure, the notice is not the answer
    assert _r("skipping cudagraphs due to cpu device (arg0_1)\nTraceback (most recent call last):\nRuntimeError: CUDA error: "
              "out of memory")["signature"] != "cudagraphs-skipped"
    i = _r("[ERROR] Get a block from the existing pool failed. Try to free cached blocks and reallocate. This error log "
           "can be ignored.")
    assert i["signature"] == "error-said-ignorable" and i["environment_problem"] is False


def test_vllms_free_memory_check_wrapped():
    r = _r("ValueError: Free memory on device (6.0/24.0 GiB) on startup is less than desired\nGPU memory utilization "
           "(0.9, 21.6 GiB). Decrease GPU memory utilization or\nreduce GPU memory used by other processes.")
    assert r["signature"] == "vllm-gpu-memory-taken" and r["environment_problem"] is False


def test_tpu_runtime():
    b = _r('libtpu.so already in use by another process probably owned by another user. Run "$ sudo lsof -w /dev/accel0" '
           "to figure out which process is using the TPU.")
    assert b["signature"] == "tpu-in-use" and b["layer"] == "driver" and "/tmp/libtpu_lockfile" in b["fix"]
    u = _r("RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to open /opt/venv/lib/python3.11/"
           "site-packages/libtpu/libtpu.so: cannot open shared object file")
    assert u["signature"] == "libtpu-unloadable" and 'jax[tpu]' in u["fix"]


def test_x64_only_requirements_on_windows_arm64():
    r = _r('ERROR: Could not find a version that satisfies the requirement intel-openmp==2025.1.1; platform_system == '
           '"Windows" (from torch) (from versions: none)\nERROR: No matching distribution found for intel-openmp==2025.1.1')
    assert r["signature"] == "x64-dependency-on-windows-arm64" and r["layer"] == "torch-build"
    assert "--no-deps torch" in r["fix"] and "intel-openmp" in r["title"]
