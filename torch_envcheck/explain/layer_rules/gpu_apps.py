"""Layer rules for GPU applications' own start-up words (photogrammetry, molecular dynamics, materials models): a
build without CUDA, no CUDA device where the application needs one, an OpenCL build on an NVIDIA GPU.

    app_built_without_cuda  COLMAP's version banner "(Commit ... without CUDA)", its no-cuda Windows release, its
                     "Check failed: num_cuda_devices > 0"; DeePMD-kit counting no visible GPU while
                     CUDA_VISIBLE_DEVICES lists some -> gpu-unused: the application's CUDA build (or its CPU path)
    alicevision_needs_cuda_gpu  AliceVision's (Meshroom's) "This program needs a CUDA-Enabled GPU" -> driver: an
                     NVIDIA GPU with a driver for the bundled CUDA runtime (or draft meshing without CUDA)
    gromacs_opencl_on_nvidia  GROMACS failing to build its OpenCL kernels for an NVIDIA GPU -> toolchain: GROMACS built
                     with CUDA (-DGMX_GPU=CUDA) instead of an OpenCL build (conda-forge's)
    chromium_gpu_log  a Chromium-based application's (Electron, CEF) GPU log lines, nothing fatal after them ->
                     not-environment: its GPU process's own notices
    qiskit_aer_without_gpu  Qiskit Aer's 'Simulation device "GPU" is not supported on this system' -> gpu-unused: the
                     qiskit-aer-gpu package in place of qiskit-aer
    kaldi_configure_mkl_missing  Kaldi's configure: "MKL libraries could not be found" -> toolchain: MKL installed
                     (tools/extras/install_mkl.sh) or another math library (--mathlib=OPENBLAS)    matlab_cuda_driver_missing  MATLAB's Parallel Computing Toolbox: "The CUDA driver could not be loaded", "There is a
                     problem with the CUDA driver or with this GPU device" -> driver    ncnn_no_vulkan_device  ncnn's Vulkan runtime (the *-ncnn-vulkan upscalers, Video2X) finding no GPU: "no vulkan
                     device", "invalid gpu device", vkEnumeratePhysicalDevices failing -> driver: a Vulkan driver for the GPU    deepxde_backend_refused  DeepXDE's backend check ("Unsupported backend: X", "Backend is set as X, but 'X' failed to
                     import") -> env: DDE_BACKEND / ~/.deepxde/config.json naming an installed backend
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_COLMAP_INSTALL = {"url": "https://colmap.github.io/install.html",
                   "what": "COLMAP's installation: CUDA builds (the windows-cuda / windows-no-cuda releases, "
                           "CUDA_ENABLED from source); without CUDA dense reconstruction is unavailable"}
_COLMAP_FAQ = {"url": "https://colmap.github.io/faq.html",
               "what": "COLMAP's FAQ: feature extraction and matching on the GPU or the CPU (--SiftExtraction.use_gpu)"}
_DEEPMD_INSTALL = {"url": "https://github.com/deepmodeling/deepmd-kit/blob/028b0757f26a50c77fb6c04fccd6452ec27f2de2/doc/"
                          "install/easy-install.md",
                   "what": "DeePMD-kit's easy install: its CPU and GPU variants (conda deepmd-kit=*=*gpu, *_gpu images)"}

# COLMAP prints its build in the banner (COLMAP x.y -- ... (Commit <sha> on <date> with|without CUDA)); its Windows
# releases come as windows-cuda and windows-no-cuda; its SIFT and dense steps CHECK the CUDA device count (glog)
_COLMAP_NO_CUDA = re.compile(r"\(Commit \w{4,40} on \d{4}-\d\d-\d\d without CUDA\)|COLMAP-[\d.]{1,10}-windows-no-cuda|"
                             r"Check failed: num_cuda_devices > 0")
# DeePMD-kit's training summary: the GPUs CUDA_VISIBLE_DEVICES names and those its TensorFlow build sees
_DEEPMD_NO_GPU = re.compile(r"CUDA_VISIBLE_DEVICES:\s{0,4}\d[\d,]{0,40}\s{0,4}\n[^\n]{0,80}Count of visible GPU:\s{0,4}0\b")


def app_built_without_cuda(ent, text):
    m, at = last_in_tail(_COLMAP_NO_CUDA, text)
    if m is not None:
        check = m.group(0).startswith("Check failed")
        sig = _sig("colmap-without-cuda", "gpu-unused",
                   "COLMAP found no CUDA device" if check else "this COLMAP was built without CUDA", 82,
                   ("COLMAP's GPU steps (SIFT extraction and matching, dense patch-match stereo) checked for CUDA devices "
                    "and found none: this COLMAP is a build without CUDA, or the machine (a Mac, a computer without an "
                    "NVIDIA GPU, a container without the GPU) has no NVIDIA GPU CUDA can use." if check else
                    "The COLMAP that runs is a build without CUDA (its banner, or its windows-no-cuda release, says "
                    "so): feature extraction and matching fall back to OpenGL or the CPU, and dense reconstruction "
                    "(patch_match_stereo) is not available."),
                   fix="With an NVIDIA GPU, use a COLMAP built with CUDA: the windows-cuda release on Windows, a package "
                       "built with CUDA, or build it from source with CUDA enabled (the CUDA toolkit installed, "
                       "CMAKE_CUDA_ARCHITECTURES for the GPU); check `nvidia-smi`. Without one, run the CPU path "
                       "(--SiftExtraction.use_gpu 0 --SiftMatching.use_gpu 0); dense reconstruction needs CUDA.",
                   areas=("driver",), sources=(_COLMAP_INSTALL, _COLMAP_FAQ))
        return _match(sig, text, at, {})
    d, at = last_in_tail(_DEEPMD_NO_GPU, text, "Count of visible GPU")
    if d is None:
        return None
    sig = _sig("deepmd-sees-no-gpu", "gpu-unused", "DeePMD-kit sees none of the GPUs CUDA_VISIBLE_DEVICES lists", 80,
               "The job names GPUs (CUDA_VISIBLE_DEVICES) and DeePMD-kit's backend counts none, so it computes on the "
               "CPU: the installed DeePMD-kit (or the TensorFlow under it) is its CPU build, or its CUDA libraries did "
               "not load (the lines above it say which).",
               fix="Install DeePMD-kit's GPU build in place of the CPU one (conda: `conda create -n deepmd "
                   "deepmd-kit=*=*gpu libdeepmd=*=*gpu lammps cudatoolkit=<X.Y> -c https://conda.deepmodeling.com`; or "
                   "the GPU offline package or docker image, *_gpu), and check that its TensorFlow lists the GPUs "
                   "(`python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"`).",
               areas=("driver",), sources=(_DEEPMD_INSTALL,))
    return _match(sig, text, at, {})


_ALICEVISION = re.compile(r"This program needs a CUDA-Enabled GPU \(with at least compute capab\w{2,6} (?P<cc>\d\.\d)\)")
_MESHROOM_WIKI = {"url": "https://github.com/alicevision/meshroom/wiki/Error:-This-program-needs-a-CUDA-Enabled-GPU",
                  "what": "Meshroom's wiki: the depth-map steps need an NVIDIA GPU with CUDA and a recent driver; draft "
                          "meshing without one"}


def alicevision_needs_cuda_gpu(ent, text):
    m, at = last_in_tail(_ALICEVISION, text, "CUDA-Enabled GPU")
    if m is None:
        return None
    sig = _sig("alicevision-needs-cuda-gpu", "driver", "AliceVision (Meshroom) found no CUDA GPU it can use", 82,
               "AliceVision's depth-map steps ask the CUDA runtime bundled with Meshroom for a GPU of compute "
               "capability {cc} or higher and got none: the NVIDIA driver is older than that CUDA runtime needs (the "
               "usual case on an NVIDIA GPU), the driver is not working, or the GPU is not NVIDIA's.",
               fix="On an NVIDIA GPU, update the NVIDIA driver to a current one (`nvidia-smi` must work and show a CUDA "
                   "version at least that of Meshroom's CUDA runtime); without an NVIDIA GPU, use Meshroom's draft "
                   "meshing pipeline, which skips the CUDA depth maps.",
               areas=("driver",), sources=(_MESHROOM_WIKI,))
    return _match(sig, text, at, {"cc": m.group("cc")})


_GROMACS_OPENCL = re.compile(r"Failed to compile NBNXN kernels for GPU #(?P<gpu>[^\n]{1,80})\n[^\n]{0,40}"
                             r"Could not build OpenCL program")
_GROMACS_GPU = {"url": "https://manual.gromacs.org/current/install-guide/index.html#gpu-support",
                "what": "GROMACS's install guide: GMX_GPU=CUDA for NVIDIA GPUs, OpenCL and SYCL for others"}


def gromacs_opencl_on_nvidia(ent, text):
    m, at = last_in_tail(_GROMACS_OPENCL, text, "OpenCL program")
    if m is None or not re.search(r"(?i)nvidia|geforce|tesla|quadro|\b[AHL]\d{2,3}\b", m.group("gpu")):
        return None
    sig = _sig("gromacs-opencl-on-nvidia", "toolchain", "an OpenCL build of GROMACS on an NVIDIA GPU ({gpu})", 82,
               "This GROMACS was built with OpenCL (conda-forge's GPU package is) and its OpenCL kernels do not compile "
               "on {gpu}; on NVIDIA GPUs GROMACS is meant to run its CUDA build.",
               fix="Install or build GROMACS with CUDA: from source with `cmake .. -DGMX_GPU=CUDA` (the CUDA toolkit "
                   "installed), or a GROMACS with CUDA from your cluster's modules or NVIDIA's NGC container, in place of "
                   "the OpenCL one (uninstall the conda GROMACS).",
               areas=("toolchain",), sources=(_GROMACS_GPU,))
    return _match(sig, text, at, {"gpu": m.group("gpu").strip()})


# Chromium's log prefix: [pid:tid:MMDD/HHMMSS.frac:LEVEL:file.cc(line)] (file.cc:line] in newer releases); the GPU
# process's files (ui/gl, gpu/, viz, angle, dawn, d3d, direct_composition) log what they probe and skip
_CHROMIUM_GPU_LINE = re.compile(r"\[\d{1,7}:\d{1,7}:\d{4}/\d{6}\.\d{3,6}:(?:ERROR|WARNING|INFO):"
                                r"(?P<file>[\w./\\-]{0,120}?(?:gl|gpu|viz|angle|dawn|d3d|direct_composition|video)"
                                r"[\w./\\-]{0,80}\.cc)[:(]\d{1,6}\)?\]")
_CHROMIUM_FATAL = re.compile(r"GPU process isn't usable|GPU process exited unexpectedly|Traceback \(most recent call|"
                             r"\bFATAL:|Segmentation fault|\b[A-Z]\w{2,40}Error: ")
_CHROMIUM_GPU_DOC = {"url": "https://www.chromium.org/developers/how-tos/debugging-on-windows/",
                     "what": "Chromium's logging: the [pid:tid:time:LEVEL:file(line)] prefix of its log lines"}


def chromium_gpu_log(ent, text):
    m, at = last_in_tail(_CHROMIUM_GPU_LINE, text)
    if m is None or _CHROMIUM_FATAL.search(text[-CONTEXT_TAIL:]):
        return None
    sig = _sig("chromium-gpu-log", "not-environment", "a Chromium-based application's GPU process logged a notice", 60,
               "The line is Chromium's log format (an Electron or CEF application, a browser), from its GPU process "
               "({file}): it probes the graphics driver's features at start and logs those that are missing or fail, "
               "then uses another path. Nothing fatal follows it here; it is not the CUDA or framework installation.",
               look_at="If the application works, ignore it. If its window stays blank or it exits, update the graphics "
                       "driver, or start the application with --disable-gpu (or its own hardware-acceleration setting) "
                       "to see whether the GPU path is the cause.",
               sources=(_CHROMIUM_GPU_DOC,))
    return _match(sig, text, at, {"file": m.group("file")})


# Qiskit Aer raises this for device="GPU" when the installed Aer has no GPU simulator: the qiskit-aer wheel is CPU-only,
# the GPU one is the separate qiskit-aer-gpu distribution (Linux x86_64)
_AER_NO_GPU = re.compile(r"Simulation device \W{0,2}GPU\W{0,2} is not supported on this system")
_AER_README = {"url": "https://github.com/Qiskit/qiskit-aer#installing-gpu-support",
               "what": "Qiskit Aer: GPU support comes with the qiskit-aer-gpu package (replacing qiskit-aer)"}


def qiskit_aer_without_gpu(ent, text):
    m, at = last_in_tail(_AER_NO_GPU, text, "is not supported on this system")
    if m is None:
        return None
    sig = _sig("qiskit-aer-without-gpu", "gpu-unused", "this Qiskit Aer has no GPU simulator", 82,
               "Qiskit Aer was asked for device=\"GPU\" and the Aer installed is its CPU build: the qiskit-aer wheel "
               "has no GPU simulator; GPU support is the separate qiskit-aer-gpu package (NVIDIA GPUs, Linux x86_64), "
               "which replaces it.",
               fix="Replace the CPU build with the GPU one in the same environment: `pip uninstall -y qiskit-aer` then "
                   "`pip install qiskit-aer-gpu` (qiskit-aer-gpu-cu11 for a CUDA 11 driver), at the release matching your "
                   "qiskit; check with `python -c \"from qiskit_aer import AerSimulator; "
                   "print(AerSimulator().available_devices())\"`.",
               areas=("driver",), sources=(_AER_README,))
    return _match(sig, text, at, {})


# Kaldi's src/configure stops when it finds no MKL (its default math library on x86_64)
_KALDI_MKL = re.compile(r"configure failed: MKL libraries could not be found")
_KALDI_CONFIGURE = {"url": "https://github.com/kaldi-asr/kaldi/blob/master/src/configure",
                    "what": "Kaldi's configure: --mathlib (MKL, OPENBLAS, ATLAS), --mkl-root / --mkl-libdir, and "
                            "tools/extras/install_mkl.sh"}


def kaldi_configure_mkl_missing(ent, text):
    m, at = last_in_tail(_KALDI_MKL, text, "MKL libraries could not be found")
    if m is None:
        return None
    sig = _sig("kaldi-configure-mkl-missing", "toolchain", "Kaldi's configure finds no Intel MKL", 82,
               "Kaldi's configure uses Intel MKL as its math library on x86_64 by default and stops when it finds none "
               "where it looks (/opt/intel/mkl, or --mkl-root); nothing is built until it is found or another math "
               "library is chosen.",
               fix="Install MKL with Kaldi's script (`tools/extras/install_mkl.sh`, as root) and configure again, or "
                   "point configure at an existing one (`./configure --mkl-root=/path/to/mkl` / --mkl-libdir), or "
                   "choose another math library: `./configure --mathlib=OPENBLAS` after `tools/extras/install_openblas.sh`.",
               areas=("toolchain",), sources=(_KALDI_CONFIGURE,))
    return _match(sig, text, at, {})


# MATLAB's Parallel Computing Toolbox when it cannot load the NVIDIA driver's CUDA library (nvcuda.dll, libcuda.so) or
# the driver rejects the device
_MATLAB_DRIVER = re.compile(r"The CUDA driver could not be loaded\.|There is a problem with the CUDA driver or with this GPU "
                            r"device\.")
_MATLAB_GPU = {"url": "https://www.mathworks.com/help/parallel-computing/gpu-computing-requirements.html",
               "what": "MATLAB GPU computing requirements: an NVIDIA GPU and a driver for the CUDA of the MATLAB release"}


def matlab_cuda_driver_missing(ent, text):
    m, at = last_in_tail(_MATLAB_DRIVER, text)
    if m is None:
        return None
    sig = _sig("matlab-cuda-driver", "driver", "MATLAB cannot use the NVIDIA driver (or the GPU)", 82,
               "MATLAB's GPU functions (gpuArray, gpuDevice) load the NVIDIA driver's CUDA library (nvcuda.dll on "
               "Windows, libcuda.so on Linux) and need a GPU that driver supports: the driver is not installed (a machine "
               "without an NVIDIA GPU, or with another vendor's), is older than the CUDA of this MATLAB release, or the "
               "GPU is not supported.",
               fix="On an NVIDIA GPU install the current NVIDIA driver (one at least as new as the CUDA version MATLAB's "
                   "gpuDevice reports it needs) and restart MATLAB; check with `gpuDevice` / `nvidia-smi`. Without a "
                   "supported NVIDIA GPU, run on the CPU (the program's CPU option, or arrays without gpuArray).",
               areas=("driver",), sources=(_MATLAB_GPU,))
    return _match(sig, text, at, {})


# ncnn (Tencent/ncnn, src/gpu.cpp) logs "no vulkan device" when Vulkan lists no physical device, and its tools then
# "invalid gpu device"; vkEnumeratePhysicalDevices failing with any result, VK_INCOMPLETE (5) included, is the same
# search coming back short
_NCNN_NO_VK = re.compile(r"\bno vulkan device\b|\binvalid gpu device\b|vkEnumeratePhysicalDevices failed -?\d{1,10}")
_VK_LOADER_DOC = {"url": "https://github.com/KhronosGroup/Vulkan-Loader/blob/main/docs/LoaderDriverInterface.md",
                  "what": "Vulkan's loader: the drivers (ICDs) it finds through their manifest files"}


def ncnn_no_vulkan_device(ent, text):
    m, at = last_in_tail(_NCNN_NO_VK, text)
    if m is None:
        return None
    sig = _sig("ncnn-no-vulkan-device", "driver", "the Vulkan runtime found no usable GPU", 80,
               "The program runs its models through ncnn's Vulkan backend (the *-ncnn-vulkan upscalers and interpolators, "
               "Video2X), which asks Vulkan for the GPUs and found none it can use: no Vulkan driver (ICD) for the GPU is "
               "installed or it is too old, the GPU has no Vulkan support, or only a software device is there.",
               fix="Install or update the GPU's driver with its Vulkan support (NVIDIA's driver with its GL/Vulkan part; "
                   "AMD/Intel: the vendor's current driver on Windows, mesa-vulkan-drivers on Linux); check with "
                   "`vulkaninfo --summary` that the GPU is listed; on a laptop with two GPUs update both drivers; choose "
                   "the GPU with the program's -g option (or its CPU mode, -g -1, where it has one).",
               areas=("driver",), sources=(_VK_LOADER_DOC,))
    return _match(sig, text, at, {})


# DeepXDE reads its backend from DDE_BACKEND or ~/.deepxde/config.json (deepxde/backend/__init__.py) and refuses a name
# it does not have, or one whose package does not import in this environment
_DDE = re.compile(r"Unsupported backend: (?P<name>[\w.]{2,40})|Backend is set as (?P<set>[\w.]{2,40}), but '[\w.]{2,40}' "
                  r"failed to import")
_DDE_DOC = {"url": "https://deepxde.readthedocs.io/en/latest/user/installation.html#working-with-different-backends",
            "what": "DeepXDE's backends: tensorflow.compat.v1, tensorflow, pytorch, jax, paddle; DDE_BACKEND and config.json"}


def deepxde_backend_refused(ent, text):
    m, at = last_in_tail(_DDE, text)
    if m is None or ("deepxde" not in text.lower() and "dde_backend" not in text.lower() and m.group("set") is None):
        return None
    name = m.group("name") or m.group("set")
    sig = _sig("deepxde-backend-refused", "env", "DeepXDE's backend {name} is not one it can use here", 82,
               "DeepXDE runs on the backend named by DDE_BACKEND or ~/.deepxde/config.json: tensorflow.compat.v1, "
               "tensorflow, pytorch, jax or paddle. The one set ({name}) is " +
               ("not among them." if m.group("name") else "not importable in this environment (not installed, or of a "
                "release that fails to import)."),
               fix="Choose an installed backend: `export DDE_BACKEND=pytorch` (or tensorflow, jax, paddle; on Windows "
                   "`set DDE_BACKEND=pytorch`), or `python -m deepxde.backend.set_default_backend pytorch`, which writes "
                   "~/.deepxde/config.json; install that framework's GPU build in the same environment if it is missing.",
               areas=("env",), sources=(_DDE_DOC,))
    return _match(sig, text, at, {"name": name})
