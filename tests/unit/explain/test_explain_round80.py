"""explain's eightieth round, from the misses of test113 (graph-learning libraries): a package's compiled submodule that
its own code cannot import. The texts are written for these tests from Python's own message formats, not copied from
the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_packages_own_compiled_submodule_missing_is_its_build():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"/opt/venv/lib/python3.10/site-packages/torch_spline_"
                          "conv/basis.py\", line 4, in <module>\n    import torch_spline_conv.basis_cuda\nModuleNotFoundError: "
                          "No module named 'torch_spline_conv.basis_cuda'")
    assert r["signature"] == "package-cuda-module-missing" and r["layer"] == "toolchain"
    assert "torch-spline-conv" in r["title"] and "nvcc" in _fix(r)


def test_a_compiled_submodule_imported_by_the_program_is_not_read_as_a_missing_build():
    r = diagnose.diagnose("  File \"train.py\", line 3, in <module>\n    import torch_cluster.knn_cuda\nModuleNotFoundError: "
                          "No module named 'torch_cluster.knn_cuda'")
    assert r.get("signature") != "package-cuda-module-missing"


def test_torchs_own_submodules_stay_torchs():
    r = diagnose.diagnose("  File \"/opt/venv/lib/python3.10/site-packages/torch/__init__.py\", line 2, in <module>\n    "
                          "import torch._C_cuda\nModuleNotFoundError: No module named 'torch._C_cuda'")
    assert r.get("signature") != "package-cuda-module-missing"


def test_pips_errno_2_past_windows_max_path_is_the_path_length():
    deep = "C:\\\\Users\\\\user\\\\envs\\\\tf\\\\Lib\\\\site-packages\\\\tensorflow\\\\include\\\\" + "external\\\\" * 20 + "x.h"
    r = diagnose.diagnose(f"ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: '{deep}'")
    assert r["signature"] == "install-path-too-long" and r["layer"] == "windows-runtime"
    assert "LongPathsEnabled" in _fix(r) and "Store" not in _fix(r)
    store = diagnose.diagnose("ERROR: Could not install packages due to an EnvironmentError: [Errno 2] No such file or "
                              "directory: 'C:\\\\Users\\\\user\\\\AppData\\\\Local\\\\Packages\\\\PythonSoftwareFoundation.P")
    assert store["signature"] == "install-path-too-long" and "Store" in _fix(store)


def test_pips_errno_2_for_a_short_path_is_not_read_as_its_length():
    r = diagnose.diagnose("ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: "
                          "'C:\\\\work\\\\req.txt'")
    assert r.get("signature") != "install-path-too-long"
