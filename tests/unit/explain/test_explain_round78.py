"""explain's seventy-eighth round, from the misses of test105 to test108 (speech and audio, laptops with two GPUs,
package managers, Apple silicon): the stack's tools the shell cannot find, nvidia-smi without a query field, a build
without a device type's backend, a library's CPU fallback warning, bfloat16 refused on MPS, the OCI runtime's quoted
nvidia-smi, pip reading PyTorch's labelled builds. The texts are written for these tests from the tools' own message
formats, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text, tool, layer, word", [
    ("$ sudo prime-select query\nsudo: prime-select: command not found", "prime-select", "driver", "nvidia-prime"),
    ("zsh: command not found: prime-run", "prime-run", "driver", "nvidia-prime"),
    ("bash: nvidia-ctk: command not found", "nvidia-ctk", "container", "runtime configure"),
    ("/bin/sh: 1: rocminfo: not found", "rocminfo", "rocm", "/opt/rocm/bin"),
    ("'hipcc' is not recognized as an internal or external command,\noperable program or batch file.", "hipcc", "rocm",
     "amdgpu-install"),
    ("optirun: command not found", "optirun", "driver", "PRIME render offload"),
])
def test_a_stack_tool_the_shell_cannot_find_names_the_package_that_owns_it(text, tool, layer, word):
    r = diagnose.diagnose(text)
    assert r["layer"] == layer and tool in r["title"]
    assert word in _fix(r)


def test_a_tool_name_inside_a_longer_word_is_not_read():
    r = diagnose.diagnose("bash: my-prime-selector: command not found")
    assert not (r.get("signature") or "").startswith("tool-not-found")


@pytest.mark.parametrize("field, candle", [("compute_cap", True), ("clocks.max.memory", False)])
def test_nvidia_smi_without_a_query_field_is_the_drivers_age(field, candle):
    r = diagnose.diagnose(f"$ nvidia-smi --query-gpu={field} --format=csv\nField \"{field}\" is not a valid field to query.")
    assert r["signature"] == "nvidia-smi-field-unknown" and r["layer"] == "driver" and field in r["title"]
    assert "Update the NVIDIA driver" in _fix(r)
    assert ("CUDA_COMPUTE_CAP" in _fix(r)) is candle


@pytest.mark.parametrize("text, dev, word", [
    ("RuntimeError: PyTorch is not linked with support for cuda devices", "cuda", "download.pytorch.org/whl/cu"),
    ("Error in (function (self, device, dtype, non_blocking, copy, memory_format)  :\n  PyTorch is not linked with "
     "support for cuda devices\nException raised from getDeviceGuardImpl at c10/core/impl/DeviceGuardImplInterface.h:319",
     "cuda", "install_torch(reinstall = TRUE)"),
    ("RuntimeError: PyTorch is not linked with support for mps devices", "mps", "arm64"),
    ("RuntimeError: PyTorch is not linked with support for xpu devices", "xpu", "whl/xpu"),
])
def test_a_build_without_a_device_types_backend(text, dev, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-build-without-device-type" and r["layer"] == "torch-build"
    assert dev in r["title"] and word in _fix(r)


@pytest.mark.parametrize("text", [
    "No GPU being used. Careful, inference might be very slow!",
    "WARNING: CUDA is not available, using CPU instead",
    "[warn] No NVIDIA devices detected; switching to CPU",
])
def test_a_librarys_cpu_fallback_warning_asks_what_torch_sees(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "library-fell-back-to-cpu" and r["layer"] == "gpu-unused"
    assert "torch.cuda.is_available()" in _fix(r) and "--index-url" in _fix(r)


def test_the_catalogues_no_gpu_sentence_keeps_its_reading():
    r = diagnose.diagnose("No GPU found, using the CPU")
    assert r["signature"] == "cuda-is-available-false"


def test_running_on_the_cpu_by_choice_is_not_a_fallback():
    r = diagnose.diagnose("INFO: device=cpu requested, using CPU")
    assert r.get("signature") != "library-fell-back-to-cpu"


@pytest.mark.parametrize("text", [
    "RuntimeError: BFloat16 is not supported on MPS",
    "TypeError: MPS BFloat16 is only supported on MacOS 14 or newer",
    "ValueError: Mixed precision training with bfloat16 is not supported on MPS. Please use fp16 (recommended) or fp32.",
])
def test_bfloat16_refused_on_mps_is_the_macs(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "mps-bfloat16-refused" and r["layer"] == "macos"
    assert "float16" in _fix(r) and "macOS 14" in _fix(r)


def test_bfloat16_refused_on_a_new_enough_macos_is_left_to_the_rosetta_reading():
    r = diagnose.diagnose("MPS BFloat16 is only supported on MacOS 14 or newer\nbut my macOS version is 15.3")
    assert r.get("signature") != "mps-bfloat16-refused"


def test_the_oci_runtimes_quoted_nvidia_smi_is_a_container_without_the_runtime():
    r = diagnose.diagnose("\"nvidia-smi\": executable file not found in $PATH: unknown")
    assert r["signature"] == "container-without-nvidia-runtime" and r["layer"] == "container"


def test_a_local_build_pip_lists_other_labels_for_is_this_pythons_range():
    r = diagnose.diagnose("Looking in links: https://download.pytorch.org/whl/torch_stable.html\nERROR: Could not find a "
                          "version that satisfies the requirement torch==1.8.1+cu111 (from versions: 1.11.0, 1.11.0+cpu, "
                          "1.11.0+cu113, 1.12.0, 1.12.0+cu116)\nERROR: No matching distribution found for "
                          "torch==1.8.1+cu111")
    assert r["signature"] == "torch-version-not-offered" and r["layer"] == "torch-build"
    assert "older Python" in _fix(r) and "torch>=1.11.0" in _fix(r)
    plain = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu118 (from "
                              "versions: 2.0.0, 2.0.1, 2.1.0)\nERROR: No matching distribution found for torch==2.0.1+cu118")
    assert plain["signature"] == "torch-local-build-needs-its-index"
