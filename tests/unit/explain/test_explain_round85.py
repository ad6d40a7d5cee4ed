"""explain's eighty-fifth round, from the misses of test123 (GPU memory) and test124 (RAPIDS): a banner's runtime and
driver CUDA versions, a package's own check of the runtime it found, Cython's check of another module's C API, a
package's plain C symbol, an OS library named by its package, and a bare file name read for its distribution. The
texts are written for these tests from the messages' formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_runtime_of_a_newer_major_than_the_driver_is_the_driver():
    r = diagnose.diagnose("solverlib 3.1\nCompiled with CUDA Runtime 12.4, using CUDA driver 11.8\nCannot allocate memory")
    assert r["signature"] == "runtime-newer-than-driver" and r["layer"] == "driver"
    assert "12.4" in _fix(r) and "11.8" in _fix(r)


def test_a_runtime_of_the_drivers_major_is_not_this_reading():
    r = diagnose.diagnose("Compiled with CUDA Runtime 12.4, using CUDA driver 12.2\nCannot allocate memory")
    assert r.get("signature") != "runtime-newer-than-driver"


def test_a_packages_runtime_check_is_the_runtime_the_loader_finds():
    r = diagnose.diagnose("cudf.errors.UnsupportedCUDAError: Detected CUDA Runtime version is 11.2. Please update your "
                          "CUDA Runtime to 11.5 or above.")
    assert r["signature"] == "package-cuda-runtime-too-old" and r["layer"] == "libraries"
    assert "LD_LIBRARY_PATH" in _fix(r) and "11.5" in _fix(r)


def test_cythons_c_api_check_names_both_packages():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.11/site-packages/graphpkg/__init__.py\", line 2, in <module>\n"
                          "ImportError: basepkg._lib.core does not export expected C function make_table")
    assert r["signature"] == "cython-api-mismatch" and r["layer"] == "toolchain"
    assert "pip install -U basepkg graphpkg" in _fix(r)
    sig = diagnose.diagnose("ValueError: C function basepkg._lib.core.make_table has wrong signature (expected int, got long)")
    assert sig["signature"] == "cython-api-mismatch"


def test_a_packages_own_plain_c_symbol_is_its_parts_of_two_releases():
    r = diagnose.diagnose("ImportError: /opt/venv/lib/python3.11/site-packages/tablepkg/bindings/core.cpython-311-x86_64-"
                          "linux-gnu.so: undefined symbol: tbl_replace_all")
    assert r["signature"] == "package-own-symbol-missing" and "tablepkg" in _fix(r)
    assert "for the torch you have" not in _fix(r)


def test_a_plain_c_symbol_of_the_cuda_runtime_is_not_the_packages_own():
    r = diagnose.diagnose("ImportError: /opt/venv/lib/python3.11/site-packages/tablepkg/core.so: undefined symbol: "
                          "cudaGetDriverEntryPointByVersion")
    assert r.get("signature") != "package-own-symbol-missing"


def test_a_bare_file_name_reads_its_distribution():
    r = diagnose.diagnose("fbgemm_gpu_py.so: undefined symbol: _ZN6fbgemm8internal9some_kernelEv")
    assert r["signature"] == "package-own-symbol-missing" and "pip uninstall -y fbgemm-gpu" in _fix(r)


def test_an_os_library_names_its_packages_not_opengls():
    r = diagnose.diagnose("ImportError: libnuma.so.1: cannot open shared object file: No such file or directory")
    assert r["signature"] == "os-library-missing" and "libnuma1" in r["title"]
    assert "libgl1" not in _fix(r) and "apt-file search libnuma.so.1" in _fix(r)
    gl = diagnose.diagnose("ImportError: libGL.so.1: cannot open shared object file: No such file or directory")
    assert "libgl1" in _fix(gl)
