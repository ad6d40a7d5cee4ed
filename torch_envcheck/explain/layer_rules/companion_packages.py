"""Layer rules for torch's companion packages (torchvision, torchaudio, torchtext) in their own words: the backends
they load, the operators they register, the torch each release pins, the modules a release removed; and Windows'
"Could not find module" for their DLLs.

    torchvision_video_backend_missing  "PyAV is not installed", "video_reader video backend is not available" ->
                         libraries: `pip install av`, or FFmpeg and a source build for video_reader
    torchaudio_codec_symbol  libtorchaudio / _torchaudio missing a codec library's symbol (gsm_create, WavpackGetMode)
                         -> libraries: the bundled SoX linked against a system codec library it then did not link
    torchscript_custom_op_unknown  "Unknown builtin op: torchvision::nms" -> toolchain: the program loading the
                         TorchScript model has not loaded the library that registers those operators
    companion_torch_pin  pip's "torchvision X has requirement torch==Y, but you'll have torch Z", Poetry's "torchvision
                         (X) depends on torch (Y)" -> toolchain: the companion release of the torch kept, or that torch
    torchvision_module_moved  "No module named 'torchvision.transforms.functional_tensor'" (removed in 0.17) or
                         "..._functional_tensor" (added in 0.15) -> env: the torchvision release the code was written for
    windows_module_dependencies_missing  Python's "Could not find module 'X.pyd' (or one of its dependencies)" ->
                         windows-runtime: a DLL it depends on is not on the DLL search path
    torchvision_built_without_codec  torchvision's "not compiled with libjpeg / libpng / nvJPEG support" -> torch-build:
                         a torchvision build without that library (a distribution's or a source build): the official wheel
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail

_PREVIOUS = {"url": "https://pytorch.org/get-started/previous-versions/",
             "what": "the torchvision and torchaudio releases paired with each torch, from one index"}

_VIDEO_BACKEND = re.compile(r"(?P<pyav>PyAV is not installed, and is necessary for the video operations in torchvision)|"
                            r"(?P<reader>video_reader video backend is not available)")


def torchvision_video_backend_missing(ent, text):
    m, at = last_in_tail(_VIDEO_BACKEND, text, "video")
    if m is None:
        return None
    if m.group("pyav"):
        sig = _sig("torchvision-pyav-missing", "libraries", "torchvision's video functions need PyAV, which is not "
                   "installed", 86,
                   "torchvision.io's read_video and its video datasets decode with PyAV (the `av` package, bindings to "
                   "FFmpeg's libraries) by default; the environment has no PyAV.",
                   fix="Install it into the environment that runs the program: `pip install av` (its wheels bring "
                       "FFmpeg's libraries; conda: `conda install -c conda-forge av`).",
                   areas=("libraries",),
                   sources=({"url": "https://docs.pytorch.org/vision/stable/io.html#video",
                             "what": "torchvision.io video: the pyav backend (default) and video_reader"},))
        return _match(sig, text, at, {})
    sig = _sig("torchvision-video-reader-missing", "libraries",
               "torchvision was built without its video_reader backend", 86,
               "The video_reader backend is torchvision's own C++ video decoder, compiled only when torchvision is built "
               "from source with FFmpeg's development libraries present; the prebuilt pip and conda packages do not "
               "include it.",
               fix="Use the pyav backend instead (`torchvision.set_video_backend(\"pyav\")` with `pip install av`), or "
                   "install FFmpeg's development libraries and build torchvision from source against the installed "
                   "torch (`pip install --no-build-isolation git+https://github.com/pytorch/vision@v<the release paired "
                   "with your torch>`).",
               areas=("libraries",),
               sources=({"url": "https://docs.pytorch.org/vision/stable/index.html#torchvision.set_video_backend",
                         "what": "set_video_backend: pyav, or video_reader (needs a source build with FFmpeg)"},))
    return _match(sig, text, at, {})


# the codec libraries SoX links (torchaudio's bundled SoX build: third_party/sox), by their symbols' prefixes
_CODEC_LIBS = (("gsm_", "libgsm"), ("Wavpack", "wavpack"), ("opus_", "libopus"), ("op_", "libopusfile"),
               ("FLAC__", "libFLAC"), ("vorbis_", "libvorbis"), ("ov_", "libvorbisfile"), ("ogg_", "libogg"),
               ("mad_", "libmad"), ("lame_", "libmp3lame"), ("sf_", "libsndfile"), ("magic_", "libmagic"),
               ("id3_", "libid3tag"), ("Gsm_", "libgsm"), ("amr", "opencore-amr"))
_TA_SYMBOL = re.compile(r"(?P<file>[^\s:'\"]{0,300}(?:libtorchaudio|_torchaudio|libtorchaudio_sox)[\w.-]{0,40}\.so)"
                        r"[^\n]{0,40}undefined symbol: (?P<sym>[A-Za-z_]\w{1,80})")


def torchaudio_codec_symbol(ent, text):
    m, at = last_in_tail(_TA_SYMBOL, text, "undefined symbol")
    if m is None:
        return None
    sym = m.group("sym")
    lib = next((name for prefix, name in _CODEC_LIBS if sym.startswith(prefix)), None)
    if lib is None:
        return None
    sig = _sig("torchaudio-codec-symbol", "libraries",
               "torchaudio's extension misses {sym}, a function of {lib} that its SoX build expected", 86,
               "{sym} belongs to {lib}, a codec library SoX can use. torchaudio's build of its bundled SoX found {lib} "
               "on the build machine and compiled SoX to call it, but the extension was not linked against it, so "
               "loading fails on the missing symbol.",
               fix="Use a prebuilt torchaudio wheel for your torch instead of this source build (`pip install "
                   "torchaudio==<the release paired with your torch> --index-url https://download.pytorch.org/whl/cuXYZ`),"
                   " or rebuild with SoX's optional {lib} support left out (hide {lib}'s development files from the "
                   "build, or link it), then reinstall.",
               areas=("libraries",),
               sources=({"url": "https://github.com/pytorch/audio/pull/1462",
                         "what": "torchaudio: disable wavpack in the bundled SoX build (the same failure for a codec)"},))
    return _match(sig, text, at, {"sym": sym, "lib": lib})


# TorchScript's "Unknown builtin op": an operator namespace that libtorch itself does not register
_UNKNOWN_OP = re.compile(r"Unknown builtin op: (?P<ns>[A-Za-z_]\w{0,40})::(?P<op>\w{1,80})")
_TORCH_NAMESPACES = frozenset({"aten", "prim", "quantized", "_quantized", "_caffe2", "profiler", "cuda", "mkldnn",
                               "onednn", "fbgemm", "_test", "inductor", "c10d", "_c10d_functional", "debugprims",
                               "rngprims", "higher_order"})
_OP_LIBRARIES = {"torchvision": "torchvision's C++ library (libtorchvision; in C++ link TorchVision::TorchVision and "
                                "#include <torchvision/vision.h>, in Python `import torchvision` before loading)",
                 "torchaudio": "torchaudio (`import torchaudio` before loading)",
                 "torch_scatter": "torch_scatter (`import torch_scatter`)", "torch_sparse": "torch_sparse",
                 "mmcv": "mmcv's compiled ops (mmcv._ext)"}


def torchscript_custom_op_unknown(ent, text):
    m, at = last_in_tail(_UNKNOWN_OP, text, "Unknown builtin op")
    if m is None or m.group("ns") in _TORCH_NAMESPACES:
        return None
    ns = m.group("ns")
    sig = _sig("torchscript-custom-op-not-loaded", "toolchain",
               "the TorchScript model calls {ns}::{op}, and no library that registers {ns} operators is loaded", 86,
               "{ns}::{op} is not one of torch's own operators: the package {ns} registers it when its compiled "
               "library is loaded. The model was scripted where {ns} was imported; the program loading it (LibTorch in "
               "C++, a converter, or Python without that import) has not loaded {ns}'s library.",
               fix="Load {library} in the program before it loads the model (C++: link the library, with "
                   "-Wl,--no-as-needed where the linker would drop it; Python: import the package first), with a "
                   "release built for the same torch; or export the model without {ns}'s operators.",
               areas=("toolchain",),
               sources=({"url": "https://docs.pytorch.org/tutorials/advanced/torch_script_custom_ops.html",
                         "what": "custom TorchScript operators: the library that registers them must be loaded"},))
    return _match(sig, text, at, {"ns": ns, "op": m.group("op"),
                                  "library": _OP_LIBRARIES.get(ns, f"{ns}'s compiled library (import {ns})")})


# pip's resolver (older: "has requirement ..., but you'll have"; newer: "requires ..., but you have") and Poetry's
# solver, for a companion pinned to one torch
_PIP_PIN = re.compile(r"(?P<pkg>torchvision|torchaudio|torchtext) (?P<ver>\d[\w.+]{1,40}) (?:has requirement|requires) "
                      r"torch==(?P<want>\d[\w.+]{1,40}), but you(?:'ll)? have torch (?P<have>\d[\w.+]{1,40}) which is "
                      r"incompatible")
_POETRY_PIN = re.compile(r"Because (?P<pkg>torchvision|torchaudio|torchtext) \((?P<ver>[\d.]{1,20})\) depends on torch "
                         r"\((?P<want>[\d.]{1,20})\)[\s\S]{0,400}?depends on both torch \((?:==?)?(?P<have>[\d.]{1,20})\)")


def companion_torch_pin(ent, text):
    m, at = last_in_tail(_PIP_PIN, text, "torch==")
    if m is None:
        m, at = last_in_tail(_POETRY_PIN, text, "depends on torch")
    if m is None:
        return None
    nightly = ".dev" in m.group("want") or ".dev" in m.group("have")
    sig = _sig("companion-pins-another-torch", "toolchain",
               "{pkg} {ver} is built for torch {want}; the environment gets torch {have}", 86,
               "Each {pkg} release is compiled against one torch release and pins it exactly; {pkg} {ver} pins torch "
               "{want}, and the environment resolves torch {have}, so one of the two is the wrong release." +
               (" Nightlies pin the nightly of the same day: the newest torch nightly and the newest {pkg} nightly "
                "are often a day apart." if nightly else ""),
               fix="Keep the pair together: either install torch=={want} with {pkg}=={ver} (its CUDA build: "
                   "--index-url https://download.pytorch.org/whl/cuXYZ), or the {pkg} release made for torch {have} "
                   "(the previous-versions table pairs them); install both in one command from one index." +
                   (" With nightlies, install {pkg} alone from the nightly index (`pip install --pre {pkg} --index-url "
                    "https://download.pytorch.org/whl/nightly/cuXYZ`) and let it pull the torch nightly it requires."
                    if nightly else ""),
               areas=("torch",), sources=(_PREVIOUS,))
    return _match(sig, text, at, {"pkg": m.group("pkg"), "ver": m.group("ver"), "want": m.group("want"),
                                  "have": m.group("have")})


# torchvision's modules that moved (its release notes): functional_tensor deprecated in 0.15, removed in 0.17, where
# the private _functional_tensor took its place in 0.15
_TV_MOVED = re.compile(r"No module named '(?P<mod>torchvision\.transforms\.(?P<name>_?functional_tensor|"
                       r"_?functional_pil))'")


def torchvision_module_moved(ent, text):
    m, at = last_in_tail(_TV_MOVED, text, "torchvision.transforms")
    if m is None:
        return None
    private = m.group("name").startswith("_")
    if private:
        sig = _sig("torchvision-module-added-later", "env",
                   "{mod} exists from torchvision 0.15 on: this torchvision is older", 84,
                   "torchvision 0.15 renamed its transforms' internals to {mod} (the public name kept a deprecation "
                   "shim until 0.17); the code imports the new name, and the installed torchvision predates it.",
                   fix="Upgrade torchvision to 0.15 or newer, with the torch it pairs with (one command, one index: "
                       "`pip install -U torch torchvision --index-url https://download.pytorch.org/whl/cuXYZ`), or "
                       "import torchvision.transforms.functional, the public module, in the code.",
                   areas=("python",),
                   sources=({"url": "https://github.com/pytorch/vision/releases/tag/v0.15.1",
                             "what": "torchvision 0.15: functional_tensor / functional_pil made private"},))
    else:
        sig = _sig("torchvision-module-removed", "env",
                   "{mod} was removed in torchvision 0.17: the code (or a package it imports) predates that", 84,
                   "torchvision deprecated {mod} in 0.15 and removed it in 0.17; the code that imports it (often a "
                   "package such as basicsr or pytorchvideo) was written for an older torchvision than the one "
                   "installed.",
                   fix="Upgrade the package that imports it to a release that no longer does; or pin torchvision<0.17 "
                       "with the torch it pairs with (`pip install \"torchvision<0.17\"` and its torch, one index); or "
                       "edit that import to torchvision.transforms.functional (the public module, same functions).",
                   areas=("python",),
                   sources=({"url": "https://github.com/pytorch/vision/releases/tag/v0.17.0",
                             "what": "torchvision 0.17: functional_tensor and functional_pil removed"},))
    return _match(sig, text, at, {"mod": m.group("mod")})


# CPython 3.8+ on Windows (ctypes, os.add_dll_directory): a DLL or extension whose own dependencies the loader finds
# nowhere; PATH is no longer searched for them
_WIN_DEPS = re.compile(r"Could not find module '(?P<path>[^'\n]{1,400}?(?P<name>[\w.+-]{1,80}\.(?:pyd|dll)))' \(or one of "
                       r"its dependencies\)")
# generic: below the rules that know the library named (numba's nvvm.dll, torch's own DLLs)
_COMPANION_DIR = re.compile(r"[\\/](?P<pkg>torchvision|torchaudio|torchtext|torchcodec)[\\/]", re.I)


def windows_module_dependencies_missing(ent, text):
    m, at = last_in_tail(_WIN_DEPS, text, "one of its dependencies")
    if m is None:
        return None
    comp = _COMPANION_DIR.search(m.group("path"))
    pkg = comp.group("pkg").lower() if comp else None
    sig = _sig("windows-module-dependencies-missing", "windows-runtime",
               "Windows cannot load {name}: it, or a DLL it depends on, is not on the DLL search path", 70,
               "Python 3.8 and later on Windows load an extension's dependent DLLs only from its own folder, the system "
               "folders and folders added with os.add_dll_directory, not from PATH; {name} needs a DLL none of them "
               "holds" + (" (the DLLs of the torch build it was made for, and for torchvision's image.pyd libjpeg "
                          "and libpng from the same channel)" if pkg else "") + ".",
               fix=("Install {pkg} from the same index or channel as torch, in the release paired with it "
                    "(`pip install --force-reinstall --no-deps {pkg}==<the paired release> --index-url "
                    "https://download.pytorch.org/whl/cuXYZ`; conda: the same channel as pytorch), so its DLLs and "
                    "torch's belong together; a newer {pkg} release may also add its DLL folder itself. " if pkg else "") +
                   "To see which DLL is missing, open {name} in a dependency viewer (Dependencies, dumpbin /dependents) "
                   "and add the folder that holds it with os.add_dll_directory() before the import; install the "
                   "latest Microsoft Visual C++ Redistributable (x64) if a VCRUNTIME or MSVCP DLL is the one missing.",
               areas=("windows",),
               sources=({"url": "https://docs.python.org/3/library/os.html#os.add_dll_directory",
                         "what": "Python 3.8+: dependent DLLs are searched in the application, system and added "
                                 "folders, not PATH"},))
    return _match(sig, text, at, {"name": m.group("name"), "pkg": pkg})


# torchvision's image ops when the build left a codec library out (torchvision/csrc/io/image/: TORCH_CHECK(false,
# "decode_jpeg: torchvision not compiled with libjpeg support"), the CUDA decoder's "nvJPEG support")
_TV_CODEC = re.compile(r"torchvision not compiled with (?P<lib>libjpeg|libpng|nvJPEG|libwebp|libavif|giflib|nvjpeg)"
                       r"(?:-turbo)? support")


def torchvision_built_without_codec(ent, text):
    m, at = last_in_tail(_TV_CODEC, text, "torchvision not compiled with")
    if m is None:
        return None
    lib = m.group("lib")
    gpu = lib.lower() == "nvjpeg"
    sig = _sig("torchvision-built-without-codec", "torch-build", "this torchvision was built without {lib}", 84,
               "torchvision's image decoding and encoding use {lib}" + (" (CUDA's JPEG library, for decode_jpeg on the "
               "GPU)" if gpu else "") + " when its build found it; this build did not, so the operator refuses. "
               "The official wheels (PyPI, download.pytorch.org) include it" + (" in their CUDA builds" if gpu else "") +
               "; builds from source, a distribution's packages or images that compile torchvision themselves may not.",
               fix=("Install torchvision's official wheel for the installed torch (`pip install --force-reinstall "
                    "--no-deps torchvision==<the release paired with your torch>` from the index torch came from), or "
                    "rebuild it with " + ("the CUDA toolkit's nvJPEG found (CUDA_HOME set; on Jetson, JetPack's "
                    "libnvjpeg)" if gpu else "the library's development package installed (libjpeg-turbo / libpng "
                    "headers)") + " so that its build log reports it" + ("; or decode on the CPU "
                    "(decode_jpeg(..., device='cpu')) and move the tensor to the GPU." if gpu else ".")),
               areas=("torch",),
               sources=({"url": "https://github.com/pytorch/vision/tree/main/torchvision/csrc/io/image",
                         "what": "torchvision's image ops: \"torchvision not compiled with ... support\" when the build "
                                 "lacked the library"},))
    return _match(sig, text, at, {"lib": lib})
