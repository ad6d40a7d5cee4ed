"""explain's fourteenth round, from test14's misses read as structure: a GPU older than every target of the installed
torch build (the release table's arch lists), codes printed as numbers labelled with their enumeration's type or as
bare enumerator names, the exit-order codes of the CUDA headers, the platform's own words (Slurm's NoDevFiles, conda's
missing environment, glibc's page alignment, CMake's Visual Studio toolset, Homebrew's refusals, gcc's refusal of an
x86 flag on ARM, PyPI's placeholder torch sdist), the XPU build, and libraries named by soname (cuDSS, libpython).
The texts follow each tool's documented format; the oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract
from torch_envcheck.knowledge import native


# --- a GPU older than every target of the installed build ----------------------------------------------------------

def test_a_volta_gpu_under_a_cu128_build_of_211_is_sent_to_the_same_releases_cu126_build():
    # torch 2.11's cu128 wheels start at sm_75 (the release table); its cu126 build still has sm_70
    r = diagnose.diagnose("Torch version: 2.11.0+cu128\nGPU: Tesla V100-SXM2-32GB\n"
                          "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device")
    assert r["signature"] == "gpu-older-than-build" and r["layer"] == "arch", r["signature"]
    assert "torch==2.11.0+cu126" in r["fix"] and "whl/cu126" in r["fix"] and "sm_70" in r["fix"], r["fix"]
    # the same version from another index: pip would take ==2.11.0 as satisfied by +cu128, so the label is explicit
    assert "pip uninstall -y torch" in r["fix"]


def test_torchs_own_capability_warning_gives_the_gpu_and_the_range():
    text = ("UserWarning: \n    Found GPU0 Tesla P40 which is of cuda capability 6.1.\n    Minimum and Maximum cuda "
            "capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n")
    r = diagnose.diagnose(text)
    assert r["signature"] == "gpu-older-than-build", r["signature"]
    assert "cu126" in r["fix"] and "sm_61" in r["fix"], r["fix"]


def test_the_listed_targets_decide_and_a_listed_gpu_is_not_older():
    older = ("NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
             "The current PyTorch install supports CUDA capabilities sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.")
    assert diagnose.diagnose(older)["signature"] == "gpu-older-than-build"
    newer = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
             "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.")
    assert diagnose.diagnose(newer)["signature"] != "gpu-older-than-build"


def test_a_gpu_the_build_serves_is_not_called_older():
    # an A100 (sm_80) under a cu128 build has code: the failing kernel is someone else's
    r = diagnose.diagnose("torch 2.11.0+cu128, NVIDIA A100-SXM4-80GB\nRuntimeError: CUDA error: no kernel image is "
                          "available for execution on the device")
    assert r["signature"] != "gpu-older-than-build", r["signature"]


# --- codes as numbers with their type's name, and enumerators without their prefix ---------------------------------

@pytest.mark.parametrize("text,name", [
    ("panic: Unknown CUresult: 35\n\ngoroutine 1 [running]:", "cudaErrorInsufficientDriver"),
    ("CUDA error DRIVER: '209' in func 'kernel_launcher' line 12", "CUDA_ERROR_NO_BINARY_FOR_GPU"),
    ("cublas returned cublasStatus_t = 13", "CUBLAS_STATUS_EXECUTION_FAILED"),
])
def test_a_number_labelled_with_its_enumeration_is_decoded(text, name):
    ent = extract.entities(text)
    assert name in [c["name"] for c in ent.codes], ent.codes


def test_an_enumerator_without_its_prefix_is_read_as_a_whole_word_only():
    ent = extract.entities("error thrown by the wrapper: _InvalidDeviceFunction_")
    assert [c["name"] for c in ent.codes] == ["cudaErrorInvalidDeviceFunction"], ent.codes
    # two-word names are everyone's vocabulary; a longer word around one is not it
    assert extract.entities("MemoryAllocation failed in the pool").codes == []
    assert extract.entities("MyInvalidDeviceFunctionHandler raised").codes == []


def test_exit_order_codes_are_the_programs_when_named_and_the_drivers_as_a_bare_number():
    named = diagnose.diagnose("F0912 syncedmem.cpp:19] Check failed: error == cudaSuccess (29 vs. 0)  driver shutting down")
    assert named["layer"] == "not-environment" and named["environment_problem"] is False, named["signature"]
    assert "reinstall" not in (named.get("fix") or named.get("look_at") or "").lower()
    # TensorRT printing a bare 4: in the numbering before CUDA 10.1, 4 was a launch failure; not read as teardown
    bare = diagnose.diagnose("cudnnEngine.cpp (56) - Cuda Error in initializeCommonContext: 4\nAborted (core dumped)")
    assert bare["layer"] == "driver", bare["signature"]


# --- the platform's own words ---------------------------------------------------------------------------------

def test_slurms_nodevfiles_is_a_job_without_a_gpu():
    r = diagnose.diagnose("ValueError: invalid literal for int() with base 10: 'NoDevFiles'")
    assert r["layer"] == "env" and "--gres=gpu" in r["fix"] and "CUDA_VISIBLE_DEVICES" in r["fix"], r


def test_a_missing_conda_environment_comes_before_what_ran_elsewhere():
    r = diagnose.diagnose("EnvironmentNameNotFound: Could not find conda environment: detectron\n"
                          "RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert r["layer"] == "env" and "conda env list" in r["fix"] and "detectron" in r["fix"], r["fix"]


def test_page_alignment_is_a_build_for_4k_pages():
    r = diagnose.diagnose("OSError: /opt/venv/lib/python3.9/site-packages/torch/lib/libtorch_cpu.so: ELF load command "
                          "address/offset not properly aligned")
    assert r["layer"] == "torch-build" and "64 KiB" in r["fix"], r


def test_cmake_without_the_cuda_visual_studio_integration():
    r = diagnose.diagnose("-- Building for: Visual Studio 17 2022\nCMake Error at CMakeLists.txt:3 (project):\n"
                          "  No CUDA toolset found.")
    assert r["layer"] == "toolchain" and "Visual Studio Integration" in r["fix"], r


def test_homebrew_refuses_old_developer_tools_and_removed_options():
    xcode = diagnose.diagnose("Error: Your Xcode (9.2) is too outdated.\nPlease update to Xcode 10.1 (or delete it).")
    assert xcode["layer"] == "toolchain" and "Xcode" in xcode["fix"], xcode
    clt = diagnose.diagnose("Error: Your Command Line Tools are too outdated.\nUpdate them from Software Update.")
    assert clt["signature"] == "homebrew-xcode-outdated", clt["signature"]
    opt = diagnose.diagnose("==> brew install qt --with-qtwebkit\nError: invalid option: --with-qtwebkit")
    assert opt["signature"] == "homebrew-option-removed" and "--with-qtwebkit" in opt["fix"], opt


def test_an_x86_flag_on_an_arm_compiler():
    r = diagnose.diagnose("aarch64-linux-gnu-gcc: error: unrecognized command-line option '-mavx2'")
    assert r["signature"] == "x86-flag-on-arm" and "-mavx2" in r["fix"], r
    # an ARM flag refused by an x86 compiler is not this
    other = diagnose.diagnose("gcc: error: unrecognized command-line option '-mfpu=neon'")
    assert other["signature"] != "x86-flag-on-arm"


def test_the_placeholder_sdist_and_no_wheel_on_32_bit_arm():
    r = diagnose.diagnose("Collecting torch\n  Downloading torch-0.1.2.post1.tar.gz (128 kB)\n"
                          "ERROR: Command errored out with exit status 1: python setup.py egg_info")
    assert r["signature"] == "torch-placeholder-sdist" and r["layer"] == "torch-build", r["signature"]
    arm = diagnose.diagnose("pi@raspberrypi:~ $ uname -m\narmv7l\nERROR: Could not find a version that satisfies the "
                            "requirement torch (from versions: none)")
    assert arm["signature"] == "torch-no-wheel-arm32" and "64-bit" in arm["fix"], arm["signature"]


def test_an_index_whose_releases_end_before_the_python():
    # cu118's releases stop before Python 3.14 (the release table): a newer CUDA's index has it
    r = diagnose.diagnose("pip install torch --index-url https://download.pytorch.org/whl/cu118\nERROR: Could not find "
                          "a version that satisfies the requirement torch (from versions: none)\nPython 3.14.0")
    assert r["signature"] == "torch-index-older-than-python", r["signature"]
    assert "whl/cu1" in r["fix"] and "cu118" in r["fix"], r["fix"]


def test_the_xpu_assertion_is_the_xpu_build():
    r = diagnose.diagnose('  File "torch/xpu/__init__.py", line 359, in _lazy_init\n'
                          "    raise AssertionError(\"Torch not compiled with XPU enabled\")\n"
                          "AssertionError: Torch not compiled with XPU enabled")
    assert r["layer"] == "torch-build" and "whl/xpu" in r["fix"], r


def test_a_missing_container_runtime_command_is_the_containers():
    r = diagnose.diagnose("FileNotFoundError: [Errno 2] No such file or directory: 'apptainer'")
    assert r["layer"] == "container" and "--nv" in r["fix"], r


# --- libraries by soname ----------------------------------------------------------------------------------------

def test_sonames_without_a_cuda_major_offer_both_wheels():
    x = native.library_provider("libcudss.so.0")
    assert x["library"] == "cuDSS" and x["wheel_choices"] == ["nvidia-cudss-cu12", "nvidia-cudss-cu13"], x
    assert native.library_provider("libnccl.so.2")["wheel_choices"] == ["nvidia-nccl-cu12", "nvidia-nccl-cu13"]
    r = diagnose.diagnose("ImportError: libcusparseLt.so.0: cannot open shared object file: No such file or directory")
    assert "nvidia-cusparselt-cu12" in r["fix"] and "cu0" not in r["fix"], r["fix"]


def test_libpython_is_the_interpreters_shared_library():
    x = native.library_provider("libpython3.8.so.1.0")
    assert x["provider"] == "python" and x["python"] == "3.8", x
    r = diagnose.diagnose("ImportError: libpython3.8.so.1.0: cannot open shared object file: No such file or directory")
    assert r["layer"] == "libraries" and "libpython3.8" in r["fix"], r


def test_a_cuda_torch_library_wanted_under_a_rocm_torch():
    r = diagnose.diagnose("torch 2.5.1+rocm6.2\nOSError: libtorch_cuda.so: cannot open shared object file: No such file "
                          "or directory")
    assert r["layer"] == "rocm" and r["signature"] == "extension-built-for-cuda-torch-on-rocm", r["signature"]


# --- torch's own messages, enumerated from its sources ------------------------------------------------------------

@pytest.mark.parametrize("line,python,first", [
    ("RuntimeError: Dynamo is not supported on Python 3.12+", "3.12", "2.4"),
    ("RuntimeError: Dynamo is not supported on Python 3.13+", "3.13", "2.6"),
    ("RuntimeError: torch.compile is not supported on Python 3.15+", "3.15", None),
])
def test_torch_compile_refusing_the_python(line, python, first):
    r = diagnose.diagnose(line)
    assert r["signature"] == "compile-unsupported-python" and python in r["fix"], r
    assert (first in r["fix"]) if first else ("release notes" in r["fix"]), r["fix"]
    assert "TORCHDYNAMO_DISABLE=1" in r["fix"]


def test_cpp_extensions_compiler_bounds_name_the_range():
    r = diagnose.diagnose("RuntimeError: The current installed version of g++ (14.1.0) is greater than the maximum "
                          "required version by CUDA 12.4. Please make sure to use an adequate version of g++ (>=6.0.0, "
                          "<14.0).")
    assert r["signature"] == "host-compiler-outside-cuda-bounds" and "<14.0" in r["fix"] and "CXX=" in r["fix"], r


def test_an_architecture_the_extension_builder_does_not_know():
    r = diagnose.diagnose("ValueError: Unknown CUDA arch (10.0) or GPU not supported")
    assert r["layer"] == "toolchain" and "TORCH_CUDA_ARCH_LIST" in r["fix"] and "10.0" in r["fix"], r


def test_a_device_outside_the_visible_list_and_nvml_without_a_driver():
    r = diagnose.diagnose("RuntimeError: device 2 is not visible (CUDA_VISIBLE_DEVICES=5)")
    assert r["layer"] == "env" and "cuda:0" in r["fix"], r
    n = diagnose.diagnose("RuntimeError: cuda driver can't be loaded, is cuda enabled?")
    assert n["layer"] == "driver" and "nvidia-smi" in n["fix"], n


def test_a_dataloader_worker_killed_without_an_error():
    plain = diagnose.diagnose("RuntimeError: DataLoader worker (pid(s) 4021) exited unexpectedly")
    assert plain["layer"] == "env" and "--shm-size" in plain["fix"] and "num_workers=0" in plain["fix"], plain
    docker = diagnose.diagnose("root@3f2a9c1b0d4e:/ws# python train.py\nERROR: Unexpected bus error encountered in "
                               "worker. This might be caused by insufficient shared memory (shm).\nRuntimeError: "
                               "DataLoader worker (pid(s) 77) exited unexpectedly")
    assert docker["layer"] == "container", docker["signature"]


def test_torchs_cpu_build_in_its_own_words():
    r = diagnose.diagnose("RuntimeError: PyTorch was compiled without CUDA support")
    assert r["layer"] == "torch-build" and "download.pytorch.org/whl/cu" in r["fix"], r
