"""Layer rules for the C++ side of torch: programs built against LibTorch (or the pip torch's C++ library) with CMake,
linked by ld or MSVC's link.exe, started by the dynamic loader, reading TorchScript files.

    cmake_package_not_found  CMake's config-mode find_package failing for a package ("Torch", "Caffe2", any other)
                     -> CMAKE_PREFIX_PATH / <Pkg>_DIR naming its installation (torch.utils.cmake_prefix_path)
    torch_symbols_unresolved_at_link  ld's "undefined reference to `c10::...'", MSVC's LNK2019/LNK2001 for at::/c10::
                     -> the C++ ABI when the symbols carry the other std::string, else the libraries left unlinked
    cmake_library_notfound  a link step given "X-NOTFOUND" (a CMake variable that found nothing) -> the package's
                     CMake files and the build configuration they were made for
    libtorch_not_on_loader_path  an executable the loader starts without libtorch*/libc10 (ldd's "not found") -> the
                     loader's path (LD_LIBRARY_PATH, rpath), a misspelt variable, or the CPU LibTorch's missing CUDA half
    libtorch_without_cuda  LibTorch's "Cannot initialize CUDA without ATen_cuda library", torch::cuda::is_available()
                     false -> the CPU download, or the CUDA library dropped by the linker (--no-as-needed)
    cmake_cuda_target_missing  CUDA::nvToolsExt (gone from CUDA 12.x toolkits) not found -> CUDA::nvtx3 / the NVTX
                     package
    cmake_cudnn_not_found  Caffe2's CMake finding no cuDNN (CUDNN_INCLUDE_PATH, "uses cuDNN but I cannot find")
                     -> CUDNN_ROOT / CUDNN_INCLUDE_DIR / CUDNN_LIBRARY at cuDNN's folders
    torch_file_format_version  "Attempted to read a PyTorch file with version A, but the maximum (minimum) supported
                     version for reading is B", the lite interpreter's range -> the torch that reads or the file's writer
    torch_archive_unreadable  PytorchStreamReader failing to open a file or its zip central directory -> the file, not
                     the installation
    windows_build_configuration  a Debug program with a Release LibTorch (or the reverse) -> one configuration (/MD, /MDd)
    protoc_older_than_sources  protoc asking for proto2 labels in a proto3 file -> one protobuf, new enough
    exported_program_refusals  torch.export's own refusals (UserError, Unsupported, calling an ExportedProgram) and
                     torch.jit.trace's -> the program
    torch_model_file_unreadable  a model reader's own words (knowledge.serialization): a newer writer, the wrong
                     loader, no torch file
    libtorch_cuda_output_false  the program's own output of torch::cuda::is_available() false -> torch_cuda kept
                     linked (/INCLUDE:?warp_size..., --no-as-needed), or the CPU download
    torch_program_platform_link  MinGW's __imp__Z symbols (MSVC LibTorch), Android's std::__ndk1 without
                     torch::jit::load (the lite interpreter)
    other_library_in_old_abi  another library's symbols (ros::) wanted in the old std::string ABI torch's flags imposed
    torch_api_not_declared  "'X' is not a member of 'torch'" -> the header (a table) or a LibTorch new enough
    aten_needs_cxx_standard  ATen's "#error C++17 ... required" -> -std=c++17, never compiled as C
    torch_cmake_library_missing  "Could NOT find Torch (missing: TORCH_LIBRARY)" -> the LibTorch of this OS, whole
    cmake_package_files_missing  an imported target naming a file not installed -> the package, reinstalled/updated
    cmake_probe_log  a failed configure probe in CMakeError.log -> not-environment
    cpp_extension_argument_too_new  cpp_extension.load() refusing a keyword -> the torch the package needs
    program_loads_another_libtorch  a program's symbol lookup error on a torch symbol -> the LibTorch it was built with
    libtorch_binding_message  tch, TorchSharp, DJL, the Java bindings in their own words (knowledge.bindings) -> their
                     own setting (LIBTORCH, a package reference, PYTORCH_LIBRARY_PATH, LIBTORCH_HOME, the VC++ runtime)
    libtorch_program_dll_not_found  a LibTorch program exiting with STATUS_DLL_NOT_FOUND -> its DLLs beside the .exe
    torchscript_program_error  TorchScript refusing the program (types, containers, internal asserts) -> the program;
                     scripting an nn.Module instance before 1.2 -> torch 1.2
    libstdcxx_debug_mode  LibTorch compiled with -D_GLIBCXX_DEBUG -> without it"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _WINDOWS_TEXT, _context, _match, _sig
from torch_envcheck.knowledge import bindings, serialization


_CMAKE_DOCS = {"url": "https://cmake.org/cmake/help/latest/command/find_package.html#config-mode-search-procedure",
               "what": "find_package in config mode: <Pkg>_DIR and CMAKE_PREFIX_PATH"}
_LIBTORCH_DOCS = {"url": "https://docs.pytorch.org/cppdocs/installing.html",
                  "what": "installing LibTorch: -DCMAKE_PREFIX_PATH=/absolute/path/to/libtorch, TORCH_LIBRARIES"}
_CXX11_ABI = {"url": "https://gcc.gnu.org/onlinedocs/libstdc++/manual/using_dual_abi.html",
              "what": "libstdc++'s dual ABI: _GLIBCXX_USE_CXX11_ABI and std::__cxx11::basic_string"}
_ABI_SWITCH = {"url": "https://github.com/pytorch/pytorch/pull/146200",
               "what": "pre-cxx11 ABI LibTorch builds removed (manylinux_2_28 migration, torch 2.7)"}


# CMake's own message for a config-mode find_package that found nothing; wrapped at any column
_CONFIG_MISSING = re.compile(
    r'Could\s{1,8}not\s{1,8}find\s{1,8}a\s{1,8}package\s{1,8}configuration\s{1,8}file\s{1,8}provided\s{1,8}by\s{1,8}'
    r'["“”](?P<p>[A-Za-z][\w.+-]{0,40})["“”]|By\s{1,8}not\s{1,8}providing\s{1,8}["“”]Find'
    r'(?P<p2>[A-Za-z][\w.+-]{0,40})\.cmake["“”]\s{1,8}in\s{1,8}CMAKE_MODULE_PATH')
_MODULE_PATH_GIVEN = re.compile(r"-DCMAKE_MODULE_PATH[=:]")


def cmake_package_not_found(ent, text):
    """CMake says which package it could not find and both ways to point at it (<Pkg>_DIR, CMAKE_PREFIX_PATH); for
    torch's own packages (Torch, Caffe2) the folder is where the installed torch or the LibTorch download keeps
    share/cmake, and torch prints it."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CONFIG_MISSING, tail)
    if m is None:
        return None
    pkg = m.group("p") or m.group("p2")
    module_path = bool(_MODULE_PATH_GIVEN.search(tail))
    note = (" The command line sets CMAKE_MODULE_PATH: CMake searches it for Find<Pkg>.cmake modules only, never for a "
            "package configuration, and it takes folders, not a file." if module_path else "")
    low = pkg.lower()
    if low in ("torch", "caffe2"):
        sig = _sig("cmake-torch-package-not-found", "toolchain", "CMake cannot find the {package} package (TorchConfig.cmake)",
                   86, "The project calls find_package({package}) and CMake found no {package}Config.cmake on its "
                   "search path. torch ships it: the LibTorch download in libtorch/share/cmake/{package}, the pip or conda "
                   "torch in site-packages/torch/share/cmake/{package}; CMake does not look there by itself." + note,
                   fix="Add the Torch installation's prefix to CMAKE_PREFIX_PATH (or set Torch_DIR to the folder "
                       "holding TorchConfig.cmake), a directory, not the .cmake file. PyTorch from pip/conda: run "
                       "`python -c \"import torch; print(torch.utils.cmake_prefix_path)\"` in the environment you build "
                       "against and pass the printed folder as -DCMAKE_PREFIX_PATH=<that folder>; the LibTorch download: "
                       "-DCMAKE_PREFIX_PATH=<absolute path to the unzipped libtorch folder> (or -DTorch_DIR=<libtorch>/"
                       "share/cmake/Torch); Lua Torch7 (what older projects mean by Torch) installs it under its own "
                       "prefix. Nothing installed yet: download LibTorch for your platform from pytorch.org (or pip "
                       "install torch), then configure again in a clean build folder.",
                   causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS, _CMAKE_DOCS))
    elif low == "torchvision":
        sig = _sig("cmake-torchvision-package-not-found", "toolchain",
                   "CMake cannot find the TorchVision package (TorchVisionConfig.cmake)", 85,
                   "The project calls find_package(TorchVision): that configuration exists only where torchvision's "
                   "C++ library was built and installed with CMake; the pip torchvision does not ship it." + note,
                   fix="Build and install torchvision's C++ library (from its source: `cmake -DCMAKE_PREFIX_PATH=<torch's "
                       "cmake prefix> ..`, `cmake --build . --target install`), then add its install prefix to "
                       "CMAKE_PREFIX_PATH (or -DTorchVision_DIR=<prefix>/share/cmake/TorchVision).",
                   causes=(), areas=("toolchain",), sources=({"url": "https://github.com/pytorch/vision#using-the-models-on-c",
                                                              "what": "torchvision's C++ API: built and installed with CMake"},
                                                             _CMAKE_DOCS))
    else:
        sig = _sig("cmake-package-not-found", "toolchain", "CMake cannot find the {package} package ({package}Config.cmake)",
                   80, "The project calls find_package({package}) and CMake found no {package}Config.cmake (or "
                   "lower-case -config.cmake) on its search path: the package is not installed, is installed without "
                   "its CMake files (a separate -dev/-devel package), or its prefix is not on CMAKE_PREFIX_PATH." + note,
                   fix="Install {package} with its development files, then configure with -DCMAKE_PREFIX_PATH=<its install "
                       "prefix> or -D{package}_DIR=<the folder holding {package}Config.cmake> (a directory, not the file).",
                   causes=(), areas=("toolchain",), sources=(_CMAKE_DOCS,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"package": pkg})


# ld: "undefined reference to `c10::Error::Error(...)'" (also in the typographic quotes of localised ld); MSVC:
# "unresolved external symbol "__declspec(dllimport) public: __cdecl at::Tensor::Tensor(void)" (__imp_??0Tensor@at@@...)"
_LD_UNDEFINED = re.compile(r"undefined reference to [`'‘\"](?P<sym>(?:c10|at|torch|caffe2)::[^'’\"\n]{1,800})")
_MSVC_UNRESOLVED = re.compile(r"unresolved external symbol\s{1,4}(?P<sym>[^\n]{0,400}?(?:\b(?:c10|at|torch|caffe2)::|"
                              r"@(?:c10|at|torch|caffe2)@@)[^\n]{0,400})")
_NEW_ABI_STRING = re.compile(r"std::__cxx11::|std::__1::")
_OLD_ABI_STRING = re.compile(r"std::(?:string|basic_string<char\b(?![^>]{0,80}__cxx11))\b")
_LINKED_LIBS = re.compile(r"[\"\s/](?P<lib>(?:torch|torch_cpu|torch_cuda|c10|c10_cuda)\.lib)\b")


def torch_symbols_unresolved_at_link(ent, text):
    """The linker names the torch symbols no library gave it.  With a std::string in them the two sides disagree on
    libstdc++'s ABI (a symbol the program wants in one string type, the library exports the other: the demangled
    name says which); on Windows, torch 1.5 split torch.lib into torch_cpu.lib and torch_cuda.lib; otherwise the
    target was never linked to torch's libraries (or the headers are another LibTorch's)."""
    tail = text[-CONTEXT_TAIL:]
    syms = [mm.group("sym") for mm in _LD_UNDEFINED.finditer(tail)]
    msvc = False
    if not syms:
        syms = [mm.group("sym") for mm in _MSVC_UNRESOLVED.finditer(tail)]
        msvc = bool(syms)
    if not syms:
        return None
    first = (_LD_UNDEFINED if not msvc else _MSVC_UNRESOLVED).search(tail)
    at = len(text) - len(tail) + first.start()
    quoted = re.search(r'"([^"\n]{1,200})"', syms[0]) if msvc else None
    symbol = (quoted.group(1) if quoted else syms[0]).strip()[:160]
    if not msvc:
        new = any(_NEW_ABI_STRING.search(s) for s in syms)
        old = any(_OLD_ABI_STRING.search(s) for s in syms)
        # a program not linked to torch at all misses symbols of every kind; missing only those that carry a
        # std::string is the two ABIs' mark
        only_strings = all(_NEW_ABI_STRING.search(s) or _OLD_ABI_STRING.search(s) for s in syms)
        if (new or old) and only_strings:
            wants, other = ("the C++11 ABI (std::__cxx11::basic_string, _GLIBCXX_USE_CXX11_ABI=1)",
                            "the old one (_GLIBCXX_USE_CXX11_ABI=0)") if new else (
                            "the old ABI (std::string, _GLIBCXX_USE_CXX11_ABI=0)",
                            "the C++11 one (_GLIBCXX_USE_CXX11_ABI=1)")
            fix = ("Compile the program with the ABI of the LibTorch you link: with CMake, find_package(Torch) and "
                   "add ${TORCH_CXX_FLAGS} to the compile flags (it carries -D_GLIBCXX_USE_CXX11_ABI=0 or =1); with "
                   "qmake, make or a hand-written command, add that same define (`python -c \"import torch; "
                   "print(torch._C._GLIBCXX_USE_CXX11_ABI)\"` prints the pip torch's). " +
                   ("Or link the LibTorch download built with the C++11 ABI (libtorch-cxx11-abi-*, the only Linux "
                    "LibTorch from torch 2.7 on)." if new else
                    "A compiler that cannot produce the C++11 ABI (CentOS 7's devtoolset GCC) needs a pre-cxx11 LibTorch "
                    "(downloads offered up to torch 2.6) or a newer compiler and distribution.") +
                   " (If torch's libraries are not linked at all, link them: target_link_libraries(<target> "
                   "\"${TORCH_LIBRARIES}\").)")
            sig = _sig("libtorch-cxx11-abi-mismatch", "toolchain",
                       "the program and LibTorch disagree on the C++ ABI (undefined {symbol})", 87,
                       "The linker cannot resolve torch symbols whose signatures hold a std::string: the program was "
                       "compiled for " + wants + ", the LibTorch it links exports " + other + ". libstdc++'s two ABIs "
                       "mangle std::string differently, so every such symbol is missing.",
                       fix=fix, causes=(), areas=("toolchain",), sources=(_CXX11_ABI, _LIBTORCH_DOCS, _ABI_SWITCH))
            return _match(sig, text, at, {"symbol": symbol})
    linked = {mm.group("lib").lower() for mm in _LINKED_LIBS.finditer(tail)}
    if msvc and "torch.lib" in linked and "torch_cpu.lib" not in linked:
        sig = _sig("libtorch-split-libraries-unlinked", "toolchain",
                   "the program links torch.lib alone: torch_cpu.lib (and torch_cuda.lib) are missing ({symbol})", 87,
                   "From torch 1.5 on LibTorch's code lives in torch_cpu.lib and torch_cuda.lib; torch.lib is a small "
                   "stub. A project written for 1.4 that lists torch.lib and c10.lib leaves every at:: and torch:: "
                   "symbol unresolved.",
                   fix="Link torch_cpu.lib (and torch_cuda.lib, c10_cuda.lib for CUDA) besides torch.lib and c10.lib, or "
                       "let CMake list them: find_package(Torch REQUIRED) and target_link_libraries(<target> "
                       "\"${TORCH_LIBRARIES}\").",
                   causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, at, {"symbol": symbol})
    sig = _sig("libtorch-symbols-unlinked", "toolchain", "the linker finds no torch library defining {symbol}", 84,
               "The linker resolved none of the torch symbols the program uses: the target is not linked to torch's "
               "libraries (torch, torch_cpu, c10, and torch_cuda for CUDA), or it links another LibTorch than the one "
               "whose headers it was compiled with.",
               fix="Link the target to torch's libraries: with CMake, find_package(Torch REQUIRED) and "
                   "target_link_libraries(<the target that calls torch> \"${TORCH_LIBRARIES}\") (the very target, not "
                   "another one); by hand, -L<libtorch>/lib -ltorch -ltorch_cpu -lc10 (and -ltorch_cuda -lc10_cuda). "
                   "Headers and libraries must come from one LibTorch (or one pip torch).",
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
    return _match(sig, text, at, {"symbol": symbol})


_NOTFOUND_LINK = re.compile(r"(?:cannot open file|cannot find|No rule to make target)\s{1,4}['\"`]?(?P<v>[\w.+-]{1,60})-NOTFOUND")


def cmake_library_notfound(ent, text):
    """A library variable CMake could not resolve reaches the linker as its own name plus -NOTFOUND: the package's
    CMake files looked for a library file that the installation does not hold (another build configuration's
    package, an incomplete download)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NOTFOUND_LINK, tail)
    if m is None:
        return None
    torchy = _context(tail, r"(?i)libtorch|Torch_DIR|TORCH_LIBRARIES|share[/\\]cmake[/\\](?:Torch|Caffe2)")
    sig = _sig("cmake-library-notfound", "toolchain", "the link step is given {variable}-NOTFOUND, a library CMake did not find",
               83, "CMake passes a variable that found nothing as <name>-NOTFOUND; the linker then asks for a file of "
               "that name. " + ("LibTorch's CMake files (share/cmake/Torch, share/cmake/Caffe2) set {variable} to a "
               "library of their own package: the package at Torch_DIR lacks it, as a Debug download whose CMake files "
               "name a library it does not ship, or a mixed or incomplete folder." if torchy else
               "The package that defines {variable} did not find its library."),
               fix=("Point Torch_DIR / CMAKE_PREFIX_PATH at one complete LibTorch of the configuration you build (the "
                    "Release download for Release and RelWithDebInfo builds, the Debug download for Debug), unzipped "
                    "fresh into an empty folder, and configure again in a clean build folder; if only one configuration "
                    "of that LibTorch links, build in that configuration or use a newer LibTorch."
                    if torchy else "Install the library that {variable} names, or give its path with "
                    "-D{variable}=<path to the library>, then configure again in a clean build folder."),
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS, _CMAKE_DOCS))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"variable": m.group("v")})


# the loader starting an executable ("error while loading shared libraries") or ldd's listing
_EXE_LOADER = re.compile(r"error while loading shared libraries: (?P<lib>lib(?:torch\w{0,20}|c10\w{0,10})\.so[\d.]{0,12}): "
                         r"cannot open shared object file")
_LDD_NOT_FOUND = re.compile(r"(?P<lib>lib(?:torch\w{0,20}|c10\w{0,10})\.so[\d.]{0,12})\s{1,8}=>\s{1,8}not found")
_DLL_NOT_FOUND = re.compile(r"(?P<lib>(?:torch\w{0,20}|c10\w{0,10})\.dll) (?:was not found|is missing from your computer)")
_LIBTORCH_CPU_DOWNLOAD = re.compile(r"(?i)libtorch/(?:nightly/)?cpu/|libtorch[\w.-]{0,60}%2Bcpu|libtorch[\w.-]{0,60}\+cpu\.zip")
_PYTHON_IMPORT = re.compile(r"Traceback \(most recent call last\)|ImportError|\.cpython-\d|\bimport \w")
# a variable that is almost LD_LIBRARY_PATH (one or two letters off): the loader reads only the exact name
_LD_TYPO = re.compile(r"\b(?P<v>LD_LIB\w{0,12}_PATH|LD_LIBRARY_PAT\w{0,3}|LD_LIBARY_PATH|LD_LIBRARYPATH|LDLIBRARY_PATH|"
                      r"LD_LIBRAY_PATH|LD_LIBRARY_PATHS)\b")


def libtorch_not_on_loader_path(ent, text):
    """An executable (not a Python import: torch adds its own lib folder there) that links LibTorch starts only
    where the loader finds libtorch*/libc10: LD_LIBRARY_PATH spelt exactly, an rpath, or ldconfig; Windows looks
    beside the .exe and on PATH.  libtorch_cuda missing beside a CPU LibTorch download is the download."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_EXE_LOADER, tail) or last_match(_LDD_NOT_FOUND, tail)
    win = None
    if m is None:
        win = last_match(_DLL_NOT_FOUND, tail)
        if win is None:
            return None
    at = len(text) - len(tail) + (m or win).start()
    lib = (m or win).group("lib")
    cpu_download = "cuda" in lib and _LIBTORCH_CPU_DOWNLOAD.search(tail)
    if m is not None and m.re is _LDD_NOT_FOUND and not cpu_download and _PYTHON_IMPORT.search(tail):
        return None  # ldd of a Python extension: torch's libraries come with `import torch`, other rules read it
    if cpu_download:
        sig = _sig("libtorch-cpu-download-without-cuda", "torch-build",
                   "{lib} is missing: the LibTorch used is the CPU download", 88,
                   "The program was built to use CUDA (it links {lib}), but the LibTorch it uses is the cpu download, "
                   "which has no CUDA libraries at all.",
                   fix="Download the CUDA LibTorch (pytorch.org, the cuXYZ variant of a CUDA version your driver supports, "
                       "e.g. https://download.pytorch.org/libtorch/cu128/), unzip it in place of the cpu one, and "
                       "configure and build again against it.",
                   causes=(), areas=("torch",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, at, {"lib": lib})
    if win is not None:
        sig = _sig("libtorch-dll-not-beside-exe", "libraries", "{lib} is not found when the program starts", 84,
                   "Windows looks for a program's DLLs beside the .exe and on PATH; LibTorch's DLLs (torch_cpu.dll, "
                   "c10.dll, torch_cuda.dll and the CUDA ones) are in libtorch\\lib, which is neither.",
                   fix="Copy libtorch\\lib\\*.dll next to the .exe after each build (the LibTorch example's CMake "
                       "POST_BUILD step: file(GLOB TORCH_DLLS \"${TORCH_INSTALL_PREFIX}/lib/*.dll\") and copy_if_different "
                       "to $<TARGET_FILE_DIR:target>), or add the libtorch\\lib folder to PATH for the program.",
                   causes=(), areas=("libraries",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, at, {"lib": lib})
    typo = next((t.group("v") for t in _LD_TYPO.finditer(tail) if t.group("v") != "LD_LIBRARY_PATH"), None)
    sig = _sig("libtorch-not-on-loader-path", "libraries", "{lib} is not found when the program starts", 85,
               "A program linked to LibTorch needs the loader to find {lib} at run time. Unlike `import torch` (which "
               "adds torch's lib folder itself), an executable finds it only through LD_LIBRARY_PATH, an rpath, or the "
               "ldconfig cache." + (" The text sets {typo}, which the loader does not read: it reads LD_LIBRARY_PATH "
                                    "only, spelt exactly." if typo else ""),
               fix="Make the loader find LibTorch's lib folder: `export LD_LIBRARY_PATH=<libtorch>/lib:$LD_LIBRARY_PATH` "
                   "(spelt exactly) in the shell that runs the program, or build with an rpath to it (CMake does this for "
                   "targets linked with ${TORCH_LIBRARIES} unless the install step strips it: "
                   "set(CMAKE_INSTALL_RPATH <libtorch>/lib)), or register it with ldconfig (a file in /etc/ld.so.conf.d, "
                   "then `sudo ldconfig`).",
               causes=(("ld-path", "LD_LIBRARY_PATH decides which libraries a program loads", ("TE501",)),),
               areas=("libraries",), sources=({"url": "https://man7.org/linux/man-pages/man8/ld.so.8.html",
                                               "what": "how the dynamic loader finds libraries (LD_LIBRARY_PATH, rpath)"},
                                              _LIBTORCH_DOCS))
    return _match(sig, text, at, {"lib": lib, "typo": typo})


_ATEN_CUDA = re.compile(r"Cannot initialize CUDA without ATen_cuda library|Torch is not linked against CUDA")
_IS_AVAILABLE_FALSE = re.compile(r"torch::cuda::is_available\(\)[^\n]{0,60}(?:returns?|is|gives|prints?)\s{1,3}"
                                 r"(?:0|zero|false|False)\b|Cuda::is_available\(\)[^\n]{0,80}\bfalse\b")


def libtorch_without_cuda(ent, text):
    """LibTorch splits its CUDA half into libtorch_cuda (torch_cuda.dll); a program sees no CUDA when it uses the
    cpu download, or when the linker dropped the CUDA library the program never calls directly."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ATEN_CUDA, tail) or last_match(_IS_AVAILABLE_FALSE, tail)
    if m is None:
        return None
    at = len(text) - len(tail) + m.start()
    if _LIBTORCH_CPU_DOWNLOAD.search(tail):
        sig = _sig("libtorch-cpu-download", "torch-build", "the program uses the CPU LibTorch: it has no CUDA", 88,
                   "The LibTorch the program links is the cpu download (its URL is in the text); it holds no CUDA "
                   "library, so torch::cuda::is_available() is false whatever the GPU and driver.",
                   fix="Download the CUDA LibTorch (pytorch.org: the cuXYZ variant of a CUDA version your driver supports, "
                       "e.g. https://download.pytorch.org/libtorch/cu128/), unzip it in place of the cpu one and build "
                       "again against it.",
                   causes=(), areas=("torch",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, at, {})
    sig = _sig("libtorch-cuda-library-not-loaded", "toolchain",
               "LibTorch's CUDA library (torch_cuda) is not loaded by the program", 85,
               "LibTorch keeps its CUDA code in libtorch_cuda (torch_cuda.dll), which registers itself when loaded; a "
               "program that calls no symbol from it directly loses it when the linker drops unneeded libraries "
               "(--as-needed, the default of many distributions), or never links it (a CPU LibTorch, a binding that "
               "downloaded the CPU one).",
               fix="Link the CUDA LibTorch and keep its CUDA library: CMake's ${TORCH_LIBRARIES} from a CUDA LibTorch "
                   "does this; by hand add -Wl,--no-as-needed -ltorch_cuda -Wl,--as-needed (Windows: "
                   "/INCLUDE:?warp_size@cuda@at@@YAHXZ). With a binding (tch-rs: TORCH_CUDA_VERSION or LIBTORCH set to a "
                   "CUDA LibTorch) make sure it uses a CUDA build: check that libtorch_cuda is in its lib folder.",
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
    return _match(sig, text, at, {})


_NVTOOLSEXT_TARGET = re.compile(r"CUDA::nvToolsExt\s{0,8}(?:\n\s{0,8}){0,3}\s{0,8}but the target was not found|"
                                r"links to:\s{1,12}CUDA::nvToolsExt\b|"
                                # torch's own cmake/public/cuda.cmake (its source build, and LibTorch's TorchConfig)
                                r"(?P<torch>Failed to find nvToolsExt)")


def cmake_cuda_target_missing(ent, text):
    """CUDA 12.x dropped the nvToolsExt library (NVTX 3 is header-only); CMake 3.25+ offers CUDA::nvtx3, and CMake
    files written for older toolkits (LibTorch's before 2.x, AMReX, SuiteSparse) still name CUDA::nvToolsExt."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NVTOOLSEXT_TARGET, tail)
    if m is None:
        return None
    if m.group("torch"):
        sig = _sig("cmake-nvtoolsext-target-missing", "toolchain",
                   "torch's CMake finds no nvToolsExt in this CUDA toolkit", 85,
                   "torch's cmake/public/cuda.cmake (run by a source build of PyTorch, and by LibTorch's TorchConfig in "
                   "a project that links it) asks for nvToolsExt, the NVTX 2 library; newer CUDA toolkits ship NVTX 3 "
                   "only, which is header-only, so the library is not there to find.",
                   fix="Build (or link) a PyTorch release whose CMake uses NVTX 3 from its own third_party/NVTX "
                       "(`git submodule update --init --recursive` in a source tree), or build this one against a CUDA "
                       "toolkit that still ships nvToolsExt (check for libnvToolsExt in its lib64 folder).",
                   causes=(), areas=("toolchain",),
                   sources=({"url": "https://github.com/pytorch/pytorch/pull/90689",
                             "what": "PyTorch: upgrade NVTX to NVTX3 (header-only, third_party/NVTX)"},
                            {"url": "https://cmake.org/cmake/help/latest/module/FindCUDAToolkit.html#nvtx3",
                             "what": "FindCUDAToolkit: CUDA::nvtx3 (3.25+), nvToolsExt deprecated"}))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    sig = _sig("cmake-nvtoolsext-target-missing", "toolchain", "the CMake target CUDA::nvToolsExt does not exist here", 85,
               "A CMake file links CUDA::nvToolsExt, the NVTX 2 library of older CUDA toolkits. CUDA 12.x toolkits ship "
               "NVTX 3 only (header-only), so FindCUDAToolkit no longer defines that target (conda's cuda packages "
               "without cuda-nvtx define neither).",
               fix="Link CUDA::nvtx3 instead (CMake 3.25 or newer; NVTX 3's headers come with the toolkit, or `conda "
                   "install -c nvidia cuda-nvtx-dev` in a conda toolkit), or update the project (or LibTorch) to a release "
                   "that does; with a CUDA 11 toolkit the old target still exists.",
               causes=(), areas=("toolchain",), sources=({"url": "https://cmake.org/cmake/help/latest/module/FindCUDAToolkit.html#nvtx3",
                                                          "what": "FindCUDAToolkit: CUDA::nvtx3 (3.25+), nvToolsExt deprecated"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_CUDNN_CMAKE = re.compile(r"Could NOT find CUDNN \(missing: (?P<what>[\w ]{1,80})\)|"
                          r"uses cuDNN but I cannot find the cuDNN libraries|cannot find (?:the )?cuDNN\b[^\n]{0,40}"
                          r"(?:CMake|CUDNN_)|create a torch project with cuda but cuDNN isn't installed")


def cmake_cudnn_not_found(ent, text):
    """LibTorch's CMake (Caffe2's cuda.cmake) and project templates look for cuDNN's header and library where
    CUDNN_ROOT / CUDNN_INCLUDE_DIR / CUDNN_LIBRARY say, or inside the CUDA toolkit; distributions and NVIDIA's
    Windows installer put it elsewhere."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDNN_CMAKE, tail)
    if m is None:
        return None
    win = bool(ent.platform.get("windows")) or _context(tail, _WINDOWS_TEXT + r"|Visual Studio|\bVS20\d\d\b")
    sig = _sig("cmake-cudnn-not-found", "toolchain", "the build's CMake finds no cuDNN ({missing|header or library})", 84,
               "The CUDA build configuration looks for cudnn.h and the cuDNN library where CUDNN_ROOT (or "
               "CUDNN_INCLUDE_DIR and CUDNN_LIBRARY) point, or inside the CUDA toolkit; the cuDNN installed is "
               "elsewhere (a distribution's /usr/include/cuda..., NVIDIA's C:\\Program Files\\NVIDIA\\CUDNN\\v9.x), or "
               "not installed.",
               fix=("Install cuDNN for the CUDA version you build with, then point the build at it: -DCUDNN_ROOT=<cuDNN "
                    "folder> (or -DCUDNN_INCLUDE_DIR=<folder holding cudnn.h> -DCUDNN_LIBRARY=<path to cudnn.lib>); "
                    "templates that look only inside the toolkit need cuDNN's include\\*.h, lib\\x64\\*.lib and "
                    "bin\\*.dll copied into %CUDA_PATH%'s include, lib\\x64 and bin folders." if win else
                    "Install cuDNN for the CUDA version you build with (its development package or the nvidia-cudnn-cuXX "
                    "wheel), then point CMake at it: -DCUDNN_INCLUDE_DIR=<folder holding cudnn.h> (e.g. /usr/include or "
                    "/usr/include/cuda) -DCUDNN_LIBRARY=<path to libcudnn.so> (or CUDNN_ROOT=<cuDNN prefix>), and "
                    "configure again in a clean build folder."),
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,
                                                        {"url": "https://docs.nvidia.com/deeplearning/cudnn/installation/latest/",
                                                         "what": "where cuDNN installs on Linux and Windows"}))
    what = m.group("what")
    return _match(sig, text, len(text) - len(tail) + m.start(), {"missing": what.strip() if what else None})


# caffe2/serialize/inline_container.cc: "Attempted to read a PyTorch file with version A, but the maximum supported
# version for reading is B"; the mobile lite interpreter: "The model version must be between A and B But the model
# version is C"
_FILE_VERSION = re.compile(r"Attempted to read a PyTorch file with version (?P<v>\d{1,3}), but the "
                           r"(?P<bound>maximum|minimum) supported version for reading is (?P<b>\d{1,3})")
_LITE_VERSION = re.compile(r"model version must be between (?P<lo>\d{1,3}) and (?P<hi>\d{1,3})\s{0,3}But the model "
                           r"version is (?P<v>\d{1,3})", re.I)


def torch_file_format_version(ent, text):
    """The serialized file's format version against the range the reading torch knows: above the maximum, the file
    was written by a newer torch (read it with that torch, or save it again with the older); below the minimum, an
    older torch wrote it (load and save it again, or export again from the model's source)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_FILE_VERSION, tail)
    lite = None
    if m is None:
        lite = last_match(_LITE_VERSION, tail)
        if lite is None:
            return None
    if m is not None:
        newer = m.group("bound") == "maximum"
        caps = {"version": m.group("v"), "bound": m.group("b")}
    else:
        newer = int(lite.group("v")) > int(lite.group("hi"))
        caps = {"version": lite.group("v"), "bound": lite.group("hi") if newer else lite.group("lo")}
    at = len(text) - len(tail) + (m or lite).start()
    if newer:
        sig = _sig("torch-file-newer-than-reader", "torch-build",
                   "the file's format (version {version}) is newer than this torch reads (at most {bound})", 86,
                   "The model file was written by a newer torch than the one reading it (torch, LibTorch or the mobile "
                   "runtime): each release reads the formats up to its own and refuses later ones.",
                   fix="Read it with a torch at least as new as the one that wrote it: upgrade torch (pip install "
                       "--upgrade torch in its CUDA or CPU build; or a newer LibTorch / mobile runtime), or save the model "
                       "again with the older torch (re-export or re-trace it there; for mobile, "
                       "torch.jit.mobile._backport_for_mobile).",
                   causes=(), areas=("torch",), sources=({"url": "https://github.com/pytorch/pytorch/blob/v2.5.0/caffe2/serialize/inline_container.cc",
                                                          "what": "PyTorchStreamReader's file format version check"},))
    else:
        sig = _sig("torch-file-older-than-reader", "torch-build",
                   "the file's format (version {version}) is older than this torch reads (at least {bound})", 86,
                   "The model file was written by an older torch than the one reading it, in a format this release no "
                   "longer reads.",
                   fix="Export the model again with the torch (or the torch matching the LibTorch) that will read it: "
                       "re-trace or re-script it from its source, or load it with the older torch that wrote it and save "
                       "it again in steps through intermediate releases.",
                   causes=(), areas=("torch",), sources=({"url": "https://github.com/pytorch/pytorch/blob/v2.5.0/caffe2/serialize/inline_container.cc",
                                                          "what": "PyTorchStreamReader's file format version check"},))
    return _match(sig, text, at, caps)


_ARCHIVE_UNREADABLE = re.compile(r"PytorchStreamReader failed (?:opening archive|reading zip archive|locating file)|"
                                 r"failed finding central directory")


def torch_archive_unreadable(ent, text):
    """torch.load / torch.jit.load read a zip archive; a path that names no file, a truncated download, a Git LFS
    pointer, or a file of another format fails before any version is read: the file, not the installation."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ARCHIVE_UNREADABLE, tail)
    if m is None:
        return None
    sig = _sig("torch-archive-unreadable", "not-environment", "the model file is not a readable torch archive", 80,
               "torch's serialized files are zip archives; the reader could not open this one or find its zip "
               "directory: the path names no file (a relative path from another working directory), the file is "
               "truncated (an interrupted download or save, a full disk) or is not the model at all (a Git LFS "
               "pointer, an HTML page).",
               look_at="Check the file: that the path exists from the program's working directory, its size against the "
                       "original (`git lfs pull` for an LFS pointer, download it again), and that it was saved by "
                       "torch.save / torch.jit.save (a TorchScript file loads with torch.jit.load, a state_dict with "
                       "torch.load). Nothing to install.",
               causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/notes/serialization.html",
                                                      "what": "torch's serialization: the zip file format"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# a sentence (or a line) naming LibTorch and both configurations, in a text that tells of a failure
_SENTENCE = re.compile(r"[^.!?\n]{1,400}")
_BOTH_CONFIGS = re.compile(r"(?i)(?=[^\n]{0,400}\bdebug\b)(?=[^\n]{0,400}\brelease\b)(?=[^\n]{0,400}libtorch)")
_FAILURE_WORDS = re.compile(r"(?i)\bcrash\w*|\bfails?\b|\bfailed\b|\berror\b|exception|assert\w*|unrecognized|"
                            r"not work|doesn't work|does not work|garbage|access violation")


def windows_build_configuration(ent, text):
    """The official Windows LibTorch DLLs use the dynamic C runtime of their configuration (/MD Release, /MDd Debug);
    a program built in the other configuration hands std::string and allocations across two C runtimes."""
    tail = text[-CONTEXT_TAIL:]
    if not _FAILURE_WORDS.search(tail) or re.search(r"-NOTFOUND|undefined reference|unresolved external", tail):
        return None
    m = next((x for x in _SENTENCE.finditer(tail) if _BOTH_CONFIGS.match(x.group(0))), None)
    if m is None:
        return None
    sig = _sig("libtorch-debug-release-mixed", "windows-runtime",
               "a Debug program with a Release LibTorch (or the reverse): two C runtimes", 84,
               "LibTorch for Windows comes in a Release and a Debug download, built with the dynamic C runtime of "
               "each (/MD and /MDd). A program built in the other configuration passes std::string, vectors and "
               "allocations between two runtimes with different layouts: loading fails with garbled data or "
               "crashes.",
               fix="Build in the configuration of the LibTorch you link: Release (or RelWithDebInfo) with the Release "
                   "download, Debug with the Debug download (cmake --build . --config Debug against the debug LibTorch's "
                   "folder); to debug your own code against the Release LibTorch, use RelWithDebInfo, not Debug.",
               causes=(), areas=("toolchain",), sources=({"url": "https://github.com/pytorch/pytorch/issues/55869",
                                                          "what": "official LibTorch DLLs use /MD (release) and /MDd (debug)"},
                                                         _LIBTORCH_DOCS))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_PROTO2_LABEL = re.compile(r"\.proto:\d{1,6}:\d{1,4}: Expected \"required\", \"optional\", or \"repeated\"\.")


def protoc_older_than_sources(ent, text):
    """protoc asks for a field label where proto3 drops it: the protoc that ran predates the file's syntax (a
    system protoc 2.x in front of the build's own, or a mix of two protobuf installations)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_PROTO2_LABEL, tail)
    if m is None:
        return None
    sig = _sig("protoc-older-than-sources", "toolchain", "the protobuf compiler (protoc) is older than the .proto files", 82,
               "proto3 fields have no required/optional/repeated label; a protoc that asks for one reads the file as "
               "proto2: it is a protoc 2.x, found first on PATH (or by CMake) instead of the protobuf the build expects.",
               fix="Build with one protobuf new enough for the sources: check `protoc --version` and `which -a protoc`, "
                   "remove or move the old one out of the way (the distribution's protobuf-compiler, a conda protobuf), "
                   "or point the build at the right protoc (CMake: -DProtobuf_PROTOC_EXECUTABLE=<path>) and configure "
                   "again in a clean build folder.",
               causes=(), areas=("toolchain",), sources=({"url": "https://protobuf.dev/programming-guides/proto3/",
                                                          "what": "proto3: fields without labels"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_EXPORTED_PROGRAM_CALL = re.compile(r"Unable to call ExportedProgram directly\.(?:[^\n]{0,40}`(?P<use>[\w.()]{1,60})`)?")
_EXPORT_USER_ERROR = re.compile(r"(?:torch\._dynamo\.exc\.)?UserError: (?P<msg>Cannot export model[^\n]{0,300}|"
                                r"Expecting `args` to be a tuple[^\n]{0,120}|[^\n]{0,200}torch\.export[^\n]{0,200})|"
                                r"(?P<pass>ExportPassBaseError: [^\n]{1,200})|"
                                r"(?:torch\._dynamo\.exc\.)?Unsupported: (?P<dyn>[^\n]{1,200})")
# torch.jit.trace's own refusals: the traced function does what the tracer cannot record
_TRACER_REFUSAL = re.compile(r"(?P<msg>did not have observable data dependence with trace inputs[^\n]{0,120}|"
                             r"Tracer cannot infer type of [^\n]{0,160}|Could not export Python function call [^\n]{0,120}|"
                             r"Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced functions)")


def exported_program_refusals(ent, text):
    """torch.export refuses the program in its own words: an ExportedProgram called like a module (from 2.3 its
    .module() is what runs), a model referencing tensors export cannot capture, example inputs not given as a tuple.
    The program, not the installation."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_EXPORTED_PROGRAM_CALL, tail)
    if m is not None:
        sig = _sig("exported-program-called", "not-environment", "an ExportedProgram is called directly", 80,
                   "torch.export.export returns an ExportedProgram, which is not callable (since torch 2.3); the "
                   "callable module is its .module().",
                   look_at="Call the program through its module: `exported_program.module()(*inputs)` (keep "
                           "`m = exported_program.module()` and call m). Nothing to install.",
                   causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/export.html",
                                                          "what": "torch.export: ExportedProgram.module()"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    t = last_match(_TRACER_REFUSAL, tail)
    if t is not None:
        sig = _sig("tracer-refuses-program", "not-environment", "torch.jit.trace cannot record the program: {message}", 78,
                   "torch.jit.trace records the tensor operations one run performs; outputs that do not depend on the "
                   "inputs (constants, Python values), values it cannot type, or Python calls it cannot export are "
                   "outside what a trace can hold. The model code is the cause, not the installation.",
                   look_at="Change how the model is captured: compute the output from the inputs (or return it as a "
                           "buffer), script the parts with control flow (torch.jit.script), or use torch.export; nothing "
                           "to install.",
                   causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/generated/torch.jit.trace.html",
                                                          "what": "what torch.jit.trace records"},))
        return _match(sig, text, len(text) - len(tail) + t.start(), {"message": t.group("msg")[:160]})
    m = last_match(_EXPORT_USER_ERROR, tail)
    if m is None:
        return None
    if m.group("dyn") is not None and not re.search(r"torch\.export|torch\._export|export\(", tail):
        return None  # TorchDynamo's Unsupported outside export is torch.compile's, read elsewhere
    sig = _sig("export-refuses-program", "not-environment", "torch.export refuses the program: {message}", 78,
               "torch.export raises UserError for what the program does that export cannot capture or was called "
               "with wrongly; the message names what to change in the program (an input to add, a constant to mark, "
               "the arguments as a tuple).",
               look_at="Change the program as the message says (torch.export's documentation lists the constructs it "
                       "cannot capture and the rewrites); nothing to install. If the model cannot be changed, "
                       "torch.export.export(..., strict=False) traces it without TorchDynamo.",
               causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/export.html",
                                                      "what": "torch.export: what it captures, strict and non-strict"},))
    msg = m.group("msg") or m.group("pass") or m.group("dyn") or ""
    return _match(sig, text, len(text) - len(tail) + m.start(), {"message": msg[:160]})


def torch_model_file_unreadable(ent, text):
    """torch's readers refuse a model file in words of their own (knowledge.serialization): a newer writer than the
    reader (torch-build: the reader's version), the wrong loader (the program) or no torch file (the file)."""
    tail = text[-CONTEXT_TAIL:]
    r = serialization.reading(tail)
    if r is None:
        return None
    at = len(text) - len(tail) + r["at"]
    src = ({"url": r["source"], "what": "the torch source that raises this message"},)
    if r["kind"] == "reader-older":
        sig = _sig("torch-file-written-by-newer-torch", "torch-build",
                   "the model file was written by a newer torch than the one reading it", 85,
                   "The reader says so in its own words: " + r["what"] + ".", fix=r["fix"], causes=(), areas=("torch",),
                   sources=src)
    elif r["kind"] == "wrong-loader":
        sig = _sig("torch-file-wrong-loader", "not-environment", "the model file was given to the loader of another format",
                   82, "The reader says so in its own words: " + r["what"] + ".", look_at=r["fix"], causes=(),
                   areas=("torch",), sources=src)
    else:
        sig = _sig("torch-file-not-a-torch-archive", "not-environment",
                   "the file is not a model file its reader can read (another format, or damaged)", 80,
                   "The reader says so in its own words: " + r["what"] + ".", look_at=r["fix"], causes=(),
                   areas=("torch",), sources=src)
    return _match(sig, text, at, {})


# the program's own output of torch::cuda::is_available() (or of a binding's), printed on the next lines
_CPP_IS_AVAILABLE = re.compile(r"torch::cuda::is_available\(\)|\bCuda::is_available\(\)|tch::Cuda::is_available")
_OUTPUT_FALSE = re.compile(r"(?im)^\s{0,8}(?:CUDA|cuda|GPU|GPUs?|CUDA available|is_available\(\)|device count)\s{0,12}"
                           r"[:=]\s{0,12}(?:0|false|False|no)\s{0,4}$|\b(?:cuda|CUDA|Cuda)\s(?:is\s)?not\savailable\b|"
                           r"\bCUDA DEVICE COUNT:\s{0,4}0\b|\b(?:gets?|prints?|returns?|outputs?)\s{1,3}(?:0|zero|false)\b")


def libtorch_cuda_output_false(ent, text):
    """A C++ program (or a binding) that prints torch::cuda::is_available() and shows it false: the same causes as
    LibTorch's own message, read from the program's output instead."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CPP_IS_AVAILABLE, tail)
    if m is None or _ATEN_CUDA.search(tail) or _IS_AVAILABLE_FALSE.search(tail):
        return None  # libtorch_without_cuda reads those
    if not _OUTPUT_FALSE.search(tail, m.start()):
        return None
    at = len(text) - len(tail) + m.start()
    if _LIBTORCH_CPU_DOWNLOAD.search(tail):
        sig = _sig("libtorch-cpu-download", "torch-build", "the program uses the CPU LibTorch: it has no CUDA", 87,
                   "The LibTorch the program links is the cpu download (its URL is in the text); it holds no CUDA "
                   "library, so torch::cuda::is_available() is false whatever the GPU and driver.",
                   fix="Download the CUDA LibTorch (pytorch.org: the cuXYZ variant of a CUDA version your driver supports, "
                       "e.g. https://download.pytorch.org/libtorch/cu128/), unzip it in place of the cpu one and build "
                       "again against it.", causes=(), areas=("torch",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, at, {})
    sig = _sig("libtorch-cuda-library-not-loaded", "toolchain",
               "the program sees no CUDA: LibTorch's CUDA library (torch_cuda) is not loaded", 84,
               "torch::cuda::is_available() is false in the program. LibTorch keeps its CUDA code in libtorch_cuda "
               "(torch_cuda.dll), which registers itself only when loaded: a program that calls no symbol from it "
               "directly loses it when the linker drops unneeded libraries (MSVC always; ld with --as-needed), or never "
               "has it (a CPU LibTorch). A missing driver is the other cause: check nvidia-smi first.",
               fix="Keep torch_cuda linked: on Windows add the linker option /INCLUDE:?warp_size@cuda@at@@YAHXZ (CMake's "
                   "TORCH_LIBRARIES from a CUDA LibTorch adds it); on Linux -Wl,--no-as-needed -ltorch_cuda "
                   "-Wl,--as-needed; and use a CUDA LibTorch (libtorch_cuda / torch_cuda.dll present in its lib folder).",
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS, {"url": "https://github.com/pytorch/pytorch/issues/41664",
                                                                         "what": "MSVC: -INCLUDE:?warp_size@cuda@at@@YAHXZ"}))
    return _match(sig, text, at, {})


# GCC-mangled import symbols (__imp__Z...) or GCC's dllimport complaint: MinGW's g++ against the MSVC-built LibTorch
_MINGW_IMPORT = re.compile(r"undefined reference to [`'‘]__imp__Z\w{0,400}|definition is marked dllimport")
_TORCH_CONTEXT = re.compile(r"(?i)libtorch|TORCH_LIBRARIES|find_package\(Torch|torch/(?:torch|script|extension)\.h|"
                            r"\b(?:c10|at|torch|caffe2)::|Torch_DIR|TorchConfig\.cmake")
_ANDROID_NDK = re.compile(r"std::__ndk1::")
_UNDEF_ANY = re.compile(r"undefined (?:reference to|symbol:?) [`'‘\"]?(?P<sym>[A-Za-z_][\w:~<>]{0,200}\([^\n]{0,600})")


def torch_program_platform_link(ent, text):
    """Two link failures whose platform the symbols name: MinGW's GCC mangling of a Windows import (the Windows
    LibTorch is MSVC's, another C++ ABI), and Android's std::__ndk1 with torch::jit::load (the mobile build's lite
    interpreter has no full TorchScript loader)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_MINGW_IMPORT, tail)
    if m is not None and _TORCH_CONTEXT.search(tail):
        sig = _sig("libtorch-mingw-against-msvc", "toolchain",
                   "MinGW's g++ links against the MSVC-built LibTorch for Windows", 88,
                   "The missing symbols are GCC-mangled imports (__imp__Z...) and GCC refuses torch's dllimport "
                   "definitions: the compiler is MinGW's g++ (Qt's MinGW kit, MSYS2), while LibTorch for Windows is "
                   "built with MSVC, whose C++ symbols and runtime are another ABI. They cannot be linked together.",
                   fix="Build with MSVC: install Visual Studio (or its Build Tools) with \"Desktop development with C++\" "
                       "and choose the MSVC kit in Qt Creator (or the Visual Studio generator / a Developer Command "
                       "Prompt with CMake); LibTorch offers no MinGW build.",
                   causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    if _ANDROID_NDK.search(tail):
        u = next((x for x in _UNDEF_ANY.finditer(tail) if x.group("sym").startswith("torch::jit::load")), None)
        if u is not None:
            sig = _sig("libtorch-android-lite-interpreter", "toolchain",
                       "the Android LibTorch is the lite interpreter: it has no torch::jit::load", 87,
                       "The symbols are Android NDK's (std::__ndk1). PyTorch's Android build (build_pytorch_android.sh) "
                       "makes the lite interpreter by default (BUILD_LITE_INTERPRETER=1), which loads mobile models "
                       "(.ptl) with torch::jit::_load_for_mobile and has no full TorchScript loader.",
                       fix="Save the model for the lite interpreter in Python (optimize_for_mobile, then "
                           "_save_for_lite_interpreter(\"model.ptl\")) and load it with torch::jit::_load_for_mobile "
                           "(#include <torch/csrc/jit/mobile/import.h>); or build LibTorch for Android with "
                           "BUILD_LITE_INTERPRETER=0 to keep torch::jit::load.",
                       causes=(), areas=("toolchain",), sources=({"url": "https://github.com/pytorch/pytorch/blob/v2.1.0/scripts/build_pytorch_android.sh",
                                                                  "what": "PyTorch Android builds the lite interpreter by default"},))
            return _match(sig, text, len(text) - len(tail) + u.start(), {})
    return None


def other_library_in_old_abi(ent, text):
    """Undefined references to another library's symbols (ROS, OpenCV, Boost) spelled with the old ABI's std::string,
    in a build that uses torch: the pre-cxx11 torch's flags (-D_GLIBCXX_USE_CXX11_ABI=0, TORCH_CXX_FLAGS) were applied
    to the whole target, and that library was built with the C++11 ABI."""
    tail = text[-CONTEXT_TAIL:]
    if "undefined reference" not in tail or not _TORCH_CONTEXT.search(tail):
        return None
    others = [x for x in _UNDEF_ANY.finditer(tail)
              if not re.match(r"(?:c10|at|torch|caffe2)::", x.group("sym")) and _OLD_ABI_STRING.search(x.group("sym"))]
    if not others or any(_NEW_ABI_STRING.search(x.group("sym")) for x in _UNDEF_ANY.finditer(tail)):
        return None
    first = others[0]
    lib = re.match(r"(\w+)::", first.group("sym"))
    sig = _sig("torch-flags-old-abi-for-other-library", "toolchain",
               "{library|another library}'s symbols are wanted in the old C++ ABI that torch's flags imposed", 86,
               "The linker misses {library|another library}'s own functions, spelled with the old ABI's std::string: "
               "the target was compiled with -D_GLIBCXX_USE_CXX11_ABI=0, which a pre-cxx11 LibTorch (or a pip torch "
               "before 2.7) puts in TORCH_CXX_FLAGS, while {library|that library} was built with the C++11 ABI "
               "(the default of every current distribution).",
               fix="Use one C++ ABI for the whole program: link the cxx11-abi LibTorch (libtorch-cxx11-abi-*, the only Linux "
                   "LibTorch from torch 2.7 on) so TORCH_CXX_FLAGS carries -D_GLIBCXX_USE_CXX11_ABI=1, and do not add "
                   "=0 by hand; or build the other library with the old ABI too.",
               causes=(), areas=("toolchain",), sources=(_CXX11_ABI, _ABI_SWITCH))
    return _match(sig, text, len(text) - len(tail) + first.start(), {"library": lib.group(1) if lib else None})


# g++: "'X' is not a member of 'torch::jit'"; clang: "no member named 'X' in namespace 'torch'"
_NOT_A_MEMBER = re.compile(r"[`'‘\"]?(?P<name>(?<![\w:])[A-Za-z_][\w:]{0,79})(?:\(\))?[`'’\"]?:? is not a member of "
                           r"[`'‘\"]?(?P<ns>(?:torch|at|c10)(?:::\w+){0,4})\b|"
                           r"no member named [`'‘\"](?P<name2>\w{1,80})[`'’\"] in namespace [`'‘\"](?P<ns2>(?:torch|at|c10)(?:::\w+){0,4})[`'’\"]")
# (namespace, name) -> (the header that declares it, or None; the first LibTorch that has it, or None; source)
_TORCH_API = {
    ("torch::jit", "load"): ("torch/script.h", None, "https://docs.pytorch.org/tutorials/advanced/cpp_export.html"),
    ("torch", "InferenceMode"): (None, "1.9", "https://github.com/pytorch/pytorch/releases/tag/v1.9.0"),
}


def torch_api_not_declared(ent, text):
    """The compiler finds no torch API the program names: a header the program does not include, or a LibTorch
    older than the code (the table says which for the APIs it knows; otherwise both are said)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NOT_A_MEMBER, tail)
    if m is None:
        return None
    name, ns = (m.group("name"), m.group("ns")) if m.group("name") else (m.group("name2"), m.group("ns2"))
    if "::" in name:  # written qualified ("torch::set_num_threads() is not a member of torch"): the member is the last part
        ns, name = (name.rsplit("::", 1)[0] or ns), name.rsplit("::", 1)[1]
    header, since, src = _TORCH_API.get((ns, name), (None, None, None))
    at = len(text) - len(tail) + m.start()
    caps = {"api": f"{ns}::{name}", "header": header, "since": since}
    if header:
        sig = _sig("torch-api-header-not-included", "not-environment", "{api} is declared in <{header}>, not included", 84,
                   "The program uses {api} without including the header that declares it: <{header}> (torch/torch.h "
                   "does not bring it in).",
                   look_at="Add #include <{header}> to the source that uses {api}; nothing to install.", causes=(),
                   areas=("toolchain",), sources=({"url": src, "what": "the header that declares it"},))
        return _match(sig, text, at, caps)
    if since:
        sig = _sig("torch-api-missing-from-libtorch", "torch-build",
                   "{api} is not in the LibTorch headers: it exists from LibTorch {since} on", 84,
                   "The compiler finds no {api} in the torch headers the program is built against; {api} exists from "
                   "LibTorch {since} on, so the LibTorch used is older than the code.",
                   fix="Build against a newer LibTorch, {since} or later (download it from pytorch.org and point "
                       "CMAKE_PREFIX_PATH at it; the version is in libtorch/build-version).",
                   causes=(), areas=("torch",), sources=({"url": src, "what": "when the API appeared"},))
    else:
        # which side is older is not in the text: the code (a program, or a binding such as tch's torch_api.cpp) was
        # written for another LibTorch version than the one it is compiled against
        sig = _sig("torch-api-version-skew", "toolchain",
                   "{api} is not in the torch headers: the code and the LibTorch are of different versions", 80,
                   "The compiler finds no {api} in the torch headers it compiles against: the code was written for "
                   "another LibTorch (or torch) version (an API added, renamed or removed since), or it misses the "
                   "header that declares it (torch::jit's loader is in <torch/script.h>).",
                   fix="Use the LibTorch version the code requires (a binding such as tch states it: each tch release "
                       "targets one libtorch version; the version in use is in libtorch/build-version or "
                       "torch.__version__), or the release of the code written for the LibTorch you have; include "
                       "<torch/torch.h> and, for torch::jit, <torch/script.h>.",
                   causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
    return _match(sig, text, at, caps)


# the header's #error line, or its sentence alone as users quote it ("... is required to use PyTorch" error raises)
_ATEN_STD = re.compile(r"(?:#error )?C\+\+(?P<std>\d\d) or later compatible compiler is required to use (?:ATen|PyTorch|c10)|"
                       r"(?i:You need C\+\+(?P<std2>\d\d) to compile PyTorch)")


def aten_needs_cxx_standard(ent, text):
    """torch's headers refuse a compiler mode older than the C++ standard they need: the translation unit is compiled
    as an older C++ (or as C, when a cgo/.c file includes it)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ATEN_STD, tail)
    if m is None:
        return None
    std = m.group("std") or m.group("std2")
    as_c = bool(re.search(r"from [^\n]{0,200}\.(?:go|c|m):\d", tail))
    sig = _sig("aten-needs-cxx-standard", "toolchain", "torch's headers need C++{std}; this compile uses an older mode", 88,
               "ATen's headers stop with #error unless the compiler runs in C++{std} mode or later." +
               (" Here they are included from a C (or cgo) file, so they are compiled as C: neither C++{std} nor the "
                "C++ standard headers (<cassert>, <vector>) exist there." if as_c else ""),
               fix="Compile the code that includes torch as C++{std}: set(CMAKE_CXX_STANDARD {std}) (with "
                   "CMAKE_CXX_STANDARD_REQUIRED ON), or -std=c++{std} (MSVC: /std:c++{std}); keep torch out of C "
                   "translation units: put it in a .cpp file behind a C (extern \"C\") interface, as cgo needs.",
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"std": std})


_TORCH_LIBRARY_MISSING = re.compile(r"Could NOT find Torch \(missing: (?P<what>[A-Z_ ]{1,80})\)")
_WINDOWS_ZIP = re.compile(r"libtorch-win-[\w.%+-]{0,80}")
_LINUX_ZIP = re.compile(r"libtorch-(?:cxx11-abi-)?shared-with-deps-[\w.%+-]{0,80}|libtorch-shared-with-deps")


def torch_cmake_library_missing(ent, text):
    """TorchConfig.cmake found, but not torch's library in its lib folder: the LibTorch folder is not for this
    platform (the Linux zip on Windows), or it is incomplete."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TORCH_LIBRARY_MISSING, tail)
    if m is None or "TORCH_LIBRARY" not in m.group("what"):
        return None
    win = bool(ent.platform.get("windows")) or bool(re.search(r"[A-Za-z]:[/\\]", tail))
    mismatch = ("the Linux LibTorch on Windows" if win and _LINUX_ZIP.search(tail) and not _WINDOWS_ZIP.search(tail) else
                "the Windows LibTorch on Linux" if not win and _WINDOWS_ZIP.search(tail) else None)
    sig = _sig("torch-cmake-library-missing", "toolchain",
               "TorchConfig.cmake is found but not torch's library{note|}", 86,
               "find_package(Torch) read TorchConfig.cmake and then found no torch library in its lib folder: the "
               "LibTorch folder is for another platform" + (" (here {mismatch})" if mismatch else "") +
               ", or it is incomplete (an interrupted unzip, a headers-only copy).",
               fix="Download the LibTorch for this operating system from pytorch.org (Windows: libtorch-win-shared-with-"
                   "deps-*.zip, Release or Debug; Linux: libtorch-cxx11-abi-shared-with-deps-*.zip; macOS: "
                   "libtorch-macos-arm64-*.zip), unzip it whole into an empty folder, point CMAKE_PREFIX_PATH at it and "
                   "configure again in a clean build folder.",
               causes=(), areas=("toolchain",), sources=(_LIBTORCH_DOCS,))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"mismatch": mismatch, "note": f": {mismatch}" if mismatch else None})


_IMPORTED_TARGET_FILE = re.compile(r"The imported target \"(?P<t>[^\"\n]{1,80})\" references the file\s{1,8}"
                                   r"\"(?P<f>[^\"\n]{1,300})\"\s{1,8}but this file does not exist")


def cmake_package_files_missing(ent, text):
    """A package's CMake export names a file its installation does not hold: the installation is incomplete or the
    package was built wrong (CMake says as much); it is the package's, not the project's."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_IMPORTED_TARGET_FILE, tail)
    if m is None:
        return None
    env = _context(tail, r"\.pixi[/\\]envs|[/\\]envs[/\\]|conda|mamba")
    sig = _sig("cmake-package-files-missing", "toolchain",
               "the installed package's CMake files name {file}, which is not installed", 85,
               "The package that exports target {target} was installed without a file its own CMake files reference: "
               "an interrupted install, files removed by hand, or a faulty build of the package.",
               fix=("Update the package in the environment (`conda update` / `pixi update` of that package: a later build "
                    "of the same version may fix its CMake files) or reinstall it (remove and install again); if the newest "
                    "build still lacks the file, report it to the package's feedstock and use another build meanwhile."
                    if env else "Reinstall the package that owns these CMake files (remove it, install it again from its "
                    "source or package manager), or update it to a release whose package is complete."),
               causes=(), areas=("toolchain",), sources=(_CMAKE_DOCS,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"target": m.group("t"), "file": m.group("f")})


_PROBE_LOG = re.compile(r"(?:CheckIncludeFile|CheckSymbolExists|CheckFunctionExists|CheckCSourceCompiles|"
                        r"CheckCXXSourceCompiles|CheckTypeSize)[\w.]{0,20}\.c(?:xx|pp)?\(\d{1,5}\)?[^\n]{0,200}")


def cmake_probe_log(ent, text):
    """CMake's configure probes (CheckIncludeFile and the like) fail by design on platforms without what they probe
    (pthread.h on MSVC) and write it to CMakeError.log; such a line is not the build's error."""
    tail = text[-CONTEXT_TAIL:]
    if "CMakeError.log" not in tail:
        return None
    m = last_match(_PROBE_LOG, tail)
    if m is None:
        return None
    sig = _sig("cmake-probe-log-line", "not-environment", "a failed CMake configure probe in CMakeError.log", 80,
               "CMake tests the platform while configuring (does pthread.h exist? does a function link?) and records "
               "every failed test in CMakeError.log; many fail by design (MSVC has no pthread.h) and change nothing.",
               look_at="Read the first error the configure or build step itself prints (`CMake Error at ...`, the "
                       "compiler's `error:`), not CMakeError.log; nothing to install for this line.",
               causes=(), areas=("toolchain",), sources=({"url": "https://cmake.org/cmake/help/latest/module/CheckIncludeFile.html",
                                                          "what": "CMake's configure checks"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


_CPP_EXT_KWARG = re.compile(r"(?P<fn>load|load_inline|CUDAExtension|CppExtension|BuildExtension|SyclExtension)\(\) got an "
                            r"unexpected keyword argument [`'‘\"](?P<kw>\w{1,60})[`'’\"]")


def cpp_extension_argument_too_new(ent, text):
    """torch.utils.cpp_extension refusing a keyword the package passes: the installed torch is older than the one the
    package's build was written for."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CPP_EXT_KWARG, tail)
    if m is None or not re.search(r"cpp_extension|extra_cuda_cflags|CUDAExtension|load_inline|BuildExtension", tail):
        return None
    sig = _sig("cpp-extension-argument-too-new", "torch-build",
               "torch.utils.cpp_extension.{function}() has no argument {keyword}: torch is older than the package needs",
               84, "The package builds its extension with torch.utils.cpp_extension.{function}({keyword}=...), an argument "
               "of later torch releases; the installed torch does not have it.",
               fix="Upgrade torch to the release the package requires (its README or setup.py; `pip install --upgrade "
                   "torch` in its CUDA build), or use a release of the package written for this torch.",
               causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/cpp_extension.html",
                                                      "what": "torch.utils.cpp_extension's arguments"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"function": m.group("fn"), "keyword": m.group("kw")})


# a C++ program (not a Python import) stopped by the loader on a torch symbol: another libtorch found at run time
_EXE_SYMBOL = re.compile(r"symbol lookup error: (?P<exe>[^:\n]{1,200}): undefined symbol: (?P<sym>_ZN\w{1,400})|"
                         r"undefined symbol: (?P<sym2>_ZN(?:2at|3c10|5torch|6caffe2)\w{1,400})")
_CPP_PROGRAM = re.compile(r"(?i)libtorch-[\w.%+-]{0,80}\.zip|CMakeLists|find_package\(Torch|TORCH_LIBRARIES|example-app|"
                          r"\bC\+\+ (?:example|program|application|app)|cargo run|\bLIBTORCH\b")


def program_loads_another_libtorch(ent, text):
    """An executable built against one LibTorch that, when started, finds another libtorch first (a pip torch's lib
    folder or an older LibTorch on LD_LIBRARY_PATH, the ldconfig cache): the loader cannot resolve the symbols the
    build used."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_EXE_SYMBOL, tail)
    if m is None:
        return None
    exe = m.group("exe")
    if exe and re.search(r"\.(?:so|pyd|dll)(?:\.\d+)*$", exe.strip()):
        return None
    if _PYTHON_IMPORT.search(tail) or not (exe or _CPP_PROGRAM.search(tail)):
        return None
    sig = _sig("program-loads-another-libtorch", "libraries",
               "the program finds another libtorch at run time than the one it was built against", 86,
               "The program was linked against one LibTorch; started, the loader resolved libtorch from somewhere else "
               "(a pip or conda torch's lib folder, an older LibTorch on LD_LIBRARY_PATH or in the ldconfig cache), "
               "which lacks a symbol the build used.",
               fix="Make the program load the LibTorch it was built with: `ldd ./<program> | grep -E 'torch|c10'` shows "
                   "which it finds; put that LibTorch's lib folder first (`export LD_LIBRARY_PATH=<libtorch>/lib:"
                   "$LD_LIBRARY_PATH`, or an rpath at build time) and remove other torch lib folders from "
                   "LD_LIBRARY_PATH; with a binding (tch-rs) use the LibTorch version it requires.",
               causes=(("ld-path", "LD_LIBRARY_PATH decides which libraries a program loads", ("TE501",)),),
               areas=("libraries",), sources=({"url": "https://man7.org/linux/man-pages/man8/ld.so.8.html",
                                               "what": "the loader's search order"}, _LIBTORCH_DOCS))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


def libtorch_binding_message(ent, text):
    """A language binding built on LibTorch (tch, TorchSharp, DJL, PyTorch's Java bindings) saying in its own words
    that it found no usable LibTorch (knowledge.bindings): the fix is the binding's own setting, not pip."""
    tail = text[-CONTEXT_TAIL:]
    r = bindings.reading(tail)
    if r is None:
        return None
    layer = {"setup": "toolchain", "package": "torch-build", "vc-runtime": "windows-runtime",
             "loader": "libraries"}[r["kind"]]
    sig = _sig("libtorch-binding-" + r["kind"], layer, "{binding} found no usable LibTorch", 85,
               "{binding} loads LibTorch's native libraries itself, and says what went wrong: " + r["what"] + ".",
               fix=r["fix"], causes=(), areas=("toolchain",), sources=({"url": r["source"], "what": "the binding's setup"},))
    return _match(sig, text, len(text) - len(tail) + r["at"], {"binding": r["binding"]})


# NTSTATUS 0xC0000135 (STATUS_DLL_NOT_FOUND) as a process exit code, in a text about a LibTorch program
_DLL_NOT_FOUND_EXIT = re.compile(r"(?i)exited with code -1073741515|0xc0000135|STATUS_DLL_NOT_FOUND")


def libtorch_program_dll_not_found(ent, text):
    """A Windows program built against LibTorch that exits with STATUS_DLL_NOT_FOUND: LibTorch's DLLs are not where
    the loader looks (beside the .exe, or PATH); the VC++ runtime is the other candidate, named second."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DLL_NOT_FOUND_EXIT, tail)
    if m is None or not re.search(r"(?i)libtorch|torch_cpu\.dll|c10\.dll|torch::|TORCH_LIBRARIES|example-app", tail):
        return None
    sig = _sig("libtorch-program-dll-not-found", "libraries",
               "the LibTorch program exits with STATUS_DLL_NOT_FOUND (0xC0000135)", 87,
               "Windows stopped the program before main: a DLL it imports was not found. For a program linked to "
               "LibTorch these are LibTorch's DLLs (torch_cpu.dll, c10.dll, torch_cuda.dll and the CUDA ones in "
               "libtorch\\lib), which are neither beside the .exe nor on PATH.",
               fix="Copy libtorch\\lib\\*.dll next to the .exe after each build (the LibTorch example's CMake POST_BUILD "
                   "copy_if_different step) or add libtorch\\lib to PATH for the program; if it still fails, install the "
                   "latest Microsoft Visual C++ Redistributable (x64).",
               causes=(), areas=("libraries",), sources=(_LIBTORCH_DOCS, {"url": "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55",
                                                                       "what": "NTSTATUS 0xC0000135 STATUS_DLL_NOT_FOUND"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# TorchScript's compiler and runtime refusing the program: the type an argument was given, a module container's own
# forward, a class without __init__, an internal assert in the TorchScript frontend
_TORCHSCRIPT_PROGRAM = re.compile(r"expected value of type \w{1,40} for argument '\w{1,60}' in position \d{1,3}, but instead "
                                  r"got value of type \w{1,40}|module has no attribute 'forward'|"
                                  r"INTERNAL ASSERT FAILED at [^\n]{0,40}torch[/\\]csrc[/\\]jit[/\\](?:script|frontend)[/\\]|"
                                  r"Python builtin <[^>\n]{1,80}> is currently not supported in Torchscript|"
                                  r"Unknown type annotation: [^\n]{1,80}|Compiled functions can't take variable number of arguments")
# scripting an nn.Module instance came with torch 1.2; before it, inspect refuses the instance in these words
_SCRIPT_INSTANCE_OLD = re.compile(r"torch\.jit\.script\([^)\n]{1,80}\)[\s\S]{0,600}?\) is not a module, class, method, "
                                  r"function, traceback, frame, or code object")


def torchscript_program_error(ent, text):
    """TorchScript compiling or running the program refuses what the program does: the program's (or torch's) bug,
    not the installation; scripting a module instance on a torch older than 1.2 is the one version case."""
    tail = text[-CONTEXT_TAIL:]
    old = last_match(_SCRIPT_INSTANCE_OLD, tail)
    if old is not None:
        sig = _sig("torchscript-module-needs-1-2", "torch-build", "torch.jit.script of an nn.Module needs torch 1.2 or newer",
                   83, "torch.jit.script accepts an nn.Module instance from torch 1.2 on; torch 1.1 and older hand it to "
                   "Python's inspect, which refuses an instance in exactly these words.",
                   fix="Upgrade torch to 1.2 or newer (the tutorials' version), or, on the old torch, subclass "
                       "torch.jit.ScriptModule with @torch.jit.script_method as its API required.",
                   causes=(), areas=("torch",), sources=({"url": "https://github.com/pytorch/pytorch/releases/tag/v1.2.0",
                                                          "what": "torch 1.2: torch.jit.script on nn.Module"},))
        return _match(sig, text, len(text) - len(tail) + old.start(), {})
    m = last_match(_TORCHSCRIPT_PROGRAM, tail)
    if m is None:
        return None
    sig = _sig("torchscript-refuses-program", "not-environment", "TorchScript refuses the program", 79,
               "TorchScript's compiler (or its interpreter) stops at something the program does that TorchScript does "
               "not support or that has the wrong type: an argument typed Tensor by default given an int, a custom "
               "forward on a module container, a class without __init__, an internal assert in the TorchScript frontend "
               "on unsupported code. The program is the cause (or torch's own bug), not the installation.",
               look_at="Change the program as TorchScript requires (annotate argument types, iterate containers in the "
                       "parent's forward, give script classes an __init__), or capture the model with torch.export "
                       "(TorchScript is deprecated in favour of it); nothing to install.",
               causes=(), areas=("torch",), sources=({"url": "https://docs.pytorch.org/docs/stable/jit_language_reference.html",
                                                      "what": "what TorchScript supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


def libstdcxx_debug_mode(ent, text):
    """LibTorch's headers and libraries assume libstdc++'s normal mode; -D_GLIBCXX_DEBUG (debug containers) breaks
    their compilation and their layout."""
    tail = text[-CONTEXT_TAIL:]
    k = tail.find("_GLIBCXX_DEBUG")
    if k < 0 or not re.search(r"error:|Error \d", tail) or not _TORCH_CONTEXT.search(tail):
        return None
    sig = _sig("libtorch-glibcxx-debug", "toolchain", "LibTorch is compiled with libstdc++'s debug mode (-D_GLIBCXX_DEBUG)",
               84, "-D_GLIBCXX_DEBUG swaps libstdc++'s containers for debug versions with another layout; LibTorch's "
                   "headers do not compile in that mode and its prebuilt libraries (built without it) could not share "
                   "containers with code built with it.",
               fix="Build the code that uses LibTorch without -D_GLIBCXX_DEBUG (use -D_GLIBCXX_ASSERTIONS for cheap "
                   "checks, or sanitizers), or build LibTorch itself from source with the same flag.",
               causes=(), areas=("toolchain",), sources=({"url": "https://gcc.gnu.org/onlinedocs/libstdc++/manual/debug_mode_using.html",
                                                          "what": "libstdc++ debug mode changes the ABI of containers"},))
    return _match(sig, text, len(text) - len(tail) + k, {})
