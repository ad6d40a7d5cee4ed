"""Layer rules for NVIDIA Jetson boards (JetPack, L4T): what their integrated GPU and its containers need.

    l4t_container_without_runtime  a CUDA library missing inside an l4t image -> the NVIDIA container runtime, which
                         mounts JetPack 4's CUDA/cuDNN/TensorRT from the host (default-runtime for docker build)
    jetson_device_nodes  the Tegra driver's NvRm/nvmap channels that cannot be opened -> the video group (and the
                         runtime's device mounts in a container)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import CONTEXT_TAIL, _match, _sig, last_in_tail

_L4T_IMAGE = re.compile(r"\bl4t-(?:base|pytorch|ml|tensorflow|jetpack|cuda|tensorrt|r\d)[\w.:-]{0,60}")
_BUILD = re.compile(r"(?i)docker build|Dockerfile|^\s*RUN\b|^\s*FROM\b|^Step \d+/\d+", re.M)


def l4t_container_without_runtime(ent, text):
    """JetPack 4's l4t images carry no CUDA libraries of their own: the NVIDIA container runtime mounts the host's
    (its CSV lists). A container started without it, or a `docker build` (which uses the default runtime only), has
    none of them."""
    tail = text[-CONTEXT_TAIL:]
    image = _L4T_IMAGE.search(tail)
    if image is None:
        return None
    libs = [x for x in ent.libraries if x.get("missing") and x.get("provider") in ("cuda-library", "driver", "cudnn")]
    if not libs:
        return None
    x = libs[-1]
    build = _BUILD.search(tail) is not None
    sig = _sig("l4t-container-without-runtime", "container",
               "{lib} is missing inside an l4t container: the NVIDIA runtime mounts it from the host", 85,
               "On Jetson, JetPack 4's l4t images ({image}) do not contain CUDA, cuDNN or TensorRT: the NVIDIA container "
               "runtime mounts the host's copies into the container. " +
               ("`docker build` runs its RUN steps with the default runtime only, so they see none of them."
                if build else "This container was started without that runtime."),
               fix=("Make the NVIDIA runtime Docker's default so builds get the libraries: add \"default-runtime\": "
                    "\"nvidia\" to /etc/docker/daemon.json (beside its \"runtimes\" entry), `sudo systemctl restart "
                    "docker`, then build again; run containers with `--runtime nvidia`." if build else
                    "Start the container with the NVIDIA runtime: `docker run --runtime nvidia ...` (or make it the "
                    "default in /etc/docker/daemon.json: \"default-runtime\": \"nvidia\"), and use an l4t image of the "
                    "board's L4T release."),
               areas=("container",),
               sources=({"url": "https://github.com/NVIDIA/nvidia-container-runtime#docker-engine-setup",
                         "what": "NVIDIA container runtime: Docker engine setup, default-runtime"},))
    return _match(sig, text, x["at"], {"lib": x["file"], "image": image.group(0)})


# the Tegra driver's user-space (libnvrm*, nvbuf_utils) reporting the channels it opens on /dev/nvhost-* and /dev/nvmap
_NVRM = re.compile(r"Can't initialize nvrm channel|NvRmMemInitNvmap failed|NvRmMemInit failed|"
                   r"Failed to open /dev/nvmap|nvhost[\w-]{0,30}[^\n]{0,40}Permission denied|"
                   r"/dev/nvmap[^\n]{0,40}Permission denied")


def jetson_device_nodes(ent, text):
    m, at = last_in_tail(_NVRM, text)
    if m is None:
        return None
    sig = _sig("jetson-device-nodes", "driver", "the Jetson's GPU device nodes (nvhost/nvmap) cannot be opened", 82,
               "On Jetson the integrated GPU and its media engines are reached through /dev/nvhost-* and /dev/nvmap, "
               "owned by the video group; this process could not open them (a user outside that group, or a "
               "container without the devices the NVIDIA runtime adds).",
               fix="Add the user to the video group: `sudo usermod -aG video $USER`, then log out and in (or run with "
                   "`sg video`); in a container start it with `--runtime nvidia`. `ls -l /dev/nvmap /dev/nvhost-*` shows "
                   "the nodes and their group.",
               areas=("driver",),
               sources=({"url": "https://github.com/jocover/jetson-ffmpeg/issues/119",
                         "what": "\"Can't initialize nvrm channel\": the user added to the video group fixed it"},))
    return _match(sig, text, at, {})
