"""explain's sixteenth round, from test16's misses read as structure: pip's own lines about which wheel fits (a local
version such as +cu117 that only PyTorch's index holds, pip's last line quoted alone, a wheel file whose tags name
another Python or OS), glog's "cudaSuccess (N vs. 0)", torch 1.x's THC wording of cuBLAS statuses, a CUDA version in
lower case, a header of Intel's oneCCL, torch._C without its CUDA functions, torch's stable C ABI symbols and the
companion libraries (torchvision/torchaudio) built for another torch. The texts follow each tool's documented format;
the oracle is what the format means."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract


def test_a_local_version_pip_did_not_find_needs_the_index_of_its_build():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch==2.0.0+cu117 (from "
                          "versions: 2.0.0, 2.0.1, 2.1.0)\nERROR: No matching distribution found for torch==2.0.0+cu117")
    assert r["signature"] == "torch-local-build-needs-its-index", r["signature"]
    assert "--index-url https://download.pytorch.org/whl/cu117" in r["fix"], r["fix"]
    # the line alone, as users quote it, says the same
    alone = diagnose.diagnose("I keep getting this Could not find a version that satisfies the requirement "
                              "torch==2.0.0+cu117")
    assert alone["signature"] == "torch-local-build-needs-its-index", alone["signature"]


def test_a_local_version_on_its_own_index_is_not_an_index_problem():
    # pip looked in the cu128 index and was offered +cu128 versions: the release is missing for this Python
    r = diagnose.diagnose("Looking in indexes: https://download.pytorch.org/whl/cu128\nERROR: Could not find a version "
                          "that satisfies the requirement torch==2.7.0+cu128 (from versions: 2.9.0+cu128, 2.9.1+cu128)\n"
                          "ERROR: No matching distribution found for torch==2.7.0+cu128")
    assert r["signature"] != "torch-local-build-needs-its-index" and r["layer"] == "torch-build", r["signature"]


def test_pips_last_line_alone_is_recognised_and_merges_with_the_line_before():
    r = diagnose.diagnose("ERROR: No matching distribution found for torch==9.9.9")
    assert r["layer"] == "torch-build" and "python -VV" in r["fix"], r
    e = extract.entities("ERROR: Could not find a version that satisfies the requirement torch==2.3.0 (from versions: "
                         "2.2.1, 2.2.2)\nERROR: No matching distribution found for torch==2.3")
    assert [(p["requirement"], p["versions"]) for p in e.pip] == [("torch==2.3.0", ["2.2.1", "2.2.2"])]


@pytest.mark.parametrize("wheel, python, platform", [
    ("sageattention-2.2.0+cu128torch2.7.1-cp310-cp310-win_amd64.whl", "3.10", "64-bit Windows"),
    ("flash_attn-2.5.0-cp311-cp311-linux_x86_64.whl", "3.11", "Linux x86_64"),
    ("pkg-1.0-cp312-cp312-manylinux_2_28_aarch64.whl", "3.12", "Linux aarch64"),
])
def test_a_wheel_pip_refuses_is_read_from_its_tags(wheel, python, platform):
    r = diagnose.diagnose(f"ERROR: {wheel} is not a supported wheel on this platform.")
    assert r["signature"] == "wheel-tags-not-this-interpreter", r["signature"]
    assert f"CPython {python} on {platform}" in r["explanation"] and f"python={python}" in r["fix"], r


def test_a_wheel_for_another_python_than_the_text_shows_says_both():
    r = diagnose.diagnose("Python 3.8.2\nERROR: torch-1.4.0+cpu-cp37-cp37m-win_amd64.whl is not a supported wheel on "
                          "this platform.")
    assert "CPython 3.7" in r["explanation"] and "Python 3.8" in r["explanation"], r["explanation"]


@pytest.mark.parametrize("line, name", [
    ("Check failed: error == cudaSuccess (35 vs. 0)", "cudaErrorInsufficientDriver"),
    ("cudaSuccess 35vs0", "cudaErrorInsufficientDriver"),
    ("Check failed: status == CUBLAS_STATUS_SUCCESS (13 vs. 0)", "CUBLAS_STATUS_EXECUTION_FAILED"),
])
def test_glogs_check_eq_gives_the_code_beside_success(line, name):
    assert name in [c["name"] for c in extract.entities(line).codes]


def test_torch_1_x_words_for_cublas_statuses_are_decoded():
    e = extract.entities("RuntimeError: cublas runtime error : the GPU program failed to execute at "
                         "/opt/conda/conda-bld/pytorch/work/aten/src/THC/THCBlas.cu:441")
    assert [c["name"] for c in e.codes] == ["CUBLAS_STATUS_EXECUTION_FAILED"]
    e2 = extract.entities("RuntimeError: cusparse runtime error : library not initialized at THCGeneral.cpp:120")
    assert [c["name"] for c in e2.codes] == ["CUSPARSE_STATUS_NOT_INITIALIZED"]


def test_a_turing_gpu_on_a_cuda_9_build_failing_in_cublas_is_its_architecture():
    r = diagnose.diagnose("I am using Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU.\nRuntimeError: cublas "
                          "runtime error : the GPU program failed to execute at THCBlas.cu:441")
    assert r["layer"] == "arch" and "CUDA 10.0" in r["fix"], r


def test_a_lower_case_cuda_version_is_read():
    assert extract.entities("I use cuda 9.0 here").versions.get("cuda") == "9.0"
    assert extract.entities("Cuda toolkit 11.1 installed").versions.get("cuda") == "11.1"


def test_onecclls_header_is_intels_oneapi():
    r = diagnose.diagnose("csrc/cpu/comm/ccl.cpp:8:10: fatal error: oneapi/ccl.hpp: No such file or directory")
    assert r["signature"] == "header-missing" and "oneCCL" in r["explanation"] and "DS_BUILD_CCL_COMM" in r["fix"], r


def test_torch_c_without_its_cuda_functions_is_a_cpu_build():
    r = diagnose.diagnose("AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'")
    assert r["signature"] == "torch-c-without-cuda-functions" and "whl/cu" in r["fix"], r
    # another private name keeps the older-caller reading
    o = diagnose.diagnose("AttributeError: module 'torch._C' has no attribute '_jit_pass_foo'")
    assert o["signature"] == "torch-name-removed", o["signature"]


def test_torchs_stable_c_abi_symbols_are_torchs():
    assert extract.entities("Symbol not found: _torch_library_impl").symbols[-1].get("abi") == "torch"
    assert extract.entities("undefined symbol: aoti_torch_get_device_type").symbols[-1].get("abi") == "torch"


def test_a_companion_library_built_for_another_torch_is_its_paired_release_not_a_rebuild():
    r = diagnose.diagnose("torch 2.8.0\nOSError: /venv/lib/python3.10/site-packages/torchaudio/lib/libtorchaudio.so: "
                          "undefined symbol: _ZN3c104impl3cow11cow_deleterEPv")
    assert r["signature"] == "companion-built-for-another-torch", r["signature"]
    assert "torchaudio==2.8.*" in r["fix"] and "Rebuild" not in r["fix"], r["fix"]
    # another package with the same symbol is still its rebuild
    o = diagnose.diagnose("OSError: /venv/lib/python3.10/site-packages/mmcv/_ext.so: undefined symbol: "
                          "_ZN3c104impl3cow11cow_deleterEPv")
    assert o["signature"] == "extension-abi-mismatch", o["signature"]


def test_a_summary_naming_installable_wheels_still_finds_the_extension():
    r = diagnose.diagnose("RuntimeError: Error compiling objects for extension\nERROR: Failed building wheel for "
                          "flash_attn\nFailed to build flash_attn\nERROR: Failed to build installable wheels for some "
                          "pyproject.toml based projects (flash_attn)")
    assert r["signature"] == "torch-extension-build-failed" and "prebuilt flash-attn wheel" in r["fix"], r


def test_no_module_named_torch_in_pips_isolated_build_is_build_isolation():
    r = diagnose.diagnose("$ pip install flash-attn\nCollecting flash-attn\n  Getting requirements to build wheel ... "
                          "error\n  error: subprocess-exited-with-error\n      ModuleNotFoundError: No module named 'torch'")
    assert r["signature"] == "build-isolation-hides-torch", r["signature"]
    assert "pip install flash-attn --no-build-isolation" in r["fix"], r["fix"]
    # at run time, outside a build, it is not the build's isolation
    run = diagnose.diagnose("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n    import "
                            "torch\nModuleNotFoundError: No module named 'torch'")
    assert run["signature"] != "build-isolation-hides-torch", run["signature"]


def test_pip_replacing_torch_for_another_package_pins_torch_in_the_same_command():
    r = diagnose.diagnose("pip3 install -U xformers --index-url https://download.pytorch.org/whl/cu121\nInstalling "
                          "collected packages: torch, xformers\n  Attempting uninstall: torch\n    Found existing "
                          "installation: torch 2.4.1\n    Uninstalling torch-2.4.1:\n      Successfully uninstalled "
                          "torch-2.4.1")
    assert r["signature"] == "pip-replaced-torch-for-package", r["signature"]
    assert "pip install xformers torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121" in r["fix"], r["fix"]
    # asked for torch itself: replacing it is what the command said
    asked = diagnose.diagnose("pip install -U torch\nInstalling collected packages: torch\n  Attempting uninstall: torch\n"
                              "    Found existing installation: torch 2.4.1\n    Uninstalling torch-2.4.1:")
    assert asked["signature"] != "pip-replaced-torch-for-package", asked["signature"]


_REPORT = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. "
           "This behaviour is the source of the following dependency conflicts.\n")


def test_the_resolver_report_alone_is_not_an_environment_failure():
    r = diagnose.diagnose(_REPORT + "magic-pdf 1.1.0 requires openai==1.88.0, but you have openai 1.109.1 which is "
                          "incompatible.")
    assert r["signature"] == "resolver-report-only" and r["environment_problem"] is False, r


def test_the_resolver_report_on_torch_names_the_package_built_for_another_torch():
    r = diagnose.diagnose(_REPORT + "mmcv-full 1.4.0 requires torch==1.9.1, but you have torch 2.4.1 which is "
                          "incompatible.")
    assert r["signature"] == "resolver-left-torch-pin-unmet" and "pip install mmcv-full torch==2.4.1" in r["fix"], r


def test_the_resolver_report_beside_another_failure_leaves_the_failure_to_explain():
    r = diagnose.diagnose(_REPORT + "a 1.0 requires b==2, but you have b 3 which is incompatible.\nTraceback (most recent "
                          "call last):\nRuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert r["signature"] != "resolver-report-only", r["signature"]


def test_a_failure_in_a_nightly_points_at_the_release_first():
    r = diagnose.diagnose("x = torch.ones(1, device='mps')  # ERROR: Failed to create indexing library\nPyTorch "
                          "version: 2.3.0.dev20240114\nOS: macOS 14.2.1 (arm64)")
    assert r["signature"] == "torch-nightly-regression" and r["layer"] == "macos", r
    assert "2024-01-14" in r["explanation"] and "--pre" in r["fix"], r
    linux = diagnose.diagnose("torch 2.6.0.dev20241112+cu124\nRuntimeError: something failed in the op")
    assert linux["signature"] == "torch-nightly-regression" and linux["layer"] == "torch-build", linux["signature"]


def test_nvidias_stub_without_a_wheel_reads_the_wheels_it_tried():
    text = ("RuntimeError: Didn't find wheel for cucim-cu12 24.10.0\nOperating System: Windows 10\n"
            "INFO:nvidia-stub:Testing wheel cucim_cu12-24.10.0-cp310-cp310-manylinux_2_28_x86_64.whl against tag x")
    r = diagnose.diagnose(text)
    assert r["signature"] == "nvidia-wheel-linux-only" and "WSL 2" in r["fix"], r
    lin = diagnose.diagnose("RuntimeError: Didn't find wheel for isaacsim 4.5.0.0")
    assert lin["signature"] == "nvidia-wheel-not-for-this-python" and "ldd --version" in lin["fix"], lin


def test_inductors_logged_gpu_probe_is_not_a_failure():
    r = diagnose.diagnose("[Inductor] Error getting cuda arch: Torch not compiled with CUDA enabled")
    assert r["signature"] == "inductor-cuda-probe-logged" and r["environment_problem"] is False, r
