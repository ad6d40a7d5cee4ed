"""explain's fifty-fourth round, from test55's misses (the training frameworks over torch): torch extensions' run-time
builds, DeepSpeed's ops that did not build, accelerate's launch defaults and bf16 check, transformers' device_map
refusals, and ATen's kernel assertions printed without backticks. The texts are written for these tests from the
libraries' messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


@pytest.mark.parametrize("text, name", [
    ("RuntimeError: Error building extension 'fused_adam'", "fused_adam"),
    ("Emitting ninja build file /root/.cache/torch_extensions/py310_cu121/cpu_adam/build.ninja...\n"
     "Building extension module cpu_adam...\nsubprocess.CalledProcessError: Command '['ninja', '-v']' returned "
     "non-zero exit status 1.", "cpu_adam"),
    ("deepspeed zero3 FAILED: custom_cuda_kernel.cuda.o", None),
])
def test_a_run_time_extension_build_that_failed(text, name):
    r = diagnose.diagnose(text)
    assert r["signature"] == "extension-jit-build-failed" and r["layer"] == "toolchain"
    assert "CUDA_HOME" in _fix(r) and "torch.version.cuda" in _fix(r)
    if name:
        assert name in r["title"]
        assert "DS_BUILD_" in _fix(r)


def test_a_failed_object_outside_a_torch_extension_is_not_read_as_one():
    r = diagnose.diagnose("FAILED: src/CMakeFiles/app.dir/main.cpp.o\nninja: build stopped: subcommand failed.")
    assert r is None or r["signature"] != "extension-jit-build-failed"


def test_deepspeeds_cpu_optimizer_without_its_op():
    r = diagnose.diagnose("AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'")
    assert r["signature"] == "deepspeed-cpu-optimizer-not-built" and r["layer"] == "toolchain"
    assert "DS_BUILD_CPU_ADAM=1" in _fix(r) and "python3-dev" in _fix(r)


@pytest.mark.parametrize("text, wanted", [
    ("AssertionError: Unable to pre-compile async_io", "libaio-dev"),
    ("      abort(f\"Unable to pre-compile {op_name}\")\n [WARNING]  async_io requires the dev libaio .so object and "
     "headers but these were not found.", "DS_BUILD_AIO=0"),
    ("AssertionError: Unable to pre-compile sparse_attn", "DS_BUILD_SPARSE_ATTN=0"),
])
def test_deepspeeds_install_that_could_not_prebuild_an_op(text, wanted):
    r = diagnose.diagnose(text)
    assert r["signature"] == "deepspeed-op-precompile-failed" and r["layer"] == "toolchain"
    assert wanted in _fix(r)


def test_the_async_io_notice_alone_is_harmless():
    r = diagnose.diagnose(" [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n"
                          "async_io ............... [NO] ....... [NO]")
    assert r["signature"] == "deepspeed-async-io-notice" and r["environment_problem"] is False


def test_accelerate_launch_defaults_are_a_notice():
    r = diagnose.diagnose("The following values were not passed to `accelerate launch` and had defaults used instead:\n"
                          "\t`--num_processes` was set to a value of `1`\n\t--mixed_precision was set to a value of 'no'")
    assert r["signature"] == "accelerate-launch-defaults" and r["environment_problem"] is False
    assert "--mixed_precision" in _fix(r) and not _INSTALL.search(_fix(r))


def test_accelerate_bf16_on_a_gpu_without_it_and_on_an_old_torch():
    msg = "ValueError: bf16 mixed precision requires PyTorch >= 1.10 and a supported device."
    r = diagnose.diagnose(msg)
    assert r["signature"] == "accelerate-bf16-unsupported-device" and r["environment_problem"] is False
    assert "fp16" in _fix(r)
    r = diagnose.diagnose("PyTorch version: 1.9.0+cu111\n" + msg)
    assert r["signature"] == "accelerate-bf16-needs-torch-1-10" and r["layer"] == "torch-build"


@pytest.mark.parametrize("text", [
    "ValueError: The device_map provided does not give any device for the following parameters: lm_head.weight",
    "ValueError: When passing device_map as a string, the value needs to be a device name (e.g. cpu, cuda:0) or "
    "'auto', 'balanced', 'balanced_low_0', 'sequential' but found .",
    "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode.",
])
def test_device_map_refusals_are_the_programs_argument(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "device-map-refused" and r["environment_problem"] is False
    assert not _INSTALL.search(_fix(r))


def test_a_kernel_assertion_without_backticks():
    r = diagnose.diagnose("../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [420,0,0], "
                          "thread: [124,0,0] Assertion srcIndex < srcSelectDimSize failed.")
    assert r["signature"] == "device-side-assert" and r["environment_problem"] is False
