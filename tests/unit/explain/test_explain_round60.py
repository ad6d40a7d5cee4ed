"""explain's sixtieth round, from test63's and test64's misses (CUDA from Python besides torch; the image-generation
web UIs): a compute capability refused in words, LLVM not knowing the GPU's processor, torch's HIP wording of "no
kernel image", a venv without pip, an import halted on purpose, the web UI's NaN check, pip's "Could not build wheels
for X". The texts are written for these tests from the programs' own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text, cap", [
    ("LOG:  GPU0 GeForce GT 640 (2 SMs), capability 3.0, NOT SUPPORTED\nFATAL:  No supported CUDA devices", "3.0"),
    ("RuntimeError: This cuDF installation is missing the necessary PTX files that are <=52.", "5.2"),
])
def test_a_capability_refused_in_words_is_the_gpus_generation(text, cap):
    r = diagnose.diagnose(text)
    assert r["signature"] == "gpu-capability-refused" and r["layer"] == "arch"
    assert cap in r["title"] and "compute capability" in _fix(r)


def test_a_capability_printed_without_a_refusal_is_not_read_as_one():
    r = diagnose.diagnose("Found GPU0 NVIDIA A100 with compute capability 8.0\nTraining finished.")
    assert r is None or r["signature"] != "gpu-capability-refused"


def test_llvm_not_knowing_the_processor_points_at_the_compilers_llvm():
    r = diagnose.diagnose("'sm_120' is not a recognized processor for this target (ignoring processor)\n" * 3)
    assert r["signature"] == "llvm-unknown-processor" and r["layer"] == "arch"
    assert "sm_120" in r["title"] and "Triton" in _fix(r)


def test_torchs_hip_wording_of_no_kernel_image_is_rocms():
    r = diagnose.diagnose("RuntimeError: HIP error: no kernel image is available for execution on the device\n"
                          "HIP kernel errors might be asynchronously reported at some other API call")
    assert r["signature"] == "hip-no-kernel-image" and r["layer"] == "rocm"
    assert "HSA_OVERRIDE_GFX_VERSION" in _fix(r)


def test_the_cuda_wording_stays_the_arch_layers():
    r = diagnose.diagnose("RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert r["layer"] == "arch"


def test_a_venv_without_pip_is_given_pip():
    r = diagnose.diagnose("Installing torch and torchvision\n/srv/app/venv/bin/python3: No module named pip\n"
                          "RuntimeError: Couldn't install torch.")
    assert r["signature"] == "python-without-pip" and r["layer"] == "env"
    assert "ensurepip" in _fix(r) and "python3-venv" in _fix(r)


def test_an_import_halted_on_purpose_is_the_programs_switch():
    r = diagnose.diagnose("ModuleNotFoundError: import of xformers halted; None in sys.modules")
    assert r["signature"] == "import-halted-on-purpose" and "--xformers" in _fix(r)
    r = diagnose.diagnose("ModuleNotFoundError: import of triton halted; None in sys.modules")
    assert r["signature"] == "import-halted-on-purpose" and "sys.modules['triton']" in _fix(r)


def test_the_web_uis_nan_check_is_no_install_problem():
    r = diagnose.diagnose("modules.devices.NansException: A tensor with all NaNs was produced in VAE.")
    assert r["signature"] == "webui-nan-check" and r["layer"] == "not-environment"
    assert "--no-half" in _fix(r) and "VAE" in r["title"]


def test_pips_could_not_build_wheels_names_the_package_it_built():
    r = diagnose.diagnose("ERROR: Could not build wheels for somepkg, which is required to install "
                          "pyproject.toml-based projects")
    assert r is not None and r["layer"] == "toolchain"
