"""explain's twenty-second round, from test22's misses (error codes) read as structure: a code name glued to CJK
letters is still the name (identifiers are ASCII); a number labelled by its library ("cusolver error: 7", "CUFFT
error(5)", "NCCL Error 2") is read in that library's enumeration; pynvml's exception classes (NVMLError_GpuIsLost) are
NVML's names spelt the way pynvml spells them; Numba's "[N] Call to cuX results in ..." carries a CUresult; the
paging-file message in prose; an out-of-memory report whose own sizes show the memory held outside the process.  The
oracle is each enumeration's documented value and each tool's documented format."""

from __future__ import annotations

import string

import pytest

from torch_envcheck.explain import diagnose, extract
from torch_envcheck.knowledge import error_codes


def _codes(text):
    return {c["name"] for c in extract.entities(text).codes}


@pytest.mark.parametrize("text, name", [
    ("paddle报CUDNN_STATUS_NOT_SUPPORTED", "CUDNN_STATUS_NOT_SUPPORTED"),
    ("模型出现CUBLAS_STATUS_INVALID_VALUE错误", "CUBLAS_STATUS_INVALID_VALUE"),
    ("エラー：cudaErrorNoKernelImageForDevice発生", "cudaErrorNoKernelImageForDevice"),
    ("오류CUDA_ERROR_OUT_OF_MEMORY입니다", "CUDA_ERROR_OUT_OF_MEMORY"),
])
def test_a_code_name_glued_to_cjk_letters_is_read(text, name):
    assert name in _codes(text)


def test_a_longer_ascii_identifier_is_not_a_code_name():
    # the boundary is still a boundary for ASCII: a name inside a longer identifier is not that name
    assert "CUDNN_STATUS_NOT_SUPPORTED" not in _codes("MY_CUDNN_STATUS_NOT_SUPPORTED_COUNT = 3")


@pytest.mark.parametrize("text, name", [
    ("RuntimeError: cusolver error: 7, when calling `cusolverDnCreate(handle)`", "CUSOLVER_STATUS_INTERNAL_ERROR"),
    ("OSError: (External) CUFFT error(5).", "CUFFT_INTERNAL_ERROR"),
    ("RuntimeError: NCCL Error 2: unhandled system error", "ncclSystemError"),
    ("CUBLAS error 13", "CUBLAS_STATUS_EXECUTION_FAILED"),
    ("cusparse status = 7", "CUSPARSE_STATUS_INTERNAL_ERROR"),
])
def test_a_number_labelled_by_its_library_is_read_in_its_enumeration(text, name):
    code = error_codes.by_name(name)
    assert code is not None and str(code.value) in text  # the table's value is the one the text prints
    assert name in _codes(text)


def test_a_version_after_a_library_name_is_not_a_code():
    assert not [c for c in extract.entities("NCCL error in: ProcessGroupNCCL.cpp:825, unhandled system error, "
                                            "NCCL version 2.7.8").codes if c["how"] == "number"]
    assert not _codes("cublas status 11.4.2 installed")


def test_pynvml_exception_classes_are_nvml_names():
    # pynvml names each class "NVMLError_" + string.capwords(<name without NVML_ERROR_>, "_") without underscores
    for name in ("NVML_ERROR_GPU_IS_LOST", "NVML_ERROR_DRIVER_NOT_LOADED", "NVML_ERROR_LIB_RM_VERSION_MISMATCH"):
        cls = "NVMLError_" + string.capwords(name[len("NVML_ERROR_"):], "_").replace("_", "")
        assert name in _codes(f"pynvml.nvml.{cls}: something"), cls
    r = diagnose.diagnose("    raise NVMLError(ret)\nNVMLError_GpuIsLost: GPU is lost")
    assert r["layer"] == "driver" and r["environment_problem"] is True, r
    assert "Xid" in r["fix"], r["fix"]
    # a class pynvml does not generate is no code
    assert not _codes("NVMLError_SomethingElse: x")


def test_numbas_call_results_carry_a_curesult():
    text = "numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in UNKNOWN_CUDA_ERROR"
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in _codes(text)
    r = diagnose.diagnose(text)
    assert r["environment_problem"] is False, r


def test_the_paging_file_message_in_prose():
    r = diagnose.diagnose("Either it stops after loading checkpoints, or it proceeds a little further, only to report "
                          "that the paging file is too small and return Error 1455.")
    assert r["layer"] == "windows-runtime" and "page file" in r["fix"].lower(), r


def test_out_of_memory_whose_sizes_show_memory_held_elsewhere():
    tf = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:1002] failed to allocate 3.00G (3221225472 bytes) from "
          "device: CUDA_ERROR_OUT_OF_MEMORY\nTotal memory: 7.91GiB\nFree memory: 148.69MiB")
    r = diagnose.diagnose(tf)
    assert r["environment_problem"] is False and "nvidia-smi" in r["fix"] and "7.8 of its 7.9 GiB" in r["fix"], r
    # the same code with most of the memory free when the device was created: the workload's own size
    own = tf.replace("Free memory: 148.69MiB", "Free memory: 7.60GiB")
    assert "outside this process" not in diagnose.diagnose(own)["fix"]
    # torch's newer wording: 23.65 total, 0.01 free, 3.10 in this process -> about 20.5 GiB elsewhere
    new = ("RuntimeError: CUDA driver error: out of memory\nCUDA_ERROR_OUT_OF_MEMORY: GPU 0 has a total capacity of "
           "23.65 GiB of which 13.06 MiB is free. Including non-PyTorch memory, this process has 3.10 GiB memory in use.")
    assert "20.5 of its 23.6 GiB" in diagnose.diagnose(new)["fix"]
    mine = new.replace("3.10 GiB memory in use", "23.50 GiB memory in use")
    assert "outside this process" not in diagnose.diagnose(mine)["fix"]
