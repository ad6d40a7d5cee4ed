"""Layer rules for compiled packages: a binary built against another torch, NumPy, C++ runtime or CUDA library
than the one it runs with, and a package's own compiled part missing or not loading.

    abi_tag          GLIBC_/GLIBCXX_/CXXABI_ x not found             -> c-runtime
    torch_abi        a binary wants a c10::/at::/torch:: symbol       -> that package was built for another torch
    built_for        "X was built for PyTorch A (you have B)"          -> X's build, or torch's (B is +cpu)
    library_symbol   nccl*/cublas*/cusparse*/cudnn*/__nvJitLink* wanted -> two versions of that library mixed
    package_binary_missing  a package's own native library missing       -> that package's build for this CUDA
    package_ops_registration_fails  a package's frame calls into torch.library and fails -> its build for this torch
    package_dll_load_failed  Windows cannot load a third-party package's compiled module -> its build for this torch
    package_version_range  a package's import-time check of another's version range -> one in range
    package_op_without_backend  a package's operator with no CUDA kernel  -> its CUDA build (a Jetson's own)
    cupy_for_another_cuda  CuPy cannot load a CUDA N library             -> cupy-cudaNx for the CUDA installed
    numpy_api_version  a module compiled against a newer NumPy C API     -> NumPy >= the release with that C API
    torch_module_removed  a package importing a torch module a release removed (torch._six) -> that package's release
                     for the installed torch
    cython_api_mismatch  Cython's "X does not export expected C function Y" / "has wrong signature" -> the importing
                     package built against another release of X's package: both at one release
    tensorflow_abi   a custom op (a TensorFlow companion package's, or one's own) wanting a tensorflow:: symbol -> that
                     package's release for the installed TensorFlow, or TensorFlow's own compile and link flags"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import compiled_modules, numpy_capi
from torch_envcheck.knowledge.releases import (TORCHTEXT_LAST, removed_module, torchaudio_for, torchtext_for,
    torchvision_for)
from torch_envcheck.explain.layer_rules.kit import (CONTEXT_TAIL, SOURCES, _NOT_THE_PACKAGE, _basename, _cu_tag,
    _match, _module_of, _named_package, _owner_of, _sig, _torch_owned, package_guess, last_in_tail, last_near)


def abi_tag(ent, text):
    if not ent.abi_tags:
        return None
    tags = ent.abi_tags
    t = tags[-1]
    cxx = [x for x in tags if x.get("kind") == "libstdc++"]
    glibc = [x for x in tags if x.get("kind") == "glibc"]
    required = t.get("required_by") or ""
    if required.startswith("/.singularity.d/libs/") and t.get("kind") == "glibc":
        return _host_library_in_container(t, text)
    owner = _owner_of(ent, required) or package_guess(required) if required else None
    caps = {"tag": t["tag"], "needs": t.get("needs"), "required_by": required, "provider_file": t.get("provider_file"),
            "package": owner}
    parts = []
    fixes = []
    if cxx:
        c = cxx[-1]
        gcc = (c.get("gcc") or "").split(".")[0]
        caps["gcc_major"] = gcc or None
        provider = c.get("provider_file") or ""
        conda = bool(re.search(r"conda|mamba|/envs/|miniforge", provider))
        parts.append("{provider_file|libstdc++.so.6} has no " + c["tag"] + ": the libstdc++ loaded is older than "
                     "{required_by|the module being imported} needs (" + (c.get("needs") or "a newer GCC") + ").")
        if conda:
            fixes.append("The libstdc++ in the conda env is the old one: update it there, "
                         "`conda install -c conda-forge 'libstdcxx-ng>={gcc_major|12}'` (or `libstdcxx>={gcc_major|12}`),"
                         " or make the system's newer one load first: `export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libstdc++.so.6`.")
        else:
            fixes.append("The system's libstdc++ is the old one: use a conda/mamba env's newer libstdc++ "
                         "(`conda install -c conda-forge 'libstdcxx-ng>={gcc_major|12}'` and put $CONDA_PREFIX/lib on "
                         "LD_LIBRARY_PATH), install a newer GCC's libstdc++6, or install a build of the package made "
                         "for this older libstdc++ (an older release, or built from source here).")
    if glibc:
        g = glibc[-1]
        caps["glibc"] = g.get("glibc")
        caps["manylinux"] = g.get("manylinux")
        caps["first_in"] = ", ".join(g.get("first_in") or []) or None
        parts.append("{required_by|A compiled module} was built for glibc " + (g.get("glibc") or "?") +
                     " (" + (g.get("manylinux") or "") + "); this system's C library (glibc) is older. glibc is "
                     "the operating system's and cannot be upgraded inside a Python environment.")
        fixes.append("Install a build of {package|the package} made for this older glibc (an older release, or a "
                     "manylinux2014 wheel: `pip download` shows which releases have one), build it from source on this "
                     "machine, or run in a container / OS with glibc " + (g.get("glibc") or "") +
                     " or newer ({first_in|a newer distribution}).")
    sig = _sig("c-runtime-version-not-found", "c-runtime",
               "the C/C++ runtime is older than a compiled module needs (" + ", ".join(x["tag"] for x in tags[-2:]) + ")",
               91, " ".join(parts), fix="\n".join(fixes),
               causes=(("old-runtime", "the libstdc++/glibc found first is older than the one the module was built "
                        "against", ("TE904",)),), areas=("platform", "conda"),
               sources=(SOURCES["libstdcxx"], SOURCES["glibc"]))
    return _match(sig, text, t["at"], caps)


def _host_library_in_container(t: dict, text: str):
    """A GLIBC_ tag wanted by a file under /.singularity.d/libs: Apptainer/Singularity's --nv bound that library from
    the host (nvliblist.conf), so it was built for the host's glibc, newer than the container's."""
    sig = _sig("host-library-newer-than-container", "container",
               "a host library bound by --nv needs {tag}, newer than the container's glibc", 92,
               "{required_by} is not the container's own: Apptainer/Singularity's --nv binds the host's NVIDIA and GL "
               "libraries listed in nvliblist.conf into /.singularity.d/libs, and the host's were built against its "
               "newer glibc ({tag}); the container's C library is older, so the loader refuses the host library.",
               fix="Build the container from a base image whose glibc is at least the host's (`ldd --version` on the "
                   "host; e.g. a newer Ubuntu base), or leave this library out of the bind: remove its line from "
                   "nvliblist.conf (the administrators' copy, or a private one via --nvccli / the container's own GL "
                   "libraries) when the program does not need the host's GL.",
               areas=("platform",),
               sources=({"url": "https://apptainer.org/docs/user/latest/gpu.html",
                         "what": "Apptainer GPU support: --nv binds the host libraries listed in nvliblist.conf"},
                        SOURCES["glibc"]))
    return _match(sig, text, t["at"], {"tag": t["tag"], "required_by": t.get("required_by")})


# A traceback frame in a package's __init__.py: "File ".../torchaudio/__init__.py", line 5" or IPython's
# "~/repo/audio/torchaudio/__init__.py in <module>()".
_INIT_FRAME = re.compile(r"[/\\](?P<pkg>[A-Za-z_][A-Za-z0-9_]{0,60})[/\\]__init__\.py\b")


def _frame_importing(text: str, mod: str, at: int) -> str | None:
    """The package of the traceback frame whose source line imports `mod` (`import selective_scan_cuda` in
    .../mamba_ssm/ops/selective_scan_interface.py -> mamba_ssm): a top-level compiled module belongs to the package
    that imports it.  None when no such frame precedes `at` or the frame is torch's or the standard library's."""
    frame = re.compile(r'File "(?P<path>[^"\n]{1,400})", line \d{1,6}[^\n]{0,200}\n[>\s]{0,12}(?:import|from) ' +
                       re.escape(mod) + r'\b')
    found = None
    for found in frame.finditer(text, max(0, at - 6000), at + 1):
        pass
    if found is None:
        return None
    dirs = [d for d in re.split(r"[/\\]", found.group("path"))[:-1] if d]
    if "site-packages" in dirs or "dist-packages" in dirs:
        i = max(i for i, d in enumerate(dirs) if d in ("site-packages", "dist-packages"))
        pkg = dirs[i + 1] if i + 1 < len(dirs) else None
    else:
        # a source checkout: the nearest folder above the module's that is not a package's usual sub-folder
        pkg = next((d for d in reversed(dirs) if d not in _SUBPACKAGE_NAMES), None)
    if not pkg or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", pkg) or pkg in ("torch", "importlib"):
        return None
    return pkg


# the sub-folders packages commonly put their modules in (a frame there names the package one level up)
_SUBPACKAGE_NAMES = frozenset({"ops", "utils", "modules", "models", "layers", "kernels", "functional", "nn", "csrc", "src",
                               "lib", "core", "extensions", "ext", "cuda", "cpp", "triton", "backends", "_ext"})


def _importing_package(text: str, path: str | None, at: int) -> str | None:
    """The package that imported a private top-level compiled module (site-packages/_torch_sox.so, no folder of its
    own): the last `<package>/__init__.py` frame of the traceback before the error.  None when the module sits in a
    package folder (that folder says it) or no such frame precedes it."""
    mod = _module_of(path or "")
    if not mod:
        return None
    parts = [x for x in re.split(r"[/\\]", path or "")[:-1] if x]
    if parts and parts[-1] not in ("site-packages", "dist-packages"):
        return None
    if not mod.startswith("_"):
        return _frame_importing(text, mod, at)
    frame = None
    for frame in _INIT_FRAME.finditer(text, max(0, at - 4000), at):
        pass
    if frame is None or frame.group("pkg") in ("torch", "importlib"):
        return None
    return frame.group("pkg")


# names a compiled module takes for its role, not its package (_C.so, common_ops.abi3.so, _ext.so)
_ROLE_WORDS = frozenset({"c", "common", "ext", "core", "lib", "main", "native", "ops", "op", "kernels", "kernel", "cuda",
                         "cpp", "backend", "extension", "extensions", "functions", "module", "custom", "layers"})


# the package a text imports: "from detectron2.engine import X", "import sgl_kernel", "import common_ops from sgl_kernel",
# or a compiled submodule by its dotted name ("detectron2._C failed to import", "No module named 'mmcv._ext'")
_IMPORTS = re.compile(r"\bfrom (?P<a>[A-Za-z_]\w{1,60})(?:\.\w{1,60}){0,6} import\b|"
                      r"(?m:^)[ \t>]{0,12}import (?P<b>[A-Za-z_]\w{1,60})\b|"
                      r"\bimport \w{1,60} from (?P<c>[A-Za-z_]\w{1,60})\b|"
                      r"\b(?P<d>[A-Za-z][\w]{1,60})\._(?:C|ext|\w{1,30}_(?:C|cuda|ext|ops|cpp))\b")


_NOT_IMPORTED_PACKAGES = frozenset({"os", "sys", "re", "json", "time", "math", "typing", "collections", "functools",
                                   "subprocess", "pathlib", "importlib", "ctypes", "numpy", "np", "torch", "torchvision",
                                   "torchaudio", "triton", "tensorflow", "tf", "__future__", "setuptools", "pip"})


def _imported_package(text: str, allow: frozenset = frozenset()) -> str | None:
    """The last third-party package the text imports (or names a compiled submodule of); `allow` lets some of the
    frameworks count."""
    found = None
    for m in _IMPORTS.finditer(text[-CONTEXT_TAIL:]):
        name = next(g for g in m.groups() if g)
        if (name.lower() not in _NOT_IMPORTED_PACKAGES or name.lower() in allow) and not name.startswith("_"):
            found = name
    return found


def _traceback_package(ent) -> str | None:
    """The last third-party distribution whose files the traceback passes through (site-packages/<dist>/..., an egg's
    folder included): when the failing binary is not named, the package being imported owns it."""
    for p in reversed(ent.paths):
        dist = p.get("distribution")
        if dist and dist.lower() not in _NOT_IMPORTED_PACKAGES and dist.lower() not in _NOT_THE_PACKAGE \
                and not dist.startswith(("nvidia-", "_")) and dist.lower().strip("_") not in _ROLE_WORDS:
            return dist
    return None


# torch.utils.cpp_extension.load() builds a JIT extension into TORCH_EXTENSIONS_DIR (default
# ~/.cache/torch_extensions/py<XY>_<cuda tag>/<name>/<name>.so) and imports it from there: that file missing means its
# build failed (or was interrupted) before; the build log, not a library path, has the cause
_JIT_EXT_MISSING = re.compile(r"torch_extensions[/\\](?:[\w.]{1,40}[/\\])?(?P<op>[A-Za-z_]\w{0,60})[/\\](?P=op)\.(?:so|pyd)"
                              r"[^\n]{0,120}?(?:cannot open shared object file|No such file|could not be found|"
                              r"not found|[Ee]rror loading)")


# the packages that JIT-build their ops this way and how each prebuilds one instead (DeepSpeed:
# https://www.deepspeed.ai/tutorials/advanced-install/ , DS_BUILD_<OP>=1 or DS_BUILD_OPS=1 at install time)
_JIT_BUILDERS = (
    (re.compile(r"(?i)\bdeepspeed\b|DeepSpeed[A-Z]\w{0,40}"), "deepspeed",
     "install DeepSpeed with the op prebuilt: `DS_BUILD_{OP}=1 pip install --no-cache-dir --force-reinstall deepspeed` "
     "(DS_BUILD_OPS=1 for all; `ds_report` lists which ops are compatible and installed)",
     "https://www.deepspeed.ai/tutorials/advanced-install/"),
)


def jit_extension_missing(ent, text):
    """A JIT-compiled torch extension's .so missing from torch's extensions cache: its build failed earlier; the fix
    is that build (its log: compiler, nvcc, ninja), or the owning package's prebuilt op."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_JIT_EXT_MISSING, tail)
    if m is None:
        return None
    op = m.group("op")
    how, src = None, SOURCES["ext"]
    for pattern, _pkg, prebuilt, url in _JIT_BUILDERS:
        if pattern.search(tail):
            how, src = prebuilt.replace("{OP}", op.upper()), {"url": url, "what": "prebuilding the package's ops"}
            break
    sig = _sig("jit-extension-build-failed", "toolchain",
               "the JIT-compiled extension {op} was never built: its .so is missing from torch's extensions cache", 84,
               "torch.utils.cpp_extension.load() compiles {op} on first use into torch's extensions cache "
               "(TORCH_EXTENSIONS_DIR, ~/.cache/torch_extensions) and imports the .so from there. The file is missing, "
               "so that build failed or was interrupted; its own log (earlier in the output: the compiler's, nvcc's or "
               "ninja's first error) has the cause.",
               fix=("Find the first error of {op}'s build in the output above (a missing nvcc/CUDA_HOME, a compiler "
                    "nvcc does not support, a missing header or library) and fix it, then delete the cache folder "
                    "(~/.cache/torch_extensions/.../{op}) so it rebuilds; or " + how + ".") if how else
                   ("Find the first error of {op}'s build in the output above (a missing nvcc/CUDA_HOME, a compiler "
                    "nvcc does not support, a missing header or library) and fix it, then delete the cache folder "
                    "(~/.cache/torch_extensions/.../{op}) so it rebuilds, or install the package's prebuilt op."),
               causes=(("build-failed", "the extension's build failed", ("TE601", "TE602", "TE603")),),
               areas=("extension", "toolchain"), sources=(src, SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"op": op})


# NumPy's C API is a capsule a compiled module imports by name (numpy/core/include/numpy/__multiarray_api.h:
# _import_array looks up `_ARRAY_API`, _import_umath `_UFUNC_API`); NumPy 2 moved and changed it, so a module compiled
# against NumPy 1.x fails to find it ("AttributeError: _ARRAY_API not found", "_UFUNC_API not found")
_NUMPY_CAPSULE = re.compile(r"\b_(?P<api>ARRAY|UFUNC)_API (?:not found|is NULL pointer)")


def numpy_c_api_capsule(ent, text):
    """A compiled module that cannot find NumPy's C-API capsule was compiled against another NumPy (NumPy 1.x, run
    under NumPy 2): NumPy's layer, the module's owner named from the traceback."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NUMPY_CAPSULE, tail)
    if m is None:
        return None
    pkg = _traceback_package(ent)
    sig = _sig("numpy-c-api-capsule-not-found", "numpy",
               "a compiled module cannot find NumPy's C API (_{api}_API): it was compiled against another NumPy", 86,
               "Compiled modules reach NumPy's C functions through a capsule named _{api}_API, looked up when the module "
               "is imported. NumPy 2 changed that API, so a module compiled against NumPy 1.x ({package|the module "
               "being imported}) cannot find it under NumPy 2 (the same failure as \"A module that was compiled using "
               "NumPy 1.x cannot be run in NumPy 2\").",
               fix="Install `numpy<2` (`pip install \"numpy<2\"`) in this environment, or a {package|module's} release "
                   "built for NumPy 2 (most packages' releases from mid-2024 on), then keep numpy pinned accordingly.",
               causes=(("numpy2", "a module compiled for NumPy 1.x is imported with NumPy 2", ("TE250", "TE851")),),
               areas=("numpy",), sources=({"url": "https://numpy.org/devdocs/dev/depending_on_numpy.html",
                                           "what": "NumPy 2 ABI: modules built against NumPy 1.x do not run on 2.x"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"api": m.group("api"), "package": pkg})


# a package's private submodule that cannot be imported: its compiled part (mmcv._ext, detectron2._C, apex._C)
# (quotes of any kind: a paste through a word processor or an IME turns them typographic, ‘mmcv._ext’)
_PRIVATE_SUBMODULE = re.compile(r"No module named ['\"‘’“”](?P<pkg>[A-Za-z][\w]{1,60})\.(?P<sub>_[A-Za-z]\w{0,40})['\"‘’“”]|"
                                r"cannot import name ['\"‘’“”](?P<sub2>_[A-Za-z]\w{0,40})['\"‘’“”] from ['\"‘’“”]?(?P<pkg2>[A-Za-z][\w]{1,60})\b|"
                                # Python before 3.7 names no module: the import statement the text quotes does
                                r"\bfrom (?P<pkg3>[A-Za-z]\w{1,60}) import (?P<sub3>_[A-Za-z]\w{0,40})\b[^\n]{0,40}\n?[^\n]{0,80}?"
                                r"cannot import name ['\"](?P=sub3)['\"](?! from)")


def _source_checkout(ent, pkg: str) -> str | None:
    """The folder of a source checkout of `pkg` that the traceback imports from: a frame's file under
    <dir>/<pkg>/ outside any site-packages/dist-packages (the repository's own package folder), or None."""
    for p in reversed(ent.paths):
        path = p["path"].replace("\\", "/")
        if "-packages/" in path or "/lib/python" in path:
            continue
        i = path.find(f"/{pkg}/")
        if i > 0:
            return path[:i + len(pkg) + 1]
    return None


def package_compiled_part_missing(ent, text):
    """A package's private submodule (`pkg._ext`, `pkg._C`) missing is its compiled part: the installed
    distribution has no compiled ops (a pure-Python variant, or a build that failed or was skipped), whoever the
    package is.  torch's own `torch._C` is not this (running inside torch's source tree is)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_PRIVATE_SUBMODULE, tail)
    if m is None:
        return None
    pkg = m.group("pkg") or m.group("pkg2") or m.group("pkg3")
    sub = m.group("sub") or m.group("sub2") or m.group("sub3")
    if pkg.lower() in _NOT_IMPORTED_PACKAGES:
        return None
    checkout = _source_checkout(ent, pkg)
    if checkout:
        sig = _sig("package-imported-from-source-tree", "toolchain",
                   "{pkg} is imported from its source tree ({checkout}), where {pkg}.{sub} was never built", 80,
                   "The traceback runs through {checkout}, a source checkout of {pkg} (not an installed distribution in "
                   "site-packages): its compiled part {pkg}.{sub} exists only after the package is built, and Python "
                   "imports this folder first when the program runs from the checkout (or it is on PYTHONPATH).",
                   fix="Build and install {pkg} from the checkout as its INSTALL.md says: in the checkout `python -m pip "
                       "install --no-build-isolation -e .` (builds {pkg}.{sub} in place against the installed torch; "
                       "the CUDA toolkit of torch.version.cuda for its CUDA ops), then run the program; or install a "
                       "prebuilt {pkg} and run from another directory, so that the source folder no longer shadows it.",
                   causes=(), areas=("extension",), sources=(SOURCES["ext"],))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"pkg": pkg, "sub": sub, "checkout": checkout})
    r = last_match(_RESOLVER_TORCH, tail)
    replaced = r is not None and r.group("want") != r.group("have").split("+")[0]
    # pip's resolver says an install replaced the torch the other packages were built for
    sig = _sig("package-compiled-part-missing", "toolchain",
               "{pkg}'s compiled part ({pkg}.{sub}) is not installed", 76,
               "{pkg}.{sub} is the compiled extension of {pkg}: the installed {pkg} has none. It is a variant without "
               "compiled ops (some packages ship them as a separate distribution, e.g. mmcv-full for mmcv 1.x), or its "
               "build failed or was skipped when it was installed, or it was built for another torch/CUDA.",
               fix=("pip replaced torch {want} with {have} (its resolver's lines say so), and {pkg}'s compiled part "
                    "was built for {want}: put back torch=={want} (its CUDA build, with the torchvision/torchaudio of "
                    "that release), or rebuild {pkg} for torch {have}. " if replaced else "") +
                   "Build and install {pkg} with its compiled ops as its install instructions (INSTALL.md) "
                   "say: the {pkg} wheel built for your torch and CUDA where its install page lists one, or from "
                   "source against the installed torch (" + ((compiled_modules.source_build(
                       compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.get(pkg.lower(), pkg)) or {}).get("command") or
                       "`pip install --no-build-isolation --no-cache-dir {pkg}`") + " with "
                   "the CUDA toolkit of torch.version.cuda; read the build log for the first error). If the program "
                   "runs from a source checkout of {pkg}, build it there (`pip install -e .`) or run from another "
                   "directory.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension",), sources=(SOURCES["ext"],))
    caps = {"pkg": pkg, "sub": sub}
    if replaced:
        caps.update(want=r.group("want"), have=r.group("have"))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# pip's resolver after an install: "torchvision 0.10.1+cu111 requires torch==1.9.1, but you have torch 2.4.1 which is
# incompatible." (pip/_internal/operations/check.py's conflict report)
_RESOLVER_TORCH = re.compile(r"requires torch==(?P<want>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?)(?:\+\w{1,20})?, but you have "
                             r"torch (?P<have>\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:\+\w{1,20})?) which is incompatible")


# torch's companion libraries: binary wheels built for exactly one torch release each (a version table pairs them)
_COMPANIONS = {"torchvision": torchvision_for, "torchaudio": torchaudio_for, "torchtext": torchtext_for}


def _companion_for_another_torch(ent, text, s: dict, caps: dict, pkg: str):
    """torchvision/torchaudio wanting a torch symbol: a wheel of the release paired with another torch, never a
    rebuild; the pair from the release table when the text shows torch's version."""
    pair = _COMPANIONS[pkg](caps.get("torch")) if caps.get("torch") else None
    sig = _sig("companion-built-for-another-torch", "toolchain",
               "{package} is a release built for another torch than the one installed", 85,
               "{package}'s binary ({ext|its library}) wants {demangled|a torch symbol} ({symbol}), which the installed "
               "torch{torch_note|} does not define: each {package} release is compiled against one torch release, and this "
               "one was installed beside another (a newer {package} next to an older torch, or the other way round).",
               fix="Install the {package} release that matches torch, from the same index as torch: `pip install "
                   "{pin|" + pkg + "==<the release paired with your torch>}` (check `python -c \"import torch; "
                   "print(torch.__version__)\"`), or upgrade torch and {package} together in one command from one "
                   "index. Nothing needs rebuilding." +
                   (f" torchtext's last release, {TORCHTEXT_LAST[0]}, pairs with torch {TORCHTEXT_LAST[1]}: with a newer "
                    "torch there is no torchtext to match, so pin that torch or drop torchtext." if pkg == "torchtext"
                    else ""),
               causes=(("companion-version", "torchvision/torchaudio do not match the installed torch", ()),),
               areas=("torch",), sources=({"url": "https://pytorch.org/get-started/previous-versions/",
                                           "what": "the torchvision and torchaudio releases paired with each torch"},
                                          {"url": "https://github.com/pytorch/text#installation",
                                           "what": "torchtext's releases by torch version; 0.18 is the last"}))
    return _match(sig, text, s["at"], dict(caps, pin=f"{pkg}=={pair}.*" if pair else None,
                                           torch_note=f" {caps['torch']}" if caps.get("torch") else None))


# torchaudio's and torchvision's own start-up check (torchaudio/_extension/utils.py, torchvision/extension.py), which
# PyG's extensions (torch_scatter, torch_sparse, ...) print in the same words: the CUDA each side was built with
_COMPANION_CUDA = re.compile(r"Detected that PyTorch and (?P<pkg>[A-Za-z][\w-]{1,40}) were compiled with "
                            r"different CUDA (?:major )?versions\.? PyTorch has CUDA [Vv]ersion\s{0,2}[=:]?\s{0,2}"
                            r"(?P<torch_cuda>\d{1,2}\.\d{1,2}) (?:whereas|and) [\w-]{3,40} has CUDA [Vv]ersion\s{0,2}[=:]?"
                            r"\s{0,2}(?P<pkg_cuda>\d{1,2}\.\d{1,2})")


def companion_cuda_differs(ent, text):
    """A package refusing to start beside a torch of another CUDA: for torchaudio/torchvision the wheel of the release
    paired with torch from torch's own CUDA index (the tag read from the message); for another extension its project's
    index (_extension_cuda_differs)."""
    tail = text[-CONTEXT_TAIL:]
    if "compiled with different CUDA" not in tail:
        return None
    m = last_match(_COMPANION_CUDA, tail)
    if m is None:
        return None
    pkg = m.group("pkg").lower()
    torch_cuda, pkg_cuda = m.group("torch_cuda"), m.group("pkg_cuda")
    tag = _cu_tag(torch_cuda)
    torch_v = ent.versions.get("torch")
    if pkg not in _COMPANIONS:
        return _extension_cuda_differs(ent, text, m, tail, pkg.replace("_", "-"), torch_cuda, pkg_cuda, tag, torch_v)
    pair = _COMPANIONS[pkg](torch_v) if torch_v else None
    pin = f"\"{pkg}=={pair}.*\"" if pair else pkg
    caps = {"package": pkg, "torch_cuda": torch_cuda, "pkg_cuda": pkg_cuda, "tag": tag, "torch": torch_v}
    sig = _sig("companion-cuda-differs", "toolchain",
               "{package} was built for CUDA {pkg_cuda}, torch for CUDA {torch_cuda}", 87,
               "{package} checks at import that its compiled part and torch were built for the same CUDA: torch is "
               "the CUDA {torch_cuda} build, {package} the CUDA {pkg_cuda} one (installed from another index, or "
               "upgraded alone from PyPI). torch is fine; {package} has to be the build of torch's CUDA.",
               fix="Install {package} from torch's CUDA index, the release paired with your torch: `pip install "
                   "--force-reinstall --no-deps " + pin + " --index-url https://download.pytorch.org/whl/{tag|cuXYZ}`"
                   + ("" if pair else " (pin the release paired with your torch: `python -c \"import torch; "
                      "print(torch.__version__)\"`, pytorch.org's previous-versions page pairs them)") +
                   "; leave torch as it is.",
               causes=(("companion-version", "torchvision/torchaudio do not match the installed torch", ()),),
               areas=("torch",), sources=({"url": "https://github.com/pytorch/audio/blob/15ea6216d7f28542df372453248fe1dd"
                                                  "be93a7a6/src/torchaudio/_extension/utils.py",
                                           "what": "torchaudio's _check_cuda_version"},
                                          {"url": "https://pytorch.org/get-started/previous-versions/",
                                           "what": "the torchvision and torchaudio releases paired with each torch"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


def _extension_cuda_differs(ent, text, m, tail, pkg, torch_cuda, pkg_cuda, tag, torch_v):
    """The same check in a torch extension of another project (PyG's torch_scatter, torch_sparse, ...): its wheel for
    torch's CUDA from the index its project publishes builds on, or a build against this torch."""
    index = compiled_modules.prebuilt_index(pkg)
    base = (torch_v or "").partition("+")[0]
    url = index["url"].format(torch=base or "<torch version>", torch_mm=".".join(base.split(".")[:2]) or "<torch>",
                              cu=tag or "cuXYZ") if index else None
    caps = {"package": pkg, "torch_cuda": torch_cuda, "pkg_cuda": pkg_cuda, "tag": tag}
    sig = _sig("extension-cuda-differs", "toolchain",
               "{package} was built for CUDA {pkg_cuda}, torch for CUDA {torch_cuda}", 86,
               "{package} checks at import that its compiled part was built for torch's CUDA: torch is the CUDA "
               "{torch_cuda} build, {package} the CUDA {pkg_cuda} one. torch is fine; {package} has to be its build for "
               "torch's CUDA.",
               fix=("Install its wheel for torch's build from its project's index: `pip install --force-reinstall "
                    "--no-deps " + pkg + " -f " + url + "`" + ("" if base else " (torch's version: `python -c \"import "
                                                                  "torch; print(torch.__version__)\"`)") if url else
                    "Install the " + pkg + " build made for torch's CUDA {torch_cuda} (its install page names the index), "
                    "or build it against this torch (`pip install --no-build-isolation --no-cache-dir " + pkg + "`).") +
                   " Leave torch as it is.",
               areas=("extension", "torch"),
               sources=(({"url": index["source"], "what": f"{pkg}'s builds per torch and CUDA"},) if index else ()) +
                       (SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# A symbol of the C++11 ABI (std::__cxx11::basic_string in its mangled name) that a torch of the old ABI cannot define:
# LibTorch's pre-cxx11 downloads ("libtorch-shared-with-deps-<v>", the cxx11 ones say so: link the other download) and
# pip's Linux wheels before torch 2.7 (a package's wheel for that torch and ABI: its name says cxx11abiFALSE)
_PRE_CXX11_LIBTORCH = re.compile(r"libtorch-shared-with-deps-(?P<v>\d{1,2}\.\d{1,2})")


def _old_abi_libtorch(text: str) -> str | None:
    m = _PRE_CXX11_LIBTORCH.search(text[-CONTEXT_TAIL:])
    if m:
        return "the pre-cxx11 LibTorch " + m.group(0)
    return None


def _old_abi_pip_torch(ent) -> str | None:
    v = re.match(r"(\d{1,2})\.(\d{1,2})", ent.versions.get("torch") or "")
    if v and (int(v.group(1)), int(v.group(2))) < (2, 7) and not ent.platform.get("windows") and \
            not ent.platform.get("macos"):
        return "torch " + ent.versions["torch"]
    return None


def torch_abi(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") == "torch"]
    if not syms:
        return None
    s = syms[-1]
    f = s.get("file") or next((x["file"] for x in reversed(ent.libraries) if x.get("wants_symbol")), None)
    owner = _owner_of(ent, f)
    caps = {"symbol": s["symbol"], "demangled": s.get("demangled"), "ext": _basename(f) if f else None,
            "file": f}
    if _torch_owned(f, owner):
        sig = _sig("torch-libraries-mixed", "torch-build",
                   "torch's own libraries disagree: parts of two torch installs are mixed", 84,
                   "{ext|A torch library} wants {demangled|a torch symbol}, which the torch library loaded beside it "
                   "does not define: files of two torch versions are mixed (an interrupted upgrade, a pip torch over a "
                   "conda one, or another torch's lib folder on LD_LIBRARY_PATH / PATH).",
                   fix="Remove every torch and install one cleanly: `pip uninstall -y torch` (repeat until none is "
                       "left; in conda also `conda remove pytorch`), then install torch again from one index, and keep "
                       "other torch lib folders off LD_LIBRARY_PATH.",
                   causes=(("two-torches", "torch is installed twice", ("TE903",)),
                           ("library-path", "a folder on LD_LIBRARY_PATH makes `import torch` fail", ("TE505",))),
                   areas=("torch", "libraries"), sources=(SOURCES["itanium"],))
        return _match(sig, text, s["at"], caps)
    old_abi = _old_abi_libtorch(text) if "__cxx11" in s["symbol"] else None
    if old_abi:
        caps.update(torch_abi=old_abi)
        sig = _sig("extension-cxx11-abi-mismatch", "toolchain",
                   "{ext|the extension} was compiled with the C++11 ABI, and {torch_abi} has the old one", 86,
                   "{ext|A compiled module} wants {demangled|a torch symbol} with a std::__cxx11 string in its "
                   "signature ({symbol}): it was compiled with _GLIBCXX_USE_CXX11_ABI=1, and {torch_abi} was built "
                   "with =0, so every torch function that takes a std::string is missing under that name.",
                   fix="Use one ABI on both sides: the LibTorch download built with the C++11 ABI "
                       "(libtorch-cxx11-abi-shared-with-deps-*, the same version), or compile the extension with "
                       "torch's own flag (-D_GLIBCXX_USE_CXX11_ABI=0; CMake's ${TORCH_CXX_FLAGS} and "
                       "torch.utils.cpp_extension add it; `python -c \"import torch; "
                       "print(torch._C._GLIBCXX_USE_CXX11_ABI)\"` prints a pip torch's).",
                   causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701",)),),
                   areas=("extension", "torch"), sources=(SOURCES["itanium"], {
                       "url": "https://gcc.gnu.org/onlinedocs/libstdc++/manual/using_dual_abi.html",
                       "what": "libstdc++'s dual ABI: _GLIBCXX_USE_CXX11_ABI and std::__cxx11::basic_string"}))
        return _match(sig, text, s["at"], caps)
    pkg = package_guess(f, owner)
    named = _named_package(ent, pkg)
    if named:
        pkg = named
    importer = _importing_package(text, f, s["at"])
    if importer:
        pkg = importer
    if not pkg or pkg.lower().strip("_") in _ROLE_WORDS:
        # the binary's name says its role only (_C.so, common_ops.abi3.so): the package the text imports is its owner,
        # else a torch extension the text names ("how to solve this flash-attn problem")
        pkg = _imported_package(text) or _traceback_package(ent) or compiled_modules.extension_named_in(text)
    caps.update(package=pkg, module=_module_of(f or ""), torch=ent.versions.get("torch"))
    if (pkg or "").lower() in _COMPANIONS:
        return _companion_for_another_torch(ent, text, s, caps, pkg.lower())
    known = compiled_modules.distribution_of(_module_of(f or ""))
    old_pip = _old_abi_pip_torch(ent) if "__cxx11" in s["symbol"] else None
    abi_note = (" Its binary was also compiled with the C++11 ABI (a std::__cxx11 string in the symbol), and " + old_pip +
                " uses the old one (pip's Linux wheels before torch 2.7 do): where its wheels are named by ABI, take the "
                "cxx11abiFALSE one for this torch." if old_pip else "")
    sig = _sig("extension-abi-mismatch", "toolchain",
               "{package|a compiled package} was built against another torch than the one installed", 84,
               "{ext|A compiled module} wants {demangled|a torch C++ symbol} ({symbol}), which the installed torch does "
               "not define: {package|the package} was compiled against another torch version (torch's C++ ABI changes "
               "between releases) or with another C++ ABI setting. torch itself is fine; that package's binary is stale.",
               fix=(("{module} belongs to {package}, compiled against another torch: " + known["build"]
                    + " torch itself needs no change.") if known else
                   ("Rebuild the extension {package|itself} against the installed torch (delete its build/ folder, then "
                   "`pip install --no-build-isolation --no-cache-dir --force-reinstall --no-deps {package|PACKAGE}`, or "
                   "`pip install --no-build-isolation .` in its source tree), or install the {package|package} build "
                   "made for your torch version (its wheels are built per torch and CUDA version: pick the one matching "
                   "`python -c \"import torch; print(torch.__version__)\"`). torch itself needs no change.")) + abi_note,
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension", "torch"), sources=(SOURCES["ext"], SOURCES["itanium"]))
    return _match(sig, text, s["at"], caps)


def built_for(ent, text):
    b = ent.versions.get("built_for")
    if not b:
        return None
    pkg = b.get("package") or "the package"
    pkg_l = pkg.lower()
    built, have = b.get("torch"), b.get("have")
    cuda = b.get("cuda")
    built_local = (built or "").partition("+")[2]
    tag = built_local if built_local.startswith("cu") else _cu_tag(cuda)
    caps = {"package": pkg_l, "built": built, "have": have, "cuda": cuda, "cu_tag": tag,
            "have_base": (have or "").partition("+")[0] or None}
    if have and have.endswith("+cpu"):
        sig = _sig("cpu-torch-for-cuda-package", "torch-build",
                   "torch is its CPU-only build; {package} needs torch's CUDA build", 88,
                   "{package} was built for torch {built} with CUDA {cuda|?}, and the torch installed is {have}: the "
                   "CPU-only build, which has no CUDA at all. {package} is not the problem; torch's build is.",
                   fix="Install torch's CUDA build of the same version from the PyTorch index: `pip install "
                       "torch=={have_base} --index-url https://download.pytorch.org/whl/{cu_tag|cu121}` (also for "
                       "torchvision/torchaudio if installed).",
                   causes=(("cpu-wheel", "a CPU-only torch is installed on a machine with an NVIDIA GPU", ("TE202",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, b["at"], caps)
    py_built, py_have = b.get("python"), b.get("have_python")
    if py_built and py_have and py_built.split(".")[:2] != py_have.split(".")[:2] and (not have or not built or
                                                                                    have == built):
        # the torch matches; the interpreter does not: a compiled module is built per Python minor (cpXY)
        caps.update(python=py_built, have_python=py_have,
                    cp="cp" + "".join(py_have.split(".")[:2]))
        sig = _sig("package-built-for-other-python", "toolchain",
                   "{package} was built for Python {python}, this is Python {have_python}", 87,
                   "{package}'s compiled extensions were built for Python {python} and torch {built|?}; the torch "
                   "matches, the interpreter does not. A compiled module is built for one Python minor version (its "
                   "wheel's cpXY tag) and does not load in another.",
                   fix="Install the {package} wheel built for this Python ({cp}) and the installed torch (`pip install "
                       "--force-reinstall --no-deps {package}` from the index it came from picks the {cp} wheel when one "
                       "exists), or build {package} from source in this environment; leave torch as it is.",
                   causes=(("stale-extension", "the compiled extension was built for another Python", ("TE701",)),),
                   areas=("extension",), sources=(SOURCES["ext"],))
        return _match(sig, text, b["at"], caps)
    if have and built and have == built and "+" not in have:
        sig = _sig("cuda-package-without-cuda", "macos",
                   "{package}'s CUDA extensions cannot load: this torch has no CUDA (macOS)", 86,
                   "{package} was built for torch {built} with CUDA, and the installed torch is that same version, so "
                   "the version is not the problem: this torch has no CUDA to run {package}'s kernels (macOS: "
                   "torch uses MPS, never CUDA).",
                   fix="Run without {package} on macOS (drop its flag / uninstall {package}; the program falls back to "
                       "plain attention); on Linux with an NVIDIA GPU, install torch's CUDA build.",
                   causes=(("macos", "macOS has no CUDA; use the MPS backend on Apple silicon", ("TE102",)),),
                   areas=("platform", "torch"), sources=(SOURCES["torch_index"],))
        return _match(sig, text, b["at"], caps)
    have_tag = (have or "").partition("+")[2]
    caps["have_tag"] = have_tag if have_tag.startswith("cu") else None
    sig = _sig("package-built-for-other-torch", "toolchain",
               "{package} was built for torch {built}, the installed torch is {have|another}", 87,
               "{package}'s compiled extensions were built for torch {built} (CUDA {cuda|?}) and only load with that "
               "torch; the installed torch is {have|another version}. torch is fine: {package} does not match it.",
               fix="Install the {package} release built for torch {have|installed}: its release notes name the torch "
                   "each version was built for (for xformers also `pip install -U xformers --index-url "
                   "https://download.pytorch.org/whl/{have_tag|cu121}`), or build {package} from source against this "
                   "torch, or `pip uninstall {package}` if the program runs without it. Leave torch as it is.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("torch", "extension"), sources=(SOURCES["ext"],))
    return _match(sig, text, b["at"], caps)


_LIB_NAMES = {"nccl": "NCCL", "cublas": "cuBLAS", "cublasLt": "cuBLASLt", "cusparse": "cuSPARSE", "cusparseLt": "cuSPARSELt",
              "cusolver": "cuSOLVER", "cufft": "cuFFT", "curand": "cuRAND", "cudnn": "cuDNN", "nvJitLink": "nvJitLink",
              "nvrtc": "NVRTC", "cuda": "the CUDA driver API", "nvml": "NVML", "cudart": "the CUDA runtime (cudart)"}


_LIB_WHEEL = {"nccl": "nvidia-nccl", "cublas": "nvidia-cublas", "cublasLt": "nvidia-cublas", "cusparse": "nvidia-cusparse",
              "cusparseLt": "nvidia-cusparselt", "cusolver": "nvidia-cusolver", "cufft": "nvidia-cufft",
              "curand": "nvidia-curand", "cudnn": "nvidia-cudnn", "nvJitLink": "nvidia-nvjitlink",
              "nvrtc": "nvidia-cuda-nvrtc", "cudart": "nvidia-cuda-runtime"}


# NCCL functions by the release that added them (NCCL's release notes): a binary calling one needs that NCCL or newer
_NCCL_SINCE = {"ncclSend": "2.7", "ncclRecv": "2.7", "ncclRedOpCreatePreMulSum": "2.11", "ncclRedOpDestroy": "2.11",
               "ncclCommInitRankConfig": "2.14", "ncclCommFinalize": "2.14", "ncclCommSplit": "2.18",
               "ncclCommRegister": "2.19", "ncclCommDeregister": "2.19", "ncclMemAlloc": "2.19", "ncclMemFree": "2.19"}
_NCCL_NOTES = {"url": "https://docs.nvidia.com/deeplearning/nccl/release-notes/index.html",
               "what": "NCCL release notes: the release each API function arrived in"}


def library_symbol(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") in _LIB_NAMES]
    if not syms:
        return None
    s = syms[-1]
    lib = s["abi"]
    if lib == "cublas" and (s["symbol"].startswith("cublasLt") or "cublasLt" in (s.get("version") or "")):
        lib = "cublasLt"
    if lib == "cuda" and s["symbol"].startswith("cuda") and s["symbol"][4:5].isupper():
        lib = "cudart"  # cudaXxx is the runtime API (libcudart), cuXxx the driver's
    if lib == "cuda":
        return None  # cu* driver symbols: the driver rules say it better
    version_tag = s.get("version") or ""
    m = re.search(r"\.so\.(\d{1,2})", version_tag + " " + (s.get("provider_file") or ""))
    cuda = s.get("cuda") or (m.group(1) if m and lib not in ("nccl", "cudnn", "curand", "cusparse", "cufft") else None)
    if not cuda:
        t = re.search(r"\+cu(\d{2,3})\b|\bcu(1[1-3])\b", text[-CONTEXT_TAIL:])
        cuda = (t.group(1)[:-1] if t.group(1) else t.group(2)) if t else None
    wheel = _LIB_WHEEL.get(lib)
    if wheel and cuda:
        major = cuda.split(".")[0]
        wheel = wheel if major == "13" and lib not in ("nccl", "cudnn", "cusparseLt") else f"{wheel}-cu{major}"
    f = s.get("file")
    caps = {"symbol": s["symbol"], "library": _LIB_NAMES[lib], "lib": lib, "file": f, "ext": _basename(f) if f else None,
            "wheel": wheel, "version_tag": version_tag or None, "cuda": cuda}
    if s.get("link_time") and not re.search(r"\.so(?:\.\d+)*$|\.dylib$|\.dll$", f or "") and "@" not in s["symbol"]:
        # the program's own objects reference it at link time (no library named as the one that wants it): the
        # link step lacks that library, whatever is installed
        sig = _sig("cuda-library-not-linked", "toolchain",
                   "the link step does not link {library} ({symbol} undefined)", 85,
                   "The static linker found a reference to {symbol}, which {library} (lib{lib}) defines, and no "
                   "library on the link line that provides it: the build does not link lib{lib} (a missing -l flag, "
                   "or a CMake target without it).",
                   fix="Link the library: add `-l{lib}` with `-L` to the CUDA toolkit's lib folder "
                       "(e.g. /usr/local/cuda/lib64) to the link command, or in CMake "
                       "`target_link_libraries(<target> CUDA::{lib})` after `find_package(CUDAToolkit)`.",
                   causes=(), areas=("toolchain",),
                   sources=({"url": "https://cmake.org/cmake/help/latest/module/FindCUDAToolkit.html",
                             "what": "CUDA::cublas, CUDA::cublasLt and the other imported targets"},))
        return _match(sig, text, s["at"], caps)
    since = _NCCL_SINCE.get(s["symbol"]) if lib == "nccl" else None
    if since:
        sig = _sig("nccl-older-than-caller", "libraries",
                   "the NCCL loaded is older than {since}, which {ext|the caller} needs ({symbol} missing)", 86,
                   "{symbol} arrived in NCCL {since}; {ext|the binary} was built against NCCL {since} or newer, and the "
                   "libnccl the loader found is older: another NCCL comes first (a system libnccl2, another "
                   "project's build folder, LD_LIBRARY_PATH or LD_PRELOAD), not the one it was built with.",
                   fix="Load an NCCL {since} or newer: find which one is loaded (`ldd {ext|<the binary>} | grep "
                       "nccl`), take older copies off LD_LIBRARY_PATH / LD_PRELOAD, and use the NCCL torch ships "
                       "(`pip install -U {wheel|nvidia-nccl-cu12}`, its lib folder) or a system libnccl2 of {since}+; "
                       "or rebuild the caller (nccl-tests: `make NCCL_HOME=<that NCCL>`) against the NCCL you keep.",
                   causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's",
                            ("TE501", "TE505")),),
                   areas=("libraries",), sources=(_NCCL_NOTES, SOURCES["ld"]))
        return _match(sig, text, s["at"], dict(caps, since=since))
    # cuDNN's own symbols are a cuDNN older or newer than the binary's (its own layer); the CUDA math libraries' are
    # versions of the CUDA libraries mixed
    sig = _sig("cuda-library-version-mixed", "cudnn" if lib == "cudnn" else "libraries",
               "{library} of another version than {ext|the caller} was built with is loaded ({symbol} missing)", 85,
               "{ext|A library} calls {symbol}, which the lib{lib} that the loader found does not define: that "
               "{library} is older (or of another CUDA major) than the one {ext|it} was linked against. Two versions "
               "are mixed: a system CUDA or another env's lib folder first on LD_LIBRARY_PATH, or nvidia-* wheels of "
               "two CUDA majors (cu11 and cu12) in one environment.",
               fix="Let torch load its own {library}: remove system/other CUDA folders from LD_LIBRARY_PATH (`unset "
                   "LD_LIBRARY_PATH` to test), and keep one set of nvidia-* wheels, the one torch requires: "
                   "`pip install --force-reinstall --no-deps {wheel|the nvidia wheel of torch's CUDA}` (lib{lib}); "
                   "uninstall nvidia-*-cu11 wheels left beside cu12 ones.",
               causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's", ("TE501", "TE505")),
                       ("mixed-wheels", "nvidia-* wheels beside conda's CUDA packages", ("TE905",))),
               areas=("libraries",), sources=(SOURCES["ld"], SOURCES["wheels"]))
    return _match(sig, text, s["at"], caps)


def cxx_runtime_symbol(ent, text):
    syms = [s for s in ent.symbols if s.get("abi") == "libstdc++"]
    if not syms:
        return None
    s = syms[-1]
    caps = {"symbol": s["symbol"], "demangled": s.get("demangled"), "file": s.get("file")}
    sig = _sig("cxx-runtime-symbol-missing", "c-runtime",
               "the C++ runtime (libstdc++) loaded lacks {demangled|a std:: symbol}", 83,
               "{file|A compiled module} wants {demangled|a C++ standard library symbol} ({symbol}), which the "
               "libstdc++ loaded does not define: that libstdc++ is older than the GCC the module was built with (an "
               "old system or conda libstdc++ found first).",
               fix="Load a newer libstdc++: in a conda env `conda install -c conda-forge libgcc libstdcxx-ng` (newer "
                   "than the module's GCC); outside conda, install a newer GCC's libstdc++6, or put the newer "
                   "libstdc++.so.6 first on LD_LIBRARY_PATH.",
               causes=(("runtime", "pip overwrote conda's C++/OpenMP runtime libraries", ("TE904",)),),
               areas=("platform", "conda"), sources=(SOURCES["libstdcxx"],))
    return _match(sig, text, s["at"], caps)


_PKG_BINARY_DIR = re.compile(r"[/\\](?P<pkg>[A-Za-z_][A-Za-z0-9_]{1,60})[/\\](?P<file>lib[A-Za-z0-9_.+-]{1,80}\.(?:so|dll|dylib))\b")


def package_binary_missing(ent, text):
    """A package's own native library, inside its folder and named for the package (bitsandbytes/libbitsandbytes_
    cuda124.so), cannot be found: that package's release has no binary for this CUDA/platform, or it was built
    without it; the fix is that package's build, not a CUDA library."""
    missing = [x for x in ent.libraries if x.get("missing") and not x.get("provider")]
    if not missing:
        return None
    tail = text[-CONTEXT_TAIL:]
    for x in reversed(missing):
        for m in _PKG_BINARY_DIR.finditer(tail):
            pkg, f = m.group("pkg"), m.group("file")
            if f != x["file"] or pkg.lower() in ("lib", "lib64", "bin", "site-packages", "dist-packages", "build"):
                continue
            if not f.lower().startswith("lib" + pkg.lower()[:6]):
                continue
            caps = {"package": pkg.replace("_", "-"), "lib": f}
            sig = _sig("package-binary-missing", "toolchain", "{package} has no native library {lib} here", 75,
                       "{lib} is {package}'s own compiled library, looked for in its package folder and not there: the "
                       "installed {package} has no binary for this CUDA version or platform (or was installed from "
                       "source without compiling it).",
                       fix="Install a {package} release that ships a binary for your CUDA and platform (`pip install -U "
                           "{package}`, checking its install notes for the CUDA versions it supports), or build it from "
                           "source for the CUDA you have; an override of which binary it loads (an environment variable "
                           "naming the CUDA version) must name one that exists.",
                       areas=("libraries",), sources=(SOURCES["ld"],))
            return _match(sig, text, len(text) - len(tail) + m.start(), caps)
    return None


# A package's import registering its operators with torch (torch.library: register_fake, impl, define; torch._ops):
# the traceback's frames go from the package's module-level code into torch's registration and fail there
_FRAME = re.compile(r'File "(?P<path>[^"\n]{1,400})", line \d{1,6}, in (?P<fn>[\w<>.]{1,80})')


_TORCH_REGISTRATION = re.compile(r"[/\\]torch[/\\](?:library\.py|_ops\.py|_library[/\\])")


def package_ops_registration_fails(ent, text):
    """A package (torchvision, torchaudio, an extension) fails while registering its operators with torch at import:
    it was built for another torch (its ops' schemas or torch.library's API differ).  Read from the traceback's frames
    (the owner of the frame that calls into torch's registration), whatever the exception's text."""
    tail = text[-CONTEXT_TAIL:]
    frames = list(_FRAME.finditer(tail))[-12:]
    for i in range(len(frames) - 1, 0, -1):
        if not _TORCH_REGISTRATION.search(frames[i].group("path")):
            continue
        caller = frames[i - 1]
        if _TORCH_REGISTRATION.search(caller.group("path")):
            continue
        dirs = [d for d in re.split(r"[/\\]", caller.group("path"))[:-1] if d]
        if not any(d in ("site-packages", "dist-packages") for d in dirs):
            return None
        k = max(j for j, d in enumerate(dirs) if d in ("site-packages", "dist-packages"))
        pkg = dirs[k + 1] if k + 1 < len(dirs) else None
        if not pkg or pkg == "torch" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", pkg):
            return None
        sig = _sig("package-ops-registration-failed", "toolchain",
                   "{package} fails to register its operators with the installed torch: it was built for another torch",
                   82, "Importing {package} registers its operators (and their fake/meta kernels) with torch; the "
                   "registration fails inside torch, so {package} was built for another torch release than the one "
                   "installed (their versions are released in pairs).",
                   fix="Install the {package} release that pairs with the installed torch, from the same index as torch "
                       "(for torchvision and torchaudio, the version their compatibility table lists for your torch, e.g. "
                       "`pip install {package}==<paired version> --index-url https://download.pytorch.org/whl/<torch's "
                       "cuXXX or cpu>`); leave torch as it is.",
                   causes=(("stale", "a package was built against another torch", ("TE701", "TE705")),),
                   areas=("torch",), sources=({"url": "https://github.com/pytorch/vision#installation",
                                               "what": "torchvision releases pair with torch releases"},))
        return _match(sig, text, len(text) - len(tail) + caller.start(), {"package": pkg})
    return None


# A package saying its own compiled (CUDA/C++) part did not load: "xFormers can't load C++/CUDA extensions",
# "CUDA extension not installed", "CUDA kernels for auto_gptq are not installed", "<pkg>'s CUDA ops were not built".
_EXT_NOT_LOADED = re.compile(
    r"(?P<pkg>[A-Za-z][\w-]{1,40}) (?:can.?t|cannot|could not|couldn.t|failed to) load (?:its |the )?"
    r"(?:C\+\+/CUDA|CUDA/C\+\+|CUDA|C\+\+|compiled) (?i:extensions?|kernels?|ops)|"
    r"(?:CUDA|C\+\+|compiled) (?i:extensions?|kernels?|ops) (?:for (?P<pkg2>[A-Za-z][\w-]{1,40}) )?(?:is |are )?"
    r"not (?:installed|compiled|built|available)|"
    # the package naming its kernels in the passive: AutoAWQ's "AWQ kernels could not be loaded", "auto-awq kernels is
    # needed to be installed", ExLlama's "exllama kernels are not installed"
    r"(?P<pkg3>[A-Za-z][\w-]{1,40}) (?i:kernels?|extensions?) (?:could not be (?:loaded|imported|found)|"
    r"(?:is|are) needed to be installed|(?:is|are) not installed)")


_PKG_MODULE = re.compile(r"\b(?P<pkg>[A-Za-z][A-Za-z0-9]{1,30})_(?:cuda|cpp|ext|C|kernels?)(?:_\w{1,20})?\b")


def package_extension_not_loaded(ent, text):
    """A package reporting that its own compiled part did not load is that package's build for this torch/CUDA,
    whoever the package is: the wheel has no kernels for this torch or CUDA, or its build was skipped."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_EXT_NOT_LOADED, tail)
    if m is None:
        return None
    pkg = m.group("pkg") or m.group("pkg2")
    dist = None
    if m.group("pkg3"):
        # a label before "kernels" ("AWQ kernels") is not always a distribution's name: a distribution the text names
        # that contains it, else the repository the message sends the user to, else the label
        word = m.group("pkg3").lower()
        line = tail[m.start():tail.find("\n", m.start()) if "\n" in tail[m.start():] else len(tail)]
        repo = re.search(r"https://github\.com/[\w.-]{1,60}/(?P<repo>[\w.-]{1,80})", line)
        named = [x for x in ent.packages if word.replace("-", "") in x.lower().replace("-", "").replace("_", "")]
        dist = (named[-1] if named else None) or (repo.group("repo").lower().replace("_", "-") if repo else None)
        pkg = dist or word
    if pkg and (pkg.lower() in ("the", "to", "and", "not", "extension", "cuda", "python") or pkg.lower() in _ROLE_WORDS):
        pkg = None
    if not pkg:
        named = [x for x in ent.packages if x not in _NOT_THE_PACKAGE and not x.startswith("nvidia-")]
        mod = None
        for mod in _PKG_MODULE.finditer(tail):
            pass
        pkg = (mod.group("pkg") if mod and mod.group("pkg").lower() not in _NOT_IMPORTED_PACKAGES else None) \
            or (named[-1] if named else None) or _imported_package(text)
    # without a name the answer stays general (the package that printed it): the same build question
    pkg = pkg.lower() if pkg else None
    # the name a pip command may carry: a label read from the message ("auto-awq kernels") only when it is one
    dist = dist.lower() if dist else (pkg if not m.group("pkg3") else None)
    sig = _sig("package-extension-not-loaded", "toolchain",
               "{package|a package}'s compiled (CUDA/C++) part did not load", 70,
               "{package|The package} reports that its compiled extension is not installed or cannot load: the installed "
               "{package|package} "
               "was built for another torch or CUDA than the ones here, its wheel carries no kernels for this "
               "platform, or its build from source was skipped (no nvcc, a CPU-only torch, a flag that disables it).",
               fix="Install the {dist|package's} build made for the installed torch and its CUDA (its release page lists the "
                   "wheels per torch/CUDA; `python -c \"import torch; print(torch.__version__, torch.version.cuda)\"` "
                   "shows which), or build it from source against this torch: `pip install --no-build-isolation "
                   "--no-cache-dir --no-binary {dist|<package>} {dist|<package>}` with the CUDA toolkit of torch.version.cuda. A CPU-only "
                   "torch (torch.version.cuda is None) needs torch's CUDA build first.",
               causes=(("stale-extension", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension", "torch"), sources=(SOURCES["ext"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"package": pkg, "dist": dist})


# Windows' loader failing on a package's compiled module: "DLL load failed while importing _C" under a third-party
# package (detectron2, pytorch3d, torch_scatter, ...) whose frame imports it.  A compiled torch extension links to
# torch's DLLs; built for another torch, a procedure it wants is missing (WinError 127) or a DLL of that torch is
_DLL_LOAD_FAILED = re.compile(r"DLL load failed while importing (?P<module>[A-Za-z_]\w{0,60})")


def package_dll_load_failed(ent, text):
    """A compiled module of a third-party package (not torch's, not TensorFlow's) that Windows cannot load: that
    package's build for another torch (or CUDA), named from the frame that imports it."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DLL_LOAD_FAILED, tail)
    if m is None or re.search(r"_pywrap_tensorflow|tensorflow", tail):
        return None
    pkg = _traceback_package(ent) or _imported_package(tail)
    if not pkg or pkg.lower() in ("torch", "torchvision", "torchaudio") and not ent.paths:
        return None
    tv = ent.versions.get("torch") or ent.packages.get("torch")
    caps = {"package": pkg, "module": m.group("module"), "torch": tv}
    sig = _sig("package-dll-for-another-torch", "toolchain",
               "{package}'s compiled module {module} cannot load: built for another torch", 66,
               "{module} is {package}'s compiled part; it links to torch's DLLs (and CUDA's), so a build made for "
               "another torch or CUDA than the installed " + ("torch {torch}" if tv else "one") + " does not load: a "
               "procedure it wants is missing, or a DLL of that torch is.",
               fix="Install the {package} build made for the installed torch and CUDA (its install page lists the "
                   "torch/CUDA each wheel is for; conda or a find-links index often has it), or build {package} from "
                   "source against this torch (in a shell with the MSVC and CUDA toolkit torch was built with), after "
                   "uninstalling the old one; `import torch` before {package}. If that does not help, install the "
                   "Microsoft Visual C++ Redistributable.",
               causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension",), sources=(SOURCES["ext"], SOURCES["vc"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# OpenMMLab's packages check the mmcv (and mmengine) they find against a range at import: "MMCV==2.2.0 is used but
# incompatible. Please install mmcv>=2.0.0rc4, <2.2.0." (mmdet/__init__.py); older releases print the bounds as
# digit_version tuples, "(1, 3, 13, 0, 0, 0)", or lists, "mmcv>=[1, 1, 2], <=[1, 2, 7]"
_VERSION_RANGE_CHECK = re.compile(r"(?P<pkg>[A-Za-z][\w-]{1,40})==(?P<have>[\w.+]{1,30}) is used but incompatible\. "
                                  r"Please install (?P<req>[^\n]{3,160})")
_TUPLE_VERSION = re.compile(r"[(\[](\d{1,4}(?:,\s{0,2}-?\d{1,4}){1,7})[)\]]")


def _tuple_version(t: re.Match) -> str:
    parts = [int(x) for x in t.group(1).split(",")]
    while len(parts) > 3 and parts[-1] == 0:  # digit_version pads with zeros (and a pre-release flag)
        parts.pop()
    return ".".join(str(p) for p in parts)


def package_version_range(ent, text):
    """A package's own import-time check names the range of another package it works with: install one in range
    (for mmcv, with its compiled ops for this torch: mim picks that build)."""
    m, at = last_in_tail(_VERSION_RANGE_CHECK, text, "is used but incompatible")
    if m is None:
        return None
    pkg = m.group("pkg").lower()
    req = _TUPLE_VERSION.sub(_tuple_version, m.group("req")).rstrip(". ")
    spec = re.sub(r"\s{0,2},\s{0,2}", ",", re.sub(r"^\s*" + re.escape(pkg) + r"\s*", "", req, flags=re.IGNORECASE))
    if not re.fullmatch(r"(?:[<>=!~]=?\s{0,2}[\w.+]{1,30},?){1,4}", spec):
        return None
    caps = {"package": pkg, "have": m.group("have"), "spec": spec}
    mm = pkg in ("mmcv", "mmcv-full", "mmengine")
    # mmcv 1.x with its compiled ops is the distribution mmcv-full (1.x's "mmcv" is the lite build without them)
    dist = "mmcv-full" if pkg == "mmcv" and re.search(r"(?:^|[<>=,])\s{0,2}1\.", spec) else pkg
    install = (f"`pip install -U openmim && mim install \"{dist}{spec}\"` (mim picks the build with compiled ops for the "
               "installed torch and CUDA)" if mm else f"`pip install \"{pkg}{spec}\"`")
    sig = _sig("package-version-out-of-range", "toolchain",
               "{package} {have} is outside the range another package accepts ({spec})", 80,
               "A package checked at import the {package} it found, {have}, against the versions it was made and "
               "tested with, {spec}, and refuses it.",
               fix="Install {package} in that range: " + install + "; or install the release of the checking package "
                   "that accepts {package} {have}.",
               causes=(), areas=("extension",),
               sources=({"url": "https://mmdetection.readthedocs.io/en/latest/get_started.html",
                         "what": "OpenMMLab packages: mmcv installed with mim, in the range each release lists"},))
    return _match(sig, text, at, caps)


# the dispatcher has the operator but no kernel for the backend asked: a package's operator (torchvision::nms) with
# no CUDA kernel is that package's build without CUDA (a CPU wheel beside a CUDA torch, a Jetson's source build made
# without CUDA); aten's own operators are torch's build and are left to the torch-build rules
_OP_NO_BACKEND = re.compile(r"Could not run '(?P<ns>[a-z_][a-z0-9_]{1,40})::(?P<op>\w{1,80})' with arguments from the "
                            r"'(?P<backend>CUDA|HIP|MPS|XPU)' backend")


def package_op_without_backend(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "Could not run '" not in tail:
        return None
    m = last_match(_OP_NO_BACKEND, tail)
    if m is None or m.group("ns") in ("aten", "prim", "quantized", "_caffe2"):
        return None
    ns = m.group("ns")
    dist = (compiled_modules.distribution_of(ns) or {}).get("distribution") or ns.replace("_", "-")
    jetson = re.search(r"(?i)jetson|jetpack|\bl4t\b|tegra|\borin\b|xavier", tail) is not None
    caps = {"package": dist, "op": f"{ns}::{m.group('op')}", "backend": m.group("backend")}
    sig = _sig("package-op-without-backend", "toolchain",
               "{package} has no {backend} kernel for {op}: its build is without {backend}", 76,
               "The operator {op} is registered, by {package}, but with no {backend} kernel: the {package} installed "
               "was built without {backend} (a CPU wheel beside a {backend} build of torch, or a source build made "
               "where the toolkit was not found).",
               fix=("On a Jetson, install NVIDIA's JetPack builds of torch and {package} that pair with each other "
                    "(or build {package} from source on the Jetson with CUDA visible: FORCE_CUDA=1), never PyPI's "
                    "aarch64 wheels." if jetson else
                    "Install the {package} build for the same torch and CUDA as torch, from the same index (`pip "
                    "install --force-reinstall {package} --index-url https://download.pytorch.org/whl/<torch's cuXXX>`, "
                    "the {package} release paired with your torch); a source build needs the CUDA toolkit visible "
                    "(FORCE_CUDA=1)."),
               causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
               areas=("extension",), sources=(SOURCES["torch_index"], SOURCES["ext"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# CuPy's wheels are made per CUDA major (cupy-cuda11x, cupy-cuda12x, cupy-cuda13x) and load that CUDA's libraries by
# soname; "CuPy failed to load libnvrtc.so.11.2" is the CUDA 11 wheel in an environment with another CUDA
_CUPY_LOAD = re.compile(r"CuPy failed to load (?P<lib>(?:lib)?(?P<name>[a-zA-Z]+?)(?:64_(?P<wmaj>\d{2,3})\w{0,6}\.dll|"
                        r"\.so\.(?P<maj>\d{1,2})(?:\.\d{1,3}){0,2}))")


def cupy_for_another_cuda(ent, text):
    m, at = last_in_tail(_CUPY_LOAD, text)
    if m is None:
        return None
    major = m.group("maj") or (m.group("wmaj") or "")[:2]
    if not major.isdigit():
        return None
    windows = m.group("lib").endswith(".dll")
    caps = {"lib": m.group("lib"), "major": major}
    sig = _sig("cupy-for-another-cuda", "windows-runtime" if windows else "libraries",
               "CuPy cannot load {lib}, a CUDA {major} library", 80,
               "CuPy's wheels are built per CUDA major (cupy-cuda11x, cupy-cuda12x, cupy-cuda13x) and load that "
               "CUDA's libraries by name; {lib} belongs to CUDA {major} and is not loadable here: the CuPy installed is "
               "for CUDA {major} and the environment has another CUDA, or that CUDA's libraries are not on the " +
               ("DLL search path (PATH)." if windows else "loader's path."),
               fix="Install the CuPy wheel for the CUDA you have (`pip uninstall cupy-cuda{major}x` and `pip install "
                   "cupy-cuda12x`, or cupy-cuda11x / cupy-cuda13x: the major `nvidia-smi` and your other packages "
                   "use), or give CuPy CUDA {major}'s libraries: `pip install \"cupy-cuda{major}x[ctk]\"` brings them "
                   "as wheels (conda-forge's cupy brings its own too).",
               causes=(("ld-path", "the CUDA libraries of another version", ("TE501",)),), areas=("libraries",),
               sources=({"url": "https://docs.cupy.dev/en/stable/install.html",
                         "what": "CuPy's wheels per CUDA major (cupy-cuda11x / cupy-cuda12x) and their CUDA libraries"},))
    return _match(sig, text, at, caps)


# NumPy's import_array() check: the module was compiled against a newer C-API feature version than the NumPy it runs
# with ("module compiled against API version 0x10 but this version of numpy is 0xf"; old NumPy printed decimals)
_NUMPY_API = re.compile(r"compiled against API version (?P<want>0x[0-9a-fA-F]{1,8}|\d{1,3}) but this version of "
                        r"numpy is (?P<have>0x[0-9a-fA-F]{1,8}|\d{1,3})")


def numpy_api_version(ent, text):
    m, at = last_in_tail(_NUMPY_API, text)
    if m is None:
        return None
    want, have = (int(m.group(k), 0) for k in ("want", "have"))
    if want <= have:
        return None
    release = numpy_capi.first_release(want)
    caps = {"want": m.group("want"), "have": m.group("have"), "release": release}
    sig = _sig("numpy-api-too-new", "numpy",
               "the NumPy imported is older than a compiled module needs (C API {want} > {have})", 85,
               "A compiled module was built against NumPy's C API version {want}" +
               (" (NumPy {release} or newer)" if release else "") + ", and the NumPy it imports has C API {have}: an "
               "older NumPy, often a second, older copy found first (a system or --user site-packages before the "
               "environment's).",
               fix="Upgrade NumPy in the environment that runs it: `pip install -U numpy`" +
                   (" (NumPy " + release + " at least: `pip install -U \"numpy>=" + release + "\"`)" if release else "") +
                   "; if it stays, find the NumPy actually imported (`python -c \"import numpy; print(numpy.__file__, "
                   "numpy.__version__)\"`) and remove that older copy.",
               causes=(("numpy", "torch imports but cannot load NumPy", ("TE250",)),),
               areas=("numpy",), sources=({"url": numpy_capi.SOURCE,
                                            "what": "NumPy's C-API versions and the releases that introduced them"},))
    return _match(sig, text, at, caps)


# a name that is not the package's own: the C/C++ runtime's, Python's, CUDA's and its libraries', OpenMP's, BLAS's
_FOREIGN_SYMBOL = re.compile(r"^(?:std::|__|_Py|Py[A-Z_]|cu[A-Z]|cublas|cudnn|cusparse|cusolver|cufft|curand|nccl|nv|"
                             r"omp_|GOMP_|__kmp|mkl_|cblas_|[sdcz]gemm|c10::|at::|torch::|caffe2::|pybind11::|"
                             r"(?:GLIBC|GLIBCXX|CXXABI)_)")


# plain C names (not C++-mangled) of libraries a package links to rather than defines: CUDA's runtime, HIP, MPI, UCX,
# Level Zero, OpenCL, the C library, compression, image and crypto libraries, oneDNN, TensorFlow's C API
_FOREIGN_C_SYMBOL = re.compile(r"^(?:cuda[A-Z_]|hip[A-Z]|P?MPI_|ompi_|uc[pts]_|ze[A-Z]|cl[A-Z]|pthread_|dl[a-z]|gz[a-z]|"
                               r"png_|jpeg_|av_|avcodec_|avformat_|sws_|SSL_|EVP_|CRYPTO_|BZ2_|lzma_|xml|H5|nc_|dnnl_|"
                               r"mkldnn_|TF_|TfLite|lib[a-z])")


def package_own_symbol_missing(ent, text):
    """A package's extension wants a function that is neither torch's nor a runtime's but its own: its build left the
    code that defines it out (an architecture list or option that skipped those kernels), or files of two of its
    versions are mixed."""
    syms = [s for s in ent.symbols if not s.get("abi") and s.get("file") and (s.get("demangled") or s.get("symbol"))]
    if not syms:
        return None
    s = syms[-1]
    name = s.get("demangled") or s["symbol"]
    if _FOREIGN_SYMBOL.match(name) or _FOREIGN_SYMBOL.match(s.get("symbol") or ""):
        return None
    if not s.get("demangled") and _FOREIGN_C_SYMBOL.match(name):
        return None  # a plain C name of a system or GPU library the package links to
    f = s["file"]
    owner = _owner_of(ent, f)
    if _torch_owned(f, owner):
        return None
    pkg = _named_package(ent, package_guess(f, owner)) or package_guess(f, owner)
    if not owner and not re.search(r"[/\\]", f):
        # a bare file name: the distribution its stem names (fbgemm_gpu_py.so: fbgemm-gpu), when one does
        pkg = compiled_modules.distribution_by_prefix(_basename(f).split(".", 1)[0]) or pkg
    if not pkg:
        return None
    torch_ext = pkg.lower().replace("_", "-") in set(compiled_modules.TORCH_EXTENSION_DISTRIBUTIONS.values())
    sig = _sig("package-own-symbol-missing", "toolchain",
               "{package}'s extension wants its own {demangled}, which its build does not contain", 78,
               "{ext} belongs to {package} and refers to {demangled}, a function of {package} itself (not torch's, "
               "not CUDA's): the build that made it left the code defining it out (an architecture list or build "
               "option that skipped those kernels, a known bug of some releases), or files of two {package} versions "
               "are mixed in site-packages.",
               fix=("Reinstall {package} cleanly from its release wheel for the torch you have (`pip uninstall -y "
                    "{package}`, then `pip install --no-cache-dir {package}` at the version its install page pairs with "
                    "your torch), or upgrade to a release that fixes the symbol (`pip install -U {package}`); to "
                    "rebuild from source, use the release's own build options (its CUDA architecture list) and a clean "
                    "build folder." if torch_ext else
                    "Reinstall {package} cleanly, all of its parts at one release (`pip uninstall -y {package}`, then "
                    "`pip install --no-cache-dir {package}`; with conda, {package} and its native library packages "
                    "from one channel and version: `conda install -c <its channel> {package}=<version>`), or upgrade "
                    "to a release that fixes the symbol (`pip install -U {package}`)."),
               areas=("torch",), sources=(SOURCES["itanium"],))
    return _match(sig, text, s["at"], {"package": pkg, "demangled": name, "ext": _basename(f)})



# (the attribute form, "module 'torch' has no attribute '_six'", is torch_release's torch_name_removed)
_REMOVED_IMPORT = re.compile(r"No module named '(?P<a>torch(?:\.\w{1,40}){1,3})'|"
                             r"cannot import name '\w{1,60}' from '(?P<b>torch(?:\.\w{1,40}){1,3})'")
_SITE_FRAME = re.compile(r"File \"[^\"\n]{0,300}[/\\](?:site|dist)-packages[/\\](?P<pkg>[A-Za-z_]\w{0,80})[/\\]")


def torch_module_removed(ent, text):
    """A package (or the program) importing a torch module that a torch release removed: written for the older torch;
    its release for the installed torch, or the module's replacement in one's own code."""
    m, at = last_in_tail(_REMOVED_IMPORT, text, "torch")
    if m is None:
        return None
    row = removed_module(m.group("a") or m.group("b"))
    if row is None:
        return None
    frames = [f.group("pkg") for f in _SITE_FRAME.finditer(text[max(0, at - 4000):at]) if f.group("pkg") != "torch"]
    pkg = frames[-1].replace("_", "-") if frames else None
    sig = _sig("torch-module-removed", "env",
               "{module} was removed in torch {removed_in}: {package|the code importing it} was written for an older "
               "torch", 80,
               "torch {removed_in} removed {module}; {package|a package or the program} still imports it, so it was "
               "written for torch before {removed_in} and the installed torch is newer. The installation is otherwise "
               "sound.",
               fix="Upgrade {package|the package that imports it} to its release for the installed torch (`pip install "
               "-U {package|<package>}`; its release notes name the torch it supports); in your own code replace the "
               "import ({replacement}); or keep the package and install a torch older than {removed_in} with its "
               "companions.",
               areas=("torch",), sources=({"url": row["source"], "what": f"torch {row['removed_in']} removes {row['module']}"},))
    return _match(sig, text, at, {"module": row["module"], "removed_in": row["removed_in"], "package": pkg,
                                  "replacement": row["replacement"]})


# Cython's import-time check of a cimported module's C API (Cython/Utility/ImportExport.c: __Pyx_ImportFunction,
# __Pyx_ImportVoidPtr): the importing extension was compiled against another release of the module it cimports
_CYTHON_API = re.compile(r"(?P<mod>[A-Za-z_]\w{0,60}(?:\.\w{1,60}){0,6}) does not export expected C "
                         r"(?P<kind>function|variable) (?P<name>\w{1,120})|C function (?P<mod2>[A-Za-z_]\w{0,60}"
                         r"(?:\.\w{1,60}){0,6})\.(?P<name2>\w{1,120}) has wrong signature")


def cython_api_mismatch(ent, text):
    m, at = last_in_tail(_CYTHON_API, text)
    if m is None:
        return None
    mod = m.group("mod") or m.group("mod2")
    name = m.group("name") or m.group("name2")
    pkg = mod.split(".")[0]
    frames = [f.group("pkg") for f in _SITE_FRAME.finditer(text[max(0, at - 4000):at]) if f.group("pkg") != pkg]
    importer = frames[-1] if frames else None
    both = " {importer}" if importer else ""
    sig = _sig("cython-api-mismatch", "toolchain",
               "{importer|a compiled package} was built against another release of {pkg}: {mod} lacks {name}", 82,
               "Cython checks at import that each C function or variable a compiled module takes from another "
               "({mod}) is there with the signature it was compiled against; {name} is not, so the importing "
               "extension" + (" ({importer})" if importer else "") + " was built against a different release of {pkg} "
               "than the one installed (packages of one suite updated apart, or nightlies of different dates).",
               fix="Install {pkg} and the packages compiled against it at one release: `pip install -U {pkg}" + both +
                   "` (or pin them to the same version / nightly date); with conda, the whole set from one channel at "
                   "one version (`conda install -c <channel> {pkg}=<version>" +
                   (" {importer}=<version>" if importer else "") + "`).",
               areas=("extension",),
               sources=({"url": "https://github.com/cython/cython/blob/master/Cython/Utility/ImportExport.c",
                         "what": "Cython's import of another module's C API: \"does not export expected C function\""},))
    return _match(sig, text, at, {"mod": mod, "name": name, "pkg": pkg,
                                  "importer": importer.replace("_", "-") if importer else None})


# Cython gives each extension type a __reduce_cython__ (its pickling); the module's initialisation looks it up on the
# type it just built and fails this way when the compiled module and what it imports beside it come from different
# builds: two distributions of one package installed into the same folder (cupy and cupy-cudaXXX), or a partial upgrade
_REDUCE_CYTHON = re.compile(r"type object '(?P<type>[A-Za-z_][\w.]{0,160})' has no attribute '__reduce_cython__'")


def cython_module_mixed_builds(ent, text):
    m, at = last_in_tail(_REDUCE_CYTHON, text, "__reduce_cython__")
    if m is None:
        return None
    pkg = m.group("type").split(".")[0]
    cupy = pkg == "cupy"
    sig = _sig("cython-module-mixed-builds", "toolchain",
               "{pkg}'s compiled modules come from another build than the rest of it", 80,
               "A compiled (Cython) module of {pkg} failed while initialising its types ({type} has no "
               "__reduce_cython__): the module and the files it imports beside it were built apart, which happens "
               "when two distributions of {pkg} are installed into one folder" +
               (" (cupy and one or more cupy-cudaXXX wheels, each a full CuPy for one CUDA)" if cupy else "") +
               " or an upgrade left files of the old release behind.",
               fix=("Uninstall every CuPy distribution (`pip list | grep -i cupy`, then `pip uninstall -y cupy "
                    "cupy-cudaXXX ...` until none is left) and install the one wheel for the CUDA you run "
                    "(`pip install cupy-cuda12x` for CUDA 12, cupy-cuda11x for CUDA 11; `nvcc --version` or "
                    "torch.version.cuda says which)." if cupy else
                    "Uninstall {pkg} until pip finds none (`pip uninstall -y {pkg}`, repeated; with conda also "
                    "`conda remove {pkg}`), then install one release of it (`pip install --no-cache-dir {pkg}`)."),
               areas=("extension",),
               sources=(({"url": "https://docs.cupy.dev/en/stable/install.html#installing-cupy-from-pypi",
                          "what": "CuPy's wheels: one package per CUDA major (cupy-cuda12x, cupy-cuda11x); uninstall "
                                  "the others first"},) if cupy else
                        ({"url": "https://cython.readthedocs.io/en/latest/src/userguide/extension_types.html",
                          "what": "Cython extension types (their generated pickling support)"},)))
    return _match(sig, text, at, {"pkg": pkg, "type": m.group("type")})


# TensorFlow's op loader on a companion package's compiled op ("NotFoundError: .../tensorflow_addons/custom_ops/...so:
# undefined symbol"), the symbol itself sometimes cut off
_TF_OP_PATH = re.compile(r"(?P<path>[^\s'\":]{0,300}[/\\](?:site|dist)-packages[/\\](?P<pkg>tensorflow_[a-z_]{2,30}|tf_[a-z_]{2,30})"
                         r"[/\\][^\s'\":]{1,200}\.so):\s{0,2}undefined symbol")
_TF_FLAGS = {"url": "https://www.tensorflow.org/guide/create_op#compile_the_op_using_your_system_compiler_tensorflow_binary_installation",
             "what": "Create an op: compile with tf.sysconfig.get_compile_flags() and link with get_link_flags() "
                     "(-ltensorflow_framework, the _GLIBCXX_USE_CXX11_ABI of the TensorFlow binary)"}


def tensorflow_abi(ent, text):
    """A compiled TensorFlow op wanting a tensorflow:: symbol the installed TensorFlow does not export: a companion
    package (tensorflow-text, -addons, -io) of another TensorFlow release, an own op built without TensorFlow's flags
    (not linked to libtensorflow_framework, or with the other C++11 string ABI)."""
    syms = [x for x in ent.symbols if x.get("abi") == "tensorflow"]
    path, path_at = last_near(_TF_OP_PATH, text, "undefined symbol", 620)
    if not syms and path is None:
        return None
    sym = syms[-1] if syms else None
    f = (sym or {}).get("file") or (path.group("path") if path else None)
    pkg = None
    if f:
        m = re.search(r"[/\\](?:site|dist)-packages[/\\](?P<pkg>[A-Za-z_]\w{0,60})[/\\]", f)
        pkg = m.group("pkg") if m else None
    if pkg == "tensorflow":
        return None  # TensorFlow's own libraries: its build, read elsewhere
    dual = bool(sym) and "__cxx11" in sym["symbol"]
    own = bool(f) and pkg is None
    dist = pkg.replace("_", "-") if pkg else None
    at = sym["at"] if sym else path_at
    if dual:
        what, why, fix = ("was compiled with the other C++ string ABI than TensorFlow's binary",
                          "The missing symbol takes a std::__cxx11 string: the op was compiled with "
                          "_GLIBCXX_USE_CXX11_ABI=1 while the TensorFlow binary uses the other setting (or the reverse), "
                          "so the names never match.",
                          "Compile the op with TensorFlow's own flags, which carry its ABI setting: `python -c \"import "
                          "tensorflow as tf; print(' '.join(tf.sysconfig.get_compile_flags()))\"` (it prints "
                          "-D_GLIBCXX_USE_CXX11_ABI=0 or 1); for a JIT-built op (StyleGAN's custom ops) add that flag to "
                          "its nvcc/g++ command, clear its cache folder and run again.")
    elif own:
        what, why, fix = ("is not linked the way TensorFlow's ops must be",
                          "The op's library is not a package's: it was built here, and it wants {demangled|a TensorFlow "
                          "symbol} that only libtensorflow_framework exports; since TensorFlow 1.4 a custom op must be "
                          "linked against it, with TensorFlow's compile flags.",
                          "Rebuild the op with TensorFlow's flags: `TF_CFLAGS=( $(python -c 'import tensorflow as tf; "
                          "print(\" \".join(tf.sysconfig.get_compile_flags()))') )`, `TF_LFLAGS=( $(python -c 'import "
                          "tensorflow as tf; print(\" \".join(tf.sysconfig.get_link_flags()))') )`, then `g++ -shared "
                          "... ${TF_CFLAGS[@]} -fPIC ... ${TF_LFLAGS[@]}` (the link flags add -ltensorflow_framework).")
    else:
        what, why, fix = ("was built for another TensorFlow",
                          "{dist|A TensorFlow companion package (tensorflow-text, tensorflow-addons, tensorflow-io)} "
                          "ships ops compiled against one TensorFlow release; the installed TensorFlow does not export "
                          "{demangled|the symbol they want}, so the two are of different releases.",
                          "Install {dist|the companion package}'s release made for the installed TensorFlow (`pip show "
                          "tensorflow` gives it): tensorflow-text's version equals TensorFlow's (`pip install "
                          "\"tensorflow-text==<TF major.minor>.*\"`); tensorflow-addons and tensorflow-io list the "
                          "TensorFlow each release supports; or upgrade both together (`pip install -U tensorflow "
                          "{dist|<the package>}`).")
    sig = _sig("tensorflow-op-abi", "toolchain", "{dist|a TensorFlow op library}" + " " + what, 83, why, fix=fix,
               areas=("tensorflow",), sources=(_TF_FLAGS,))
    return _match(sig, text, at, {"dist": dist, "demangled": (sym or {}).get("demangled")})
