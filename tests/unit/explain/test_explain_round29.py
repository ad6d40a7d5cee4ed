"""explain's twenty-ninth round, from test29's misses (the commonest failures of the Python stack in other words):
ProcessGroupNCCL's watchdog (a collective that timed out, a watchdog stuck in a CUDA call), cuBLAS/cuDNN
EXECUTION_FAILED under a stack built with CUDA 9/10 (the GPU generations such a build has no code for, from
knowledge.gpu_generations), a segfault at `import torch` told in words with the import order that worked, Triton of
another API than its caller's (GPUTarget, moved modules; read in the toolchain layer since the eighty-second round),
and an OS library missing read in the libraries layer. The texts are written for these tests from each component's
messages and documentation, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import gpu_generations
from explain_answers import fix_of as _fix


def test_a_collective_that_timed_out_names_the_rank_hunt_and_the_timeout():
    r = diagnose.diagnose(
        "[rank3]:[E1104 10:02:11.123 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5120, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800437 "
        "milliseconds before timing out.")
    assert r["signature"] == "nccl-collective-timeout" and r["layer"] == "distributed", r
    assert "TORCH_NCCL_DESYNC_DEBUG" in _fix(r) and "timedelta" in _fix(r)
    assert r["captures"].get("op") == "BROADCAST" and r["captures"].get("timeout") == "1800000"


def test_a_stuck_watchdog_names_the_heartbeat_variable_not_a_transport():
    r = diagnose.diagnose(
        "[rank0]:[E1104 ProcessGroupNCCL.cpp:1501] [PG 0 Rank 0] ProcessGroupNCCL's watchdog got stuck for 600 seconds "
        "without making progress in monitoring enqueued collectives.")
    assert r["signature"] == "nccl-watchdog-stuck" and r["layer"] == "distributed", r
    assert "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC" in _fix(r) and "py-spy" in _fix(r)
    assert "600" in r["explanation"]


def test_the_heartbeat_monitor_alone_is_the_stuck_watchdog():
    r = diagnose.diagnose("[rank1]:[F1104 ProcessGroupNCCL.cpp:1278] [PG 0 Rank 1] Heartbeat monitor timed out! "
                          "Process will be terminated after dumping debug info.")
    assert r["signature"] == "nccl-watchdog-stuck", r


@pytest.mark.parametrize("text, first", [
    ("cuDNN Error: CUDNN_STATUS_EXECUTION_FAILED\nbuilt with cudatoolkit=9.2", "10.0"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, "
     "&alpha, a, lda, b, ldb, &beta, c, ldc)`\ntorch 1.5.1 py3.7", "11.1"),
    ("tensorflow-gpu==2.1.0\nInternalError: Blas GEMM launch failed: CUBLAS_STATUS_EXECUTION_FAILED", "11.1"),
])
def test_execution_failed_under_a_cuda_9_or_10_stack_is_the_gpu_generation(text, first):
    r = diagnose.diagnose(text)
    assert r["layer"] == "arch" and r["environment_problem"], r
    assert f"CUDA {first} or newer" in _fix(r) and "nvidia-smi -L" in _fix(r)
    assert "Blackwell" in r["explanation"]


@pytest.mark.parametrize("text", [
    # the GPU named and one the build knows: the program's (the table's reading), not the generation
    "CUBLAS_STATUS_EXECUTION_FAILED\nGeForce GTX 1080 Ti, torch 1.4.0",
    # a current stack: nothing says the build is old
    "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx(...)`\ntorch 2.5.1+cu124",
])
def test_execution_failed_without_an_old_build_stays_the_program(text):
    r = diagnose.diagnose(text)
    assert r["layer"] != "arch", r


def test_the_generations_a_cuda_cannot_build_come_from_the_table():
    names = [g["generation"] for g in gpu_generations.generations_beyond("10.2")]
    assert names == ["Ampere", "Ada", "Hopper", "Blackwell"]
    assert gpu_generations.first_generation_beyond("9.0")["first_cuda"] == "10.0"
    assert gpu_generations.generations_beyond("12.8") == [] and gpu_generations.first_generation_beyond(None) is None


def test_a_segfault_at_import_told_in_words_keeps_the_order_that_worked():
    r = diagnose.diagnose(
        "When I import torch after open3d the interpreter stops.\n\nProgram received signal SIGSEGV, Segmentation "
        "fault.\n0x00007fffe1a2 in ?? () from /usr/lib/x86_64-linux-gnu/libGLdispatch.so.0\n\nIt works if I put "
        "`import torch` before `import open3d`.")
    assert r["signature"] == "crash-at-import" and r["layer"] == "libraries", r
    assert "import torch before open3d" in _fix(r)


def test_a_segfault_after_the_program_ran_is_not_read_as_an_import():
    r = diagnose.diagnose(
        "When I import torch everything is fine, then training starts.\nTraceback (most recent call last):\n"
        "  File \"train.py\", line 80, in <module>\nSegmentation fault (core dumped)")
    assert r["signature"] != "crash-at-import", r


@pytest.mark.parametrize("text, what", [
    ("  File \"/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py\", line 268, in compile\n"
     "    assert isinstance(target, GPUTarget), \"target must be of GPUTarget type\"\n"
     "AssertionError: target must be of GPUTarget type", "GPUTarget"),
    ("ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'", "AttrsDescriptor"),
    ("ModuleNotFoundError: No module named 'triton.language.extra.cuda'", "triton.language.extra.cuda"),
])
def test_triton_of_another_api_is_one_triton_matching_torch(text, what):
    r = diagnose.diagnose(text)
    assert r["signature"] == "triton-of-another-api" and r["layer"] == "toolchain", r
    assert "pytorch-triton" in _fix(r) and "pip show torch" in _fix(r)
    assert what in r["explanation"]


def test_triton_of_another_api_on_windows_names_triton_windows():
    r = diagnose.diagnose("C:\\ComfyUI\\python_embeded\\Lib\\site-packages\\torch\\_inductor\\runtime\\hints.py\n"
                          "ImportError: cannot import name 'AttrsDescriptor' from 'triton.backends.compiler'")
    assert r["signature"] == "triton-of-another-api" and "triton-windows" in _fix(r), r


def test_an_os_library_missing_is_in_the_libraries_layer():
    r = diagnose.diagnose("ImportError: libGL.so.1: cannot open shared object file: No such file or directory")
    assert r["signature"] == "os-library-missing" and r["layer"] == "libraries", r
    assert "libgl1" in _fix(r)
