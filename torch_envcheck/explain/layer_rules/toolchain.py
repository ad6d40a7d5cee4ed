"""Layer rules for the build toolchain: headers, nvcc's host compiler, CMake's compiler detection, the CUDA toolkit
against torch's CUDA, Inductor on native Windows, Triton's exceptions.

    toolkit_not_torch_cuda  a build's own nvcc-vs-torch CUDA check      -> the toolkit (CUDA_HOME) or the torch build
    torch_extension_build_failed  pip's summary of a failed build of a torch extension (torch-scatter, apex, mamba-ssm,
                     ...) with no compiler error shown -> its prebuilt wheel, or what building it needs
    build_finds_no_toolkit  a source build's own words for "no CUDA toolkit here" (CuPy's nvcc/link warnings, a
                     setup.py joining a None CUDA_HOME, Bazel's cuda_configure) -> the toolkit, or a prebuilt wheel
    companion_version_range  "Requires <package> version <range> but got <version>" -> that package within the range
    build_option_left_out  an operator not registered where the build command turned a part off (XFORMERS_DISABLE_
                     FLASH_ATTN=1, BUILD_X=0) -> rebuild without that setting
    optional_kernels_notice  xformers' "A matching Triton is not available, some optimizations will not be enabled"
                     alone -> not-environment: a notice, nothing to install
    package_asks_for_pin  a package's own failure that says which version to install ("Please make sure to install
                     triton==3.3.0") -> that pin
    triton_of_another_api  Triton lacking a name, module or type its caller asks for (GPUTarget) -> one Triton, the
                     release torch pins    cmake_find_module_failed  CMake's "Could NOT find X (missing: X_INCLUDE_DIR ...)" / "Found unsuitable version" ->
                     toolchain (tensorflow in a TensorFlow build): the package's development files where CMake looks
    make_no_rule_for_cuda_file  make's "No rule to make target '/usr/local/cuda-X.Y/...'" -> toolchain: a build file
                     (a dependency's CMake config) written for another CUDA install
"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import compiled_modules, headers
from torch_envcheck.explain.layer_rules.kit import last_in_tail, CONTEXT_TAIL, SOURCES, _match, _sig


_INDUCTOR_FAILED = re.compile(r"BackendCompilerFailed: backend='inductor' raised:|InductorError:")


def inductor_on_native_windows(ent, text):
    """torch.compile's inductor backend failing on native Windows with an OS error of its own (access denied, a
    file not found, a DLL) and nothing more specific: inductor there needs the Windows build of Triton for its GPU
    kernels and MSVC for its C++ ones, which a plain install lacks; eager mode needs neither.  Ranked below the
    sentences that name the missing piece (no Triton, no compiler)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_INDUCTOR_FAILED, tail)
    if m is None:
        return None
    sig = _sig("inductor-on-native-windows", "toolchain",
               "torch.compile (inductor) failed on native Windows: its Triton and compiler toolchain", 78,
               "The inductor backend compiles generated code: GPU kernels with Triton (on Windows only the community "
               "build, triton-windows, matching torch) and CPU code with MSVC (cl.exe from the Visual Studio Build "
               "Tools); an OS error inside it on Windows is that toolchain missing or not usable, not the model.",
               fix="Install the Windows build of Triton that matches torch (`pip install -U \"triton-windows<X.Y\"`, "
                   "see its table of torch versions) and the Visual Studio Build Tools (C++ workload), then retry from "
                   "a Developer prompt; or run without torch.compile (eager): remove the compile step or set "
                   "`torch._dynamo.config.suppress_errors = True`. WSL 2 runs the Linux toolchain.",
               causes=(), areas=("torch", "platform"),
               sources=({"url": "https://github.com/woct0rdho/triton-windows",
                         "what": "triton-windows: Triton built for Windows, per torch version"},
                        {"url": "https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
                         "what": "torch.compile troubleshooting: falling back to eager"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# A build's own check that the CUDA toolkit (nvcc) is the one torch was built with: torch.utils.cpp_extension's
# sentence is the catalogue's; packages with their own setup.py check (NVIDIA apex and its forks) say it otherwise.
_TOOLKIT_VS_TORCH = re.compile(r"(?i)version of cuda that does not match the version used to compile pytorch|"
                               r"cuda (?:version|toolkit)[^\n]{0,40}(?:does not match|mismatch(?:es)?)[^\n]{0,80}(?:pytorch|torch)|"
                               # a user's own words: torch's CUDA and nvcc's side by side, of other versions
                               r"torch\.version\.cuda\W{0,6}(?:is\s)?\d{1,2}\.\d[^\n]{0,60}\bnvcc\b[^\n]{0,30}\d{1,2}\.\d|"
                               r"(?:py)?torch(?:'s)? cuda version[^\n]{0,40}(?:system|nvcc|toolkit)[^\n]{0,20}cuda version[^\n]{0,20}"
                               r"(?:not match|mismatch|differ)")


_TORCH_BUILT_CUDA = re.compile(r"(?i)pytorch binaries were compiled with cuda (?P<v>\d{1,2}\.\d{1,2})|"
                               r"torch\.version\.cuda\W{1,6}(?P<v2>\d{1,2}\.\d{1,2})")


def toolkit_not_torch_cuda(ent, text):
    """A build refused because the CUDA toolkit's nvcc is another version than the CUDA torch was built with: the
    toolkit (CUDA_HOME) or the torch build must change, whichever package's setup.py says it."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_TOOLKIT_VS_TORCH, tail)
    if m is None:
        return None
    built = _TORCH_BUILT_CUDA.search(tail)
    torch_cuda = (built.group("v") or built.group("v2")) if built else ent.versions.get("torch_cuda")
    caps = {"torch_cuda": torch_cuda, "nvcc": ent.versions.get("nvcc")}
    sig = _sig("build-toolkit-not-torch-cuda", "toolchain",
               "the CUDA toolkit used to build differs from the CUDA torch was built with", 85,
               "The package's build checks that nvcc (the CUDA toolkit at CUDA_HOME, here {nvcc|another version}) is the "
               "CUDA torch was built with ({torch_cuda|torch's CUDA}), and it is not: the extension would be compiled for "
               "another CUDA than the torch it loads into.",
               fix="Build with a CUDA {torch_cuda|of torch's version} toolkit: install it and `export "
                   "CUDA_HOME=/usr/local/cuda-{torch_cuda|X.Y}` (its bin/nvcc first on PATH), or install the torch build "
                   "for the toolkit you have (the cuXXX build of its CUDA version, e.g. cu121 for 12.1).",
               causes=(("toolkit", "the CUDA toolkit differs from torch's CUDA", ("TE602", "TE603")),),
               areas=("toolchain",), sources=({"url": "https://github.com/NVIDIA/apex/blob/master/setup.py",
                                               "what": "apex's check_cuda_torch_binary_vs_bare_metal"},
                                              SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# A compiler that cannot include a header says which one: gcc "fatal error: X: No such file or directory", clang
# "fatal error: 'X' file not found", MSVC "C1083: Cannot open include file: 'X'", or a short "no file X.h"
_HEADER_MISSING = re.compile(
    r"(?:error(?: C1083)?|\bC1083): (?:Cannot open include file: )?['\"`]?(?P<h>[\w.+/\\-]{1,160}?)['\"`]?"
    r"(?:: No such file or directory| file not found)|"
    r"\bno (?:such )?(?:header )?file:? ['\"`]?(?P<h2>[\w./-]{1,120}\.(?:h|hpp|cuh))\b|"
    r"['\"`]?(?P<h3>[\w./-]{1,120}\.(?:h|hpp|cuh))['\"`]?:? (?:[Nn]o such file or directory|file not found|not found)|"
    # a JIT or a build that says which header it needs ("flashinfer JIT requires cuda_fp8.h")
    r"\b(?:requires?|needs?|missing|(?:can ?not|can't|could not|unable to) (?:find|locate))\s{1,3}['\"`]?"
    r"(?P<h4>[\w./-]{1,120}\.(?:h|hpp|cuh))\b")


def header_missing(ent, text):
    """A header the build cannot include is its owner's: torch's (installed in the building Python, 1.0 or newer;
    TH/THC gone since 1.11), the CUDA toolkit's, cuDNN's, NCCL's, ROCm's, Python's, pybind11's, NumPy's, a CUTLASS
    submodule's (knowledge/headers.py), whatever the compiler and whoever builds."""
    tail = text[-CONTEXT_TAIL:]
    found = None
    # every match holds one of these literals: the regex runs only where one is
    if not any(k in tail for k in (".h", "include file", "no such", "No such")):
        return None
    for m in _HEADER_MISSING.finditer(tail):
        h = headers.owner_of(m.group("h") or m.group("h2") or m.group("h3") or m.group("h4"))
        if h is not None:
            found = (m, h)
    if found is None:
        return None
    m, h = found
    sig = _sig("header-missing", "toolchain", "{header} ({what}) is not found by the build", 82,
               "The compiler could not include {header}: it is part of {what}, which the build environment does not "
               "have where the compiler looks.",
               fix=h["remedy"], causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601", "TE603")),)
               if h["owner"] == "cuda-toolkit" else (), areas=("toolchain",),
               sources=({"url": h["source"], "what": f"who ships {h['header']}"},), generic=True)
    return _match(sig, text, len(text) - len(tail) + m.start(), {"header": h["header"], "what": h["what"]})


# nvcc's host-compiler check (crt/host_config.h) stops the build with "#error -- unsupported <compiler> version!";
# read through any whitespace, so a log or a mail wrapped at 80 columns still says which compiler and which limit
_HOST_CONFIG = re.compile(r"#error\s{1,4}--\s{1,4}unsupported\s{1,4}(?P<comp>GNU|clang|ICC|IntelLLVM|NVHPC|PGI|XL|Arm)"
                          r"\s{1,4}version!(?:\s{1,4}(?P<what>gcc|clang|icc|\w{2,10})\s{1,4}versions\s{1,4}"
                          r"(?P<dir>later|earlier|older|newer)\s{1,4}than\s{1,4}(?P<lim>\d{1,4}(?:\.\d{1,2})?))?")


_HOST_CC = {"GNU": ("gcc", "g++"), "clang": ("clang", "clang++")}
# nvcc's own words when the host compiler it runs (cl.exe on Windows, the -ccbin / NVCC_CCBIN one) is not on PATH
_NVCC_NO_HOST = re.compile(r"nvcc fatal\s{0,4}:\s{0,4}Cannot find compiler '(?P<cc>[\w.+-]{1,40})' in PATH")


def nvcc_host_compiler(ent, text):
    """nvcc refuses the host compiler its host_config.h does not list: the compiler and its limit are in the
    #error line, whatever the wrapping; the fix is a compiler within the limit (CC/CXX, NVCC_CCBIN) or a CUDA
    toolkit whose table includes this compiler.  nvcc finding no host compiler on PATH at all is the same step: on
    Windows cl.exe, which only a Visual Studio developer environment puts on PATH."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_HOST_CONFIG, tail)
    if m is None:
        n = last_match(_NVCC_NO_HOST, tail) if "Cannot find compiler" in tail else None
        if n is None:
            return None
        cc = n.group("cc")
        msvc = cc.lower() in ("cl.exe", "cl")
        sig = _sig("nvcc-host-compiler-not-found", "toolchain", "nvcc finds no host compiler {cc} on PATH", 86,
                   "nvcc compiles the host side of CUDA sources with a C++ compiler it runs from PATH" +
                   (": on Windows Microsoft's cl.exe, which Visual Studio installs but puts on PATH only in its "
                    "developer environment (the Developer Command Prompt, vcvars64.bat)" if msvc else
                    " (the one -ccbin or NVCC_CCBIN names)") + ". Every later failure of that build (a module or "
                   "kernel file not found, CUDA_ERROR_FILE_NOT_FOUND when loading it) follows from this one.",
                   fix=("Install Visual Studio or its Build Tools with the \"Desktop development with C++\" workload, in "
                        "a version this CUDA supports, and run the program or build from the \"x64 Native Tools Command "
                        "Prompt\" (or after `\"C:\\Program Files\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\"
                        "Auxiliary\\Build\\vcvars64.bat\"`), so that `where cl` finds cl.exe." if msvc else
                        "Install {cc} (Debian/Ubuntu: `sudo apt install build-essential`, or the g++-N package it names) "
                        "or point nvcc at an installed compiler: `NVCC_CCBIN=/usr/bin/g++` (or `-ccbin`, CC/CXX for torch's "
                        "extension builds)."),
                   causes=(("toolkit", "the CUDA toolkit (nvcc) and the host compiler disagree", ("TE602",)),),
                   areas=("toolchain",),
                   sources=({"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/index.html",
                             "what": "CUDA on Windows: Visual Studio's C++ compiler is required for nvcc"},))
        return _match(sig, text, len(text) - len(tail) + n.start(), {"cc": cc})
    comp, lim = m.group("comp"), m.group("lim")
    cc, cxx = _HOST_CC.get(comp, (comp.lower(), comp.lower()))
    later = m.group("dir") in ("later", "newer")
    want = (f"{cc} {lim} or older" if later else f"{cc} newer than {lim}") if lim else f"a {cc} this nvcc supports"
    pin = f"-{lim.split('.')[0]}" if lim and later else ""
    sig = _sig("nvcc-host-compiler-unsupported", "toolchain",
               "nvcc refuses the host compiler ({comp} {limit|version})", 85,
               "nvcc checks the host C++ compiler against the versions its CUDA release supports (crt/host_config.h) "
               "and stops at one outside them: this CUDA toolkit supports {want}.",
               fix=f"Build with {want}: install it and `export CC={cc}{pin} CXX={cxx}{pin}` (torch's extension builds pass "
                   f"CC to nvcc as -ccbin; for nvcc directly `NVCC_CCBIN={cc}{pin}` or `-ccbin {cc}{pin}`), or use a newer "
                   "CUDA toolkit whose supported host compilers include this one (its installation guide lists them); "
                   "`-allow-unsupported-compiler` skips the check at your own risk.",
               causes=(("toolkit", "the CUDA toolkit (nvcc) and the host compiler disagree", ("TE602",)),),
               areas=("toolchain",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html"
                                                      "#host-compiler-support-policy",
                                               "what": "the host compilers each CUDA release supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"comp": comp, "limit": f"later than {lim} unsupported" if lim else None, "want": want})


_TRITON_ERRORS_SRC = {"url": "https://github.com/triton-lang/triton/blob/main/python/triton/runtime/errors.py",
                      "what": "Triton's runtime exceptions (OutOfResources, PTXASError)"}


def triton_exception(ent, text):
    """Triton's own exception types say which stage failed: PTXASError is its bundled ptxas refusing the PTX it
    generated (most often a GPU newer than that ptxas: sm_NNNa unknown), OutOfResources a kernel configuration that
    needs more shared memory or registers than this GPU has (the program's tuning, not the installation)."""
    names = [e.rsplit(".", 1)[-1] for e in ent.exceptions]
    if "PTXASError" in names:
        arch = next((a for a in reversed(ent.archs) if a.startswith("sm_")), None)
        gpu = ent.gpus[-1] if ent.gpus else None
        sig = _sig("triton-ptxas-failed", "arch", "Triton's bundled ptxas failed on the code it generated", 83,
                   "Triton compiles its kernels with the ptxas it ships (triton/backends/nvidia/bin/ptxas); PTXASError "
                   "means that ptxas refused the PTX, most often because the GPU ({arch|its architecture}) is newer than "
                   "the CUDA that ptxas comes from.",
                   fix="Point Triton at a ptxas that knows the GPU: `export TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas` "
                       "from a CUDA toolkit new enough for {gpu|it}, or install a triton (with torch) release whose "
                       "bundled CUDA supports it; read the `ptxas` stderr Triton prints for the exact refusal.",
                   areas=("toolchain",), sources=(_TRITON_ERRORS_SRC,))
        at = text.rfind("PTXASError")
        return _match(sig, text, at, {"arch": arch, "gpu": gpu})
    # (its name does not end in Error, so the extractor's exception names do not hold it: read it off the text)
    if re.search(r"\bOutOfResources: out of resource: ", text[-CONTEXT_TAIL:]):
        sig = _sig("triton-out-of-resources", "not-environment",
                   "a Triton kernel's configuration needs more of the GPU than it has: not an environment problem", 80,
                   "Triton's OutOfResources: the kernel as configured (block sizes, num_stages, num_warps) needs more "
                   "shared memory or registers than this GPU provides (a smaller GPU than the one it was tuned on).",
                   look_at="Reduce the kernel's block sizes or num_stages (its autotune configs), or the batch/sequence "
                           "shape that selects them; no reinstall is needed.",
                   areas=(), sources=(_TRITON_ERRORS_SRC,))
        return _match(sig, text, text.rfind("OutOfResources"), {})
    return None



# Triton's API moving under torch: Inductor (or a package's Triton kernels) asking the installed Triton for a name, a
# module or a type of another release. Triton 3's compiler takes a GPUTarget where older releases took a tuple
# (triton/backends/compiler.py), and its modules moved between releases (triton.runtime.jit, triton.compiler.compiler,
# triton.language.extra.cuda): a torch and a Triton that were not released together, or several Triton packages
# (triton, triton-nightly, pytorch-triton) overwriting one another's files in one environment.
_TRITON_SKEW = re.compile(r"AssertionError: target must be of GPUTarget type|"
                          r"cannot import name '(?P<name>\w{1,80})' from '(?P<mod>triton(?:\.\w{1,40}){0,5})'|"
                          r"No module named '(?P<mod2>triton\.\w{1,40}(?:\.\w{1,40}){0,4})'|"
                          r"module '(?P<mod3>triton(?:\.\w{1,40}){0,5})' has no attribute '(?P<name3>\w{1,80})'")


def triton_of_another_api(ent, text):
    """A Triton whose API is not the one the caller was written for (a name, a module or a type missing): the Triton
    installed is not the release torch pins, or several Triton packages share one folder; the fix is one Triton, the
    one this torch asks for."""
    m, at = last_in_tail(_TRITON_SKEW, text, "triton")
    if m is None:
        m, at = last_in_tail(_TRITON_SKEW, text, "GPUTarget")
    if m is None:
        return None
    windows = bool(ent.platform.get("windows")) and not ent.platform.get("wsl")
    what = (f"'{m.group('name')}' from {m.group('mod')}" if m.group("name") else
            m.group("mod2") or (f"{m.group('mod3')}.{m.group('name3')}" if m.group("mod3") else "a GPUTarget"))
    sig = _sig("triton-of-another-api", "toolchain", "the installed Triton is not the release its caller expects", 79,
               "The caller (torch's Inductor, or a package's Triton kernels) asks Triton for {what}, which the "
               "installed Triton does not have: Triton's API changes between releases (Triton 3's compiler takes a "
               "GPUTarget, modules moved), so a torch and a Triton that were not released together fail this way, and "
               "so does an environment holding several Triton packages (triton, triton-nightly, pytorch-triton) "
               "whose files overwrite one another.",
               fix=("List them (`pip list | findstr /i triton`), uninstall every one, and install the triton-windows "
                    "release its README lists for this torch (`pip install -U \"triton-windows<X.Y\"` with the bound "
                    "it gives)."
                    if windows else
                    "List them (`pip list | grep -i triton`), keep a single Triton: `pip uninstall -y triton "
                    "triton-nightly pytorch-triton`, then the one this torch pins (`pip show torch` names it under "
                    "Requires; `pip install --force-reinstall --no-deps` of that triton version, or reinstall torch "
                    "from its index, which brings the matching one). A package's own Triton kernels need the Triton "
                    "its release was tested with."),
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/128357",
                         "what": "pytorch#128357: three Triton packages in one environment; keep only pytorch-triton"},
                        {"url": "https://github.com/triton-lang/triton/blob/main/python/triton/backends/compiler.py",
                         "what": "Triton's GPUTarget (the compiler's target type since Triton 3)"}))
    return _match(sig, text, at, {"what": what})


# CMake's compiler detection, by its own messages: "No CMAKE_<LANG>_COMPILER could be found." for every language, and
# for CUDA "Couldn't find CUDA library root." (the nvcc found has no nvvm/libdevice beside it or in /usr/lib/cuda: a
# wrapper or a partial toolkit, not the CUDA toolkit's own nvcc) or "Failed to find nvcc."
_CMAKE_NO_COMPILER = re.compile(r"No CMAKE_(?P<lang>CUDA|HIP|CXX|C|Fortran)_COMPILER could be found|"
                                r"(?P<root>Couldn't find CUDA library root)|(?P<nvcc>Failed to find nvcc)")


_CMAKE_SOURCE = {"url": "https://github.com/Kitware/CMake/blob/master/Modules/CMakeDetermineCUDACompiler.cmake",
                 "what": "CMake's CUDA compiler detection: the library root is the folder holding nvvm/libdevice "
                         "(the toolkit root, or /usr/lib/cuda); without one, FATAL_ERROR \"Couldn't find CUDA library root.\""}


def cmake_compiler_detection(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CMAKE_NO_COMPILER, tail)
    if m is None:
        return None
    lang = m.group("lang") or "CUDA"
    if lang in ("CXX", "C", "Fortran"):
        name = {"CXX": "C++", "C": "C", "Fortran": "Fortran"}[lang]
        fix = (f"Install a {name} compiler (Debian/Ubuntu: `sudo apt-get install build-essential`; Fedora: `sudo dnf "
               f"install gcc-c++`; Windows: Visual Studio Build Tools with 'Desktop development with C++', from a "
               f"Developer prompt; macOS: `xcode-select --install`), or point CMake at one with CMAKE_{lang}_COMPILER "
               f"({'CXX' if lang == 'CXX' else 'CC'} in the environment).")
    elif lang == "HIP":
        fix = ("Point CMake at ROCm's compiler: CMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++ (or HIPCXX), with ROCm's "
               "bin on PATH; install the ROCm HIP SDK if there is none.")
    else:
        fix = ("Point CMake at the CUDA toolkit's own nvcc: `export CUDACXX=/usr/local/cuda/bin/nvcc` (or "
               "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc; CUDA_HOME / CUDA_PATH at that toolkit), with the "
               "toolkit's bin first on PATH. An nvcc that is a wrapper or a partial install (a distribution's "
               "/usr/bin/nvcc without nvvm/libdevice beside it) is not enough; with no toolkit at all, install the CUDA "
               "toolkit matching torch.version.cuda.")
    sig = _sig("cmake-compiler-not-found", "toolchain", "CMake could not use a {lang} compiler", 76,
               "CMake's detection of the {lang} compiler failed: none was found, or (CUDA) the nvcc it found has no "
               "toolkit around it (nvvm/libdevice, the library root), so the project cannot be configured.",
               fix=fix, causes=(), areas=("toolchain",), sources=(_CMAKE_SOURCE,))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lang": lang})


# Apple's clang is built without OpenMP: it rejects -fopenmp (the driver's "unsupported option"), has no omp.h and no
# libomp to link; the same build works with Homebrew's libomp (through -Xpreprocessor) or with a gcc/LLVM that has it
_MAC_OPENMP = re.compile(r"clang(?:\+\+)?: error: unsupported option '-fopenmp'|fatal error: 'omp\.h' file not found|"
                         r"library not found for -lomp\b")


def openmp_with_apple_clang(ent, text):
    """A build asking for OpenMP from Apple's clang (the compiler macOS ships as cc/gcc/clang): it has none, so the
    flag, the header or the library fails, whatever the project. On Linux, omp.h missing is the compiler's libgomp
    package instead; this rule reads the clang driver's own words, or a Mac."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_MAC_OPENMP, tail)
    if m is None or (not m.group(0).startswith("clang") and not ent.platform.get("macos")):
        return None
    sig = _sig("openmp-with-apple-clang", "toolchain", "Apple's clang has no OpenMP (-fopenmp, omp.h, libomp)", 82,
               "macOS's compiler (Apple clang, also behind `gcc` and `cc`) is built without OpenMP: it rejects "
               "-fopenmp and has no omp.h or libomp, so a build that asks for OpenMP fails on a Mac.",
               fix="Give the build an OpenMP: `brew install libomp` and compile with `-Xpreprocessor -fopenmp -lomp` "
                   "(with -I/-L to $(brew --prefix libomp)), or use a compiler that has it: Homebrew's gcc (`brew "
                   "install gcc`, then CC=gcc-14 CXX=g++-14) or LLVM (`brew install llvm`); or build without OpenMP if "
                   "the project has a switch for it (USE_OPENMP=0).",
               causes=(("no-openmp", "Apple clang has no OpenMP runtime", ("TE601",)),), areas=("toolchain",),
               sources=({"url": "https://formulae.brew.sh/formula/libomp",
                         "what": "Homebrew's libomp: LLVM's OpenMP runtime, for Apple clang with -Xpreprocessor -fopenmp"},
                        {"url": "https://scikit-learn.org/stable/developers/advanced_installation.html#macos",
                         "what": "macOS: Apple clang lacks OpenMP; libomp from Homebrew, or another compiler"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# XLA (TensorFlow's, JAX's) compiles its GPU kernels with the CUDA toolkit's ptxas: it must find one, and one new
# enough (XLA warns below 11.1: older ptxas miscompiles its code)
_XLA_PTXAS = re.compile(r"\bptxas\b[^\n]{0,60}\bnot found|Couldn't (?:find|invoke) ptxas|"
                        r"You are using ptxas (?P<have>\d{1,2}\.\d{1,2}(?:\.\d{1,4})?), which is older than "
                        r"(?P<need>\d{1,2}\.\d{1,2})|"
                        # XLA's later words: its own fallback, and the CUDA releases whose ptxas miscompiles
                        r"(?P<fallback>ptxas too old)\. Falling back to the driver|"
                        r"Invoking ptxas with version (?P<have2>\d{1,2}\.\d{1,2}(?:\.\d{1,4})?), which corresponds to a "
                        r"CUDA version <= ?\d{1,2}\.\d{1,2}(?:\.\d{1,4})?[\s\S]{0,300}?upgrade to CUDA "
                        r"(?P<need2>\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)|"
                        # ptxas itself refusing PTX newer than it (not the driver's JIT: that is CUDA_ERROR_UNSUPPORTED_PTX)
                        r"ptxas\s{0,2}:?\s{0,2}(?:application ptx input, line \d{1,6}; )?(?:fatal\s{0,4}:\s{0,2})?"
                        r"(?P<ptx>Unsupported \.version \d{1,2}\.\d{1,2}); current version is '(?P<cur>\d{1,2}\.\d{1,2})'")
_DRIVER_JIT = re.compile(r"UNSUPPORTED_PTX_VERSION|cuLink|cuModuleLoad|the provided PTX was compiled with an unsupported")
_TF_OP = re.compile(r"OP_REQUIRES failed|tensorflow/core/|import tensorflow|\btf\.(?:function|config|keras)")


def xla_ptxas(ent, text):
    """XLA without a usable ptxas: none found (it looks on PATH and in the CUDA folder XLA_FLAGS names), or one older
    than it accepts. The CUDA toolkit's compiler is missing, not the GPU or the driver; a TensorFlow program's is
    TensorFlow's CUDA setup, a JAX program's (its XLA under external/org_tensorflow) the toolchain's."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_XLA_PTXAS, tail)
    if m is None or (m.group("ptx") and _DRIVER_JIT.search(tail)):
        return None
    layer = "tensorflow" if _TF_OP.search(tail) and not re.search(r"\bjax|org_tensorflow", tail) else "toolchain"
    have, need = m.group("have") or m.group("have2"), m.group("need") or m.group("need2")
    old = bool(have or m.group("fallback") or m.group("ptx"))
    sig = _sig("xla-ptxas-" + ("too-old" if old else "missing"), layer,
               # the old-ptxas line is a warning a run goes on after: below any error sentence of the same log
               ("ptxas is older than the PTX it is given ({ptx})" if m.group("ptx") else
                "XLA's ptxas " + ("{have|it found} is older than {need|XLA needs}" if old else "is not found")),
               55 if old and not m.group("ptx") else 80,
               "XLA compiles its GPU kernels to machine code with ptxas, the CUDA toolkit's assembler, which it looks "
               "for on PATH and under the CUDA folder XLA_FLAGS=--xla_gpu_cuda_data_dir names" +
               ((": the one it found (PTX ISA {cur}) is older than the PTX it is given ({ptx})." if m.group("ptx") else
                 ": the one it found{have_note|} is older than {need|XLA needs}.") if old else ": it found none."),
               fix="Put a CUDA toolkit's ptxas " + ("of CUDA {need} or newer " if need else
                                                   "at least as new as the CUDA the framework targets " if old else "") +
                   "first on PATH: "
                   "install the toolkit (or `pip install nvidia-cuda-nvcc-cu12`, conda's cuda-nvcc) and add its bin "
                   "folder to PATH, or point XLA at the toolkit with XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda "
                   "(the folder holding bin/ptxas and nvvm/libdevice); the TensorFlow / JAX CUDA wheels "
                   "(tensorflow[and-cuda], jax[cuda12]) bring one.",
               causes=(("no-ptxas", "no CUDA toolkit compiler where XLA looks", ("TE601", "TE603")),), areas=("toolchain",),
               sources=({"url": "https://openxla.org/xla/flags_guidance",
                         "what": "XLA's flags: --xla_gpu_cuda_data_dir, the CUDA folder XLA searches for ptxas/libdevice"},
                        {"url": "https://github.com/tensorflow/tensorflow/blob/v2.11.0/tensorflow/compiler/xla/"
                                "stream_executor/gpu/asm_compiler.cc",
                         "what": "XLA runs ptxas and warns: \"You are using ptxas X, which is older than 11.1\""}))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"have": have, "need": need, "have_note": f" ({have})" if have else None, "ptx": m.group("ptx"),
                   "cur": m.group("cur")})


# setuptools 70 stopped exposing its vendored packaging as pkg_resources.packaging (pypa/setuptools#4385); torch's
# cpp_extension before 2.2 and other build scripts import it from there
_PKG_RESOURCES_PACKAGING = re.compile(r"cannot import name 'packaging' from 'pkg_resources'")
_CPP_EXTENSION_FRAME = re.compile(r"torch[/\\]utils[/\\]cpp_extension\.py")


def setuptools_without_pkg_resources_packaging(ent, text):
    """`from pkg_resources import packaging` under setuptools >= 70: setuptools below 70 brings it back (and a torch
    >= 2.2, whose cpp_extension no longer imports it, when the frame is torch's)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_PKG_RESOURCES_PACKAGING, tail)
    if m is None:
        return None
    in_torch = _CPP_EXTENSION_FRAME.search(tail) is not None
    sig = _sig("setuptools-without-pkg-resources-packaging", "toolchain",
               "setuptools 70+ no longer provides pkg_resources.packaging, which this code imports", 84,
               "setuptools 70.0 removed the `packaging` name from pkg_resources; code that imports it from there "
               "(torch.utils.cpp_extension before torch 2.2, and many setup.py files) fails at import.",
               fix=("Install a setuptools before 70 (`pip install \"setuptools<70\"`, e.g. 69.5.1) in this environment "
                    "(and in the build environment: `pip install --no-build-isolation` keeps it) " +
                    ("- or upgrade torch to 2.2 or newer, whose cpp_extension imports packaging directly." if in_torch
                     else "- or upgrade the package whose code imports it to a release that imports `packaging` "
                          "itself.")),
               causes=(("setuptools", "setuptools >= 70 without pkg_resources.packaging", ()),),
               areas=("toolchain", "python"),
               sources=({"url": "https://github.com/pypa/setuptools/issues/4385",
                         "what": "setuptools 70.0.0 removes 'packaging' from pkg_resources"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# pip's summaries of a source build that failed, each naming the distribution: "Failed building wheel for X",
# "Running setup.py install for X ... error", the "Encountered error while trying to install package. ╰─> X" box,
# "ERROR: Could not build wheels for X", "Failed to build X", and the old "Command ... failed with error code 1 in
# /tmp/pip-install-abc/X/"
_BUILD_FAILED = re.compile(
    r"[Ff]ailed building wheel for (?P<a>[\w.-]{2,60})|Running setup\.py install for (?P<b>[\w.-]{2,60}) \.\.\. error|"
    r"Encountered error while trying to install package\.\s{0,12}(?:╰─>|\\->|->|>)\s{0,4}(?P<c>[\w.-]{2,60})|"
    r"Could not build wheels for (?P<d>[\w.-]{2,60})|Failed to build (?P<e>[\w.-]{2,60})(?=\s|$)|"
    r"failed with error code \d{1,3} in \S{0,200}?pip-(?:install|req-build|build)-?\w{0,20}[/\\](?P<f>[\w.-]{2,60})")
# the setup.py of flash-attn, mamba-ssm, causal-conv1d and apex defines bare_metal_version only when it finds nvcc
# (CUDA_HOME): its NameError is a build without a CUDA toolkit
_NO_TOOLKIT_NAME = re.compile(r"name ['\"]bare_metal_version['\"] is not defined")
_PIP_INSTALL = re.compile(r"pip3? install (?:-\S{1,40} ){0,4}['\"]?(?P<pkg>[A-Za-z][\w.-]{1,60})")


def _extension_distribution(name: str | None) -> str | None:
    if not name:
        return None
    key = name.lower().replace("-", "_").split("==")[0]
    dists = compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS
    if key in dists:
        return dists[key]
    norm = key.replace("_", "-")
    if norm in set(dists.values()) or compiled_modules.prebuilt_index(norm):
        return norm
    return None


def torch_extension_build_failed(ent, text):
    """A torch extension (a distribution whose compiled part is built against the installed torch) that pip failed to
    build from source, when the text shows pip's summary and no compiler error: its prebuilt wheel for this torch and
    CUDA, or the three things building it needs (the installed torch visible to the build, a C++ compiler, the CUDA
    toolkit of torch's CUDA).  Compiler errors, missing headers and nvcc's refusals have rules of their own."""
    if any(b["what"] == "compile" or (b["what"] == "tool" and b.get("tool") not in ("pip-build", "cpp_extension"))
           for b in ent.builds):
        return None  # the compiler's (or a tool's) own error says more: the reading of the build answers
    tail = text[-CONTEXT_TAIL:]
    no_toolkit = _NO_TOOLKIT_NAME.search(tail)
    m, pkg = None, None
    # the last summary line naming a torch extension (pip's "Failed to build installable wheels for some ... projects
    # (flash_attn)" names the word "installable" first)
    if any(k in tail for k in ("ailed", "setup.py", "Could not build", "Encountered error")):
        for cand in _BUILD_FAILED.finditer(tail):
            named = _extension_distribution(next(g for g in cand.groups() if g))
            if named is not None:
                m, pkg = cand, named
    if pkg is None and no_toolkit:
        named = last_match(_PIP_INSTALL, tail)
        pkg = _extension_distribution(named.group("pkg") if named else None) or compiled_modules.extension_named_in(tail)
        m = no_toolkit
    if pkg is None:
        return None
    index = compiled_modules.prebuilt_index(pkg)
    known = compiled_modules.source_build(pkg)
    build = known["command"] if known else "`pip install --no-build-isolation --no-cache-dir " + pkg + "`"
    page = known["page"] if known else None
    wheel = ("`pip install " + pkg + " -f " + index["url"].format(torch="<TORCH>", torch_mm="<TORCH>", cu="<CUDA>") +
             "`, with torch's version for <TORCH> and its CUDA tag (cu121, cpu) for <CUDA>, as its install page says"
             if index else "its release page or install page lists the wheels per torch and CUDA version")
    sig = _sig("torch-extension-build-failed", "toolchain",
               "building {pkg} from source failed (it compiles against the installed torch)", 62,
               "{pkg} compiles its C++/CUDA part against the installed torch when pip builds it from source, and "
               "that build failed; pip's summary hides the cause, which is the first `error:` line above it." +
               (" Its setup.py left bare_metal_version undefined: it found no CUDA toolkit (nvcc, CUDA_HOME)."
                if no_toolkit else ""),
               fix=("Install a prebuilt {pkg} wheel for your torch, CUDA and Python instead (" + wheel + "). To build "
                    "it: " + build if not page else "{pkg} is built from its repository (" + page + "): " + build) + " (--no-build-isolation: pip's isolated build environment lacks the installed "
                   "torch, or pulls another one), with a C++ compiler (Linux: build-essential / gcc-c++; Windows: the "
                   "Visual Studio Build Tools' C++ workload; macOS: the Xcode command-line tools) and, for its CUDA "
                   "part, a CUDA toolkit of torch's CUDA version with CUDA_HOME pointing at it (nvcc on PATH); then "
                   "read the log's first `error:` line if it still fails.",
               causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601", "TE603")),)
               if no_toolkit else (), areas=("toolchain", "extension"),
               sources=(({"url": index["source"], "what": f"{pkg}'s prebuilt wheels per torch and CUDA"},)
                        if index else ()) + (SOURCES["ext"],
                        {"url": "https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-no-build-isolation",
                         "what": "pip's --no-build-isolation: build against the packages already installed"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"pkg": pkg})


# pip's (and uv's) stages that run a package's build code in an isolated environment of its own (PEP 517), and a
# module the build code imports that only the user's environment has
_ISOLATED_STAGE = re.compile(r"Getting requirements to build (?:wheel|editable)|Preparing (?:editable )?metadata \((?:setup\.py|"
                             r"pyproject\.toml)\)|Installing build dependencies|setup\.py egg_info did not run|"
                             r"pip-build-env-|Failed to build `|\bbuild backend\b|Building wheel for [\w.-]{1,60} \(pyproject|"
                             # installing a source tree or a repository builds it (isolated by default)
                             r"\bpip3? install (?:-e |--editable |-U |--upgrade ){0,2}(?:\.{1,2}/?|git\+)(?=[\s`'\"]|$)")
_BUILD_IMPORTS = re.compile(r"No module named ['\"`]?(?P<mod>torch|packaging|numpy|psutil|wheel|ninja)['\"`]?")


def build_isolation_without_torch(ent, text):
    """A package's build code that imports torch (flash-attn, mamba-ssm, apex, most CUDA extensions) failing with "No
    module named 'torch'" inside pip's isolated build environment: the installed torch is invisible there whatever was
    installed first, so the fix is building without isolation (or a prebuilt wheel), never another torch."""
    tail = text[-CONTEXT_TAIL:]
    if "No module named" not in tail:
        return None
    imp = last_match(_BUILD_IMPORTS, tail)
    stage = last_match(_ISOLATED_STAGE, tail)
    if imp is None or stage is None:
        return None
    named = next((b["package"] for b in reversed(ent.builds) if b["what"] == "package"), None)
    if named is None:
        cmd = last_match(_PIP_INSTALL, tail)
        named = cmd.group("pkg") if cmd else None
    uv = "uv pip" in tail or "uv add" in tail or "uv sync" in tail or "Failed to build `" in tail
    sig = _sig("build-isolation-hides-torch", "toolchain",
               "{pkg|the package}'s build imports {mod}, which pip's isolated build environment does not have", 83,
               "pip (PEP 517) runs a package's build code in a fresh environment holding only the build requirements "
               "the package declares; {pkg|this package}'s setup imports {mod} without declaring it, so the build fails "
               "there even when {mod} is installed in your environment.",
               fix="Install {mod} (and the build's other needs: packaging, ninja, wheel) first, then build against the "
                   "installed packages: `pip install {pkg|PACKAGE} --no-build-isolation`" +
                   (" (uv: `uv pip install {pkg|PACKAGE} --no-build-isolation`, or `no-build-isolation-package = "
                    "[\"{pkg|PACKAGE}\"]` under [tool.uv] in pyproject.toml)" if uv else
                    " (uv: `uv pip install {pkg|PACKAGE} --no-build-isolation`)") +
                   "; or install its prebuilt wheel for your torch, CUDA and Python, which needs no build.",
               areas=("toolchain", "extension"),
               sources=({"url": "https://pip.pypa.io/en/stable/cli/pip_install/#cmdoption-no-build-isolation",
                         "what": "pip's --no-build-isolation: build against the packages already installed"},
                        {"url": "https://peps.python.org/pep-0517/#build-environment",
                         "what": "PEP 517: the build runs in an isolated environment with the declared requirements"}))
    return _match(sig, text, len(text) - len(tail) + imp.start(), {"pkg": named, "mod": imp.group("mod")})


# GNU ld / gold passing over a library whose format is not the link's (another CPU architecture, or 32- against
# 64-bit): "skipping incompatible /path/libX.so when searching for -lX" (bfd) / "while searching for X" (gold)
_LD_INCOMPATIBLE = re.compile(r"skipping incompatible (?P<lib>\S{1,300}?) (?:when|while) searching for (?:-l)?(?P<name>[\w.+-]{1,80})")
_ARCH_WORDS = re.compile(r"\b(?P<a>x86_64|aarch64|arm64|armv7l|ppc64le|i[3-6]86)\b")


def linker_skips_incompatible_library(ent, text):
    """The linker found the library it was asked for and passed over it because its format is not the one it links
    (another architecture, or another word size): the toolchain and the library were built for different machines,
    most often a cross toolchain (x86_64-conda-linux-gnu's ld on an aarch64 Jetson) or a 32-bit library in a 64-bit
    link."""
    m, at = last_in_tail(_LD_INCOMPATIBLE, text, "skipping incompatible")
    if m is None:
        return None
    archs = sorted({a.group("a") for a in _ARCH_WORDS.finditer(text[-CONTEXT_TAIL:])})
    sig = _sig("linker-skips-incompatible-library", "toolchain",
               "the linker skips {name}: the library is built for another architecture than the link", 84,
               "GNU ld found {lib} while searching for {name} and passed over it because its object format is not "
               "the one this link produces (another CPU architecture, or 32- against 64-bit){archs_note|}: the "
               "compiler/linker and the library were built for different machines.",
               fix="Link with the toolchain of the machine the library is for: compare `file {lib}` with the linker's "
                   "target (`ld --version`, `gcc -dumpmachine`, `uname -m`). A cross compiler that an environment "
                   "activated (conda's x86_64-conda-linux-gnu-* on an aarch64 board, CC/CXX/LD set by it) links for "
                   "its own target: use the native gcc/g++ (unset CC/CXX, or install the environment's compilers for "
                   "this architecture); a 32-bit library needs its 64-bit build.",
               areas=("toolchain",),
               sources=({"url": "https://sourceware.org/binutils/docs/ld/Options.html",
                         "what": "GNU ld: the library search for -l and the object formats it accepts"},))
    return _match(sig, text, at, {"lib": m.group("lib"), "name": m.group("name"),
                                  "archs_note": f" (the text names {', '.join(archs)})" if len(archs) > 1 else None})


# setuptools refusing the setup.py commands it deprecated (its message since setuptools 58.3 / 72): the project is
# installed with pip (a PEP 517 front end) instead
_SETUP_PY_DEPRECATED = re.compile(r"Please avoid running [\"'`]{0,2}setup\.py[\"'`]{0,2}(?: and [\"'`]{0,2}easy_install)?|"
                                  r"setup\.py install is deprecated|easy_install command is deprecated")


def setup_py_install_refused(ent, text):
    """setuptools' notice against `python setup.py install` / easy_install: the project installs with pip from its
    folder, which also builds it in the environment pip runs in."""
    m, at = last_in_tail(_SETUP_PY_DEPRECATED, text)
    if m is None:
        return None
    sig = _sig("setup-py-install-deprecated", "toolchain", "setuptools refuses `setup.py install`: install the project "
               "with pip", 70,
               "setuptools deprecated running setup.py directly (install, develop, easy_install) and says so instead of "
               "(or before) installing; standards-based front ends build and install the project.",
               fix="From the project's folder run `python -m pip install .` (add `--no-build-isolation` when its build "
                   "imports torch, so it builds against the installed one; `-e .` for a development install).",
               areas=("toolchain",),
               sources=({"url": "https://blog.ganssle.io/articles/2021/10/setup-py-deprecated.html",
                         "what": "why `setup.py install` is deprecated, and what replaces it"},
                        {"url": "https://github.com/pypa/setuptools/issues/917",
                         "what": "setuptools: deprecate easy_install and setup.py install"}))
    return _match(sig, text, at, {})


# CMake's Visual Studio generator finds no CUDA toolset: the CUDA toolkit's Visual Studio integration (its MSBuild
# files, installed by the CUDA installer into the Visual Studio present at the time) is missing for this Visual Studio
_NO_CUDA_TOOLSET = re.compile(r"No CUDA toolset found")
# Homebrew's refusals of the developer tools it needs (Library/Homebrew/os/mac/xcode.rb: "Your Xcode (X) is too
# outdated", "Your Command Line Tools are too outdated") and of a formula option it no longer has ("invalid option:
# --with-x": Homebrew removed formula options from homebrew-core in 2019)
_XCODE_OUTDATED = re.compile(r"Your (?:Xcode \((?P<xcode>[\d.]{1,12})\)|Command Line Tools(?: \(CLT\))?) (?:is|are) too outdated")
_BREW_OPTION = re.compile(r"invalid option: (?P<opt>--with(?:out)?-[\w+-]{1,60})")
# gcc refusing an -m option of another architecture: x86-only flags (-mf16c, -mavx2, -msse4.1, -mfma, -march=native on
# old ARM gcc) in a build for ARM (Jetson, Raspberry Pi, Apple silicon's Linux VMs)
_FOREIGN_M_FLAG = re.compile(r"unrecognized (?:command[- ]line|debug output level|command line) option [‘'`\"]?"
                             r"(?P<flag>-m(?:f16c|avx\w{0,12}|sse[\d.]{0,4}\w{0,4}|fma4?|bmi2?|popcnt|lzcnt|pclmul|aes|"
                             r"sha|rdrnd|xsave\w{0,4}|tune=[\w-]{1,20}|arch=(?:x86-64[\w-]{0,8}|haswell|skylake\w{0,10}|"
                             r"znver\d|core-avx2|corei7\w{0,8}|sandybridge|ivybridge|broadwell|icelake\w{0,10})))")


def windows_cuda_toolset_missing(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NO_CUDA_TOOLSET, tail)
    if m is None:
        return None
    sig = _sig("cmake-no-cuda-toolset", "toolchain", "CMake finds no CUDA toolset for Visual Studio", 84,
               "With a Visual Studio generator CMake compiles CUDA through the CUDA toolkit's Visual Studio integration "
               "(its MSBuild .props/.targets files). They are missing for this Visual Studio: no CUDA toolkit is "
               "installed, or it was installed before this Visual Studio (the integration goes only into the "
               "Visual Studio versions present at the time).",
               fix="Install a CUDA toolkit (nvcc) of the version torch was built with (`python -c \"import torch; "
                   "print(torch.version.cuda)\"`) after Visual Studio, or rerun its installer and select Visual Studio "
                   "Integration (or copy the files from its extras\\visual_studio_integration\\MSBuildExtensions folder "
                   "into Visual Studio's BuildCustomizations folder); with CMake, -T cuda=<toolkit path> or the Ninja "
                   "generator with CUDA on PATH avoids the integration.",
               causes=(("no-nvcc", "no CUDA toolkit (nvcc) to compile the extension", ("TE601",)),), areas=("toolchain",),
               sources=({"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/index.html",
                         "what": "CUDA on Windows: the installer's Visual Studio integration"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


def homebrew_refuses(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_XCODE_OUTDATED, tail)
    if m is not None:
        sig = _sig("homebrew-xcode-outdated", "toolchain", "Homebrew refuses the installed Xcode / Command Line Tools as too old",
                   82, "Homebrew builds and installs with the macOS developer tools and refuses versions older than its "
                   "minimum for this macOS (Xcode {xcode|installed}).",
                   fix="Update Xcode from the App Store (or download it from developer.apple.com) and the Command Line "
                       "Tools (`sudo rm -rf /Library/Developer/CommandLineTools && xcode-select --install`), then run "
                       "the install again; do not downgrade Xcode for a build.",
                   causes=(), areas=("toolchain",), sources=({"url": "https://docs.brew.sh/Installation",
                                                              "what": "Homebrew's requirements: Command Line Tools or Xcode"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"xcode": m.group("xcode")})
    m = last_match(_BREW_OPTION, tail)
    if m is None or not re.search(r"\bbrew\b|[Hh]omebrew|install-deps", tail):
        return None
    sig = _sig("homebrew-option-removed", "toolchain", "Homebrew has no formula option {opt}", 80,
               "Homebrew removed options from its core formulae (2019): `brew install <formula> {opt}` now fails. Old "
               "install scripts (Lua Torch's install-deps, others) still pass them.",
               fix="Run the brew command without {opt} (edit the install script: the formula's default build is what "
                   "Homebrew offers; a variant needs a tap that keeps it or a build from source).",
               causes=(), areas=("toolchain",), sources=({"url": "https://docs.brew.sh/FAQ",
                                                          "what": "Homebrew: formula options are no longer supported"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"opt": m.group("opt")})


def foreign_arch_compiler_flag(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_FOREIGN_M_FLAG, tail)
    if m is None:
        return None
    sig = _sig("x86-flag-on-arm", "toolchain", "the build passes an x86-only compiler flag ({flag}) to an ARM compiler", 85,
               "gcc for ARM (aarch64: Jetson, Raspberry Pi, Graviton, Apple silicon's Linux) does not know {flag}, an "
               "option for x86 CPUs: the project's build files add it unconditionally.",
               fix="Remove {flag} from the build on ARM (the CMakeLists.txt / setup.py / Makefile that adds it: guard it "
                   "with a check of the processor, e.g. CMAKE_SYSTEM_PROCESSOR matching x86_64, or drop it), or use the "
                   "project's ARM/Jetson instructions or branch, then rebuild from a clean build folder.",
               causes=(), areas=("toolchain",), sources=({"url": "https://gcc.gnu.org/onlinedocs/gcc/AArch64-Options.html",
                                                          "what": "gcc's options for AArch64 (no x86 -m flags)"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"flag": m.group("flag")})


# torch.utils.cpp_extension's own bounds on the host compiler per CUDA version (CUDA_GCC_VERSIONS / CUDA_CLANG_VERSIONS,
# checked before a build): the compiler found and the range this CUDA accepts
_COMPILER_BOUNDS = re.compile(r"The current installed version of (?P<cc>[\w+.-]{1,40}) \((?P<ver>[\d.]{1,20})\) is "
                              r"(?P<dir>less|greater) than the (?:minimum|maximum) required version by CUDA "
                              r"(?P<cuda>\d{1,2}\.\d{1,2})[^\n]{0,200}?\((?P<bounds>>=[\d.]{1,12}, <[\d.]{1,12})\)")
# cpp_extension's check of TORCH_CUDA_ARCH_LIST against the architectures this torch knows
_UNKNOWN_ARCH = re.compile(r"Unknown CUDA arch \((?P<arch>[^)\n]{1,40})\) or GPU not supported")


def cpp_extension_compiler_bounds(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_COMPILER_BOUNDS, tail)
    if m is None:
        return None
    caps = {k: m.group(k) for k in ("cc", "ver", "cuda", "bounds")}
    caps["side"] = "newer" if m.group("dir") == "greater" else "older"
    sig = _sig("host-compiler-outside-cuda-bounds", "toolchain",
               "{cc} {ver} is {side} than CUDA {cuda} accepts ({bounds})", 86,
               "torch.utils.cpp_extension checks the host compiler against the range nvcc of CUDA {cuda} supports before "
               "it builds: {cc} {ver} is outside {bounds}.",
               fix="Build with a {cc} in {bounds}: install one (Debian/Ubuntu: `sudo apt-get install g++-N`; conda: "
                   "`conda install -c conda-forge gxx_linux-64=N`) and point the build at it (`export CC=gcc-N "
                   "CXX=g++-N`, and NVCC_CCBIN for nvcc), or use a CUDA toolkit new enough for {cc} {ver} (matching "
                   "torch's CUDA major) as CUDA_HOME.",
               causes=(("host-compiler", "the host C++ compiler is outside the range this nvcc accepts", ("TE605",)),),
               areas=("toolchain",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html",
                                               "what": "the host compilers each CUDA release supports"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


def cuda_arch_unknown_to_torch(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_UNKNOWN_ARCH, tail)
    if m is None:
        return None
    sig = _sig("cuda-arch-unknown-to-torch", "toolchain",
               "this torch's extension builder does not know the architecture {arch}", 84,
               "torch.utils.cpp_extension turns TORCH_CUDA_ARCH_LIST (or, when it is unset, the visible GPUs' "
               "capabilities) into nvcc flags and knows only the architectures of its own release: {arch} is newer than "
               "the installed torch (or mistyped in TORCH_CUDA_ARCH_LIST).",
               fix="Set TORCH_CUDA_ARCH_LIST to architectures this torch knows (e.g. \"8.0;8.6;9.0\"; `python -c \"import "
                   "torch; print(torch.cuda.get_arch_list())\"` lists its own), or upgrade torch (in a CUDA build that "
                   "supports the GPU) so that its builder knows {arch}; a GPU newer than the torch release needs that "
                   "upgrade anyway.",
               causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("toolchain", "gpu"), sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"arch": m.group("arch")})


# an object file a build step expected and nvcc never wrote ("src/x.cu.o: No such file or directory"): the nvcc
# command before it failed (often silently, from a script's os.system): nvcc's own error is what to read
_MISSING_CU_OBJECT = re.compile(r"(?P<obj>[\w./\\-]{0,200}\.cu(?:da)?\.o(?:bj)?)\b[:'\"]?\s{0,4}(?:No such file or directory|"
                                r"[Nn]ot found|cannot find|does not exist)")
# nvcc refusing an option the build passes: the toolkit is older than the build expects (torch's ninja build passes
# --generate-dependencies-with-compile, which nvcc knows from CUDA 10.2)
_NVCC_UNKNOWN_OPTION = re.compile(r"nvcc fatal\s{0,4}:\s{0,4}Unknown option '?(?P<opt>-{1,2}[\w-]{2,60})'?")
# nvcc options by the CUDA release whose nvcc first documents them (the nvcc manual of each release)
_NVCC_OPTION_SINCE = {"--threads": "11.2", "-t": "11.2", "--generate-dependencies-with-compile": "10.2"}


def nvcc_output_missing(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NVCC_UNKNOWN_OPTION, tail) if "Unknown option" in tail else None
    if m is not None and _NVCC_OPTION_SINCE.get(m.group("opt")):
        since = _NVCC_OPTION_SINCE[m.group("opt")]
        sig = _sig("nvcc-older-than-build", "toolchain", "nvcc does not know {opt}, an option of CUDA {since}: the "
                   "toolkit is older than the build expects", 84,
                   "nvcc's {opt} arrived with CUDA {since}; the nvcc that ran (the one on PATH / at CUDA_HOME) is "
                   "older, while the build (its Makefile, CMake file or torch's extension builder) is written for "
                   "CUDA {since} or newer.",
                   fix="Build with a CUDA toolkit of {since} or newer (for a torch extension, the version torch was "
                       "built with: `python -c \"import torch; print(torch.version.cuda)\"`), pointing PATH and "
                       "CUDA_HOME at it so that `nvcc --version` prints it; or build the project's release made for "
                       "your toolkit (for NVIDIA's cuda-samples, `git checkout` the tag of your CUDA version, e.g. "
                       "v11.1).",
                   causes=(("nvcc-major", "nvcc's CUDA version differs from torch's", ("TE602",)),),
                   areas=("toolchain",),
                   sources=(SOURCES["ext"],
                            {"url": "https://docs.nvidia.com/cuda/archive/11.2.0/cuda-compiler-driver-nvcc/index.html",
                             "what": "nvcc 11.2: --threads (-t), the first release to document it"}))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"opt": m.group("opt"), "since": since})
    if m is not None:
        sig = _sig("nvcc-older-than-build", "toolchain", "nvcc does not know the option {opt}: the CUDA toolkit is older "
                   "than the build expects", 84,
                   "The build passes nvcc {opt}, an option of a newer CUDA toolkit than the one it runs (the nvcc on PATH / "
                   "at CUDA_HOME); torch's extension builder passes the options of the CUDA torch was built with.",
                   fix="Build with a CUDA toolkit of the version torch was built with (`python -c \"import torch; "
                       "print(torch.version.cuda)\"`): install it and point CUDA_HOME (and PATH) at it, so that `nvcc "
                       "--version` prints that release.",
                   causes=(("nvcc-major", "nvcc's CUDA version differs from torch's", ("TE602",)),),
                   areas=("toolchain",), sources=(SOURCES["ext"],))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"opt": m.group("opt")})
    m = last_match(_MISSING_CU_OBJECT, tail) if (".cu.o" in tail or ".cuda.o" in tail) else None
    if m is None:
        return None
    sig = _sig("nvcc-output-missing", "toolchain", "the object file nvcc should have written ({obj}) does not exist", 74,
               "A later build step wants {obj}, the output of compiling a .cu file: the nvcc command before it failed "
               "(nvcc not on PATH, or no host compiler it supports), and the build script went on without stopping.",
               fix="Run the nvcc command of the build script by hand to see its own error: `nvcc --version` must work "
                   "(the CUDA toolkit's bin on PATH), and nvcc needs a host gcc/g++ it supports (point it at one with "
                   "-ccbin / --compiler-bindir, or NVCC_CCBIN); then rebuild.",
               causes=(("no-nvcc", "no CUDA toolkit (nvcc) to compile the extension", ("TE601",)),), areas=("toolchain",),
               sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"obj": m.group("obj").rsplit("/", 1)[-1]})


# A source build's own words for "no CUDA toolkit where I look", each from the build system that prints it:
#   CuPy's setup (cupy_setup_build.py): "*** WARNING: nvcc not in path." / "Cannot link libraries: [...'cuda'...]"
#   a setup.py that joins CUDA_HOME (torch.utils.cpp_extension's, None without a toolkit) to a path: TypeError
#   Bazel's cuda_configure (TensorFlow, JAX, XLA source builds): "Could not find any cuda.h matching version '12.0'"
_NO_TOOLKIT_WORDS = re.compile(
    r"(?P<cupy>WARNING: nvcc not in path|Please set path to nvcc|WARNING: Cannot link libraries: \[[^\]\n]{0,160}'cuda(?:rt)?'"
    r"[^\]\n]{0,160}\])|"
    r"(?P<none>(?:get_cuda_bare_metal_version\(CUDA_HOME\)|cuda_dir \+ ['\"]/bin/nvcc['\"]|CUDA_HOME \+ ['\"]|"
    r"os\.path\.join\(CUDA_HOME)[\s\S]{0,800}?TypeError: (?:unsupported operand type\(s\) for \+: 'NoneType' and 'str'|"
    r"expected str, bytes or os\.PathLike object, not NoneType))|"
    r"(?P<bazel>Could not find any (?P<file>cuda\.h|cudnn\.h|cublas_api\.h|nvcc|libcudart\S{0,20}|cupti\.h) matching "
    r"version '{1,2}(?P<version>[\d.]{0,10})'{1,2})")
_CUPY_SOURCES = ({"url": "https://docs.cupy.dev/en/stable/install.html",
                  "what": "CuPy: the prebuilt wheels (cupy-cuda11x, cupy-cuda12x) need no toolkit; `pip install cupy` "
                          "builds from source and needs the CUDA toolkit (nvcc, CUDA_PATH)"},)
_BAZEL_SOURCES = ({"url": "https://www.tensorflow.org/install/source",
                   "what": "building TensorFlow from source: the CUDA toolkit and cuDNN versions and paths configure asks "
                           "for (TF_CUDA_VERSION, TF_CUDA_PATHS)"},
                  {"url": "https://docs.jax.dev/en/latest/developer.html",
                   "what": "building jaxlib from source: the CUDA/cuDNN it is built against"})


def build_finds_no_toolkit(ent, text):
    """A source build that says in its own words that it found no CUDA toolkit: the fix is the toolkit where the
    build looks, or a prebuilt wheel that needs none (never a reinstall of torch)."""
    tail = text[-CONTEXT_TAIL:]
    if not any(k in tail for k in ("nvcc", "Cannot link libraries", "NoneType", "matching version")):
        return None
    m = last_match(_NO_TOOLKIT_WORDS, tail)
    if m is None:
        return None
    at = len(text) - len(tail) + m.start()
    if m.group("cupy"):
        sig = _sig("cupy-source-build-without-toolkit", "toolchain",
                   "pip is building CuPy from source and finds no CUDA toolkit", 85,
                   "`pip install cupy` builds CuPy from its source distribution, which needs the CUDA toolkit: nvcc on "
                   "PATH and the CUDA libraries where the linker looks (CUDA_PATH, LDFLAGS). It found none, so it cannot "
                   "build CUDA support. The prebuilt wheels carry everything but the driver.",
                   fix="Install the prebuilt wheel for your CUDA major instead of the source package: `pip uninstall -y "
                       "cupy` then `pip install cupy-cuda12x` (CUDA 12; cupy-cuda11x for CUDA 11; the driver is all it "
                       "needs). To build from source, install the CUDA toolkit and put it on PATH with CUDA_PATH set "
                       "(`export CUDA_PATH=/usr/local/cuda; export PATH=$CUDA_PATH/bin:$PATH`).",
                   causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601", "TE603")),),
                   areas=("toolchain",), sources=_CUPY_SOURCES)
        return _match(sig, text, at, {})
    if m.group("bazel"):
        caps = {"file": m.group("file"), "version": m.group("version")}
        sig = _sig("bazel-cuda-configure-no-toolkit", "toolchain",
                   "the source build finds no {file} of CUDA {version|the configured version}", 84,
                   "Bazel's cuda_configure (building TensorFlow, jaxlib or XLA from source) looks for {file} of the "
                   "configured CUDA version {version|} under the configured toolkit paths and found none: that version "
                   "of the toolkit (or cuDNN) is not installed there.",
                   fix="Install the CUDA toolkit (and cuDNN) of the version the build is configured for, or configure the "
                       "build for the toolkit you have: TF_CUDA_VERSION / TF_CUDNN_VERSION and TF_CUDA_PATHS (TensorFlow's "
                       "./configure), or jaxlib's build.py --cuda_version / --cuda_path. A prebuilt wheel (`pip install "
                       "tensorflow[and-cuda]`, `pip install \"jax[cuda12]\"`) needs no toolkit at all.",
                   causes=(("toolkit", "no CUDA toolkit of that version where the build looks", ("TE601",)),),
                   areas=("toolchain",), sources=_BAZEL_SOURCES)
        return _match(sig, text, at, caps)
    sig = _sig("cuda-home-none-in-setup", "toolchain",
               "the package's setup.py found no CUDA toolkit (CUDA_HOME is None)", 85,
               "The package's setup.py builds its CUDA part with the toolkit torch.utils.cpp_extension finds (CUDA_HOME): "
               "with no toolkit (no CUDA_HOME or CUDA_PATH, no nvcc on PATH, no /usr/local/cuda) that is None, and joining "
               "it to a path fails before anything compiles. The torch wheel runs without a toolkit; compiling needs one.",
               fix="Install the CUDA toolkit of torch's CUDA version (`python -c \"import torch; print(torch.version.cuda)\"`) "
                   "and set CUDA_HOME to it (Linux: `export CUDA_HOME=/usr/local/cuda-X.Y`; Windows: `set CUDA_HOME=C:\\"
                   "Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y`) with its nvcc on PATH, in the shell that "
                   "runs pip; or install a prebuilt wheel of the package, or its Python-only build, so nothing compiles.",
               causes=(("toolkit", "no CUDA toolkit (nvcc) where the build looks", ("TE601", "TE603")),),
               areas=("toolchain",), sources=(SOURCES["ext"],))
    return _match(sig, text, at, {})


# A library's own check of a companion package's version ("Requires Flash-Attention version >=2.7.1,<=2.8.0 but got
# 2.8.0post2", xformers' ops/fmha/flash.py): the range is the library's, the version the one installed
_REQUIRES_RANGE = re.compile(r"\b[Rr]equires? (?P<name>[A-Za-z][\w.-]{1,40}) version (?P<spec>(?:[<>=!~]=?\s?\d[\w.*+]*"
                             r"\s?,?\s?){1,4}?) ?but (?:got|found|have|is) (?:version )?(?P<got>\d[\w.+-]*?)\.?(?=\s|$|[,;)])")
# a project's display name and its distribution's name on PyPI, where they differ
_DIST_NAMES = {"flash-attention": "flash-attn", "flashattention": "flash-attn", "pytorch": "torch",
               "xformers": "xformers", "triton": "triton"}


def companion_version_range(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "version" not in tail:
        return None
    m = last_match(_REQUIRES_RANGE, tail)
    if m is None:
        return None
    spec, got = re.sub(r"\s+", "", m.group("spec")).rstrip(","), m.group("got")
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet  # noqa: PLC0415
        from packaging.version import InvalidVersion, Version  # noqa: PLC0415
        inside = Version(got) in SpecifierSet(spec)
    except ImportError:
        inside = False
    except (InvalidSpecifier, InvalidVersion):
        return None
    if inside:
        return None  # the message is not a refusal of this version
    name = m.group("name")
    dist = _DIST_NAMES.get(name.lower(), name.lower())
    caps = {"name": name, "dist": dist, "spec": spec, "got": got, "requirement": dist + spec}
    sig = _sig("companion-version-out-of-range", "toolchain",
               "{name} {got} is outside the range this library requires ({spec})", 80,
               "A library checks the version of a companion package it calls into and refuses {name} {got}: it was "
               "built and tested against {name} {spec}. The companion was upgraded (or installed) apart from it.",
               fix="Install {dist} within the range: `pip install {requirement}` (for a compiled {dist}, the wheel of "
                   "that version built for your torch and CUDA), or upgrade the library that checks to a release that "
                   "accepts {dist} {got}.",
               causes=(("companion-release", "a companion package of another release than the library expects", ()),),
               areas=("torch",), sources=({"url": "https://packaging.python.org/en/latest/specifications/version-specifiers/",
                                           "what": "version specifiers: what a range like >=2.7.1,<=2.8.0 admits"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# A package's operator that is not registered ("No such operator xformers_flash::flash_fwd", "operator
# mmcv::nms does not exist") where the text's build command set a variable that leaves a part out of the build:
# the part was never compiled, whatever torch is installed
_OP_MISSING = re.compile(r"No such operator (?P<ns>[a-z][a-z0-9_]{1,40})::\w{1,60}|operator (?P<ns2>[a-z][a-z0-9_]{1,40})::"
                         r"\w{1,60} does not exist")
_PART_OFF = re.compile(r"\b(?P<var>[A-Z][A-Z0-9]{1,20}(?:_[A-Z0-9]{1,20}){0,3}_(?:DISABLE|SKIP|NO)(?:_[A-Z0-9]{1,20}){1,4})"
                       r"=['\"]?(?:1|ON|TRUE|true|yes)\b|\b(?P<var0>(?:[A-Z][A-Z0-9]{1,20}_){0,2}BUILD(?:_[A-Z0-9]{1,20}){1,4})"
                       r"=['\"]?(?:0|OFF|FALSE|false|no)\b")


def build_option_left_out(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "operator" not in tail or "=" not in tail:
        return None
    op = last_match(_OP_MISSING, tail)
    if op is None:
        return None
    off = [x for x in _PART_OFF.finditer(tail)]
    if not off:
        return None
    ns = op.group("ns") or op.group("ns2")
    # the setting that names the operator's part (XFORMERS_DISABLE_FLASH_ATTN for xformers_flash), else the last one
    words = set(re.split(r"_+", ns.lower()))
    named = [x for x in off if words & set((x.group("var") or x.group("var0")).lower().split("_")) - {"disable", "build",
                                                                                                      "skip", "no"}]
    x = (named or off)[-1]
    var = x.group("var") or x.group("var0")
    sig = _sig("build-option-left-part-out", "toolchain",
               "{ns}'s operators were left out of the build ({var})", 86,
               "The operator {ns}::... is registered by a part of the package that its build compiles only when asked: "
               "the build command here set {var}, which leaves that part out, so the operator does not exist in the "
               "installed package whatever torch is installed.",
               fix="Build the package again without {var} (unset it, or set it to the value that builds that part), with "
                   "the same command otherwise; or install the package's prebuilt wheel for your torch and CUDA, which "
                   "includes the part.",
               causes=(), areas=("toolchain", "extension"), sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + op.start(), {"ns": ns, "var": var})


# xformers' import-time notice when Triton is missing or of another version: its optional Triton kernels are off, the
# rest works (xformers/__init__.py, "A matching Triton is not available, some optimizations will not be enabled")
_TRITON_NOTICE = re.compile(r"A matching Triton is not available, some optimizations will not be enabled")
# what would make it more than a notice: an error line after it that is not about importing triton
_ERROR_LINE = re.compile(r"(?m)^[ \t]{0,12}(?:[\w.]{0,80}(?:Error|Exception)|CUDA error)\b[^\n]{0,300}")


def optional_kernels_notice(ent, text):
    m, at = last_in_tail(_TRITON_NOTICE, text, "matching Triton")
    if m is None:
        return None
    rest = text[at:at + 65536]
    if any("triton" not in e.group(0).lower() for e in _ERROR_LINE.finditer(rest)) or \
            re.search(r"Cannot find a working triton installation|BackendCompilerFailed", rest):
        return None
    sig = _sig("optional-triton-kernels-off", "not-environment",
               "xformers' notice: its optional Triton kernels are off (nothing failed)", 86,
               "xformers prints this at import when Triton is missing (Windows, macOS) or not the version it pairs "
               "with: it turns off its few Triton-based kernels and uses its other ones. The program runs; the "
               "\"Error caught was\" line is the reason for the notice, not a failure.",
               look_at="Nothing needs installing. Only if you want those kernels: on Linux the triton version your torch "
                       "requires, on Windows the community triton-windows build matching torch.",
               causes=(), areas=("torch",),
               sources=({"url": "https://github.com/facebookresearch/xformers/blob/main/xformers/__init__.py",
                         "what": "xformers: the Triton availability check and its notice"},))
    return _match(sig, text, at, {})


# a package's own failure message that names the version to install ("Please make sure to install triton==3.3.0.
# Other versions may not work!")
_ASKS_PIN = re.compile(r"(?:[Pp]lease |[Yy]ou (?:must|need to|should) )?(?:make sure (?:to|you) |ensure (?:that )?(?:you )?)?"
                       r"install (?P<dist>[A-Za-z][\w.-]{1,40})==(?P<ver>\d{1,6}(?:\.[0-9A-Za-z+]{1,12}){0,5})(?![\w])")
_FAILED_NEAR = re.compile(r"(?i)exception|error|failed|not supported|cannot|could not")


def package_asks_for_pin(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "install " not in tail or "==" not in tail:
        return None
    m = last_match(_ASKS_PIN, tail)
    if m is None or m.group(0).startswith("install") and not re.search(r"(?i)(?:please|make sure|must|need|ensure)",
                                                                       tail[max(0, m.start() - 40):m.start()]):
        return None
    before = tail[max(0, m.start() - 600):m.start()]
    if not _FAILED_NEAR.search(before) or re.search(r"(?m)^\s*\$?\s*pip3? install", tail[max(0, m.start() - 20):m.end()]):
        return None  # a command someone ran, or advice with no failure: not the package's own refusal
    dist, ver = m.group("dist"), m.group("ver")
    caps = {"dist": dist, "ver": ver, "requirement": dist + "==" + ver}
    sig = _sig("package-asks-for-pin", "toolchain", "the package asks for {dist}=={ver}", 80,
               "The failing package says which version of {dist} it works with ({ver}); the one installed is another, "
               "so the part of it that uses {dist} does not load.",
               fix="Install the version it names: `pip install {requirement}` (for triton, the version the installed torch "
                   "pairs with is the one to keep: if they differ, install the torch release that pairs with "
                   "{dist} {ver}), then rerun.",
               causes=(("companion-release", "a companion package of another release than the library expects", ()),),
               areas=("torch",), sources=({"url": "https://packaging.python.org/en/latest/specifications/version-specifiers/",
                                           "what": "version specifiers: == pins one release"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# ld linking a shared object (a Python extension) from a static archive compiled without position-independent code:
# "relocation R_X86_64_PC32 against symbol `ff_pw_9' can not be used when making a shared object; recompile with
# -fPIC", with the archive member named as libavcodec.a(vc1dsp_mmx.o)
_NO_PIC = re.compile(r"relocation R_[A-Z0-9_]{3,30} against [^\n]{0,200}?can ?not be used when making a (?:shared|PIE) "
                     r"object;? recompile with -fPIC")
_ARCHIVE = re.compile(r"(?P<lib>lib[\w.+-]{1,60})\.a\((?P<obj>[\w.+-]{1,80})\)")
# the projects whose static archives users most often link into extensions, and how each builds its shared libraries
_SHARED_BUILD = (
    (re.compile(r"libav(?:codec|format|util|filter|device)|libsw(?:scale|resample)|libpostproc"), "FFmpeg",
     "configure FFmpeg with --enable-shared (and --enable-pic), or install the distribution's development packages "
     "(`sudo apt-get install libavcodec-dev libavformat-dev libavutil-dev libswscale-dev`), which ship the shared "
     "libraries"),
    (re.compile(r"libpython\d"), "Python",
     "use a Python built with --enable-shared (pyenv: `PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install <version>`; "
     "distribution and conda Pythons are), or link the extension without libpython as setuptools does"),
)


def static_library_without_pic(ent, text):
    m, at = last_in_tail(_NO_PIC, text, "-fPIC")
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    arch = None
    for a in _ARCHIVE.finditer(tail[max(0, m.start() - 400):m.end()]):  # m is a match on the tail
        arch = a
    lib = arch.group("lib") if arch else None
    project, how = next(((p, h) for pat, p, h in _SHARED_BUILD if lib and pat.match(lib)), (None, None))
    caps = {"lib": (lib + ".a") if lib else None, "project": project}
    sig = _sig("static-library-without-pic", "toolchain",
               "{lib|a static library} was compiled without -fPIC and cannot go into a shared object", 82,
               "The link builds a shared object (a Python extension is one) and pulls code from {lib|a static archive} "
               "whose objects were compiled without position-independent code: the linker cannot relocate them into a "
               "shared library. The compiler and the package are fine; that archive is the wrong kind of library.",
               fix=("Link against {project}'s shared libraries instead: " + how + "; remove the static build from the "
                    "library path (/usr/local/lib here) if it is found first, then rebuild." if project else
                    "Build {lib|that library} as a shared library, or rebuild the static one with -fPIC (CFLAGS=-fPIC "
                    "CXXFLAGS=-fPIC, or CMake's -DCMAKE_POSITION_INDEPENDENT_CODE=ON), then rebuild this package."),
               areas=("toolchain",), sources=({"url": "https://gcc.gnu.org/onlinedocs/gcc/Code-Gen-Options.html",
                                               "what": "GCC -fPIC: position-independent code for shared libraries"},))
    return _match(sig, text, at, caps)


# CMake's FindPackageHandleStandardArgs: the package, the variables it could not fill, or a version below the minimum
_CMAKE_NOT_FOUND = re.compile(r"Could NOT find (?P<pkg>[A-Za-z][\w.+-]{0,40})(?:\s{0,2}\(missing:\s{0,2}(?P<missing>[^)\n]{1,200})\)|"
                              r":\s{0,2}Found unsuitable version \\?\"(?P<have>[\d.]{1,20})\\?\",? but required is at\s{0,4}"
                              r"least \\?\"(?P<need>[\d.]{1,20}))")


def cmake_find_module_failed(ent, text):
    m, at = last_in_tail(_CMAKE_NOT_FOUND, text, "Could NOT find")
    if m is None:
        return None
    pkg = m.group("pkg")
    tf = re.search(r"(?i)tensorflow", text[-CONTEXT_TAIL:]) is not None
    caps = {"pkg": pkg, "missing": (m.group("missing") or "").strip()[:120] or None, "have": m.group("have"),
            "need": m.group("need")}
    if m.group("need"):
        what = "CMake found {pkg} {have}; the build needs {need} or newer"
        why = ("The build's find_package({pkg} {need}) found {pkg} {have}, older than it requires: another, older "
               "install is the one CMake finds first (a system toolkit in /usr, an old CUDA_HOME).")
        fix = ("Install {pkg} {need} or newer and point CMake at it (`-D{pkg}_ROOT=<its prefix>` or CMAKE_PREFIX_PATH; for "
               "CUDA, `-DCUDAToolkit_ROOT=/usr/local/cuda-<version>` or CUDA_HOME and PATH naming that toolkit's nvcc), or "
               "use a release of the project made for {pkg} {have}.")
    else:
        what = "CMake cannot find {pkg} ({missing|its files})"
        why = ("The build's find_package({pkg}) looked for the files it needs ({missing|the package's headers and "
               "libraries}) and found none where it searches: {pkg} is not installed with its development files "
               "(headers, .so links), or is installed where CMake does not look (a tar archive, a custom prefix).")
        fix = ("Install {pkg}'s development files (the -dev / -devel package, or the toolkit that ships them) or point "
               "CMake at them: `-D{pkg}_ROOT=<its prefix>` or CMAKE_PREFIX_PATH, or set the variables it names "
               "({missing|the X_INCLUDE_DIR / X_LIBRARY it lists}) with -D on the cmake command line; then configure again "
               "from a clean build folder.")
    if pkg in ("CUDA", "CUDAToolkit", "CUDNN", "cuDNN", "CUDNN_LIBRARY"):
        # CMake's two CUDA find modules read their own variables, and nvcc's place on PATH
        fix = ("Install the CUDA toolkit with its development files (cuda_runtime.h, libcudart; cuDNN's headers for "
               "cuDNN) and point CMake at one toolkit: `-DCUDAToolkit_ROOT=/usr/local/cuda-<version>` (FindCUDAToolkit, "
               "CMake 3.17+), `-DCUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda-<version>` (the older FindCUDA), or CUDA_HOME with "
               "its bin/nvcc first on PATH; then configure again from a clean build folder." +
               (" The version must be {need} or newer." if m.group("need") else ""))
    sig = _sig("cmake-find-module-failed", "tensorflow" if tf else "toolchain", what, 74, why, fix=fix,
               areas=("toolchain",),
               sources=({"url": "https://cmake.org/cmake/help/latest/module/FindPackageHandleStandardArgs.html",
                         "what": "CMake: \"Could NOT find X (missing: ...)\" and the version check"},))
    return _match(sig, text, at, caps)


# make naming a file of a CUDA install that is not there: a build file (a dependency's CMake package config, the
# project's cache) recorded another CUDA's paths
_MAKE_NO_RULE_CUDA = re.compile(r"No rule to make target '(?P<path>/[^'\n]{0,120}cuda-(?P<ver>\d{1,2}\.\d{1,2})/[^'\n]{1,200})'")


def make_no_rule_for_cuda_file(ent, text):
    m, at = last_in_tail(_MAKE_NO_RULE_CUDA, text, "No rule to make target")
    if m is None:
        return None
    sig = _sig("make-no-rule-for-cuda-file", "toolchain",
               "the build wants a file of CUDA {ver}, which is not installed here", 80,
               "make was told to link {path}, a file of a CUDA {ver} install this machine does not have: a build file "
               "recorded it (the project's CMake cache from another toolkit, or a dependency's package config such as "
               "OpenCV's, built against CUDA {ver}).",
               fix="Configure the build again from a clean folder (delete build/ and CMakeCache.txt); if a dependency "
                   "names that CUDA (grep -r 'cuda-{ver}' in its cmake config files), rebuild or reinstall that dependency "
                   "against the CUDA installed, or install CUDA {ver} beside it.",
               areas=("toolchain",),
               sources=({"url": "https://cmake.org/cmake/help/latest/manual/cmake-packages.7.html",
                         "what": "CMake package configuration files record the paths a package was built with"},))
    return _match(sig, text, at, {"path": m.group("path"), "ver": m.group("ver")})


# nvcc runs its front end over the host compiler's own C++ headers; a libstdc++ (gcc's include/c++/<version>/) that this
# nvcc's front end was not made for fails inside those headers ("bits/basic_string.tcc: In instantiation of ...",
# "std_function.h: error: parameter packs not expanded"), before any line of the package's source
_HOST_STDLIB_FAIL = re.compile(r"(?P<path>/[^\s:]{0,200}/include/c\+\+/(?P<gcc>\d{1,2}(?:\.\d{1,2}){0,2})/(?:bits/)?"
                               r"[\w.]{1,40}(?:\.tcc|\.h)?)(?::\d{1,6}(?::\d{1,4})?)?: (?:In instantiation of|error)")
_NVCC_CUDA = re.compile(r"/cuda[-/]?(?P<v>\d{1,2}\.\d)(?:/bin)?/nvcc\b|\bnvcc\b")
_CUDA_LINUX_GUIDE = {"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/index.html#host-compiler-support-policy",
                     "what": "the host compilers each CUDA release supports"}


def nvcc_fails_in_host_stdlib(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "/include/c++/" not in tail or "nvcc" not in tail:
        return None
    m = last_match(_HOST_STDLIB_FAIL, tail)
    if m is None:
        return None
    cuda = next((x.group("v") for x in _NVCC_CUDA.finditer(tail) if x.group("v")), None)
    sig = _sig("nvcc-fails-in-host-stdlib", "toolchain",
               "nvcc{cuda_note|} fails inside gcc {gcc}'s own C++ headers", 80,
               "The errors are in the host compiler's standard library (gcc {gcc}'s libstdc++ headers), not in the "
               "package's code: nvcc{cuda_note|} passes those headers through its own C++ front end, and this gcc's "
               "headers use what that front end does not accept. The CUDA release and the host gcc do not go together.",
               fix="Build with an older gcc that this CUDA release supports (CUDA's installation guide lists them; "
                   "often the gcc of the distribution the CUDA release was made for): install it and point the build "
                   "at it (`export CC=gcc-7 CXX=g++-7` and `NVCC_CCBIN=g++-7`, or `-ccbin`), or use a newer CUDA "
                   "toolkit that supports this gcc (and torch's build of it).",
               areas=("toolchain",), sources=(_CUDA_LINUX_GUIDE, SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"gcc": m.group("gcc"), "cuda_note": f" (CUDA {cuda})" if cuda else None})


# cudarc's build script (the CUDA bindings under candle and other Rust crates) maps the toolkit's version (CUDA_VERSION,
# 1000 x major + 10 x minor) to the bindings it ships; a toolkit newer than the cudarc release stops the build
_CUDARC = re.compile(r"Unsupported cuda toolkit version: `?(?P<v>\d{5})`?")
_CUDARC_SRC = {"url": "https://github.com/coreylowman/cudarc",
               "what": "cudarc: its cuda-XXXXX features, one per CUDA toolkit release it has bindings for"}


def cudarc_toolkit_unknown(ent, text):
    m, at = last_in_tail(_CUDARC, text, "Unsupported cuda toolkit version")
    if m is None:
        return None
    v = int(m.group("v"))
    cuda = f"{v // 1000}.{v % 1000 // 10}"
    sig = _sig("cudarc-toolkit-unknown", "toolchain", "this cudarc release does not know CUDA {cuda}", 84,
               "cudarc (the CUDA bindings under candle and other Rust crates) ships bindings for the CUDA releases it "
               "knows and reads the installed toolkit's version at build time; CUDA {cuda} is newer than this cudarc "
               "release.",
               fix="Upgrade cudarc to a release that has CUDA {cuda} (`cargo update -p cudarc`, or the newer release of the "
                   "crate that depends on it, e.g. candle), or build against a toolkit it knows (CUDA_ROOT / CUDA_PATH at "
                   "an older toolkit, or cudarc's cuda-XXXXX feature of one), then `cargo build` again.",
               areas=("toolchain",), sources=(_CUDARC_SRC,))
    return _match(sig, text, at, {"cuda": cuda})
