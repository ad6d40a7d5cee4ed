"""Layer rules for the macOS host, read from dyld's, the linker's and the MPS and Metal backends' own words.

    dyld_library_not_loaded  dyld's "Library not loaded: ....dylib" -> macos: that dylib's provider (libomp: Homebrew's
                         libomp, or the copy beside libtorch); "load command 0x80000034 is unknown" -> a binary built for
                         a newer macOS than this one
    openmp_runtime_not_linked  ld's undefined ___kmpc_* symbols -> toolchain: the OpenMP runtime (libomp) not linked
    mps_fallback_notice  torch's "not currently supported on the MPS backend and will fall back to run on the CPU" ->
                         not-environment: a performance notice
    metal_plugin_mismatch  libmetal_plugin.dylib wanting a TensorFlow symbol it lacks -> tensorflow: tensorflow-metal
                         and TensorFlow of releases its table pairs
    mps_bfloat16_refused  "BFloat16 is not supported on MPS", "MPS BFloat16 is only supported on MacOS 14 or newer"
                         -> macos: bfloat16 on the Apple GPU needs macOS 14 (and an Apple-silicon torch that has it);
                         float16 / float32 otherwise
    nvidia_library_on_macos  dyld's "dlopen(libnvidia-ml.so.1, N): image not found" (and the other NVIDIA libraries)
                         -> macos: macOS has no NVIDIA driver, NVML or CUDA
    metal_library_refused  Metal's shader libraries: one built for a newer macOS ("language version X, which is not
                         supported on this OS") -> macos; no default.metallib beside the program, no `metal` compiler
                         (Command Line Tools without Xcode) -> toolchain
    ggml_metal_refused   ggml's Metal backend (llama.cpp, whisper.cpp): an op or type it has no kernel for
                         (GGML_ASSERT "not implemented") -> not-environment; ggml_metal_init failing -> macos: a Mac
                         whose GPU the backend does not run on (a build without Metal)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_DYLD = {"url": "https://developer.apple.com/documentation/xcode/embedding-nonstandard-code-structures-in-a-bundle",
         "what": "dyld: @rpath, @loader_path and where a dylib is looked for"}
_LIBOMP = {"url": "https://formulae.brew.sh/formula/libomp",
           "what": "Homebrew's libomp: LLVM's OpenMP runtime for Apple clang"}

_NOT_LOADED = re.compile(r"Library not loaded: '?(?P<path>[^\s'\n]{0,200}?(?P<lib>lib[\w.+-]{1,60}?)(?:\.\d{1,4}){0,3}"
                         r"\.dylib)")
_CHAINED_FIXUPS = re.compile(r"load command 0x80000034 is unknown")


def dyld_library_not_loaded(ent, text):
    m, at = last_in_tail(_CHAINED_FIXUPS, text, "0x80000034")
    if m is not None:
        sig = _sig("binary-for-newer-macos", "macos",
                   "a library here was built for a newer macOS than this one (dyld cannot read its load commands)", 86,
                   "Load command 0x80000034 is LC_DYLD_CHAINED_FIXUPS, which binaries linked for a recent macOS "
                   "deployment target carry and older macOS loaders do not know: the wheel (or the dylib it bundles) "
                   "targets a newer macOS than the one running it.",
                   fix="Update macOS to a release the package supports, or install a release of the package built for "
                       "this macOS (an older wheel; the wheel's file name ends in macosx_<major>_<minor>_<arch>).",
                   areas=("platform",), sources=(_DYLD,))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_NOT_LOADED, text, "Library not loaded")
    if m is None:
        return None
    lib, path = m.group("lib"), m.group("path")
    omp = lib in ("libomp", "libiomp5", "libgomp")
    sig = _sig("dyld-library-not-loaded", "macos",
               "macOS could not load {lib}.dylib" + (" (the OpenMP runtime)" if omp else ""), 82,
               "dyld looked for {path} where the binary's install name and rpaths point and found no usable file. " +
               ("libtorch (and torch's wheel, in its .dylibs folder) links LLVM's OpenMP runtime, libomp.dylib; a "
                "LibTorch or package copied without it, or one linked against Homebrew's libomp on a Mac without it, "
                "cannot start." if omp else
                "The package that should ship it, or the system library it expects, is missing, moved, or was built "
                "for another architecture."),
               fix=("Put libomp.dylib where the rpath points: `brew install libomp` (then link or copy "
                    "$(brew --prefix libomp)/lib/libomp.dylib beside libtorch's libraries, e.g. libtorch/lib), or use "
                    "a torch/LibTorch download that bundles it; check with `otool -L` on the library that wants it."
                    if omp else
                    "Find who provides {lib}.dylib (`otool -L` on the binary that wants it shows the expected path): "
                    "install that package (Homebrew or the Python package's own wheel for this Mac's architecture), or "
                    "point DYLD_LIBRARY_PATH / the rpath at the folder that holds it."),
               areas=("platform",), sources=(_DYLD, _LIBOMP) if omp else (_DYLD,))
    return _match(sig, text, at, {"lib": lib, "path": path})


_KMPC = re.compile(r"Undefined symbols for architecture (?P<arch>\w{3,12}):\s{1,20}\"?___kmpc_\w{1,40}")


def openmp_runtime_not_linked(ent, text):
    m, at = last_in_tail(_KMPC, text, "___kmpc_")
    if m is None:
        return None
    sig = _sig("openmp-runtime-not-linked", "toolchain",
               "the OpenMP runtime is not linked ({arch}): undefined ___kmpc_* symbols", 84,
               "The objects were compiled with OpenMP (their parallel loops call the runtime's __kmpc_* functions) but "
               "the link did not include the OpenMP runtime; Apple's clang brings none, so libomp has to be named.",
               fix="Link LLVM's OpenMP runtime: `brew install libomp`, then add -L$(brew --prefix libomp)/lib -lomp to the "
                   "link (CMake: find_package(OpenMP) with OpenMP_ROOT=$(brew --prefix libomp)); or build without "
                   "OpenMP (USE_OPENMP=0 for torch's own build).",
               areas=("toolchain",), sources=(_LIBOMP,))
    return _match(sig, text, at, {"arch": m.group("arch")})


_MPS_FALLBACK = re.compile(r"The operator '(?P<op>[\w:.]{1,80})' is not currently supported on the MPS backend and will "
                           r"fall back to run on the CPU")


def mps_fallback_notice(ent, text):
    m, at = last_in_tail(_MPS_FALLBACK, text, "will fall back to run on the CPU")
    if m is None:
        return None
    sig = _sig("mps-fallback-notice", "not-environment",
               "{op} runs on the CPU: a notice that MPS has no kernel for it (slower, not an error)", 78,
               "With PYTORCH_ENABLE_MPS_FALLBACK=1 torch runs the operators that have no MPS kernel on the CPU and warns "
               "once per operator; results are right, the copies between the GPU and the CPU cost time.",
               look_at="Nothing is broken. If it is slow, see which call uses {op} (the line after the warning) and "
                       "avoid it on the 'mps' device, or follow the op's MPS support in newer torch releases.",
               areas=("program",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/mps_environment_variables.html",
                         "what": "PYTORCH_ENABLE_MPS_FALLBACK: CPU fallback for ops without an MPS kernel"},))
    return _match(sig, text, at, {"op": m.group("op")})


_METAL_PLUGIN = re.compile(r"libmetal_plugin\.dylib[^\n]{0,200}?Symbol not found: _?(?P<sym>\w{1,80})"
                           r"|Symbol not found: _?(?P<sym2>TF_\w{1,80})[^\n]{0,300}?libmetal_plugin")


def metal_plugin_mismatch(ent, text):
    m, at = last_in_tail(_METAL_PLUGIN, text, "libmetal_plugin")
    if m is None:
        return None
    sig = _sig("tensorflow-metal-plugin-mismatch", "tensorflow",
               "tensorflow-metal was built for another TensorFlow release ({sym} missing)", 86,
               "The Metal plugin (libmetal_plugin.dylib) is loaded by TensorFlow through its pluggable-device C API and "
               "calls functions of the TensorFlow release it was built against; the installed TensorFlow lacks {sym}.",
               fix="Install a tensorflow-metal and TensorFlow pair from tensorflow-metal's compatibility table "
                   "(https://pypi.org/project/tensorflow-metal/), e.g. pin TensorFlow to the release that table lists "
                   "for the installed tensorflow-metal, in one virtual environment.",
               areas=("tensorflow",),
               sources=({"url": "https://developer.apple.com/metal/tensorflow-plugin/",
                         "what": "Apple's tensorflow-metal plugin and the TensorFlow releases it supports"},))
    return _match(sig, text, at, {"sym": m.group("sym") or m.group("sym2")})


# dyld's dlopen failure in its own words ("dlopen(<name>, <mode>): image not found", later "... no such file") for a
# library of NVIDIA's Linux driver or CUDA: macOS ships none of them (NVIDIA's last macOS driver and CUDA 10.2 predate
# Apple silicon and macOS 11)
_DLOPEN_NVIDIA = re.compile(r"dlopen\((?P<lib>lib(?:nvidia-ml|cuda|cudart|cublas|cublasLt|cudnn|nvrtc|nccl|cufft|curand|"
                            r"cusparse|cusolver)[\w.-]{0,20}\.(?:so|dylib)[\w.]{0,8}), \d{1,4}\): (?:image not found|"
                            r"tried:|no such file)")


def nvidia_library_on_macos(ent, text):
    m, at = last_in_tail(_DLOPEN_NVIDIA, text, "dlopen(")
    if m is None:
        return None
    sig = _sig("nvidia-library-on-macos", "macos", "{lib} does not exist on macOS: it has no NVIDIA driver or CUDA", 84,
               "dlopen is macOS' dyld, asked for {lib}, a library of NVIDIA's driver or CUDA for Linux. macOS has no "
               "NVIDIA driver, NVML or CUDA (NVIDIA's last macOS driver and CUDA 10.2 ended before macOS 11 and Apple "
               "silicon), so any code that needs it cannot run on this Mac.",
               fix="On a Mac, skip the NVIDIA part: GPU monitoring through pynvml/NVML and CUDA paths have no macOS "
                   "counterpart (on Apple silicon, torch uses the GPU through MPS: `torch.device(\"mps\")`). For code "
                   "that needs CUDA, run it on a Linux or Windows machine with an NVIDIA GPU.",
               areas=("platform",),
               sources=({"url": "https://docs.nvidia.com/cuda/archive/10.2/cuda-toolkit-release-notes/index.html",
                         "what": "CUDA 10.2: the last release to support macOS"},
                        {"url": "https://developer.apple.com/metal/pytorch/",
                         "what": "Apple: PyTorch on the Mac's GPU through MPS"}))
    return _match(sig, text, at, {"lib": m.group("lib")})


# torch's MPS checks (aten/src/ATen/mps/EmptyTensor.cpp: TORCH_CHECK_TYPE(dtype != BFloat16 || macOS 14+, ...)) and the
# older releases' and libraries' wording of the same refusal
_MPS_BF16 = re.compile(r"(?i)\bbfloat16 is not supported on MPS\b|\bbfloat16 is only supported on macOS ?\d{2}")
_MPS_BF16_SRC = {"url": "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/mps/EmptyTensor.cpp",
                 "what": "TORCH_CHECK_TYPE: \"MPS BFloat16 is only supported on MacOS 14 or newer\"; float64 never"}
# the text itself gives a macOS version (15.3) that is new enough: then the Python runs as x86_64 (Rosetta) or torch misreads the version,
# which the catalogue's Rosetta reading says
_MACOS_NEW = re.compile(r"(?i)\bmac ?os(?: version)?(?: is|:)? (?:1[4-9]|2\d)\.\d{1,2}\b")


def mps_bfloat16_refused(ent, text):
    m, at = last_in_tail(_MPS_BF16, text)
    if m is None or _MACOS_NEW.search(text, max(0, len(text) - CONTEXT_TAIL)):
        return None
    sig = _sig("mps-bfloat16-refused", "macos", "bfloat16 on the Apple GPU (MPS) needs macOS 14 or newer", 84,
               "torch's MPS backend refuses bfloat16 tensors on macOS before 14 (Sonoma), where Metal Performance "
               "Shaders lack the type; float64 is never supported on MPS. Intel Macs (with AMD GPUs) cannot run a "
               "torch that has MPS bfloat16 at all: their last torch release is 2.2.2.",
               fix="Load the model in float16 or float32 on this Mac (e.g. `torch_dtype=torch.float16`, or the "
                   "program's fp16 / fp32 option, or mixed_precision=\"fp16\"); bfloat16 on the GPU needs Apple silicon "
                   "with macOS 14 or newer (`sw_vers`) and a current torch in an arm64 Python.",
               areas=("platform",), sources=(_MPS_BF16_SRC,))
    return _match(sig, text, at, {})


_METAL_DOC = {"url": "https://developer.apple.com/documentation/metal/shader_libraries/building_a_shader_library_by_precompiling_source_files",
              "what": "Metal shader libraries: compiling .metal sources with the metal tool into a .metallib, the default library"}
_METAL_OS = re.compile(r"this library is using language version (?P<v>\d{1,2}\.\d), which is not supported on this OS")
_METAL_NO_DEFAULT = re.compile(r"Failed to (?:find|load) the default (?:metal)?library|default\.metallib not found(?!, loading from source)")
_METAL_TOOL = re.compile(r"unable to find utility \W{0,2}metal\W{0,2}, not a developer tool or in PATH")


def metal_library_refused(ent, text):
    m, at = last_in_tail(_METAL_OS, text, "language version")
    if m is not None:
        sig = _sig("metal-library-newer-than-macos", "macos",
                   "the program's Metal library needs a newer macOS (Metal language {v})", 84,
                   "The program's precompiled Metal shaders (its .metallib) were built for Metal language {v}, which this "
                   "macOS release does not run: the build targets a newer macOS than the one installed.",
                   fix="Update macOS to a release with Metal language {v}, or use a build of the program made for this "
                       "macOS (its older release, or built from source here, whose metal compiler targets this system).",
                   areas=("platform",), sources=(_METAL_DOC,))
        return _match(sig, text, at, {"v": m.group("v")})
    m, at = last_in_tail(_METAL_TOOL, text, "unable to find utility")
    if m is not None:
        sig = _sig("metal-compiler-missing", "toolchain", "the build needs Apple's metal compiler, which is not installed",
                   84, "The build compiles Metal shaders with the `metal` tool, which comes with Xcode, not with the "
                   "Command Line Tools alone; xcrun finds none.",
                   fix="Install Xcode (App Store) and select it: `sudo xcode-select --switch "
                       "/Applications/Xcode.app/Contents/Developer`; with Xcode 26 or newer also `xcodebuild "
                       "-downloadComponent MetalToolchain`; check with `xcrun -sdk macosx metal --version`, then build "
                       "again (or install the package's prebuilt wheel).",
                   areas=("toolchain",), sources=(_METAL_DOC,))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_METAL_NO_DEFAULT, text)
    if m is None:
        return None
    sig = _sig("metal-default-library-missing", "toolchain", "the program's Metal library (default.metallib) is not found",
               80, "The program loads its compiled Metal shaders as the default library, a default.metallib in its "
               "bundle or beside the executable (or its embedded copy); there is none where it looks, so the build did "
               "not compile or copy it.",
               fix="Compile the .metal sources into default.metallib (`xcrun -sdk macosx metal -c kernels.metal -o "
                   "kernels.air && xcrun -sdk macosx metallib kernels.air -o default.metallib`) and put it beside the "
                   "executable, or build with the option that embeds it (llama.cpp/ggml: GGML_METAL_EMBED_LIBRARY=ON).",
               areas=("toolchain",), sources=(_METAL_DOC,))
    return _match(sig, text, at, {})


# ggml's Metal backend (ggml-metal.m): GGML_ASSERT(false && "not implemented") for an op or type it has no kernel for;
# ggml_metal_init() returning NULL on a Mac whose GPU the backend cannot use
_GGML_METAL_NI = re.compile(r"ggml-metal\.m:\d{1,6}: false && \W{0,2}not implemented|GGML_ASSERT\(false && \W{0,2}"
                            r"(?P<op>[A-Z][A-Z -]{2,40}) not implemented")
_GGML_METAL_INIT = re.compile(r"ggml_metal_init\(\) failed|ggml_metal_init: (?:error|failed)[^\n]{0,80}")
_LLAMA_BUILD = {"url": "https://github.com/ggml-org/llama.cpp/blob/master/docs/build.md#metal-build",
                "what": "llama.cpp's Metal build: on by default on macOS, off with GGML_METAL=OFF; -ngl 0 keeps layers on the CPU"}


def ggml_metal_refused(ent, text):
    m, at = last_in_tail(_GGML_METAL_NI, text, "not implemented")
    if m is not None and (m.group("op") is None or "metal" in text[-CONTEXT_TAIL:].lower()):
        sig = _sig("ggml-metal-not-implemented", "not-environment",
                   "ggml's Metal backend has no kernel for this operation or type", 80,
                   "ggml (under llama.cpp, whisper.cpp and their bindings) runs each operation of the model on the Apple "
                   "GPU through its Metal backend, which stops at an operation or quantization type it has no Metal "
                   "kernel for in this release. The installation is fine.",
                   look_at="Use a model file in a type the Metal backend runs (q4_0, q8_0, f16 in older releases), update "
                           "the program to a release that implements it, or keep those layers on the CPU (-ngl 0, or a "
                           "build with GGML_METAL=OFF).",
                   sources=(_LLAMA_BUILD,))
        return _match(sig, text, at, {})
    m, at = last_in_tail(_GGML_METAL_INIT, text, "ggml_metal_init")
    if m is None:
        return None
    if "loading from source" in text[-CONTEXT_TAIL:]:
        # no compiled default.metallib beside the library, and compiling its Metal source at start-up failed (a header
        # of the source tree, ggml-common.h, not where it looks): the build did not embed the shaders
        sig = _sig("ggml-metal-library-not-embedded", "toolchain",
                   "ggml's Metal shaders were neither compiled in nor compilable at start-up", 80,
                   "ggml's Metal backend found no default.metallib and tried to compile its Metal source when it started, "
                   "which failed (the source's headers are not installed beside it): the package was built without its "
                   "Metal library embedded.",
                   fix="Reinstall the package with the Metal library embedded: CMAKE_ARGS=\"-DGGML_METAL=ON "
                       "-DGGML_METAL_EMBED_LIBRARY=ON\" pip install --force-reinstall --no-cache-dir <package> (llama.cpp "
                       "itself: cmake -DGGML_METAL_EMBED_LIBRARY=ON).",
                   areas=("toolchain",), sources=(_LLAMA_BUILD,))
        return _match(sig, text, at, {})
    sig = _sig("ggml-metal-init-failed", "macos", "ggml's Metal backend could not start on this Mac", 78,
               "ggml's Metal backend (on by default in macOS builds of llama.cpp and whisper.cpp) could not initialise on "
               "this Mac's GPU: an Intel Mac's GPU without the Metal features it uses, or a macOS older than the "
               "release needs.",
               fix="Build without Metal (llama.cpp: `cmake -DGGML_METAL=OFF`; whisper.cpp's older Makefile: "
                   "WHISPER_NO_METAL=1) or run with no layers on the GPU (-ngl 0); on Apple silicon, update macOS.",
               areas=("platform",), sources=(_LLAMA_BUILD,))
    return _match(sig, text, at, {})
