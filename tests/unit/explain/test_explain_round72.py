"""explain's seventy-second round, from the misses of test88 and test90 to test93 (the program's own GPU errors, CUDA's
math libraries, container images, AMD and Intel GPUs on Windows, choosing devices): library statuses given as numbers,
DirectX's removed device, torch-directml, the DLLs of Intel's extension and of caffe2_nvrtc, the XPU free-memory query,
Paddle's older cuDNN, Compose's GPU devices, images of another CPU, ranks past the visible GPUs. The texts are written
for these tests from the tools' own messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract
from explain_answers import fix_of as _fix


def _codes(text):
    return {c["name"] for c in extract.entities(text).codes}


def test_a_check_against_any_libraries_success_value_is_decoded_in_that_library():
    assert "CUFFT_ALLOC_FAILED" in _codes("F0101 conv.cu:88] Check failed: (cufftExecR2C(plan, in, out)) == CUFFT_SUCCESS "
                                          "(2 vs. 0)")
    assert "ncclSystemError" in _codes("Check failed: ncclAllReduce(a, b, n, ncclFloat, ncclSum, comm, s) == ncclSuccess "
                                       "(2 vs. 0)")
    assert "CURAND_STATUS_LAUNCH_FAILURE" in _codes("Check failed: status == CURAND_STATUS_SUCCESS (201 vs. 0)")


def test_a_name_ending_in_success_outside_the_tables_decodes_nothing():
    assert not _codes("Check failed: ret == MY_LIB_SUCCESS (2 vs. 0)")


def test_a_libraries_status_closing_its_wrappers_failure_line():
    r = diagnose.diagnose("2024-01-02 10:00:00 E op_kernel.cc:120] Failed to associate cuFFT plan with CUDA stream: 1")
    assert r["signature"] == "code-cufftresult-invalidplan" and r["layer"] == "not-environment"
    assert "CUBLAS_STATUS_EXECUTION_FAILED" in _codes("cuBLAS call failed with status: 13")
    # a number closing a line without a failure word is not a status
    assert not _codes("Using cuFFT plan cache size: 4")


def test_cublas_handle_creation_failing_in_words_is_not_initialized():
    r = diagnose.diagnose("RuntimeError: CUBLAS initialization failed")
    assert r["signature"] == "code-cublasstatus-notinitialized" and r["layer"] == "not-environment"
    assert "CUBLAS_STATUS_NOT_INITIALIZED" in _codes("E cuda_blas.cc:238] failed to create cublas handle")


def test_directx_removing_the_device_is_the_driver():
    r = diagnose.diagnose("RuntimeError: CHECK failed: ((((HRESULT)((dml_device_->GetDeviceRemovedReason()))) >= 0)) == "
                          "(true):")
    assert r["signature"] == "directx-device-removed" and r["layer"] == "driver"
    assert "driver" in _fix(r) and "TdrDelay" in _fix(r)
    r = diagnose.diagnose("onnxruntime: Non-zero status code returned while running Conv node. Status Message: "
                          "DmlExecutionProvider: 887A0006 The GPU will not respond to more commands")
    assert r["signature"] == "directx-device-removed"


def test_the_directml_package_asked_for():
    r = diagnose.diagnose("Checking DirectML...\nFailed to import torch.dml: install the DirectML build")
    assert r["signature"] == "directml-package-missing" and r["layer"] == "torch-build"
    assert "pip install torch-directml" in _fix(r) and "torch_directml.device()" in _fix(r)


def test_intels_extension_dll_needs_oneapis_runtime():
    r = diagnose.diagnose('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\venv\\'
                          'Lib\\site-packages\\intel_extension_for_pytorch\\bin\\intel-ext-pt-gpu.dll" or one of its '
                          'dependencies.')
    assert r["signature"] == "ipex-dll-dependency" and r["layer"] == "windows-runtime"
    assert "intel-sycl-rt" in _fix(r) and "setvars.bat" in _fix(r) and "intel-ext-pt-gpu.dll" in r["title"]


def test_caffe2_nvrtc_names_its_imports_and_zluda():
    r = diagnose.diagnose('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\env\\'
                          'Lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll" or one of its dependencies.')
    assert r["signature"] == "caffe2-nvrtc-dependency" and r["layer"] == "windows-runtime"
    assert "vc_redist" in _fix(r) and "HIP SDK" in _fix(r) and "nvrtc64_" in _fix(r)


def test_another_dll_of_torch_keeps_the_general_reading():
    r = diagnose.diagnose('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\env\\'
                          'Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.')
    assert r["signature"] not in ("caffe2-nvrtc-dependency", "ipex-dll-dependency")


def test_xpu_without_a_free_memory_query():
    r = diagnose.diagnose("RuntimeError: The device (Intel(R) Arc(TM) B580 Graphics) doesn't support querying the "
                          "available free memory. You can file an issue at https://github.com/pytorch/pytorch/issues to "
                          "help us prioritize its implementation.")
    assert r["signature"] == "xpu-free-memory-unsupported" and r["layer"] == "torch-build"
    assert "whl/xpu" in _fix(r) and "ZES_ENABLE_SYSMAN=1" in _fix(r) and "B580" in r["title"]


def test_paddle_built_with_a_newer_cudnn():
    r = diagnose.diagnose("W0101 device_context.cc:270] WARNING: device: 0. The installed Paddle is compiled with CUDNN "
                          "9.9, but CUDNN version in your machine is 9.5, which may cause serious incompatible bug. Please "
                          "recompile or reinstall Paddle with compatible CUDNN version.\nExternalError: CUDNN error(3), "
                          "CUDNN_STATUS_BAD_PARAM.")
    assert r["signature"] == "paddle-cudnn-older-than-build" and r["layer"] == "cudnn"
    assert 'nvidia-cudnn-cu12>=9.9' in _fix(r)
    old = diagnose.diagnose("WARNING: device: 0. The installed Paddle is compiled with CUDNN 7.6, but CUDNN version in "
                            "your machine is 7.4, which may cause serious incompatible bug.")
    assert "cudnn=7.6" in _fix(old) and "nvidia-cudnn" not in _fix(old)


def test_paddles_warning_for_equal_versions_is_not_this_reading():
    r = diagnose.diagnose("WARNING: device: 0. The installed Paddle is compiled with CUDNN 8.9, but CUDNN version in "
                          "your machine is 8.9, which may cause serious incompatible bug.")
    assert r["signature"] != "paddle-cudnn-older-than-build"


def test_compose_gpu_devices():
    r = diagnose.diagnose("The Compose file './docker-compose.yml' is invalid because:\nservices.trainer.deploy.resources."
                          "reservations value Additional properties are not allowed ('devices' was unexpected)")
    assert r["signature"] == "compose-too-old-for-gpu-devices" and r["layer"] == "container" and "1.28.0" in _fix(r)
    r = diagnose.diagnose("validating compose.yaml: services.web.deploy.resources.limits Additional property devices is "
                          "not allowed")
    assert r["signature"] == "compose-gpu-devices-under-limits" and "reservations" in _fix(r)


def test_an_image_of_another_cpu():
    r = diagnose.diagnose(" ---> [Warning] The requested image's platform (linux/amd64) does not match the detected host "
                          "platform (linux/arm64/v8) and no specific platform was requested\nexec /bin/sh: exec format "
                          "error")
    assert r["signature"] == "image-for-another-cpu" and r["layer"] == "container"
    assert "l4t" in _fix(r) and "linux/amd64" in r["title"]


def test_pythons_exec_format_error_is_not_the_containers():
    r = diagnose.diagnose("OSError: [Errno 8] Exec format error: './run.sh'")
    assert r["signature"] != "image-for-another-cpu"


def test_a_rank_past_the_visible_gpus():
    r = diagnose.diagnose('  File "train.py", line 40, in main\n    torch.cuda.set_device(args.local_rank)\n'
                          "RuntimeError: CUDA error: invalid device ordinal")
    assert r["signature"] == "ordinal-from-local-rank" and r["layer"] == "env" and "--nproc_per_node" in _fix(r)
    r = diagnose.diagnose("[rank3]: RuntimeError: CUDA error: invalid device ordinal")
    assert r["signature"] == "ordinal-from-local-rank"


def test_an_ordinal_the_program_named_is_not_the_launchs():
    r = diagnose.diagnose("    x = x.to('cuda:3')\nRuntimeError: CUDA error: invalid device ordinal")
    assert r["signature"] != "ordinal-from-local-rank"
