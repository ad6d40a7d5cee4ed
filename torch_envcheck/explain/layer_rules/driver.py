"""Layer rules for the GPU driver and the device: a driver older than the build, a GPU newer than the build, device
nodes missing or refused, a GPU hidden or unusable (suspend, CUDA_VISIBLE_DEVICES, root only), NVML in torch's
allocator, peer-to-peer through a PCIe switch.

    gpu_newer_than_build  a kernel that cannot run, a GPU and the CUDA its build was made with -> arch (the sm and
                     the CUDA it needs, knowledge.gpu_generations)
    device_node_permission  /dev/kfd, /dev/dri, /dev/nvidia* refused   -> the groups that own the node
    cuda_after_suspend  CUDA failing next to suspend/resume words       -> reload nvidia_uvm
    devices_unavailable_on_windows  "busy or unavailable" on Windows     -> the driver
    driver_older_than_build  CUDA unusable, the driver's version and torch's CUDA printed -> the driver (its table)
    visible_devices_hide_the_gpu  no device, with CUDA_VISIBLE_DEVICES set in the text -> that variable
    intel_graphics_without_nvidia  a GPU error where the text names only Intel graphics -> the CPU, XPU for Arc
    driver_symbol_missing  a binary wants a CUDA driver API symbol (cuXxx) libcuda lacks -> a driver for that CUDA
    kernel_module_not_built  DKMS failing to build the nvidia module for a kernel, or the module missing for it
                     -> that kernel's headers and a driver branch that builds for it (make.log says why)"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import drivers, gpu_generations
from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, SOURCES, _WSL_SOURCE, _bare, _context, _match, _sig, last_in_tail


_INIT_CALL = re.compile(r"(?:cuda)?[Gg]et_?[Dd]evice_?[Cc]ount|cuInit\b|CUDA initiali[sz]ation|NumCudaDevices|cudaGetDeviceProperties|"
                        r"cuDeviceGetCount")


_ROOT_ONLY_FIX = ("The GPU works for root only: this user may not open the GPU's device nodes. Check `ls -l /dev/nvidia*` "
                  "(Jetson: `/dev/nvhost*`, `/dev/nvmap`) and `id`: add the user to the group that owns them (`sudo "
                  "usermod -aG video $USER`, some systems use render; log out and in), or fix the udev rule / the "
                  "nvidia module's NVreg_DeviceFileMode; in a container run with `--group-add video` (the host's "
                  "group id) and the devices passed in.")


def _root_only(text: str) -> bool:
    tail = text[-CONTEXT_TAIL:]
    return bool(_ROOT_ONLY.search(tail) or _SUDO_FINDS.search(tail))


def gpu_only_as_root(ent, text):
    """The GPU that works under sudo or as root and not as the user is the device nodes' permission, whatever the
    failure as the user looks like (is_available False, an init error): a group, a udev rule, not a reinstall.
    AMD's nodes (/dev/kfd, /dev/dri) belong to `render` and `video`."""
    tail = text[-CONTEXT_TAIL:]
    fail = last_match(_CUDA_UNUSABLE, tail)
    if fail is None or not _root_only(text):
        return None
    if ent.platform.get("amd"):
        sig = _sig("gpu-only-as-root-rocm", "rocm", "the GPU works as root only: /dev/kfd and /dev/dri permissions", 86,
                   "ROCm opens /dev/kfd and the /dev/dri render nodes, which belong to the `render` and `video` "
                   "groups: a command that works as root and not as the user lacks them.",
                   fix="Add the user to both groups: `sudo usermod -aG render,video $USER`, then log out and in; check "
                       "with `ls -l /dev/kfd /dev/dri/renderD*` and `id`.",
                   areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                                 "install/prerequisites.html#setting-permissions-for-groups",
                                                "what": "ROCm: the render and video groups"},))
    else:
        sig = _sig("gpu-only-as-root", "driver", "the GPU works as root only: device-node permissions", 86,
                   "CUDA opens the NVIDIA device nodes (/dev/nvidia*, on Jetson /dev/nvhost* and /dev/nvmap); they "
                   "are normally world-accessible, but a restrictive NVreg_DeviceFileMode, udev rule or (Jetson) the "
                   "`video` group keeps them from other users: root finds the GPU, the user does not.",
                   fix=_ROOT_ONLY_FIX, areas=("driver",),
                   sources=({"url": "https://download.nvidia.com/XFree86/Linux-x86_64/550.54.14/README/faq.html",
                             "what": "NVIDIA driver README: device file permissions (NVreg_DeviceFileMode)"},))
    return _match(sig, text, len(text) - len(tail) + fail.start(), {})


_NEWER_GPU_FIX = ("{gpu} (compute capability {capability}, {sm}) needs code built with CUDA {first_cuda} or newer; this "
                  "build uses CUDA {cuda}. Install a torch (and extensions) built with CUDA {first_cuda} or newer (the "
                  "cuXXX build from https://pytorch.org/get-started/locally/, or a previous version's page for older "
                  "torch releases); an extension you compile needs TORCH_CUDA_ARCH_LIST including {capability} and a "
                  "CUDA {first_cuda}+ toolkit.")


def _build_cuda(ent) -> str | None:
    """The CUDA a build in the text was made with: torch's (+cuXXX, collect_env), else a CUDA version named; a torch
    older than 1.7 had no CUDA 11 build at all (10.2 at most)."""
    v = ent.versions
    cuda = v.get("torch_cuda") or v.get("cuda")
    if not cuda and _old_torch(ent):
        cuda = "10.2"
    return cuda


def _gpu_newer_than_build(ent) -> dict | None:
    """The GPU named in the text, when the CUDA its build was made with predates the GPU's architecture
    (knowledge.gpu_generations): {"gpu", "capability", "sm", "first_cuda", "cuda"}."""
    cuda = _build_cuda(ent)
    for g in reversed(ent.gpus):
        need = gpu_generations.needs_newer_cuda(g, cuda)
        if need:
            return need
    return None


_ARCH_BARES = frozenset({"executionfailed", "archmismatch", "internalerror", "nokernelimagefordevice",
                         "invaliddevicefunction", "nobinaryforgpu", "invalidkernelimage"})


_ARCH_WORDS = re.compile(r"no kernel image (?:is )?available|invalid device function|is not compatible with the current "
                         r"PyTorch installation|no binary for GPU")


def gpu_newer_than_build(ent, text):
    """A kernel that cannot run (no kernel image, invalid device function, cuDNN/cuFFT failing inside) on a GPU the
    text names, with the CUDA its build was made with: when that CUDA predates the GPU's architecture (a version
    table, knowledge.gpu_generations), the build cannot have code for it, whatever the message's wording."""
    newer = _gpu_newer_than_build(ent)
    if not newer or ent.platform.get("amd"):
        return None
    at = next((c["at"] for c in reversed(ent.codes) if _bare(c) in _ARCH_BARES), None)
    if at is None:
        tail = text[-CONTEXT_TAIL:]
        m = last_match(_ARCH_WORDS, tail)
        if m is None:
            return None
        at = len(text) - len(tail) + m.start()
    sig = _sig("gpu-newer-than-build-cuda", "arch", "{gpu} ({sm}) is newer than the CUDA {cuda} this build was made with",
               89, "{gpu} has compute capability {capability} ({sm}); CUDA toolkits before {first_cuda} cannot compile "
               "for it, so a build made with CUDA {cuda} (torch, its libraries, an extension) has no code that runs on it.",
               fix=_NEWER_GPU_FIX,
               causes=(("arch", "the installed torch has no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu", "torch"), sources=({"url": "https://developer.nvidia.com/cuda-gpus",
                                                 "what": "compute capability of each NVIDIA GPU"},
                                                {"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                                                 "what": "the CUDA release that added each sm_XY target"}))
    return _match(sig, text, at, newer)



# TensorFlow releases before 2.4 were built with CUDA 10.1 or older (tensorflow.org's tested build configurations; 2.4
# is the first with CUDA 11.0, the first row of knowledge/tensorflow's table)
_OLD_TF = re.compile(r"(?i)\btensorflow(?:-gpu)?(?:==?| version:? ?| v| )?\s{0,2}(?P<ver>1\.\d{1,2}|2\.[0-3])(?:\.\d{1,3})?\b")


def _old_build(ent, text) -> dict | None:
    """A stack the text shows was built with a CUDA older than 11.1 (torch before 1.7, torch's or the named CUDA 9/10,
    TensorFlow before 2.4): {"stack", "cuda"} and the oldest GPU generation it has no code for
    (knowledge.gpu_generations: "generation", "sm", "first_cuda", "examples"); None otherwise."""
    torch = ent.versions.get("torch")
    if _old_torch(ent):
        stack, cuda = f"torch {torch}", "10.2"
    elif ent.versions.get("torch_cuda") or (ent.versions.get("cuda") and not torch):
        cuda = ent.versions.get("torch_cuda") or ent.versions.get("cuda")
        stack = f"CUDA {cuda}"
    else:
        tf = last_match(_OLD_TF, text[-CONTEXT_TAIL:])
        if tf is None:
            return None
        stack, cuda = f"TensorFlow {tf.group('ver')}", "10.1"
    beyond = gpu_generations.first_generation_beyond(cuda)
    if beyond is None or gpu_generations.needs_newer_cuda("A100", cuda) is None:
        return None
    needs = "; ".join(f"{g['generation']} ({g['examples']}) CUDA {g['first_cuda']}"
                      for g in gpu_generations.generations_beyond(cuda))
    return dict(beyond, stack=stack, cuda=cuda, needs=needs)


def _old_torch(ent) -> bool:
    """torch older than 1.7, the first release with CUDA 11 builds (pytorch.org/get-started/previous-versions)."""
    m = re.match(r"(\d{1,2})\.(\d{1,3})", ent.versions.get("torch") or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) < (1, 7)


def platform_without_cuda(ent, text):
    """A CUDA call on a machine whose torch can have no CUDA: macOS (use MPS or the CPU: the program's device
    choice, not the installation), or an AMD GPU with torch's CUDA build (install the ROCm build)."""
    tail = text[-CONTEXT_TAIL:]
    i = max(tail.rfind("Torch not compiled with CUDA enabled"), tail.rfind("Found no NVIDIA driver on your system"))
    if i < 0 and ent.platform.get("amd") and not ent.platform.get("macos") and \
            "rocm" not in (ent.versions.get("torch") or "") and "hip" not in (ent.versions.get("torch") or ""):
        # torch.cuda is how a ROCm build reports AMD GPUs: no GPU there, on an AMD machine, from a torch the text
        # does not show as a ROCm build, is first of all the build (a CPU or CUDA wheel); ranked below the rules
        # that read a permission or a gfx target
        unusable = last_match(_CUDA_UNUSABLE, tail)
        if unusable is None:
            return None
        sig = _sig("no-gpu-from-torch-on-amd", "torch-build",
                   "torch finds no GPU on an AMD machine: check that torch is a ROCm build", 70,
                   "On AMD GPUs torch.cuda is served by torch's ROCm builds (torch.version.hip is set, the version ends "
                   "in +rocmX.Y). A CPU wheel, or the CUDA (NVIDIA) wheel a plain `pip install torch` gives, sees no "
                   "AMD GPU; pip falls back to the CPU wheel where no ROCm wheel exists for this Python.",
                   fix="Check `python -c \"import torch; print(torch.__version__, torch.version.hip)\"`: without +rocm, "
                       "install torch's ROCm build from the PyTorch index (`pip install torch torchvision torchaudio "
                       "--index-url https://download.pytorch.org/whl/rocm6.2`, the rocmX.Y your ROCm supports, for a "
                       "Python that index has wheels for). With a ROCm build, check the user is in the `render` and "
                       "`video` groups and that the GPU's gfx target is supported.",
                   causes=(("rocm", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"], SOURCES["hsa"]), generic=True)
        return _match(sig, text, len(text) - len(tail) + unusable.start(), {})
    if i < 0:
        return None
    at = len(text) - len(tail) + i
    if ent.platform.get("macos") and not ent.platform.get("windows"):
        sig = _sig("cuda-requested-on-macos", "not-environment",
                   "the program asks for CUDA on a Mac: macOS has no CUDA (use MPS or the CPU)", 88,
                   "torch on macOS is built without CUDA, by design: Macs have no NVIDIA GPU support. The program (or a "
                   "library default) selected the 'cuda' device; on Apple silicon the GPU is the 'mps' device.",
                   look_at="Select the device in the program: `device = 'mps' if torch.backends.mps.is_available() else "
                           "'cpu'` (replace .cuda() / device='cuda' / map_location='cuda'; many tools take a --device "
                           "option). Nothing needs to change in the installation.",
                   sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                             "what": "the MPS backend: torch's GPU device on macOS"},))
        return _match(sig, text, at, {})
    if ent.platform.get("amd"):
        sig = _sig("cuda-torch-on-amd-gpu", "torch-build",
                   "torch's CUDA build is installed on a machine with an AMD GPU: install the ROCm build", 87,
                   "The installed torch is a CUDA (NVIDIA) build; this machine's GPU is AMD, which torch drives through its "
                   "ROCm builds. A package's requirements (or a plain `pip install torch`) replaced the ROCm build.",
                   fix="Install torch's ROCm build from the PyTorch index: `pip install --force-reinstall torch torchvision "
                       "torchaudio --index-url https://download.pytorch.org/whl/rocm6.2` (the rocmX.Y your ROCm supports), "
                       "and keep other packages' requirements from replacing it (`pip install --no-deps` for them).",
                   causes=(("rocm", "a ROCm torch is installed on a machine with only NVIDIA GPUs", ("TE206",)),),
                   areas=("torch",), sources=(SOURCES["torch_index"],))
        return _match(sig, text, at, {})
    return None


def allocator_nvml_assert(ent, text):
    """torch's caching allocator asserting on an NVML call: out of memory in practice, or, on a MIG GPU, an
    NVML view of another device than CUDA_VISIBLE_DEVICES selects."""
    tail = text[-CONTEXT_TAIL:]
    init = re.search(r"NVML_SUCCESS == [\w:>()-]{0,60}nvmlInit\w{0,8}\(\) INTERNAL ASSERT FAILED", tail)
    if init is not None:
        # the assert names the call: NVML cannot even start, which is the driver's state, not memory
        sig = _sig("nvml-init-failed-in-torch", "driver", "NVML cannot initialise in this process (torch's allocator "
                   "asserts on nvmlInit)", 84,
                   "torch's CUDA allocator initialises NVML and asserts when it fails: CUDA works but NVML does not start, "
                   "which happens when the driver's user-space libraries and its loaded kernel module are of different "
                   "versions (a driver update without a reboot) or NVML is not reachable (a container without the "
                   "utility capability).",
                   fix="Check `nvidia-smi`: if it fails with a driver/library version mismatch, reboot (or reload the nvidia "
                       "kernel modules) so the driver and its libraries match; in a container start it with "
                       "NVIDIA_DRIVER_CAPABILITIES including utility (or `--gpus all`).",
                   causes=(("mismatch", "the driver's kernel module and libraries differ", ("TE303",)),),
                   areas=("driver",), sources=({"url": "https://github.com/pytorch/pytorch/issues/112950",
                                                "what": "nvmlInit_v2_ INTERNAL ASSERT FAILED in CUDACachingAllocator"},))
        return _match(sig, text, len(text) - len(tail) + init.start(), {})
    i = tail.rfind("NVML_SUCCESS == r INTERNAL ASSERT FAILED")
    if i < 0:
        return None
    at = len(text) - len(tail) + i
    if _context(text, r"\bMIG\b|MIG-[0-9a-f]{8}|MIG mode"):
        sig = _sig("mig-device-not-selected", "env",
                   "torch's allocator cannot query the MIG device it was given (CUDA_VISIBLE_DEVICES)", 86,
                   "On a GPU in MIG mode each process must be given one MIG instance; the allocator asks NVML about "
                   "the device CUDA_VISIBLE_DEVICES names and fails when that names the parent GPU or another instance.",
                   fix="Set CUDA_VISIBLE_DEVICES to the MIG instance assigned to the job (its MIG-<uuid> from "
                       "`nvidia-smi -L`; under Slurm use the device it assigned), one instance per process.",
                   causes=(("cvd", "CUDA_VISIBLE_DEVICES names devices that do not exist", ("TE403",)),),
                   areas=("gpu",), sources=({"url": "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html",
                                             "what": "MIG: CUDA_VISIBLE_DEVICES selects one instance"},))
        return _match(sig, text, at, {})
    sig = _sig("allocator-nvml-assert", "not-environment",
               "torch's CUDA allocator failed an NVML query while out of memory: not an environment problem", 62,
               "The caching allocator asks NVML for memory statistics when an allocation fails; this assert surfaces a "
               "CUDA out-of-memory (a known torch behaviour, see the source).",
               look_at="Treat it as out of memory: reduce the batch size or model size, free cached tensors, check other "
                       "processes in `nvidia-smi`.",
               sources=({"url": "https://github.com/pytorch/pytorch/issues/112377",
                         "what": "NVML_SUCCESS == r INTERNAL ASSERT FAILED on out of memory"},))
    return _match(sig, text, at, {})


_DEVICE_NODE_DENIED = re.compile(
    r"(?P<node>/dev/(?:kfd|dri/(?:renderD|card)\d{1,3}|nvidia(?:\d{1,2}|ctl|-uvm|-caps)?))\b[^\n]{0,80}?"
    r"(?:[Pp]ermission denied|[Oo]peration not permitted|EACCES|EPERM)|"
    r"(?:[Pp]ermission denied|[Oo]peration not permitted|EACCES|EPERM)[^\n]{0,80}?"
    r"(?P<node2>/dev/(?:kfd|dri/(?:renderD|card)\d{1,3}|nvidia(?:\d{1,2}|ctl|-uvm|-caps)?))\b")


_NODE = r"/dev/(?:kfd|dri(?:/(?:renderD|card)\d{1,3})?|nvidia(?:\d{1,2}|ctl|-uvm(?:-tools)?|-modeset|-caps)?|dxg)"


_DEVICE_NODE_MISSING = re.compile(
    r"(?P<node>" + _NODE + r")\b[^\n]{0,80}?(?:No such file or directory|ENOENT|does not exist)|"
    r"(?:No such file or directory|cannot (?:open|access|stat))[^\n]{0,40}?['\"`]?(?P<node2>" + _NODE + r")\b")


def device_node_missing(ent, text):
    """The GPU's device node does not exist (not: exists but refused): inside a container it was not passed in (the
    runtime's --device / --gpus), on a host its kernel driver is not loaded (amdgpu for /dev/kfd and /dev/dri, the
    NVIDIA module for /dev/nvidia*), and /dev/dxg is WSL 2's GPU (absent in WSL 1 or in a container not given it)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DEVICE_NODE_MISSING, tail)
    if m is None:
        return None
    node = m.group("node") or m.group("node2")
    amd = node.startswith(("/dev/kfd", "/dev/dri"))
    container = bool(ent.platform.get("container")) or _context(text, r"docker|podman|container|apptainer|singularity|"
                                                                      r"kubernetes|\bk8s\b")
    at = len(text) - len(tail) + m.start()
    if container:
        how = ("`docker run --device=/dev/kfd --device=/dev/dri --group-add video ...` (Apptainer: `--rocm`, or "
               "`--bind /dev/kfd,/dev/dri`; Kubernetes: the AMD GPU device plugin)" if amd else
               "`docker run --gpus all ...` with the NVIDIA Container Toolkit on the host (Kubernetes: the NVIDIA "
               "device plugin); a bare --device=/dev/nvidia0 lacks the driver's libraries")
        sig = _sig("container-gpu-device-not-passed", "container", "{node} does not exist in the container: the GPU "
                   "was not passed in", 84,
                   "A container sees only the device nodes its runtime passes in; {node} is absent, so the GPU stack "
                   "inside cannot reach the GPU, whatever is installed in the image.",
                   fix="Start the container with the GPU's devices: " + how + ".",
                   areas=("driver",), sources=(SOURCES["container_toolkit"] if not amd else
                                                {"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                                        "how-to/docker.html",
                                                 "what": "ROCm in Docker: --device=/dev/kfd --device=/dev/dri"},))
        return _match(sig, text, at, {"node": node})
    if node == "/dev/dxg":
        sig = _sig("wsl-dxg-missing", "wsl", "/dev/dxg does not exist: no WSL 2 GPU passthrough here", 84,
                   "/dev/dxg is how WSL 2 reaches the Windows driver's GPU; it is absent under WSL 1 and in a WSL "
                   "without GPU support.",
                   fix="Use WSL 2 (`wsl --set-version <distro> 2`), run `wsl --update`, and keep the Windows NVIDIA "
                       "driver current; never install a Linux driver inside WSL.", areas=("platform",),
                   sources=(_WSL_SOURCE,))
        return _match(sig, text, at, {"node": node})
    sig = _sig("gpu-device-node-missing-rocm" if amd else "gpu-device-node-missing", "rocm" if amd else "driver",
               "{node} does not exist: the GPU's kernel driver is not loaded", 80,
               "{node} is created by the GPU's kernel driver when it loads (" +
               ("amdgpu creates /dev/kfd and /dev/dri/renderD*" if amd else "the NVIDIA module creates /dev/nvidia*") +
               "); it is absent, so the driver is not loaded (not installed for this kernel, blocked, or the GPU is "
               "not bound to it).",
               fix=("Load the AMD kernel driver: `sudo modprobe amdgpu` and read `dmesg | grep -i -e amdgpu -e kfd`; "
                    "install the amdgpu-dkms of your ROCm for this kernel and reboot." if amd else
                    "Load the NVIDIA kernel module: `sudo modprobe nvidia` (and nvidia-uvm) and read `dmesg | grep -i "
                    "nvrm`; install the driver's kernel module for the running kernel (DKMS) and reboot; check with "
                    "`nvidia-smi`."),
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),) if not amd else (),
               areas=("driver",), sources=(SOURCES["hsa"] if amd else
                                            {"url": "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/"
                                                    "index.html",
                                             "what": "the NVIDIA driver creates /dev/nvidia* when its module loads"},))
    return _match(sig, text, at, {"node": node})


def device_node_permission(ent, text):
    """The GPU's device node refused to this user: the owner of the node says which stack (/dev/kfd and /dev/dri are
    AMD's ROCm, /dev/nvidia* NVIDIA's driver); the fix is group membership, not a reinstall."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_DEVICE_NODE_DENIED, tail)
    if m is None:
        return None
    node = m.group("node") or m.group("node2")
    rocm = node.startswith(("/dev/kfd", "/dev/dri"))
    sig = _sig("gpu-device-node-denied-rocm" if rocm else "gpu-device-node-denied", "rocm" if rocm else "driver",
               "{node} cannot be opened by this user: GPU device-node permissions", 85,
               "The GPU's device node exists but this user may not open it: " + (
                   "ROCm needs read-write access to /dev/kfd and the /dev/dri render nodes, given to the `render` and "
                   "`video` groups." if rocm else "NVIDIA's nodes are normally world-accessible; a restrictive "
                   "NVreg_DeviceFileMode or udev rule limits them to a group.") +
               " In a container the nodes must be passed in and the container user must be in the host's groups "
               "(by number).",
               fix="Add the user to the groups that own the node: `sudo usermod -aG render,video $USER`, then log out and "
                   "in (check with `ls -l " + node + "` and `id`); in a container pass --device and --group-add with the "
                   "host's group ids.",
               areas=("driver",), sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"
                                             "install/prerequisites.html#setting-permissions-for-groups",
                                            "what": "ROCm: the render and video groups give access to /dev/kfd, /dev/dri"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"node": node})


_ROOT_ONLY = re.compile(r"(?i)\b(?:as|with|under) (?:root|sudo)\b[^\n]{0,60}?\bworks?\b|\bworks?\b[^\n]{0,60}?\b(?:as|with|under) "
                        r"(?:root|sudo)\b|\bonly (?:as|with) (?:root|sudo)\b|\b(?:run|running|ran) as (?:a )?(?:normal|regular|"
                        r"non-root|unprivileged) user\b|/dev/kfd (?:world|group)[ -](?:readable|writable)|"
                        # "only if I use the root user", "only when run with sudo", "for any non-root user"
                        r"\bonly (?:if|when) (?:I )?(?:use|run(?: it)?(?: as| with)?) (?:the )?(?:root|sudo)\b|"
                        r"\bonly (?:with|as|under|using|via) (?:the )?(?:root|sudo)\b|\b(?:any|a|the) non[- ]?root user\b")


# the same check run twice: under sudo it finds the GPU (True, a count), as the user it does not
_SUDO_FINDS = re.compile(r"(?m)\bsudo\b[^\n]{0,300}(?:is_available|device_count|nvidia-smi)[^\n]{0,80}\n[ \t>]{0,8}"
                         r"(?:True|[1-9]\d{0,2})[ \t]{0,4}$")


# A driver suspended with the machine: CUDA stops working after a resume until nvidia_uvm is reloaded.
# the machine's own sleep: resumed/woken from suspend, sleep or hibernation, "suspend my laptop", suspend/resume
_SUSPEND = re.compile(r"(?i)\b(?:(?:resum\w{0,3}|wak\w{0,4}(?: up)?|back|coming back)(?: \w{1,12}){0,3} from (?:a )?"
                      r"(?:suspend|sleep|hibernat\w{0,5})|after (?:a )?(?:suspend|sleep|hibernat\w{0,5})|"
                      r"suspend(?:/| and | or |-)resume|suspend(?:ing)? (?:my|the) (?:device|laptop|computer|machine|pc|"
                      r"system|notebook)|systemctl (?:suspend|hibernate)|"
                      # "my laptop goes to sleep or hibernation", "put it into standby", "wake from sleep mode"
                      r"(?:goes|went|gone|going|put|puts|putting) (?:\w{1,12} ){0,2}(?:to sleep|into (?:sleep|standby|"
                      r"hibernation|suspend))|(?:sleep|standby|hibernation|suspend) mode|"
                      # a workload left running "through the suspend", "across a sleep"
                      r"(?:through|across|during|over) (?:a |the )?(?:suspend|sleep|hibernation|standby))\b")


# what a driver left broken by suspend prints: an unknown error, a failed launch or initialisation, no device
_CUDA_BROKEN = re.compile(r"cuInit|cudaGetDeviceCount|CUDA initialization|UNKNOWN_ERROR|CUDA_ERROR_UNKNOWN|"
                          r"cuda(?:Error)?Unknown|CUDA error: unknown error|unspecified launch failure|nvidia_uvm|"
                          r"CUDA (?:fails|failed) to initiali[sz]e|no CUDA-capable device|CUDA unknown error|NVRM: Xid")


def cuda_after_suspend(ent, text):
    """CUDA failing in a text that says the machine was suspended: the unified-memory module does not come back
    from suspend on many systems; reloading nvidia_uvm (or a reboot) restores it, no reinstall."""
    tail = text[-CONTEXT_TAIL:]
    sus = _SUSPEND.search(tail)
    err = _CUDA_BROKEN.search(tail)
    if sus is None or err is None:
        return None
    sig = _sig("cuda-broken-after-suspend", "driver", "CUDA fails after the machine resumed from suspend", 84,
               "After a suspend and resume the NVIDIA unified-memory module (nvidia_uvm) is often left unusable: every "
               "CUDA call then fails (CUDA_ERROR_UNKNOWN, unspecified launch failure) while nvidia-smi still works.",
               fix="Reload the module: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or reboot); to keep it "
                   "working across suspends, enable the driver's power management (NVreg_PreserveVideoMemoryAllocations=1 "
                   "with nvidia-suspend/nvidia-resume services).",
               areas=("driver",), sources=({"url": "https://download.nvidia.com/XFree86/Linux-x86_64/535.54.03/README/"
                                                   "powermanagement.html",
                                            "what": "NVIDIA driver README: power management across suspend"},))
    return _match(sig, text, len(text) - len(tail) + err.start(), {})


# nvidia-smi topo -m: a row of the GPU matrix, and the PCIe link types that go through a switch or bridge
_TOPO_ROW = re.compile(r"(?m)^GPU\d{1,2}\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\s{1,8}(?:X|PIX|PXB|PHB|NODE|SYS|NV\d{1,2})\b")


_PCIE_SWITCH = re.compile(r"\b(?:PIX|PXB)\b")


_HANGS = re.compile(r"(?i)\b(?:hangs?|hanging|hung|stuck|freez(?:es|ing)?|deadlock)\b")


def p2p_through_pcie_switch_hangs(ent, text):
    """Collectives that hang between GPUs behind one PCIe switch (nvidia-smi topo: PIX/PXB) while GPUs across the CPU
    link (SYS) work: PCIe Access Control Services (or the IOMMU) redirect peer-to-peer traffic to the root complex,
    where it stalls.  A platform setting, not the installation."""
    tail = text[-CONTEXT_TAIL:]
    row = _TOPO_ROW.search(tail)
    if row is None or _HANGS.search(tail) is None or _PCIE_SWITCH.search(tail) is None:
        return None
    sig = _sig("p2p-blocked-by-acs", "distributed",
               "peer-to-peer between GPUs behind a PCIe switch hangs: ACS / IOMMU redirect it", 80,
               "GPUs under one PCIe switch (PIX/PXB in `nvidia-smi topo -m`) talk peer-to-peer through it; with PCIe "
               "Access Control Services (ACS) enabled, or an IOMMU translating DMA, that traffic is sent up to the root "
               "complex and stalls, so NCCL's P2P transport hangs between exactly those GPUs.",
               fix="Disable ACS on the PCIe switches (the BIOS setting, or `setpci` as in NCCL's troubleshooting guide) and "
                   "the IOMMU / VT-d for bare metal (`iommu=pt` or off), then verify with the CUDA p2pBandwidthLatencyTest or "
                   "nccl-tests; NCCL_P2P_DISABLE=1 avoids P2P meanwhile, at a bandwidth cost.",
               areas=("gpu",), sources=({"url": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
                                                "troubleshooting.html#pci-access-control-services-acs",
                                         "what": "NCCL troubleshooting: PCI Access Control Services (ACS)"},))
    return _match(sig, text, len(text) - len(tail) + row.start(), {})


def devices_unavailable_on_windows(ent, text):
    """cudaErrorDevicesUnavailable on Windows: WDDM gives GeForce GPUs no exclusive compute mode to be busy in, so the
    driver could not create a context at all (a broken or half-updated driver)."""
    if not ent.platform.get("windows") or ent.platform.get("wsl"):
        return None
    c = next((x for x in reversed(ent.codes) if x["name"] in ("cudaErrorDevicesUnavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE")),
             None)
    if c is None:
        # the runtime's message as torch prints it (its own wording differs from cudaGetErrorString's)
        tail = text[-CONTEXT_TAIL:]
        i = max(tail.rfind("devices are busy or unavailable"), tail.rfind("is/are busy or unavailable"))
        if i < 0:
            return None
        c = {"at": len(text) - len(tail) + i}
    sig = _sig("windows-cuda-devices-unavailable", "driver",
               "CUDA cannot create a context on Windows: the NVIDIA driver is not working", 78,
               "On Windows the display driver model (WDDM) has no exclusive compute mode for a GPU to be busy in: "
               "'busy or unavailable' means the driver could not give the process a context (a damaged or half-updated "
               "driver, or another program that took the GPU over).",
               fix="Reinstall the NVIDIA driver cleanly (NVIDIA's installer with 'Perform a clean installation', or DDU "
                   "first), reboot, and check `nvidia-smi`; close programs that hold the GPU exclusively.",
               causes=(("machine", "CUDA failed to initialise for another reason", ("TE303",)),), areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html",
                         "what": "cudaErrorDevicesUnavailable"},))
    return _match(sig, text, c["at"], {})


# CUDA unusable, in words that do not say why (the versions printed beside them do)
_CUDA_UNUSABLE = re.compile(r"(?i)is_available(?:\(\))?\W{0,20}(?:returns?\W{0,4}|is\W{0,4})?false\b|Is CUDA available: "
                            r"(?:False|No)\b|CUDA initialization|driver version is insufficient|"
                            r"cudaErrorInsufficientDriver|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")


def driver_older_than_build(ent, text):
    """CUDA unusable in a text that prints both the driver's version and the CUDA torch was built with (collect_env,
    nvidia-smi beside `torch.__version__`): the driver table (knowledge.drivers) says whether that driver runs that
    CUDA at all."""
    v = ent.versions
    cuda = v.get("torch_cuda")
    if not cuda or not (v.get("driver") or v.get("driver_cuda")):
        return None
    os_name = "Windows" if ent.platform.get("windows") or ent.platform.get("wsl") else "Linux"
    if drivers.driver_runs(cuda, driver_version=v.get("driver"), driver_cuda=v.get("driver_cuda"),
                           os_name=os_name) != drivers.NO:
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CUDA_UNUSABLE, tail)
    if m is None:
        return None
    need = drivers.min_driver_for_cuda(cuda, os_name) or {}
    caps = {"cuda": cuda, "driver": v.get("driver") or v.get("driver_cuda"),
            "need": need.get("compat_floor") or need.get("toolkit_minimum")}
    sig = _sig("driver-older-than-torch-cuda", "driver",
               "the NVIDIA driver ({driver}) is older than the CUDA {cuda} this torch was built with", 87,
               "torch was built with CUDA {cuda}, which needs an NVIDIA driver {need|newer than this one} or newer; the "
               "driver here is {driver}, so CUDA cannot start (torch.cuda.is_available() is False). The versions come "
               "from the text (NVIDIA's driver table per CUDA release).",
               fix="Update the NVIDIA driver to one that runs CUDA {cuda} ({need|a newer release} or newer; https://www.nvidia.com/"
                   "Download/index.aspx; on Ubuntu `sudo ubuntu-drivers install`) and reboot; or install the torch build "
                   "for a CUDA this driver supports (https://pytorch.org/get-started/previous-versions/).",
               causes=(("driver-older-than-build", "the installed NVIDIA driver is older than the CUDA runtime of the "
                        "installed torch", ("TE302", "TE307")),),
               areas=("driver",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                                            "what": "CUDA Toolkit and Corresponding Driver Versions"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), caps)


# CUDA_VISIBLE_DEVICES set in the text itself, next to "no device": the variable hides the GPUs
_CVD_SET = re.compile(r"CUDA_VISIBLE_DEVICES\s{0,2}=\s{0,2}['\"]?[$\w,-]|environ\[['\"]CUDA_VISIBLE_DEVICES['\"]\]\s{0,2}=")


_NO_DEVICE = re.compile(r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice")


def visible_devices_hide_the_gpu(ent, text):
    """No CUDA device in a text that sets CUDA_VISIBLE_DEVICES: the variable decides which GPUs the process sees; an
    index that does not exist (or an unexpanded $1) leaves none."""
    tail = text[-CONTEXT_TAIL:]
    cvd = _CVD_SET.search(tail)
    m = last_match(_NO_DEVICE, tail)
    if cvd is None or m is None or ent.platform.get("container"):
        return None
    sig = _sig("visible-devices-hide-the-gpu", "env",
               "no CUDA device is visible: CUDA_VISIBLE_DEVICES, set here, names no GPU that exists", 76,
               "CUDA_VISIBLE_DEVICES selects the GPUs a process sees, by index or UUID; set to an index the machine does "
               "not have (or to an empty or unexpanded value such as $0), it hides every GPU and CUDA reports no device.",
               fix="Set CUDA_VISIBLE_DEVICES to indices that exist (`nvidia-smi -L` lists them; on a one-GPU machine only "
                   "0) or unset it; check the scripts and the code (os.environ['CUDA_VISIBLE_DEVICES']) that set it.",
               causes=(("cvd", "CUDA_VISIBLE_DEVICES names devices that do not exist", ("TE403",)),),
               areas=("gpu",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
                                                "#env-vars", "what": "CUDA_VISIBLE_DEVICES"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# the machine's graphics named in the text, and no NVIDIA GPU anywhere in it: Intel's integrated and Arc GPUs
_INTEL_GRAPHICS = re.compile(r"(?i)\b(?:Mesa )?Intel(?:\(R\)|®)?\s{0,2}(?:Core\S{0,4}\s{0,2}Ultra[^\n]{0,30}\s)?"
                             r"(?P<g>(?:UHD|HD|Iris(?:\(R\)|®)?\s{0,2}(?:Xe|Plus|Pro)?|Xe|Arc(?:\(TM\)|™)?(?: [AB]\d{3}M?)?)"
                             r"(?:\s{0,2}Graphics)?)")
_NVIDIA_NAMED = re.compile(r"(?i)\bnvidia\b|geforce|\b(?:rtx|gtx|quadro|tesla)\b|\b[AHLBT]\d{2,3}\b[^\n]{0,10}(?:GPU|PCIe|SXM)")
_NO_GPU_ERROR = re.compile(r"could not select device driver \"[^\"\n]{0,20}\" with capabilities: \[\[gpu\]\]|No CUDA GPUs "
                           r"are available|Found no NVIDIA driver on your system|no CUDA-capable device is detected|"
                           r"(?i:is_available\(\)\W{0,20}(?:returns?\W{0,4}|is\W{0,4})?false)")


def intel_graphics_without_nvidia(ent, text):
    """A GPU error on a machine whose only graphics the text names is Intel's: CUDA (and Docker's --gpus, the NVIDIA
    container runtime) need an NVIDIA GPU, so nothing to install makes it work; the CPU, or, for Intel Arc, torch's
    XPU build."""
    tail = text[-CONTEXT_TAIL:]
    err = last_match(_NO_GPU_ERROR, tail)
    gpu = _INTEL_GRAPHICS.search(tail)
    if err is None or gpu is None or _NVIDIA_NAMED.search(tail) or ent.gpus:
        return None
    in_container = "could not select device driver" in err.group(0)
    sig = _sig("intel-graphics-without-nvidia", "container" if in_container else "torch-build",
               "this machine's GPU is Intel {graphics}, not an NVIDIA GPU: CUDA cannot use it", 88,
               "CUDA runs on NVIDIA GPUs only; the text names Intel {graphics} and no NVIDIA GPU, so torch's CUDA build "
               "(and Docker's --gpus, which needs the NVIDIA container runtime and an NVIDIA driver) finds no device. "
               "No driver, CUDA toolkit or reinstall changes that.",
               fix="Run on the CPU (the program's device option, e.g. `--device cpu` or device='cpu'; in Docker drop "
                   "`--gpus`). Intel Arc GPUs (and Core Ultra's Arc graphics) have torch's XPU build (`pip install "
                   "torch --index-url https://download.pytorch.org/whl/xpu`, device 'xpu'); older Intel integrated "
                   "graphics have no torch GPU backend. If the machine also has an NVIDIA GPU, `nvidia-smi` should "
                   "list it: then install its driver.",
               causes=(), areas=("gpu",),
               sources=({"url": "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html",
                         "what": "torch's XPU build for Intel GPUs: the supported GPUs and the install command"},
                        {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/",
                         "what": "Docker's --gpus needs the NVIDIA Container Toolkit and an NVIDIA GPU"}))
    return _match(sig, text, len(text) - len(tail) + err.start(), {"graphics": re.sub(r"\s+", " ", gpu.group("g")).strip()})


# The driver API's functions are cu + a capital (cuInit, cuGreenCtxCreate, cuTensorMapEncodeTiled; cuda.h), the
# runtime's cuda + a capital (libcudart), the math libraries' cu + lower case (cublas, cufft): only the first are
# libcuda's, which the NVIDIA driver installs.
_DRIVER_API_SYMBOL = re.compile(r"_{0,2}cu(?!da[A-Z])[A-Z][A-Za-z0-9]{2,60}(?:_v\d{1,2})?$")


def driver_symbol_missing(ent, text):
    """An undefined CUDA driver API symbol: libcuda comes with the NVIDIA driver, and each CUDA release adds
    functions to it, so a binary built with a newer CUDA than the driver's wants one the installed libcuda lacks
    (or a stub / old copy of libcuda is found first)."""
    syms = [s for s in ent.symbols if _DRIVER_API_SYMBOL.match(s["symbol"]) and not s.get("link_time")]
    if not syms:
        return None
    s = syms[-1]
    f = s.get("file")
    sig = _sig("driver-api-symbol-missing", "driver",
               "the NVIDIA driver's libcuda lacks {symbol}: it is older than the CUDA {ext|the binary} was built with", 84,
               "{symbol} is a CUDA driver API function, defined by libcuda, which the NVIDIA driver installs (not the "
               "CUDA toolkit or the nvidia-* wheels); each CUDA release adds functions to it. {ext|A binary} built "
               "with a newer CUDA calls it, and the libcuda loaded does not define it: the driver is older than that "
               "CUDA (or a toolkit's stub libcuda, or an old copy of libcuda, is found first).",
               fix="Update the NVIDIA driver to one that supports the CUDA {ext|the package} was built with (NVIDIA's "
                   "CUDA release notes list the minimum driver per CUDA release; in a container the host's driver is "
                   "the one that counts), or install {ext|the package}'s build for the older CUDA this driver runs. "
                   "Check that no stubs folder (cuda/lib64/stubs) or copied libcuda.so is on LD_LIBRARY_PATH.",
               causes=(("driver-older-than-build", "the driver is older than the CUDA a binary was built with", ("TE302", "TE307")),),
               areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html",
                         "what": "CUDA release notes: the minimum driver version of each CUDA release"},
                        {"url": "https://docs.nvidia.com/cuda/cuda-driver-api/index.html",
                         "what": "the CUDA driver API (libcuda): the cu* functions and the release that added each"}))
    return _match(sig, text, s.get("at", 0), {"symbol": s["symbol"], "file": f,
                                               "ext": f.rsplit("/", 1)[-1] if f else None})


# Environment Modules / Lmod: on clusters the CUDA libraries come from a module the job loads ("module load
# cuda/12.4"); a job, a pipeline step or a notebook kernel started without it sees no CUDA
_MODULE_LOAD_CUDA = re.compile(r"\bmodule (?:load|add) (?P<mod>[Cc][Uu][Dd][Aa](?:[/-][\w.]{1,20})?)")
_NO_USABLE_CUDA = re.compile(r"(?i)cuda[^\n]{0,40}(?:not (?:installed|available|working)|unavailable)|"
                             r"not compiled with cuda|no cuda|is_available\(\)[^\n]{0,20}false")


def cluster_cuda_module_not_loaded(ent, text):
    """torch finding no usable CUDA where the text says the cluster's CUDA comes from a module: the process runs
    without that module loaded (a batch job, a workflow step, a kernel that does not inherit the shell's modules)."""
    tail = text[-CONTEXT_TAIL:]
    if "module " not in tail:
        return None
    mod = last_match(_MODULE_LOAD_CUDA, tail)
    bad = last_match(_NO_USABLE_CUDA, tail)
    if mod is None or bad is None:
        return None
    sig = _sig("cluster-cuda-module-not-loaded", "libraries",
               "no usable CUDA in a process started without the cluster's CUDA module ({mod})", 78,
               "On this cluster the CUDA libraries are provided by an environment module; a process that did not "
               "`module load {mod}` (a batch job, a workflow step such as Snakemake's or Nextflow's, a Jupyter kernel "
               "started by a service) has none on its library path, and torch or the program reports CUDA missing.",
               fix="Load the module where the work runs: `module load {mod}` in the job script (before python), in the "
                   "workflow step (Snakemake's `envmodules:`, Nextflow's `module` directive), or in the kernel's "
                   "startup; check with `module list` and `python -c \"import torch; print(torch.cuda.is_available())\"` "
                   "inside the job.",
               areas=("libraries",), sources=({"url": "https://lmod.readthedocs.io/en/latest/010_user.html",
                                               "what": "Lmod: modules set PATH and LD_LIBRARY_PATH for the shell that loads them"},))
    return _match(sig, text, len(text) - len(tail) + bad.start(), {"mod": mod.group("mod")})


# Slurm's value for CUDA_VISIBLE_DEVICES in a job that was allocated no GPU on a node with GPU gres: "NoDevFiles"
# (programs that parse the variable as indices fail on it; CUDA itself then sees no device)
_NO_DEV_FILES = re.compile(r"NoDevFiles")


def slurm_job_without_gpu(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NO_DEV_FILES, tail)
    if m is None:
        return None
    sig = _sig("slurm-job-without-gpu", "env", "the Slurm job was given no GPU (CUDA_VISIBLE_DEVICES=NoDevFiles)", 88,
               "Slurm sets CUDA_VISIBLE_DEVICES=NoDevFiles in a job step that was allocated no GPU: the job did not ask "
               "for one (no --gres=gpu / --gpus), so CUDA sees no device, and programs that read the variable as GPU "
               "indices fail on the word.",
               fix="Request GPUs for the job: `#SBATCH --gres=gpu:1` (or `--gpus=1`; srun/salloc take the same options, "
                   "and each srun step inside the job needs them too); for a job meant to run on the CPU, `unset "
                   "CUDA_VISIBLE_DEVICES` before starting the program.",
               causes=(), areas=("driver",), sources=({"url": "https://slurm.schedmd.com/gres.html",
                                                       "what": "Slurm: generic resources (GPUs) and the CUDA_VISIBLE_DEVICES it sets"},
                                                      {"url": "https://github.com/ray-project/ray/issues/6978",
                                                       "what": "CUDA_VISIBLE_DEVICES=NoDevFiles under Slurm"}))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch's own words around the CUDA device list: an ordinal outside CUDA_VISIBLE_DEVICES (torch.cuda's NVML-based
# queries, "device N is not visible (CUDA_VISIBLE_DEVICES=...)"), and NVML's driver-not-loaded behind torch.cuda's
# NVML queries ("cuda driver can't be loaded, is cuda enabled?")
_NOT_VISIBLE = re.compile(r"device (?P<dev>\d{1,3}) is not visible \((?P<var>CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES)="
                          r"(?P<value>[^)\n]{0,80})\)")
_NVML_NO_DRIVER = re.compile(r"cuda driver can't be loaded, is cuda enabled\?")


def device_outside_visible_devices(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NOT_VISIBLE, tail)
    if m is not None:
        sig = _sig("device-not-in-visible-devices", "env", "GPU {dev} is not among {var}={value}", 84,
                   "{var} renumbers the GPUs a process sees from 0: with {var}={value} the program asked for device {dev}, "
                   "which is not in that list.",
                   fix="Use device indices counted within {var} (with {var}={value} the first listed GPU is cuda:0), or "
                       "set {var} to include the GPU before the program starts (`export {var}=...`), never after CUDA "
                       "has started.",
                   causes=(), areas=("driver",), sources=({"url": "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars",
                                                           "what": "CUDA_VISIBLE_DEVICES renumbers the visible devices"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {k: m.group(k) for k in ("dev", "var", "value")})
    m = last_match(_NVML_NO_DRIVER, tail)
    if m is None:
        return None
    sig = _sig("nvml-driver-not-loaded", "driver", "NVML finds no NVIDIA driver loaded", 80,
               "torch.cuda's NVML queries (memory, utilization, the device list under some settings) start NVML, which "
               "reports the NVIDIA kernel driver not loaded: no driver, a driver broken by a kernel update, or a "
               "container started without the GPU.",
               fix="Check `nvidia-smi` on this machine: install or repair the NVIDIA driver (rebuild its module with dkms "
                   "after a kernel update, then reboot); in a container start it with `--gpus all`.",
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/deploy/nvml-api/index.html",
                         "what": "NVML: NVML_ERROR_DRIVER_NOT_LOADED"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# DKMS building the NVIDIA kernel module for a (new) kernel, and what follows when it fails: no nvidia module for that
# kernel ("module not found: 'nvidia'" from mkinitcpio/dracut, modprobe's "Module nvidia not found")
_DKMS_FAILED = re.compile(r"Bad return status for module build on kernel: (?P<kernel>\S{3,80})|"
                          r"Error! (?:Your kernel headers for kernel (?P<kernel2>\S{3,80}) cannot be found|"
                          r"The /lib/modules/(?P<kernel3>[^/\s]{3,80})/build link)")
_MODULE_MISSING = re.compile(r"module not found: '?(?P<mod>nvidia(?:_modeset|_uvm|_drm|-current)?)'?|"
                             r"modprobe: FATAL: Module (?P<mod2>nvidia(?:[-_](?:uvm|current|drm|modeset))?) not found")


def kernel_module_not_built(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "nvidia" not in tail.lower():
        return None
    m = last_match(_DKMS_FAILED, tail)
    missing = last_match(_MODULE_MISSING, tail)
    if m is None and missing is None:
        return None
    kernel = (m.group("kernel") or m.group("kernel2") or m.group("kernel3")) if m else None
    if m is None and not re.search(r"(?i)kernel|dkms|upgrad|update", tail):
        return None  # a missing module alone, with no kernel change in sight: other readings (no driver) answer
    first = m if m is not None else missing
    sig = _sig("nvidia-module-not-built-for-kernel", "driver",
               "the NVIDIA kernel module is not built for the kernel{kernel| that runs}", 84,
               "The NVIDIA driver's kernel module is compiled (by DKMS, or the distribution's kmod packages) for each "
               "installed kernel. For {kernel|the new kernel} that build failed or never ran, so that kernel has no "
               "nvidia module: nvidia-smi and CUDA fail after booting it, while the previous kernel still works. The "
               "usual reasons are missing headers for that kernel and a driver branch too old to build against it.",
               fix="Read DKMS's make.log (/var/lib/dkms/nvidia/<version>/build/make.log) for the first error. Install the "
                   "headers of that kernel (Debian/Ubuntu: `sudo apt install linux-headers-{kernel|$(uname -r)}`; Fedora: "
                   "kernel-devel; Arch: linux-headers) and rebuild (`sudo dkms autoinstall`, or reinstall the driver "
                   "package); if the driver branch does not support that kernel (a legacy branch on a much newer "
                   "kernel), install a newer branch for your GPU, or boot the previous kernel until one exists.",
               causes=(("no-driver", "no NVIDIA driver is loaded", ("TE301",)),), areas=("driver",),
               sources=({"url": "https://github.com/dell/dkms",
                         "what": "DKMS: rebuilds out-of-tree kernel modules (the NVIDIA driver's) for each kernel"},
                        {"url": "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/",
                         "what": "NVIDIA's Linux install guide: the kernel headers the driver's module needs"}))
    return _match(sig, text, len(text) - len(tail) + first.start(), {"kernel": kernel})


# A GPU in MIG mode is split into instances a CUDA process enumerates one of: NVIDIA's MIG user guide ("CUDA
# applications ... only one MIG instance" per process through CUDA_VISIBLE_DEVICES).  MIG devices carry their profile
# in the name (A100-SXM4-80GB MIG 3g.40gb) and MIG- in their UUID
_MIG_DEVICE = re.compile(r"\bMIG[- ]\d{1,2}g\.\d{1,3}gb\b|\bMIG-[0-9a-f]{8}-[0-9a-f]{4}|\bMIG-GPU-|\bMIG mode\b")
_DEVICE_INDEX = re.compile(r"device >= 0 && device < num_gpus|invalid device ordinal|CUDA_ERROR_INVALID_DEVICE|"
                           r"cudaErrorInvalidDevice|device_count\(\)\)?[^\n]{0,40}\n?[^\n]{0,20}\b1\b")


def mig_instances_in_one_process(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "MIG" not in tail:
        return None
    mig = _MIG_DEVICE.search(tail)
    m = last_match(_DEVICE_INDEX, tail)
    if mig is None or m is None:
        return None
    sig = _sig("mig-one-instance-per-process", "env", "a CUDA process sees one MIG instance: the program asked for more", 86,
               "The GPU runs in MIG mode: it is split into instances, and a CUDA process enumerates only one of them "
               "(the first it is given), whatever CUDA_VISIBLE_DEVICES lists. A program that asks for a second device "
               "(DDP or DataParallel over two slices, devices=2, cuda:1) finds an index past the one device it has.",
               fix="Give each process one MIG instance: `nvidia-smi -L` lists their UUIDs (MIG-...); start one process "
                   "per instance with `CUDA_VISIBLE_DEVICES=MIG-<uuid>` and use cuda:0 in each (torchrun: one rank per "
                   "instance, each with its own CUDA_VISIBLE_DEVICES); for one process on more GPU, use a larger MIG "
                   "profile or turn MIG off (`sudo nvidia-smi -mig 0`).",
               areas=("gpu",),
               sources=({"url": "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html",
                         "what": "NVIDIA MIG user guide: CUDA applications and MIG devices, CUDA_VISIBLE_DEVICES"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# The NVIDIA installer's own words when the module it built does not load (nvidia-installer): the causes it lists are
# the kernel it was built for, nouveau holding the GPU, an unsupported GPU; a kernel with Secure Boot on refuses an
# unsigned module ("Key was rejected by service" in dmesg/modprobe) and is the commonest on current distributions
_INSTALLER_NO_LOAD = re.compile(r"Unable to load the kernel module '?nvidia(?:-drm|-modeset|-uvm)?\.ko'?")
_SECURE_BOOT = re.compile(r"(?i)secure ?boot|Key was rejected by service|mokutil|lockdown")


def installer_module_not_loaded(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_INSTALLER_NO_LOAD, tail)
    if m is None:
        return None
    secure = _SECURE_BOOT.search(tail) is not None
    sig = _sig("installer-module-not-loaded", "driver", "the NVIDIA installer built its kernel module, which did not load" +
               (" (Secure Boot)" if secure else ""), 84,
               ("With Secure Boot on, the kernel loads only modules signed by a key it trusts: the module the installer "
                "just built is unsigned (or signed by a key not enrolled), so loading it is refused. " if secure else "") +
               "The installer's message names the other causes: the module built against other kernel sources than "
               "the running kernel's, nouveau holding the GPU, or a GPU this driver release does not support.",
               fix="Find which in `sudo dmesg | tail` and `mokutil --sb-state`: with Secure Boot enabled, sign the module "
                   "(the distribution's signed driver packages or DKMS with an enrolled MOK key: `sudo mokutil --import "
                   "/var/lib/dkms/mok.pub`, then reboot and enroll it; nvidia-installer --module-signing-secret-key/"
                   "--module-signing-public-key) or turn Secure Boot off; otherwise install the headers of the running "
                   "kernel (`linux-headers-$(uname -r)`), blacklist nouveau, and use a driver release that lists the GPU.",
               areas=("driver",),
               sources=({"url": "https://download.nvidia.com/XFree86/Linux-x86_64/535.161.07/README/installdriver.html",
                         "what": "NVIDIA driver README: installing the driver, module signing for Secure Boot"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# DKMS' own error for a module version whose source tree is gone (a driver removed without `dkms remove`): every later
# `dkms status` / autoinstall stops at it, so no module is rebuilt for a new kernel
_DKMS_STALE = re.compile(r"Could not locate dkms\.conf file\.?\s{0,4}(?:File: (?P<path>/var/lib/dkms/(?P<mod>[\w.-]{1,40})/"
                         r"(?P<ver>[\w.-]{1,40})/source/dkms\.conf))?")


def dkms_stale_entry(ent, text):
    m, at = last_in_tail(_DKMS_STALE, text, "dkms.conf")
    if m is None:
        return None
    mod, ver = m.group("mod") or "nvidia", m.group("ver")
    sig = _sig("dkms-stale-entry", "driver", "DKMS holds a stale {mod} entry whose source is gone", 84,
               "DKMS keeps /var/lib/dkms/<module>/<version> for each module it builds; when a driver is removed without "
               "`dkms remove`, the entry stays without its source, and DKMS stops at it (\"Could not locate "
               "dkms.conf\"), so no NVIDIA module is rebuilt when the kernel changes.",
               fix="Remove the stale entry: `sudo dkms remove {mod}/{ver|<version>} --all` (or `sudo rm -rf "
                   "/var/lib/dkms/{mod}/{ver|<version>}`), then rebuild for the running kernel: `sudo dkms autoinstall` (or "
                   "reinstall the driver package), reboot, and check `nvidia-smi`.",
               areas=("driver",),
               sources=({"url": "https://github.com/dell/dkms/blob/master/README.md",
                         "what": "DKMS: the module tree under /var/lib/dkms and `dkms remove`"},))
    return _match(sig, text, at, {"mod": mod, "ver": ver})
