"""The default answer: what `explain` says when no layer rule and no catalogue sentence recognises a text.  It is a
reading of the text's parts, not a known message, and it says so, with its confidence.

    read(text, ent) -> match.Match | None      (None: the text holds no part that says which layer it is)
    votes(text, ent) -> list[Vote]             every part's vote, for the explanation and for tests

Every kind of part votes for the layer that owns it (VOTERS: one function per kind; docs/explain.md has the table):

    abi_tags    GLIBC_/GLIBCXX_/CXXABI_ tag not found       c-runtime   the glibc / GCC the tag needs
    symbols     c10::/at::/torch:: (the torch ABI)          toolchain   the binary's package, built for another torch
                cuBLAS/cuSPARSE/NCCL/... symbol              libraries   that library's wheel, one version of it
    libraries   a missing soname/DLL, by its provider        the provider's layer (a CUDA wheel, the driver, the
                                                             C/C++ or Visual C++ runtime, torch, ROCm)
    built_for   "X was built for PyTorch A (you have B)"     toolchain (torch-build when B is +cpu)
    codes       a decoded error code                         its enumeration's layer, the layer rules' advice for it
    builds      a compiler's error, a failed build tool,      toolchain   the tool to provide, the package built
                the package pip builds
    archs       the newest sm_NN / compute_NN, gfxNNNN       arch / rocm
    memory      exhaustion in any allocator's words          not-environment
    program     a kernel's assertion; the program's data     not-environment
    reporters   the program reporting, a log line's source   its owner's layer (nvrtc: arch, modprobe: driver, ...)
    operators   a torch operator's namespace (pkg::op)       toolchain   that package's build for the installed torch
    tools       a compiler or build tool in an error line    toolchain
    versions    two versions of one thing set against each   that thing's layer (cuDNN, NumPy, the CUDA toolkit)
                other; torch +cpu                            torch-build
    pip         no version of a package satisfies            torch-build (torch) / tensorflow
    paths       the distribution owning the failing frames   its layer (tensorflow, numpy, nvidia-*, triton)
    components  a layer's own name in the final error lines  that layer (NumPy, cuDNN, NCCL, Docker, NVML, WSL, MPS)
    headers     a header the compiler cannot include         toolchain   its owner's remedy (knowledge/headers.py)
    modules     a package's private module not importable    toolchain   that package's build
    nvcc_arch   nvcc refusing a target it does not know      toolchain   a toolkit new enough for it
    shared_memory  /dev/shm, shared memory                   container   --shm-size / --ipc=host
    isa         instructions the CPU lacks (AVX, FMA, ...)   tensorflow / torch-build
    exceptions  the exception's class (and its module)       a few classes name a layer (OutOfMemoryError, CalledProcessError,
                                                             TensorFlow's errors_impl, DistBackendError, ModuleNotFoundError)
    platform    WSL, a container, a Mac, an AMD GPU          wsl / container / macos / rocm

A vote has a weight (how sure that part alone is) and a depth (how close to the root cause it is: 4 a missing tag,
symbol or library; 3 a code, a build's failure, a target; 2 an owner, a platform, a version; 1 an exception class).
The deepest vote decides which layers may win (a missing library under an ImportError is the library's, not the
exception's), and among those the layer with the largest total weight wins.  The fix is the winning part's: built
from the owning distribution or library (never a torch reinstall for a third-party package's file, never a
reinstall for an error that is not the environment's).  A text whose only parts are an exception class that names
no layer (ValueError, RuntimeError) is not read: it stays unrecognised."""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch_envcheck.explain.catalogue import Signature
from torch_envcheck.explain.layer_rules import SOURCES, code_advice, package_guess
from torch_envcheck.explain.match import Match, _line, last_match
from torch_envcheck.explain.voters_program import program_families
from torch_envcheck.explain.voters_tools import tool_flags
from torch_envcheck.knowledge import compiled_modules, gpu_generations, headers

SIGNATURE_PREFIX = "reading-"  # the answer's signature id: reading-<layer>
PRIORITY = 1                   # below every rule and sentence: it answers only when they do not


@dataclass(frozen=True)
class Vote:
    layer: str
    weight: float      # how sure this part alone is of its layer
    depth: int         # 4 root cause (tag, symbol, missing library) ... 1 an exception class
    kind: str          # the entity kind that voted
    what: str          # the part, as the answer quotes it
    at: int            # where in the text (a later part is nearer the final error)
    fix: str | None = None   # the fix this part implies, built from its owner
    source: dict | None = None  # where this part's meaning is documented (a code's header, a tag's table)


# where the deciding part's meaning is documented, by its kind (a code or a tag carries its own source)
_KIND_SOURCE = {"symbols": SOURCES["ext"], "libraries": SOURCES["ld"], "builds": SOURCES["ext"],
                "archs": {"url": "https://developer.nvidia.com/cuda-gpus", "what": "NVIDIA GPUs' compute capabilities"},
                "versions": SOURCES["torch_index"], "pip": SOURCES["torch_index"],
                "exceptions": {"url": "https://docs.python.org/3/library/exceptions.html",
                               "what": "Python's exception classes"},
                "paths": {"url": "https://packaging.python.org/en/latest/specifications/recording-installed-packages/",
                          "what": "which installed distribution owns a file in site-packages"},
                "platform": SOURCES["ld"]}
_LAYER_SOURCE = {"rocm": SOURCES["hsa"], "container": SOURCES["container_toolkit"], "windows-runtime": SOURCES["vc"],
                 "c-runtime": SOURCES["libstdcxx"], "libraries": SOURCES["wheels"]}

# what each layer's answer looks at on the machine (the doctor's areas), as the catalogue's signatures of that layer
_AREAS = {"driver": ("driver", "gpu"), "arch": ("gpu", "torch"), "torch-build": ("torch",), "libraries": ("libraries", "torch"),
          "cudnn": ("libraries",), "tensorflow": ("tensorflow",), "toolchain": ("toolchain", "extension"),
          "numpy": ("torch",), "env": ("gpu", "platform"), "distributed": ("gpu", "driver"),
          "windows-runtime": ("platform", "torch"), "container": ("driver",), "rocm": ("gpu",), "c-runtime": ("platform",),
          "macos": ("platform",), "wsl": ("driver", "platform")}

# A layer's fix when its winning part implies none of its own: what to check or install for that layer.
_LAYER_FIX = {
    "driver": "Check the NVIDIA driver: `nvidia-smi` must list the GPU. Install or update the driver for this GPU (one "
              "whose CUDA version, in nvidia-smi's header, is at least torch's CUDA), and reboot after a driver update.",
    "arch": "The binary has no code for this GPU's architecture: install a build made for it (torch's wheel of a CUDA "
            "new enough for the GPU, e.g. cu128 for sm_120), or rebuild the extension with TORCH_CUDA_ARCH_LIST set to "
            "the GPU's compute capability.",
    "torch-build": "Install the torch build this machine needs (the CUDA build from https://download.pytorch.org/whl/cuXXX "
                   "matching the driver, or the ROCm build on AMD); check with `python -c \"import torch; "
                   "print(torch.__version__, torch.version.cuda)\"`.",
    "libraries": "A CUDA library torch needs is missing or another version of it is loaded first: install the nvidia-* "
                 "wheel of torch's CUDA major, and make sure LD_LIBRARY_PATH (PATH on Windows) does not put another "
                 "CUDA's libraries first.",
    "cudnn": "Install the cuDNN of the framework's CUDA major (nvidia-cudnn-cuXX, or the cuDNN the framework was built "
             "with) and make sure no older cuDNN is found first on LD_LIBRARY_PATH / PATH.",
    "tensorflow": "Install the TensorFlow build that matches this system (on Linux `pip install tensorflow[and-cuda]`; on "
                  "native Windows TensorFlow 2.10 is the last GPU build: use WSL 2), with the CUDA and cuDNN versions "
                  "its tested-build table lists.",
    "toolchain": "The build failed in its compiler or build tool: read the first `error:` line of the build log. Install a "
                 "prebuilt wheel of the package for this Python, torch and CUDA if one exists; otherwise provide what the "
                 "build needs (a C++ compiler nvcc supports, a CUDA toolkit of torch's CUDA version with CUDA_HOME set "
                 "to it, ninja) and build with `pip install --no-build-isolation`.",
    "numpy": "A compiled module and the installed NumPy disagree: install the NumPy its wheel was built for (`numpy<2` "
             "for modules built for NumPy 1.x) or a release of the module built for NumPy 2.",
    "env": "Check the environment the program runs in: CUDA_VISIBLE_DEVICES and the device index it selects, and that "
           "the Python running it is the one the packages were installed into (`python -m pip` of that Python).",
    "distributed": "NCCL failed between the processes: rerun with NCCL_DEBUG=INFO to see which transport failed; check the "
                   "network interface (NCCL_SOCKET_IFNAME), /dev/shm's size and that each rank uses its own GPU "
                   "(torch.cuda.set_device(local_rank) from LOCAL_RANK before init_process_group).",
    "windows-runtime": "A DLL could not be loaded: install the latest Microsoft Visual C++ Redistributable (x64), and make "
                       "sure no other copy of the DLL comes first on PATH.",
    "container": "Give the container the GPU and what it needs: the NVIDIA Container Toolkit on the host and "
                 "`docker run --gpus all`, with `--shm-size` (or `--ipc=host`) for DataLoader workers and NCCL.",
    "rocm": "Use the ROCm build of torch for this ROCm release; a consumer GPU whose gfx target the build lacks may run "
            "with HSA_OVERRIDE_GFX_VERSION set to the nearest supported target; the user needs the render and video groups.",
    "c-runtime": "A binary needs a newer C/C++ runtime than this system has: use an environment whose glibc/libstdc++ is "
                 "new enough (conda install -c conda-forge libstdcxx-ng, or a newer OS image), or a build of the package "
                 "made for this system.",
    "macos": "macOS has no CUDA: use device 'mps' (Apple silicon) or 'cpu', and the macOS wheels of each package.",
    "wsl": "Under WSL 2 the GPU comes from the Windows NVIDIA driver: update it on Windows, never install a Linux driver "
           "inside WSL, and make sure /usr/lib/wsl/lib is on the library path.",
}

_NOT_ENV_LOOK = ("This is the program's or the workload's error, not the installation's: the installed packages are "
                 "not at fault. Look at the line that raised it (the input's shapes, indices, dtypes and devices, or the memory the job asks for).")


# --- the voters: one per entity kind ----------------------------------------------------------------------------

def _abi_tags(text, ent):
    out = []
    for t in ent.abi_tags:
        by = t.get("required_by") or ""
        pkg = package_guess(by, _owner(ent, by)) if by else None
        fix = (f"{t['tag']} needs {t.get('needs') or 'a newer C/C++ runtime'}: "
               + (f"{pkg} was built for a newer system than this one; install a {pkg} build made for this system "
                  f"(an older release or a wheel for an older manylinux), or " if pkg else "")
               + ("use an environment whose libstdc++ is that new (conda install -c conda-forge libstdcxx-ng, or put "
                  "the newer libstdc++.so.6 first on LD_LIBRARY_PATH)" if t.get("kind") == "libstdc++" else
                  f"use a system with {t.get('needs')} or newer ({', '.join(t.get('first_in') or []) or 'a newer OS'})"))
        src = t.get("source")
        out.append(Vote("c-runtime", 3.0, 4, "abi_tags", t["tag"], t["at"], fix,
                        {"url": src, "what": "the glibc / GCC release that defines the tag"} if isinstance(src, str) else None))
    return out


_CUDA_LIB_WHEEL = {"nccl": "nvidia-nccl", "cublas": "nvidia-cublas", "cublasLt": "nvidia-cublas", "cusparse": "nvidia-cusparse",
                   "cusparseLt": "nvidia-cusparselt", "cusolver": "nvidia-cusolver", "cufft": "nvidia-cufft",
                   "curand": "nvidia-curand", "cudnn": "nvidia-cudnn", "nvJitLink": "nvidia-nvjitlink",
                   "nvrtc": "nvidia-cuda-nvrtc", "cuda": "nvidia-cuda-runtime"}


def _symbols(text, ent):
    out = []
    for s in ent.symbols:
        abi, f = s.get("abi"), s.get("file")
        if abi == "torch":
            pkg = package_guess(f, _owner(ent, f)) if f else _last_owner(ent)
            if pkg in (None, "torch", "c10", "torch_python", "torch_cpu", "torch_cuda"):
                if pkg is None:
                    out.append(Vote("toolchain", 2.0, 4, "symbols", s.get("demangled") or s["symbol"][:80], s["at"],
                                    "A compiled extension wants a torch C++ symbol the installed torch does not have: it "
                                    "was built against another torch. Install the extension's build made for the "
                                    "installed torch, or rebuild it against it (pip install --no-build-isolation "
                                    "--no-cache-dir --force-reinstall <that package>); not a torch reinstall."))
                else:
                    out.append(Vote("torch-build", 2.0, 4, "symbols", s.get("demangled") or s["symbol"][:80], s["at"],
                                    "torch's own library misses a torch symbol: two torch installs are mixed (pip and "
                                    "conda, or user site-packages). Uninstall every torch and install one build."))
                continue
            out.append(Vote("toolchain", 3.0, 4, "symbols", f"{pkg} wants {s.get('demangled') or s['symbol'][:60]}", s["at"],
                            f"{pkg} was built against another torch than the one installed: install the {pkg} build made "
                            f"for the installed torch (its release notes or index name the torch each wheel is for), or "
                            f"rebuild it against this torch: pip install --no-build-isolation --no-cache-dir "
                            f"--force-reinstall {pkg}. Do not reinstall torch for it."))
        elif abi in _CUDA_LIB_WHEEL:
            wheel = _CUDA_LIB_WHEEL[abi]
            layer = "cudnn" if abi == "cudnn" else "libraries"
            out.append(Vote(layer, 2.5, 4, "symbols", s["symbol"][:80], s["at"],
                            f"Two versions of {abi} are loaded: the one found first lacks {s['symbol'][:60]}. Keep one: "
                            f"the {wheel}-cuXX wheel of torch's CUDA major, and no other CUDA's lib folder first on "
                            f"LD_LIBRARY_PATH (PATH on Windows)."))
        elif abi == "libstdc++":
            out.append(Vote("c-runtime", 2.0, 4, "symbols", s.get("demangled") or s["symbol"][:60], s["at"]))
        elif abi == "python":
            pkg = package_guess(f, _owner(ent, f)) if f else _last_owner(ent)
            out.append(Vote("toolchain", 1.5, 4, "symbols", s["symbol"][:60], s["at"],
                            f"{pkg or 'The compiled module'} was built for another Python: install its wheel for this "
                            f"Python's version (cpXY), or rebuild it with this Python."))
        elif abi == "tensorflow":
            out.append(Vote("tensorflow", 2.0, 4, "symbols", s["symbol"][:60], s["at"]))
        elif abi is None and f:
            vote = _own_library_symbol(ent, s, f)
            if vote is not None:
                out.append(vote)
    if not ent.symbols:
        # "undefined symbol" said without the symbol (a title, a cut paste): the compiled part of the last
        # third-party package the traceback passes through is the binary that failed
        tail = text[-8192:]
        i = tail.rfind("undefined symbol")
        pkg = (_module_before(tail, i) or _last_owner(ent)) if i >= 0 else None
        if pkg:
            out.append(Vote("toolchain", 2.0, 3, "symbols", f"an undefined symbol in {pkg}", len(text) - len(tail) + i,
                            f"{pkg}'s compiled part has an undefined symbol: it was built against another torch (or "
                            f"another build of it, e.g. a source-compiled torch) than the one it runs with. Install the "
                            f"{pkg} build made for the installed torch and CUDA, or build {pkg} from source against it "
                            f"(pip install --no-build-isolation --no-cache-dir {pkg}). Do not reinstall torch for it."))
    return out


# a package's native library is often shipped in variants named by a suffix (libbitsandbytes_cpu.so,
# libbitsandbytes_cuda121.so, libfoo_rocm60.so): the variant says which build was loaded
_VARIANT = re.compile(r"_(?P<v>cpu|cuda\d{0,3}(?:_nocublaslt)?|rocm\d{0,3}|hip|mps|metal)$")
_NOT_A_PACKAGE_LIB = frozenset({"torch", "c10", "torch_cpu", "torch_cuda", "torch_python", "python", "stdc++", "c", "m",
                                "gcc_s", "gomp", "iomp5", "cuda", "cudart", "nvrtc", "numpy", "tensorflow_framework"})


# a compiled module named just before "undefined symbol" (flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: ...)
_COMPILED_FILE = re.compile(r"(?<![\w.-])(?P<mod>[A-Za-z_]\w{1,80})(?:\.cpython-[\w-]{1,40}|\.abi3|\.cp\d{2,3}-[\w-]{1,30})?"
                            r"\.(?:so|pyd)\b")


def _module_before(tail: str, i: int) -> str | None:
    """The distribution of the compiled module the text names on the line of "undefined symbol", before it."""
    line_start = tail.rfind("\n", max(0, i - 300), i) + 1
    m = None
    for m in _COMPILED_FILE.finditer(tail, line_start, i):
        pass
    if m is None:
        return None
    pkg = package_guess(m.group(0))
    return pkg.replace("_", "-") if pkg and pkg not in _FRAMEWORK_OWNERS and pkg not in _NOT_A_PACKAGE_LIB else None


def _own_library_symbol(ent, s, f):
    """A symbol of no known library (not torch's, CUDA's, the C++ runtime's, Python's) undefined in a package's own
    native library: the package's Python code calls a function its loaded binary does not have, so the binary is
    another build than the code expects (another release, or the CPU variant loaded where a CUDA one was meant)."""
    base = re.split(r"[/\\]", f)[-1]
    m = re.match(r"lib(?P<name>[A-Za-z][A-Za-z0-9_]{1,60})\.(?:so|dylib|dll)\b", base) or \
        re.match(r"(?P<name>[A-Za-z][A-Za-z0-9_]{1,60})\.dll\b", base)
    if m is None:
        return None
    name = m.group("name")
    v = _VARIANT.search(name)
    pkg = name[:v.start()] if v else name
    owner = _owner(ent, f)
    if owner and owner.lower() not in _NOT_A_PACKAGE_LIB and not owner.endswith((".so", ".dll", ".dylib")):
        pkg = owner
    if pkg.lower() in _NOT_A_PACKAGE_LIB or pkg.lower().startswith(("cu", "nv", "nccl", "hip", "roc")):
        return None
    pkg = pkg.replace("_", "-")
    why = (f"{pkg} loaded its CPU-only library ({base}): it did not find (or did not support) the CUDA runtime, so "
           f"the GPU functions its code calls are missing. Upgrade {pkg} (`pip install -U {pkg}`: newer releases find "
           f"torch's CUDA and ship binaries for more CUDA versions), or make its CUDA library loadable (the CUDA runtime "
           f"on the library path, or the variant for your CUDA)." if v and v.group("v") == "cpu" else
           f"{pkg}'s own library ({base}) lacks {s['symbol'][:60]}, which {pkg}'s Python code calls: the binary loaded "
           f"is another build or release than the code. Reinstall {pkg} cleanly (`pip install --force-reinstall "
           f"--no-deps {pkg}`, one release of it, no stale copy earlier on the path), or rebuild it from source.")
    return Vote("toolchain", 2.0, 4, "symbols", f"{base} lacks {s['symbol'][:60]}", s["at"], why)


# Intel's and LLVM's OpenMP runtimes (libiomp5, libomp) come with packages (intel-openmp, mkl, torch's wheel, Homebrew's
# libomp), not with the C runtime the compiler installs: a missing one is a library the environment lacks
_PROVIDER_LAYER = {"c-runtime": "c-runtime", "openmp": "libraries", "vc-runtime": "windows-runtime", "driver": "driver",
                   "torch": "torch-build", "rocm": "rocm", "cudnn": "cudnn", "tensorrt": "libraries",
                   "os-package": "libraries"}


# "Could not load library A. Error: B: cannot open shared object file" (cuDNN 8's own loader), "Failed to load library
# A with error: B: ..." (ONNX Runtime's provider bridge): A is there, B is what is missing; B is the root cause and A,
# the library that needs it, says whose build wants B
_NEEDS = re.compile(r"(?i)\b(?:could not|failed to|unable to|cannot) load (?:library |dynamic library )?['\"`]?"
                    r"(?:[^\s'\"`]{0,200}[/\\])?(?P<a>[\w.+-]{1,100}?\.(?:so(?:\.\d{1,6}){0,3}|dll))['\"`]?[.,:]?\s{0,4}"
                    r"(?:with error|error)\s?:?\s{0,4}['\"`]?(?P<b>[\w.+-]{1,100}?\.(?:so(?:\.\d{1,6}){0,3}|dll))['\"`]?\s?:")
# a library file that loads CUDA's libraries -> the distribution that ships it (its CUDA build is the one to change):
# ONNX Runtime's CUDA execution provider is onnxruntime-gpu's (https://onnxruntime.ai/docs/install/, "Install ONNX
# Runtime GPU (CUDA 12.x)": pip install onnxruntime-gpu; its CUDA 11 builds come from the ort-cuda-11 feed)
_LOADER_DIST = {"libonnxruntime_providers_cuda": "onnxruntime-gpu", "onnxruntime_providers_cuda": "onnxruntime-gpu",
                "libonnxruntime_providers_tensorrt": "onnxruntime-gpu", "onnxruntime_providers_tensorrt": "onnxruntime-gpu"}


def _loaders(text) -> dict:
    """{missing library: the library that could not load because of it}, from the loaders' own words."""
    return {m.group("b"): m.group("a") for m in _NEEDS.finditer(text[-65536:]) if m.group("a") != m.group("b")}


def _libraries(text, ent):
    out = []
    needs = _loaders(text)
    loaders = set(needs.values())
    for lib in ent.libraries:
        if not lib.get("missing"):
            continue
        prov, name = lib.get("provider"), lib["file"]
        if name in loaders and any(b != name and any(x["file"] == b for x in ent.libraries) for b, a in needs.items()
                                   if a == name):
            continue  # it is there: what it needs is missing, and that library votes
        loader = needs.get(name)
        if prov == "driver" and loader and not lib.get("soversion") and re.fullmatch(r"libcuda\.so", name):
            # the unversioned name, dlopened by another library (cuDNN 8 asks for "libcuda.so"): the driver ships
            # libcuda.so.1, the link without the number is the development package's (WSL: in /usr/lib/wsl/lib)
            if ent.platform.get("wsl") or ent.platform.get("wsl1"):
                out.append(Vote("wsl", 3.0, 4, "libraries", name, lib["at"],
                                f"{loader} asks for {name}: under WSL the driver's libraries are in /usr/lib/wsl/lib: "
                                f"put that folder on LD_LIBRARY_PATH (export LD_LIBRARY_PATH=/usr/lib/wsl/lib:"
                                f"$LD_LIBRARY_PATH), or link it (`ln -s /usr/lib/wsl/lib/libcuda.so.1 libcuda.so` in a "
                                f"folder on the library path); never install a Linux driver inside WSL."))
            else:
                out.append(Vote("libraries", 3.0, 4, "libraries", name, lib["at"],
                                f"{loader} asks for {name}, the unversioned name of the driver's library: make it "
                                f"findable (`ln -s libcuda.so.1 libcuda.so` in the driver's folder, or the folder that "
                                f"has libcuda.so on LD_LIBRARY_PATH); the driver itself is there when nvidia-smi works."))
            continue
        if prov == "cuda-library" and loader and _LOADER_DIST.get(re.sub(r"\.(?:so.*|dll)$", "", loader)):
            dist = _LOADER_DIST[re.sub(r"\.(?:so.*|dll)$", "", loader)]
            cuda = lib.get("cuda")
            wheel = lib.get("wheel") or (lib.get("wheel_choices") or [None])[-1]
            out.append(Vote("libraries", 3.0, 4, "libraries", name, lib["at"],
                            f"{dist}'s {loader} needs {name} ({lib.get('library')}"
                            + (f", CUDA {cuda}" if cuda else "") + f"): install the {dist} build made for the CUDA "
                            f"installed (torch's wheels ship CUDA 12's libraries: the CUDA 12 build of {dist}, with "
                            f"`import torch` before creating the session so that they are loaded)"
                            + (f", or CUDA {cuda}'s libraries ({wheel}) on LD_LIBRARY_PATH" if cuda and wheel else "")
                            + "."))
            continue
        if prov == "cuda-library":
            layer = "cudnn" if lib.get("kind", "").startswith("cudnn") else "libraries"
            wheel = lib.get("wheel") or " or ".join(lib.get("wheel_choices") or []) or None
            fix = (f"{name} ({lib.get('library')}" + (f", CUDA {lib['cuda']}" if lib.get("cuda") else "") + ") is not found: "
                   + (f"install {wheel} (pip install {wheel.split(' or ')[-1]}) or " if wheel else "install ")
                   + "the CUDA libraries of that major version, and put their folder on the library path "
                   "(LD_LIBRARY_PATH; PATH on Windows). A framework built for another CUDA major needs its build for "
                   "the CUDA installed instead.")
            out.append(Vote(layer, 3.0, 4, "libraries", name, lib["at"], fix))
        elif prov == "driver" and lib.get("linker"):
            # the linker wants the unversioned development name (libcuda.so -> libcuda.so.1): the driver is there,
            # the link the linker looks for is not
            out.append(Vote("libraries", 2.5, 4, "libraries", name, lib["at"],
                            f"The linker looks for {name}, the unversioned name of the driver's library (a link to "
                            f"{name}.1): make the link findable (LIBRARY_PATH including the folder with libcuda.so, e.g. "
                            f"the CUDA toolkit's lib64/stubs for linking only, or `ln -s libcuda.so.1 libcuda.so` in the "
                            f"driver's folder), then build again."))
        elif prov in _PROVIDER_LAYER:
            layer = _PROVIDER_LAYER[prov]
            if layer == "torch-build" and name.lower().endswith(".dll"):
                # a DLL of torch's own lib folder that Windows cannot load is there: what fails is a DLL it depends on
                # (the Visual C++ runtime, OpenMP), or the memory to map it (the code beside it says which)
                layer = "windows-runtime"
            fix = {"driver": f"{name} is the NVIDIA driver's: install the driver (in a container: the NVIDIA Container "
                             f"Toolkit and --gpus all; under WSL: the Windows driver, /usr/lib/wsl/lib).",
                   "windows-runtime": f"{name} is torch's own DLL; Windows could not load it or a DLL it depends on: "
                                      f"install the latest Microsoft Visual C++ Redistributable (x64) (it ships the "
                                      f"C++ runtime and OpenMP DLLs torch's DLLs need), then restart the shell."
                   if "torch" in (prov or "") else f"{name} is the Microsoft Visual C++ runtime's: install the latest "
                                                   f"Visual C++ Redistributable (x64).",
                   "libraries": f"{name} is an OpenMP runtime that packages bring (Intel's: the intel-openmp package, "
                                f"which mkl and numpy/scipy's MKL builds pull in; LLVM's libomp: Homebrew or the wheel "
                                f"that bundles it): install it into this environment (`pip install intel-openmp` / "
                                f"`conda install intel-openmp`), or put the folder that holds it on LD_LIBRARY_PATH "
                                f"(`ldd` on the failing binary shows what it looks for)." if prov == "openmp" else None,
                   "torch-build": f"{name} is torch's own library: the torch install is incomplete or mixed; uninstall "
                                  f"every torch and install one build (pip install --force-reinstall torch from the "
                                  f"index of its CUDA)."}.get(layer)
            out.append(Vote(layer, 2.5, 4, "libraries", name, lib["at"], fix))
        elif lib.get("python_extension"):
            pkg = package_guess(name, _owner(ent, name))
            out.append(Vote("toolchain", 1.5, 4, "libraries", name, lib["at"],
                            f"{pkg}'s compiled part is missing or was not built: install the {pkg} build for this "
                            f"Python, torch and CUDA, or build it (pip install --no-build-isolation {pkg})." if pkg else None))
    return out


# Windows loader codes that say why a DLL could not load whatever the DLL is: the paging file / memory, the DLL's own
# initialisation (its runtime dependencies)
_WHY_A_DLL_FAILED = frozenset({"ERROR_COMMITMENT_LIMIT", "ERROR_NOT_ENOUGH_MEMORY", "ERROR_OUTOFMEMORY",
                               "ERROR_DLL_INIT_FAILED", "STATUS_DLL_INIT_FAILED"})
_CODE_WEIGHT = {"name": 2.5, "message": 2.5, "number": 2.0, "debugger": 1.0, "message-context": 1.5, "signal": 1.0}


def _codes(text, ent):
    out = []
    for c in ent.codes:
        layer = c.get("layer")
        if not layer or layer == "none":
            continue
        desc = (c.get("description") or c.get("message") or "").rstrip(".")
        fix = None
        if layer != "not-environment":
            advice = code_advice(c)
            fix = f"{c['name']} ({c.get('library') or c['family']}): " + (
                f"{advice[0]} {advice[1]}" if advice else f"{desc}. {_LAYER_FIX.get(layer, '')}".strip())
        depth = 2 if c.get("how") == "signal" else 3
        if c["name"] == "SIGILL":
            # an illegal instruction: a binary built for instructions this CPU lacks; whose build it is names the
            # layer (TensorFlow's AVX builds; on a Mac, x86 binaries or Intel wheels on Apple silicon)
            tail = text[-65536:]
            if ent.platform.get("macos"):
                # on a Mac first: an x86_64 build (TensorFlow's included) on Apple silicon
                layer, fix = "macos", ("On Apple silicon an x86_64 build raises SIGILL: install the arm64 build (a "
                                       "native arm64 Python; tensorflow-macos / conda-forge for TensorFlow).")
            elif re.search(r"(?i)tensorflow|\btf\b", tail):
                layer, fix = "tensorflow", ("TensorFlow's wheels need AVX (and from 2.x more): install a TensorFlow "
                                            "built for this CPU (an older release, or built from source without AVX), "
                                            "or run on a CPU with AVX.")
            depth = 3
        weight = _CODE_WEIGHT.get(c.get("how"), 1.5)
        if c["name"] in _WHY_A_DLL_FAILED:
            depth, weight = 4, 3.5  # the loader's reason is the cause; the DLL it names is what failed for it
        src = {"url": c["source"], "what": f"{c['family']}: {c['name']}"} if c.get("source") else None
        out.append(Vote(layer, weight, depth, "codes", c["name"], c["at"], fix, src))
    return out


_TOOL_NEEDS = {"nvcc": "a CUDA toolkit of torch's CUDA version, with CUDA_HOME set to it and a host compiler it supports",
               "msvc": "the Visual Studio Build Tools (\"Desktop development with C++\") in a version this CUDA's nvcc "
                       "supports, building from its x64 Native Tools prompt",
               "cl": "the Visual Studio Build Tools (\"Desktop development with C++\"), building from its x64 prompt",
               "link": "the Visual Studio Build Tools and the libraries the linker names",
               "cc": "a C++ compiler the package supports (gcc/g++ from build-essential; a version nvcc accepts)",
               "gcc": "a C++ compiler the package supports (build-essential; a version nvcc accepts)",
               "g++": "a C++ compiler the package supports (build-essential; a version nvcc accepts)",
               "ld": "the libraries the linker names (their -dev packages, or their folder on LIBRARY_PATH)",
               "ninja": "ninja (pip install ninja) and a compiler it can run",
               "cmake": "CMake and what its first `CMake Error` names (a compiler, a CUDA toolkit, a library; for CUDA, "
                        "CUDACXX or CMAKE_CUDA_COMPILER set to the toolkit's bin/nvcc, with CUDA_HOME)",
               "hipcc": "the ROCm development packages (hipcc), with ROCM_HOME set"}
# what a compile with nvcc fails on most, each told by its first error line
_NVCC_CAUSES = ("If the first error is nvcc's `unsupported GNU version` or `unsupported Microsoft Visual Studio "
                "version`: use an older host compiler within its range (gcc-12 via NVCC_CCBIN or -ccbin; an older MSVC) "
                "or a newer CUDA toolkit (-allow-unsupported-compiler only at your own risk). If it is `Unsupported gpu "
                "architecture 'compute_NN'`: a newer CUDA toolkit, or TORCH_CUDA_ARCH_LIST (CUDA_ARCHITECTURES for "
                "CMake) set to the targets this nvcc knows.")
_HEADER = re.compile(r"(?:fatal error(?: C1083)?: (?:Cannot open include file: )?['\"`]?|\bno (?:such )?(?:header )?file:? ['\"`]?)"
                     r"(?P<h>[\w.+/\\-]{1,160}?\.(?:h|hpp|cuh))\b|"
                     r"\b(?P<h2>[\w+/-]{1,120}\.(?:h|hpp|cuh))['\"`]?:? (?:[Nn]o such file or directory|file not found)")


def _headers(text, ent):
    """A header the compiler cannot include is its owner's (knowledge/headers.py), whoever builds: a root cause."""
    tail = text[-65536:]
    found = None
    for m in _HEADER.finditer(tail):
        h = headers.owner_of(m.group("h") or m.group("h2"))
        if h is not None:
            found = (m, h)
    if found is None:
        return []
    m, h = found
    return [Vote("toolchain", 2.5, 4, "headers", h["header"], len(text) - len(tail) + m.start(),
                 f"{h['header']} is {h['what']}'s: {h['remedy']}", {"url": h["source"], "what": f"who ships {h['header']}"})]


def _builds(text, ent):
    if not ent.builds:
        return []
    pkgs = [b["package"] for b in ent.builds if b["what"] == "package"]
    failed = [b["package"] for b in ent.builds if b["what"] == "package" and b.get("failed")]
    pkg = (failed or pkgs or [None])[-1]
    tools = [b.get("tool") for b in ent.builds if b["what"] in ("compile", "tool") and b.get("tool")]
    tool = next((t for t in reversed(tools) if t in _TOOL_NEEDS), None)
    head = None
    for m in _HEADER.finditer(text[-65536:]):
        head = headers.owner_of(m.group("h") or m.group("h2")) or head
    compile_err = any(b["what"] == "compile" for b in ent.builds)
    if not (compile_err or tools or failed):
        return []
    parts = []
    if head is not None:
        parts.append(f"{head['header']} is {head['what']}'s: {head['remedy']}")
    if pkg:
        parts.append(f"The build of {pkg} failed. Install a prebuilt {pkg} wheel for this Python, torch and CUDA if one "
                     f"exists (pip install {pkg} --only-binary :all:); otherwise provide "
                     f"{_TOOL_NEEDS.get(tool or 'cc')} and build it with pip install --no-build-isolation {pkg}.")
    else:
        parts.append(f"A compile step failed: provide {_TOOL_NEEDS.get(tool or 'cc')}; read the first `error:` line.")
    if tool in ("nvcc", "msvc", "cc", "gcc", "g++", "cl", None) or any(b.get("tool") == "nvcc" for b in ent.builds):
        parts.append(_NVCC_CAUSES)
    at = ent.builds[-1]["at"]
    what = ", ".join(dict.fromkeys([*(f"building {p}" for p in pkgs[-1:]), *(tools[-2:])]))
    # a framework's own distribution built from source (tensorflow-gpu's placeholder, numpy on a new Python) is that
    # framework's layer: its wheels, not a compiler, are the fix
    layer = _DIST_LAYER.get((pkg or "").split("-")[0].replace("-", "_")) if pkg and not compile_err else None
    if layer and layer != "toolchain":
        return [Vote(layer, 2.0, 3, "builds", what, at, _LAYER_FIX.get(layer))]
    return [Vote("toolchain", 2.5 if compile_err or failed else 1.5, 3, "builds", what or "a build", at, " ".join(parts))]


def _arch_key(a: str) -> int:
    return int(re.sub(r"\D", "", a.split("_", 1)[1]) or 0)


# a log line that reports the device a backend started on ("CUDA backend initialized on NVIDIA GB10 (sm_121)",
# "Using device 0: ... sm_90"): the target it names ran, so it is no evidence of an architecture the binary lacks
_DEVICE_STATUS = re.compile(r"(?i)\b(?:initiali[sz]ed|detected|registered|selected|running on|using (?:the )?(?:device|gpu)|"
                            r"found (?:\d+ )?(?:device|gpu)s?)\b")
_NOT_STATUS = re.compile(r"(?i)\b(?:not|no|unsupported|incompatible|invalid|error|fail\w*|cannot|unable|requires?|only|"
                         r"warn\w*|too (?:old|new))\b")


_GPU_BACKEND = re.compile(r"(?i)\b(?:CUDA|GPU|ROCm|HIP|Metal|Vulkan)\b")


def _named_on_status_lines_only(text: str, target: str) -> bool:
    """Whether every line that names target is a device-status line, with no word of failure on it."""
    lines = [ln for ln in text[-65536:].splitlines() if target in ln]
    return bool(lines) and all(_DEVICE_STATUS.search(ln) and not _NOT_STATUS.search(ln) for ln in lines)


def _archs(text, ent):
    """The newest sm_NN/compute_NN target named (a GPU's own is newer than the list of targets a build supports) and
    the last gfx target; a target named only where a backend reports the device it started on is no evidence."""
    out = []
    gfx = [a for a in ent.archs if a.startswith("gfx")]
    if gfx:
        a = gfx[-1]
        out.append(Vote("rocm", 1.5, 3, "archs", a, text.rfind(a),
                        f"{a} is the AMD GPU's target: use a ROCm build of torch that ships code for {a}; for a "
                        f"consumer GPU near a supported target, HSA_OVERRIDE_GFX_VERSION set to that target."))
    sms = [a for a in ent.archs if a.startswith(("sm_", "compute_")) and not _named_on_status_lines_only(text, a)]
    if sms:
        a = max(sms, key=_arch_key)
        num = str(_arch_key(a))
        cap = f"{num[:-1]}.{num[-1]}" if len(num) >= 2 else None
        first = gpu_generations.first_cuda_for(cap)
        out.append(Vote("arch", 1.5, 3, "archs", a, text.rfind(a),
                        f"{a} (compute capability {cap}) needs code built with CUDA {first} or newer: install torch's "
                        f"wheel of such a CUDA (https://download.pytorch.org/whl/cu{first.replace('.', '')} or newer) "
                        f"and rebuild extensions with TORCH_CUDA_ARCH_LIST={cap} (CUDA_ARCH_BIN for OpenCV)." if first else
                        _LAYER_FIX["arch"]))
    return out


def _versions(text, ent):
    out = []
    torch_v = ent.versions.get("torch") or ""
    if torch_v.endswith("+cpu"):
        out.append(Vote("torch-build", 2.0, 2, "versions", f"torch {torch_v}", text.rfind(torch_v),
                        f"torch {torch_v} is the CPU-only build: install the CUDA build, e.g. pip install torch "
                        f"--index-url https://download.pytorch.org/whl/cu128 (the cuXXX the driver supports)."))
    return out


def _pip(text, ent):
    out = []
    for p in ent.pip:
        name = p["name"]
        if name in ("torch", "torchvision", "torchaudio"):
            out.append(Vote("torch-build", 2.0, 3, "pip", p["requirement"], p["at"],
                            f"No {name} wheel fits this Python and platform: use a Python version the release supports "
                            f"(its wheels are cp3XX) and torch's index for your CUDA (https://download.pytorch.org/whl/cuXXX)."))
        elif name.startswith(("tensorflow", "tf-")):
            out.append(Vote("tensorflow", 2.0, 3, "pip", p["requirement"], p["at"],
                            f"No {name} wheel fits this Python and platform" + (" (pip was offered none)" if not
                                                                               p.get("versions") else "") +
                            ": TensorFlow publishes 64-bit wheels for a few Python versions per release (3.9 to 3.12 "
                            "for 2.16 to 2.18; its tested-build table): use such a Python, or the release that "
                            "supports yours."))
    return out


_DIST_LAYER = {"tensorflow": "tensorflow", "keras": "tensorflow", "tensorflow_core": "tensorflow", "numpy": "numpy",
               "triton": "toolchain", "jaxlib": "cudnn"}


def _paths(text, ent):
    out = []
    owners = ent.owners()
    if owners:
        d = owners[0]
        layer = "libraries" if d.startswith("nvidia-") else _DIST_LAYER.get(d)
        if layer:
            at = max(p["at"] for p in ent.paths if p.get("distribution") == d)
            out.append(Vote(layer, 1.0, 2, "paths", f"{d}'s files", at))
    return out


# the exception's own class (its base name), or its module's, when it names a layer
_EXC_LAYER = (
    (re.compile(r"(?:^|\.)(?:OutOfMemoryError|ResourceExhaustedError)$"), "not-environment", 2.0),
    (re.compile(r"(?:^|\.)(?:CalledProcessError|CompileError|LinkError|DistutilsExecError|DistutilsPlatformError|"
                r"BackendCompilerFailed|InductorError|CompilationError|CMakeError|SetupError)$"), "toolchain", 1.5),
    (re.compile(r"(?:^|\.)DistBackendError$|(?:^|\.)(?:NCCL|Nccl)Error$"), "distributed", 1.5),
    (re.compile(r"(?:^|\.)errors_impl\.\w+$|^tf\.errors\.\w+$|(?:^|\.)(?:InvalidArgumentError|FailedPreconditionError|"
                r"NotFoundError|InternalError|UnknownError)$"), "tensorflow", 1.0),
    (re.compile(r"(?:^|\.)ModuleNotFoundError$"), "env", 1.0),
)
_NO_MODULE = re.compile(r"No module named ['\"](?P<mod>[A-Za-z_][\w.]{0,100})['\"]")


def _modules(text, ent):
    """A package's private module that cannot be imported ("No module named 'mmcv._ext'") is that package's compiled
    part: its build for this Python/torch/CUDA, whatever the language around it."""
    m = last_match(_NO_MODULE, text[-65536:])
    if m is None:
        return []
    mod = m.group("mod")
    top = mod.split(".")[0]
    at = len(text) - 65536 + m.start() if len(text) > 65536 else m.start()
    known = compiled_modules.distribution_of(mod)
    if known:
        # a top-level compiled module named unlike its distribution (fused_layer_norm_cuda is apex's): that
        # distribution was installed without it, or built for another torch; installing "the module" means nothing
        return [Vote("toolchain", 2.5, 4, "modules", f"No module named {mod}", at,
                     f"{mod} is a compiled module of {known['distribution']}, which is installed without it (or "
                     f"built for another Python/torch): {known['build']}")]
    if not any(part.startswith("_") for part in mod.split(".")[1:]):
        return []
    return [Vote("toolchain", 2.0, 3, "modules", f"No module named {mod}", len(text) - 65536 + m.start()
                 if len(text) > 65536 else m.start(),
                 f"{top}'s compiled part ({mod}) is missing: it was not built, or built for another Python/torch/CUDA; "
                 f"install the {top} build for this Python, torch and CUDA (its own index or release notes), or build "
                 f"it from source against the installed torch (pip install --no-build-isolation {top}).")]


def _exceptions(text, ent):
    out = []
    for name in ent.exceptions[-3:]:
        for pattern, layer, weight in _EXC_LAYER:
            if not pattern.search(name):
                continue
            at = text.rfind(name)
            fix = None
            if layer == "env":
                m = last_match(_NO_MODULE, text[-65536:])
                if m is None:
                    break
                mod = m.group("mod")
                top = mod.split(".")[0]
                if any(part.startswith("_") for part in mod.split(".")[1:]):
                    # a package's private (compiled) module: that package's build, not a missing install
                    out.append(Vote("toolchain", 1.5, 2, "exceptions", f"No module named {mod}", at,
                                    f"{top}'s compiled part ({mod}) is missing: its build did not produce it or was made "
                                    f"for another Python/torch; install the {top} wheel for this Python, torch and CUDA, "
                                    f"or rebuild it (pip install --no-build-isolation {top})."))
                    break
                fix = (f"{top} is not installed in the Python that ran the program: install it into that Python "
                       f"(`python -m pip install {top}` with that interpreter), or activate the environment it was "
                       f"installed into.")
            out.append(Vote(layer, weight, 1, "exceptions", name, at, fix))
            break
    return out


_PLATFORM_LAYER = {"wsl1": ("wsl", 2.0), "wsl": ("wsl", 1.0), "container": ("container", 1.0), "intel_mac": ("macos", 1.5),
                   "macos": ("macos", 1.0), "amd": ("rocm", 1.0)}


def _platform(text, ent):
    out = []
    for name, (layer, weight) in _PLATFORM_LAYER.items():
        if ent.platform.get(name):
            out.append(Vote(layer, weight, 1, "platform", name, len(text) - 1))
    return out


# Memory exhaustion, in every allocator's words (CUDA's caching allocator, MPS, HIP, TensorFlow's BFC, cuBLAS's
# handle, the host's OOM killer): the workload's size, not the installation
_OUT_OF_MEMORY = re.compile(r"(?i)\bout of memory\b|OutOfMemory|\bOOM when allocating|Tried to allocate \d|"
                            r"\bRESOURCE_EXHAUSTED\b|failed to allocate [\d.]{1,12} ?[KMGT]?i?B|"
                            # a library's enumerated status for it (RMM_ERROR_OUT_OF_MEMORY, NPP_MEMORY_ALLOCATION_ERR)
                            r"[A-Z]{2,12}_(?:ERROR_|STATUS_)?OUT_OF_MEMORY\b|"
                            # torch.OutOfMemoryError's short form, which ComfyUI prints alone: "Allocation on device"
                            r"\bAllocation on device\b")


_SHM = re.compile(r"/dev/shm\b|\bshared memory\b|\bshm_open\b|\(shm\)")


def _shared_memory(text, ent):
    """Shared memory (/dev/shm) named in the final lines: DataLoader workers and NCCL's transport pass data through
    it; a container's default is 64 MB."""
    tail = text[-8192:]
    m = last_match(_SHM, tail)
    if m is None:
        return []
    return [Vote("container", 2.0, 3, "memory", m.group(0), len(text) - len(tail) + m.start(),
                 "Give the processes more shared memory: `docker run --shm-size=16g` (or --ipc=host; Kubernetes: an "
                 "emptyDir of medium Memory on /dev/shm); outside containers, check /dev/shm's size (df -h /dev/shm).")]


def _memory(text, ent):
    tail = text[-8192:]
    m = last_match(_OUT_OF_MEMORY, tail)
    if m is None:
        return []
    return [Vote("not-environment", 2.5, 3, "memory", m.group(0), len(text) - len(tail) + m.start())]


# The program or component that reports the error, by its own prefix ("nvrtc: error:", "nvcc fatal", "modprobe:
# FATAL:", "nvidia-container-cli: requirement error:", "NVIDIA-SMI has failed") or by the source file of a C++ log
# line (TensorFlow's "tensorflow/.../cuda_dnn.cc:378]", torch's "ProcessGroupNCCL.cpp:272"): its owner is the layer.
_REPORTER = re.compile(r"(?m)(?:^|[\s\[(`'\"])(?P<prog>[A-Za-z][\w.+-]{1,40}): (?:fatal error|error|FATAL|fatal|[a-z]{3,12} error)\b|"
                       r"\b(?P<smi>NVIDIA-SMI) has failed|"
                       # the NVIDIA kernel module's own log lines ("NVRM: API mismatch", "NVRM: this kernel module has the
                       # version ..."), at a line's start, after dmesg's time stamp, syslog's "kernel:" or its escaped
                       # newline (#012): whatever word follows, the driver speaks
                       r"(?:^|\]|\bkernel:|#012)[ \t]{0,60}(?P<nvrm>NVRM): |"
                       # a source file's line, anchored on its extension; its path is read leftwards
                       r"(?P<src>\.(?:cc|cpp|cu|c|h)):\d{1,6}\b")
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./\\-")


def _path_before(text: str, end: int, limit: int = 200) -> str:
    i, lo = end, max(0, end - limit)
    while i > lo and text[i - 1] in _PATH_CHARS:
        i -= 1
    return text[i:end]
_PROGRAM_LAYER = {"nvrtc": "arch", "ptxas": "arch", "nvcc": "toolchain", "cc1plus": "toolchain", "cc1": "toolchain",
                  "gcc": "toolchain", "g++": "toolchain", "c++": "toolchain", "clang": "toolchain", "clang++": "toolchain",
                  "cl": "toolchain", "cl.exe": "toolchain", "ld": "toolchain", "collect2": "toolchain", "ninja": "toolchain",
                  "cmake": "toolchain", "make": "toolchain", "hipcc": "rocm", "nvidia-smi": "driver", "NVIDIA-SMI": "driver",
                  "modprobe": "driver", "NVRM": "driver", "nvidia-modprobe": "driver", "nvidia-container-cli": "container",
                  "docker": "container", "rocminfo": "rocm", "rocm-smi": "rocm", "amdgpu": "rocm"}
# a C++ component's source file (its stem, or a folder of its path) -> the layer it speaks for
_SOURCE_LAYER = (
    (re.compile(r"cpu_feature_guard"), "not-environment"),
    (re.compile(r"cuda_dnn|cudnn"), "cudnn"),
    (re.compile(r"cuda_driver|cuda_diagnostics|cuda_platform|cuda_executor"), "driver"),
    (re.compile(r"dso_loader|cuda_blas|cuda_fft|cudart_stub"), "libraries"),
    (re.compile(r"ProcessGroupNCCL|NCCLUtils|nccl|(?:^|/)transport/|bootstrap|socket"), "distributed"),
    (re.compile(r"CUDACachingAllocator|bfc_allocator"), "not-environment"),
    (re.compile(r"(?:^|[/\\])(?:tensorflow|tsl|xla)[/\\]|gpu_device|gpu_backend_lib"), "tensorflow"),
)


def _reporters(text, ent):
    out = []
    tail = text[-16384:]
    base = len(text) - len(tail)
    for m in _REPORTER.finditer(tail):
        if m.group("prog") or m.group("smi") or m.group("nvrm"):
            prog = m.group("prog") or m.group("smi") or m.group("nvrm")
            layer = _PROGRAM_LAYER.get(prog) or _PROGRAM_LAYER.get(prog.lower())
            if layer:
                out.append(Vote(layer, 2.0, 3, "reporters", f"{prog}:", base + m.start()))
        else:
            src = (_path_before(tail, m.start()) + m.group("src")).replace("\\", "/")
            if len(src) < 4:
                continue
            for pattern, layer in _SOURCE_LAYER:
                if pattern.search(src):
                    out.append(Vote(layer, 1.0, 2, "reporters", src.rsplit("/", 1)[-1], base + m.start()))
                    break
    return out[-6:]


# A torch operator's namespace is the library that registers it: "torchvision::nms" does not exist -> torchvision's
# compiled operators are not loaded (its build is for another torch); aten/prim are torch's own
_OPERATOR = re.compile(r"\b(?:operator|[Oo]perator [Nn]ame|No such operator|op) [`'\"]?(?P<ns>[a-z_][a-z0-9_]{1,40})::(?P<op>\w{1,80})")
_TORCH_NAMESPACES = frozenset({"aten", "prim", "prims", "c10", "c10d", "_c10d_functional", "quantized", "_quantized",
                               "profiler", "inductor", "_inductor", "mkldnn", "onednn", "_test", "std"})


def _operators(text, ent):
    out = []
    tail = text[-16384:]
    for m in _OPERATOR.finditer(tail):
        ns = m.group("ns")
        if ns in _TORCH_NAMESPACES:
            continue
        pkg = ns.replace("_", "-")
        out.append(Vote("toolchain", 2.5, 3, "operators", f"{ns}::{m.group('op')}", len(text) - len(tail) + m.start(),
                        f"{ns}::{m.group('op')} is {pkg}'s operator, registered by its compiled part: that part did not "
                        f"load, so {pkg} does not match the installed torch. Install the {pkg} release made for the "
                        f"installed torch (its compatibility table), e.g. from the same index as torch; not a torch "
                        f"reinstall."))
    return out[-2:]


# Build tools and compilers named in an error line: the build lacks them
_TOOL_NAMED = re.compile(r"(?P<t>\bC\+\+ compiler|\bC compiler|Visual C\+\+ \d{1,2}(?:\.\d)?|C\+\+ Build Tools|Visual Studio|"
                         r"\bMSVC\b|\bcl\.exe\b|CUDA_HOME|CUDA_PATH|\bnvcc\b|\bninja\b|\bNinja\b|\bcmake\b|\bCMake\b|"
                         r"\bg\+\+|\bgcc\b|\btriton\b|\bTriton\b|\bptxas\b|\bhipcc\b)")
_ERROR_LINE = re.compile(r"(?i)error|fail|not found|cannot|can't|could not|couldn't|required|missing|no such|not set|"
                         r"unsupported|not supported|unable")
_TOOL_FIXES = {"c++ compiler": "a C++ compiler (Linux: `sudo apt install build-essential` / g++; Windows: the Visual Studio "
                               "Build Tools' cl.exe; or set CC/CXX to one)",
               "c compiler": "a C compiler (Linux: `sudo apt install build-essential`; Windows: the Visual Studio Build "
                             "Tools' cl.exe; or set CC to one)",
               "visual": "the Microsoft C++ Build Tools (Visual Studio Build Tools, \"Desktop development with C++\"), "
                         "in a version this CUDA's nvcc supports",
               "cuda_home": "a CUDA toolkit (nvcc) of torch's CUDA version, with CUDA_HOME (CUDA_PATH on Windows) set to it",
               "nvcc": "a CUDA toolkit (nvcc) of torch's CUDA version, with CUDA_HOME set to it",
               "ninja": "ninja (pip install ninja)",
               "cmake": "CMake (pip install cmake); for CUDA, CUDACXX (or CMAKE_CUDA_COMPILER) set to the toolkit's "
                        "bin/nvcc, with CUDA_HOME",
               "gcc": "a gcc/g++ that nvcc and the package support (set CC/CXX, or NVCC_CCBIN for nvcc)",
               "triton": "Triton for this platform (on Windows: the triton-windows package), or run without "
                         "torch.compile (eager)",
               "ptxas": "a ptxas that knows the GPU: TRITON_PTXAS_PATH pointing at a CUDA toolkit's newer ptxas, or "
                        "a newer torch/Triton",
               "hipcc": "the ROCm development packages (hipcc), with ROCM_HOME set"}


_NVCC_ARCH = re.compile(r"Unsupported gpu architecture '(?P<a>compute_\d{2,3}[af]?)'|"
                        r"nvcc fatal\s{0,4}: Value '(?P<b>sm_\d{2,3}[af]?)' is not defined for option 'gpu-architecture'")


def _nvcc_arch(text, ent):
    """nvcc refusing a target it does not know: its toolkit is older than the GPU (the first CUDA for each target is in
    knowledge/gpu_generations.py)."""
    tail = text[-16384:]
    m = last_match(_NVCC_ARCH, tail)
    if m is None:
        return []
    a = m.group("a") or m.group("b")
    num = re.sub(r"\D", "", a.split("_", 1)[1])
    cap = f"{num[:-1]}.{num[-1]}"
    first = gpu_generations.first_cuda_for(cap)
    return [Vote("toolchain", 3.0, 4, "tools", f"nvcc without {a}", len(text) - len(tail) + m.start(),
                 f"This nvcc does not know {a} (compute capability {cap})" + (f", which needs CUDA {first} or newer" if
                                                                             first else "") +
                 ": build with a newer CUDA toolkit (CUDA_HOME pointing at it), or leave the target out "
                 "(TORCH_CUDA_ARCH_LIST / CUDA_ARCHITECTURES set to targets this nvcc knows).")]


def _tool_key(t: str) -> str:
    t = t.lower()
    if t.startswith(("visual", "msvc", "cl.exe")) or t == "c++ build tools":
        return "visual"
    if t in ("cuda_home", "cuda_path"):
        return "cuda_home"
    return "gcc" if t == "g++" else t


def _tools(text, ent):
    tail = text[-8192:]
    base = len(text) - len(tail)
    found = None
    for m in _TOOL_NAMED.finditer(tail):
        a = tail.rfind("\n", 0, m.start()) + 1
        b = tail.find("\n", m.end())
        line = tail[a:(b if b >= 0 else len(tail))]
        if _ERROR_LINE.search(line):
            found = m
    if found is None:
        return []
    key = _tool_key(found.group("t"))
    layer = "arch" if key == "ptxas" else "toolchain"
    need = _TOOL_FIXES.get(key)
    return [Vote(layer, 1.5, 3, "tools", found.group("t"), base + found.start(),
                 f"The build or compile step needs {need}." if need else None)]


# A component named in the final error lines, by its owner: the lexicon of the layers' own names
_COMPONENT = re.compile(r"\b(?P<c>NumPy|numpy|TensorFlow|tensorflow|cuDNN|CuDNN|CUDNN|cudnn|NCCL|nccl|DNN library|"
                        r"Docker|docker|container|NVML|nvidia-smi|NVIDIA driver|nvidia driver|kernel module|WSL|MPS|mps|"
                        r"ROCm|HIP|libdevice|Visual C\+\+ Redistributable|DLL)\b")
_COMPONENT_LAYER = {"numpy": "numpy", "tensorflow": "tensorflow", "cudnn": "cudnn", "dnn library": "cudnn",
                    "nccl": "distributed", "docker": "container", "container": "container", "nvml": "driver",
                    "nvidia-smi": "driver", "nvidia driver": "driver", "kernel module": "driver", "wsl": "wsl",
                    "mps": "macos", "rocm": "rocm", "hip": "rocm", "libdevice": "tensorflow",
                    "visual c++ redistributable": "windows-runtime", "dll": "windows-runtime"}


def _components(text, ent):
    base = max(0, len(text) - 8192)
    # (offset, line) of the last four error lines: a vote's place is where its component is named, so that of two
    # components on one line the one named last (nearer the final words) wins a tie
    lines = [(m.start(), m.group(0)) for m in re.finditer(r"[^\n]+", text[base:]) if _ERROR_LINE.search(m.group(0))][-4:]
    out = {}
    for start, line in lines:
        for m in _COMPONENT.finditer(line):
            key = m.group("c").lower()
            out.pop(key, None)  # each component counts once, where it is named last
            out[key] = Vote(_COMPONENT_LAYER[key], 0.75, 2, "components", m.group("c"), base + start + m.start())
    return list(out.values())[-4:]


# The program's own data, in the final error line: tensors' shapes and sizes, indices, dtypes, devices, gradients,
# a kernel's assertion on its input; with nothing of the environment deeper in the text, the program's error
_PROGRAM_DATA = re.compile(r"(?i)\bshapes?\b|size mismatch|\bsizes?\b[^\n]{0,40}\bmust match|\bdimensions?\b|"
                           r"\bindex(?:es|ices)? (?:out of|is out)|out of (?:range|bounds)|\bgrad(?:_fn|ient)?\b|"
                           r"requires_grad|\bdtype\b|scalar type|same device|\bexpected [^\n]{1,60}\bgot\b|"
                           r"\btensors?\b[^\n]{0,60}\b(?:device|size|shape)|(?:size|length)s?\b[^\n]{0,60}\bto match\b|"
                           r"\btwo devices\b|\b(?:cuda:\d{1,2}|cpu|mps) and (?:cuda:\d{1,2}|cpu|mps)\b")
# "device-side assert triggered", not the line torch >= 2.0 appends to every CUDA/HIP error ("Compile with
# `TORCH_USE_CUDA_DSA` to enable device-side assertions."): that line says nothing of the program
_KERNEL_ASSERT = re.compile(r"Assertion [`'][^\n]{1,300}[`'] failed|device-side assert(?!ions)")


def _program(text, ent):
    tail = text[-8192:]
    base = len(text) - len(tail)
    m = last_match(_KERNEL_ASSERT, tail)
    if m is not None:
        return [Vote("not-environment", 2.5, 3, "program", "a kernel's assertion on its input", base + m.start())]
    lines = [ln for ln in tail.splitlines() if _ERROR_LINE.search(ln) or "Error" in ln][-3:]
    for line in reversed(lines):
        d = _PROGRAM_DATA.search(line)
        if d:
            return [Vote("not-environment", 2.0, 2, "program", d.group(0), base + tail.rfind(line))]
    if lines:
        # the program's GPU backend reported the device it started on, and a later step of the program failed: the
        # driver, runtime and architecture worked; a deeper part (a code, a library) outweighs this when there is one
        failed = tail.rfind(lines[-1])
        for line in tail[:failed].splitlines():
            if _GPU_BACKEND.search(line) and _DEVICE_STATUS.search(line) and not _NOT_STATUS.search(line):
                return [Vote("not-environment", 1.0, 2, "program", "a step failing after the GPU backend started",
                             base + failed)]
    return []


def _built_for(text, ent):
    b = ent.versions.get("built_for")
    if not isinstance(b, dict):
        return []
    pkg = (b.get("package") or "").lower().replace("_", "-") or None
    have = b.get("have") or ""
    if have.endswith("+cpu"):
        cu = f"cu{b['cuda'].replace('.', '')}" if b.get("cuda") else "cuXXX"
        return [Vote("torch-build", 3.0, 4, "versions", f"built for torch {b.get('torch')}, torch {have} installed", b["at"],
                     f"The installed torch {have} is the CPU-only build; {pkg or 'the package'} was built for torch "
                     f"{b.get('torch')}: install torch's CUDA build (pip install torch --index-url "
                     f"https://download.pytorch.org/whl/{cu}).")]
    if pkg in (None, "pytorch", "torch"):
        pkg = None
    return [Vote("toolchain", 3.0, 4, "versions", f"{pkg or 'a package'} built for torch {b.get('torch')}", b["at"],
                 f"{pkg or 'The package'} was built for torch {b.get('torch')}" + (f", torch {have} is installed" if have else "")
                 + f": install the {pkg or 'package'} release built for the installed torch (pip install "
                 f"{pkg or '<package>'} from the index of torch's CUDA), or rebuild it against it; not a torch reinstall.")]


# Two versions of one thing in one error, with a word that sets them against each other ("mismatches", "but source
# was compiled with", "you have", "incompatible"): the subject says whose layer
_CONFLICT = re.compile(r"(?i)mismatch|does(?: not|n't) match|\bdifferent\b|incompatib|not compatible|but (?:the )?source was "
                       r"compiled|compiled (?:with|against|using)|built (?:for|with|against)|\byou have\b|requires? [^\n]{0,20}\d")
_VERSION = re.compile(r"(?<![\w.])v?\d{1,2}\.\d{1,2}(?:\.\d{1,3})?\b|(?<![\w.])\d{4,5}(?![\w.])")
_SUBJECT = re.compile(r"(?i)\b(?P<s>cudnn|numpy|torchvision|torchaudio|xformers|pytorch|torch|cuda|driver|python|gcc)\b")
_SUBJECT_LAYER = {"cudnn": "cudnn", "numpy": "numpy", "torchvision": "toolchain", "torchaudio": "toolchain",
                  "xformers": "toolchain", "cuda": "toolchain", "driver": "driver", "gcc": "toolchain"}


# which side of a conflict is the build's and which the running one's: the version after "compiled/built
# against|with|for", and the one after "this version of X is", "runtime", "you have", "installed", "found"
_BUILT_SIDE = re.compile(r"(?i)(?:compiled|built)\s(?:against|with|for|using)[^\d\n]{0,40}?"
                         r"(?P<v>0x[0-9a-f]{1,4}\b|\d{1,4}(?:\.\d{1,4}){0,2})")
_RUN_SIDE = re.compile(r"(?i)(?:this version of \w{2,20} is|runtime(?: version)?|you have|installed(?: version)?(?: is)?|"
                       r"but (?:found|got)|found|loaded)[^\d\n]{0,40}?(?P<v>0x[0-9a-f]{1,4}\b|\d{1,4}(?:\.\d{1,4}){0,2})")


def _vkey(v: str) -> tuple:
    if v.lower().startswith("0x"):
        return (int(v, 16),)
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def _direction(line: str) -> tuple:
    """(built, running) versions of a conflict line, when both sides are named."""
    b, r = _BUILT_SIDE.search(line), _RUN_SIDE.search(line)
    if not b or not r or b.start() == r.start():
        return None, None
    return b.group("v"), r.group("v")


def _version_conflicts(text, ent):
    lines = text[-8192:].splitlines()
    for i in range(len(lines) - 1, -1, -1):
        joined = " ".join(lines[i:i + 2])
        if not _CONFLICT.search(joined) or len(_VERSION.findall(joined)) < 2:
            continue
        subjects = [m.group("s").lower() for m in _SUBJECT.finditer(joined)]
        subj = next((x for x in subjects if x in _SUBJECT_LAYER), None)
        if subj is None:
            continue
        layer = _SUBJECT_LAYER[subj]
        at = len(text) - len("\n".join(lines[i:]))
        fix = {"cudnn": "Install the cuDNN the framework was built with (the same major, a minor at least as new: the "
                        "nvidia-cudnn wheel or the cuDNN of its tested-build table), first on the library path.",
               "numpy": "Install the NumPy the compiled module was built for (numpy<2 for modules built for NumPy 1.x), "
                        "or the module's release built for this NumPy.",
               "cuda": "The CUDA toolkit the build found (nvcc, CUDA_HOME) is not the CUDA torch was built with: set "
                       "CUDA_HOME to a toolkit of torch's CUDA version, or install torch's build for the toolkit's CUDA.",
               "driver": None,
               "gcc": "Use a gcc/g++ in the range the CUDA toolkit supports (set CC/CXX or NVCC_CCBIN)."}.get(subj)
        if subj in ("torchvision", "torchaudio", "xformers"):
            fix = (f"{subj} and torch are versions that do not belong together: install the {subj} release made for "
                   f"the installed torch (its compatibility table; the same index as torch); not a torch reinstall.")
        built, running = _direction(joined)
        if subj in ("numpy", "cudnn") and built and running and _vkey(built) != _vkey(running):
            name = {"numpy": "NumPy", "cudnn": "cuDNN"}[subj]
            if _vkey(built) > _vkey(running):
                fix = (f"The module was built against a newer {name} ({built}) than the one running ({running}): "
                       f"upgrade {name} to at least the build's (pip install -U {subj if subj == 'numpy' else 'nvidia-cudnn-cuXX'}"
                       f"), or rebuild the module against the installed one.")
            else:
                fix = (f"The module was built against an older {name} ({built}) than the one running ({running}): "
                       f"install the module's release built for this {name}, or rebuild it"
                       + (" (or numpy<2 for a module built for NumPy 1.x)." if subj == "numpy" else "."))
        return [Vote(layer, 2.0, 3, "versions", f"{subj} versions in conflict", at, fix)]
    return []


# A binary compiled for instructions this CPU lacks ("compiled to use AVX2 instructions, but these aren't available"):
# the binary's build, whoever ships it (the harmless "could use AVX" notice says the opposite and is not read here)
_ISA_MISSING = re.compile(r"(?i)\b(?P<isa>AVX(?:2|512\w{0,6})?|SSE4(?:\.[12])?|FMA3?|F16C|AVX_VNNI)\b[^\n]{0,60}?"
                          r"(?:aren't|are not|isn't|is not|not) (?:available|supported)")


def _isa(text, ent):
    tail = text[-8192:]
    m = last_match(_ISA_MISSING, tail)
    if m is None:
        return []
    # the layer is the framework's whose build it is; another package's binary has no layer of its own here
    tf = bool(re.search(r"(?i)tensorflow", tail))
    if not tf and not re.search(r"(?i)\b(?:py)?torch\b", tail):
        return []
    who = "TensorFlow" if tf else "torch"
    return [Vote("tensorflow" if tf else "torch-build", 2.0, 3, "isa", m.group("isa"), len(text) - len(tail) + m.start(),
                 f"{who} was compiled to use {m.group('isa')}, which this CPU does not have: install a build made "
                 f"without {m.group('isa')} (a release for older CPUs, or built from source), or run on a CPU with it.")]


def _program_families(text, ent):
    return program_families(text, ent, Vote)


def _tool_flags(text, ent):
    return tool_flags(text, ent, Vote)


VOTERS = (_program_families, _tool_flags, _abi_tags, _symbols, _libraries, _codes, _builds, _archs, _versions, _pip, _paths, _exceptions, _platform,
          _memory, _reporters, _operators, _tools, _components, _program, _built_for, _version_conflicts, _isa,
          _headers, _modules, _nvcc_arch, _shared_memory)


def _owner(ent, path):
    if not path:
        return None
    base = re.split(r"[/\\]", path)[-1]
    for p in reversed(ent.paths):
        if p["path"].endswith(base) and p.get("distribution"):
            return p["distribution"]
    m = re.search(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z0-9_.-]{1,100})", path)
    return m.group(1) if m else None


_FRAMEWORK_OWNERS = frozenset({"torch", "torchvision", "torchaudio", "numpy", "tensorflow", "keras", "_C"})


def _last_owner(ent):
    """The last third-party distribution of the traceback's files (a torch-ABI symbol whose binary is not named is
    most likely that package's)."""
    for d in ent.owners():
        if d not in _FRAMEWORK_OWNERS and not d.startswith("nvidia-"):
            return d.replace("_", "-")
    return None


def votes(text: str, ent) -> list:
    out = []
    for voter in VOTERS:
        out.extend(voter(text, ent))
    return out


# The machine a text comes from changes whose the deciding part is: a driver failure inside WSL is the Windows
# driver's (WSL's passthrough); a CUDA library TensorFlow could not open is TensorFlow's build's dependency.
_MODIFIERS = (("driver", ("platform", ("wsl", "wsl1")), "wsl"),
              ("libraries", ("reporters", ("dso_loader.cc", "cudart_stub.cc")), "tensorflow"))


def _modified(layer: str, vs: list) -> str:
    for base, (kind, whats), new in _MODIFIERS:
        if layer == base and any(v.kind == kind and v.what in whats for v in vs):
            return new
    return layer


def decide(vs: list) -> tuple:
    """(winning layer, its deciding vote, confidence 0..1) from the votes; (None, None, 0.0) when no vote may
    decide (only exception classes that name no layer, or nothing at all)."""
    if not vs:
        return None, None, 0.0
    depth = max(v.depth for v in vs)
    score = {}
    for v in vs:
        score[v.layer] = score.get(v.layer, 0.0) + v.weight * v.depth
    # a list in the votes' order, not a set: two layers tied on weight and place (a text's two platforms, both read at
    # its start) must not be decided by the interpreter's hash seed, run to run
    candidates = list(dict.fromkeys(v.layer for v in vs if v.depth == depth))
    layer = max(candidates, key=lambda lay: (score[lay], max(v.at for v in vs if v.layer == lay), -candidates.index(lay)))
    top = max((v for v in vs if v.layer == layer and v.depth == depth), key=lambda v: (v.weight, v.at))
    total = sum(score.values())
    share = score[layer] / total if total else 0.0
    new = _modified(layer, vs)
    if new != layer:
        top = Vote(new, top.weight, top.depth, top.kind, top.what, top.at, _LAYER_FIX.get(new), top.source)
        layer = new
    confidence = round(share * {4: 0.95, 3: 0.8, 2: 0.6, 1: 0.45}[depth], 2)
    return layer, top, confidence


def _words(confidence: float) -> str:
    return "high" if confidence >= 0.7 else "medium" if confidence >= 0.45 else "low"


def read(text: str, ent) -> Match | None:
    """The default answer for a text no rule or sentence recognised; None when its parts say nothing."""
    vs = votes(text, ent)
    layer, top, confidence = decide(vs)
    if layer is None:
        return None
    env = layer != "not-environment"
    fixes = [top.fix] + [v.fix for v in sorted(vs, key=lambda v: (-v.depth, -v.weight, -v.at)) if v.layer == layer]
    if layer == "distributed" and ent.platform.get("windows") and not ent.platform.get("wsl"):
        # torch's Windows builds have no NCCL: the gloo backend is the one they have
        fixes.insert(0, "torch on native Windows has no NCCL: use the gloo backend (init_process_group(backend='gloo')), "
                        "or run under WSL 2 / Linux for NCCL.")
    fixes = list(dict.fromkeys(f for f in fixes if f))[:3]
    fix = "\n".join(fixes) or _LAYER_FIX.get(layer)
    parts = "; ".join(dict.fromkeys(f"{v.what} ({v.kind}: {v.layer})"
                                    for v in sorted(vs, key=lambda v: (-v.depth, -v.weight, -v.at))[:6]))
    level = _words(confidence)
    title = f"not a known message: a reading of the text's parts points to the {layer} layer ({level} confidence)"
    explanation = (f"No known message or rule matched this text. Reading its parts ({parts}), the deepest part, "
                   f"{top.what}, belongs to the {layer} layer; confidence {confidence:.2f} ({level}): the share of "
                   f"the parts' weight on that layer, lowered when the deciding part is not a root cause.")
    # braces from the text would read as template fields: the fix and explanation are final text here
    fix_text = (fix or "").replace("{", "(").replace("}", ")")
    explanation = explanation.replace("{", "(").replace("}", ")")
    title = title.replace("{", "(").replace("}", ")")
    source = top.source or _LAYER_SOURCE.get(layer) or _KIND_SOURCE.get(top.kind) or SOURCES["ld"]
    sig = Signature(SIGNATURE_PREFIX + layer, layer, title, PRIORITY, env, (), {}, explanation, (),
                    fix_text if env else None, None if env else (fix_text or _NOT_ENV_LOOK), _AREAS.get(layer, ()), (source,),
                    {"from": "reading", "generic": False, "confidence": confidence, "level": level,
                     "votes": [{"layer": v.layer, "kind": v.kind, "what": v.what, "weight": v.weight, "depth": v.depth}
                               for v in vs]})
    at = max(0, min(top.at, len(text)))
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    return Match(sig, at, end, _line(text, at, end), {"confidence": f"{confidence:.2f}", "basis": "reading"}, {})
