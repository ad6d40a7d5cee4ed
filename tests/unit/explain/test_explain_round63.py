"""explain's sixty-third round, from test71's misses (the CPU math and threading libraries): Intel OpenMP's error #15,
MKL's threading layer against libgomp, MKL's own libraries, mkl-service, OpenBLAS inside OpenMP and its threads
refused, static TLS with the library named apart, an OpenMP runtime a package brings. The texts are written for these
tests from the libraries' own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_two_copies_of_intels_openmp():
    r = diagnose.diagnose("OMP: Error #15: Initializing libiomp5.so, but found libiomp5.so already initialized.\n"
                          "OMP: Hint This means that multiple copies of the OpenMP runtime have been linked into the "
                          "program.")
    assert r["signature"] == "openmp-runtime-twice" and r["layer"] == "libraries"
    assert "libiomp5.so" in r["title"] and "nomkl" in _fix(r) and "KMP_DUPLICATE_LIB_OK" in _fix(r)


def test_mkls_intel_threading_against_gnu_openmp():
    r = diagnose.diagnose("Error: mkl-service + Intel(R) MKL: MKL_THREADING_LAYER=INTEL is incompatible with "
                          "libgomp-a34b3233.so.1 library.\n\tTry to import numpy first or set the threading layer "
                          "accordingly.")
    assert r["signature"] == "mkl-threading-vs-libgomp" and "MKL_THREADING_LAYER=GNU" in _fix(r)


@pytest.mark.parametrize("lib", ["mkl_intel_thread.1.dll", "libmkl_avx512.so.2 or libmkl_def.so.2"])
def test_mkl_that_cannot_load_its_own_libraries(lib):
    r = diagnose.diagnose(f"Intel MKL FATAL ERROR: Cannot load {lib}.")
    assert r["signature"] == "mkl-cannot-load" and r["layer"] == "libraries" and "mkl_rt" in _fix(r)


def test_numpys_mkl_service_warning_points_at_the_activated_environment():
    r = diagnose.diagnose("UserWarning: mkl-service package failed to import, therefore Intel(R) MKL initialization "
                          "ensuring its correct out-of-the box operation ... is not assured.")
    assert r["signature"] == "mkl-service-not-importable" and "conda activate" in _fix(r)


def test_openblas_called_from_openmp_threads():
    r = diagnose.diagnose("OpenBLAS Warning : Detect OpenMP Loop and this application may hang. Please rebuild the "
                          "library with USE_OPENMP=1 option.")
    assert r["signature"] == "openblas-inside-openmp" and "OPENBLAS_NUM_THREADS=1" in _fix(r)


def test_openblas_threads_refused_by_the_limit_or_by_seccomp():
    r = diagnose.diagnose("OpenBLAS blas_thread_init: pthread_create failed for thread 7 of 32: Resource temporarily "
                          "unavailable\nOpenBLAS blas_thread_init: RLIMIT_NPROC 4096 current, 4096 max")
    assert r["signature"] == "openblas-threads-limit" and r["layer"] == "env" and "ulimit -u" in _fix(r)
    r = diagnose.diagnose("OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 8: Operation not permitted")
    assert r["signature"] == "openblas-threads-seccomp" and r["layer"] == "container" and "seccomp" in _fix(r)


def test_static_tls_with_the_library_named_apart():
    r = diagnose.diagnose("OSError: SomeLib (libsomething.so) could not be loaded.\ncannot allocate memory in static TLS "
                          "block")
    assert r["signature"] == "static-tls-exhausted" and "LD_PRELOAD" in _fix(r)


def test_a_missing_intel_openmp_is_a_library_the_environment_lacks():
    r = diagnose.diagnose("tool: error while loading shared libraries: libiomp5.so: cannot open shared object file: "
                          "No such file or directory")
    assert r["layer"] == "libraries" and "intel-openmp" in _fix(r)


def test_gnus_openmp_missing_stays_the_c_runtimes():
    r = diagnose.diagnose("ImportError: libgomp.so.1: cannot open shared object file: No such file or directory")
    assert r["layer"] == "c-runtime"
