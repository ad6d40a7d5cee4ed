"""Layer rules for containers and WSL: a GPU not passed into a container, nvidia-container-cli's failures, WSL 2's
GPU passthrough, MPS asked for inside a Linux container on a Mac.

    wsl_gpu_passthrough  a GPU that cannot start, in a text from WSL       -> the Windows driver / WSL 2 (wsl layer)
    container_cli    nvidia-container-cli's stage and object          -> the image's driver files, the host driver's state,
                     rootless device cgroups, a driver error decoded at initialisation, /dev/nvidia-modeset
                     missing (capabilities the workload does not need)
    torch_too_new_for_intel_mac, mps_inside_linux_container  Mac structure -> 2.2.2 / run natively
    container_without_gpu  a GPU unreachable in a text from a container  -> --gpus all, or the devices it lost
    k8s_no_gpu_advertised  the scheduler finds no node with a free nvidia.com/gpu -> the device plugin, the runtime
    k8s_gpus_unhealthy   a node's Allocatable GPUs below its Capacity    -> the device plugin's health check, its log
    runtime_handler_missing  containerd/CRI-O's "no runtime for \"nvidia\" is configured" (a RuntimeClass nvidia) ->
                     register NVIDIA's runtime in the node's container runtime
    nvml_unloadable_in_plugin  go-nvml's "could not load NVML library" in a Kubernetes GPU component (the device plugin,
                     the GPU Operator's validators) -> the driver's libraries not given to its container
    nvidia_smi_missing_in_container  nvidia-smi not found in a container -> the NVIDIA runtime, --gpus all (podman: CDI)
    nvcc_missing_in_image  nvcc not found where the image's tag names its flavour -> the devel tag, or PATH in devel
    singularity_without_nv  the driver's libraries missing under Singularity/Apptainer -> --nv, or the host's driver
    cuda_image_tag_gone  docker cannot find an nvidia/cuda tag (load metadata, manifest unknown) -> a current tag
    container_runtime_reads_no_driver  nvidia-docker's "driver 0.0 < image X": the runtime read no driver version
    compose_gpu_devices_rejected  Compose's schema refusing 'devices' under deploy.resources -> docker-compose 1.28+
                     (Compose v2), or the devices moved under reservations
    image_for_another_cpu  Go's "exec format error" (runc, BuildKit's platform warning) -> an image built for the
                     host's CPU architecture (l4t images on Jetson, --platform)
    ngc_image_older_than_gpu  an NGC container's start-up check: "Detected NVIDIA X GPU, which is not yet supported in
                     this version of the container" -> arch: a release of that container whose CUDA builds the GPU"""

from __future__ import annotations

import re

from torch_envcheck.explain.match import last_match
from torch_envcheck.knowledge import gpu_generations
from torch_envcheck.explain.layer_rules.kit import (CONTEXT_TAIL, SOURCES, _WSL_SOURCE, _context,
    _match, _sig, last_in_tail)


_GPU_INIT_FAILURE = re.compile(
    r"cudaGetDeviceCount|cuInit|cuda driver library init|Failed to initialize NVML|couldn't communicate with the NVIDIA "
    r"driver|no CUDA-capable device|CUDA driver version is insufficient|cudaErrorInsufficientDriver|CUDA_ERROR_NO_DEVICE|"
    r"Function \"cu[A-Za-z]{3,40}\" not found|CUDA initialization|Found no NVIDIA driver|NVIDIA driver on your system|"
    # nvidia-smi's header when libcuda cannot say which CUDA the driver supports
    r"CUDA Version: ERR!|"
    # the runtime's words for a device it cannot use, which under WSL 2 is the Windows driver's paravirtualised GPU
    r"busy or unavailable|cudaErrorDevicesUnavailable|CUDA unknown error")


# A GPU row of nvidia-smi on Windows: "|   0  NVIDIA L40S   TCC   |": its driver model is TCC (compute only, no
# WDDM display driver) -- the model the Windows host cannot paravirtualize into WSL 2.
_SMI_TCC_ROW = re.compile(r"(?m)^\|\s{1,6}\d{1,2}\s{1,4}[^|\n]{2,60}?\s(?:TCC|MCDM)\s{1,12}\|")


_TCC_WORDS = re.compile(r"\bTCC (?:mode|driver model)\b|\bin TCC\b|driver model[^\n]{0,30}\bTCC\b")


def wsl_gpu_passthrough(ent, text):
    """A GPU that cannot be initialised in a text from WSL: the driver is the Windows host's (passed through to
    WSL 2 by /dev/dxg and /usr/lib/wsl/lib), so the fix is on Windows, not a Linux driver.  WSL 1 has no GPU."""
    # NVML's "blocked by the operating system" is the OS or cgroups keeping the process from the GPU's control
    # device (nvml.h): outside a container that is the host of a paravirtualised GPU, i.e. WSL 2 (or a GPU-PV VM)
    os_blocked = any(c["name"] == "NVML_ERROR_OPERATING_SYSTEM" for c in ent.codes) and \
        not ent.platform.get("container") and not ent.platform.get("windows")
    if not ent.platform.get("wsl") and not os_blocked:
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_GPU_INIT_FAILURE, tail)
    codes = [c for c in ent.codes if c.get("family") in ("cudaError_t", "CUresult", "nvmlReturn_t")
             and c.get("layer") == "driver"]
    tcc = _SMI_TCC_ROW.search(tail) or _TCC_WORDS.search(tail)
    if m is None and not codes and tcc is None:
        return None
    if m is not None:
        at = len(text) - len(tail) + m.start()
    else:
        at = codes[-1]["at"] if codes else len(text) - len(tail) + tcc.start()
    # a data-center GPU under the TCC driver model (nvidia-smi's Driver-Model column) is never shared with WSL
    blocked = any(c["name"] == "NVML_ERROR_OPERATING_SYSTEM" for c in ent.codes) or tcc is not None
    if ent.platform.get("wsl1"):
        sig = _sig("wsl1-has-no-gpu", "wsl", "this is WSL 1, which has no GPU: CUDA needs WSL 2", 93,
                   "The kernel is WSL 1's (4.4.0-...-Microsoft): WSL 1 translates system calls and passes no GPU through; "
                   "only WSL 2 gets the Windows driver's GPU (/dev/dxg, /usr/lib/wsl/lib).",
                   fix="Convert the distribution to WSL 2 (`wsl --set-version <distro> 2`, `wsl --set-default-version 2`), "
                       "keep the Windows NVIDIA driver current, and do not install a Linux NVIDIA driver inside it.",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    elif blocked:
        sig = _sig("wsl-gpu-not-exposed", "wsl", "the Windows host does not expose the GPU to WSL (GPU access blocked)", 93,
                   "NVML_ERROR_OPERATING_SYSTEM under WSL: the guest sees no usable GPU because the Windows driver does not "
                   "paravirtualize it: data-center GPUs in TCC mode (the default on Windows Server), a driver without WSL "
                   "support, or (in a GPU-PV VM) driver files missing from /usr/lib/wsl/lib.",
                   fix="On the Windows host put the GPU in WDDM mode (`nvidia-smi -i 0 -dm 0` as administrator, reboot; "
                       "TCC cannot be shared with WSL), use a Windows NVIDIA driver that supports WSL, run `wsl --update` "
                       "and `wsl --shutdown`; a custom WSL kernel must include the GPU paravirtualisation driver "
                       "(dxgkrnl, which provides /dev/dxg): use the stock WSL kernel otherwise; in a GPU-PV VM copy the "
                       "host driver's files into /usr/lib/wsl/lib.",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    else:
        sig = _sig("wsl-gpu-init-failed", "wsl", "CUDA cannot start under WSL 2: the GPU comes from the Windows driver", 91,
                   "Under WSL 2 there is no Linux kernel driver: libcuda in /usr/lib/wsl/lib talks to the Windows NVIDIA "
                   "driver through /dev/dxg. A GPU that cannot be initialised there is a Windows driver problem (too old, "
                   "or a release whose WSL support is broken), a Linux driver installed inside WSL shadowing "
                   "/usr/lib/wsl/lib, or an outdated WSL kernel.",
                   fix="Update (or roll back) the Windows NVIDIA driver, run `wsl --update` then `wsl --shutdown`; never "
                       "install a Linux NVIDIA driver inside WSL (remove nvidia-driver-*/libnvidia-* packages there), and "
                       "keep /usr/lib/wsl/lib first for libcuda (`export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH`).",
                   areas=("platform", "driver"), sources=(_WSL_SOURCE,))
    return _match(sig, text, at, {})


# nvidia-container-cli names the stage that failed ("<stage> error: <detail>"); the detail's object says whose
# state it is: a file the runtime mounts from the host already in the image, the host driver's /proc entries
# (stale after a driver update without reboot), or the driver and its libraries of different versions.
_CONTAINER_CLI = re.compile(r"nvidia-container-cli: (?P<stage>[a-z]{3,20}) error: (?P<detail>[^\n]{0,600})")


_CLI_FILE_EXISTS = re.compile(r"file creation failed: \S{1,400}?(?P<file>/(?:usr/)?(?:s?bin|lib\w{0,20})/[^\s:]{1,200}|"
                              r"/run/nvidia[^\s:]{0,200}): file exists")


_CLI_PROC_DRIVER = re.compile(r"(?:mount|stat) (?:operation )?failed: \S{0,400}?/proc/driver/nvidia")


_CLI_MISMATCH = re.compile(r"driver/library version mismatch")


_CLI_NOT_LOADED = re.compile(r"nvml error: driver not loaded|driver not loaded")


# nvidia-container-cli's device cgroup step: cgroup v1 "failed to add device rules: unable to find any existing device
# filters", cgroup v2 "bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted"
_CLI_DEVICE_RULES = re.compile(r"failed to add device rules|bpf_prog_query\(BPF_CGROUP_DEVICE\) failed|"
                               r"unable to find any existing device filters")
# its initialisation errors carry the library's own description: "cuda error: unknown error", "nvml error: ..."
_CLI_API_ERROR = re.compile(r"\b(?P<api>cuda|nvml) error: (?P<what>[^\n\\\"]{3,160})")
# the display side's device node, which nvidia-container-cli mounts unless told otherwise (its no-modeset option)
_CLI_MODESET = re.compile(r"(?:stat|mount) (?:operation )?failed: \S{0,200}?/dev/nvidia-modeset")
_CAPS_SOURCE = {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
                "what": "NVIDIA_DRIVER_CAPABILITIES: compute, utility, graphics, display, all"}
_ROOTLESS_SOURCE = {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
                    "what": "NVIDIA Container Toolkit install guide: rootless mode, nvidia-container-cli.no-cgroups"}

_RUNTIME_EXE_MISSING = re.compile(r"(?:exec: \\{0,3}\"?|fork/exec \S{0,200}/)(?P<exe>nvidia-container-runtime(?:-hook)?)"
                                  r"\\{0,3}\"?: (?:executable file not found|no such file or directory)")


def container_cli(ent, text):
    """The NVIDIA container toolkit's own failures, read by the stage it names and the object of its detail."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CONTAINER_CLI, tail)
    src = ({"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/troubleshooting.html",
            "what": "NVIDIA Container Toolkit troubleshooting"},)
    if m is None and "nvidia-container-cli" in tail:
        # the tool named, its stage line broken by the paste (a wrapped terminal, escaped JSON): the object of the
        # failure still says what it is
        f = _CLI_FILE_EXISTS.search(tail)
        if f is not None:
            m = f
    if m is None:
        exe = _RUNTIME_EXE_MISSING.search(tail)
        if exe is None:
            return None
        sig = _sig("container-runtime-executable-missing", "container",
                   "docker is configured for the NVIDIA runtime but {exe} is not installed", 88,
                   "The engine's configuration (daemon.json, --runtime=nvidia) names the NVIDIA runtime, but its "
                   "executable {exe} is not on the host: the NVIDIA Container Toolkit is missing or half removed.",
                   fix="Install the NVIDIA Container Toolkit (package nvidia-container-toolkit), register it with "
                       "`sudo nvidia-ctk runtime configure --runtime=docker` and restart docker; or run with `--gpus all` "
                       "once the toolkit is installed.", areas=("driver",), sources=src)
        return _match(sig, text, len(text) - len(tail) + exe.start(), {"exe": exe.group("exe")})
    detail = m.group("detail") if "detail" in m.re.groupindex else m.group(0)
    at = len(text) - len(tail) + m.start()
    f = _CLI_FILE_EXISTS.search(detail)
    if f is not None:
        sig = _sig("container-image-has-driver-files", "container",
                   "the image already contains {file}, which the NVIDIA runtime mounts from the host", 89,
                   "The NVIDIA container runtime mounts the host driver's programs and libraries (nvidia-smi, "
                   "libnvidia-*, libcuda) into the container; an image that ships its own copy of one makes the mount "
                   "fail with 'file exists'. Driver files do not belong in an image: they must match the host's driver.",
                   fix="Rebuild the image without NVIDIA driver files (remove the driver packages / {file} from the "
                       "image: use an nvidia/cuda base image, which has none), so the runtime mounts the host's driver.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {"file": f.group("file")})
    if _CLI_MISMATCH.search(detail) or _CLI_PROC_DRIVER.search(detail):
        sig = _sig("container-host-driver-stale", "driver",
                   "the host's NVIDIA driver state is stale: the container runtime cannot read it", 88,
                   "The container toolkit reads the host's loaded driver (/proc/driver/nvidia, NVML); after a driver "
                   "update without a reboot the loaded kernel module and the installed libraries differ, so its "
                   "entries are missing or mismatched.",
                   fix="Reboot the host (or unload and reload the nvidia kernel modules: `sudo rmmod nvidia_uvm "
                       "nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`), then check `nvidia-smi` on the host.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {})
    if _CLI_DEVICE_RULES.search(detail):
        sig = _sig("container-cli-device-cgroups", "container",
                   "nvidia-container-cli cannot set the container's device cgroup rules (rootless or cgroup v2)", 88,
                   "nvidia-container-cli adds the GPU device nodes to the container's device cgroup; a rootless engine "
                   "(rootless Docker or Podman) may not change device cgroups, and under cgroup v2 the rules are BPF "
                   "programs only root may attach, so the hook fails before the container starts.",
                   fix="For a rootless engine turn the toolkit's cgroup handling off: `sudo nvidia-ctk config --set "
                       "nvidia-container-cli.no-cgroups --in-place` (no-cgroups = true in "
                       "/etc/nvidia-container-runtime/config.toml; a rootful Docker on the same host then needs the "
                       "devices passed itself), or use CDI (`sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`, "
                       "`--device nvidia.com/gpu=all`), which needs no cgroup edit.",
                   areas=("driver",), sources=src + (_ROOTLESS_SOURCE,))
        return _match(sig, text, at, {})
    if _CLI_MODESET.search(detail):
        sig = _sig("container-cli-modeset-node-missing", "container",
                   "the container asks for /dev/nvidia-modeset, which the host does not have", 86,
                   "nvidia-container-cli mounts the driver's device nodes for the capabilities the container asks for "
                   "(NVIDIA_DRIVER_CAPABILITIES, set by the image or the run); /dev/nvidia-modeset, the display "
                   "side's node, exists only where the nvidia-modeset module is loaded, which compute servers often "
                   "do not, so an image asking for display (or all) capabilities cannot start there.",
                   fix="Ask only for what the workload needs: `-e NVIDIA_DRIVER_CAPABILITIES=compute,utility` (enroot: "
                       "`--env NVIDIA_DRIVER_CAPABILITIES=compute,utility`, or the image's environment); or create the "
                       "node on the host (`sudo modprobe nvidia-modeset`, `sudo nvidia-modprobe -m`).",
                   areas=("driver",), sources=src + (_CAPS_SOURCE,))
        return _match(sig, text, at, {})
    decoded = _CLI_API_ERROR.search(detail)
    # ("load library failed: libnvidia-ml.so.1", the host without a driver, is the catalogue's sentence)
    if decoded is not None and not _CLI_NOT_LOADED.search(detail):
        sig = _sig("container-cli-host-driver-error", "driver",
                   "the host's driver failed when the container toolkit initialised it ({api} error: {what})", 86,
                   "nvidia-container-cli initialises the host's driver ({api_name}) before the container starts; "
                   "\"{what}\" is that library's own error, on the host, not in the image: the host's NVIDIA driver is "
                   "in a bad state (after an update without a reboot, a suspend/resume, a GPU that fell off the bus) "
                   "or not working at all.",
                   fix="Check `nvidia-smi` on the host and `sudo dmesg | grep -iE 'nvrm|xid'`; reboot the host (or "
                       "reload the modules: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm`), and reinstall the "
                       "driver if nvidia-smi still fails.",
                   areas=("driver",), sources=src)
        api = decoded.group("api")
        return _match(sig, text, at, {"api": api, "api_name": "CUDA's driver API" if api == "cuda" else "NVML",
                                      "what": decoded.group("what").strip().rstrip(":")})
    if _CLI_NOT_LOADED.search(detail):
        sig = _sig("container-host-driver-not-loaded", "driver",
                   "the container toolkit finds no NVIDIA driver loaded on the host", 88,
                   "nvidia-container-cli asks the host's NVML for the GPUs; 'driver not loaded' means the host has no "
                   "NVIDIA kernel module loaded.",
                   fix="Install the NVIDIA driver on the host (or load it: `sudo modprobe nvidia`; rebuild it with dkms "
                       "after a kernel update), reboot, and check `nvidia-smi` on the host first.",
                   areas=("driver",), sources=src)
        return _match(sig, text, at, {})
    return None


def _version_key(v: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d{1,4}", v)[:3])


# Docker Desktop runs Linux containers in a VM whose kernel is named "-linuxkit": on a Mac, a Linux container
# sees no Apple GPU (MPS is macOS's Metal, not passed through)
_LINUXKIT = re.compile(r"\d\.\d{1,2}\.\d{1,3}-linuxkit\b")


_MPS_ASKED = re.compile(r"\bmps\b|\bMPS\b")


def mps_inside_linux_container(ent, text):
    tail = text[-CONTEXT_TAIL:]
    k = _LINUXKIT.search(tail)
    if k is None or _MPS_ASKED.search(tail) is None:
        return None
    sig = _sig("mps-in-linux-container", "macos", "MPS (the Mac's GPU) is not available inside a Linux container", 84,
               "The kernel is Docker Desktop's Linux VM (linuxkit): the process runs Linux, not macOS. MPS is torch's "
               "backend for Metal, which only macOS has; Docker Desktop passes no Apple GPU into its Linux VM.",
               fix="Run the program natively on macOS (an arm64 Python with `pip install torch`, device 'mps'); inside the "
                   "Linux container only the CPU is available.",
               areas=("platform",), sources=({"url": "https://pytorch.org/docs/stable/notes/mps.html",
                                              "what": "MPS: torch's GPU backend on macOS (Metal)"},))
    return _match(sig, text, len(text) - len(tail) + k.start(), {})


# A GPU the process cannot reach at all: no device, no kernel driver answering, NVML refusing to start.
_NO_GPU_HERE = re.compile(r"no CUDA-capable device is detected|CUDA_ERROR_NO_DEVICE|couldn't communicate with the NVIDIA "
                          r"driver|/proc/driver/nvidia/version does not exist|kernel driver does not appear to be running|"
                          r"Failed to initialize NVML: Unknown Error|Found no NVIDIA driver on your system|"
                          # CUDA's unknown error from cuInit in a container whose GPU was passed in: its device nodes
                          # were taken away afterwards (the same cgroup reset), most often seen in Kubernetes pods
                          r"CUDA unknown error|"
                          # torch's own words for no device (autocast's warning, is_available()), in a container text
                          r"device_type of 'cuda', but CUDA is not available|cuda\.is_available\(\)[^\n]{0,40}?\bFalse\b")


# the runtime did pass the GPU in: a --gpus flag, the NVIDIA runtime, nvidia-docker
_GPU_PASSED = re.compile(r"--gpus[ =]|--runtime[ =]nvidia|nvidia-docker|NVIDIA_VISIBLE_DEVICES|--device[ =]nvidia\.com/gpu")


_CGROUP_RELOAD = re.compile(r"daemon-reload|systemctl (?:restart|reload)|cgroup")


def container_without_gpu(ent, text):
    """A GPU that cannot be reached in a text from a container: the container runtime decides what the container
    sees (the host's driver and device nodes are mounted in when it starts with the GPU), so the answer is the
    runtime's, not a driver to install inside.  When the GPU was passed and is lost later (NVML "Unknown Error"
    after systemd reloaded its units), the container lost its device permissions."""
    if not ent.platform.get("container") and not _context(text, r"\(container\)|inside (?:the|a|my) container"):
        return None
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_NO_GPU_HERE, tail)
    if m is None:
        return None
    at = len(text) - len(tail) + m.start()
    # NVML's "Unknown Error" needs nvidia-smi and libnvidia-ml inside the container, which only the NVIDIA runtime
    # mounts when the container starts with a GPU: the GPU was passed in and its device nodes were lost afterwards
    lost = _CGROUP_RELOAD.search(tail) is not None or "Unknown Error" in m.group(0) or "unknown error" in m.group(0)
    if lost:
        sig = _sig("container-lost-gpu-devices", "container",
                   "the running container lost access to its GPU (its device permissions were reset)", 86,
                   "The container was started with the GPU, then lost it: when systemd reloads its units (systemctl "
                   "daemon-reload, a package upgrade), it rewrites the container's cgroup device rules and drops the "
                   "NVIDIA device nodes the runtime had allowed; NVML then fails with \"Unknown Error\".",
                   fix="Recreate (restart) the container to get the GPU back (Kubernetes: delete the pod so it is "
                       "scheduled again, and restart the NVIDIA device plugin's pod on that node); to keep it across "
                       "reloads, create the "
                       "/dev/char symlinks on the host (`sudo nvidia-ctk system create-dev-char-symlinks --create-all`, "
                       "and its udev rule) or run with the cgroupfs driver, as the NVIDIA Container Toolkit's "
                       "troubleshooting page says.",
                   areas=("driver",), sources=({"url": "https://github.com/NVIDIA/nvidia-container-toolkit/issues/48",
                                                 "what": "containers lose GPU access after systemctl daemon-reload"},))
        return _match(sig, text, at, {})
    sig = _sig("container-started-without-gpu", "container", "the container has no GPU: it was started without one", 85,
               "Inside a container the NVIDIA driver is the host's: the NVIDIA Container Toolkit mounts its libraries and "
               "device nodes when the container starts with a GPU. Started without one, the container sees no driver "
               "and no device, whatever is installed in the image.",
               fix="Start the container with the GPU: `docker run --gpus all ...` (Compose: `deploy.resources."
                   "reservations.devices` with capabilities [gpu]; Kubernetes: the nvidia.com/gpu resource), after "
                   "installing the NVIDIA Container Toolkit on the host (nvidia-container-toolkit, then `sudo nvidia-ctk "
                   "runtime configure --runtime=docker` and restart docker). Never install a driver inside the image.",
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),),
               areas=("driver",), sources=(SOURCES["container_toolkit"],))
    return _match(sig, text, at, {})


# CDI (the Container Device Interface) names a GPU as nvidia.com/gpu=<n|all>, resolved through a spec file (in
# /etc/cdi or /var/run/cdi) that nvidia-ctk generates from the host's driver and devices; podman before 4.1 knows no CDI
# and takes the name for a path
_CDI_FAILS = re.compile(r"unresolvable CDI devices?|failed to (?:inject|stat) CDI (?:host )?devices?|"
                        r"CDI device[^\n]{0,60}(?:not found|unresolvable|failed)|"
                        r"stat nvidia\.com/gpu=[\w,-]{1,20}: no such file or directory")


def cdi_device_unresolved(ent, text):
    """A CDI device the runtime cannot resolve or inject: no spec for nvidia.com/gpu (never generated, or in a folder
    the runtime does not read), a spec that names devices the host no longer has (generated before a driver upgrade
    or a device change), or a runtime without CDI (podman before 4.1)."""
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_CDI_FAILS, tail)
    if m is None:
        return None
    sig = _sig("cdi-device-unresolved", "container", "the container runtime cannot resolve the CDI device for the GPU", 84,
               "CDI (the Container Device Interface) gives containers the GPU as nvidia.com/gpu=..., resolved through "
               "a spec file that the NVIDIA Container Toolkit generates from the host's driver and devices. The "
               "runtime found no spec for that name, or a stale one (made before a driver upgrade or a device "
               "change), or it does not support CDI at all (podman before 4.1 treats the name as a path).",
               fix="Regenerate the CDI spec on the host: `sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml` "
                   "(again after every driver upgrade or device change), check it with `nvidia-ctk cdi list`, and run "
                   "with `--device nvidia.com/gpu=all`. The runtime must read that folder (podman: /etc/cdi and "
                   "/var/run/cdi, or --cdi-spec-dir for another) and support CDI: podman 4.1 or newer, Docker 25+ with "
                   "CDI enabled, or the nvidia-container-runtime in cdi mode.",
               causes=(("cdi-spec", "no CDI spec, or one stale for the host's driver and devices", ("TE309",)),),
               areas=("driver",), sources=({"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/"
                                                   "latest/cdi-support.html",
                                            "what": "CDI: nvidia-ctk cdi generate, the spec folders, podman 4.1+"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# The Kubernetes scheduler's reason when no node can give a pod the extended resource it requests: "0/3 nodes are
# available: 3 Insufficient nvidia.com/gpu" (amd.com/gpu for AMD's device plugin).  A node advertises GPUs only through
# its device plugin, which needs the NVIDIA container runtime as the node's default runtime.
_K8S_INSUFFICIENT_GPU = re.compile(r"(?P<n>\d{1,5}) Insufficient (?P<res>nvidia\.com/gpu|amd\.com/gpu)")


def k8s_no_gpu_advertised(ent, text):
    """No node offers the GPU resource a pod asks for: the device plugin is not advertising GPUs (not deployed, or the
    node's container runtime is not NVIDIA's, so the plugin sees no GPU), or every GPU is already allocated."""
    m, at = last_in_tail(_K8S_INSUFFICIENT_GPU, text, "Insufficient")
    if m is None:
        return None
    amd = m.group("res").startswith("amd")
    sig = _sig("k8s-gpu-not-advertised", "container",
               "no Kubernetes node offers a free {resource} (Insufficient {resource})", 83,
               "The scheduler found no node with a free {resource}. A node offers GPUs only through its device "
               "plugin: when the plugin is not running, or the node's container runtime cannot see the GPU (the "
               "plugin finds none), the node advertises zero; when the GPUs are all allocated to other pods, the "
               "count is exhausted.",
               fix=("Check `kubectl describe node <node>`: Capacity and Allocatable must list " + m.group("res") + ". "
                    "If they do not, " + ("deploy AMD's GPU device plugin (k8s-device-plugin) on ROCm nodes and check "
                                          "its pod's logs." if amd else
                                          "deploy the NVIDIA device plugin (or the GPU Operator) and check its pod's "
                                          "logs; the node's runtime must give containers the GPU: configure it with "
                                          "`sudo nvidia-ctk runtime configure --runtime=containerd` (docker: set "
                                          "\"default-runtime\": \"nvidia\" in /etc/docker/daemon.json), restart the "
                                          "runtime and the plugin.") +
                    " If they do, the GPUs are taken: lower the pod's request or free a GPU."),
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),), areas=("driver",),
               sources=({"url": "https://github.com/NVIDIA/k8s-device-plugin#quick-start",
                         "what": "the NVIDIA device plugin: nvidia as the default runtime, the plugin's DaemonSet"},
                        {"url": "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/",
                         "what": "Kubernetes schedules GPUs as extended resources advertised by device plugins"}))
    return _match(sig, text, at, {"resource": m.group("res")})


# A node's status, as `kubectl get node -o yaml` or `kubectl describe node` prints it: Capacity counts the GPUs the
# device plugin found, Allocatable only those it reports healthy (the plugin's health checks mark a GPU unhealthy on
# its critical Xid events: internal/rm/health.go).  Capacity above Allocatable for the GPU resource is the plugin's
# verdict, not a scheduling shortage.
_K8S_SECTION = re.compile(r"(?im)^(?P<indent>[ \t]{0,12})(?P<sec>capacity|allocatable)[ \t]{0,2}:[ \t]{0,2}\n"
                          r"(?P<body>(?:(?P=indent)[ \t]{1,8}[^\n]{0,120}\n?){1,24})")
_K8S_GPU_COUNT = re.compile(r"(?P<res>nvidia\.com/gpu|amd\.com/gpu)[\"']?[ \t]{0,4}:[ \t]{0,24}[\"']?(?P<n>\d{1,5})\b")


def _k8s_counts(tail: str) -> dict:
    out = {}
    for m in _K8S_SECTION.finditer(tail):
        c = _K8S_GPU_COUNT.search(m.group("body"))
        if c is not None:
            out[m.group("sec").lower()] = (int(c.group("n")), c.group("res"), m.start())
    return out


def k8s_gpus_unhealthy(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "gpu" not in tail or not re.search(r"(?i)allocatable", tail):
        return None
    counts = _k8s_counts(tail)
    if "capacity" not in counts or "allocatable" not in counts:
        return None
    cap, res, _ = counts["capacity"]
    alloc, _, at = counts["allocatable"]
    if not cap or alloc >= cap:
        return None
    sig = _sig("k8s-gpus-unhealthy", "container",
               "the node has {cap} {resource} but offers {alloc}: the device plugin marked the rest unhealthy", 84,
               "A node's Capacity counts the GPUs its device plugin found and Allocatable only those the plugin "
               "reports healthy: {cap} against {alloc} means the plugin's health check marked GPUs unhealthy (the "
               "NVIDIA plugin does so on a GPU's critical Xid events, or when it cannot wait for NVML's events), and "
               "the scheduler will not place pods on them.",
               fix="Read the device plugin pod's log on that node (`kubectl logs -n <namespace> <nvidia-device-plugin "
                   "pod>`: it names the GPU and the Xid) and the host's `nvidia-smi` and `dmesg | grep -i xid`. A GPU "
                   "with a hardware Xid needs a reset or service; once the cause is cleared, restart the plugin pod so "
                   "it re-registers the GPUs. Xids known to be harmless on a platform can be ignored through the "
                   "plugin's DP_DISABLE_HEALTHCHECKS variable (a list of Xids).",
               areas=("driver",),
               sources=({"url": "https://github.com/NVIDIA/k8s-device-plugin/blob/a9e8bafe61c59ac43521fd83226e1bb946f30014/"
                                "internal/rm/health.go",
                         "what": "the NVIDIA device plugin's health checks: Xid events mark a GPU unhealthy; "
                                 "DP_DISABLE_HEALTHCHECKS"},
                        {"url": "https://kubernetes.io/docs/reference/node/node-status/#capacity",
                         "what": "Kubernetes: a node's capacity and allocatable resources"}))
    return _match(sig, text, len(text) - len(tail) + at, {"cap": cap, "alloc": alloc, "resource": res})


# nvidia-smi is not part of any CUDA image: the NVIDIA Container Toolkit mounts the host's copy when the container
# gets a GPU, so "executable file not found" for it means the container started without one
_SMI_NOT_IN_CONTAINER = re.compile(r"exec:\s{0,4}\\?\"?nvidia-smi\\?\"?: executable file not found in \$PATH|"
                                   r"\\?\"nvidia-smi\\?\": executable file not found in \$PATH|"
                                   r"nvidia-smi: (?:command )?not found|executable file [`'\"]nvidia-smi[`'\"] not found")
_PODMAN = re.compile(r"\bpodman\b|\bcrun:")
# (": unknown" closes the OCI runtime's (runc's) errors, which quote the command as Go's exec.LookPath does)
_CONTAINER_RUN = re.compile(r"\bdocker run\b|\bpodman run\b|\bkubectl\b|\bOCI runtime\b|container_linux\.go|/\.dockerenv|"
                            r"executable file not found in \$PATH: unknown|"
                            r"\bcrun:")


def nvidia_smi_missing_in_container(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "nvidia-smi" not in tail:
        return None
    m = last_match(_SMI_NOT_IN_CONTAINER, tail)
    if m is None or not (_CONTAINER_RUN.search(tail) or ent.platform.get("container")):
        return None
    if _PODMAN.search(tail):
        sig = _sig("podman-without-cdi", "container", "nvidia-smi is not in the podman container: no GPU was injected", 83,
                   "CUDA images do not contain nvidia-smi or the driver's libraries: they are injected from the host "
                   "when the container gets a GPU. Podman gives a container GPUs through CDI (the Container Device "
                   "Interface); its --gpus option is Docker's, kept for compatibility, and injected nothing here.",
                   fix="Generate the CDI spec on the host (`sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`, "
                       "`nvidia-ctk cdi list` shows the names) and run with `podman run --device nvidia.com/gpu=all ...` "
                       "(rootless podman: add `--security-opt=label=disable` on SELinux hosts).",
                   areas=("driver",),
                   sources=({"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html",
                             "what": "NVIDIA Container Toolkit: CDI support, podman --device nvidia.com/gpu=all"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {})
    sig = _sig("container-without-nvidia-runtime", "container",
               "nvidia-smi is not in the container: it was started without the NVIDIA runtime", 82,
               "CUDA images do not contain nvidia-smi or the driver's libraries: the NVIDIA Container Toolkit mounts "
               "the host's into the container when it starts with a GPU. Here nothing was mounted: the container was "
               "started without a GPU, or docker does not use the NVIDIA runtime (installed but not configured, or "
               "configured without restarting the daemon).",
               fix="Install the NVIDIA Container Toolkit on the host, configure docker's runtime (`sudo nvidia-ctk "
                   "runtime configure --runtime=docker`, which writes the nvidia runtime into /etc/docker/daemon.json; "
                   "Kubernetes nodes need it as \"default-runtime\"), restart docker (`sudo systemctl restart docker`) "
                   "and start the container with `--gpus all`.",
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),), areas=("driver",),
               sources=(SOURCES["container_toolkit"],))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# Singularity/Apptainer bind the host's driver libraries only with --nv (listed in nvliblist.conf, bound under
# /.singularity.d/libs, which the container's LD_LIBRARY_PATH names)
_SINGULARITY = re.compile(r"(?i)\bsingularity\b|\bapptainer\b|\.sif\b|\.simg\b|/\.singularity\.d")
_DRIVER_LIB_GONE = re.compile(r"(?:unable to find|cannot open|couldn't find|could not find)[^\n]{0,40}"
                              r"lib(?:cuda|nvidia-ml)\.so|Could not find any NVIDIA (?:binaries|libraries) on this host")


def singularity_without_nv(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if not _SINGULARITY.search(tail):
        return None
    m = last_match(_DRIVER_LIB_GONE, tail)
    if m is None:
        return None
    host = "on this host" in m.group(0)
    sig = _sig("singularity-driver-libraries", "driver" if host else "container",
               "the driver's libraries are not " + ("on the host where Singularity looks" if host else
                                                      "bound into the Singularity/Apptainer container"), 81,
               ("Singularity (Apptainer) with --nv looked for the NVIDIA driver's libraries and tools on the host "
                "(the files nvliblist.conf lists) and found none: the host has no NVIDIA driver installed, or it is "
                "installed where the loader cache does not list it." if host else
                "Singularity (Apptainer) binds the host's NVIDIA driver libraries into a container only when it runs "
                "with --nv (under /.singularity.d/libs, which the container's LD_LIBRARY_PATH names); without it, or "
                "after a shell inside the container reset LD_LIBRARY_PATH, libcuda.so.1 and libnvidia-ml.so are not "
                "found."),
               fix=("Install the NVIDIA driver on the host (`nvidia-smi` must work there, and `ldconfig -p | grep "
                    "libcuda` list it); if it is in a non-standard folder, add its libraries to nvliblist.conf." if host
                    else "Run the container with `--nv` (`singularity run --nv image.sif` / `apptainer exec --nv ...`), "
                         "and keep /.singularity.d/libs on LD_LIBRARY_PATH inside it."),
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),), areas=("driver",),
               sources=({"url": "https://apptainer.org/docs/user/latest/gpu.html",
                         "what": "Apptainer/Singularity GPU support: --nv binds the host's driver libraries"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# torch's DataLoader reporting a worker that died without a Python error (torch/utils/data/dataloader.py): killed by a
# signal; in a container the usual one is SIGBUS from /dev/shm (64 MiB by default in Docker), else the kernel's OOM
# killer. A Python exception in a worker is re-raised with its own traceback instead, so this line names neither
_WORKER_DIED = re.compile(r"DataLoader worker \(pid(?:\(s\))? [\d, ]{1,80}\) (?:exited unexpectedly|is killed by signal: "
                          r"(?P<sig>[A-Za-z ]{3,30}))")


# where the workers are spawned, not forked: Windows (and macOS) start DataLoader workers with 'spawn', which re-imports
# the main module; in a notebook (no importable __main__) or a script without the __main__ guard they die at start.
# A notebook with no POSIX path in sight is read the same way: a Linux one (Colab, a server) shows its paths.
_NOTEBOOK = re.compile(r"(?i)jupyter|\.ipynb\b|ipykernel|<ipython-input-|(?m:^|\s)%run\b", re.ASCII)
_POSIX_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:usr|home|opt|content|root|tmp|mnt|data|workspace|kaggle|srv|scratch)/")


def _worker_died_spawned():
    return _sig("dataloader-worker-died-spawned", "not-environment",
                "DataLoader workers died at start: spawned workers on Windows or in a notebook", 72,
                "On Windows DataLoader workers are new processes started with 'spawn', which re-import the program's "
                "main module: code run in a notebook cell (Jupyter has no importable __main__) or a script without an "
                "`if __name__ == '__main__':` guard cannot be re-imported, so the workers exit at once and the "
                "DataLoader reports them gone. The installation is fine.",
                look_at="Run the training as a script (`python train.py`) with the DataLoader loop under `if __name__ == "
                        "'__main__':`, and the Dataset defined in an importable .py module rather than a notebook cell; "
                        "in the notebook set num_workers=0.",
                causes=(), areas=("program",),
                sources=({"url": "https://pytorch.org/docs/stable/data.html#platform-specific-behaviors",
                          "what": "torch.utils.data: on Windows and macOS workers are spawned; wrap the main code in "
                                  "if __name__ == '__main__'"},))


def _worker_killed():
    return _sig("dataloader-worker-killed", "not-environment",
                "a DataLoader worker was killed (SIGKILL): host memory or the job's memory limit", 72,
                "A worker killed by SIGKILL, with no Python error, was ended from outside: on Linux by the kernel's "
                "out-of-memory killer when the workers together hold more RAM than the host (or the container, or a "
                "cluster job) may use. Shared memory failing shows as a bus error instead.",
                look_at="Check `dmesg` (or the scheduler's job record) for the OOM kill; lower num_workers, the batch "
                        "size or prefetch_factor, keep the dataset from loading everything into each worker, or ask the "
                        "job for more memory. Nothing to install.",
                causes=(), areas=("program",),
                sources=({"url": "https://pytorch.org/docs/stable/data.html#multi-process-data-loading",
                          "what": "torch.utils.data: each worker holds its own copy of the dataset object"},))


def dataloader_worker_died(ent, text):
    tail = text[-CONTEXT_TAIL:]
    m = last_match(_WORKER_DIED, tail)
    if m is None:
        return None
    sig_name = (m.group("sig") or "").strip()
    if sig_name and not sig_name.lower().startswith(("bus", "killed")):
        return None  # a segfault or an abort in a worker is the code it ran, the signal rules' to read
    container = bool(ent.platform.get("container")) or _context(text, r"/dev/shm|shm-size|shared memory|\bBus error")
    if sig_name.lower().startswith("killed") and not _context(text, r"/dev/shm|shm-size|shared memory|\bBus error"):
        # SIGKILL is not shared memory's signal (that is SIGBUS): the kernel's OOM killer, or a job's memory limit
        return _match(_worker_killed(), text, len(text) - len(tail) + m.start(), {})
    if not container and not sig_name and (ent.platform.get("windows") or (
            _NOTEBOOK.search(tail) and not _POSIX_PATH.search(tail))):
        return _match(_worker_died_spawned(), text, len(text) - len(tail) + m.start(), {})
    sig = _sig("dataloader-worker-died", "container" if container else "env",
               "a DataLoader worker process died (shared memory or host memory)", 70,
               "A DataLoader worker was killed without a Python error: most often by a bus error on /dev/shm, which "
               "workers use to pass batches (a container's default /dev/shm is 64 MiB), or by the kernel's out-of-memory "
               "killer when the workers together hold more RAM than the host has.",
               fix="In a container give it shared memory: `docker run --shm-size=8g` (or `--ipc=host`; Kubernetes: an "
                   "emptyDir with medium: Memory mounted at /dev/shm); otherwise check `df -h /dev/shm` and `dmesg` for "
                   "the OOM killer, and lower num_workers or the batch size; num_workers=0 runs the loading in the main "
                   "process and shows any error it raises.",
               causes=(), areas=("platform",), sources=({"url": "https://github.com/pytorch/pytorch#docker-image",
                                                         "what": "torch's README: use --ipc=host or --shm-size with DataLoader workers"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {})


# docker (BuildKit and the classic builder) failing to find an nvidia/cuda tag: NVIDIA deletes the tags of CUDA
# releases past end of life from Docker Hub, so a Dockerfile pinned to one stops building
_CUDA_TAG_GONE = re.compile(r"(?:load metadata for|failed to resolve source metadata for|manifest for|pull access denied "
                            r"for|Unable to find image ')\s?(?:docker\.io/)?(?P<image>nvidia/cuda:(?P<tag>[\w.-]{3,80}))"
                            r"(?:[^\n]{0,200}(?:not found|manifest unknown|does not exist))?")


def cuda_image_tag_gone(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "nvidia/cuda:" not in tail:
        return None
    m = last_match(_CUDA_TAG_GONE, tail)
    if m is None:
        return None
    line = tail[tail.rfind("\n", 0, m.start()) + 1: (tail.find("\n", m.end()) + 1 or len(tail))]
    if not re.search(r"ERROR|not found|manifest unknown|does not exist|denied|failed", line):
        return None
    if m.group("tag") == "latest":
        sig = _sig("cuda-image-tag-gone", "container", "nvidia/cuda has no latest tag", 84,
                   "NVIDIA removed the latest tag from nvidia/cuda: an image has to be named by its CUDA version, "
                   "flavour and OS, so `docker pull nvidia/cuda` or `FROM nvidia/cuda` (which mean :latest) finds none.",
                   fix="Name an explicit tag: the CUDA version your host driver supports (`nvidia-smi` shows the "
                       "highest), the flavour (base, runtime, devel, with or without cudnn) and the OS, e.g. `FROM "
                       "nvidia/cuda:12.4.1-runtime-ubuntu22.04` (Docker Hub's nvidia/cuda page lists the supported "
                       "tags).",
                   causes=(), areas=("container",),
                   sources=({"url": "https://gitlab.com/nvidia/container-images/cuda/-/blob/master/doc/support-policy.md",
                             "what": "NVIDIA's CUDA container images: the tags published and removed"},))
        return _match(sig, text, len(text) - len(tail) + m.start(), {"image": m.group("image"), "tag": "latest"})
    sig = _sig("cuda-image-tag-gone", "container", "the image {image} is not on Docker Hub any more", 84,
               "NVIDIA removes the nvidia/cuda tags of CUDA releases past their end of life from Docker Hub (its support "
               "policy), so a Dockerfile or `docker run` pinned to such a tag ({tag}) no longer finds the image: nothing "
               "is wrong with docker or the GPU.",
               fix="Move the FROM line to a current nvidia/cuda tag (the same flavour: base/runtime/devel, cudnn, OS) of "
                   "a CUDA the host driver supports (`nvidia-smi` shows the highest); a patch release of the same minor "
                   "often still exists (e.g. 11.2.2 for 11.2.0). Keep a copy of images you depend on in your own registry.",
               causes=(), areas=("container",),
               sources=({"url": "https://gitlab.com/nvidia/container-images/cuda/-/blob/master/doc/support-policy.md",
                         "what": "NVIDIA's CUDA container images: end-of-life tags are deleted from Docker Hub"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"image": m.group("image"), "tag": m.group("tag")})


# nvidia-docker 1.0 compares the driver's CUDA version, read through its plugin (NVML), with the image's: 0.0 means it
# read none (the plugin service not running, or NVML not reachable), not a driver older than the image
_DRIVER_ZERO = re.compile(r"unsupported CUDA version: driver 0\.0 < image (?P<cuda>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)")


def container_runtime_reads_no_driver(ent, text):
    m, at = last_in_tail(_DRIVER_ZERO, text, "driver 0.0")
    if m is None:
        return None
    sig = _sig("container-runtime-reads-no-driver", "container",
               "nvidia-docker read no driver version (0.0): its link to the host driver, not the driver's age", 88,
               "nvidia-docker 1.0 reads the host driver's CUDA version through its plugin (nvidia-docker-plugin, with "
               "NVML) before it starts an image needing CUDA {cuda}; 0.0 means it read nothing: the plugin is not "
               "running or cannot reach the driver (a driver installed or upgraded after nvidia-docker, a volume of "
               "the old driver's files). The driver itself works if nvidia-smi does on the host.",
               fix="Restart the plugin (`sudo systemctl restart nvidia-docker`) and remove its stale driver volume "
                   "(`docker volume ls | grep nvidia_driver`, then `docker volume rm` it) so it is recreated for the "
                   "current driver; better, move to the NVIDIA Container Toolkit (`docker run --gpus all`), which "
                   "replaces nvidia-docker 1.0.",
               causes=(), areas=("container",), sources=(SOURCES["container_toolkit"],))
    return _match(sig, text, at, {"cuda": m.group("cuda")})


# nvcc in a container image: NVIDIA's nvidia/cuda tags come in flavours (base, runtime, devel; cudnn variants of each)
# and only devel has the compiler (in /usr/local/cuda/bin); pytorch/pytorch's tags likewise end in -runtime or -devel
# (the images' own README and tag lists)
_IMAGE_TAG = re.compile(r"\b(?P<repo>(?:nvcr\.io/)?nvidia/cuda|pytorch/pytorch):(?P<tag>[\w.-]{1,80})")
_NVCC_MISSING = re.compile(r"nvcc: (?:command )?not found|nvcc not found|NVCC not [Ff]ound|No such file or directory: "
                           r"'[^'\n]{0,200}nvcc'|nvcc(?:\.exe)?['\"]?\)? is not recognized|Could not find nvcc")


def nvcc_missing_in_image(ent, text):
    tail = text[-CONTEXT_TAIL:]
    if "nvcc" not in tail.lower():
        return None
    m = last_match(_NVCC_MISSING, tail)
    tag = last_match(_IMAGE_TAG, tail)
    if m is None or tag is None:
        return None
    flavour = next((f for f in ("devel", "runtime", "base") if re.search(rf"(?:^|-){f}(?:-|$)", tag.group("tag"))), None)
    if flavour is None:
        return None
    image = f"{tag.group('repo')}:{tag.group('tag')}"
    if flavour == "devel":
        sig = _sig("nvcc-not-on-path-in-devel-image", "toolchain", "{image} has nvcc, but the build does not find it", 82,
                   "The devel images carry the CUDA compiler in /usr/local/cuda/bin and put that folder on PATH through "
                   "the image's ENV; a build that resets PATH (a login shell, a later ENV PATH=..., a conda env "
                   "activated over it) or an image pulled while a published tag was broken does not find it.",
                   fix="Put the toolkit on the build's path: `ENV PATH=/usr/local/cuda/bin:$PATH` and `ENV "
                       "CUDA_HOME=/usr/local/cuda` in the Dockerfile (check with `RUN ls /usr/local/cuda/bin/nvcc`), "
                       "and pull the tag again (`docker pull {image}`): a fixed image replaces a broken one under the "
                       "same tag.",
                   areas=("toolchain",),
                   sources=({"url": "https://hub.docker.com/r/nvidia/cuda",
                             "what": "nvidia/cuda image flavours: base, runtime, devel (with nvcc)"},))
    else:
        devel = tag.group("tag").replace(flavour, "devel")
        sig = _sig("nvcc-missing-in-" + flavour + "-image", "toolchain",
                   "{image} is a " + flavour + " image: it has no CUDA compiler (nvcc)", 84,
                   "CUDA images come in flavours: base and runtime hold the libraries a program needs to run, only devel "
                   "adds the compiler (nvcc) and headers that building a CUDA extension (apex, detectron2, flash-attn, a "
                   "JIT-compiled op) needs.",
                   fix="Build on the devel flavour of the same CUDA: `FROM " + tag.group("repo") + ":" + devel + "` (or "
                       "build the extension in a devel stage and copy the result into the runtime image).",
                   areas=("toolchain",),
                   sources=({"url": "https://hub.docker.com/r/nvidia/cuda",
                             "what": "nvidia/cuda image flavours: base, runtime, devel (with nvcc)"},))
    return _match(sig, text, len(text) - len(tail) + m.start(), {"image": image})


# Compose's schema check of a GPU request (the Compose Specification: deploy.resources.reservations.devices, which
# docker-compose reads from 1.28.0): an older docker-compose rejects 'devices' under reservations, and no release
# accepts it under limits
_COMPOSE_DEVICES = re.compile(r"services\.[\w.-]{1,60}\.deploy\.resources\.(?P<where>reservations|limits)\b[^\n]{0,80}?"
                              r"(?:Additional propert(?:y|ies)[^\n]{0,40}?\bdevices\b|'devices' was unexpected)")
_COMPOSE_GPU_DOCS = {"url": "https://docs.docker.com/compose/how-tos/gpu-support/",
                     "what": "Docker Compose: GPU access through deploy.resources.reservations.devices"}


def compose_gpu_devices_rejected(ent, text):
    m, at = last_in_tail(_COMPOSE_DEVICES, text, "devices")
    if m is None:
        return None
    if m.group("where") == "limits":
        sig = _sig("compose-gpu-devices-under-limits", "container",
                   "Compose takes GPU devices under deploy.resources.reservations, not limits", 84,
                   "The Compose file asks for GPUs under deploy.resources.limits; the Compose Specification accepts a "
                   "devices list (the GPU request) only under deploy.resources.reservations, so the file is invalid "
                   "and no container starts.",
                   fix="Move the block: `deploy: resources: reservations: devices: - driver: nvidia, count: all (or "
                       "device_ids: ['0']), capabilities: [gpu]`; keep only cpus/memory under limits.",
                   areas=("container",), sources=(_COMPOSE_GPU_DOCS,))
        return _match(sig, text, at, {})
    sig = _sig("compose-too-old-for-gpu-devices", "container",
               "this docker-compose does not know GPU reservations (deploy.resources.reservations.devices)", 84,
               "GPU requests in a Compose file (deploy.resources.reservations.devices) are read by docker-compose "
               "1.28.0 and later and by Compose v2; an older docker-compose validates the file against a schema "
               "without them and rejects 'devices'.",
               fix="Use Compose v2, the Docker CLI plugin (`docker compose up`, from Docker's docker-compose-plugin "
                   "package), or upgrade the standalone docker-compose to 1.28.0 or later; with a docker-compose that "
                   "cannot be upgraded, `runtime: nvidia` on the service (with the NVIDIA Container Toolkit) is the "
                   "older way.",
               areas=("container",), sources=(_COMPOSE_GPU_DOCS,))
    return _match(sig, text, at, {})


# The kernel's ENOEXEC in Go's words, as Docker, containerd and runc print it ("exec format error", lower case;
# Python's is "[Errno 8] Exec format error"): the image's binaries are for another CPU architecture. BuildKit's
# warning names both platforms
_EXEC_FORMAT = re.compile(r"(?<!Errno 8\] )\bexec format error\b")
_PLATFORMS = re.compile(r"requested image's platform \((?P<image>linux/[\w/]{1,20})\) does not match the detected host "
                        r"platform \((?P<host>linux/[\w/]{1,20})\)")


def image_for_another_cpu(ent, text):
    m, at = last_in_tail(_EXEC_FORMAT, text, "exec format error")
    if m is None:
        return None
    plat = _PLATFORMS.search(text[-CONTEXT_TAIL:])
    image, host = (plat.group("image"), plat.group("host")) if plat else (None, None)
    sig = _sig("image-for-another-cpu", "container",
               "the container's binaries are built for another CPU architecture{pair|}", 80,
               "\"exec format error\" is the kernel refusing a binary of another CPU architecture, in the words "
               "Docker's runtime prints: an image built for amd64 (x86-64) on an arm64 host (Jetson, Grace, Apple "
               "silicon, Graviton), or the reverse. nvidia/cuda's older tags and many images are published for amd64 "
               "only.",
               fix="Use an image built for the host's platform: on Jetson, NVIDIA's L4T images that match the board's "
                   "JetPack (nvcr.io/nvidia/l4t-base, l4t-pytorch, l4t-jetpack); on arm64 servers, the arm64 (SBSA) "
                   "variants of multi-arch tags, chosen with `--platform linux/arm64` in FROM or docker run. `docker "
                   "image inspect IMAGE` shows an image's Architecture; running another platform's image needs QEMU "
                   "emulation (binfmt), slow and without the GPU.",
               areas=("container",),
               sources=({"url": "https://docs.docker.com/build/building/multi-platform/",
                         "what": "Docker: images per platform, --platform, emulation"},
                        {"url": "https://catalog.ngc.nvidia.com/orgs/nvidia/containers/l4t-base",
                         "what": "NVIDIA L4T base images for Jetson"}))
    return _match(sig, text, at, {"pair": f" (image {image}, host {host})" if image else None})


# containerd's CRI (and CRI-O) when a pod's RuntimeClass names a handler the runtime's config does not define: the
# GPU Operator's and the device plugin's pods use the RuntimeClass "nvidia"
_NO_HANDLER = re.compile(r"no runtime for \\{0,3}\"?(?P<h>[\w.-]{1,40})\\{0,3}\"? is configured|"
                         r"RuntimeHandler \"(?P<h2>[\w.-]{1,40})\" not supported")


def runtime_handler_missing(ent, text):
    m, at = last_in_tail(_NO_HANDLER, text)
    if m is None:
        return None
    handler = m.group("h") or m.group("h2")
    if "nvidia" not in handler.lower():
        return None
    sig = _sig("runtime-handler-missing", "container",
               "the node's container runtime has no \"{handler}\" runtime for the pod's RuntimeClass", 84,
               "A pod runs under the RuntimeClass whose handler is \"{handler}\" (the GPU Operator's and the device "
               "plugin's pods do), and the node's container runtime (containerd's CRI config, CRI-O) defines no runtime "
               "of that name: NVIDIA's container runtime was never registered on this node, or the runtime was not "
               "restarted after it was.",
               fix="Register NVIDIA's runtime on the node and restart the runtime: `sudo nvidia-ctk runtime configure "
                   "--runtime=containerd` then `sudo systemctl restart containerd` (CRI-O: `--runtime=crio`; k3s and "
                   "microk8s keep their own containerd config, see their GPU guides); with the GPU Operator, its "
                   "container-toolkit pod does this: check that it runs on the node (`kubectl -n gpu-operator get pods "
                   "-o wide`) and its log.",
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),), areas=("driver",),
               sources=({"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/"
                                "install-guide.html#configuring-containerd-for-kubernetes",
                         "what": "NVIDIA Container Toolkit: configuring containerd for Kubernetes (nvidia-ctk runtime "
                                 "configure)"},))
    return _match(sig, text, at, {"handler": handler})


# go-nvml's error when dlopen of libnvidia-ml.so.1 fails (pkg/nvml/lib.go: "could not load NVML library"), in the log
# of a Kubernetes GPU component: the device plugin's ("NVML not detected", "Failed to start nvml", its rm.go lines),
# the GPU Operator's validators and exporters
_GO_NVML = re.compile(r"could not load NVML library")
_K8S_GPU_COMPONENT = re.compile(r"(?i)device[- ]plugin|\brm\.go:\d|mig-strategy|Failed to start nvml|NVML not "
                                r"detected|gpu-operator|dcgm-exporter|kubelet|\bk8s\b|[Kk]ubernetes|\bpod\b|daemonset")


def nvml_unloadable_in_plugin(ent, text):
    m, at = last_in_tail(_GO_NVML, text, "could not load NVML library")
    if m is None or not _K8S_GPU_COMPONENT.search(text[-CONTEXT_TAIL:]):
        return None
    sig = _sig("nvml-unloadable-in-gpu-component", "container",
               "a Kubernetes GPU component cannot load NVML (libnvidia-ml.so.1) in its container", 83,
               "The NVIDIA device plugin (and the GPU Operator's other pods) find the GPUs through NVML, the driver's "
               "libnvidia-ml.so.1, which NVIDIA's container runtime mounts into their containers from the host's "
               "driver. The library was not there: the node's default runtime is not NVIDIA's (so nothing was "
               "mounted), the driver is installed where the runtime does not look (a driver root other than /, such "
               "as a driver container's /run/nvidia/driver or /opt/nvidia), or the node has no driver.",
               fix="On the node: check the driver (`nvidia-smi`); make NVIDIA's runtime the default for the pods (`sudo "
                   "nvidia-ctk runtime configure --runtime=containerd --set-as-default`, or \"default-runtime\": "
                   "\"nvidia\" in /etc/docker/daemon.json, then restart the runtime), or run the plugin with "
                   "runtimeClassName: nvidia; for a driver outside / set the driver root (the device plugin's "
                   "nvidiaDriverRoot / the toolkit's driver-root) to its folder. Then restart the plugin's pod.",
               causes=(("container-without-gpu", "a container started without a GPU", ("TE309",)),), areas=("driver",),
               sources=({"url": "https://github.com/NVIDIA/k8s-device-plugin#prerequisites",
                         "what": "the device plugin's prerequisites: the NVIDIA container toolkit configured as the "
                                 "runtime, the driver root"},
                        {"url": "https://github.com/NVIDIA/go-nvml/blob/main/pkg/nvml/lib.go",
                         "what": "go-nvml: \"could not load NVML library\" when libnvidia-ml.so.1 cannot be opened"}))
    return _match(sig, text, at, {})


_DOCKER_DAEMON = re.compile(r"Cannot connect to the Docker daemon at (?P<sock>[\w:/.-]{1,120})\.? Is the docker daemon running")
_DOCKER_DENIED = re.compile(r"permission denied while trying to connect to the Docker daemon socket")


def docker_daemon_unreachable(ent, text):
    m, at = last_in_tail(_DOCKER_DAEMON, text, "Cannot connect to the Docker daemon")
    if m is None:
        return None
    sig = _sig("docker-daemon-unreachable", "container", "the docker client cannot reach the Docker daemon", 82,
               "docker commands talk to the Docker daemon through {sock}; nothing answers there: the daemon is not "
               "running (not started, failed at start, or not installed), or on a machine with rootless or another "
               "engine the socket lives elsewhere. A GPU container cannot start until it does.",
               fix="Start the daemon and enable it at boot: `sudo systemctl start docker` (`sudo systemctl enable --now "
                   "docker`; `systemctl status docker` / `journalctl -u docker` say why it fails); under WSL 2 start "
                   "Docker Desktop or the distribution's dockerd; then, for GPUs, configure NVIDIA's runtime (`sudo "
                   "nvidia-ctk runtime configure --runtime=docker`) and restart docker.",
               areas=("driver",),
               sources=({"url": "https://docs.docker.com/engine/daemon/start/",
                         "what": "Docker: start the daemon (systemctl start docker)"},))
    return _match(sig, text, at, {"sock": m.group("sock")})


# NVIDIA's NGC containers (nvcr.io/nvidia/pytorch, tensorflow, tritonserver, tensorrt, ...) check at start-up that the
# GPU's architecture is among those their release was built for, and stop when none is
_NGC_UNSUPPORTED = re.compile(r"Detected NVIDIA (?P<gpu>[^\n]{2,80}?) GPU, which is not yet supported in this version of "
                              r"the container")
_NGC_MATRIX = {"url": "https://docs.nvidia.com/deeplearning/frameworks/support-matrix/index.html",
               "what": "NGC framework containers: each release's CUDA and the GPU architectures it supports"}


def ngc_image_older_than_gpu(ent, text):
    m, at = last_in_tail(_NGC_UNSUPPORTED, text, "not yet supported in this version of the container")
    if m is None:
        return None
    gpu = re.sub(r"^NVIDIA\s+", "", m.group("gpu").strip())
    need = gpu_generations.requirement_of(gpu) or gpu_generations.requirement_of("NVIDIA " + gpu)
    values = {"gpu": gpu}
    if need:
        values.update(sm=need["sm"], first=need["first_cuda"], capability=need["capability"])
    sig = _sig("ngc-image-older-than-gpu", "arch",
               "this NGC container release predates the GPU ({gpu})", 86,
               "NVIDIA's NGC containers check at start-up that the GPU's architecture is one their release was built "
               "for; {gpu}" + (" (compute capability {capability}, {sm}, first built by CUDA {first})" if need else "") +
               " is newer than this release's, so the container stops (\"No supported GPU(s) detected\") or its "
               "frameworks lack kernels for it. The host, its driver and the container runtime are not the question.",
               fix="Use a newer container image made for this GPU: a later release tag of the same container (nvcr.io/"
                   "nvidia/<container>:YY.MM-py3) " + ("whose CUDA is {first} or newer" if need else "released after "
                   "the GPU") + ", as NGC's "
                   "framework support matrix lists; rebuild images that start FROM it (a project's Dockerfile or "
                   "compose file names the tag). Setting NVIDIA_DISABLE_REQUIRE=1 only skips the check: the release "
                   "still has no kernels for the GPU.",
               causes=(("arch", "the container's frameworks have no code for this GPU's architecture", ("TE401",)),),
               areas=("gpu",), sources=(_NGC_MATRIX,))
    return _match(sig, text, at, values)
