"""explain's twenty-first round, from test21's misses (what users launch) read as structure: CUDA's initialization
error in a program that forks workers is the fork, not the driver; a launcher's child killed by SIGKILL (-9) is host
memory; Lightning's "GPU available: True, used: False" is the Trainer's arguments; ggml's ARCHS beside the device's
compute capability; ollama loading only CPU backends; DeepSpeed finding no GPU; Horovod built without CUDA; the
device-ordinal assert; bitsandbytes loading its CPU library on a machine with a GPU.  The texts follow each tool's
documented format; the oracle is what the format means."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_cuda_initialization_error_in_forked_workers_is_the_program():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    for batch in "
                          "loader:\nRuntimeError: Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback "
                          "(most recent call last):\n  File \"dataset.py\", line 12, in __getitem__\n    x = x.cuda()\n"
                          "RuntimeError: CUDA error: initialization error")
    assert r["signature"] == "cuda-in-forked-child" and r["environment_problem"] is False, r
    assert "spawn" in r["fix"], r["fix"]
    # the same error with no fork in sight is not this reading
    o = diagnose.diagnose("RuntimeError: CUDA error: initialization error")
    assert o["signature"] != "cuda-in-forked-child", o["signature"]


def test_a_child_killed_by_sigkill_is_host_memory():
    r = diagnose.diagnose("[2024-05-02 10:11:12,345] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 4242\n"
                          "[2024-05-02 10:11:12,346] [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python', '-u', "
                          "'train.py'] exits with return code = -9")
    assert r["signature"] == "child-killed-by-sigkill" and r["environment_problem"] is False, r
    assert "dmesg" in r["fix"], r["fix"]
    t = diagnose.diagnose("torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 77) "
                          "of binary: /usr/bin/python3")
    assert t["signature"] == "child-killed-by-sigkill", t["signature"]


def test_lightning_not_using_a_visible_gpu_is_the_trainer():
    r = diagnose.diagnose("GPU available: True (cuda), used: False\nTPU available: False, using: 0 TPU cores\n"
                          "HPU available: False, using: 0 HPUs")
    assert r["signature"] == "lightning-gpu-setting" and "accelerator='gpu'" in r["fix"], r


def test_ggml_binary_without_the_gpus_architecture():
    r = diagnose.diagnose("ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3060, compute capability "
                          "8.6, VMM: yes\nsystem_info: n_threads = 8 | CUDA : ARCHS = 500,610,700 | CPU : AVX2 = 1 |\n"
                          "ggml-cuda.cu:88: CUDA error")
    assert r["signature"] == "ggml-binary-archs" and r["layer"] == "arch", r
    assert "CMAKE_CUDA_ARCHITECTURES=86" in r["fix"], r["fix"]
    ok = diagnose.diagnose("  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes\nsystem_info: CUDA : "
                           "ARCHS = 750,860 |")
    assert ok["signature"] != "ggml-binary-archs", ok["signature"]


def test_ollama_with_only_cpu_backends():
    r = diagnose.diagnose("load_backend: loaded CPU backend from /usr/lib/ollama/libggml-cpu-alderlake.so\n"
                          "msg=\"model weights\" buffer=CPU size=\"4.1 GiB\"")
    assert r["signature"] == "llm-runtime-cpu-only" and "CUDA" in r["fix"], r
    gpu = diagnose.diagnose("load_backend: loaded CUDA backend from /usr/lib/ollama/cuda_v12/libggml-cuda.so\n"
                            "load_backend: loaded CPU backend from /usr/lib/ollama/libggml-cpu-alderlake.so")
    assert gpu["signature"] != "llm-runtime-cpu-only", gpu["signature"]


def test_deepspeed_and_horovod_without_gpu():
    r = diagnose.diagnose("RuntimeError: Unable to proceed, no GPU resources available")
    assert r["signature"] == "launcher-finds-no-gpu" and r["layer"] == "driver", r
    h = diagnose.diagnose("Internal error. Requested ReadyEvent with GPU device but not compiled with CUDA.")
    assert h["signature"] == "framework-cpu-build" and h["layer"] == "toolchain", h
    assert "HOROVOD_GPU_OPERATIONS=NCCL" in h["fix"], h["fix"]


def test_device_ordinal_assert_is_the_visible_devices():
    r = diagnose.diagnose("torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device "
                          ">= 0 && device < num_gpus INTERNAL ASSERT FAILED at \"/pytorch/aten/src/ATen/cuda/CUDAContext.cpp"
                          "\":52, please report a bug to PyTorch. device=1, num_gpus=1")
    assert r["signature"] == "invalid-device-ordinal" and r["layer"] == "env", r


def test_bitsandbytes_loading_its_cpu_library_beside_a_gpu():
    r = diagnose.diagnose("CUDA SETUP: Highest compute capability among GPUs detected: 8.6\nCUDA SETUP: Detected CUDA "
                          "version 118\nCUDA SETUP: Loading binary /opt/conda/lib/python3.10/site-packages/bitsandbytes/"
                          "libbitsandbytes_cpu.so...")
    assert r["signature"] == "bitsandbytes-cpu-library-beside-gpu" and "bitsandbytes" in r["fix"], r
    # on a machine without a GPU the CPU library is the expected one
    c = diagnose.diagnose("CUDA SETUP: Loading binary /opt/conda/lib/python3.10/site-packages/bitsandbytes/"
                          "libbitsandbytes_cpu.so...")
    assert c["signature"] != "bitsandbytes-cpu-library-beside-gpu", c["signature"]
