"""explain's ninety-fifth round, from the misses of test140 to test142 (Lightning, multimodal repositories, robotics):
Lightning's device checks, a signal handler off the main thread, GradScaler's unscale_ twice, transformers refusing
Flash Attention 2, a torch-extension distribution not installed, CMake's Find modules, make with another CUDA's path,
and the docker client without its daemon. The texts are written for these tests from the messages' formats, not
copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_lightning_asked_for_a_gpu_torch_cannot_see():
    r = diagnose.diagnose("MisconfigurationException: You requested GPUs: [0]\n But your machine only has: []")
    assert r["signature"] == "lightning-no-gpu-seen" and r["layer"] == "gpu-unused"
    other = diagnose.diagnose("MisconfigurationException: You requested GPUs: [2] But your machine only has: [0, 1]")
    assert other["signature"] == "lightning-gpu-index-absent" and other["environment_problem"] is False


def test_lightnings_accelerator_unavailable_is_the_torch_that_runs():
    r = diagnose.diagnose("MisconfigurationException: `CUDAAccelerator` can not run on your system since the accelerator "
                          "is not available.")
    assert r["signature"] == "lightning-accelerator-unavailable" and "download.pytorch.org/whl/cu" in _fix(r)


def test_signal_handlers_off_the_main_thread_are_the_programs():
    r = diagnose.diagnose("ValueError: signal only works in main thread")
    assert r["signature"] == "signal-outside-main-thread" and r["environment_problem"] is False


def test_unscale_twice_is_the_training_loops():
    r = diagnose.diagnose("RuntimeError: unscale_() has already been called on this optimizer since the last update().")
    assert r["signature"] == "grad-scaler-misuse" and r["environment_problem"] is False


def test_transformers_refusing_flash_attention_2_three_ways():
    cls = diagnose.diagnose("ValueError: MyVisionModel does not support Flash Attention 2.0 yet.")
    assert cls["signature"] == "flash-attention-2-unsupported-model" and "sdpa" in _fix(cls)
    f32 = diagnose.diagnose("Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the current "
                            "dype in LlamaModel is torch.float32.")
    assert f32["signature"] == "flash-attention-2-float32" and "bfloat16" in _fix(f32)
    missing = diagnose.diagnose("ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the "
                                "following error: the package flash_attn seems to be not installed.")
    assert missing["signature"] == "flash-attention-2-not-installed" and missing["layer"] == "toolchain"


def test_a_torch_extension_distribution_not_installed():
    r = diagnose.diagnose("  File \"train.py\", line 3, in <module>\n    from mamba_ssm import Mamba\n"
                          "ModuleNotFoundError: No module named 'mamba_ssm'")
    assert r["signature"] == "torch-extension-not-installed" and "mamba-ssm" in _fix(r)


def test_cmakes_find_module_failures():
    trt = diagnose.diagnose("CMake Error: Could NOT find TensorRT (missing: TensorRT_INCLUDE_DIR TensorRT_LIBRARY)")
    assert trt["signature"] == "cmake-find-module-failed" and "TensorRT_ROOT" in _fix(trt)
    cuda = diagnose.diagnose("Could NOT find CUDA: Found unsuitable version \"10.2\", but required is at least \"11.0\"")
    assert cuda["signature"] == "cmake-find-module-failed" and "CUDAToolkit_ROOT" in _fix(cuda) and "11.0" in _fix(cuda)


def test_make_asking_for_another_cudas_file():
    r = diagnose.diagnose("make[2]: *** No rule to make target '/usr/local/cuda-11.3/lib64/libcudart_static.a', needed "
                          "by 'lib/libfoo.so'.  Stop.")
    assert r["signature"] == "make-no-rule-for-cuda-file" and "11.3" in r["title"]


def test_docker_without_its_daemon():
    r = diagnose.diagnose("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
                          "running?")
    assert r["signature"] == "docker-daemon-unreachable" and "systemctl start docker" in _fix(r)
