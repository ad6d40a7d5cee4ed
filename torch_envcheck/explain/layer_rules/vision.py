"""Layer rules for the computer-vision libraries built on torch (YOLO's device helper, torchvision's image extension,
spconv/cumm, NVIDIA's video decoder libraries under decord and other GPU video readers), read from their own messages.

    select_device_hides_gpu  "CUDA unavailable, invalid device X requested" from the select_device helper YOLOv3/v5/v7
                         copied into many projects, where the device string is not a GPU index or torch sees the GPU
                         elsewhere in the text -> the helper's CUDA_VISIBLE_DEVICES (env)
    torchvision_image_warning  "Failed to load image Python extension" with no reason given, nothing failing after it
                         -> a warning: only torchvision.io's image decoding is missing (not-environment)
    spconv_cpu_build     tensorview's "don't compiled with cuda" -> spconv's / cumm's CPU wheels: spconv-cuXYZ
    nvdec_driver_library  cuvid* calls failing, libnvcuvid / libnvidia-encode missing -> the driver's video libraries
                     (in a container, through NVIDIA_DRIVER_CAPABILITIES with video)
                         (NVIDIA_DRIVER_CAPABILITIES=video in a container; never a copy from another driver)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import (CONTEXT_TAIL, _cu_tag, _match, _sig, error_after, in_container,
    last_in_tail)

_YOLO_SELECT_DEVICE = {"url": "https://github.com/ultralytics/yolov5/blob/70929b0c0521c2842096a2ae54f3c7df708a9ce5/utils/"
                               "torch_utils.py",
                       "what": "select_device(): os.environ['CUDA_VISIBLE_DEVICES'] = device, then assert "
                               "torch.cuda.is_available(), 'CUDA unavailable, invalid device ... requested'"}
_SPCONV = {"url": "https://github.com/traveller59/spconv/blob/06a01f0ffcd20c02b7d2e1e6969b44491dd1ea06/README.md",
           "what": "`pip install spconv` is CPU-only (Linux); spconv-cuXYZ per CUDA; uninstall spconv and cumm before "
                   "installing another build"}
_CAPS_DOC = {"url": "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
             "what": "NVIDIA Container Toolkit: NVIDIA_DRIVER_CAPABILITIES (video: the Video Codec SDK's libraries)"}

# the helper's assertion; "%s" left unformatted when the traceback shows the source line rather than the message
_SELECT_DEVICE = re.compile(r"CUDA unavailable, invalid device (?P<device>\S{1,40}|%s|\{[^}\n]{1,20}\}) requested")
_AVAILABLE_TRUE = re.compile(r"torch\.cuda\.is_available\(\)\s{0,4}\n?\s{0,4}(?:Out\[\d{1,3}\]:\s{0,2})?True\b")


def select_device_hides_gpu(ent, text):
    m, at = last_in_tail(_SELECT_DEVICE, text, "invalid device")
    if m is None:
        return None
    device = m.group("device").strip("'\"")
    named = re.fullmatch(r"[0-9]{1,2}(?:,[0-9]{1,2}){0,15}|cpu", device) is None and not device.startswith(("%", "{"))
    seen_elsewhere = _AVAILABLE_TRUE.search(text[-CONTEXT_TAIL:]) is not None
    if not (named or seen_elsewhere):
        return None
    caps = {"device": device if named else None}
    sig = _sig("select-device-hides-gpu", "env",
               "the program's select_device set CUDA_VISIBLE_DEVICES" + (" to '{device}', which names no GPU" if named
                                                                         else " before torch saw the GPU"), 84,
               "The select_device helper of YOLOv3/v5/v7 (copied into many projects) writes the device string into "
               "CUDA_VISIBLE_DEVICES and then asserts torch.cuda.is_available(). " +
               ("'{device}' is not a list of GPU indices, so CUDA sees no GPU at all." if named else
                "The text shows torch seeing the GPU outside the program: inside it, the variable the helper set "
                "(from the --device value) hid the GPUs, or was set after CUDA had started in another order of imports.") +
               " torch and the driver are not at fault.",
               fix="Pass GPU indices as the device (--device 0, or 0,1) or cpu, not 'cuda' or 'gpu'; make sure "
                   "CUDA_VISIBLE_DEVICES is not set to something else in the shell; if the program still fails, `import "
                   "torch` and call torch.cuda.is_available() before its select_device runs, or update the package whose "
                   "copy of select_device does this.",
               areas=("environment",), sources=(_YOLO_SELECT_DEVICE,))
    return _match(sig, text, at, caps)


_IMAGE_WARNING = re.compile(r"Failed to load image Python extension:? ?(?P<reason>'[^'\n]{0,300}'|\"[^\"\n]{0,300}\"|"
                            r"[^\n]{0,300})")


def torchvision_image_warning(ent, text):
    m, at = last_in_tail(_IMAGE_WARNING, text, "image Python extension")
    if m is None:
        return None
    reason = m.group("reason").strip()
    # a reason in the warning (an undefined symbol, a library not found) is read by the rules for those; here only
    # the bare warning: an empty reason, or torchvision's own advice text that follows it
    bare = reason in ("", "''", '""') or reason.startswith(("''If you don't", "If you don't")) or \
        reason.startswith("'' If")
    if not bare or error_after(text, m, at):
        return None
    sig = _sig("torchvision-image-extension-warning", "not-environment",
               "torchvision's image extension did not load (a warning)", 68,
               "torchvision warns at import when its image extension (image.so / image.pyd, JPEG and PNG decoding for "
               "torchvision.io) does not load; the warning gives no reason here. Everything else in torchvision works; "
               "only torchvision.io.read_image/decode_jpeg/decode_png are missing.",
               look_at="Ignore it unless the program uses torchvision.io's image functions. If it does: a torchvision "
                       "built from source needed libjpeg and libpng when it was built, and a wheel needs the release "
                       "paired with the installed torch (`python -c \"import torch, torchvision; "
                       "print(torch.__version__, torchvision.__version__)\"`).",
               areas=("program",), sources=({"url": "https://github.com/pytorch/vision/blob/"
                                                    "2fa7d0c69ef358b26fe28e321896fd0985265769/torchvision/io/image.py",
                                             "what": "torchvision.io.image: the warning and its advice"},))
    return _match(sig, text, at, {})


_TENSORVIEW_NO_CUDA = re.compile(r"don't compiled with cuda")


def spconv_cpu_build(ent, text):
    m, at = last_in_tail(_TENSORVIEW_NO_CUDA, text, "compiled with cuda")
    if m is None:
        return None
    torch_v = ent.versions.get("torch") or ""
    cuda = ent.versions.get("torch_cuda") or ent.versions.get("cuda")
    tag = torch_v.partition("+")[2] if "+cu" in torch_v else _cu_tag(cuda)
    caps = {"tag": tag}
    sig = _sig("spconv-cpu-build", "toolchain",
               "spconv (its cumm tensor library) is the CPU-only build", 83,
               "\"don't compiled with cuda\" is cumm's tensorview refusing a GPU tensor: the plain `spconv` and `cumm` "
               "wheels are their CPU-only builds; the CUDA builds are separate packages named by CUDA version "
               "(spconv-cu118, spconv-cu120, ...), which bring their cumm-cuXYZ.",
               fix="`pip uninstall -y spconv cumm`, then install the CUDA build for torch's CUDA: `pip install "
                   "spconv-{tag|cuXYZ}` (torch's CUDA: `python -c \"import torch; print(torch.version.cuda)\"`; a minor "
                   "version apart works from CUDA 11 on).",
               areas=("extension",), sources=(_SPCONV,))
    return _match(sig, text, at, caps)


# NVDEC/NVENC: the driver's libnvcuvid / libnvidia-encode, and the cuvid* calls of the Video Codec SDK
_NVDEC = re.compile(r"\bcuvid(?:CreateVideoParser|CreateDecoder|GetDecoderCaps|MapVideoFrame\w{0,4}|DecodePicture)\b[^\n]{0,80}"
                    r"(?:failed|error)|libnvcuvid\.so(?:\.\d)?[^\n]{0,60}(?:cannot open|not found|No such file)|"
                    r"libnvidia-encode\.so(?:\.\d)?[^\n]{0,60}(?:cannot open|not found|No such file)|"
                    r"Cannot load libnvcuvid|Cannot load libnvidia-encode|"
                    r"nvcuvid\.dll[^\n]{0,40}(?:not found|could not be loaded)")


def nvdec_driver_library(ent, text):
    m, at = last_in_tail(_NVDEC, text, "cuvid")
    if m is None:
        m, at = last_in_tail(_NVDEC, text, "nvidia-encode")
    if m is None:
        return None
    container = in_container(ent, text)
    encode = "encode" in m.group(0)
    sig = _sig("nvdec-driver-library", "driver",
               "NVIDIA's video " + ("encoder library (libnvidia-encode)" if encode else "decoder library (libnvcuvid)") +
               " is missing or not the loaded driver's", 83,
               "GPU video decoding (decord, torchaudio/torchvision's NVDEC, DALI, FFmpeg's cuvid) calls libnvcuvid and "
               "libnvidia-encode, which are part of the NVIDIA driver, of the exact version of its kernel module. " +
               ("A container gets them only when its driver capabilities include video; a copy built into the image "
                "from another driver fails against the host's module." if container else
                "They are missing, or a copy from another driver version is found first."),
               fix=("Start the container with `-e NVIDIA_DRIVER_CAPABILITIES=compute,utility,video` (or all) so the "
                    "runtime mounts the host driver's libnvcuvid.so.1, and remove any libnvcuvid copied into the image "
                    "(build the package against the Video Codec SDK headers, not a driver library)." if container else
                    "Install the driver's decode/encode libraries of the loaded driver's version (Ubuntu: "
                    "libnvidia-decode-<branch> and libnvidia-encode-<branch>, matching `nvidia-smi`'s driver), and remove "
                    "stray libnvcuvid copies from LD_LIBRARY_PATH. If this runs in a container (nvidia/cuda images set "
                    "compute,utility only), start it with NVIDIA_DRIVER_CAPABILITIES=compute,utility,video instead."),
               areas=("driver",), sources=(_CAPS_DOC,))
    return _match(sig, text, at, {})
