"""Layer rules for installing and finding the CUDA toolkit itself (not torch's bundled runtime), read from the
package managers', shells', installers' and linkers' own words.

    apt_unmet_cuda_dependencies  apt's "The following packages have unmet dependencies" among CUDA or NVIDIA packages
                         -> toolchain (driver for driver packages): the distribution's toolkit beside NVIDIA's, a
                         half-installed package (apt-get -f install)
    nvcc_not_on_path     a shell's "nvcc: command not found" / "'nvcc' is not recognized" / make's "nvcc: Command not
                         found" -> toolchain: the toolkit's bin on PATH (sudo resets PATH), /usr/local/cuda, CUDA_HOME
    windows_cuda_installer_failed  "CUDA Installer Failed", the installer log's failing Visual Studio integration ->
                         toolchain: a custom install without Visual Studio Integration
    linker_two_sonames   GNU ld's "libX.so.A, needed by Y, may conflict with libX.so.B" -> toolchain: two versions of
                         one library in one link (rebuild Y, keep one toolkit)
    ptxas_not_found      Triton's "Cannot find ptxas", XLA's "Can't find ptxas binary" -> toolchain: the toolkit's
                         ptxas where the compiler looks (CUDA_HOME, TRITON_PTXAS_PATH, XLA_FLAGS)
    download_url_not_found  wget's "ERROR 404: Not Found" / curl's "returned error: 404" for a file of NVIDIA's or
                         PyTorch's download hosts -> not-environment: the script's URL names no file
    nvidia_repository_key  apt's NO_PUBKEY A4B469963BF863CC for NVIDIA's repository -> container (in an image build) or
                         toolchain: cuda-keyring with the rotated key
    nvcc_not_in_image    the container runtime's exec "nvcc": executable file not found -> container: a devel image
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail, on_windows

_LINUX_GUIDE = {"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/",
                "what": "CUDA installation guide for Linux: package managers, the runfile, conflicting methods, "
                        "post-installation PATH"}
_WINDOWS_GUIDE = {"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-microsoft-windows/",
                  "what": "CUDA installation guide for Windows: custom installation and its components"}

# apt (apt-pkg's depcache) prints one line per package it cannot satisfy under this header
_APT_UNMET = re.compile(r"The following packages have unmet dependencies:")
_APT_LINE = re.compile(r"^\s{0,4}(?P<pkg>[a-z0-9][a-z0-9.+-]{1,80})\s{0,4}:\s{0,4}(?:PreDepends|Depends|Breaks|"
                       r"Conflicts)\s{0,4}:\s{0,4}(?P<dep>[a-z0-9][a-z0-9.+-]{1,80})", re.M)
_CUDA_PKG = re.compile(r"^(?:cuda|libcu|libnv|libnccl|libcudnn|nvidia-|libnvidia-|nsight|tensorrt|libnvinfer|"
                       r"cudnn|xserver-xorg-video-nvidia)")
_DRIVER_PKG = re.compile(r"^(?:nvidia-driver|nvidia-dkms|nvidia-kernel|libnvidia-|nvidia-utils|nvidia-compute-utils|"
                         r"xserver-xorg-video-nvidia|nvidia-\d{3})")


def apt_unmet_cuda_dependencies(ent, text):
    m, at = last_in_tail(_APT_UNMET, text, "unmet dependencies")
    if m is None:
        return None
    lines = list(_APT_LINE.finditer(text, m.end(), m.end() + 4000))
    pkgs = [x.group("pkg") for x in lines] + [x.group("dep") for x in lines]
    cuda = [p for p in pkgs if _CUDA_PKG.match(p)]
    if not cuda:
        return None
    first = lines[0].group("pkg") if lines else cuda[0]
    distro_toolkit = any(p in ("nvidia-cuda-toolkit", "nvidia-cuda-dev") for p in pkgs)
    driver = any(_DRIVER_PKG.match(p) for p in pkgs) and not distro_toolkit
    layer = "driver" if driver else "toolchain"
    if distro_toolkit:
        why = ("The distribution's own CUDA packages (nvidia-cuda-toolkit and its nvidia-cuda-dev) are installed or "
               "asked for beside NVIDIA's (cuda-*, from NVIDIA's repository or runfile): the two installation methods "
               "conflict, and apt holds every later install until one of them goes.")
        fix = ("Keep one CUDA toolkit: with NVIDIA's packages, remove the distribution's (`sudo apt purge "
               "nvidia-cuda-toolkit nvidia-cuda-dev` then `sudo apt-get -f install`); or remove NVIDIA's and use the "
               "distribution's. Then put the kept toolkit's bin on PATH (`/usr/local/cuda/bin` for NVIDIA's). A torch "
               "wheel needs neither: it brings its own CUDA runtime; a toolkit is only for compiling.")
    elif driver:
        why = ("apt cannot satisfy the dependencies between NVIDIA driver packages ({first} first): parts of two "
               "driver branches, or of two repositories (the distribution's and NVIDIA's), are installed or asked "
               "for together.")
        fix = ("Install one driver branch from one repository: `sudo apt-get -f install` first (with no package "
               "names) to let apt repair what is half-installed; if it still conflicts, remove the driver's packages "
               "(`sudo apt purge '^nvidia-.*' '^libnvidia-.*'`) and install one branch (Ubuntu: `sudo ubuntu-drivers "
               "install`, or `sudo apt install nvidia-driver-<branch>`), then reboot.")
    else:
        why = ("apt cannot satisfy a dependency of {first}: a package is half-installed (installed without what it "
               "depends on) or the packages asked for come from two repositories or versions, and apt refuses every "
               "install until that is resolved.")
        fix = ("Run `sudo apt-get -f install` with no package names (apt's --fix-broken) so apt repairs or removes "
               "the half-installed package it names; if that fails, remove the package whose dependency is missing "
               "(`sudo apt purge {first}`) and install the CUDA packages again from one repository, one version "
               "(e.g. `sudo apt install cuda-toolkit-12-8`, NVIDIA's repository for your distribution).")
    sig = _sig("apt-unmet-cuda-dependencies", layer, "apt cannot install: unmet dependencies among CUDA/NVIDIA "
               "packages ({first})", 82, why, fix=fix, areas=("toolchain",) if layer == "toolchain" else ("driver",),
               sources=(_LINUX_GUIDE,
                        {"url": "https://manpages.ubuntu.com/manpages/jammy/man8/apt-get.8.html",
                         "what": "apt-get -f, --fix-broken: correct a system with broken dependencies"}))
    return _match(sig, text, at, {"first": first})


# the shells' words for a command they cannot find, and make's, for nvcc (by name or by its path)
_NVCC_NOT_FOUND = re.compile(
    r"(?P<path>(?:[\w./~-]{0,120}/)?nvcc)(?:\.exe)?:\s{0,4}(?:[Cc]ommand not found|not found|No such file or directory)"
    r"|The term '(?:[^'\n]{0,120}[\\/])?nvcc(?:\.exe)?' is not recognized as the name of a cmdlet"
    r"|'nvcc(?:\.exe)?' is not recognized as an internal or external command"
    r"|nvcc not found\.?\s{0,4}Please add nvcc to \$?PATH|nvcc (?:is )?not (?:found|in) (?:in )?(?:your )?\$?PATH")


def nvcc_not_on_path(ent, text):
    m, at = last_in_tail(_NVCC_NOT_FOUND, text, "nvcc")
    if m is None:
        return None
    path = m.group("path") or ""
    win = on_windows(ent, text) or "is not recognized" in m.group(0)
    sudo = re.search(r"(?m)^\s{0,4}(?:\$\s{0,2})?sudo\b|\bsudo (?:sh|bash|\./|python|make|pip)", text) is not None
    conda = re.search(r"(?i)\bconda\b|/envs/|miniconda|anaconda", text) is not None
    absolute = path.startswith("/")
    if win:
        where = ("Windows: install the CUDA toolkit (torch's wheel brings no nvcc: it is needed only to compile), then "
                 "add `%CUDA_PATH%\\bin` to PATH (the installer sets CUDA_PATH; in PowerShell `$env:Path = "
                 "\"$env:CUDA_PATH\\bin;$env:Path\"`), open a new terminal and check `nvcc --version`.")
    elif absolute:
        where = ("The build calls {path} by its full path and no toolkit is there: the /usr/local/cuda symlink "
                 "points at no toolkit (or none is installed). Install one, or point the build at the one you have "
                 "(CUDA_PATH= / CUDA_HOME= its folder, or `sudo ln -sfn /usr/local/cuda-12.8 /usr/local/cuda`), and "
                 "put its bin on PATH.")
    else:
        where = ("Install the CUDA toolkit if there is none (torch's wheel brings no nvcc: it is needed only to "
                 "compile), then put its bin on PATH: `export PATH=/usr/local/cuda/bin:$PATH` and `export "
                 "CUDA_HOME=/usr/local/cuda` (in ~/.bashrc to keep it); check `which nvcc`.")
    extra = ""
    if sudo:
        extra += (" The command ran under sudo, which resets PATH to its secure_path: run the build without sudo, "
                  "or keep PATH (`sudo env PATH=$PATH <command>`), or call nvcc by its full path.")
    if conda:
        extra += (" In a conda environment, activate it first (`conda activate <env>`) in the shell or script that "
                  "builds; conda's cudatoolkit has no nvcc, `conda install -c nvidia cuda-nvcc` (of torch's CUDA "
                  "version) brings one.")
    # below containers' reading of a devel image that has nvcc off PATH (82)
    sig = _sig("nvcc-not-on-path", "toolchain", "the shell finds no nvcc{path_note|}", 80,
               "The build runs nvcc, and the shell (or make) that runs it finds none: no CUDA toolkit is installed, or "
               "its bin folder is not on this shell's PATH.", fix=where + extra, areas=("toolchain",),
               sources=(_WINDOWS_GUIDE if win else _LINUX_GUIDE,))
    return _match(sig, text, at, {"path": path, "path_note": f" ({path})" if absolute else None})


_INSTALLER_FAILED = re.compile(r"CUDA (?:Toolkit )?Installer (?:Failed|has failed)|NVIDIA Installer (?:failed|cannot "
                               r"continue)|\[NVI2\.NVMsiPhase\][^\n]{0,200}(?:Caught exception|Fatal error during "
                               r"installation)|Visual Studio Integration[^\n]{0,40}\bFailed\b")
_VS_PART = re.compile(r"(?i)Visual\s?Studio\s?Integration|Nsight_Visual_Studio|CUDAVisualStudioIntegration")


def windows_cuda_installer_failed(ent, text):
    m, at = last_in_tail(_INSTALLER_FAILED, text)
    if m is None:
        return None
    vs = _VS_PART.search(text) is not None
    sig = _sig("windows-cuda-installer-failed", "toolchain", "the CUDA toolkit's Windows installer failed" +
               (" in its Visual Studio integration" if vs else ""), 80,
               "NVIDIA's Windows installer installs the toolkit as a set of components; the one that fails most is "
               "Visual Studio Integration (with Nsight Visual Studio Edition), which needs a Visual Studio the "
               "installer knows, not running and not being updated" +
               (", and the installer's log shows that component failing" if vs else "") + ".",
               fix="Run the installer again with Custom (Advanced) installation and uncheck Visual Studio Integration "
                   "(and Nsight Visual Studio Edition) under CUDA: the compiler, libraries and headers do not need it. "
                   "Close Visual Studio first; if you do build CUDA in Visual Studio, install a Visual Studio version "
                   "that CUDA release supports and rerun. The installer's logs are in %LOCALAPPDATA%\\Temp\\NVIDIA "
                   "Corporation.",
               areas=("toolchain",), sources=(_WINDOWS_GUIDE,))
    return _match(sig, text, at, {})


_MAY_CONFLICT = re.compile(r"warning: (?P<old>lib[\w+-]{1,60}\.so(?:\.[\d.]{1,12})?), needed by (?P<user>[^\s,]{1,300}), "
                           r"may conflict with (?P<new>lib[\w+-]{1,60}\.so(?:\.[\d.]{1,12})?)")


def linker_two_sonames(ent, text):
    m, at = last_in_tail(_MAY_CONFLICT, text, "may conflict with")
    if m is None:
        return None
    user = m.group("user").rsplit("/", 1)[-1]
    sig = _sig("linker-two-versions-of-a-library", "toolchain",
               "the link pulls in two versions of one library ({old} for {user}, {new} for the rest)", 78,
               "GNU ld links the program against {new}, and {user} was built against {old}: both versions would be "
               "loaded into one process. {user} comes from an older build (another CUDA toolkit, for libcudart) than "
               "the one being linked now.",
               fix="Rebuild {user} against the version the rest uses ({new}: recompile it with the same toolkit), or "
                   "keep one CUDA toolkit on the system so that everything links one version: remove the old one, or "
                   "take its lib folder out of LD_LIBRARY_PATH, -L and ld.so.conf.",
               areas=("toolchain",),
               sources=({"url": "https://sourceware.org/binutils/docs/ld/Options.html",
                         "what": "ld: how the libraries a shared library needs are found (-rpath-link, -L)"},))
    return _match(sig, text, at, {"old": m.group("old"), "new": m.group("new"), "user": user})


# Triton (third_party/nvidia/backend/compiler.py: the ptxas it ships, else TRITON_PTXAS_PATH / the toolkit's) and XLA
# (nvptx_compiler.cc: ${CUDA_DIR}/bin, then PATH), each in its own words
_PTXAS_MISSING = re.compile(r"Cannot find ptxas(?:\.exe)?|Can't find ptxas binary")


def ptxas_not_found(ent, text):
    m, at = last_in_tail(_PTXAS_MISSING, text, "ptxas")
    if m is None:
        return None
    xla = "Can't find ptxas binary" in m.group(0) or re.search(r"xla|XLA|jax", text) is not None
    win = on_windows(ent, text) or ".exe" in m.group(0)
    if xla:
        fix = ("Give XLA a ptxas of a CUDA toolkit at least as new as the one it was built with: `pip install "
               "nvidia-cuda-nvcc-cu12` (JAX: `pip install -U \"jax[cuda12]\"` brings it), or a toolkit with its bin on "
               "PATH, or `XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda-12.x` (the folder holding bin/ptxas and "
               "nvvm/libdevice). Without one, XLA leaves PTX to the driver, which fails when the driver is older.")
    else:
        fix = ("Triton compiles its kernels with ptxas: the one its wheel ships, else TRITON_PTXAS_PATH, else the CUDA "
               "toolkit's." + (" On Windows (triton-windows) install a CUDA toolkit and set CUDA_HOME (or CUDA_PATH) "
                               "to it, with its bin on PATH, then restart the program." if win else
                               " Reinstall triton (the wheel that matches torch) or set TRITON_PTXAS_PATH to a "
                               "toolkit's bin/ptxas; CUDA_HOME pointing at a folder without one also fails."))
    sig = _sig("ptxas-not-found", "toolchain", "the GPU compiler finds no ptxas", 85,
               "ptxas, the CUDA toolkit's assembler from PTX to GPU code, is needed by compilers that run at run time "
               "(Triton under torch.compile, XLA under TensorFlow and JAX); none was found where this one looks.",
               fix=fix, areas=("toolchain",),
               sources=({"url": "https://docs.jax.dev/en/latest/installation.html",
                         "what": "jax[cuda12] brings nvcc's ptxas; --xla_gpu_cuda_data_dir for a local toolkit"},
                        {"url": "https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/compiler.py",
                         "what": "Triton's ptxas: the bundled one or TRITON_PTXAS_PATH"}))
    return _match(sig, text, at, {})


_DOWNLOAD_404 = re.compile(r"(?P<url>https?://(?P<host>developer\.download\.nvidia\.com|download\.pytorch\.org|"
                           r"developer\.nvidia\.com|us\.download\.nvidia\.com)/[^\s'\"]{1,300})"
                           r"[\s\S]{0,600}?(?:ERROR 404: Not Found|returned error: 404)")


def download_url_not_found(ent, text):
    m, at = last_in_tail(_DOWNLOAD_404, text, "404")
    if m is None:
        return None
    name = m.group("url").rstrip("/").rsplit("/", 1)[-1]
    sig = _sig("download-url-not-found", "not-environment", "the download URL names no file ({name})", 78,
               "The server answered 404: no file of that name exists at that address, usually a version or a driver "
               "number in the file name that NVIDIA (or PyTorch) never published together; the script or the "
               "instructions that built the URL are wrong, not this machine.",
               look_at="Take the exact file name from the download page ({host}: for CUDA, the toolkit's archive page "
                       "lists each runfile with its driver version) and fix the URL in the script, or use the "
                       "package manager's install instead; report it to the script's authors.",
               areas=("program",), sources=(_LINUX_GUIDE,))
    return _match(sig, text, at, {"name": name, "host": m.group("host")})


# apt's refusal of NVIDIA's CUDA repository after NVIDIA rotated its signing key (April 2022): the new key's id is
# A4B469963BF863CC (3bf863cc.pub); images and hosts set up before then hold only the old one
_NVIDIA_PUBKEY = re.compile(r"NO_PUBKEY (?P<key>A4B469963BF863CC|F60F4B3D7FA2AF80)\b|"
                            r"developer\.download\.nvidia\.com/compute/(?:cuda|machine-learning)/repos/[^\n]{0,200}"
                            r"(?:NO_PUBKEY|is not signed|The following signatures couldn't be verified)")


def nvidia_repository_key(ent, text):
    m, at = last_in_tail(_NVIDIA_PUBKEY, text)
    if m is None:
        return None
    # a Dockerfile's words, or BuildKit's plain progress (each line prefixed by the step and its elapsed seconds)
    container = re.search(r"(?i)\bdocker\b|Dockerfile|\bRUN\b|\[\s?\d+/\d+\]|buildkit|FROM nvidia/cuda|"
                          r"(?m:^#\d{1,3} \d{1,4}\.\d{3} |^\d{1,4}\.\d{3} {1,3}(?:Err|Get|Hit|Ign|W:|E:))", text) is not None
    sig = _sig("nvidia-repository-key-rotated", "container" if container else "toolchain",
               "apt does not trust NVIDIA's CUDA repository: its signing key was rotated", 86,
               "NVIDIA replaced the key that signs its CUDA apt repositories in April 2022 (the new key: 3bf863cc, "
               "A4B469963BF863CC). " + ("An image built from an older nvidia/cuda tag (or a Dockerfile that adds the "
                                        "repository itself) holds only the old key, so apt-get update refuses the "
                                        "repository." if container else
                                        "This machine's apt holds only the old key, so apt-get update refuses the "
                                        "repository."),
               fix="Install NVIDIA's cuda-keyring package before `apt-get update` (" +
                   ("in the Dockerfile: `RUN apt-key del 7fa2af80 && curl -fsSLO https://developer.download.nvidia.com/"
                    "compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb && dpkg -i cuda-keyring_1.1-1_all.deb`"
                    ", with your distribution in the URL), or base the image on a current nvidia/cuda tag, which has the "
                    "new key." if container else
                    "`sudo apt-key del 7fa2af80`, then download and `sudo dpkg -i` cuda-keyring_1.1-1_all.deb from "
                    "https://developer.download.nvidia.com/compute/cuda/repos/<distro>/<arch>/, then `sudo apt-get update`)."),
               areas=("container",) if container else ("toolchain",),
               sources=({"url": "https://developer.nvidia.com/blog/updating-the-cuda-linux-gpg-repository-key/",
                         "what": "NVIDIA: the CUDA Linux repository key rotated (3bf863cc), install cuda-keyring"},))
    return _match(sig, text, at, {})


# the container runtime's exec of nvcc (or docker run ... nvcc) in an image without the toolkit: nvidia/cuda's base and
# runtime flavours carry the CUDA runtime libraries only, the compiler is in devel
_EXEC_NVCC = re.compile(r"exec: \\?\"nvcc\\?\": executable file not found in \$PATH")


def nvcc_not_in_image(ent, text):
    m, at = last_in_tail(_EXEC_NVCC, text, "nvcc")
    if m is None:
        return None
    sig = _sig("nvcc-not-in-image", "container", "the image has no nvcc: it is not a devel image", 84,
               "The container runtime could not find nvcc in the image: nvidia/cuda's base and runtime images (and "
               "most framework runtime images) carry the CUDA libraries programs run with, not the toolkit; nvcc, the "
               "headers and the static libraries are in the devel flavour.",
               fix="Compile in a devel image (`FROM nvidia/cuda:<version>-devel-<os>`, or the framework's -devel tag), "
                   "or build in a devel stage and copy the result into a runtime stage; running a GPU program needs "
                   "no nvcc at all.",
               areas=("container",),
               sources=({"url": "https://gitlab.com/nvidia/container-images/cuda",
                         "what": "nvidia/cuda flavours: base, runtime, devel (the toolkit)"},))
    return _match(sig, text, at, {})
