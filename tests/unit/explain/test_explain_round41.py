"""explain's forty-first round, from test41's misses (profiling and monitoring the GPU): CUPTI's result codes
decoded from cupti_result.h, the performance counters restricted to administrators, CUPTI's one subscriber, libcupti
off the loader path, nvprof before Ampere, NVML's NotSupported and FunctionNotFound, pynvml for torch.cuda, and NVML's
own library counted as the driver's. The texts are written for these tests from the tools' messages, not copied from
the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import error_codes
from explain_answers import fix_of as _fix


def test_cupti_codes_are_decoded_from_their_header():
    c = error_codes.by_name("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")
    assert c is not None and c.value == 35 and c.family == "CUptiResult" and c.layer == "driver"
    assert error_codes.by_name("CUPTI_ERROR_NOT_INITIALIZED").layer == "libraries"


def test_nvmls_own_library_missing_is_the_driver():
    assert error_codes.by_name("NVML_ERROR_LIBRARY_NOT_FOUND").layer == "driver"
    assert error_codes.by_name("NVML_ERROR_FUNCTION_NOT_FOUND").layer == "driver"


@pytest.mark.parametrize("text", [
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the "
    "target device 0.",
    "cupti_tracer.cpp:120: error: function cuptiActivityRegisterCallbacks failed with error "
    "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES.",
])
def test_restricted_counters_are_the_drivers_admin_setting(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "gpu-counters-restricted" and r["layer"] == "driver", r
    assert "NVreg_RestrictProfilingToAdminUsers=0" in _fix(r)


def test_restricted_counters_in_a_container_are_its_capability():
    r = diagnose.diagnose("Running the profiler inside a docker container:\nCUPTI_ERROR_INSUFFICIENT_PRIVILEGES")
    assert r["signature"] == "gpu-counters-restricted" and r["layer"] == "container" and "SYS_ADMIN" in _fix(r), r


def test_kinetos_start_up_hint_is_not_the_error():
    r = diagnose.diagnose("WARNING: function cbapi->getCuptiStatus() failed with error CUPTI_ERROR_NOT_INITIALIZED (15)\n"
                          "WARNING: CUPTI initialization failed - CUDA profiler activities will be missing\nINFO: If you "
                          "see CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, refer to https://developer.nvidia.com/"
                          "nvidia-development-tools-solutions-err-nvgpuctrperm-cupti")
    assert r["signature"] != "gpu-counters-restricted" and r["layer"] == "libraries", r


def test_one_cupti_subscriber():
    r = diagnose.diagnose("torch 2.3.0.dev20240115+cu121\nCUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED")
    assert r["signature"] == "cupti-subscriber-taken" and r["layer"] == "torch-build" and "nightly" in _fix(r), r
    r = diagnose.diagnose("nsys reports CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED")
    assert r["signature"] == "cupti-subscriber-taken" and r["layer"] == "env", r


def test_libcupti_off_the_loader_path():
    r = diagnose.diagnose("W dso_loader.cc:59] Could not load dynamic library 'libcupti.so.11.2'; dlerror: "
                          "libcupti.so.11.2: cannot open shared object file: No such file or directory")
    assert r["signature"] == "cupti-library-not-found" and r["layer"] == "libraries", r
    assert "extras/CUPTI/lib64" in _fix(r)


def test_nvprof_on_ampere():
    r = diagnose.diagnose("======== Warning: nvprof is not supported on devices with compute capability 8.0 and higher.")
    assert r["signature"] == "nvprof-unsupported-gpu" and r["layer"] == "arch" and "nsys" in _fix(r), r


@pytest.mark.parametrize("text", ["pynvml.nvml.NVMLError_NotSupported: Not Supported",
                                  "error: NVMLError(Error(NotSupported, State { next_error: None }))"])
def test_nvml_not_supported_is_the_gpu_not_the_install(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "not-environment" and not r["environment_problem"], r


def test_an_nvml_function_missing_with_an_old_driver_printed():
    r = diagnose.diagnose(">>> nvmlSystemGetDriverVersion()\nb'440.59'\nAttributeError: /usr/lib/x86_64-linux-gnu/"
                          "libnvidia-ml.so.1: undefined symbol: nvmlDeviceGetComputeRunningProcesses_v2")
    assert r["signature"] == "nvml-function-missing-old-driver" and r["layer"] == "driver" and "440.59" in r["title"], r


def test_an_nvml_function_missing_without_a_driver_is_the_binding():
    r = diagnose.diagnose("ERROR: Some FunctionNotFound errors occurred while calling:\n    "
                          "nvmlQuery('nvmlDeviceGetGraphicsRunningProcesses', *args, **kwargs)")
    assert r["signature"] == "nvml-binding-mismatch" and r["layer"] == "libraries", r
    assert "pip uninstall -y pynvml" in _fix(r) and "nvidia-ml-py" in _fix(r)


def test_pynvml_for_torch_cuda_utilization():
    r = diagnose.diagnose("ModuleNotFoundError: pynvml does not seem to be installed or it can't be imported.")
    assert r["signature"] == "pynvml-missing" and "pip install nvidia-ml-py" in _fix(r), r


def test_an_attribute_missing_without_quotes_is_still_an_older_torch():
    r = diagnose.diagnose("AttributeError: module torch.cuda has no attribute memory_summary")
    assert r["signature"] == "torch-name-missing" and r["layer"] == "torch-build", r
