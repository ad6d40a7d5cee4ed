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
    gstreamer_element_missing  GStreamer's "no such element factory \"X\"" -> libraries: the plugin that provides X
                         (DeepStream's nvinferserver: its Triton images)
    gstreamer_pipeline_refused  a pipeline stopped with "reason not-negotiated", a GLib "CRITICAL **: ... assertion
                         failed" -> not-environment: the pipeline's formats, an element's own bug
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


# GStreamer's gst_element_factory_make / gst-launch: no registered element of that name (its plugin not installed,
# not on GST_PLUGIN_PATH, blacklisted after a failed load)
_GST_NO_ELEMENT = re.compile(r"no such element factory \\?\"(?P<el>[\w-]{2,60})\\?\"|no element \\?\"(?P<el2>[\w-]{2,60})\\?\"")
_GST_DOC = {"url": "https://gstreamer.freedesktop.org/documentation/tools/gst-inspect.html",
            "what": "gst-inspect-1.0: which plugin provides an element, and the plugins that failed to load"}
_DS_TRITON = {"url": "https://docs.nvidia.com/metropolis/deepstream/dev-guide/text/DS_plugin_gst-nvinferserver.html",
              "what": "Gst-nvinferserver: DeepStream's Triton inference plugin, in the deepstream -triton container images"}


def gstreamer_element_missing(ent, text):
    m, at = last_in_tail(_GST_NO_ELEMENT, text, "element")
    if m is None:
        return None
    el = m.group("el") or m.group("el2")
    triton = el == "nvinferserver"
    deepstream = el.startswith("nv")
    sig = _sig("gstreamer-element-missing", "container" if triton else "libraries",
               "GStreamer has no element {el}: its plugin is not installed or did not load", 80,
               "GStreamer builds a pipeline from elements its plugins register; none registered {el}: the plugin that "
               "provides it is not installed, is not on GST_PLUGIN_PATH, or failed to load (a library it needs is "
               "missing; GStreamer then blacklists it in its registry cache)." +
               (" nvinferserver, DeepStream's Triton plugin, comes with DeepStream's Triton images (the -triton "
                "containers), not with the base DeepStream install." if triton else
                " nv* elements are DeepStream's or NVIDIA's L4T plugins." if deepstream else ""),
               fix=("Run the pipeline in DeepStream's Triton image (nvcr.io/nvidia/deepstream:<version>-triton, the "
                    "same DeepStream release), or install Triton's server libraries where nvinferserver can load them "
                    "(libtritonserver.so); check with `gst-inspect-1.0 nvinferserver`." if triton else
                    "Find what provides it and why it is absent: `gst-inspect-1.0 {el}` (and `gst-inspect-1.0 -b` for "
                    "plugins that failed to load), install that plugin package (DeepStream's for nv* elements, "
                    "gstreamer1.0-plugins-good/bad/ugly/libav for the others), set GST_PLUGIN_PATH to its folder, and "
                    "clear the registry cache (`rm -rf ~/.cache/gstreamer-1.0`) after fixing a plugin that failed."),
               areas=("libraries",), sources=(_GST_DOC,) + ((_DS_TRITON,) if triton else ()))
    return _match(sig, text, at, {"el": el})


# GStreamer's flow return "not-negotiated": two linked elements found no format (caps) both accept; GLib's
# g_return_if_fail checks print "<Domain>-CRITICAL **: ... assertion '...' failed": a caller's or element's bug
_GST_REFUSED = re.compile(r"streaming stopped, reason not-negotiated|"
                          r"\b(?:GStreamer|GLib|GLib-GObject|Gst\w{0,20})-CRITICAL \*\*:[^\n]{0,200}assertion '[^'\n]{1,120}' failed")
_GST_NEGOTIATION = {"url": "https://gstreamer.freedesktop.org/documentation/plugin-development/advanced/negotiation.html",
                    "what": "GStreamer caps negotiation: GST_FLOW_NOT_NEGOTIATED when linked elements agree on no format"}


def gstreamer_pipeline_refused(ent, text):
    m, at = last_in_tail(_GST_REFUSED, text)
    if m is None:
        return None
    negotiated = "not-negotiated" in m.group(0)
    sig = _sig("gstreamer-pipeline-refused", "not-environment",
               "the GStreamer pipeline's elements agree on no format (not-negotiated)" if negotiated else
               "a GStreamer/GLib assertion failed inside the pipeline", 70,
               ("Two linked elements of the pipeline found no format (caps: resolution, pixel format, framerate, "
                "memory type) that both accept, so streaming stopped: the input is not what the pipeline was written "
                "for, or a converter is missing between them. The plugins are installed and loaded." if negotiated else
                "A GLib/GStreamer function refused an argument (its g_return_if_fail check): a bug in an element or in "
                "the program that builds the pipeline, not a missing package."),
               look_at=("Run with GST_DEBUG=3 (or GST_DEBUG=*:4) to see which link failed and which caps each side "
                        "offered; check the input stream's format, and put a converter (nvvideoconvert / videoconvert, "
                        "capsfilter) between the elements." if negotiated else
                        "Update the element's plugin to a release with the fix, or change the pipeline around it; "
                        "G_DEBUG=fatal-criticals stops at the first one for a backtrace."),
               sources=(_GST_NEGOTIATION,))
    return _match(sig, text, at, {})
