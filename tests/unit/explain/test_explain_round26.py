"""explain's twenty-sixth round, from test26's misses (the C++ side of torch) read as structure: CMake's config-mode
find_package naming the package; the linker naming torch symbols (the std::string inside them says which C++ ABI the
program wants); a library variable that reached the linker as -NOTFOUND; the loader starting an executable without
LibTorch's libraries; LibTorch without its CUDA half; CUDA::nvToolsExt gone; Caffe2's CMake without cuDNN; a
serialized file's format version against the reader's range; an archive that is no torch file; a Debug program
with a Release LibTorch; protoc older than the sources; torch.export's refusals; glibc's private interface between
two glibcs; a compiler without its own standard headers.  The texts here are written for these tests from each
component's documented behaviour (CMake's find_package, libstdc++'s dual ABI, ld.so, LibTorch's installing page,
caffe2/serialize/inline_container.cc), not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("pkg, sig, word", [
    ("Torch", "cmake-torch-package-not-found", "torch.utils.cmake_prefix_path"),
    ("Caffe2", "cmake-torch-package-not-found", "CMAKE_PREFIX_PATH"),
    ("TorchVision", "cmake-torchvision-package-not-found", "TorchVision_DIR"),
    ("OpenCV", "cmake-package-not-found", "OpenCV_DIR"),
])
def test_cmake_names_the_package_it_could_not_find(pkg, sig, word):
    text = (f"CMake Error at CMakeLists.txt:7 (find_package):\n  By not providing \"Find{pkg}.cmake\" in "
            f"CMAKE_MODULE_PATH this project has\n  asked CMake to find a package configuration file provided by "
            f"\"{pkg}\", but\n  CMake did not find one.\n")
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == "toolchain" and r["environment_problem"] is True, r
    assert word in _fix(r), _fix(r)


def test_cmake_module_path_given_a_file_is_explained():
    text = ("$ cmake -DCMAKE_MODULE_PATH=/opt/libtorch/share/cmake/Torch/TorchConfig.cmake ..\n"
            "  Could not find a package configuration file provided by \"Torch\" with any of\n  the following names:\n")
    r = diagnose.diagnose(text)
    assert r["signature"] == "cmake-torch-package-not-found", r
    assert "CMAKE_MODULE_PATH" in r["explanation"] and "Torch_DIR" in _fix(r)


OLD_ABI = ("/usr/bin/ld: app.o: in function `load_model()':\napp.cpp:(.text+0x41): undefined reference to "
           "`torch::jit::load(std::string const&, c10::optional<c10::Device>)'\ncollect2: error: ld returned 1 exit status")
NEW_ABI = ("app.cpp:(.text+0x41): undefined reference to `c10::Warning::warn(c10::SourceLocation const&, "
           "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, bool)'")


def test_undefined_symbols_carrying_the_old_std_string_are_the_cxx11_abi():
    r = diagnose.diagnose(OLD_ABI)
    assert r["signature"] == "libtorch-cxx11-abi-mismatch" and r["layer"] == "toolchain", r
    assert "TORCH_CXX_FLAGS" in _fix(r) and "pre-cxx11" in _fix(r)
    assert "old ABI" in r["explanation"]


def test_undefined_symbols_carrying_the_cxx11_string_point_the_other_way():
    r = diagnose.diagnose(NEW_ABI)
    assert r["signature"] == "libtorch-cxx11-abi-mismatch", r
    assert "cxx11-abi" in _fix(r) and "C++11 ABI" in r["explanation"]


def test_symbols_of_every_kind_missing_is_torch_not_linked():
    text = NEW_ABI + ("\napp.cpp:(.text+0x9a): undefined reference to `at::_ops::zeros::call(c10::ArrayRef<c10::SymInt>, "
                      "std::optional<c10::ScalarType>)'\napp.cpp:(.text+0xb2): undefined reference to "
                      "`c10::detail::torchCheckFail(char const*, char const*, unsigned int, char const*)'")
    r = diagnose.diagnose(text)
    assert r["signature"] == "libtorch-symbols-unlinked", r
    assert "TORCH_LIBRARIES" in _fix(r) and "target_link_libraries" in _fix(r)


def test_msvc_linking_torch_lib_alone_misses_torch_cpu():
    text = ('infer.obj : error LNK2019: unresolved external symbol "__declspec(dllimport) public: __cdecl '
            'at::Tensor::~Tensor(void)" (__imp_??1Tensor@at@@QEAA@XZ) referenced in function main\n'
            'link.exe /OUT:infer.exe "torch.lib" "c10.lib" kernel32.lib')
    r = diagnose.diagnose(text)
    assert r["signature"] == "libtorch-split-libraries-unlinked", r
    assert "torch_cpu.lib" in _fix(r) and "at::Tensor::~Tensor(void)" in r["title"]


def test_a_library_variable_that_found_nothing_reaches_the_linker():
    text = ("-- Found Torch: C:/deps/libtorch/lib/torch.lib\n"
            "LINK : fatal error LNK1104: cannot open file 'c10_cuda-NOTFOUND.obj'")
    r = diagnose.diagnose(text)
    assert r["signature"] == "cmake-library-notfound" and "c10_cuda" in r["title"], r
    assert "Release" in _fix(r) and "Debug" in _fix(r)
    other = diagnose.diagnose("make[2]: *** No rule to make target 'ZLIB_LIBRARY-NOTFOUND', needed by 'app'.  Stop.")
    assert other["signature"] == "cmake-library-notfound" and "-DZLIB_LIBRARY=" in _fix(other), other


def test_an_executable_without_libtorch_on_the_loader_path():
    r = diagnose.diagnose("./classifier: error while loading shared libraries: libc10.so: cannot open shared object "
                          "file: No such file or directory")
    assert r["signature"] == "libtorch-not-on-loader-path" and r["layer"] == "libraries", r
    assert "LD_LIBRARY_PATH" in _fix(r) and "rpath" in _fix(r)


def test_a_misspelt_loader_variable_is_named():
    r = diagnose.diagnose("export LD_LIBRARY_PATH=/usr/local/cuda/lib64\nexport LD_LIBARY_PATH=/opt/libtorch/lib\n"
                          "./app: error while loading shared libraries: libtorch_cpu.so: cannot open shared object file: "
                          "No such file or directory")
    assert r["signature"] == "libtorch-not-on-loader-path", r
    assert "LD_LIBARY_PATH" in r["explanation"]


def test_a_python_import_is_left_to_the_extension_rules():
    r = diagnose.diagnose("Traceback (most recent call last):\n  File \"run.py\", line 2, in <module>\n    import "
                          "my_ops\nImportError: libc10.so: cannot open shared object file: No such file or directory")
    assert r["signature"] != "libtorch-not-on-loader-path", r


def test_windows_program_without_torch_dlls_beside_it():
    r = diagnose.diagnose("The code execution cannot proceed because torch_cpu.dll was not found. Reinstalling the "
                          "program may fix this problem.")
    assert r["signature"] == "libtorch-dll-not-beside-exe", r
    assert "POST_BUILD" in _fix(r) and "PATH" in _fix(r)


CPU_URL = "wget https://download.pytorch.org/libtorch/cpu/libtorch-shared-with-deps-2.5.1%2Bcpu.zip\n"


def test_libtorch_cuda_missing_beside_the_cpu_download():
    r = diagnose.diagnose(CPU_URL + "$ ldd ./solver\n        libtorch_cuda.so => not found\n")
    assert r["signature"] == "libtorch-cpu-download-without-cuda" and r["layer"] == "torch-build", r
    assert re.search(r"libtorch/cu\d{3}", _fix(r)), _fix(r)


def test_cuda_unavailable_in_cpp_with_the_cpu_download():
    r = diagnose.diagnose(CPU_URL + "std::cout << torch::cuda::is_available();  // prints 0")
    assert r["signature"] == "libtorch-cpu-download" and r["layer"] == "torch-build", r


def test_cuda_library_dropped_by_the_linker():
    r = diagnose.diagnose("terminate called after throwing an instance of 'c10::Error'\n  what():  Cannot initialize "
                          "CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries")
    assert r["signature"] == "libtorch-cuda-library-not-loaded" and r["layer"] == "toolchain", r
    assert "--no-as-needed" in _fix(r)


def test_nvtoolsext_target_gone_with_cuda_12():
    r = diagnose.diagnose("CMake Error at cmake/Cuda.cmake:40 (target_link_libraries):\n  Target \"kernels\" links "
                          "to:\n\n    CUDA::nvToolsExt\n\n  but the target was not found.")
    assert r["signature"] == "cmake-nvtoolsext-target-missing", r
    assert "CUDA::nvtx3" in _fix(r)


def test_caffe2_cmake_without_cudnn():
    linux = diagnose.diagnose("-- Caffe2: CUDA detected: 12.1\n-- Could NOT find CUDNN (missing: CUDNN_LIBRARY_PATH "
                              "CUDNN_INCLUDE_PATH)\nCMake Warning: Caffe2: cuDNN cannot be found.")
    assert linux["signature"] == "cmake-cudnn-not-found" and "CUDNN_INCLUDE_DIR" in _fix(linux), linux
    win = diagnose.diagnose("C:\\build> cmake ..\nCMake Error: Your installed Caffe2 version uses cuDNN but I cannot "
                            "find the cuDNN libraries.")
    assert win["signature"] == "cmake-cudnn-not-found" and "%CUDA_PATH%" in _fix(win), win


@pytest.mark.parametrize("text, sig", [
    ("RuntimeError: Attempted to read a PyTorch file with version 10, but the maximum supported version for reading "
     "is 6. Your PyTorch installation may be too old.", "torch-file-newer-than-reader"),
    ("Attempted to read a PyTorch file with version 1, but the minimum supported version for reading is 2.",
     "torch-file-older-than-reader"),
    ("The model version must be between 3 and 8 But the model version is 9 ()", "torch-file-newer-than-reader"),
    ("The model version must be between 4 and 8 But the model version is 3 ()", "torch-file-older-than-reader"),
])
def test_a_files_format_version_against_the_readers_range(text, sig):
    r = diagnose.diagnose(text)
    assert r["signature"] == sig and r["layer"] == "torch-build", r


def test_an_archive_that_is_no_torch_file_is_the_file():
    r = diagnose.diagnose("RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
                          "directory")
    assert r["signature"] == "torch-archive-unreadable" and r["environment_problem"] is False, r
    assert "lfs" in _fix(r)


def test_debug_program_on_release_libtorch():
    r = diagnose.diagnose("The app crashes in torch::jit::load when I build Debug against the release libtorch "
                          "download; built in Release it works.")
    assert r["signature"] == "libtorch-debug-release-mixed" and r["layer"] == "windows-runtime", r
    assert "RelWithDebInfo" in _fix(r)


def test_protoc_older_than_the_proto_files():
    r = diagnose.diagnose("caffe2.proto:120:3: Expected \"required\", \"optional\", or \"repeated\".")
    assert r["signature"] == "protoc-older-than-sources" and "protoc --version" in _fix(r), r


def test_torch_export_refusals_are_the_program():
    called = diagnose.diagnose("RuntimeError: Unable to call ExportedProgram directly. You should use "
                               "`exported_program.module()` instead.")
    assert called["signature"] == "exported-program-called" and called["environment_problem"] is False, called
    assert ".module()" in _fix(called)
    refused = diagnose.diagnose("torch._dynamo.exc.UserError: Expecting `args` to be a tuple of example positional "
                                "inputs, got <class 'torch.Tensor'>")
    assert refused["signature"] == "export-refuses-program" and refused["environment_problem"] is False, refused


def test_glibc_private_between_two_glibcs_names_the_stray_copy():
    r = diagnose.diagnose("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_PRIVATE' not found (required by "
                          "/opt/tool/lib/librt.so.1)")
    assert r["signature"] == "glibc-pieces-mixed" and r["layer"] == "c-runtime", r
    assert "/opt/tool/lib/librt.so.1" in _fix(r) and "/lib/x86_64-linux-gnu/libc.so.6 " not in _fix(r)


@pytest.mark.parametrize("text", [
    "main.cpp(1): fatal error C1083: Cannot open include file: 'vector': No such file or directory",
    "t.cpp:1:10: fatal error: iostream: No such file or directory",
])
def test_a_compiler_without_its_own_standard_headers(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "header-missing" and r["layer"] == "toolchain", r
    assert "vcvars64.bat" in _fix(r) and "build-essential" in _fix(r)
