"""explain's ninety-fourth round, from the misses of test139 (Numba's CUDA target): NVVM and libdevice missing in
numba's other words, numba's "CudaAPIError: [N]" decoded as the driver API's code, the stub libcuda in the libraries
layer, numba's minimum compute capability, a library loaded as the driver without the driver API, and the last CUDA
for an old GPU. The texts are written for these tests from numba's message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose, extract
from torch_envcheck.knowledge import error_codes
from explain_answers import fix_of as _fix


def test_numbas_other_words_for_a_missing_nvvm_or_libdevice():
    for text in ("OSError: library nvvm not found",
                 "OSError: libnvvm.so.4: cannot open shared object file: No such file or directory",
                 "FileNotFoundError: [Errno 2] No such file or directory: '/opt/conda/envs/x/nvvm/libdevice/libdevice.10.bc'"):
        r = diagnose.diagnose(text)
        assert r["signature"] == "numba-nvvm-missing" and r["layer"] == "libraries", text


def test_numbas_cuda_api_error_number_is_the_driver_apis_code():
    ent = extract.entities("numba.cuda.cudadrv.driver.CudaAPIError: [34]")
    assert any(c["name"] == "CUDA_ERROR_STUB_LIBRARY" for c in ent.codes)


def test_the_stub_libcuda_is_the_libraries_layer():
    assert error_codes.by_name("CUDA_ERROR_STUB_LIBRARY").layer == "libraries"
    assert error_codes.by_name("cudaErrorStubLibrary").layer == "libraries"
    r = diagnose.diagnose("CudaAPIError: [34] Call to cuInit results in CUDA_ERROR_STUB_LIBRARY")
    assert r["layer"] == "libraries" and "stubs" in _fix(r)


def test_a_gpu_below_numbas_minimum():
    r = diagnose.diagnose("CudaSupportError: <CUDA device 0 'GeForce 8400 GS'> has compute capability < (3, 5)")
    assert r["signature"] == "numba-gpu-below-minimum" and r["layer"] == "arch"
    assert "3.5" in _fix(r) and "NUMBA_ENABLE_CUDASIM" in _fix(r)


def test_a_library_without_the_driver_api_loaded_as_the_driver():
    r = diagnose.diagnose("CudaDriverError: driver missing function: cuInit.\nRequires CUDA 8.0 or above.")
    assert r["signature"] == "numba-driver-missing-function" and "NUMBA_CUDA_DRIVER" in _fix(r)


def test_an_old_gpus_capability_names_the_last_cuda_for_it():
    r = diagnose.diagnose("GPU compute capability 3.0 is not supported (requires >=3.5)")
    assert r["signature"] == "gpu-capability-refused" and "cudatoolkit=" in _fix(r)
