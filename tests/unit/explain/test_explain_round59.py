"""explain's fifty-ninth round, from test61's and test62's misses (compiled CUDA packages beside torch; the NVIDIA
driver on Linux): a package's own compiled module missing, a compiler killed while building, modprobe's errno words,
the driver module not loaded in words, the installer finding no supported GPU, nvidia-persistenced as a user. The
texts are written for these tests from the tools' own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_packages_own_cuda_module_missing_names_that_package():
    r = diagnose.diagnose(
        "Traceback (most recent call last):\n"
        "  File \"/opt/venv/lib/python3.11/site-packages/some_kernels/ops.py\", line 4, in <module>\n"
        "    import some_kernels_cuda\nModuleNotFoundError: No module named 'some_kernels_cuda'")
    assert r["signature"] == "package-cuda-module-missing" and r["layer"] == "toolchain"
    assert "some-kernels" in r["title"] and "--no-build-isolation" in _fix(r)


def test_the_nameerror_after_a_caught_import_is_the_same_failure():
    r = diagnose.diagnose("NameError: name 'scan_kernel_cuda' is not defined")
    assert r["signature"] == "package-cuda-module-missing" and "scan_kernel_cuda" in r["title"]


def test_a_module_the_table_knows_keeps_its_distributions_own_build():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'")
    assert r["layer"] == "toolchain" and "cuda_ext" in _fix(r)


def test_a_pure_python_module_missing_is_not_read_as_a_compiled_part():
    r = diagnose.diagnose(
        "  File \"/opt/venv/lib/python3.11/site-packages/app/run.py\", line 2, in <module>\n"
        "    import yaml\nModuleNotFoundError: No module named 'yaml'")
    assert r is None or r["signature"] != "package-cuda-module-missing"


@pytest.mark.parametrize("killed", [
    "c++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.",
    "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
    "/usr/local/cuda/bin/nvcc -c kernel.cu -o kernel.cuda.o -gencode arch=compute_90,code=sm_90\nKilled",
])
def test_a_compiler_killed_while_building_is_memory_for_parallel_jobs(killed):
    r = diagnose.diagnose("Building wheel for some-ext (setup.py) ... error\n" + killed)
    assert r["signature"] == "compiler-killed-out-of-memory" and r["layer"] == "toolchain"
    assert "MAX_JOBS" in _fix(r)


def test_a_killed_program_without_a_build_is_not_a_compilers():
    r = diagnose.diagnose("Epoch 3/10\nKilled")
    assert r is None or r["signature"] != "compiler-killed-out-of-memory"


@pytest.mark.parametrize("line, cause, word", [
    ("modprobe: ERROR: could not insert 'nvidia': Key was rejected by service", "secure-boot", "mokutil"),
    ("modprobe: ERROR: could not insert 'nvidia_uvm': Required key not available", "secure-boot", "MOK"),
    ("modprobe: ERROR: could not insert 'nvidia': No such device", "no-device", "nouveau"),
    ("FATAL: Error inserting nvidia_current (/lib/modules/5.4.0/updates/dkms/nvidia_current.ko): No such device",
     "no-device", "lspci"),
    ("insmod: ERROR: could not insert module /tmp/nvidia.ko: Invalid module format", "wrong-kernel", "dkms"),
])
def test_modprobes_errno_words_decide_the_cause(line, cause, word):
    r = diagnose.diagnose(line)
    assert r["signature"] == f"nvidia-module-insert-{cause}" and r["layer"] == "driver"
    assert word in _fix(r)


def test_the_module_not_loaded_in_words_lists_dkms_and_secure_boot():
    r = diagnose.diagnose("$ nvidia-settings\nERROR: NVIDIA driver is not loaded")
    assert r["signature"] == "nvidia-module-not-loaded"
    assert "dkms" in _fix(r) and "Secure Boot" in _fix(r)


def test_the_installer_finding_no_supported_gpu_names_its_version():
    r = diagnose.diagnose("WARNING: You do not appear to have an NVIDIA GPU supported by the 470.256.02 NVIDIA Linux "
                          "graphics driver installed in this system.")
    assert r["signature"] == "installer-gpu-not-supported" and "470.256.02" in r["title"]
    assert "legacy" in _fix(r) and "lspci" in _fix(r)


def test_persistenced_denied_a_file_runs_as_root():
    r = diagnose.diagnose("nvidia-persistenced[99]: Failed to open /sys/devices/system/memory/auto_online_blocks: "
                          "Permission denied\nnvidia-persistenced[98]: nvidia-persistenced failed to initialize")
    assert r["signature"] == "persistenced-permission-denied" and "--user" in _fix(r)
