"""explain's eighty-second round, from the misses of test118 (recommendation libraries), test119 (torch.compile) and
test120 (profilers and debuggers): a torch-extension package's own compiled library, torch's CUDA libraries beside a
torch that lacks them, torch 1.x's split CUDA libraries, a library call's numbered result, Nsight's tools,
compute-sanitizer's reports and the profiler's unpaired events. The texts are written for these tests from the
messages' formats, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose, extract
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text", [
    "OSError: /opt/venv/lib/python3.11/site-packages/fbgemm_gpu/fbgemm_gpu_py.so: cannot open shared object file: "
    "No such file or directory",
    "ERROR:root:Could not load the library 'fbgemm_gpu_tbe_training.so'",
    "File fbgemm_gpu_py.so not found",
])
def test_a_torch_extension_packages_own_library_is_its_build(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "package-library-missing" and r["layer"] == "toolchain"
    assert "fbgemm-gpu" in _fix(r) and "--no-deps" in _fix(r) and "download.pytorch.org/whl" in _fix(r)


def test_a_cuda_library_with_no_package_is_not_read_as_a_packages_own():
    r = diagnose.diagnose("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory")
    assert r.get("signature") != "package-library-missing"


def test_torchs_cuda_library_missing_after_torch_loaded_is_a_torch_without_cuda():
    text = ("  File \"/opt/venv/lib/python3.10/site-packages/torch/_ops.py\", line 1350, in load_library\n"
            "    ctypes.CDLL(path)\nOSError: libc10_cuda.so: cannot open shared object file: No such file or directory")
    r = diagnose.diagnose(text)
    assert r["signature"] == "cuda-extension-beside-torch-without-cuda" and r["layer"] == "torch-build"
    assert "download.pytorch.org/whl/cu" in _fix(r)


def test_torchs_cuda_library_missing_without_torch_loaded_stays_the_import_order():
    r = diagnose.diagnose("  File \"run.py\", line 1, in <module>\n    import my_ext\n"
                          "ImportError: libc10_cuda.so: cannot open shared object file: No such file or directory")
    assert r["signature"] == "extension-loaded-before-torch"


def test_torch_1x_split_cuda_libraries_mean_a_build_for_that_torch():
    r = diagnose.diagnose("ImportError: libtorch_cuda_cu.so: cannot open shared object file: No such file or directory")
    assert r["signature"] == "extension-built-for-split-cuda-torch" and r["layer"] == "toolchain"
    assert "1.8" in r["title"] and "1.12" in r["title"]


@pytest.mark.parametrize("text,name", [
    ("RuntimeError: Failed to execute cuptiActivityEnable with error 35", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
    ("function (*cuptiProfilerInitializePtr)(&params) failed with error 35.", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"),
    ("cudnnCreate returned 4000", "CUDNN_STATUS_INTERNAL_ERROR"),  # cuDNN 9 numbering
])
def test_a_library_calls_numbered_result_decodes_in_its_enumeration(text, name):
    from torch_envcheck.knowledge import error_codes
    code = error_codes.by_name(name)
    assert code is not None
    ent = extract.entities(text)
    assert any(c["name"] == name and c["how"] == "number" for c in ent.codes)


def test_a_version_after_a_call_is_not_a_result():
    ent = extract.entities("cudnnCreate returned 9.1 with cuDNN 9.1.0")
    assert not any(c.get("how") == "number" and c["family"] == "cudnnStatus_t" for c in ent.codes)


def test_cupti_privileges_by_number_give_the_counters_fix():
    r = diagnose.diagnose("RuntimeError: Failed to execute cuptiGetContextId with error 35")
    assert r["signature"] == "gpu-counters-restricted" and "RestrictProfilingToAdminUsers" in _fix(r)


@pytest.mark.parametrize("tool,words", [("nsys", "Nsight Systems"), ("ncu", "Nsight Compute"),
                                        ("compute-sanitizer", "CUDA toolkit")])
def test_nsight_tools_not_found_name_their_installer_and_path(tool, words):
    r = diagnose.diagnose(f"bash: {tool}: command not found")
    assert r["layer"] == "env" and words in _fix(r) and "PATH" in _fix(r)


def test_libnvperf_host_is_cuptis():
    r = diagnose.diagnose("ImportError: libnvperf_host.so: cannot open shared object file: No such file or directory")
    assert r["signature"] == "cupti-library-not-found" and "CUPTI" in _fix(r)


def test_compute_sanitizer_reports_are_the_kernels():
    text = ("========= COMPUTE-SANITIZER\n========= Invalid __shared__ write of size 4 bytes\n"
            "=========     at 0x1a0 in my_reduce_kernel(float *, int)\n=========     by thread (31,0,0) in block (0,0,0)")
    r = diagnose.diagnose(text)
    assert r["signature"] == "sanitizer-report" and r["environment_problem"] is False
    assert "my_reduce_kernel" in r["explanation"]


def test_profiler_unpaired_events_are_not_the_installation():
    r = diagnose.diagnose("Warning: Failed to recover relationship between all profiler and kineto events: 120 vs. 0  "
                          "reassociated. (function reassociate)")
    assert r["signature"] == "profiler-events-unmatched" and r["environment_problem"] is False


def test_a_triton_of_another_release_is_the_toolchain():
    r = diagnose.diagnose("ImportError: cannot import name 'some_new_helper' from 'triton.compiler.compiler'")
    assert r["signature"] == "triton-of-another-api" and r["layer"] == "toolchain"
