"""explain's twenty-seventh round, from test27's misses (the C++ side of torch again, in other messages), read as the
facts those messages carry rather than as one rule per message: what a model reader's refusal says about who wrote the
file (knowledge.serialization), the program's own output of torch::cuda::is_available(), the platform a symbol's
mangling names (MinGW's __imp__Z, Android's std::__ndk1), another library's symbols in the old std::string ABI, an API
the headers lack, ATen's C++ standard, TorchConfig without its library, an imported target's missing file, CMake's
probe log, cpp_extension's keywords, a program finding another libtorch, MKL's removed iJIT symbol, the tracer's and
torch.export's other refusals.  The texts are written for these tests from each component's documented behaviour,
not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import serialization
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text, kind", [
    ("RuntimeError: /data/w.pth is a zip archive (did you mean to use torch.jit.load()?)", "reader-older"),
    ("what(): INVALID_ARGUMENT:main_module.submodules[2]: Cannot find field. (deserialize at import.cpp:95)",
     "reader-older"),
    ("Magic number mismatch in PyTorch file. File may be corrupted or is not actually a PyTorch file.", "reader-older"),
    ("`torch::jit::load()` received a file from `torch.save()`, but `torch::jit::load()` can only load files produced "
     "by `torch.jit.save()`", "wrong-loader"),
    ("PytorchStreamReader failed reading zip archive: not a ZIP archive", "not-a-file"),
])
def test_the_serialization_table_says_what_a_reader_means(text, kind):
    assert serialization.reading("noise\n" + text)["kind"] == kind
    assert serialization.reading("nothing about model files") is None


def test_a_reader_older_than_the_writer_is_the_readers_version():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"eval.py\", line 3, in <module>\n"
                          "RuntimeError: ckpt/best.pth is a zip archive (did you mean to use torch.jit.load()?)")
    assert r["signature"] == "torch-file-written-by-newer-torch" and r["layer"] == "torch-build", r
    assert "1.6" in _fix(r) and "_use_new_zipfile_serialization=False" in _fix(r)


def test_the_wrong_loader_is_the_program():
    r = diagnose.diagnose("what():  `torch::jit::load()` received a file from `torch.save()`, but `torch::jit::load()` "
                          "can only load files produced by `torch.jit.save()`")
    assert r["signature"] == "torch-file-wrong-loader" and r["environment_problem"] is False, r
    assert "pickle_load" in _fix(r)


@pytest.mark.parametrize("out", ["CUDA: 0", "cuda available = false", "CUDA is not available"])
def test_the_programs_own_output_of_is_available(out):
    text = ("std::cout << \"CUDA: \" << torch::cuda::is_available() << std::endl;\n\nOutput:\n" + out + "\n")
    r = diagnose.diagnose(text)
    assert r["signature"] == "libtorch-cuda-library-not-loaded" and r["layer"] == "toolchain", r
    assert "warp_size" in _fix(r) and "--no-as-needed" in _fix(r)


def test_is_available_printed_true_is_not_a_failure():
    r = diagnose.diagnose("std::cout << torch::cuda::is_available();\nOutput:\nCUDA: 1\n")
    assert r.get("signature") not in ("libtorch-cuda-library-not-loaded", "libtorch-cpu-download"), r


def test_mingw_against_the_msvc_libtorch():
    r = diagnose.diagnose("g++ -o app.exe main.o -LC:/libtorch/lib -ltorch -lc10\nmain.o: undefined reference to "
                          "`__imp__ZN3c106detail14torchCheckFailEPKcS2_jS2_'")
    assert r["signature"] == "libtorch-mingw-against-msvc" and "MSVC" in _fix(r), r


def test_android_lite_interpreter_has_no_jit_load():
    r = diagnose.diagnose("ld.lld: error: undefined symbol: torch::jit::load(std::__ndk1::basic_string<char, "
                          "std::__ndk1::char_traits<char>, std::__ndk1::allocator<char> > const&)")
    assert r["signature"] == "libtorch-android-lite-interpreter", r
    assert "_load_for_mobile" in _fix(r) and "BUILD_LITE_INTERPRETER=0" in _fix(r)


def test_another_librarys_symbols_in_the_old_abi_that_torch_imposed():
    text = ("find_package(Torch REQUIRED)\ntarget_link_libraries(node ${catkin_LIBRARIES} ${TORCH_LIBRARIES})\n"
            "node.cpp:(.text+0x51): undefined reference to `cv::imread(std::string const&, int)'")
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-flags-old-abi-for-other-library" and "cv" in r["title"], r
    assert "cxx11-abi" in _fix(r)
    plain = diagnose.diagnose("node.cpp:(.text+0x51): undefined reference to `cv::imread(std::string const&, int)'")
    assert plain.get("signature") != "torch-flags-old-abi-for-other-library"  # no torch in the build


@pytest.mark.parametrize("text, sig, layer, word", [
    ("main.cpp:3:40: error: 'load' is not a member of 'torch::jit'", "torch-api-header-not-included",
     "not-environment", "torch/script.h"),
    ("main.cpp:9:12: error: 'InferenceMode' is not a member of 'torch'", "torch-api-missing-from-libtorch",
     "torch-build", "1.9"),
    ("api.cpp:7:5: error: no member named 'fancy_new_op' in namespace 'at'", "torch-api-version-skew", "toolchain",
     "build-version"),
])
def test_an_api_the_headers_lack(text, sig, layer, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == layer, r
    assert word in _fix(r), _fix(r)


def test_aten_needs_its_cxx_standard_and_cgo_compiles_it_as_c():
    r = diagnose.diagnose("In file included from ./include/torch/script.h:3,\n                 from ./bridge.cpp:1,\n"
                          "                 from ./main.go:5:\n./include/ATen/ATen.h:4:2: error: #error C++17 or later "
                          "compatible compiler is required to use ATen.\n./include/c10/macros/Macros.h:3:10: fatal "
                          "error: cassert: No such file or directory")
    assert r["signature"] == "aten-needs-cxx-standard" and r["layer"] == "toolchain", r
    assert "-std=c++17" in _fix(r) and "as C" in r["explanation"]


def test_torch_config_without_its_library_names_the_platform():
    r = diagnose.diagnose("unzip libtorch-cxx11-abi-shared-with-deps-2.4.0+cpu.zip -d D:/deps\n"
                          "CMake Error at D:/deps/libtorch/share/cmake/Torch/TorchConfig.cmake:130:\n"
                          "  Could NOT find Torch (missing: TORCH_LIBRARY)")
    assert r["signature"] == "torch-cmake-library-missing", r
    assert "Linux LibTorch on Windows" in r["title"] and "libtorch-win" in _fix(r)


def test_an_imported_target_naming_a_missing_file_is_the_package():
    r = diagnose.diagnose("CMake Error at /opt/env/share/cmake/Caffe2/Caffe2Targets.cmake:90 (message):\n  The imported "
                          "target \"torch_cpu\" references the file\n     \"/opt/env/lib/libtorch_cpu.so\"\n  but this "
                          "file does not exist.")
    assert r["signature"] == "cmake-package-files-missing" and "Reinstall" in _fix(r), r


def test_a_probe_line_in_cmakeerror_log_is_not_the_error():
    r = diagnose.diagnose("see CMakeError.log:\nCheckSymbolExists.c(2): fatal error C1083: Cannot open include file: "
                          "'pthread.h': No such file or directory")
    assert r["signature"] == "cmake-probe-log-line" and r["environment_problem"] is False, r


def test_cpp_extension_keyword_newer_than_torch():
    r = diagnose.diagnose("  File \"setup.py\", line 20, in <module>\n    ext = load(name='ops', sources=s, "
                          "extra_include_paths=[], is_python_module=False)\nTypeError: load() got an unexpected keyword "
                          "argument 'is_python_module'\n# torch.utils.cpp_extension")
    assert r["signature"] == "cpp-extension-argument-too-new" and r["layer"] == "torch-build", r


def test_a_program_that_finds_another_libtorch():
    r = diagnose.diagnose("./infer: symbol lookup error: ./infer: undefined symbol: "
                          "_ZN3c104impl23ExcludeDispatchKeyGuardC1ENS_14DispatchKeySetE")
    assert r["signature"] == "program-loads-another-libtorch" and r["layer"] == "libraries", r
    assert "ldd" in _fix(r)


def test_mkl_without_its_itt_symbol():
    r = diagnose.diagnose("ImportError: /env/lib/python3.8/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
                          "iJIT_NotifyEvent")
    assert r["signature"] == "mkl-itt-symbol-removed" and "mkl=2024.0" in _fix(r), r


@pytest.mark.parametrize("text, sig", [
    ("RuntimeError: output 0 of traced region did not have observable data dependence with trace inputs; this probably "
     "indicates your program cannot be understood by the tracer.", "tracer-refuses-program"),
    ("torch._export.pass_base.ExportPassBaseError: Unsupported target type: <function sym_max>", "export-refuses-program"),
    ("ep = torch.export.export(m, (x,))\ntorch._dynamo.exc.Unsupported: call_function args: UserDefinedObjectVariable(Cfg)",
     "export-refuses-program"),
])
def test_the_tracer_and_export_refusals_are_the_program(text, sig):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["environment_problem"] is False, r


def test_dynamo_unsupported_outside_export_is_left_to_other_rules():
    r = diagnose.diagnose("opt = torch.compile(f)\ntorch._dynamo.exc.Unsupported: call_function args: "
                          "UserDefinedObjectVariable(Cfg)")
    assert r.get("signature") != "export-refuses-program", r
