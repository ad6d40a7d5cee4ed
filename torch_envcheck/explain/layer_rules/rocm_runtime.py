"""Layer rules for ROCm's runtime in its own words (HSA's statuses, its GPU memory faults, a host without /dev/kfd)
and cuDNN's frontend refusing a graph.

    hsa_status_error     an HSA runtime status (HSA_STATUS_ERROR_*) reported by HCC, HIP or rocminfo -> rocm
    gpu_memory_fault_rocm  "Memory access fault by GPU node-N ... Reason: Page not present" -> rocm: a GPU page fault,
                         most often code for another gfx target (an override) or a ROCm/torch pair that does not fit
    host_without_kfd     Docker adding /dev/kfd that the host does not have -> rocm: the host's amdgpu/ROCm kernel part
    cudnn_frontend_no_plan  cuDNN's frontend: "No execution plans support the graph" / "No execution plans built
                         successfully" -> not-environment: the operation's shapes, dtypes or backend on this GPU
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_ROCM_DOCS = {"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html",
              "what": "ROCm's supported GPUs (gfx targets) and kernels"}

_HSA_STATUS = re.compile(r"\bHSA_STATUS_ERROR_(?P<name>[A-Z_]{3,40})\b")


def hsa_status_error(ent, text):
    m, at = last_in_tail(_HSA_STATUS, text, "HSA_STATUS_ERROR_")
    if m is None or "Unable to open /dev/kfd" in text[-65536:]:
        # the kfd device's own refusal printed before it is the cause, read from its errno with the kernel's words
        return None
    name = m.group("name")
    resources = name == "OUT_OF_RESOURCES"
    sig = _sig("hsa-status-" + name.lower().replace("_", "-"), "rocm", "ROCm's HSA runtime failed: HSA_STATUS_ERROR_{name}",
               76,
               "HSA is ROCm's lowest user-space layer (below HIP): it reported {name} while starting or running on the "
               "GPU." + (" Out of resources at start is usually the GPU not usable by this process: /dev/kfd or "
                         "/dev/dri not accessible (the render/video groups), another process holding the GPU, or a GPU "
                         "ROCm does not support." if resources else ""),
               fix=("Check the GPU from the same user: `rocminfo` and `rocm-smi` (is the GPU listed, with its gfx "
                    "target?), `ls -l /dev/kfd /dev/dri/render*` and `groups` (render and video), other processes on the "
                    "GPU; then that the gfx target is one ROCm supports (or HSA_OVERRIDE_GFX_VERSION for a close one). "
                    "Reloading the amdgpu module or a reboot clears a wedged GPU." if resources else
                    "Run `rocminfo` as the same user to see whether HSA sees the GPU; check /dev/kfd access (render and "
                    "video groups), the gfx target against ROCm's supported list, and the ROCm release against the "
                    "amdgpu driver; `dmesg | grep -i amdgpu` shows the kernel's side."),
               areas=("rocm",), sources=(_ROCM_DOCS,))
    return _match(sig, text, at, {"name": name})


_MEMORY_FAULT = re.compile(r"Memory access fault by GPU node-?\d{1,3}[^\n]{0,120}?(?:Reason: (?P<why>[^\n]{3,80}))?")


def gpu_memory_fault_rocm(ent, text):
    m, at = last_in_tail(_MEMORY_FAULT, text, "Memory access fault by GPU node")
    if m is None:
        return None
    sig = _sig("rocm-gpu-memory-fault", "rocm", "the GPU faulted on a memory access (ROCm)", 80,
               "ROCm's runtime reports a GPU page fault: a kernel touched memory it had no mapping for. Outside a bug "
               "of the program's own kernels, the usual ROCm causes are code built for another gfx target running "
               "under HSA_OVERRIDE_GFX_VERSION, a torch ROCm build that does not fit the installed ROCm or amdgpu "
               "driver, or a ROCm release that does not support the GPU.",
               fix="Run a plain HIP sample or `python -c \"import torch; torch.ones(1, device='cuda').sum()\"`: if that "
                   "faults too, the stack is at fault: use the torch ROCm wheel of your ROCm release (`--index-url "
                   "https://download.pytorch.org/whl/rocmX.Y`), drop or correct HSA_OVERRIDE_GFX_VERSION (the gfx "
                   "`rocminfo` shows), and keep the amdgpu driver and ROCm of one release; if only the program faults, "
                   "report it with AMD_LOG_LEVEL=3 output.",
               areas=("rocm",), sources=(_ROCM_DOCS,))
    return _match(sig, text, at, {})


_NO_KFD = re.compile(r"error gathering device information while adding custom device \"(?P<dev>/dev/(?:kfd|dri\S{0,40}))\": "
                     r"no such file or directory")


def host_without_kfd(ent, text):
    m, at = last_in_tail(_NO_KFD, text, "adding custom device")
    if m is None:
        return None
    sig = _sig("host-without-rocm-devices", "rocm", "the host has no {dev} to pass into the container", 82,
               "Docker passes the host's {dev} into the container with --device; the host has none: its amdgpu kernel "
               "driver (ROCm's kernel part, which creates /dev/kfd) is not loaded, the GPU is not an AMD one ROCm "
               "drives, or the host is WSL or a VM without the GPU.",
               fix="On the host: `ls -l /dev/kfd /dev/dri`, `lsmod | grep amdgpu` and `dmesg | grep -i amdgpu`; install "
                   "the amdgpu driver of your ROCm release (amdgpu-install --usecase=dkms on Ubuntu) and reboot, then "
                   "start the container with --device=/dev/kfd --device=/dev/dri.",
               areas=("rocm",),
               sources=({"url": "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html",
                         "what": "ROCm in Docker: --device=/dev/kfd --device=/dev/dri from a host with the amdgpu driver"},))
    return _match(sig, text, at, {"dev": m.group("dev")})


_NO_PLAN = re.compile(r"\[cudnn_frontend\] Error: No execution plans (?:support the graph|built successfully)")


def cudnn_frontend_no_plan(ent, text):
    m, at = last_in_tail(_NO_PLAN, text, "No execution plans")
    if m is None:
        return None
    sig = _sig("cudnn-frontend-no-plan", "not-environment", "cuDNN has no engine for this operation's graph", 78,
               "cuDNN's graph API found no execution plan (engine) for the operation as built: its shapes, dtypes, "
               "layout or fused pattern (an attention's head dimension, a sequence length) are not among what this cuDNN "
               "supports on this GPU. The install is not broken; the operation is outside cuDNN's supported set.",
               look_at="Use another backend for that operation (torch: torch.backends.cuda.enable_cudnn_sdp(False) for "
                       "attention, or torch.backends.cudnn.enabled = False to test), or change the shapes/dtypes to a "
                       "supported combination (cuDNN's release notes list the support matrix; newer cuDNN releases and "
                       "newer GPUs support more graphs).",
               areas=("gpu",),
               sources=({"url": "https://github.com/NVIDIA/cudnn-frontend",
                         "what": "cuDNN frontend: graphs, execution plans, 'No execution plans'"},))
    return _match(sig, text, at, {})
