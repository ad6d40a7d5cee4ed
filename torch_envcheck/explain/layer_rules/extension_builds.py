"""Layer rules for extensions built against the installed torch, read from where the failure is: the extension's own
source code, or the compiled module's init function against its file name.

    inline_source_error  a compiler error located in load_inline's own sources (main.cpp / cuda.cu in the
                         extension's build folder), with no tool, header or version missing -> not-environment: the
                         code given to load_inline
    module_init_missing  CPython's "dynamic module does not define module export function (PyInit_X)" -> toolchain:
                         the module was built under another name, for another Python, or the build is stale
    package_cuda_module_missing  a package's own compiled module (causal_conv1d_cuda, torch_cluster.graclus_cuda) not
                         importable from its code, or a NameError for it after a caught import -> toolchain: that
                         package's extension
    compiler_killed      cc1plus / cicc / ptxas killed by signal 9 during a build -> toolchain: MAX_JOBS, memory
    extension_built_without_cuda  a build's own "Compiling X without CUDA" -> toolchain: the build saw no CUDA torch
                         or no GPU (FORCE_CUDA=1 with the toolkit, a CUDA torch), or the prebuilt wheel
    package_library_missing  a torch-extension package's own compiled library not there (the loader naming the file
                         itself, "fbgemm_gpu/fbgemm_gpu_py.so: cannot open shared object file") -> toolchain: that
                         package's build for the installed torch
    object_file_not_recognized  the linker's "X.o: file not recognized: File format not recognized" -> toolchain: an
                         object left from another build (compiler, architecture) or cut short: a clean rebuild
    transformer_engine_torch_missing  Transformer Engine's loader finding no torch extension (StopIteration in
                         _load_library, no transformer_engine_torch) -> toolchain: transformer-engine[pytorch]
    torch_extension_not_installed  "No module named 'X'" for a torch-extension distribution's import name (flash_attn,
                         xformers, mamba_ssm) -> toolchain: its build for the installed torch, CUDA and Python
    package_without_framework_ops  "X was not built with PyTorch support" (Open3D's ML module) -> toolchain: a build
                         of X with that framework's ops (Open3D: its Linux x86_64 wheels, or BUILD_PYTORCH_OPS)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _MODULE_SUFFIX, CONTEXT_TAIL, _match, _sig, last_in_tail, last_near
from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import compiled_modules

_CPP_EXTENSION = {"url": "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
                  "what": "load_inline writes cpp_sources to main.cpp and cuda_sources to cuda.cu in the extension's build "
                          "directory, then builds them with ninja"}
_IMPORTDL = {"url": "https://github.com/python/cpython/blob/main/Python/importdl.c",
             "what": "\"dynamic module does not define module export function (PyInit_%s)\": the shared library has no "
                     "PyInit_<name> for the name it is imported under"}

# load_inline's two source files, in the build folder it names after the extension (torch_extensions/<name>/ by
# default, or the build_directory given); a compiler diagnostic placed in one of them is about the code passed in
_INLINE_SOURCE = re.compile(r"(?:torch_extensions|build)[/\\](?:[\w.+-]{1,80}[/\\]){1,3}(?P<file>main\.cpp|cuda\.cu)"
                            r"(?::\d{1,6}(?::\d{1,4})?:\s{0,4}(?:error|catastrophic error)|:\s{0,4}In\s{1,4}"
                            r"(?:member\s{1,4})?function|\(\d{1,6}\):\s{0,4}error)")
# what a missing or refused tool, header or version says: then the build's environment failed, not the code
_TOOLCHAIN_SIGNS = re.compile(r"(?i)No such file or directory|fatal error:|nvcc fatal|unsupported (?:GNU|clang|Microsoft)"
                              r"|not found|command not found|is not recognized|cannot find -l|Unsupported gpu architecture"
                              r"|#error|CUDA_HOME|Ninja is required|ld returned|undefined reference|mismatches the version")


def inline_source_error(ent, text):
    """A run-time build whose compiler reports an error inside load_inline's own main.cpp / cuda.cu: that file holds
    exactly the code the program passed, so the fix is in that code, not in the installation."""
    m, at = last_in_tail(_INLINE_SOURCE, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    if _TOOLCHAIN_SIGNS.search(tail):
        return None
    sig = _sig("inline-extension-source-error", "not-environment",
               "the code given to load_inline does not compile ({file})", 78,
               "torch.utils.cpp_extension.load_inline writes the C++ sources it is given to main.cpp (and the CUDA "
               "sources to cuda.cu) in the extension's build folder and compiles them; the compiler's error is placed "
               "in {file}, that is in the code the program passed, and the text shows no tool, header or version "
               "missing.",
               look_at="Read the compiler's first `error:` under {file} (verbose=True prints the whole build) and fix "
                       "that line of the source string given to load_inline (a missing semicolon, an undeclared name, "
                       "a signature that does not match `functions=`); the installation needs no change.",
               areas=("toolchain",), sources=(_CPP_EXTENSION,))
    return _match(sig, text, at, {"file": m.group("file")})


_INIT_MISSING = re.compile(r"dynamic module does not define (?:module export|init) function \((?P<init>(?:PyInit_|init)"
                           r"(?P<name>\w{1,120}))\)|dynamic module does not define module export function\b")


def module_init_missing(ent, text):
    """Python found a compiled file for the import but no PyInit_<name> in it for that name: the module inside was
    built under another name (a renamed .so, or PYBIND11_MODULE / TORCH_EXTENSION_NAME other than the file's name),
    for Python 2 (whose init function is init<name>), or a stale build left in place."""
    m, at = last_in_tail(_INIT_MISSING, text, "dynamic module does not define")
    if m is None:
        return None
    name = m.group("name")
    py2 = bool(m.group("init")) and m.group("init").startswith("init")
    sig = _sig("module-init-function-missing", "toolchain",
               "the compiled module {name|imported} has no init function for the name it is imported under", 80,
               "A compiled Python module must export PyInit_<name> for the file name it is imported by; this one "
               "does not" + (" (init<name> is Python 2's convention: the module was built for Python 2)" if py2 else "")
               + ". The module inside was built under another name (the file renamed, or the name in PYBIND11_MODULE "
               "/ TORCH_EXTENSION_NAME differs from the file's), built for another Python, or a stale build from "
               "before a change of name is found first on the path.",
               fix="Rebuild the extension cleanly for the Python that imports it (delete its build folder and old "
                   ".so files, then build again, e.g. `python setup.py clean --all && pip install --no-build-isolation "
                   ".`); keep the module name in the binding code (PYBIND11_MODULE / TORCH_EXTENSION_NAME, setup.py's "
                   "extension name) equal to the name it is imported as, and never rename a built .so/.pyd.",
               areas=("toolchain",), sources=(_IMPORTDL,))
    return _match(sig, text, at, {"name": name})


# the importing frame: a file of an installed package (site-packages/<pkg>/...) whose line imports the module
_IMPORT_FRAME = re.compile(r"File \"(?P<path>[^\"\n]{0,300}?[/\\](?:site|dist)-packages[/\\](?P<pkg>[A-Za-z_]\w{0,80})[/\\]"
                           r"[^\"\n]{1,200})\", line \d{1,7}[^\n]{0,200}\n\s{0,12}(?:import (?P<imp>[A-Za-z_]\w{0,80}(?:\.[A-Za-z_]\w{0,80})?)|"
                           r"from (?P<frm>[A-Za-z_]\w{0,80}) import)")
# (a package's compiled submodule too, "No module named 'torch_cluster.graclus_cuda'", when the package's own file
# imports it)
_NO_TOP_MODULE = re.compile(r"No module named '(?P<mod>[A-Za-z_]\w{0,80}(?:\.[A-Za-z_]\w{0,80})?)'|"
                            r"NameError: name '(?P<name>[A-Za-z_]\w{0,80})' is not defined")


def _compiled_name(mod: str) -> bool:
    return bool(_MODULE_SUFFIX.search(mod))


def package_cuda_module_missing(ent, text):
    """A package's own top-level compiled module (causal_conv1d_cuda, selective_scan_cuda) that cannot be imported
    from the package's own code: the package was installed without its extension (a wheel without it, a build that
    failed or was skipped). The NameError form is the same failure when the package caught the ImportError."""
    m, at = last_in_tail(_NO_TOP_MODULE, text)
    if m is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    mod = m.group("mod") or m.group("name")
    dotted = "." in mod
    if not _compiled_name(mod) or (mod.startswith("torch") and not dotted) or \
            mod.split(".")[0] in ("torch", "torchvision", "torchaudio"):
        return None
    frame = None
    for f in _IMPORT_FRAME.finditer(tail[:m.start()]):
        if (f.group("imp") or f.group("frm")) == mod:
            frame = f
    nameerror = m.group("name") is not None
    pkg = frame.group("pkg") if frame else None
    if dotted and pkg != mod.split(".")[0]:
        return None  # a package's submodule imported by another's code (or a program's) is not its missing build
    if pkg is None and not nameerror and not mod.endswith("_cuda"):
        # without the importing frame only a NameError, or a module named *_cuda, says it is a package's compiled part
        return None
    if pkg in ("torch", "torchvision", "torchaudio"):
        return None
    dist = (pkg or "").replace("_", "-") or None
    if dist is None:
        # no importing frame: a module named for its distribution once the conventional suffix is dropped
        # (flash_attn_2_cuda, causal_conv1d_cuda) names it, when that is a known torch-extension distribution
        dist = compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.get(_MODULE_SUFFIX.sub("", mod.split(".")[0]))
    known = compiled_modules.distribution_of(mod)
    if known:
        # a module named unlike its distribution (apex's fused_layer_norm_cuda): the table says whose it is and how
        # that distribution builds it
        dist = known["distribution"]
    sig = _sig("package-cuda-module-missing", "toolchain",
               "{dist|a package}'s own compiled module {mod} is not there", 82,
               "{mod} is the compiled (C++/CUDA) extension " + ("that {dist}'s own code imports" if dist else
               "a package imports and then uses by name") + ("; the package caught the failed import, so the error "
               "surfaces later as a NameError" if nameerror else "") + ". The package was installed without it: a "
               "wheel without compiled parts, or a source build that failed or was skipped (its build needs torch and a "
               "CUDA toolkit).",
               fix=(known["build"].replace("{", "(").replace("}", ")") if known else
                    "Install {dist|the package} with its extension built for the installed torch, CUDA and Python: its "
                    "prebuilt wheel for exactly that torch / CUDA / Python (the project's release page or index), or a "
                    "build against the installed torch: `pip install --no-build-isolation --no-cache-dir "
                    "{dist|<package>}` with a CUDA toolkit of torch's CUDA version (nvcc on PATH, CUDA_HOME set). Read "
                    "the build's own first error if it fails."),
               areas=("toolchain",),
               sources=((_CPP_EXTENSION,) + (({"url": known["source"], "what": f"{dist}'s build names {mod}"},)
                                             if known else ())))
    return _match(sig, text, at, {"dist": dist, "mod": mod})


# a compiler process killed while building: gcc's and nvcc's own words, or the shell's "Killed" right after a compile
# command; the build ran out of host memory with too many parallel compile jobs
_TOOL_KILLED = re.compile(r"fatal error: Killed signal terminated program (?P<tool>cc1plus|cc1|as|ld)|"
                          r"'(?P<tool2>cicc|ptxas|cudafe\+\+|nvlink|fatbinary)' died due to signal (?:9|kill)|"
                          r"(?m:^\s{0,4}Killed\s{0,4}$)")
_COMPILE_COMMAND = re.compile(r"nvcc|-gencode|\bc\+\+ |\bg\+\+ |cc1plus|TORCH_EXTENSION_NAME|\bninja\b|Building wheel|"
                              r"building '[\w.]{1,80}' extension|-DTORCH_API_INCLUDE_EXTENSION_H")


def compiler_killed(ent, text):
    """A compiler (cc1plus, nvcc's cicc/ptxas) killed by signal 9 during an extension's build: the kernel's
    out-of-memory killer, when the parallel compile jobs need more memory than the machine has."""
    m, at = last_in_tail(_TOOL_KILLED, text)
    if m is None:
        return None
    before = text[max(0, at - 3000):at]
    if not (m.group("tool") or m.group("tool2")) and not _COMPILE_COMMAND.search(before):
        return None
    tool = m.group("tool") or m.group("tool2") or "the compiler"
    sig = _sig("compiler-killed-out-of-memory", "toolchain",
               "{tool} was killed while building: the build ran out of memory", 86,
               "The compile step was killed by signal 9, which the kernel's out-of-memory killer sends: ninja runs as "
               "many compile jobs as there are CPUs, and CUDA extensions (flash-attn, xformers, DeepSpeed's ops) need "
               "several GB each, more than the machine (or the container's memory limit) has.",
               fix="Build with fewer parallel jobs: `MAX_JOBS=2 pip install --no-build-isolation <package>` (or "
                   "MAX_JOBS=4 with more memory; torch's cpp_extension and ninja honour it), add swap or memory, or "
                   "install the package's prebuilt wheel for this torch / CUDA / Python instead of building.",
               areas=("toolchain",), sources=(_CPP_EXTENSION,
                                              {"url": "https://github.com/Dao-AILab/flash-attention#installation-and-features",
                                               "what": "flash-attn: limit parallel compile jobs with MAX_JOBS on machines "
                                                       "with less RAM"}))
    return _match(sig, text, at, {"tool": tool})


# setup.py files that build CUDA ops when torch.cuda.is_available() (or FORCE_CUDA) and say so otherwise: mmcv's
# "Compiling mmcv._ext without CUDA" (open-mmlab/mmcv setup.py), and the same wording in other packages' builds
_WITHOUT_CUDA = re.compile(r"\b(?:Compiling|Building|building|compiling) (?P<pkg>[A-Za-z][\w.-]{1,60}) (?:only )?without "
                           r"(?:CUDA|GPU)(?: support)?\b")
_MMCV_BUILD = {"url": "https://mmcv.readthedocs.io/en/latest/get_started/build.html",
               "what": "building mmcv: CUDA ops need torch with CUDA and the toolkit; FORCE_CUDA=1; MMCV_WITH_OPS=1"}


def extension_built_without_cuda(ent, text):
    m, at = last_in_tail(_WITHOUT_CUDA, text, "without")
    if m is None:
        return None
    pkg = m.group("pkg")
    mmcv = pkg.lower().startswith("mmcv")
    sig = _sig("extension-built-without-cuda", "toolchain", "{pkg} is being built without its CUDA code", 80,
               "The package's build compiles its CUDA operators only when it sees CUDA: torch's CUDA build "
               "(torch.cuda.is_available(), or torch.version.cuda with no GPU visible during the build) and the CUDA "
               "toolkit (nvcc, CUDA_HOME). Here it saw neither, so the result has CPU code only and its CUDA ops fail "
               "at run time.",
               fix="Build where torch is the CUDA build (`python -c \"import torch; print(torch.version.cuda)\"` must "
                   "not print None) and nvcc is the toolkit of that CUDA, and force the CUDA code when no GPU is "
                   "visible during the build (a docker build): `FORCE_CUDA=1 TORCH_CUDA_ARCH_LIST=\"8.6\"` (your GPUs' "
                   "capabilities)" + (" with MMCV_WITH_OPS=1; or install the prebuilt mmcv for your torch and CUDA: "
                                      "`pip install -U openmim && mim install mmcv`." if mmcv else
                                      "; or install the package's prebuilt CUDA wheel for your torch."),
               areas=("extension",), sources=(_MMCV_BUILD,) if mmcv else ())
    return _match(sig, text, at, {"pkg": pkg})


# the loader naming the missing file itself (a dependency it lacks would be named instead), or a package's own loader
# reporting the file it could not load.  The loader's form is read around its words (the file, then at most 300
# characters of its folder), so a text of many paths is not scanned from every position
_OWN_LIBRARY_PATH = re.compile(r"(?P<path>[^\s'\":]{0,300}[/\\])?(?P<file>[A-Za-z_][\w.-]{0,80}\.(?:so(?:\.\d{1,4}){0,3}|pyd|"
                               r"dylib)): cannot open shared object file")
_OWN_LIBRARY_NAMED = re.compile(r"\bFile (?P<file>[A-Za-z_][\w.-]{0,80}\.(?:so|pyd|dylib)) not found|"
                                r"Could not load the library '(?P<file3>[A-Za-z_][\w.-]{0,80}\.(?:so|pyd|dylib|dll))'")


def _own_library_named(text: str):
    """(the file, the folder it sits in or None, its position in text) for the last failure naming a library's own
    file, or None."""
    m, at = last_near(_OWN_LIBRARY_PATH, text, ": cannot open shared object file", 420)
    found = None
    if m is not None:
        folder = re.split(r"[/\\]", m.group("path").rstrip("/\\"))[-1] if m.group("path") else None
        found = (m.group("file"), folder, at)
    tail = text[-CONTEXT_TAIL:]
    named = last_match(_OWN_LIBRARY_NAMED, tail) if ("File " in tail or "Could not load the library" in tail) else None
    if named is not None and (found is None or len(text) - len(tail) + named.start() > found[2]):
        found = (named.group("file") or named.group("file3"), None, len(text) - len(tail) + named.start())
    return found


# companions whose own loading failures other rules read (torch's, and its domain libraries' version checks)
_NOT_HERE = frozenset({"torch", "torchvision", "torchaudio"})


def _library_owner(folder: str | None, file: str) -> str | None:
    """The torch-extension distribution a compiled library belongs to: the package folder it sits in, else the import
    name its file name starts with (fbgemm_gpu_py.so: fbgemm_gpu)."""
    table = compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS
    if folder and folder in table:
        return None if folder in _NOT_HERE else table[folder]
    return compiled_modules.distribution_by_prefix(file.split(".", 1)[0], _NOT_HERE)


def package_library_missing(ent, text):
    """A torch-extension package's own compiled library missing where the package loads it: the package was installed
    without it, or as a build for another torch (its loader names the file it could not open)."""
    found = _own_library_named(text)
    if found is None:
        return None
    file, folder, at = found
    dist = _library_owner(folder, file)
    if dist is None:
        return None
    page = compiled_modules.ON_TORCH_INDEX.get(dist)
    sig = _sig("package-library-missing", "toolchain", "{dist}'s own compiled library {file} cannot be loaded", 80,
               "{file} is {dist}'s compiled library, which the package loads into torch when it is imported. The "
               "package was installed without it, or as a build for another torch and CUDA (a nightly beside a stable "
               "torch, a CUDA variant beside a CPU torch), whose files and layout differ.",
               fix=("Install {dist}'s release paired with the installed torch, from the index torch came from, "
                    "leaving torch as it is: `pip install --force-reinstall --no-deps \"{dist}==<the release its "
                    "compatibility table pairs with your torch>\" --index-url https://download.pytorch.org/whl/<torch's "
                    "cu tag>` (a nightly torch takes the nightly build of the same date, whl/nightly/<cu tag>)." if page else
                    "Install {dist}'s build for the installed torch, CUDA and Python (its release that names this "
                    "torch), or build it against the installed torch, leaving torch as it is: `pip install "
                    "--no-build-isolation --no-cache-dir --force-reinstall --no-deps {dist}` with a CUDA toolkit of "
                    "torch's CUDA version."),
               areas=("extension",),
               sources=(({"url": page, "what": f"{dist}: installed from PyTorch's index per CUDA, paired with a torch "
                                               f"release"},) if page else (_CPP_EXTENSION,)))
    return _match(sig, text, at, {"dist": dist, "file": file})


# GNU ld / gold / lld on an object file it cannot read: built by another compiler or for another architecture, or
# truncated (a build killed while writing it): what a clean rebuild replaces
_NOT_RECOGNIZED = re.compile(r"(?P<obj>[^\s:'\"]{1,300}\.(?:o|obj|a|so))\b:\s{0,2}(?:file not recognized|file format not "
                             r"recogni[sz]ed)(?::\s{0,2}File (?:format not recognized|truncated))?")


def object_file_not_recognized(ent, text):
    m, at = last_near(_NOT_RECOGNIZED, text, "not recogni", 400, 80)
    if m is None:
        return None
    sig = _sig("object-file-not-recognized", "toolchain", "the linker cannot read {obj}: a stale or broken build file", 80,
               "The linker met {obj}, an object or library it cannot read: left by an earlier build with another "
               "compiler, CUDA or architecture (a checkout copied from another machine, a build folder kept across "
               "upgrades), or cut short when a build was killed. The build reuses it instead of compiling it again.",
               fix="Delete the build's intermediate files and rebuild from clean: remove {obj} and the build folders "
                   "(build/, *.o and *.so in the source tree, the extension's torch_extensions cache, `git clean -xdf` "
                   "in a checkout you have no changes in), then run the build again with the compiler you mean.",
               areas=("toolchain",), sources=(_CPP_EXTENSION,))
    return _match(sig, text, at, {"obj": m.group("obj")[-200:]})


# Transformer Engine's PyTorch module loads its framework extension (transformer_engine_torch) by globbing for it
# (transformer_engine/pytorch/__init__.py: _load_library); none installed ends in StopIteration
_TE_TORCH = re.compile(r"transformer_engine[/\\]pytorch[/\\]__init__\.py\", line \d{1,6}, in _load_library[\s\S]{0,600}?"
                       r"StopIteration|No module named 'transformer_engine_torch'")


def transformer_engine_torch_missing(ent, text):
    m, at = last_in_tail(_TE_TORCH, text)
    if m is None:
        return None
    sig = _sig("transformer-engine-torch-missing", "toolchain",
               "Transformer Engine's PyTorch extension (transformer_engine_torch) is not installed", 83,
               "transformer-engine's core package does not include the framework extensions: its PyTorch part is the "
               "transformer-engine-torch package (installed with the [pytorch] extra), built against the installed "
               "torch. Without it, `import transformer_engine.pytorch` finds no library to load.",
               fix="Install the PyTorch extension for the installed torch: `pip install --no-build-isolation "
                   "\"transformer-engine[pytorch]\"` (it builds transformer-engine-torch against torch; a CUDA toolkit of "
                   "torch's CUDA and cuDNN headers are needed), or NVIDIA's PyTorch container, which ships it.",
               areas=("extension",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/installation.html",
                         "what": "Transformer Engine installation: pip install transformer_engine[pytorch]"},))
    return _match(sig, text, at, {})


_NO_MODULE_TOP = re.compile(r"No module named '(?P<mod>[A-Za-z_]\w{1,60})'")
_NOT_HERE_EITHER = _NOT_HERE | frozenset({"apex", "deepspeed", "vllm", "fairseq"})


def torch_extension_not_installed(ent, text):
    """A torch-extension distribution's package itself not importable: not installed in this environment (a failed or
    skipped build, another Python's site-packages)."""
    m, at = last_in_tail(_NO_MODULE_TOP, text, "No module named")
    if m is None:
        return None
    mod = m.group("mod")
    dist = compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.get(mod)
    if dist is None or mod in _NOT_HERE_EITHER:
        return None
    sig = _sig("torch-extension-not-installed", "toolchain", "{dist} ({mod}) is not installed in this environment", 79,
               "{mod} is {dist}, a package whose compiled part is built for one torch, CUDA and Python: it is not installed "
               "in the environment that runs the program (its install failed or was skipped: building it needs torch, a "
               "compiler and a CUDA toolkit; or it went into another Python).",
               fix="Install {dist} in this environment, in its build for the installed torch, CUDA and Python: its "
                   "prebuilt wheel where the project publishes one (its release page or index), else `python -m pip "
                   "install --no-build-isolation {dist}` with a CUDA toolkit of torch's CUDA version; or run the program "
                   "with its option that does without it, where it has one.",
               areas=("extension",), sources=(_CPP_EXTENSION,))
    return _match(sig, text, at, {"dist": dist, "mod": mod})


# a package with optional framework ops checking its own build: Open3D's open3d/ml/torch raises
# "Open3D was not built with PyTorch support!" when _build_config has no Pytorch_VERSION
_NO_FRAMEWORK_OPS = re.compile(r"(?P<pkg>[A-Z][\w.-]{1,40}) was not built with (?P<fw>PyTorch|TensorFlow) support")
_OPEN3D_ML = {"url": "https://github.com/isl-org/Open3D-ML#installation",
              "what": "Open3D-ML ships in Open3D's Python distribution for particular PyTorch/TensorFlow versions (CUDA on "
                      "GNU/Linux x86_64)"}
_OPEN3D_BUILD = {"url": "https://www.open3d.org/docs/latest/compilation.html",
                 "what": "building Open3D from source: the ML module's options (BUILD_PYTORCH_OPS, BUILD_TENSORFLOW_OPS)"}


def package_without_framework_ops(ent, text):
    m, at = last_in_tail(_NO_FRAMEWORK_OPS, text, "was not built with")
    if m is None:
        return None
    pkg, fw = m.group("pkg"), m.group("fw")
    flag = "BUILD_PYTORCH_OPS" if fw == "PyTorch" else "BUILD_TENSORFLOW_OPS"
    open3d = pkg.lower() == "open3d"
    sig = _sig("package-without-framework-ops", "toolchain", "this {pkg} was built without its {fw} ops", 82,
               "{pkg}'s {fw} module needs {pkg} built with its {fw} ops, and the installed build has none" +
               (": Open3D's wheels carry its ML ops for the PyTorch and TensorFlow versions its release names, and not "
                "on every platform (its Windows pip wheels are built without the PyTorch ops)." if open3d else "."),
               fix=("Use Open3D's ML module where its wheels have the ops (Linux x86_64, or WSL 2 on Windows) with the "
                    "PyTorch version that Open3D release names (Open3D-ML's requirements-torch.txt / "
                    "requirements-torch-cuda.txt), or build Open3D from source with `cmake -DBUILD_PYTORCH_OPS=ON "
                    "-DBUNDLE_OPEN3D_ML=ON ..`." if open3d and fw == "PyTorch" else
                    "Install a build of {pkg} that includes its {fw} ops for your {fw} version, or build it from source "
                    "with them enabled (" + flag + "=ON for Open3D)."),
               areas=("extension",), sources=(_OPEN3D_ML, _OPEN3D_BUILD) if open3d else (_OPEN3D_ML,))
    return _match(sig, text, at, {"pkg": pkg, "fw": fw})
