"""Layer rules for CUDA extensions' sources and setup scripts meeting the toolkit and torch they are built with, read
from the compilers' and the packages' own words (3D vision's extensions among them).

    cuda_library_member_missing  nvcc's 'namespace "thrust" has no member "X"' (cub, cooperative_groups alike) ->
                         toolchain: a header newer toolkits no longer include on the way (#include <thrust/X.h>, or the
                         project's fixed release); arch for a cooperative-groups member of newer GPUs (labeled_partition:
                         compute capability 7.0)
    msvc_stl_rejects_cuda  MSVC's STL1002 "Unexpected compiler version, expected CUDA N or newer" -> toolchain: a CUDA
                         of that release, or an older MSVC toolset
    extension_without_gpu_code  "Not compiled with GPU support" (PyTorch3D, detectron2 and their kin) -> toolchain: the
                         package's extension was built without CUDA (FORCE_CUDA=1, a toolkit at build time)
    tcnn_unknown_compute_capability  tiny-cuda-nn's "Unknown compute capability" -> arch: TCNN_CUDA_ARCHITECTURES, or a
                         CUDA torch at build time
    package_refuses_torch_version  "X requires PyTorch >=A, <=B, but found version C" (a range with a ceiling) ->
                         toolchain: a torch in that range, or X's release for this torch
    cuda_library_api_removed  a cuSPARSE/cuBLAS/cuSOLVER/cuFFT function the headers do not declare (nvcc's "identifier
                         is undefined", gcc's "was not declared", MSVC's C3861/C2065) -> toolchain: the toolkit the
                         source was written for, or the library's current API
    cuda_runtime_api_removed  the runtime's own removed API (cudaPointerAttributes' isManaged/memoryType in CUDA 11.0,
                         texture and surface references in CUDA 12.0) -> toolchain: the last toolkit with it, or the
                         current API in the source
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import SOURCES, _match, _sig, last_in_tail

# the Thrust and CUB names a source most often used without including their own header (they came in through
# another header in CUDA 11's Thrust): name -> the header that declares it (Thrust's API reference)
_THRUST_HEADERS = {"sequence": "thrust/sequence.h", "for_each": "thrust/for_each.h", "transform": "thrust/transform.h",
                   "sort": "thrust/sort.h", "sort_by_key": "thrust/sort.h", "stable_sort": "thrust/sort.h",
                   "device_vector": "thrust/device_vector.h", "host_vector": "thrust/host_vector.h",
                   "reduce": "thrust/reduce.h", "fill": "thrust/fill.h", "copy": "thrust/copy.h",
                   "count": "thrust/count.h", "unique": "thrust/unique.h", "inclusive_scan": "thrust/scan.h",
                   "exclusive_scan": "thrust/scan.h", "remove_if": "thrust/remove.h", "tabulate": "thrust/tabulate.h",
                   "gather": "thrust/gather.h", "scatter": "thrust/scatter.h", "lower_bound": "thrust/binary_search.h",
                   "upper_bound": "thrust/binary_search.h", "device": "thrust/execution_policy.h",
                   "device_ptr": "thrust/device_ptr.h", "make_zip_iterator": "thrust/iterator/zip_iterator.h",
                   "counting_iterator": "thrust/iterator/counting_iterator.h", "max_element": "thrust/extrema.h",
                   "min_element": "thrust/extrema.h"}
# cooperative groups' members that exist only when compiling for newer GPUs (CUDA C++ Programming Guide, Cooperative
# Groups: labeled_partition needs compute capability 7.0)
_CG_ARCH = {"labeled_partition": "7.0"}
_MEMBER = re.compile(r"namespace \"?(?P<ns>thrust|cub|cooperative_groups|cg)\"? has no member \"?(?P<name>\w{1,60})\"?|"
                     r"['‘`](?P<name2>\w{1,60})['’`] is not a member of ['‘`](?P<ns2>thrust|cub|cooperative_groups)['’`]")
_TARGET = re.compile(r"(?:compute|sm)_(?P<cc>\d{2,3})\b")


def cuda_library_member_missing(ent, text):
    m, at = last_in_tail(_MEMBER, text)
    if m is None:
        return None
    ns = m.group("ns") or m.group("ns2")
    name = m.group("name") or m.group("name2")
    ns = "cooperative_groups" if ns == "cg" else ns
    if ns == "cooperative_groups" and name in _CG_ARCH:
        need = _CG_ARCH[name]
        targets = sorted({t.group("cc") for t in _TARGET.finditer(text[max(0, at - 20000):at + 2000])})
        built = ", ".join(f"sm_{t}" for t in targets) if targets else None
        sig = _sig("cuda-member-needs-newer-gpu", "arch",
                   "cooperative_groups::{name} exists only for compute capability {need} and newer{built_note|}", 84,
                   "CUDA's cooperative_groups header declares {name} only when the code is compiled for GPUs of "
                   "compute capability {need} or newer; this build compiles for an older architecture{built_note|}, "
                   "usually because the build detected an older GPU or TORCH_CUDA_ARCH_LIST names one.",
                   fix="This code needs a GPU of compute capability {need} or newer: build for it "
                       "(`TORCH_CUDA_ARCH_LIST=\"7.0;7.5;8.0;8.6\"` or your GPU's, then reinstall the package with "
                       "--no-build-isolation); a GPU below {need} cannot run it, so use a release of the project (or "
                       "another one) that supports it, or a newer GPU.",
                   areas=("toolchain", "gpu"),
                   sources=({"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cooperative-groups",
                             "what": "cooperative groups: labeled_partition needs compute capability 7.0"},))
        return _match(sig, text, at, {"name": name, "need": need,
                                      "built_note": f" (here {built})" if built else None})
    header = _THRUST_HEADERS.get(name) if ns == "thrust" else ("cub/cub.cuh" if ns == "cub" else "cooperative_groups.h")
    sig = _sig("cuda-library-member-missing", "toolchain",
               "{ns}::{name} is not declared: the source misses a header this CUDA toolkit no longer includes on the way",
               82,
               "The source uses {ns}::{name} without including the header that declares it; older CUDA toolkits' "
               "{ns} headers included it through other headers, the toolkit in use (CUDA 12's CCCL) does not, so "
               "sources written for the older one stop compiling. Nothing is missing from the installation.",
               fix="Update the project (`git pull` and `git submodule update --init --recursive`: such projects fixed "
                   "it by adding the include), or add `#include <{header|the header that declares it}>` to the file "
                   "that fails; building with the older CUDA toolkit the project was written for also works.",
               areas=("toolchain",),
               sources=({"url": "https://nvidia.github.io/cccl/thrust/api.html",
                         "what": "Thrust's API reference: the header that declares each algorithm and container"},))
    return _match(sig, text, at, {"ns": ns, "name": name, "header": header})


# microsoft/STL's stl/inc/yvals_core.h: the STL stops a compiler older than it supports
_STL_VERSION = re.compile(r"STL100(?P<n>[12]): Unexpected compiler version, expected (?P<want>CUDA [\d.]{2,6}|"
                          r"MSVC [\d.]{2,8}|Clang [\d.]{2,6})[^\n\"]{0,20}")


def msvc_stl_rejects_cuda(ent, text):
    m, at = last_in_tail(_STL_VERSION, text, "Unexpected compiler version")
    if m is None:
        return None
    want = m.group("want")
    cuda = want.startswith("CUDA")
    sig = _sig("msvc-stl-rejects-compiler", "toolchain",
               "MSVC's standard library refuses this compiler: it expects {want} or newer", 86,
               "The Visual C++ standard library headers check the compiler that includes them (error STL100{n2}) and stop "
               "one older than their release supports: " + ("this nvcc's CUDA is older than the MSVC toolset's STL "
                                                            "accepts (a newer Visual Studio updated the STL)." if cuda
                                                            else "the compiler is older than that STL accepts."),
               fix=("Pair them: install CUDA {want_num} or newer (a CUDA of the version torch was built with or "
                    "newer), or build with an older MSVC toolset whose STL accepts this CUDA (Visual Studio 2019, or "
                    "an older 2022 toolset: `vcvarsall.bat x64 -vcvars_ver=14.3x` in the build shell). Defining "
                    "_ALLOW_COMPILER_AND_STL_VERSION_MISMATCH skips the check, unsupported.") if cuda else
                   "Update the compiler to {want} or newer, or use the older Visual Studio toolset that matches it.",
               areas=("toolchain",),
               sources=({"url": "https://github.com/microsoft/STL/blob/main/stl/inc/yvals_core.h",
                         "what": "STL1001/STL1002: the MSVC and CUDA versions the STL accepts"},))
    return _match(sig, text, at, {"want": want, "want_num": want.split(" ", 1)[1], "n2": m.group("n")})


# the package's own words ("Not compiled with GPU support", "nnDetection was not build with GPU support"), or its
# compiled backend module lacking the CUDA half of its functions (torchsparse.backend.hash_cuda: setup.py compiled
# only the *_cpu sources)
_NO_GPU_SUPPORT = re.compile(r"Not compiled with GPU support|(?P<named>[A-Za-z][\w.-]{1,40}) (?:was|is) not buil[dt] with "
                             r"(?:GPU|CUDA) support|module '(?P<mod>[A-Za-z_][\w]{0,40})\.(?:[\w.]{1,60})' has no attribute "
                             r"'(?P<attr>\w{0,40}_cuda(?:_\w{1,40})?)'")


def extension_without_gpu_code(ent, text):
    m, at = last_in_tail(_NO_GPU_SUPPORT, text)
    if m is None or m.group("mod") == "torch":  # torch's own CUDA functions missing: its CPU build (packaging.py)
        return None
    # the package whose installed files the traceback passes through last before the message (the extractor's owners)
    pkg = next((p["distribution"] for p in reversed(ent.paths) if p["at"] < at and p.get("distribution")
                and p["distribution"] != "torch"), None) or m.group("mod") or m.group("named")
    sig = _sig("extension-built-without-cuda", "toolchain",
               "{pkg|the package}'s compiled extension was built without its CUDA code", 84,
               "{pkg|The package}'s C++ extension raises this when a CUDA tensor reaches an op whose GPU kernels it was "
               "not built with: the build found no CUDA toolkit or no CUDA torch (torch.cuda.is_available() False at "
               "build time, as in a build-isolated or GPU-less build), or its nvcc step failed and the build went on "
               "CPU-only.",
               fix="Rebuild it with its CUDA code: a CUDA toolkit of torch's CUDA version (CUDA_HOME set, nvcc on PATH) "
                   "and FORCE_CUDA=1 for a build without a visible GPU, then `pip install --no-build-isolation "
                   "--no-cache-dir --force-reinstall {pkg|<package>}` (from source: `FORCE_CUDA=1 pip install -e .`), "
                   "reading the build log for nvcc errors; or install its prebuilt CUDA wheel for your torch and CUDA.",
               areas=("toolchain", "extension"), sources=(SOURCES["ext"],))
    return _match(sig, text, at, {"pkg": pkg})


# NVlabs/tiny-cuda-nn bindings/torch/setup.py
_TCNN_ARCH = re.compile(r"Unknown compute capability\.\s{0,4}Specify the target")


def tcnn_unknown_compute_capability(ent, text):
    m, at = last_in_tail(_TCNN_ARCH, text, "Unknown compute capability")
    if m is None:
        return None
    sig = _sig("tcnn-unknown-compute-capability", "arch",
               "tiny-cuda-nn's build cannot tell which GPU architecture to compile for", 86,
               "tiny-cuda-nn's setup.py compiles for the compute capability in TCNN_CUDA_ARCHITECTURES, or else the one "
               "torch reports for the GPU; here neither: the variable is unset and the torch the build sees has no "
               "CUDA (a CPU build, pip's isolated build environment, or no GPU visible while building).",
               fix="Set the GPU's compute capability without the dot before building, e.g. `export "
                   "TCNN_CUDA_ARCHITECTURES=86` (Windows: `set TCNN_CUDA_ARCHITECTURES=86`; RTX 30xx 86, RTX 40xx 89, "
                   "A100 80, H100 90), and install with the CUDA torch visible: `pip install --no-build-isolation "
                   "git+https://github.com/NVlabs/tiny-cuda-nn/#subdirectory=bindings/torch`.",
               areas=("toolchain", "gpu"),
               sources=({"url": "https://github.com/NVlabs/tiny-cuda-nn#pytorch-extension",
                         "what": "tiny-cuda-nn's PyTorch extension: TCNN_CUDA_ARCHITECTURES"},))
    return _match(sig, text, at, {})


_REQUIRES_TORCH = re.compile(r"(?P<pkg>[A-Za-z][\w.-]{1,40}) requires (?:PyTorch|torch|pytorch) (?:version )?"
                             r"(?P<spec>[<>=!~]{1,2}\s?[\d.]{1,12}(?:\s{0,2},\s{0,2}[<>=!~]{1,2}\s?[\d.]{1,12})?),? but "
                             r"(?:found|you have|got|the installed (?:one|version) is) (?:version |torch |PyTorch )?"
                             r"(?P<have>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?[\w.+]{0,20})")


def package_refuses_torch_version(ent, text):
    m, at = last_in_tail(_REQUIRES_TORCH, text, "requires")
    if m is None:
        return None
    pkg, spec, have = m.group("pkg"), re.sub(r"\s", "", m.group("spec")), m.group("have")
    if "<" not in spec:
        return None  # a floor alone: torch_release's rules read a torch older than the package needs
    kaolin = pkg.lower() == "kaolin"
    sig = _sig("package-refuses-torch-version", "toolchain", "{pkg} accepts torch {spec}; this torch is {have}", 84,
               "{pkg} checks the installed torch against the range its release was built and tested for ({spec}) and "
               "stops: {have} is outside it. Its compiled parts are made for those torch releases only.",
               fix="Either install a torch inside {pkg}'s range, in the CUDA build you use (`pip install "
                   "torch{spec} --index-url https://download.pytorch.org/whl/cuXYZ`, with the torchvision of that "
                   "release), or install the {pkg} release made for torch {have} (its install page lists which)." +
                   (" Kaolin's check can be skipped with IGNORE_TORCH_VER=1 at your own risk: its extensions are "
                    "then built against a torch it was not tested with." if kaolin else ""),
               areas=("torch", "extension"), sources=(SOURCES["torch_index"],))
    return _match(sig, text, at, {"pkg": pkg, "spec": spec, "have": have})


# a CUDA library's function the toolkit's headers do not declare, in each compiler's words (nvcc/EDG, gcc, MSVC):
# cuSPARSE's legacy API (csrmm, csrmm2, csrmv, gthr, sctr, ...) was removed in CUDA 11 and 12, cuBLAS's and cuSOLVER's
# in their turn; a source written against the older toolkit stops compiling
_LIB_IDENT = re.compile(r"identifier \"(?P<a>(?:cusparse|cublas|cusolver|cufft|curand|nvjpeg|nvrtc)\w{2,60})\" is undefined|"
                        r"['‘`](?P<b>(?:cusparse|cublas|cusolver|cufft|curand|nvjpeg|nvrtc)\w{2,60})['’`] was not declared|"
                        r"C3861:?\s{0,2}'(?P<c>(?:cusparse|cublas|cusolver|cufft|curand|nvjpeg|nvrtc)\w{2,60})': identifier "
                        r"not found|C2065:?\s{0,2}'(?P<d>(?:cusparse|cublas|cusolver|cufft|curand)\w{2,60})': undeclared "
                        r"identifier|['\t ](?P<e>(?:cusparse|cublas|cusolver|cufft|curand)\w{2,60})['\t ]{1,3}identifier "
                        r"not found")
_LIB_OF = {"cusparse": "cuSPARSE", "cublas": "cuBLAS", "cusolver": "cuSOLVER", "cufft": "cuFFT", "curand": "cuRAND",
           "nvjpeg": "nvJPEG", "nvrtc": "NVRTC"}


def cuda_library_api_removed(ent, text):
    m, at = last_in_tail(_LIB_IDENT, text)
    if m is None:
        return None
    name = next(g for g in m.groups() if g)
    lib = next(v for k, v in _LIB_OF.items() if name.startswith(k))
    sparse = lib == "cuSPARSE"
    sig = _sig("cuda-library-api-removed", "toolchain",
               "{name} is not declared by this CUDA toolkit's {lib} headers: the source uses a removed (or newer) API",
               84,
               "The source calls {name}, which the {lib} headers of the toolkit in use do not declare: CUDA's libraries "
               "remove deprecated functions in major releases" + (" (cuSPARSE's legacy routines such as csrmm, csrmm2, "
                                                                 "csrmv and csr2csc were removed in CUDA 11, gthr, sctr "
                                                                 "and the rest of the legacy API in CUDA 12, replaced by "
                                                                 "the generic API: cusparseSpMM, cusparseSpMV)"
                                                                 if sparse else "") +
               ", so a source written for an older toolkit stops compiling (or, for a newer function, needs a newer one).",
               fix="Build with the CUDA toolkit the source was written for (an older major, e.g. CUDA 10.2 for "
                   "cuSPARSE's legacy routines: CUDA_HOME and PATH at it), or use a newer release of the project that "
                   "moved to the current " + ("cuSPARSE API (its legacy routines were removed in CUDA 11 and CUDA 12; "
                                              "the generic API replaces them: cusparseSpMM, cusparseSpMV)" if sparse
                                              else "{lib} API") + "; the CUDA toolkit release notes list what each "
                   "release removed.",
               areas=("toolchain",),
               sources=({"url": "https://docs.nvidia.com/cuda/archive/11.0/cuda-toolkit-release-notes/index.html",
                         "what": "CUDA 11.0 release notes: cuSPARSE's removed legacy routines"},
                        {"url": "https://docs.nvidia.com/cuda/cusparse/index.html#deprecated-apis",
                         "what": "cuSPARSE: deprecated and removed APIs, the generic API that replaces them"}))
    return _match(sig, text, at, {"name": name, "lib": lib})


# the CUDA runtime's own API as major releases removed it: CUDA 11.0 dropped cudaPointerAttributes' memoryType and
# isManaged (its type field replaces both), CUDA 12.0 the texture and surface references (texture objects replace
# them); name -> (the CUDA that removed it, the older toolkit that still has it, what replaces it)
_RUNTIME_REMOVED = {
    "isManaged": ("11.0", "10.2", "attributes.type == cudaMemoryTypeManaged"),
    "memoryType": ("11.0", "10.2", "attributes.type (cudaMemoryTypeHost/Device/Managed)"),
    "cudaBindTexture": ("12.0", "11.8", "texture objects (cudaCreateTextureObject)"),
    "cudaBindTexture2D": ("12.0", "11.8", "texture objects (cudaCreateTextureObject)"),
    "cudaBindTextureToArray": ("12.0", "11.8", "texture objects (cudaCreateTextureObject)"),
    "cudaUnbindTexture": ("12.0", "11.8", "texture objects (cudaDestroyTextureObject)"),
    "cudaGetTextureReference": ("12.0", "11.8", "texture objects (cudaCreateTextureObject)"),
    "cudaBindSurfaceToArray": ("12.0", "11.8", "surface objects (cudaCreateSurfaceObject)"),
    "cudaGetSurfaceReference": ("12.0", "11.8", "surface objects (cudaCreateSurfaceObject)"),
}
_REMOVED_NAMES = "|".join(sorted(_RUNTIME_REMOVED, key=len, reverse=True))
# gcc: "'struct cudaPointerAttributes' has no member named 'isManaged'"; nvcc (EDG): 'class "cudaPointerAttributes" has
# no member "isManaged"'; the functions as each compiler reports an undeclared name
_RUNTIME_GONE = re.compile(r"cudaPointerAttributes['’\"]? has no member(?: named)? ['‘\"](?P<m>isManaged|memoryType)['’\"]|"
                           r"identifier \"(?P<a>" + _REMOVED_NAMES + r")\" is undefined|"
                           r"['‘`](?P<b>" + _REMOVED_NAMES + r")['’`] was not declared|"
                           r"C3861:?\s{0,2}'(?P<c>" + _REMOVED_NAMES + r")': identifier not found")


def cuda_runtime_api_removed(ent, text):
    m, at = last_in_tail(_RUNTIME_GONE, text)
    if m is None:
        return None
    name = next(g for g in m.groups() if g)
    gone, older, instead = _RUNTIME_REMOVED[name]
    sig = _sig("cuda-runtime-api-removed", "toolchain",
               "{name} was removed from the CUDA runtime in CUDA {gone}: the source was written for CUDA {older} or older",
               85,
               "The source uses {name}, which CUDA {gone} removed from the runtime API (" +
               ("cudaPointerAttributes keeps only its type field" if m.group("m") else
                "texture and surface references are gone; texture and surface objects replace them") +
               "), so it no longer compiles with this toolkit.",
               fix="Build it with CUDA {older} or older (install that toolkit; point CUDA_HOME and PATH at it), or patch "
                   "the source for the current API: " + instead + " in place of " + name + " (or a release of the "
                   "project that did).",
               areas=("toolchain",),
               sources=({"url": "https://docs.nvidia.com/cuda/archive/11.0/cuda-toolkit-release-notes/index.html",
                         "what": "CUDA 11.0 release notes: cudaPointerAttributes' memoryType and isManaged removed"},
                        {"url": "https://docs.nvidia.com/cuda/archive/12.0.0/cuda-toolkit-release-notes/index.html",
                         "what": "CUDA 12.0 release notes: texture and surface references removed from the runtime"}))
    return _match(sig, text, at, {"name": name, "gone": gone, "older": older})


# NVRTC links every program with its builtins library (libnvrtc-builtins.so.X.Y, nvrtc-builtins64_XY.dll), which must
# come from the same CUDA release as libnvrtc itself; one of another release gives "builtins: link error"
_NVRTC_BUILTINS = re.compile(r"builtins: link error(?:: (?P<what>[^\n]{1,60}))?")
_NVRTC_DOC = {"url": "https://docs.nvidia.com/cuda/nvrtc/index.html#versioning-scheme",
              "what": "NVRTC: libnvrtc and its nvrtc-builtins library are versioned together and loaded together"}


def nvrtc_builtins_of_another_cuda(ent, text):
    m, at = last_in_tail(_NVRTC_BUILTINS, text, "builtins: link error")
    if m is None:
        return None
    sig = _sig("nvrtc-builtins-mismatch", "libraries",
               "NVRTC loaded a builtins library of another CUDA release", 82,
               "Runtime compilation (NVRTC: OpenMM's CUDA platform, CuPy, torch's fusers) links each program with "
               "libnvrtc-builtins, which must come from the same CUDA release as the libnvrtc that loaded it; a "
               "\"builtins: link error\" means the loader found one of another release: two CUDA toolkits on the "
               "machine (one in /usr/local/cuda, one in the conda environment) and the library path mixing them.",
               fix="Use one CUDA toolkit for the program: point LD_LIBRARY_PATH (PATH on Windows) only at the toolkit "
                   "the program was built with, or remove the other (conda: the cudatoolkit / cuda-nvrtc of the "
                   "program's build in its environment, and no system CUDA lib64 ahead of it); `ldd` on libnvrtc and "
                   "`ls` its folder show which builtins it pairs with.",
               areas=("libraries",), sources=(_NVRTC_DOC,))
    return _match(sig, text, at, {})
