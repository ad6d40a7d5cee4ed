"""Layer rules for video on NVIDIA GPUs: FFmpeg's NVENC/NVDEC (cuvid) codecs, which load the driver's codec libraries
at run time (nv-codec-headers' dynlink loader), and the decoders of torchvision, read from the tools' own messages (the driver's codec libraries themselves:
vision.nvdec_driver_library).

    nvenc_api_newer_than_driver  "Driver does not support the required nvenc API version. Required: A Found: B" ->
                         driver: the release FFmpeg's table names for API A, or an FFmpeg built with headers of API B
    ffmpeg_codec_not_built  "Unknown encoder 'h264_nvenc'", a cuvid/nvmpi/qsv/amf codec not found -> libraries: an FFmpeg
                         configured with that hardware codec
    nvenc_session_refused  OpenEncodeSessionEx's NV_ENC_ERR_OUT_OF_MEMORY (10) -> arch: the GPU's cap on concurrent
                         encode sessions (GeForce), or its memory
    torchvision_gpu_decoder_missing  "cuda video backend is not available", "Not compiled with GPU decoder support" ->
                         libraries: a torchvision built from source with NVIDIA's Video Codec SDK, or TorchCodec
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_FFMPEG_NVENC = {"url": "https://github.com/FFmpeg/FFmpeg/blob/master/libavcodec/nvenc.c",
                 "what": "FFmpeg's NVENC encoder: the API version check and the minimum driver per API version"}

# FFmpeg's libavcodec/nvenc.c, nvenc_print_driver_requirement: the driver each NVENC API version needs (Linux,
# Windows); API 13.0 and later from nv-codec-headers' README
_NVENC_DRIVER = {(8, 1): ("390.25", "390.77"), (8, 2): ("396.24", "397.93"), (9, 0): ("418.30", "418.81"),
                 (9, 1): ("435.21", "436.15"), (10, 0): ("445.87", "450.51"), (11, 0): ("455.28", "456.71"),
                 (11, 1): ("470.57.02", "471.41"), (12, 0): ("520.56.06", "522.25"), (12, 1): ("530.41.03", "531.61"),
                 (12, 2): ("550.54.14", "551.76"), (13, 0): ("570.0", "570.0")}
_NVENC_API = re.compile(r"Driver does not support (?:the )?required nvenc API version\.?\s{0,3}\(?Required:? "
                        r"(?P<need>\d{1,2}\.\d{1,2}),? Found:? (?P<have>\d{1,2}\.\d{1,2})")


def nvenc_api_newer_than_driver(ent, text):
    m, at = last_in_tail(_NVENC_API, text, "nvenc API version")
    if m is None:
        return None
    need = tuple(int(x) for x in m.group("need").split("."))
    floor = _NVENC_DRIVER.get(need)
    update = ("Update the NVIDIA driver to {linux} or newer on Linux ({windows} on Windows)" if floor else
              "Update the NVIDIA driver to a release whose NVENC offers API {need} (NVIDIA's Video Codec SDK release "
              "notes name it)")
    sig = _sig("nvenc-api-newer-than-driver", "driver",
               "this FFmpeg's NVENC needs API {need}; the driver offers {have}", 86,
               "FFmpeg is compiled against one NVENC API version (the nv-codec-headers it was built with) and asks the "
               "driver for at least that version; this driver's NVENC goes up to {have}, older than the {need} the "
               "build requires.",
               fix=update + "; or use an FFmpeg (or the "
                   "application's bundled FFmpeg release) built with nv-codec-headers of API {have} or older "
                   "(nv-codec-headers n{have}.x, the ffnvcodec package), which this driver supports.",
               areas=("driver",),
               sources=(_FFMPEG_NVENC, {"url": "https://github.com/FFmpeg/nv-codec-headers/blob/master/README",
                                        "what": "nv-codec-headers: the minimum driver of each header release"}))
    return _match(sig, text, at, {"need": m.group("need"), "have": m.group("have"),
                                  "linux": floor[0] if floor else None, "windows": floor[1] if floor else None})


# FFmpeg's own words for a codec name it has no implementation of ("Unknown encoder 'h264_nvenc'", the library call
# avcodec_find_decoder_by_name failing, "Decoder (codec hevc_cuvid) not found"): hardware codecs exist only in builds
# configured with them. By suffix, the configure switch (FFmpeg's configure; nvmpi from jetson-ffmpeg's patch)
_HW_CODECS = {"nvenc": "--enable-ffnvcodec --enable-nvenc (nv-codec-headers installed first)",
              "cuvid": "--enable-ffnvcodec --enable-cuvid --enable-nvdec (nv-codec-headers installed first)",
              "nvmpi": "--enable-nvmpi (jetson-ffmpeg's patch and its libnvmpi, for Jetson's hardware codecs)",
              "qsv": "--enable-libvpl (Intel Quick Sync)", "amf": "--enable-amf (AMD's AMF headers)",
              "vaapi": "--enable-vaapi", "v4l2m2m": "--enable-v4l2-m2m"}
_NO_CODEC = re.compile(r"Unknown (?:en|de)coder '(?P<a>\w{1,30}_(?P<ha>nvenc|cuvid|nvmpi|qsv|amf|vaapi|v4l2m2m))'|"
                       r"avcodec_find_(?:en|de)coder_by_name\(?\s{0,2}['\"]?(?P<b>\w{1,30}_(?P<hb>nvenc|cuvid|nvmpi|qsv|amf|"
                       r"vaapi|v4l2m2m))['\"]?\)? failed|"
                       r"(?:En|De)coder \(codec (?P<c>\w{1,30}_(?P<hc>nvenc|cuvid|nvmpi|qsv|amf|vaapi|v4l2m2m))\) not found",
                       re.I)


def ffmpeg_codec_not_built(ent, text):
    m, at = last_in_tail(_NO_CODEC, text)
    if m is None:
        return None
    codec = m.group("a") or m.group("b") or m.group("c")
    hw = (m.group("ha") or m.group("hb") or m.group("hc")).lower()
    nvidia = hw in ("nvenc", "cuvid")
    sig = _sig("ffmpeg-codec-not-built", "libraries", "this FFmpeg was built without the {codec} codec", 82,
               "FFmpeg's hardware codecs are compiled in only when its configure step enables them; the FFmpeg that ran "
               "(the first on PATH, or the one a Python package bundles) has no {codec}, so no driver or GPU setting "
               "can add it. `ffmpeg -hide_banner -encoders` (or -decoders) lists what a build has.",
               # the switch comes from the table above, not from the text: prose, not a shell word
               fix="Run an FFmpeg configured with " + _HW_CODECS[hw] + ": build it so (then use that binary, not an older "
                   "one on PATH)"
                   + (", or install a build that includes the NVIDIA codecs (conda-forge's ffmpeg, the static builds "
                      "of BtbN or gyan.dev); NVENC and NVDEC then still need the NVIDIA driver's codec libraries."
                      if nvidia else ", or a distribution's build that includes it."),
               areas=("libraries",),
               sources=({"url": "https://trac.ffmpeg.org/wiki/HWAccelIntro",
                         "what": "FFmpeg's hardware acceleration: which configure options enable NVENC, NVDEC/cuvid, "
                                 "QSV, AMF, VAAPI"},))
    return _match(sig, text, at, {"codec": codec})


# NVENCSTATUS 10, NV_ENC_ERR_OUT_OF_MEMORY, from nvEncOpenEncodeSessionEx (nvEncodeAPI.h): the session could not be
# created; on GeForce and other consumer GPUs the driver also returns it past its cap on concurrent encode sessions
_NVENC_SESSION = re.compile(r"OpenEncodeSessionEx failed: out of memory \(10\)|nvEncOpenEncodeSessionEx(?:\(\))?:? 10\b|"
                            r"OpenEncodeSessionEx[^\n]{0,60}NV_ENC_ERR_OUT_OF_MEMORY")


def nvenc_session_refused(ent, text):
    m, at = last_in_tail(_NVENC_SESSION, text, "EncodeSessionEx")
    if m is None:
        return None
    sig = _sig("nvenc-session-refused", "arch",
               "NVENC refused a new encode session (NV_ENC_ERR_OUT_OF_MEMORY): the GPU's session cap or its memory", 84,
               "Opening an NVENC session failed with status 10. NVIDIA's drivers limit how many encode sessions run at "
               "once on GeForce and other consumer GPUs (a handful, raised by later driver releases; professional and "
               "data-center GPUs have no such cap), and a session past the cap is refused with this status; the other "
               "cause is GPU memory taken by other work.",
               fix="Run fewer simultaneous encodes on this GPU (close other encoders: `nvidia-smi` lists the processes; "
                   "OBS, browsers and game recorders hold sessions too), or move the extra encodes to another GPU or to "
                   "a professional GPU without the cap; a newer driver raises the consumer cap. NVIDIA's Video "
                   "Encode and Decode support matrix lists each GPU's limit.",
               areas=("gpu",),
               sources=({"url": "https://developer.nvidia.com/video-encode-and-decode-gpu-support-matrix-new",
                         "what": "NVIDIA: NVENC support and the concurrent session limit of each GPU"},))
    return _match(sig, text, at, {})


# torchvision.io: set_video_backend("cuda") and VideoReader(device="cuda") need its GPU decoder, compiled only by a
# source build that finds NVIDIA's Video Codec SDK (TORCHVISION_INCLUDE / TORCHVISION_LIBRARY) and FFmpeg
_TV_GPU_DECODER = re.compile(r"cuda video backend is not available|Not compiled with GPU decoder support")


def torchvision_gpu_decoder_missing(ent, text):
    m, at = last_in_tail(_TV_GPU_DECODER, text)
    if m is None:
        return None
    sig = _sig("torchvision-gpu-decoder-missing", "libraries", "torchvision was built without its GPU video decoder", 86,
               "torchvision's GPU video decoding (the cuda backend, VideoReader on a CUDA device) is compiled only when "
               "torchvision is built from source with NVIDIA's Video Codec SDK and FFmpeg found; the pip and conda "
               "packages never include it.",
               fix="Build torchvision from source against the installed torch with the Video Codec SDK found: download "
                   "the SDK, set TORCHVISION_INCLUDE to its Interface folder and TORCHVISION_LIBRARY to the folder with "
                   "libnvcuvid (the driver's), install FFmpeg's development libraries, then `pip install "
                   "--no-build-isolation -v .` in a checkout of the torchvision release paired with your torch. "
                   "torchvision's video decoding is deprecated: TorchCodec (`pip install torchcodec`, its CUDA build "
                   "from the PyTorch index) decodes on the GPU without a source build.",
               areas=("libraries",),
               sources=({"url": "https://github.com/pytorch/vision/blob/main/CONTRIBUTING.md",
                         "what": "torchvision's source build: the GPU video decoder and the Video Codec SDK"},
                        {"url": "https://github.com/pytorch/torchcodec",
                         "what": "TorchCodec: video decoding on CPU and CUDA for torch"}))
    return _match(sig, text, at, {})
