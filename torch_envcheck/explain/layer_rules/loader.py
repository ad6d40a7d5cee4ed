"""Layer rules for the dynamic loader: a shared library or DLL that cannot be found or loaded, and who provides it.

    missing_library  a soname/DLL that cannot be found                 -> its provider: wheel, driver, VC++ runtime
    not_an_elf_library  "invalid ELF header": a DLL in Linux, an LFS pointer -> the package's Linux build
    libcuda_not_in_linker_cache  Triton (and packages checking through it) cannot find the driver's libcuda.so ->
                     its folder in the loader cache or TRITON_LIBCUDA_PATH (WSL: /usr/lib/wsl/lib)
    glibc_pieces_mixed  "version `GLIBC_PRIVATE' not found": two glibcs' libraries loaded together -> the stray copy
    mkl_without_itt_symbol  libtorch_cpu.so wanting iJIT_NotifyEvent -> MKL below 2024.1 (it removed the symbol)"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.explain.layer_rules.kit import (CONTEXT_TAIL, SOURCES, _WINDOWS_TEXT, _basename, _context,
    _match, _sig, _torch_owned, last_in_tail)
from torch_envcheck.explain.layer_rules.packages import _imported_package
from torch_envcheck.explain.layer_rules.intel_gpu import INSTALL_COMPUTE_RUNTIME, INTEL_DRIVER


_WSL_LIBCUDA = re.compile(r"libcuda\.so|/usr/lib/wsl/lib")


# the Debian packages of NVIDIA's CUDA repository that carry these libraries (its download pages: cuDSS, cuSPARSELt)
_JETSON_APT = {"cudss": "cudss", "cusparselt": "libcusparselt0"}
_JETSON_TEXT = r"(?i)\bjetson\b|\bjetpack\b|\bL4T\b|\btegra\b|\bOrin\b|\bXavier\b|jetson-ai-lab"


# torch's split CUDA libraries (BUILD_SPLIT_CUDA: CUDA 11 builds of torch 1.8 to 1.12)
_SPLIT_CUDA = re.compile(r"libtorch_cuda_(?:cu|cpp)\.so")
_SPLIT_CUDA_SRC = {"url": "https://github.com/pytorch/pytorch/pull/49050",
                   "what": "BUILD_SPLIT_CUDA: split torch_cuda into torch_cuda_cu and torch_cuda_cpp (CUDA 11 builds "
                           "from torch 1.8, pytorch#52518)"}
_SPLIT_CUDA_GONE = {"url": "https://github.com/pytorch/pytorch/pull/87502",
                    "what": "[BE] Delete BUILD_SPLIT_CUDA option (October 2022)"}
# torch was imported before the failing library loaded: its op loader or its own frames
_TORCH_LOADED_FIRST = re.compile(r"torch\.ops\.load_library|_OpNamespace|[/\\]torch[/\\]_ops\.py|"
                                 r"[/\\]torch[/\\]_classes\.py|load_library\(")


def missing_library(ent, text):
    libs = [x for x in ent.libraries if x.get("missing") and x.get("provider")]
    win = _context(text, r"[A-Za-z]:\\[A-Za-z]|\\Lib\\site-packages|\.dll\b")
    linux_on_windows = [x for x in ent.libraries if x["file"].endswith(".so") or ".so." in x["file"]] if win else []
    if linux_on_windows and any(x.get("missing") for x in ent.libraries):
        owner = next((o for o in ent.owners() if o not in ("torch", "nvidia")), None)
        x = linux_on_windows[-1]
        caps = {"lib": x["file"], "package": owner}
        sig = _sig("linux-binary-on-windows", "toolchain",
                   "{package|a package} looks for Linux libraries (.so) on Windows", 76,
                   "{package|The package} loads {lib}, a Linux shared library, on Windows: the installed release ships "
                   "Linux binaries only (or searches for them), so its CUDA part cannot load here.",
                   fix="Install a release of {package|the package} that ships Windows binaries: `pip install -U "
                       "{package|PACKAGE}` (check its install notes for Windows), or run it under WSL 2.",
                   causes=(("ext", "the compiled extension exists but fails to load", ("TE705",)),),
                   areas=("platform",), sources=(SOURCES["vc"],))
        return _match(sig, text, x["at"], caps)
    if not libs:
        return None
    # "Could not load library A. Error: B: cannot open ...": B, the dependency A wanted, is the cause
    deps = [lib for lib in libs if lib.get("wanted_by")]
    x = deps[-1] if deps else libs[-1]
    p = x["provider"]
    caps = {"lib": x["file"], "library": x.get("library"), "wheel": x.get("wheel"), "cuda": x.get("cuda"),
            "cudnn": x.get("cudnn")}
    if x.get("linker") and p not in ("cuda-library", "driver"):
        # a library outside the CUDA toolkit (TensorRT, ...) the linker is told to link (-lX): its own SDK or
        # development package has the unversioned libX.so, and the link must be told its folder
        name = x.get("library") or "the library"
        sig = _sig("library-not-found-by-linker", "toolchain", "the linker cannot find {lib} ({library}) to link against",
                   72,
                   "A build links against " + name + " (-l on the link line) and the linker finds no {lib} in its "
                   "search folders: it is not installed, or its lib folder was not given to the link.",
                   fix="Install " + name + " (its SDK or development package, with the unversioned {lib}) and point the "
                       "build at its lib folder: -L<folder> on the link line, LIBRARY_PATH, or the project's own setting "
                       "for it" + (" (TENSORRT_ROOT / TensorRT_DIR, TRT_LIB_DIR)" if x.get("provider") == "tensorrt" else
                                   "") + "; then rebuild.",
                   causes=(), areas=("toolchain",), sources=(SOURCES["ld"],), generic=True)
        return _match(sig, text, x["at"], caps)
    # under WSL only the driver's libraries come from Windows (/usr/lib/wsl/lib); a CUDA library such as cuDNN is
    # a wheel's or a toolkit's there as anywhere, unless what it failed on is the driver's libcuda
    if ent.platform.get("wsl") and (p == "driver" or x.get("kind") == "cudnn" and _WSL_LIBCUDA.search(text)):
        sig = _sig("wsl-libcuda-not-found", "wsl", "{lib} cannot be loaded under WSL: the Windows driver's libcuda is "
                   "not where the loader looks", 80,
                   "Under WSL 2 the GPU driver is the Windows one; its Linux libraries (libcuda.so.1) are mounted in "
                   "/usr/lib/wsl/lib, as copies, without the unversioned libcuda.so that cuDNN and some programs open. "
                   "Nothing is missing on Windows: the loader does not find the WSL copy.",
                   fix="Put /usr/lib/wsl/lib on the loader's path (`export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH`)"
                       " or link the unversioned name next to the library that wants it (`ln -s /usr/lib/wsl/lib/libcuda.so.1 "
                       "<that lib folder>/libcuda.so`); keep the Windows NVIDIA driver current and never install a Linux "
                       "driver inside WSL.",
                   causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("platform", "driver"),
                   sources=({"url": "https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
                             "what": "CUDA on WSL: the driver comes from Windows, libraries in /usr/lib/wsl/lib"},))
        return _match(sig, text, x["at"], caps)
    if p == "tensorrt" and not x.get("linker"):
        # TensorRT is not part of the CUDA toolkit nor of torch's wheels: the program that opens libnvinfer (TF-TRT,
        # Paddle, ONNX Runtime's TensorRT EP, torch-tensorrt) needs TensorRT of the soname's major installed
        major = re.search(r"\.so\.(\d{1,2})|nvinfer_?(\d{1,2})\.dll", x["file"])
        caps["major"] = next((g for g in major.groups() if g), None) if major else None
        sig = _sig("tensorrt-library-not-found", "libraries",
                   "{lib} (" + (x.get("library") or "TensorRT") + ") cannot be loaded: TensorRT" +
                   (" {major}" if caps["major"] else "") + " is not installed where the loader looks", 74,
                   "The program opens {lib}, a library of NVIDIA TensorRT" + (" {major}" if caps["major"] else "") +
                   ". TensorRT is installed on its own (neither the CUDA toolkit nor torch's wheels carry it): it is "
                   "missing, of another major, or its lib folder is not on the loader's path.",
                   fix="Install TensorRT" + (" {major}" if caps["major"] else " of the major the program was built "
                                             "with") + " (the tensorrt wheels on PyPI, `pip install "
                   "tensorrt` for the newest, or NVIDIA's tar/deb/zip packages for any release) and put its lib folder on "
                   "LD_LIBRARY_PATH (PATH on Windows); a program that needs TensorRT only for an optional path (TF-TRT, "
                   "ONNX Runtime's TensorRT provider) runs without it when that path is not used.",
                   causes=(), areas=("libraries",),
                   sources=({"url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/installing-tensorrt/"
                                    "installing.html",
                             "what": "installing TensorRT: pip wheels, tar, deb/rpm and zip packages"},), generic=True)
        return _match(sig, text, x["at"], caps)
    if p == "cuda-library":
        layer = "cudnn" if x.get("kind") == "cudnn" else "libraries"
        wheels = x.get("wheel_choices")
        if wheels:
            caps["wheel"] = " or ".join(wheels)
        # one command per choice ("pip install a or b" is not a command), written into the fix itself: the wheel names
        # come from knowledge (native's table), not from the text, and a filled-in field would be shell-quoted whole
        wheel_cmd = " or ".join(f"`pip install {w}`" for w in wheels or ([caps["wheel"]] if caps.get("wheel") else ())) \
            or "`pip install` the matching nvidia-* wheel"
        if wheels and len(wheels) > 1:
            wheel_cmd += " (the one of torch's CUDA major: `python -c \"import torch; print(torch.version.cuda)\"`)"
        apt = _JETSON_APT.get(x.get("kind") or "")
        if wheels and apt and _context(text, _JETSON_TEXT):
            # Jetson (Tegra) is not the server aarch64 (SBSA) the nvidia-* wheels are built for: NVIDIA's apt
            # repository for JetPack carries the library
            wheel_cmd = ("the JetPack package of " + (x.get("library") or "it") + " from NVIDIA's apt repository (`sudo "
                         "apt-get install " + apt + "` after adding the CUDA repository for JetPack; the "
                         "nvidia-* wheels are built for server ARM, not Tegra), or " + wheel_cmd)
        loader = x.get("wanted_by")
        if loader and _context(text, r"docker run|/\.dockerenv|nvidia-docker") is False and not _torch_owned(loader, None):
            pkg = re.match(r"(?:lib)?([a-z][a-z0-9]{2,40})", _basename(loader).lower())
            caps.update(loader=_basename(loader), package=pkg.group(1) if pkg else None)
            sig = _sig("package-built-for-other-cuda", layer,
                       "{loader} needs {lib} ({library}" + (" of CUDA {cuda})" if x.get("cuda") else ")"), 73,
                       "{loader}, part of {package|a package}, was built against {lib}" +
                       (" of CUDA {cuda}" if x.get("cuda") else "") + ", which this environment does not have: that "
                       "build of {package|the package} is for another CUDA than the one installed.",
                       fix="Install the {package|package} build made for the CUDA you have (its CUDA 12 / CUDA 11 builds "
                           "are separate packages or indexes; check its install page), or install the CUDA " +
                           (x.get("cuda") or "") + " libraries it needs: " + wheel_cmd +
                           " and put their lib folder on LD_LIBRARY_PATH.",
                       causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's",
                                ("TE501",)),), areas=("libraries",), sources=(SOURCES["wheels"], SOURCES["ld"]),
                       generic=True)
            return _match(sig, text, x["at"], caps)
        if _context(text, r"docker run|nvidia-docker|/\.dockerenv"):
            sig = _sig("container-without-gpu-libraries", "container",
                       "{lib} is missing inside the container: it was started without the GPU", 73,
                       "In a container, the NVIDIA Container Toolkit mounts the driver's libraries and the GPU when "
                       "the container starts with a GPU; started without it, CUDA programs find no CUDA libraries.",
                       fix="Start the container with the GPU: `docker run --gpus all ...` (install the NVIDIA Container "
                           "Toolkit on the host: nvidia-container-toolkit, then `nvidia-ctk runtime configure "
                           "--runtime=docker`), or use an image that ships {lib}.",
                       causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),),
                       areas=("driver",), sources=(SOURCES["container_toolkit"],), generic=True)
            return _match(sig, text, x["at"], caps)
        if x["file"].lower().endswith(".dll"):
            # Windows finds a DLL on the DLL search path (the program's folder, System32, PATH): a CUDA installed by
            # NVIDIA's installer, or a program's bundled copy, is found only through PATH (or os.add_dll_directory)
            # the layer is Windows' DLL loading whoever ships the DLL: what fails is the search path, the same for
            # cuDNN, cuBLAS or NVRTC (the fix still names the provider)
            cudnn = x.get("kind") == "cudnn"
            sig = _sig("cuda-dll-not-found", "windows-runtime", "{lib} ({library}) cannot be loaded on Windows", 72,
                       "Windows cannot load {lib}: {library}" + (" of CUDA {cuda}" if x.get("cuda") else "") +
                       (" {cudnn}" if cudnn and x.get("cudnn") else "") + ". It is not installed, or the folder that "
                       "holds it is not on the DLL search path (PATH); with error 126 a DLL it depends on is missing.",
                       fix=("Install " + ("cuDNN {cudnn|of the version the program was built for} for the installed "
                                          "CUDA (NVIDIA's Windows zip: copy its bin\\cudnn*.dll into the CUDA toolkit's "
                                          "bin folder, or add its own bin folder to PATH)" if cudnn else
                                          "the CUDA toolkit " + (x.get("cuda") or "of the version the program was built "
                                                                 "for") + " (NVIDIA's Windows installer)") +
                            ", and make sure the folder that holds {lib} (the CUDA bin folder, e.g. C:\\Program Files\\"
                            "NVIDIA GPU Computing Toolkit\\CUDA\\vX.Y\\bin, or the program's own bundled CUDA folder) "
                            "is on PATH; open a new terminal after changing PATH. A Python package can also load it "
                            "from the nvidia-* wheel (" + wheel_cmd + ")."),
                       causes=(("ld-path", "the DLL search path does not reach the CUDA libraries", ("TE501",)),),
                       areas=("libraries",), sources=(SOURCES["wheels"], {
                           "url": "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order",
                           "what": "the DLL search order: the application's folder, System32, then PATH"}), generic=True)
            return _match(sig, text, x["at"], caps)
        if x.get("linker"):
            # "cannot find -lX" is the linker at build time, wanting the unversioned development name: a CUDA
            # toolkit (or its -dev packages) has it; the runtime wheels ship only libX.so.N, and LD_LIBRARY_PATH is the
            # loader's path, not the linker's
            sig = _sig("cuda-library-not-found-by-linker", "toolchain",
                       "the linker cannot find {lib} ({library}) to link a build against", 74,
                       "A build links against {library} and the linker finds no {lib}, the unversioned development "
                       "name: it comes with a CUDA toolkit (its lib64 folder) or its development packages, not with "
                       "the loader's runtime copies (libX.so.N in the nvidia-* wheels).",
                       fix="Install a complete CUDA toolkit of the version torch was built with (torch.version.cuda; "
                           "conda: cuda-toolkit / cuda-libraries-dev, apt: cuda-libraries-dev-X-Y) and point CUDA_HOME "
                           "at it, or add the folder that holds {lib} to LIBRARY_PATH (with only a wheel's libX.so.N, "
                           "create the {lib} link next to it) and rebuild.",
                       causes=(("toolkit-incomplete", "no CUDA toolkit with the development libraries", ("TE601", "TE603")),),
                       areas=("toolchain",), sources=(SOURCES["ld"], SOURCES["ext"]), generic=True)
            return _match(sig, text, x["at"], caps)
        sig = _sig("cuda-library-not-found", layer, "{lib} ({library}) cannot be loaded", 72,
                   "The dynamic loader cannot find {lib}: {library}" + (" of CUDA {cuda}" if x.get("cuda") else "") +
                   ". It comes with the {wheel|nvidia-* wheel of that CUDA} (which a CUDA build of torch installs) or "
                   "with a CUDA toolkit; it is missing, or its folder is not on the loader's path.",
                   fix="Install the wheel that ships {lib}: " + wheel_cmd + " (or "
                       "reinstall the torch CUDA build that requires it); with a system CUDA toolkit instead, add its "
                       "lib64 folder to LD_LIBRARY_PATH.",
                   causes=(("ld-path", "LD_LIBRARY_PATH holds CUDA libraries of another version than torch's", ("TE501",)),),
                   areas=("libraries",), sources=(SOURCES["wheels"], SOURCES["ld"]), generic=True)
        return _match(sig, text, x["at"], caps)
    if p == "driver" and x.get("linker") and x["file"].startswith("libcuda."):
        # "cannot find -lcuda": the linker at build time, which reads LIBRARY_PATH and -L, never the loader's
        # LD_LIBRARY_PATH; a build machine without the driver links against the toolkit's stub (lib64/stubs)
        sig = _sig("libcuda-not-found-by-linker", "toolchain",
                   "the linker cannot find libcuda.so to link a build against (-lcuda)", 80,
                   "A build links against the driver's CUDA library (-lcuda) and the linker finds no libcuda.so: the "
                   "driver installs libcuda.so.1, not the unversioned development name, and the linker searches "
                   "LIBRARY_PATH and -L folders, not LD_LIBRARY_PATH. The CUDA toolkit ships a stub libcuda.so "
                   "(lib64/stubs) for linking on machines with or without the driver; a conda compiler_compat ld "
                   "searches fewer system folders still.",
                   fix="Point the linker at the toolkit's stub and rebuild: `export LIBRARY_PATH=$CUDA_HOME/lib64/stubs:"
                       "$LIBRARY_PATH` (conda's toolkit: $CONDA_PREFIX/lib/stubs or targets/x86_64-linux/lib/stubs), or "
                       "create the development link to the driver's library (`sudo ln -s libcuda.so.1 libcuda.so` in "
                       "its folder, `ldconfig -p | grep libcuda` shows it); the stub is only for linking, the driver's "
                       "libcuda.so.1 is what runs." + (" Triton (torch.compile's kernels) links its launcher this way and "
                       "reads TRITON_LIBCUDA_PATH too: set it to the folder that holds the driver's libcuda.so.1."
                       if _context(text, r"(?i)triton|inductor|torch\.compile|torch/_inductor") else ""),
                   causes=(("toolkit-incomplete", "no CUDA toolkit with the development libraries", ("TE601", "TE603")),),
                   areas=("toolchain",), sources=(SOURCES["ld"], SOURCES["ext"]))
        return _match(sig, text, x["at"], caps)
    if p == "driver":
        container = _context(text, r"docker|container|podman|kubernetes|k8s") or bool(ent.platform.get("container"))
        wsl = _context(text, r"/usr/lib/wsl|WSL|microsoft-standard")
        if x["file"] == "libcuda.so" and not container and not wsl:
            # the unversioned name: the driver installs libcuda.so.1 (its soname); libcuda.so is only a link that
            # development packages add, and programs that dlopen it (cuDNN, Triton, bitsandbytes, NCCL) need it
            sig = _sig("libcuda-unversioned-not-found", "libraries",
                       "libcuda.so (the unversioned name of the driver's libcuda.so.1) is not found", 80,
                       "{lib} is not the driver's soname: the driver installs libcuda.so.1, and libcuda.so is a link to it "
                       "that only development packages create. A library or program that opens the unversioned name "
                       "fails where the link is missing or its folder is not on the loader's path.",
                       fix="Find the driver's library (`ldconfig -p | grep libcuda`): if libcuda.so.1 is listed, put its "
                           "folder on LD_LIBRARY_PATH or create the link next to it (`sudo ln -s libcuda.so.1 libcuda.so` "
                           "in that folder, then `sudo ldconfig`); under WSL 2 the folder is /usr/lib/wsl/lib. If no "
                           "libcuda.so.1 is listed, install the NVIDIA driver.",
                       causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver", "libraries"),
                       sources=(SOURCES["ld"],))
            return _match(sig, text, x["at"], caps)
        layer = "container" if container else "wsl" if wsl else "driver"
        sig = _sig("driver-library-not-found", layer, "{lib}, the NVIDIA driver's library, cannot be loaded", 78 if layer == "driver" else 81,
                   "{lib} is installed by the NVIDIA driver, never by pip or conda. " +
                   ("In a container it is mounted by the NVIDIA Container Toolkit when the container starts with a GPU."
                    if container else "Under WSL 2 it comes from the Windows driver (/usr/lib/wsl/lib)." if wsl else
                    "No driver is installed, or it is not loaded."),
                   fix=("Start the container with the GPU (`docker run --gpus all ...`) after installing the NVIDIA "
                        "Container Toolkit (nvidia-ctk runtime configure --runtime=docker; restart docker)."
                        if container else "Install or update the NVIDIA driver on Windows (not inside WSL) and keep "
                        "/usr/lib/wsl/lib on LD_LIBRARY_PATH." if wsl else
                        "Install the NVIDIA driver (your distribution's nvidia-driver package, then reboot); check with "
                        "`nvidia-smi`."),
                   causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301", "TE309")),), areas=("driver",),
                   sources=(SOURCES["container_toolkit"],), generic=layer == "driver")
        return _match(sig, text, x["at"], caps)
    flavour = "rocm" if re.search(r"_hip\b|_hip\.", x["file"]) else "cuda" if re.search(r"_cuda", x["file"]) else None
    tv = ent.versions.get("torch") or ent.packages.get("torch") or ""
    built = "rocm" if "+rocm" in tv else "cuda" if "+cu" in tv else "cpu" if "+cpu" in tv else None
    if p == "torch" and flavour and built and flavour != built:
        # the binary wants the library of another torch build flavour (a ROCm torchaudio beside a CUDA torch)
        # the companion named without torch's local label (torchaudio==0.10.0 beside torch==1.10.0+cu111), else the
        # package the text imports
        unlabelled = [k for k in ("torchaudio", "torchvision") if k in ent.packages and "+" not in ent.packages[k]]
        pkg = unlabelled[-1] if unlabelled else _imported_package(text, allow=frozenset({"torchvision", "torchaudio"}))
    if p == "torch" and flavour and built and flavour != built and not (pkg is None and flavour == "cuda" and built == "rocm"):
        tag = tv.split("+", 1)[1]
        caps.update(package=pkg, torch=tv, tag=tag, flavour={"rocm": "ROCm", "cuda": "CUDA"}[flavour],
                    pkg_ver=ent.packages.get((pkg or "").replace("_", "-")))
        sig = _sig("package-for-another-torch-flavour", "toolchain",
                   "{package|a package} is a {flavour} build beside torch {torch}", 83,
                   "{lib} belongs to torch's {flavour} builds; the installed torch is {torch}, so {package|the package} "
                   "that loads it was installed as the build for another flavour (an unsuffixed version resolved from "
                   "another index or a find-links page).",
                   fix="Install {package|the package} of the same build as torch: `pip install {package|PACKAGE}=="
                       "{pkg_ver|<its version>}+{tag}` from the index torch came from (e.g. --index-url "
                       "https://download.pytorch.org/whl/{tag}), with torch, torchvision and torchaudio of one release.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("torch", "extension"), sources=(SOURCES["torch_index"],))
        return _match(sig, text, x["at"], caps)
    rocm_torch = built == "rocm" or _context(text, r"whl/rocm|\+rocm\d|torch\.version\.hip|\bROCm\b|\brocm\d")
    if p == "torch" and flavour == "cuda" and rocm_torch:
        # a binary linked to libtorch_cuda (a CUDA torch's library) next to a ROCm torch, which ships libtorch_hip
        # instead: it was built against a CUDA torch and must be rebuilt against this one (hipified)
        owner = next((o for o in ent.owners() if o not in ("torch", "nvidia")), None)
        caps.update(package=owner)
        sig = _sig("extension-built-for-cuda-torch-on-rocm", "rocm",
                   "{lib} is a CUDA torch's library: {package|an extension} was built for a CUDA torch, this one is ROCm",
                   84, "ROCm builds of torch ship libtorch_hip.so and no libtorch_cuda.so; a compiled extension (or "
                   "a library loaded with torch.ops.load_library) that links to {lib} was built against a CUDA "
                   "(NVIDIA) torch and cannot load under the ROCm one.",
                   fix="Rebuild {package|the extension} against the installed ROCm torch (its setup.py with "
                       "torch.utils.cpp_extension hipifies the CUDA sources: delete its build/ folder, then `pip install "
                       "--no-build-isolation .` with ROCm's hipcc on PATH), or install the project's ROCm build where it "
                       "publishes one; a prebuilt .so made for CUDA cannot be used with ROCm.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("torch", "extension"), sources=(SOURCES["ext"], SOURCES["hsa"]))
        return _match(sig, text, x["at"], caps)
    if p == "python":
        caps["python"] = x.get("python")
        sig = _sig("python-shared-library-missing", "libraries", "{lib}, Python {python}'s shared library, is not found",
                   78, "A binary (a wheel's extension, an embedding program) was linked to {lib}, the shared library of "
                   "Python {python}. This interpreter is another Python, or a Python {python} built without its shared "
                   "library (pyenv and source builds without --enable-shared), or the distribution's libpython package "
                   "is not installed.",
                   fix="Install Python {python}'s shared library (Debian/Ubuntu: `sudo apt-get install libpython{python}`; "
                       "pyenv: `PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install {python}`), or install the package "
                       "built for the Python you run (a wheel whose cpXY tag matches `python -VV`): a wheel built "
                       "against libpython{python} belongs to that interpreter.",
                   causes=(("python", "this Python version is outside the torch release's supported range", ("TE103",)),),
                   areas=("platform",), sources=(SOURCES["ld"],))
        return _match(sig, text, x["at"], caps)
    if p == "torch" and _SPLIT_CUDA.match(x["file"]):
        # the two halves of libtorch_cuda that only torch's split CUDA 11 builds shipped: the binary was built
        # against such a torch, and no torch since has them, whatever the import order
        owner = next((o for o in ent.owners() if o not in ("torch", "nvidia")), None)
        caps.update(package=owner)
        sig = _sig("extension-built-for-split-cuda-torch", "toolchain",
                   "{lib} is a library of torch 1.8 to 1.12's CUDA builds: {package|an extension} was built for one", 83,
                   "torch's CUDA 11 builds of releases 1.8 to 1.12 split libtorch_cuda.so into libtorch_cuda_cpp.so and "
                   "libtorch_cuda_cu.so (BUILD_SPLIT_CUDA), and torch's own build dropped the split afterwards: a "
                   "compiled extension linked to {lib} was built against one of those releases and cannot load with "
                   "the installed torch.",
                   fix="Install {package|the extension}'s build for the installed torch and CUDA (its release that "
                       "names this torch; a nightly for a nightly torch), or rebuild it against the installed torch "
                       "(delete its build/ folder, then `pip install --no-build-isolation --no-cache-dir` it); or install "
                       "the torch 1.x release it was built for, with its companions.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("extension",), sources=(SOURCES["ext"], _SPLIT_CUDA_SRC, _SPLIT_CUDA_GONE))
        return _match(sig, text, x["at"], caps)
    if p == "torch" and flavour == "cuda" and built != "cuda" and not ent.platform.get("windows") and \
            _TORCH_LOADED_FIRST.search(text[max(0, x["at"] - 4000):x["at"] + 2000]):
        # torch itself was imported (the library is loaded through torch.ops.load_library, or torch's own frames
        # precede it): a CUDA torch has already loaded its libc10_cuda / libtorch_cuda, so the loader would have found
        # them; this torch has none, a build without CUDA
        owner = next((o for o in ent.owners() if o not in ("torch", "nvidia")), None)
        caps.update(package=owner)
        sig = _sig("cuda-extension-beside-torch-without-cuda", "torch-build",
                   "{lib} is a CUDA torch's library, and the torch that loaded {package|the extension} has none", 82,
                   "{lib} ships only in torch's CUDA builds. torch was already imported when {package|the compiled "
                   "extension} loaded (through torch.ops.load_library or torch's own import), and a CUDA torch would "
                   "have loaded {lib} by then: the installed torch is a CPU-only (or ROCm) build, beside an extension "
                   "built for a CUDA torch.",
                   fix="Install torch's CUDA build of the same release (`pip install --force-reinstall torch==<its "
                       "version> --index-url https://download.pytorch.org/whl/cu<XY>` for the CUDA the extension names; "
                       "conda: pytorch-cuda / a cuda build of pytorch), or, to stay on the CPU, the extension's CPU "
                       "build ({package|the package}'s -cpu variant where it publishes one).",
                   causes=(("cpu-build", "torch is the CPU-only build", ("TE202",)),),
                   areas=("torch", "extension"), sources=(SOURCES["torch_index"],))
        return _match(sig, text, x["at"], caps)
    if p == "torch" and ".so" in x["file"] and not ent.platform.get("windows"):
        sig = _sig("extension-loaded-before-torch", "toolchain",
                   "{lib}, a torch library, is not found while a compiled extension loads", 79,
                   "A compiled extension links to torch's own {lib}. The loader finds torch's libraries only after "
                   "`import torch` (torch adds its lib folder); imported first, the extension cannot load. If torch is "
                   "imported first and it still fails, the extension was built against a torch whose libraries differ "
                   "(libtorch_cpu.so exists from torch 1.5 on).",
                   fix="`import torch` before importing the extension; if it still fails, rebuild (recompile) the extension "
                       "against the installed torch (delete its build/ folder and reinstall it), or install the build "
                       "made for the same torch.",
                   causes=(("stale", "the compiled extension was built against another torch", ("TE701", "TE705")),),
                   areas=("extension",), sources=(SOURCES["ext"],))
        return _match(sig, text, x["at"], caps)
    if p in ("vc-runtime", "torch", "openmp") and (x["file"].lower().endswith(".dll") or _context(text, _WINDOWS_TEXT)):
        sig = _sig("windows-dll-dependency-missing", "windows-runtime",
                   "{lib} or a DLL it needs cannot be loaded", 74,
                   "Windows could not load {lib}: a DLL it depends on is missing, most often the Microsoft Visual C++ "
                   "runtime (msvcp140.dll, vcruntime140_1.dll) or, for torch's fbgemm.dll, libomp140.x86_64.dll.",
                   fix="Install the latest Microsoft Visual C++ Redistributable (x64), vc_redist.x64.exe from "
                       "https://aka.ms/vs/17/release/vc_redist.x64.exe (it ships libomp140.x86_64.dll too), open a new "
                       "terminal and retry.",
                   causes=(("torch-not-importable", "torch cannot be imported in this interpreter", ("TE201",)),),
                   areas=("torch", "platform"), sources=(SOURCES["vc"],), generic=True)
        return _match(sig, text, x["at"], caps)
    if p == "cudnn":  # zlibwapi.dll
        sig = _sig("cudnn-zlib-missing", "cudnn", "{lib}, which cuDNN 8 needs on Windows, is not found", 79,
                   "cuDNN 8 on Windows loads zlibwapi.dll (zlib built with the WINAPI calling convention) and does not "
                   "ship it; cuDNN 8.9.? and later bundle what they need.",
                   fix="Install zlib for cuDNN: put zlibwapi.dll (from NVIDIA's cuDNN install guide's zlib download) "
                       "into the CUDA bin folder on PATH, or move to a cuDNN 9 build.",
                   causes=(("cudnn", "creating a cuDNN (or cuBLAS) handle failed", ("TE503",)),), areas=("libraries",),
                   sources=({"url": "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html",
                             "what": "cuDNN 8 on Windows: install zlib (zlibwapi.dll)"},))
        return _match(sig, text, x["at"], caps)
    if p == "c-runtime":
        sig = _sig("c-runtime-library-missing", "c-runtime", "{lib} ({library}) cannot be loaded", 70,
                   "{lib} is part of the system's C/C++ runtime; the loader cannot find it.",
                   fix="Install the system's C++ runtime (Debian/Ubuntu: `sudo apt-get install libstdc++6 libgomp1`; "
                       "conda: `conda install -c conda-forge libstdcxx-ng libgomp`).",
                   causes=(("runtime", "pip overwrote conda's C++/OpenMP runtime libraries", ("TE904",)),),
                   areas=("platform",), sources=(SOURCES["libstdcxx"],))
        return _match(sig, text, x["at"], caps)
    if p == "os-package" and x.get("kind") == "openblas":
        sig = _sig("openblas-library-missing", "libraries", "{lib} ({library}) is not installed", 74,
                   "{lib} is the system's OpenBLAS: builds for ARM boards (JetPack's torch wheels among them) link to "
                   "it instead of bundling their own, and this system (or image) does not have it.",
                   fix="Install it from the OS: `sudo apt-get install libopenblas-dev` (Debian/Ubuntu, JetPack; "
                       "libopenblas0 is the runtime alone), or `dnf install openblas` on Fedora/RHEL; in a Dockerfile "
                       "add it to the image's apt-get line.",
                   causes=(("platform", "the platform and Python can run PyTorch", ("TE100",)),), areas=("platform",),
                   sources=({"url": "https://packages.ubuntu.com/noble/libopenblas-dev",
                             "what": "Ubuntu: libopenblas-dev (OpenBLAS)"}, SOURCES["ld"]))
        return _match(sig, text, x["at"], caps)
    if p == "os-package":
        # a library the dynamic loader cannot find, its provider the OS's package manager (the libraries layer: which
        # library the loader finds, whoever ships it)
        gui = re.match(r"lib(?:GL|glib-2\.0|gthread-2\.0|SM|Xext|Xrender)\b", x["file"]) is not None
        sig = _sig("os-library-missing", "libraries", "{lib} ({library}) is not installed", 60,
                   "{lib} is a library of the operating system, not of pip: a package " +
                   ("(often OpenCV's GUI build) " if gui else "") + "loads it and the OS lacks it (a slim container "
                   "image, a hosted notebook's minimal system).",
                   fix=("Install the OS package (Debian/Ubuntu: `sudo apt-get install libgl1 libglib2.0-0`), or use "
                        "opencv-python-headless instead of opencv-python." if gui else
                        "Install the OS package that provides {lib}, as the title names it (Debian/Ubuntu: `apt-file "
                        "search {lib}` finds it; Fedora/RHEL: `dnf provides '*/{lib}'`); in a container image add it to the "
                        "Dockerfile's install line. Without root, conda-forge often packages it (`conda install -c "
                        "conda-forge <name>`)."),
                   causes=(("platform", "the platform and Python can run PyTorch", ("TE100",)),), areas=("platform",),
                   sources=(SOURCES["ld"],))
        return _match(sig, text, x["at"], caps)
    if p == "rocm":
        tail = text[-CONTEXT_TAIL:]
        # installed but not on the loader's path: sudo starts a clean environment (LD_LIBRARY_PATH dropped), or the
        # text says the file is there; ROCm's post-install step registers /opt/rocm/lib with ldconfig
        sudo = re.search(r"\bsudo\b", tail) is not None and "LD_LIBRARY_PATH" in tail
        present = re.search(r"(?i)\bbut (?:the )?file (?:does )?exists?\b|\bfile (?:is )?(?:there|present)\b|"
                            r"\bexists? (?:in|under|at) /opt/rocm", tail) is not None
        if sudo or present:
            sig = _sig("rocm-library-not-on-loader-path", "env",
                       "{lib} ({library}) is installed but not on the loader's path", 79,
                       "{lib} is there, but the dynamic loader searches only LD_LIBRARY_PATH, the folders registered "
                       "in /etc/ld.so.conf.d and the system's; " + (
                           "sudo starts the command with a clean environment, so the LD_LIBRARY_PATH that finds it "
                           "in your shell is gone." if sudo else "ROCm's library folder is in none of them."),
                       fix="Register ROCm's library folders with the loader once (ROCm's post-install step): "
                           "`printf '/opt/rocm/lib\\n/opt/rocm/lib64\\n' | sudo tee /etc/ld.so.conf.d/rocm.conf && "
                           "sudo ldconfig`" + (", or keep the variable under sudo: `sudo env LD_LIBRARY_PATH="
                                               "$LD_LIBRARY_PATH <command>`." if sudo else "."),
                       areas=("platform",),
                       sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/"
                                        "post-install.html",
                                 "what": "ROCm post-install: the loader's paths for /opt/rocm/lib (ldconfig)"},
                                SOURCES["ld"]))
            return _match(sig, text, x["at"], caps)
        if ent.platform.get("wsl"):
            sig = _sig("rocm-library-missing-wsl", "rocm", "{lib} ({library}) is missing under WSL", 78,
                       "{lib} comes from {library}. ROCm for WSL installs the runtime that talks to the Windows "
                       "driver, not every ROCm library a ROCm build of torch links to.",
                       fix="Install the ROCm package that ships {lib} (named above) inside WSL, from AMD's "
                           "repository at the ROCm version of torch's +rocm label, then `sudo ldconfig`; or use AMD's WSL "
                           "PyTorch wheels, which are built against what ROCm for WSL installs.",
                       areas=("platform",),
                       sources=({"url": "https://rocm.docs.amd.com/projects/radeon/en/docs-6.3/docs/install/wsl/"
                                        "install-pytorch.html",
                                 "what": "AMD: install PyTorch for ROCm under WSL"}, SOURCES["hsa"]))
            return _match(sig, text, x["at"], caps)
        sig = _sig("rocm-library-missing", "rocm", "{lib} ({library}) cannot be loaded", 70,
                   "{lib} belongs to ROCm ({library}); the loader cannot find it (that part of ROCm is not installed, "
                   "no ROCm at all, or a ROCm torch on a machine without ROCm).",
                   fix="Install the ROCm package that ships {lib} (named above) at the ROCm version the torch "
                       "build names (torch's +rocmX.Y label), and register /opt/rocm/lib with ldconfig if it is installed "
                       "but not found; in a container, use an image that has it. On a machine without an AMD GPU "
                       "install torch's CUDA/CPU build instead.",
                   causes=(("rocm-wheel", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["hsa"],))
        return _match(sig, text, x["at"], caps)
    if p == "cann":
        sig = _sig("cann-library-not-found", "env", "{lib} ({library}) cannot be found", 78,
                   "{lib} belongs to Ascend's CANN toolkit (or the NPU driver); its libraries are found through the "
                   "environment the toolkit's set_env.sh script sets (LD_LIBRARY_PATH, ASCEND_* paths), and this "
                   "process was started without it, or CANN is not installed.",
                   fix="In the shell that runs Python: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` (a non-root "
                       "install: `source ${HOME}/Ascend/ascend-toolkit/set_env.sh`; add the line to ~/.bashrc); if "
                       "the script is absent, install the CANN toolkit version that your torch_npu release lists.",
                   areas=("platform",),
                   sources=({"url": "https://www.hiascend.com/document/detail/en/mindstudio/700/TITools/"
                                    "migrationtoolpt/atlasfmkt_16_0017.html",
                             "what": "Ascend: after installing CANN, source ${install_path}/set_env.sh"},))
        return _match(sig, text, x["at"], caps)
    if p == "intel-gpu":
        sig = _sig("intel-gpu-library-not-found", "driver", "{lib} ({library}) cannot be found", 76,
                   "{lib} is part of Intel's GPU software stack ({library}); torch's XPU build and Intel's extensions "
                   "load it, and it is not installed or not on the loader's path.",
                   fix="Install " + INSTALL_COMPUTE_RUNTIME + " with the Level Zero loader (libze1), be in the "
                       "render group, and check `sycl-ls` or `clinfo -l` lists the GPU; for the SYCL runtime install "
                       "the wheels torch's XPU build pins (intel-sycl-rt) or `source /opt/intel/oneapi/setvars.sh`.",
                   areas=("driver",), sources=(INTEL_DRIVER,))
        return _match(sig, text, x["at"], caps)
    return None


# cuDNN 8's sub-libraries on Windows (cudnn_cnn_infer64_8.dll, cudnn_ops_train64_8.dll ...) failing with code 126
# ("the module or one of its dependencies"): from cuDNN 8.3 to 8.9 they depend on zlibwapi.dll, which cuDNN does not
# ship (torch's wheels bundle it in torch\lib, so a failure there is something else).
_CUDNN8_SUBLIB = re.compile(r"(?P<lib>cudnn_(?:cnn|ops|adv)_(?:infer|train)64_8\.dll)")


_CODE_126 = re.compile(r"Error code 126\b|WinError 126\b|error 126\b")


_CUDNN_LOADED = re.compile(r"Loaded cuDNN version (?P<v>\d{4,5})")


def cudnn8_sublibrary_on_windows(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDNN8_SUBLIB, tail)
    if m is None or not _CODE_126.search(tail) or re.search(r"(?i)[/\\]torch[/\\]lib[/\\]cudnn_", tail):
        return None
    v = _CUDNN_LOADED.search(tail)
    if v and not 8300 <= int(v.group("v")) < 9000:
        return None
    sig = _sig("cudnn-zlib-missing", "cudnn", "{lib}, a cuDNN 8 library, cannot load: its zlibwapi.dll is missing", 80,
               "{lib} is one of cuDNN 8's sub-libraries; code 126 means it or a DLL it needs was not found. From cuDNN "
               "8.3 (until late 8.9 releases linked zlib in) they need zlibwapi.dll (zlib built with the WINAPI calling convention), which cuDNN does not "
               "ship; torch's wheels bundle it, a system or TensorFlow cuDNN does not.",
               fix="Put zlibwapi.dll (the zlib download of NVIDIA's cuDNN 8 install guide for Windows) into a folder on "
                   "PATH, e.g. the CUDA bin folder; or use the cuDNN your TensorFlow was built with (TensorFlow 2.10: "
                   "cuDNN 8.1, which needs no zlib), or a cuDNN 9 build.",
               causes=(("cudnn", "creating a cuDNN (or cuBLAS) handle failed", ("TE503",)),), areas=("libraries",),
               sources=({"url": "https://docs.nvidia.com/deeplearning/cudnn/archives/cudnn-890/install-guide/index.html",
                         "what": "cuDNN 8 on Windows: install zlib (zlibwapi.dll)"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lib": m.group("lib")})


# the loader opened the file and it is not an ELF shared object: a Windows DLL (or a macOS dylib) installed into a
# Linux environment (WSL included), a Git LFS pointer or an HTML page saved as the library, a truncated download
_NOT_ELF = re.compile(r"(?P<file>[^\s:'\"]{1,300}\.(?P<ext>so(?:\.[\d.]{1,12})?|dll|pyd|dylib)): invalid ELF header")


def not_an_elf_library(ent, text):
    m, at = last_in_tail(_NOT_ELF, text, "invalid ELF header")
    if m is None:
        return None
    owner = _owner_of_path(m.group("file"))
    windows_binary = m.group("ext") in ("dll", "pyd")
    caps = {"lib": _basename(m.group("file")), "package": owner}
    sig = _sig("library-not-elf", "libraries",
               "{lib} is not a Linux shared library" + (" (a Windows binary)" if windows_binary else ""), 80,
               ("{lib} is a Windows DLL: the Windows build of {package|the package} was installed into a Linux "
                "environment (WSL included), where the loader needs ELF .so files." if windows_binary else
                "The loader read {lib} and found no ELF header: the file is not a Linux library (a binary for another "
                "platform, a Git LFS pointer or a web page saved in its place, a truncated download)."),
               fix=("Install {package|the package}'s Linux build inside this environment (`pip uninstall "
                    "{package|PACKAGE}` then `pip install {package|PACKAGE}` from a Linux shell: under WSL, in WSL's "
                    "own Python, not a Windows wheel or folder copied in)." if windows_binary else
                    "Reinstall the package that ships {lib} from its index (`pip install --force-reinstall --no-cache-dir "
                    "{package|PACKAGE}`); if it came from git, fetch its LFS files (`git lfs pull`)."),
               causes=(("ext", "the compiled extension exists but fails to load", ("TE705",)),), areas=("libraries",),
               sources=(SOURCES["ld"],))
    return _match(sig, text, at, caps)


def _owner_of_path(path: str) -> str | None:
    m = re.search(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z0-9_.-]{1,100})[/\\]", path)
    return m.group(1) if m else None


# Triton finds the driver's libcuda through `ldconfig -p` (or TRITON_LIBCUDA_PATH, a folder) and links its launcher
# with `gcc ... -lcuda`, which needs the unversioned libcuda.so where the linker looks
# (python/triton/backends/nvidia/driver.py, libcuda_dirs); its assertion says "libcuda.so cannot found!", unsloth's
# import check through it "CUDA is not linked properly", and a failed launcher build prints gcc's command
_LIBCUDA_UNFOUND = re.compile(r"libcuda\.so cannot (?:be )?found|(?:Unsloth: )?CUDA is not linked properly|"
                              r"\[['\"][^\]\n]{0,80}?(?:gcc|cc|clang)['\"],[^\]\n]{0,600}?['\"]-lcuda['\"][^\]\n]{0,800}\]['\"]? "
                              r"returned non-zero exit status")


def libcuda_not_in_linker_cache(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_LIBCUDA_UNFOUND, tail)
    if m is None:
        return None
    wsl = bool(ent.platform.get("wsl")) or "/usr/lib/wsl" in tail
    launcher = "-lcuda" in m.group(0)
    where = "/usr/lib/wsl/lib" if wsl else "<the folder of the driver's libcuda.so.1>"
    sig = _sig("libcuda-not-in-linker-cache", "wsl" if wsl else "libraries",
               "Triton cannot find the driver's libcuda.so" + (" under WSL" if wsl else "") +
               (" to link its launcher (gcc -lcuda)" if launcher else ""), 80,
               "Triton (used by torch.compile, bitsandbytes, unsloth, xformers and diffusers' kernels) finds the "
               "NVIDIA driver's libcuda through the loader cache (`ldconfig -p`) or TRITON_LIBCUDA_PATH, and links a "
               "small launcher with `gcc ... -lcuda`, which needs the unversioned libcuda.so where the linker looks. "
               + ("Under WSL 2 the driver's libraries are in /usr/lib/wsl/lib, which the loader cache may not list, "
                  "and some WSL releases ship only libcuda.so.1 there." if wsl else
                  "The driver's folder is not in the cache (Colab: /usr/lib64-nvidia; a container or a distribution "
                  "that keeps the driver elsewhere), or only libcuda.so.1 is installed.")
               + (" A launcher build can also fail for lack of Python's headers (Python.h)." if launcher else ""),
               fix="Point Triton at the driver's library folder: `export TRITON_LIBCUDA_PATH=" + where + "`, or add the "
                   "folder to the loader cache (`sudo ldconfig " + where + "`; to keep it, a file in "
                   "/etc/ld.so.conf.d/ naming it). If that folder has libcuda.so.1 but no libcuda.so, link the "
                   "unversioned name to it in a folder on LIBRARY_PATH (`ln -s " + where + "/libcuda.so.1 "
                   "~/.local/lib/libcuda.so` and `export LIBRARY_PATH=~/.local/lib`)." +
                   (" Install Python's headers too (python3-dev) if the log names Python.h." if launcher else "") +
                   " In a conda environment, a CUDA stack from conda (pytorch-cuda / cuda-version) is the other way.",
               causes=(), areas=("driver",),
               sources=({"url": "https://github.com/triton-lang/triton/blob/main/python/triton/backends/nvidia/driver.py",
                         "what": "Triton's libcuda_dirs: TRITON_LIBCUDA_PATH, then `ldconfig -p`"},
                        {"url": "https://docs.nvidia.com/cuda/wsl-user-guide/index.html",
                         "what": "CUDA on WSL 2: the driver's libraries in /usr/lib/wsl/lib"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch 1.0 and older looked the CUDA runtime up themselves (torch/cuda/__init__.py's _load_cudart: ctypes over
# LD_LIBRARY_PATH/PATH and the default folders) and raised this when the lookup failed (pytorch/pytorch#16527,
# #14805); current releases load the runtime they ship with
_CUDART_LOOKUP = re.compile(r"couldn[’‘'`]t find libcudart\. Make sure CUDA libraries are installed")


def cudart_lookup_of_old_torch(ent, text):
    m, at = last_in_tail(_CUDART_LOOKUP, text, "libcudart")
    if m is None:
        return None
    sig = _sig("old-torch-cudart-lookup", "libraries", "an old torch's own search for libcudart found none", 80,
               "torch 1.0 and older looked for the CUDA runtime library (libcudart) by themselves when CUDA was first "
               "used, in LD_LIBRARY_PATH (PATH on Windows) and the default folders, and stop here when the lookup "
               "fails; current releases load the CUDA runtime they ship with.",
               fix="Use a current torch built for this machine (the selector at pytorch.org for its CUDA; on a Jetson, "
                   "NVIDIA's wheel for its JetPack), or, to keep this one, put the folder with the libcudart it was "
                   "built for on the search path: `export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH` (Jetson: the JetPack CUDA "
                   "under /usr/local/cuda/lib64; Windows: the CUDA bin folder on PATH).",
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/pytorch/issues/16527",
                         "what": "torch.cuda's _load_cudart lookup of libcudart and its failure"},))
    return _match(sig, text, at, {})


# musl's dynamic linker (ldso/dynlink.c) words its failures "Error loading shared library X: <error> (needed by Y)" and
# "Error relocating X: Y: symbol not found"; glibc's say "cannot open shared object file" and "undefined symbol". A
# glibc piece (its loader, libc.so.6, its internal __*_internal symbols) sought through musl's words is a wheel built
# for glibc (manylinux) on a musl system: Alpine and the images built on it
# (a pasted terminal may wrap either message inside the path or before "symbol not found")
_MUSL_LOAD = re.compile(r"Error loading shared library (?P<lib>[\w.+-]{1,80}): [^\n(]{0,120}(?:\(needed by "
                        r"(?P<by>[^)]{1,300})\))?")
_MUSL_RELOC = re.compile(r"Error relocating (?P<by>[^\s:]{1,300}): (?P<sym>[\w@.]{1,120}):\s{1,4}symbol not found")
_GLIBC_PIECE = re.compile(r"^(?:ld-linux[\w.-]{0,30}\.so(?:\.\d{1,2})?|lib(?:c|m|dl|rt|pthread|resolv|util)\.so\.\d{1,2})$")


def glibc_binary_on_musl(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "Error " not in tail:
        return None
    load = last_match(_MUSL_LOAD, tail)
    reloc = last_match(_MUSL_RELOC, tail)
    glibc_lib = load is not None and _GLIBC_PIECE.match(load.group("lib")) is not None
    glibc_sym = reloc is not None and (reloc.group("sym").startswith("__") or "GLIBC" in reloc.group("sym"))
    alpine = re.search(r"(?i)\balpine\b|\bmusl\b", tail) is not None
    if not (glibc_lib or glibc_sym or (alpine and (load or reloc))):
        return None
    m = load if glibc_lib or (reloc is None) else reloc
    by = re.sub(r"\s+", "", m.group("by") or "") or (reloc.group("by") if reloc is not None else None)
    sig = _sig("glibc-binary-on-musl", "c-runtime", "a binary built for glibc on a musl system (Alpine)", 88,
               "These are the words of musl's dynamic linker, the C library of Alpine Linux and the images built on "
               "it. {by|The compiled module} was built for glibc (a manylinux wheel or a glibc distribution's build): musl has no glibc "
               "loader (ld-linux) and not its internal symbols, so the binary cannot be loaded.",
               fix="Use a glibc-based system or image: `python:3.X-slim` (Debian), `ubuntu`, `nvidia/cuda` or the "
                   "framework's own images instead of `python:3.X-alpine` (torch publishes no musllinux wheels; CUDA "
                   "needs glibc); or build every compiled package from source against musl.",
               areas=("platform",),
               sources=({"url": "https://git.musl-libc.org/cgit/musl/tree/ldso/dynlink.c",
                         "what": "musl's dynamic linker and its error messages"},
                        {"url": "https://peps.python.org/pep-0656/",
                         "what": "PEP 656: musllinux wheels, for musl-based distributions such as Alpine"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"by": by})


# the loader refusing a library whose segments are aligned for smaller pages than the kernel's (glibc's "ELF load
# command alignment not page-aligned"): wheels linked for 4 KiB pages on an aarch64 kernel with 64 KiB pages
# (RHEL/CentOS and some Ampere/NVIDIA Grace distributions use 64 KiB)
_PAGE_ALIGN = re.compile(r"(?P<file>[^\s:'\"]{1,300}\.so(?:\.[\d.]{1,12})?): ELF load command (?:address/offset not "
                         r"properly aligned|alignment not page-aligned)")


def library_page_alignment(ent, text):
    m, at = last_in_tail(_PAGE_ALIGN, text, "ELF load command")
    if m is None:
        return None
    owner = _owner_of_path(m.group("file"))
    caps = {"lib": _basename(m.group("file")), "package": owner}
    sig = _sig("library-page-alignment", "torch-build",
               "{lib} is aligned for smaller memory pages than this kernel uses", 86,
               "The kernel runs with larger memory pages (64 KiB: RHEL/CentOS and other aarch64 kernels) than {lib} "
               "was linked for (4 KiB): the loader cannot map its segments. The build of {package|the package} "
               "installed was linked for 4 KiB pages only.",
               fix="Install a build of {package|the package} linked for 64 KiB pages (newer releases link with "
                   "-z max-page-size=0x10000; check `getconf PAGESIZE`), build it from source on this machine, or "
                   "run a kernel with 4 KiB pages.",
               causes=(("platform", "the platform and Python can run PyTorch", ("TE100",)),), areas=("platform",),
               sources=(SOURCES["ld"],))
    return _match(sig, text, at, caps)


# a crash while Python imports (the segfault right after `import torch`, `python -c "import torch"`, or a list of
# imports): no line of the program has run yet, so it is two copies of native libraries meeting in one process
_IMPORT_LINE = re.compile(r"(?m)^\s{0,8}(?:>>> )?(?:import|from) (?P<mod>torch|tensorflow|torchvision|decord|cv2|open3d|"
                          r"jax|numpy)\b|python3? -c [\"']import (?P<mod2>[\w.]+)")


# the same told in the reporter's words: "when I import torch ... Segmentation fault", and an import order they found
# to work ("solved by putting `import cv2` before `import torch`")
_IMPORT_TOLD = re.compile(r"(?i)\b(?:when|while|after|on)\s{1,3}(?:I\s{1,3})?(?:try(?:ing)?\s{1,3}to\s{1,3})?import(?:ing)?\s{1,3}"
                          r"[`'\"]?(?P<mod>torch|pytorch|tensorflow|torchvision|cv2|open3d|decord)\b")
_ORDER_TOLD = re.compile(r"(?i)[`'\"]?import (?P<first>[A-Za-z_][\w.]{0,40})[`'\"]? (?:before|first,? (?:and )?then) [`'\"]?"
                         r"(?:import )?(?P<then>[A-Za-z_][\w.]{0,40})")


def crash_at_import(ent, text):
    seg = next((c for c in reversed(ent.codes) if c.get("family") == "signal" and c.get("name") == "SIGSEGV"), None)
    if seg is None:
        return None
    tail = text[-CONTEXT_TAIL:]
    before = tail[:max(0, seg["at"] - (len(text) - len(tail)))]
    imports = list(_IMPORT_LINE.finditer(before))
    # the import must be the last thing before the crash: no traceback line or program output between them
    if imports and not re.search(r"Traceback|File \"|Error:|\d+%\|", before[imports[-1].end():]):
        mods = {m.group("mod") or m.group("mod2") for m in imports}
    else:
        told = list(_IMPORT_TOLD.finditer(before))
        if not told or re.search(r"Traceback|File \"|\d+%\|", before[told[-1].end():]):
            return None
        mods = {m.group("mod").lower().replace("pytorch", "torch") for m in told}
    order = last_match(_ORDER_TOLD, tail)
    others = sorted((mods | ({order.group("first"), order.group("then")} if order else set())) - {"torch", "numpy"})
    caps = {"others": ", ".join(others) or None,
            "order": f"import {order.group('first')} before {order.group('then')}" if order else None}
    sig = _sig("crash-at-import", "libraries", "Python crashes while importing: two copies of native libraries meet", 62,
               "The segmentation fault comes before any line of the program runs, while the modules load: a native "
               "library loaded first (from LD_LIBRARY_PATH, a libtorch or CUDA/MKL folder there, or bundled by another "
               "package{others| such as }{others}) is used where torch's own copy was expected.",
               fix=("Keep the import order the text reports working ({order}); otherwise import torch first, before "
                    "packages that bundle their own native libraries ({others|decord, cv2, open3d, tensorflow}); "
                    if order else
                    "Import torch first, before packages that bundle their own native libraries ({others|decord, cv2, "
                    "open3d, tensorflow}); ") + "unset LD_LIBRARY_PATH (or remove a libtorch / other CUDA folder from it) and "
                   "try again; `python -X faulthandler -c \"import torch\"` names the library the crash is in.",
               causes=(("library-path-breaks-import", "a folder on LD_LIBRARY_PATH breaks torch's own libraries",
                        ("TE505",)),), areas=("libraries",), sources=(SOURCES["ld"],))
    return _match(sig, text, seg["at"], caps)


# the crash told in words rather than shown: "Python3 crashes when importing torch", "Jupyter kernel dies when importing
# torch", "after `import torch`, the kernel died" (a notebook hides the signal that killed its kernel); no line of the
# program has run, so it is torch's binary meeting this machine: the CPU, another copy of a native library, the build
_CRASH_TOLD = re.compile(r"(?i)(?:\bcrash(?:es|ed)?|\bdies\b|\bdied\b|[Kk]ernel (?:appears to have )?died|kernel crashed|"
                         r"kernel restart(?:s|ing)?|segfaults?)[^\n]{0,60}?\b(?:when|while|after|on|at)\s"
                         r"(?:I(?:'m| am)? (?:try(?:ing)? to )?)?"
                         r"(?:import(?:ing)?|run(?:ning)? [`'\"]?import) [`'\"]?(?:torch|pytorch)\b|"
                         # the import first, then the kernel's (or the interpreter's) death in the same sentence
                         r"\bimport(?:ing)? [`'\"]?(?:torch|pytorch)\b[`'\"]?[^\n]{0,40}?(?:kernel (?:appears to have )?"
                         r"(?:dies|died|crashed|restart)|(?:python|the process) (?:crashes|crashed|dies|died))")


def import_crash_told(ent, text):
    m, at = last_in_tail(_CRASH_TOLD, text, "import")
    if m is None:
        return None
    sig = _sig("import-crash-told", "torch-build", "the process dies while importing torch", 58,
               "The process (or the notebook's kernel) dies during `import torch`, before any line of the program runs: "
               "torch's native libraries fail as they load on this machine. A notebook hides the message that says "
               "which: \"Illegal instruction\" (a CPU without the AVX/AVX2 instructions the wheel was built for), "
               "\"Segmentation fault\" (another copy of a native library loaded first: LD_LIBRARY_PATH, a package "
               "imported earlier), or a broken or faulty build of that release.",
               fix="Run `python -c \"import torch\"` in a terminal of the same environment to see the message; reinstall "
                   "or upgrade torch from the official index (`python -m pip install --upgrade --force-reinstall torch`, "
                   "the command for your CUDA from pytorch.org); on \"Illegal instruction\" install a build for this "
                   "CPU (an older release or conda-forge's); on a segfault import torch first and unset LD_LIBRARY_PATH.",
               causes=(("library-path-breaks-import", "a folder on LD_LIBRARY_PATH breaks torch's own libraries",
                        ("TE505",)),), areas=("torch",), sources=(SOURCES["ld"],))
    return _match(sig, text, at, {})


# torch's Windows DLLs failing to load or initialise (torch/__init__.py's _load_dll_libraries: "Error loading
# ...\\torch\\lib\\c10.dll or one of its dependencies", WinError 1114/126) in a program that uses Qt: from torch 2.9,
# Qt's bindings imported first load runtime DLLs that torch's then fail to initialise against (explosion/spaCy#13894:
# `import PyQt5` then anything importing torch fails, torch 2.8 does not; pytorch/pytorch#166628)
_TORCH_DLL_FAILED = re.compile(r"(?i)(?:Error loading|DLL load failed|WinError 1114|WinError 126)[^\n]{0,300}?"
                               r"\b(?:c10|torch_python|torch_cpu|torch_cuda|torch|shm|fbgemm)\.dll|"
                               r"\b(?:c10|torch_python|torch_cpu)\.dll")
_QT_BINDING = re.compile(r"\b(?P<qt>PyQt[56]|PySide[26])\b")


def qt_imported_before_torch(ent, text):
    """A torch DLL that fails to load in a program that also uses a Qt binding: since torch 2.9 on Windows, Qt
    imported first breaks the initialisation of torch's DLLs; importing torch before Qt is the fix, no reinstall."""
    tail = text[-CONTEXT_TAIL:]
    if ".dll" not in tail:
        return None
    qt = last_match(_QT_BINDING, tail)
    dll = last_match(_TORCH_DLL_FAILED, tail)
    if qt is None or dll is None:
        return None
    sig = _sig("qt-imported-before-torch", "windows-runtime",
               "torch's DLLs fail to initialise after {qt} was imported: import torch first", 86,
               "On Windows, from torch 2.9, a program that imports {qt} before torch makes torch's DLLs (c10.dll, "
               "torch_python.dll) fail to load or initialise (WinError 1114/126): Qt's binding has already loaded runtime "
               "DLLs torch's cannot initialise against. The same install works when torch is imported first, or in a "
               "process without Qt.",
               fix="Import torch before {qt}: put `import torch` at the top of the program's entry point (before any "
                   "`from {qt} import ...`, and before packages that import torch lazily, such as spaCy or EasyOCR). "
                   "Nothing needs reinstalling; if you cannot change the order, a torch release before 2.9 does not have "
                   "the problem.",
               areas=("windows",),
               sources=({"url": "https://github.com/explosion/spaCy/issues/13894",
                         "what": "importing PyQt5 before torch >= 2.9 fails to load torch's DLLs; torch 2.8 works"},
                        {"url": "https://github.com/pytorch/pytorch/issues/166628",
                         "what": "torch's issue for the Qt-before-torch DLL failure on Windows"}))
    return _match(sig, text, len(text) - len(tail) + dll.start(), {"qt": qt.group("qt")})



_GLIBC_PRIVATE = re.compile(r"(?P<lib>[\w./~+-]{0,300}?lib\w{1,20}\.so[\d.]{0,8}): version [`'‘\"]GLIBC_PRIVATE[`'’\"] "
                            r"not found \(required by\s{1,8}(?P<by>[^)\n]{1,300})\)")
_SYSTEM_LIB_DIR = re.compile(r"^/(?:usr/)?lib(?:32|64|x32)?(?:/[\w.-]{1,40}-linux-gnu\w{0,8})?/[^/]{1,80}$")


def glibc_pieces_mixed(ent, text):
    """GLIBC_PRIVATE symbols are shared only between the libraries of one glibc build (libc, libpthread, librt,
    libdl, libm): one of them asking another for them means two glibcs' pieces were loaded together, typically a
    copy bundled in a package's folder (or on LD_LIBRARY_PATH) beside the system's own."""
    tail = text[-CONTEXT_TAIL:]
    k = tail.rfind("GLIBC_PRIVATE")
    if k < 0:
        return None
    # only the line that names it: the library path before it is read without scanning the whole text
    a = tail.rfind("\n", 0, k) + 1
    b = tail.find("\n", k)
    b = tail.find("\n", b + 1) if b >= 0 else -1  # "(required by" may wrap onto the next line
    m = _GLIBC_PRIVATE.search(tail, a, len(tail) if b < 0 else b)
    if m is None:
        return None
    lib, by = m.group("lib").strip(), m.group("by").strip()
    stray = by if not _SYSTEM_LIB_DIR.match(by) else lib if not _SYSTEM_LIB_DIR.match(lib) else by
    sig = _sig("glibc-pieces-mixed", "c-runtime", "pieces of two glibc builds are loaded together ({stray})", 86,
               "GLIBC_PRIVATE is the internal interface between the libraries of one glibc build (libc, libpthread, "
               "librt, libdl, libm). {by} asks {lib} for it, so they come from two different glibcs: a copy of a glibc "
               "library bundled with a package (or found through LD_LIBRARY_PATH) sits beside the system's.",
               fix="Let the system's glibc libraries load: move the stray copy aside (`mv {stray} {stray}.bak`), or remove "
                   "its folder from LD_LIBRARY_PATH; a package that bundles glibc pieces needs its build for this "
                   "distribution (or a report to its maintainers). Never replace the system's libc files.",
               causes=(), areas=("platform",), sources=({"url": "https://sourceware.org/glibc/wiki/FAQ",
                                                         "what": "glibc's libraries are one unit: GLIBC_PRIVATE is internal"},
                                                        SOURCES["ld"]))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lib": _basename(lib), "by": by, "stray": stray})


_ITT_SYMBOL = re.compile(r"(?P<lib>libtorch_cpu\.so|libtorch\.so|libtorch_python\.so)[^\n]{0,40}undefined symbol: "
                         r"(?P<sym>iJIT_NotifyEvent|iJIT_IsProfilingActive|iJIT_GetNewMethodID)")


def mkl_without_itt_symbol(ent, text):
    """torch's libraries (built with MKL's JIT profiling hooks) want iJIT_NotifyEvent, which MKL 2024.1 stopped
    exporting: a conda environment that solved the newest MKL beside a torch built against an older one."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_ITT_SYMBOL, tail)
    if m is None:
        return None
    sig = _sig("mkl-itt-symbol-removed", "libraries", "{lib} wants {symbol}, which MKL 2024.1 no longer exports", 86,
               "torch's CPU library calls MKL's JIT profiling API ({symbol}); MKL 2024.1 removed it from its libraries, "
               "so a torch built against an older MKL cannot load beside MKL 2024.1 or newer (conda solves the newest "
               "MKL for an old pytorch, e.g. when an old Python is pinned).",
               fix="Pin MKL below 2024.1 in that environment (`conda install mkl=2024.0` and keep it in the environment "
                   "file), or install a current torch for a current Python (pip's torch wheels do not use the "
                   "environment's MKL).",
               causes=(), areas=("libraries",), sources=({"url": "https://github.com/pytorch/pytorch/issues/123097",
                                                          "what": "undefined symbol iJIT_NotifyEvent with MKL 2024.1"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"lib": m.group("lib"), "symbol": m.group("sym")})


# glibc reserves static TLS at start-up; a library with initial-exec TLS (libgomp, OpenBLAS's, some OpenCV builds)
# loaded later by dlopen needs room in that reserve, and the loader refuses it when the reserve is spent. The
# message names the library: loaded at start (LD_PRELOAD) it takes its TLS before the reserve matters.
_STATIC_TLS = re.compile(r"(?P<lib>(?:/[^\s:'\"]{1,300}/)?lib[\w.+-]{1,80}\.so(?:\.\d{1,4}){0,3}): cannot allocate memory "
                         r"in static TLS block|cannot load any more object with static TLS|"
                         # the library's name printed apart from the reason (XGBoost: "Library (libxgboost.so) could
                         # not be loaded." and the loader's reason on its own line)
                         r"cannot allocate memory in static TLS block")


def static_tls_exhausted(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "static TLS" not in tail:
        return None
    m = last_match(_STATIC_TLS, tail)
    if m is None:
        return None
    lib = m.group("lib")
    preload = lib if lib and lib.startswith("/") else None
    sig = _sig("static-tls-exhausted", "env", "{what} cannot be loaded: the loader's static TLS reserve is spent", 80,
               "glibc reserves a fixed amount of static thread-local storage when the program starts; {what} uses "
               "initial-exec TLS and was loaded later (by an import, through dlopen), after other libraries had "
               "used that reserve. Common with GCC's OpenMP runtime (libgomp) on aarch64 (Jetson, Graviton) and "
               "with a conda or pip environment that carries its own copy of it beside the system's.",
               fix=("Load it at start-up: `export LD_PRELOAD={preload}` before running Python (or prefix the command "
                    "with it), or import the package that loads it first (e.g. `import torch` before the others). "
                    "With glibc >= 2.32 a larger reserve also works: "
                    "`export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=2000000`.") if preload else
                   ("Load the library named in the message at start-up: `export LD_PRELOAD=/full/path/to/it` before "
                    "running Python, or import the package that loads it first; with glibc >= 2.32 "
                    "`export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=2000000` enlarges the reserve."),
               areas=("platform",),
               sources=({"url": "https://www.gnu.org/software/libc/manual/html_node/Dynamic-Linking-Tunables.html",
                         "what": "glibc: glibc.rtld.optional_static_tls, the surplus static TLS allocated at start-up"},
                        SOURCES["ld"]))
    return _match(sig, text, len(text) - len(tail) + m.start(),
                  {"what": _basename(lib) if lib else "a library", "preload": preload or ""})
