"""Audio I/O and speech runtimes beside torch: which FFmpeg a torchaudio release loads, which TorchCodec pairs with a
torch, and which compute types CTranslate2 (faster-whisper's engine) allows on which device.

Each table carries the public source it was read from; explain's audio rules ask here and never guess a version.
"""

from __future__ import annotations

from torch_envcheck._util.versions import major_minor

SOURCES = {
    "torchaudio_install": {"url": "https://github.com/pytorch/audio/blob/0e01d387112a24b6ca665560d3221e043f05dc98/docs/"
                                  "source/installation.rst",
                           "what": "torchaudio 2.1+: FFmpeg 6, 5 or 4 (>=4.4, <7) looked up in that order "
                                   "(TORIO_USE_FFMPEG_VERSION), libsox installed separately (libsox.so by its "
                                   "unversioned name; TORCHAUDIO_USE_SOX=0), soundfile for backend='soundfile'"},
    "torchaudio_install_2_0": {"url": "https://docs.pytorch.org/audio/2.0.1/_sources/installation.rst.txt",
                               "what": "torchaudio 2.0: its binaries are compatible with FFmpeg 4.1 to 4.4"},
    "torchaudio_backends": {"url": "https://docs.pytorch.org/audio/0.13.0/_sources/backend.rst.txt",
                            "what": "the sox_io backend needs torchaudio's C++ extension and is not available on "
                                    "Windows; soundfile is Windows' backend"},
    "torchaudio_maintenance": {"url": "https://docs.pytorch.org/audio/stable/utils.html",
                               "what": "torchaudio 2.8 deprecates sox_utils/ffmpeg_utils, removed in 2.9: audio "
                                       "decoding and encoding move to TorchCodec"},
    "torchaudio_cuda_check": {"url": "https://github.com/pytorch/audio/blob/15ea6216d7f28542df372453248fe1ddbe93a7a6/src/"
                                     "torchaudio/_extension/utils.py",
                              "what": "_check_cuda_version: 'PyTorch and TorchAudio were compiled with different CUDA "
                                      "versions'"},
    "torchcodec": {"url": "https://github.com/meta-pytorch/torchcodec/blob/07bc410551c01df490a982c74b3e92bf1186f3d4/"
                          "README.md",
                   "what": "torchcodec/torch compatibility table; FFmpeg majors 4 to 8 with shared libraries (Windows: "
                           "the 'shared' builds, or conda)"},
    "ct2_types": {"url": "https://github.com/OpenNMT/CTranslate2/blob/4a6ca41b3f3ab3b197005185f3f9f42a55b8850e/src/"
                         "types.cc",
                  "what": "mayiuse_float16/bfloat16: CUDA only (CT2_CUDA_ALLOW_FP16 / CT2_CUDA_ALLOW_BF16 force them); "
                          "the CPU has neither"},
    "ct2_cuda_utils": {"url": "https://github.com/OpenNMT/CTranslate2/blob/80a3a9cb0d82e775e6a228186b01522eba113f2f/src/"
                              "cuda/utils.cc",
                       "what": "float16 needs compute capability >= 7.0 (FP16 tensor cores), int8 6.1 or >= 7.0"},
    "faster_whisper_gpu": {"url": "https://pypi.org/project/faster-whisper/",
                           "what": "GPU: cuBLAS for CUDA 12 and cuDNN 9 for current ctranslate2; CUDA 11 + cuDNN 8: "
                                   "ctranslate2==3.24.0; CUDA 12 + cuDNN 8: ctranslate2==4.4.0"},
}

# torchaudio release range (first, last; None = open) -> the FFmpeg majors its binaries load and a conda spec for them
_FFMPEG_BY_TORCHAUDIO = (
    ((0, 12), (2, 0), {"majors": "4 (4.1 to 4.4)", "conda": "ffmpeg<5", "source": "torchaudio_install_2_0"}),
    ((2, 1), (2, 8), {"majors": "6, 5 or 4 (>=4.4, <7)", "conda": "ffmpeg<7", "source": "torchaudio_install"}),
)
# from this torchaudio on, torchaudio.load/save decode through TorchCodec
TORCHCODEC_FROM_TORCHAUDIO = (2, 9)

# torchcodec minor -> the torch minor it is built for (README's table; 0.12 is for torch >= 2.11)
_TORCHCODEC_FOR_TORCH = {"2.4": "0.0.3", "2.5": "0.1", "2.6": "0.2", "2.7": "0.5", "2.8": "0.7", "2.9": "0.9",
                         "2.10": "0.10", "2.11": "0.11"}

# CTranslate2's compute types on CUDA: the least compute capability that allows them (cuda/utils.cc, types.cc)
CT2_CUDA_FLOOR = {"float16": (7, 0), "int8_float16": (7, 0), "bfloat16": (8, 0), "int8_bfloat16": (8, 0),
                  "int8": (6, 1), "int8_float32": (6, 1)}
# ... and the variable that forces a floating type below its floor
CT2_FORCE_VARIABLE = {"float16": "CT2_CUDA_ALLOW_FP16", "int8_float16": "CT2_CUDA_ALLOW_FP16",
                      "bfloat16": "CT2_CUDA_ALLOW_BF16", "int8_bfloat16": "CT2_CUDA_ALLOW_BF16"}
# types the CPU backend never has
CT2_NOT_ON_CPU = frozenset({"float16", "bfloat16", "int8_float16", "int8_bfloat16"})


def ffmpeg_for_torchaudio(version: str | None) -> dict | None:
    """The FFmpeg a torchaudio release loads ({'majors', 'conda', 'source'}); None for a release outside the table
    (2.9 on reads audio through TorchCodec) or an unreadable version."""
    mm = major_minor(version)
    if mm is None:
        return None
    for lo, hi, row in _FFMPEG_BY_TORCHAUDIO:
        if lo <= mm <= hi:
            return dict(row)
    return None


def torchaudio_uses_torchcodec(version: str | None) -> bool | None:
    mm = major_minor(version)
    return None if mm is None else mm >= TORCHCODEC_FROM_TORCHAUDIO


def torchcodec_for_torch(torch_version: str | None) -> str | None:
    """The torchcodec minor built for a torch release (None: not in the table)."""
    mm = major_minor(torch_version)
    return None if mm is None else _TORCHCODEC_FOR_TORCH.get(f"{mm[0]}.{mm[1]}")
