"""explain's eighteenth round, from test18's misses (the reporters' languages) read as structure: "No module named
'torch'" outside a build is the interpreter without torch, inside an install of a source tree is build isolation; a
printed is_available() True beside a program's "GPU not recognized by torch" is two environments; torch's DLLs failing
where a Qt binding is used (torch >= 2.9 on Windows) is the import order; NCCL's InfiniBand async events are the
fabric. The texts follow each tool's documented format; the oracle is what the format means."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_no_module_named_torch_outside_a_build_is_this_interpreters_pip():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"app.py\", line 1, in <module>\n    import torch\n"
                          "ModuleNotFoundError: No module named 'torch'")
    assert r["signature"] == "torch-not-installed-in-this-python" and r["layer"] == "torch-build", r
    assert "python -m pip install torch" in r["fix"], r["fix"]
    # a submodule is not torch itself
    sub = diagnose.diagnose("ModuleNotFoundError: No module named 'torch._six'")
    assert sub["signature"] != "torch-not-installed-in-this-python", sub["signature"]


def test_no_module_named_torch_while_installing_a_source_tree_is_build_isolation():
    r = diagnose.diagnose("When I use `pip install -e .` During installation, the following error occurs:\n"
                          "ModuleNotFoundError: No module named 'torch'")
    assert r["signature"] == "build-isolation-hides-torch" and "--no-build-isolation" in r["fix"], r


def test_a_printed_true_beside_the_programs_no_gpu_is_two_environments():
    r = diagnose.diagnose("When I run the program I get this warning message \"GPU not recognized by torch\"\n"
                          "python -c \"import torch; print(torch.cuda.is_available()); print(torch.version.cuda)\"\n"
                          "and I got :\n\"\nTrue\n11.8\n\"")
    assert r["signature"] == "cuda-available-in-another-environment", r["signature"]


def test_torch_dlls_failing_after_qt_is_the_import_order():
    r = diagnose.diagnose("from PyQt5 import QtWidgets\nimport easyocr\nOSError: [WinError 1114] A dynamic link library "
                          "(DLL) initialization routine failed. Error loading \"C:\\\\Python310\\\\lib\\\\site-packages\\\\"
                          "torch\\\\lib\\\\c10.dll\" or one of its dependencies.")
    assert r["signature"] == "qt-imported-before-torch" and "Import torch before PyQt5" in r["fix"], r
    # without Qt in the text, not this reading
    o = diagnose.diagnose("OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error "
                          "loading \"C:\\\\Python310\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\c10.dll\"")
    assert o["signature"] != "qt-imported-before-torch", o["signature"]


def test_nccl_infiniband_port_errors_are_the_fabric():
    r = diagnose.diagnose("node12:4411:4530 [3] NCCL WARN NET/IB : Got async event : port error\n"
                          "node12:4411:4530 [3] NCCL WARN NET/IB : Got async event : port active")
    assert r["signature"] == "nccl-ib-async-event" and r["layer"] == "distributed" and "ibstat" in r["fix"], r
