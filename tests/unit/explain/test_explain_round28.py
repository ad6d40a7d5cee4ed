"""explain's twenty-eighth round, from test28's misses (the C++ side a third time, with LibTorch's bindings): the
bindings' own words read from a table of how each finds LibTorch (knowledge.bindings: tch, TorchSharp, DJL, PyTorch's
Java bindings), STATUS_DLL_NOT_FOUND from a LibTorch program, TorchScript refusing the program (and scripting a module
instance before torch 1.2), libstdc++'s debug mode, MSVC's C2039 and unquoted "is not a member", ATen's older C++
wording, "Torch is not linked against CUDA", CMake's message with typographic quotes, FileAdapter's "open file failed".
The texts are written for these tests from each component's documentation, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import bindings
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text, sig, layer, word", [
    ("  --- stderr\n  Error: \n  Cannot find a libtorch install, you can either:\n  - Install libtorch manually",
     "libtorch-binding-setup", "toolchain", "LIBTORCH_USE_PYTORCH=1"),
    ("System.NotSupportedException: This application or script uses TorchSharp but doesn't contain a reference to "
     "libtorch-cuda-12.1-linux-x64", "libtorch-binding-package", "torch-build", "PackageReference"),
    ("Caused by: java.lang.UnsatisfiedLinkError: C:\\djl\\pytorch\\2.1.1-cpu-win-x86_64\\torch_cpu.dll: Can't find "
     "dependent libraries", "libtorch-binding-vc-runtime", "windows-runtime", "vc_redist"),
    ("[DEBUG] - Loading native library: /usr/lib/libtorch_cpu.so\nai.djl.engine.EngineException: Failed to load PyTorch "
     "native library", "libtorch-binding-loader", "libraries", "PYTORCH_LIBRARY_PATH"),
    ("$ ./gradlew run\nLIBTORCH_HOME not present in environment", "libtorch-binding-setup", "toolchain", "LIBTORCH_HOME"),
    ("Exception: java.lang.UnsatisfiedLinkError: no pytorch_jni in java.library.path", "libtorch-binding-package",
     "torch-build", "pre-cxx11"),
])
def test_the_bindings_in_their_own_words(text, sig, layer, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == layer, r
    assert word in _fix(r), _fix(r)


def test_the_bindings_table_names_a_missing_package_and_the_system_library():
    r = bindings.reading("uses TorchSharp but doesn't contain a reference to libtorch-cpu-osx-arm64")
    assert "libtorch-cpu-osx-arm64" in r["what"] and r["kind"] == "package"
    assert bindings.reading("nothing about a binding") is None


def test_a_libtorch_program_exiting_with_dll_not_found():
    r = diagnose.diagnose("The program '[812] infer.exe' has exited with code -1073741515 (0xc0000135).\n"
                          "target_link_libraries(infer \"${TORCH_LIBRARIES}\")")
    assert r["signature"] == "libtorch-program-dll-not-found" and r["layer"] == "libraries", r
    assert "POST_BUILD" in _fix(r)


@pytest.mark.parametrize("text", [
    "RuntimeError: f() expected value of type Tensor for argument 'n' in position 0, but instead got value of type int.",
    "RuntimeError: module has no attribute 'forward'",
    "RuntimeError: method INTERNAL ASSERT FAILED at ../torch/csrc/jit/frontend/ir_emitter.cpp:100, please report a bug",
])
def test_torchscript_refusing_the_program(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torchscript-refuses-program" and r["environment_problem"] is False, r


def test_scripting_a_module_instance_before_torch_1_2():
    r = diagnose.diagnose("net = Net()\nm = torch.jit.script(net)\nTypeError: Net(\n  (fc): Linear(in_features=2, "
                          "out_features=2, bias=True)\n) is not a module, class, method, function, traceback, frame, or "
                          "code object")
    assert r["signature"] == "torchscript-module-needs-1-2" and "1.2" in _fix(r), r


def test_libstdcxx_debug_mode_with_libtorch():
    r = diagnose.diagnose("g++ -D_GLIBCXX_DEBUG -I/opt/libtorch/include app.cpp\n/opt/libtorch/include/ATen/core/List.h:"
                          "12:3: error: use of deleted function")
    assert r["signature"] == "libtorch-glibcxx-debug" and "_GLIBCXX_ASSERTIONS" in _fix(r), r


@pytest.mark.parametrize("text, sig", [
    ("main.cpp(7): error C2039: 'load': is not a member of 'torch::jit'", "torch-api-header-not-included"),
    ("torch::get_num_interop_threads() is not a member of torch", "torch-api-version-skew"),
])
def test_not_a_member_in_msvc_and_unquoted_forms(text, sig):
    assert diagnose.diagnose(text)["signature"] == sig


def test_older_aten_wording_of_its_cxx_standard():
    r = diagnose.diagnose("/opt/libtorch/include/c10/util/C++17.h:24:2: error: #error You need C++14 to compile PyTorch")
    assert r["signature"] == "aten-needs-cxx-standard" and "-std=c++14" in _fix(r), r


def test_torch_not_linked_against_cuda():
    r = diagnose.diagnose("std::cout << torch::cuda::is_available();\nterminate called: Torch is not linked against CUDA")
    assert r["signature"] == "libtorch-cuda-library-not-loaded", r


def test_cmake_message_with_typographic_quotes():
    r = diagnose.diagnose("Could not find a package configuration file provided by \u201cTorch\u201d with any of")
    assert r["signature"] == "cmake-torch-package-not-found", r


def test_file_adapter_cannot_open_the_file():
    r = diagnose.diagnose("what():  open file failed, file path: models/m.pt (FileAdapter at "
                          "../caffe2/serialize/file_adapter.cc:11)")
    assert r["signature"] == "torch-file-not-a-torch-archive" and r["environment_problem"] is False, r
    assert "working directory" in _fix(r)
