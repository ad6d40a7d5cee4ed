"""Layer rules for speech and audio beside torch: torchaudio's FFmpeg, SoX and soundfile backends, TorchCodec (which
torchaudio 2.9 reads audio through), and CTranslate2's compute types (faster-whisper, WhisperX), read from these
libraries' own messages; the versions they need come from knowledge.audio_io.

    torchaudio_ffmpeg_missing  "FFmpeg libraries are not found" (torchaudio <= 2.0), "Failed to intialize FFmpeg
                         extension. Tried versions: [...]" (2.1 to 2.8) -> the FFmpeg majors that release loads
    torchaudio_no_backend  "Couldn't find appropriate backend to handle uri" -> a backend at all: soundfile, or FFmpeg
    torchaudio_sox_missing  "requires sox extension which is not available", sox_io not among the backends -> libsox
                         (torchaudio 2.1+), never on Windows: soundfile
    torchcodec_missing   "TorchCodec is required for load_with_torchcodec", "Could not load libtorchcodec" -> the
                         torchcodec built for the torch installed, and FFmpeg's shared libraries
    ctranslate2_compute_type  "Requested float16 compute type, but the target device or backend do not support
                         efficient float16 computation" (and its warning) -> the CPU has none (the program's
                         compute_type or device), a GPU below the type's capability (arch), or CTranslate2 seeing
                         no GPU under faster-whisper's device="auto" (its CUDA libraries)
    whisper_fp16_on_cpu  Whisper's "FP16 is not supported on CPU; using FP32 instead" -> a warning: the model runs on
                         the CPU (not-environment)
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _context, _match, _sig, error_after, last_in_tail, on_windows
from torch_envcheck.knowledge import audio_io
from torch_envcheck.knowledge.gpu_generations import capability_of

_S = audio_io.SOURCES

# a torchaudio version the text prints: "torchaudio==2.0.2", "torchaudio 2.1.0", print(torchaudio.__version__)'s output
_TA_VERSION = re.compile(r"torchaudio(?:==|-|\s{1,3}|\s{0,2}version:?\s{0,3}|\.__version__\)?[\s#:>]{0,12})v?"
                         r"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)", re.I)


def _torchaudio_version(ent, text: str) -> str | None:
    v = (ent.packages or {}).get("torchaudio")
    if isinstance(v, str) and re.match(r"\d", v):
        return v
    m, _ = last_in_tail(_TA_VERSION, text, None)
    return m.group("v") if m else None


# torchaudio <= 2.0 (_extension.py's _init_ffmpeg); 2.1 to 2.8 (torio's version search, "intialize" as spelt there)
_FFMPEG_OLD = re.compile(r"FFmpeg libraries are not found\.? Please install FFmpeg")
_FFMPEG_NEW = re.compile(r"Failed to in(?:it|t)i?ali[sz]e (?:the )?FFmpeg extension\.? Tried versions:? ?"
                         r"\[(?P<tried>[^\]\n]{0,60})\]")


def torchaudio_ffmpeg_missing(ent, text):
    m, at = last_in_tail(_FFMPEG_NEW, text, "FFmpeg extension")
    era = "new"
    if m is None:
        m, at = last_in_tail(_FFMPEG_OLD, text, "FFmpeg libraries are not found")
        era = "old"
    if m is None:
        return None
    ta = _torchaudio_version(ent, text)
    row = audio_io.ffmpeg_for_torchaudio(ta) or audio_io.ffmpeg_for_torchaudio("2.1" if era == "new" else "2.0")
    win = on_windows(ent, text)
    caps = {"torchaudio": ta, "majors": row["majors"], "conda": row["conda"]}
    sig = _sig("torchaudio-ffmpeg-not-found", "libraries",
               "torchaudio found no FFmpeg libraries it can load (it needs FFmpeg {majors})", 86,
               "torchaudio" + (" {torchaudio}" if ta else "") + " does not ship FFmpeg: it loads the shared libraries "
               "of an installed FFmpeg at run time (libavutil.so.<N>, avutil-<N>.dll), and only of the majors its "
               "binaries were built for: FFmpeg {majors}. None was found: FFmpeg is not installed, it is a static "
               "build without shared libraries, or it is a newer major (FFmpeg 7) than this torchaudio loads.",
               fix="Install shared FFmpeg libraries of a major it loads: `conda install -c conda-forge {conda}` in "
                   "the environment" + (", or a 'shared' FFmpeg build whose bin folder (avutil-*.dll) is on PATH"
                                        if win else
                                        " (or the system's: `sudo apt-get install ffmpeg libavformat-dev libavcodec-dev "
                                        "libavutil-dev`, when its major is in that range)") +
                   "; TORIO_USE_FFMPEG_VERSION=<major> picks one when several are present. For plain audio files "
                   "the soundfile backend needs no FFmpeg: `pip install soundfile` and pass backend=\"soundfile\".",
               areas=("libraries",), sources=(_S[row["source"]],), generic=False)
    return _match(sig, text, at, caps)


# torchaudio 2.1+'s dispatcher (torchaudio/_backend/utils.py), and the backends of releases before it
# (torchaudio/backend/no_backend.py, utils.py) when none of theirs is installed
_NO_BACKEND = re.compile(r"Couldn't find appropriate backend to handle uri|No audio (?:I/O )?backend is available|"
                         r"Backend \"?\w{2,20}\"? is not one of available backends: \[\]")


def torchaudio_no_backend(ent, text):
    m, at = last_in_tail(_NO_BACKEND, text, "backend")
    if m is None:
        return None
    ta = _torchaudio_version(ent, text)
    codec = audio_io.torchaudio_uses_torchcodec(ta)
    sig = _sig("torchaudio-no-io-backend", "libraries",
               "torchaudio has no audio backend that can read or write this file", 85,
               "torchaudio's load/save hand the file to one of its backends: FFmpeg (shared libraries of FFmpeg 4 to 6 "
               "for torchaudio 2.1 to 2.8), SoX (libsox, installed separately since 2.1) or soundfile (the Python "
               "package). None of them is available here, so no backend takes the file: a backend is missing, not "
               "the file.",
               fix="Install one: `pip install soundfile` (its wheels carry libsndfile: WAV, FLAC, OGG, and MP3 with "
                   "libsndfile 1.1+), or FFmpeg's shared libraries of a major this torchaudio loads (`conda install -c "
                   "conda-forge \"ffmpeg<7\"`), then pass backend=\"soundfile\" / \"ffmpeg\" if it still picks none; "
                   "`python -c \"import torchaudio; print(torchaudio.list_audio_backends())\"` lists those it found." +
                   (" This torchaudio reads audio through TorchCodec: `pip install torchcodec` of the release built "
                    "for your torch." if codec else ""),
               areas=("libraries",), sources=(_S["torchaudio_install"],))
    return _match(sig, text, at, {"torchaudio": ta})


_SOX = re.compile(r"requires sox extension which is not available|[Bb]ackend \"?sox(?:_io)?\"? is not one of available "
                  r"backends:? ?\[(?P<have>[^\]\n]{0,60})\]|sox_io backend is not available|"
                  r"TorchAudio(?:'s)? SoX extension is not available|libsox\.so: cannot open shared object file")


def torchaudio_sox_missing(ent, text):
    m, at = last_in_tail(_SOX, text, None)
    if m is None:
        return None
    win = on_windows(ent, text)
    ta = _torchaudio_version(ent, text)
    explanation = ("torchaudio's sox_io backend is its C++ extension over libsox; it is not built for Windows at all, "
                   "whatever is installed: soundfile is Windows' backend." if win else
                   "torchaudio's SoX backend is its C++ extension over libsox. Up to torchaudio 2.0 the binaries carried "
                   "libsox; from 2.1 on torchaudio looks up the system's libsox at run time, by its unversioned name "
                   "(libsox.so, libsox.dylib), so a machine without it (or with only libsox.so.3) has no SoX "
                   "backend. On Windows the backend does not exist at all.")
    fix = ("Use the soundfile backend: `pip install soundfile`, then torchaudio.load(path, backend=\"soundfile\") (or "
           "torchaudio.set_audio_backend(\"soundfile\") on torchaudio <= 2.0) and drop the code that asks for sox_io."
           if win else
           "Install libsox with its unversioned library: `sudo apt-get install sox libsox-dev` (Debian/Ubuntu), `sudo "
           "dnf install sox-devel`, `brew install sox`, or `conda install -c conda-forge sox` in the environment (or "
           "link libsox.so.3 as libsox.so on the loader's path). Or do without SoX: the soundfile backend (`pip "
           "install soundfile`, backend=\"soundfile\") or FFmpeg's.")
    sig = _sig("torchaudio-sox-unavailable", "libraries",
               "torchaudio's SoX backend is not available" + (" (it does not exist on Windows)" if win else
                                                              " (libsox is not installed where torchaudio looks)"), 85,
               explanation, fix=fix, areas=("libraries",),
               sources=(_S["torchaudio_backends"], _S["torchaudio_install"]))
    return _match(sig, text, at, {"torchaudio": ta})


_CODEC_REQUIRED = re.compile(r"TorchCodec is required for (?P<fn>\w{3,40})|No module named '?torchcodec'?")
_CODEC_LOAD = re.compile(r"Could not load libtorchcodec")
_FFMPEG_LIB = re.compile(r"\blibav(?:util|codec|format|device|filter)\.so(?:\.\d{1,3})?|\bav(?:util|codec|format)-\d{1,3}"
                         r"\.dll|libav(?:util|codec|format)\.\d{1,3}\.dylib")
_TORCH_SYMBOL = re.compile(r"undefined symbol:? _ZN?K?\d{0,3}(?:c10|at|torch)\w|procedure could not be found")


def torchcodec_missing(ent, text):
    m, at = last_in_tail(_CODEC_LOAD, text, "libtorchcodec")
    loading = m is not None
    if m is None:
        m, at = last_in_tail(_CODEC_REQUIRED, text, "orchcodec")
    if m is None:
        return None
    torch = ent.versions.get("torch")
    tc = audio_io.torchcodec_for_torch(torch)
    pin = f"torchcodec=={tc}.*" if tc else "torchcodec"
    tail_after = text[at:at + 20000]
    ffmpeg_part = loading and _FFMPEG_LIB.search(tail_after) is not None
    torch_part = loading and _TORCH_SYMBOL.search(tail_after) is not None
    win = on_windows(ent, text)
    if torch_part and not ffmpeg_part:
        sig = _sig("torchcodec-for-another-torch", "toolchain",
                   "TorchCodec was built for another torch than the one installed", 86,
                   "libtorchcodec wants a torch symbol the installed torch does not define: each torchcodec release is "
                   "built for one torch release (0.9 for torch 2.9, 0.10 for 2.10, 0.11 for 2.11).",
                   fix="Install the torchcodec built for your torch: `pip install \"" + pin + "\"` (the table in "
                       "torchcodec's README pairs each release with its torch; from the same index as torch for a CUDA "
                       "build), leaving torch as it is.",
                   areas=("libraries",), sources=(_S["torchcodec"],))
        return _match(sig, text, at, {"torch": torch})
    sig = _sig("torchcodec-unavailable", "libraries",
               "TorchCodec " + ("cannot load: FFmpeg's shared libraries (or its torch) are missing" if loading else
                                "is not installed, and torchaudio reads and writes audio through it"), 85,
               ("torchaudio 2.9 and later hand load() and save() to TorchCodec, a separate package, which loads the "
                "shared libraries of an installed FFmpeg (majors 4 to 8) at run time. " if not loading else "") +
               ("libtorchcodec did not load: its FFmpeg libraries were not found (an FFmpeg without shared libraries "
                "or none at all), or it was built for another torch." if loading else
                "It is not installed in this environment."),
               fix=("Install " + ("" if loading else "TorchCodec and ") + "FFmpeg's shared libraries: `pip install \"" +
                    pin + "\"` (the release built for your torch) and `conda install -c conda-forge ffmpeg`" +
                    (" (on Windows a 'shared' FFmpeg build whose bin folder is on PATH, or both from conda-forge)"
                     if win else " (or the system's FFmpeg: `sudo apt-get install ffmpeg`)") +
                    ". Without FFmpeg, read and write audio with soundfile directly (`pip install soundfile`, "
                    "soundfile.read / soundfile.write)."),
               areas=("libraries",), sources=(_S["torchcodec"], _S["torchaudio_maintenance"]))
    return _match(sig, text, at, {"torch": torch})


_CT2_REQUESTED = re.compile(r"Requested (?P<ct>[a-z0-9_]{3,16}) compute type, but the target device or backend do not "
                            r"support efficient [a-z0-9_]{3,16} computation")
_CT2_INFERRED = re.compile(r"[Tt]he compute type inferred from the saved model is (?P<ct>[a-z0-9_]{3,16}), but the target "
                           r"device or backend do not support efficient [a-z0-9_]{3,16} computation")
_CPU_DEVICE = re.compile(r"device\s{0,2}=\s{0,2}[\"']cpu[\"']|--device[ =]cpu\b|\bon (?:the )?CPU\b|device: ?cpu\b|"
                         r"\bCPU[- ]only\b|\bruns? on (?:the )?CPU\b")
_CUDA_DEVICE = re.compile(r"device\s{0,2}=\s{0,2}[\"']cuda(?::\d)?[\"']|--device[ =]cuda\b")
# faster-whisper (WhisperModel's device="auto") and the tools built on it: the CPU only when CTranslate2 sees no GPU
_AUTO_DEVICE_CALLERS = re.compile(r"faster[-_ ]whisper|WhisperModel|whisperx|whisper-ctranslate2|[Ww]hisper")


def ctranslate2_compute_type(ent, text):
    m, at = last_in_tail(_CT2_REQUESTED, text, "compute type")
    warned = False
    if m is None:
        m, at = last_in_tail(_CT2_INFERRED, text, "compute type")
        warned = m is not None
    if m is None:
        return None
    ct = m.group("ct")
    cpu = _context(text, _CPU_DEVICE.pattern)
    gpu = next((g for g in reversed(ent.gpus or []) if capability_of(g)), None)
    cc = capability_of(gpu) if gpu else None
    floor = audio_io.CT2_CUDA_FLOOR.get(ct)
    caps = {"ct": ct, "gpu": gpu, "cc": cc}
    cc_t = tuple(int(x) for x in cc.split(".")) if cc else None
    below = floor is not None and cc_t is not None and cc_t < floor
    if below and not cpu:
        force = audio_io.CT2_FORCE_VARIABLE.get(ct)
        caps["floor"] = f"{floor[0]}.{floor[1]}"
        sig = _sig("ctranslate2-type-below-gpu", "arch",
                   "{gpu} (compute capability {cc}) is below CTranslate2's floor for {ct} ({floor})", 86,
                   "CTranslate2 allows {ct} on a GPU of compute capability {floor} or newer (FP16 tensor cores for the "
                   "float16 types, 8.0 for bfloat16); {gpu} is {cc}, so it " +
                   ("refuses the type." if not warned else "converted the weights to float32 instead."),
                   fix="Ask for a type this GPU has: compute_type=\"int8\"" +
                       (" (int8 needs 6.1 or >= 7.0)" if cc_t < (6, 1) else "") + " or \"float32\" (\"auto\" picks the "
                       "fastest one it allows)" + (f"; {force}=1 forces {ct} where the GPU can run it slowly" if force
                                                   else "") + ".",
                   areas=("gpu",), sources=(_S["ct2_cuda_utils"], _S["ct2_types"]))
        return _match(sig, text, at, caps)
    if warned and not cpu and not _context(text, _CUDA_DEVICE.pattern) and _context(text, _AUTO_DEVICE_CALLERS.pattern):
        sig = _sig("ctranslate2-sees-no-gpu", "gpu-unused",
                   "CTranslate2 runs on the CPU: it found no CUDA device it can use", 84,
                   "The warning says the model's {ct} weights were converted because the device lacks {ct}: the device "
                   "is the CPU. faster-whisper (device=\"auto\") chooses the GPU only when CTranslate2 can load its CUDA "
                   "libraries and sees a device: current ctranslate2 wheels need cuBLAS for CUDA 12 and cuDNN 9 "
                   "(cublas64_12.dll / libcublas.so.12, cudnn*9), which torch's own copies do not always provide to it.",
                   fix="Check what CTranslate2 sees: `python -c \"import ctranslate2; print(ctranslate2."
                       "get_cuda_device_count())\"`; with 0, install the CUDA 12 cuBLAS and cuDNN 9 libraries where it "
                       "looks (Linux: `pip install nvidia-cublas-cu12 nvidia-cudnn-cu12` and their lib folders on "
                       "LD_LIBRARY_PATH; Windows: their DLLs on PATH or beside the program), or pin the ctranslate2 "
                       "of your CUDA (CUDA 12 + cuDNN 8: ctranslate2==4.4.0; CUDA 11: ctranslate2==3.24.0), then pass "
                       "device=\"cuda\".",
                   areas=("libraries",), sources=(_S["faster_whisper_gpu"], _S["ct2_types"]))
        return _match(sig, text, at, caps)
    on_cpu_only = ct in audio_io.CT2_NOT_ON_CPU
    sig = _sig("ctranslate2-type-not-on-device", "not-environment",
               "CTranslate2 has no {ct} on this device" + (" (the CPU has none)" if cpu or warned else ""), 84,
               ("CTranslate2 never computes in {ct} on the CPU, whatever the processor: " if on_cpu_only else
                "CTranslate2 cannot use {ct} on this device: ") +
               ("the program asked for it on the CPU." if cpu else
                "its models load on the CPU unless device=\"cuda\" is given (ctranslate2's Translator, Generator and "
                "Whisper default to the CPU), so the model " + ("was converted to float32 on the CPU." if warned
                                                                else "is on the CPU.")) +
               " Nothing is broken in the installation.",
               fix="On the CPU ask for compute_type=\"int8\" or \"float32\" (or \"auto\"); to use the GPU, pass "
                   "device=\"cuda\" where the model is created (float16 needs a GPU of compute capability 7.0 or newer).",
               areas=("program",), sources=(_S["ct2_types"], _S["ct2_cuda_utils"]))
    return _match(sig, text, at, caps)


_WHISPER_FP16 = re.compile(r"FP16 is not supported on CPU; using FP32 instead")


def whisper_fp16_on_cpu(ent, text):
    m, at = last_in_tail(_WHISPER_FP16, text, "FP16 is not supported on CPU")
    if m is None:
        return None
    # the warning is the answer only when nothing fails after it: an error below it is the failure, whatever it is
    if error_after(text, m, at):
        return None
    sig = _sig("whisper-fp16-on-cpu", "not-environment",
               "Whisper runs on the CPU, where it computes in FP32 (a warning)", 70,
               "openai-whisper asks for FP16 by default and falls back to FP32 on the CPU, saying so: the model is on "
               "the CPU, either because the program chose it or because torch sees no CUDA GPU here (a Mac, a machine "
               "without an NVIDIA GPU, or torch's CPU-only build). The warning is harmless.",
               look_at="Pass fp16=False to transcribe() on the CPU to silence it. If you meant the GPU, check `python -c "
                       "\"import torch; print(torch.cuda.is_available())\"`: False means torch cannot use a GPU here.",
               areas=("program",), sources=({"url": "https://github.com/openai/whisper/blob/"
                                                    "f572f2161ba831bae131364c3bffdead7af6d210/whisper/transcribe.py",
                                             "what": "transcribe(): 'FP16 is not supported on CPU; using FP32 instead'"},))
    return _match(sig, text, at, {})
