"""explain's eighty-fourth round, from the misses of test122 (new and old Pythons): pip listing no torch at all for the
interpreter, a TensorFlow pin older than every version pip offers, the linker (not the loader) missing libcuda.so, and
a torch module a release removed. The texts are written for these tests from the tools' message formats, not copied
from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_no_torch_at_all_for_a_local_build_pin_is_the_python_first():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch==2.3.0+cu121 (from "
                          "versions: none)\nERROR: No matching distribution found for torch==2.3.0+cu121")
    assert r["signature"] == "torch-release-not-for-this-python" and r["layer"] == "torch-build"
    assert "Python 3.8 to 3.12" in r["title"] and _fix(r).startswith("Run it with a 64-bit Python 3.8 to 3.12")
    assert "--index-url https://download.pytorch.org/whl/cu121" in _fix(r)


def test_other_versions_offered_keep_the_index_reading():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement torch==2.3.0+cu121 (from "
                          "versions: 2.2.0, 2.2.1, 2.3.0)\nERROR: No matching distribution found for torch==2.3.0+cu121")
    assert r["signature"] == "torch-local-build-needs-its-index"


def test_a_tensorflow_pin_older_than_everything_offered_is_this_pythons_age():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==1.15.0 (from "
                          "versions: 2.5.0, 2.6.0, 2.7.0)\nERROR: No matching distribution found for tensorflow-gpu==1.15.0")
    assert r["signature"] == "tensorflow-release-older-than-this-python" and r["layer"] == "tensorflow"
    assert "2.5.0" in _fix(r) and "tested build configurations" in _fix(r)


def test_a_tensorflow_gpu_pin_within_the_offered_range_is_not_this_reading():
    r = diagnose.diagnose("ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.6.5 (from "
                          "versions: 2.5.0, 2.6.0, 2.7.0)\nERROR: No matching distribution found for tensorflow-gpu==2.6.5")
    assert r.get("signature") != "tensorflow-release-older-than-this-python"


def test_the_linker_missing_libcuda_is_the_build_and_its_stub():
    r = diagnose.diagnose("/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 "
                          "exit status")
    assert r["signature"] == "libcuda-not-found-by-linker" and r["layer"] == "toolchain"
    assert "LIBRARY_PATH" in _fix(r) and "stubs" in _fix(r) and "TRITON_LIBCUDA_PATH" not in _fix(r)
    triton = diagnose.diagnose("  File \"/x/torch/_inductor/codecache.py\", line 9\n/usr/bin/ld: cannot find -lcuda")
    assert "TRITON_LIBCUDA_PATH" in _fix(triton)


def test_a_removed_torch_module_names_the_package_that_imports_it():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.11/site-packages/oldpkg/utils.py\", line 3, in <module>\n"
                          "    from torch._six import string_classes\nModuleNotFoundError: No module named 'torch._six'")
    assert r["signature"] == "torch-module-removed" and "oldpkg" in _fix(r) and "2.0" in r["title"]


def test_a_torch_module_that_was_never_removed_is_not_this_reading():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'torch._C'")
    assert r.get("signature") != "torch-module-removed"
