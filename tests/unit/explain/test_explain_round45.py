"""explain's forty-fifth round, from test45's misses (speech and audio): torchaudio's FFmpeg, SoX and soundfile
backends and TorchCodec (the versions each release loads, from knowledge.audio_io), CTranslate2's compute types by
device and compute capability, Whisper's FP16-on-CPU warning, torchaudio/torchvision built for another CUDA than torch,
and a C++11-ABI symbol against an old-ABI torch. The texts are written for these tests from the libraries' messages,
not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import audio_io
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get|dnf|brew) install\b|\breinstall\b")


@pytest.mark.parametrize("version, conda", [("0.12.1", "ffmpeg<5"), ("2.0.2", "ffmpeg<5"), ("2.1.0", "ffmpeg<7"),
                                             ("2.8.0+cu128", "ffmpeg<7"), ("2.9.0", None), ("nonsense", None)])
def test_the_ffmpeg_a_torchaudio_release_loads(version, conda):
    row = audio_io.ffmpeg_for_torchaudio(version)
    assert (row or {}).get("conda") == conda


def test_torchcodec_pairs_with_one_torch_and_torchaudio_29_reads_through_it():
    assert audio_io.torchcodec_for_torch("2.9.1+cu128") == "0.9"
    assert audio_io.torchcodec_for_torch("2.10.0") == "0.10"
    assert audio_io.torchcodec_for_torch("1.13.1") is None
    assert audio_io.torchaudio_uses_torchcodec("2.9.0") is True
    assert audio_io.torchaudio_uses_torchcodec("2.8.0") is False


def test_old_torchaudio_ffmpeg_message_asks_for_ffmpeg_4():
    r = diagnose.diagnose('  File "/env/lib/python3.9/site-packages/torchaudio/_extension.py", line 73, in _init_ffmpeg\n'
                          "ImportError: FFmpeg libraries are not found. Please install FFmpeg.")
    assert r["signature"] == "torchaudio-ffmpeg-not-found" and r["layer"] == "libraries", r
    assert "ffmpeg<5" in _fix(r) and "4.1 to 4.4" in r["title"]


def test_new_torchaudio_ffmpeg_message_asks_for_ffmpeg_below_7():
    r = diagnose.diagnose("torchaudio 2.3.1\nImportError: Failed to intialize FFmpeg extension. Tried versions: ['6', '5', "
                          "'4', '']. Enable DEBUG logging to see more details about the error.")
    assert r["signature"] == "torchaudio-ffmpeg-not-found", r
    assert "ffmpeg<7" in _fix(r) and "TORIO_USE_FFMPEG_VERSION" in _fix(r)


def test_ffmpeg_on_windows_is_a_shared_build_on_path():
    r = diagnose.diagnose('  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torio\\_extension\\utils.py", line 116\n'
                          "ImportError: Failed to intialize FFmpeg extension. Tried versions: ['6', '5', '4', '']")
    assert "shared" in _fix(r) and "PATH" in _fix(r) and "apt-get" not in _fix(r), r


def test_no_backend_at_all_names_soundfile_and_ffmpeg():
    r = diagnose.diagnose("RuntimeError: Couldn't find appropriate backend to handle uri out.wav and format wav.")
    assert r["signature"] == "torchaudio-no-io-backend" and r["layer"] == "libraries", r
    assert "pip install soundfile" in _fix(r) and "ffmpeg<7" in _fix(r) and "torchcodec" not in _fix(r)
    r = diagnose.diagnose("torchaudio==2.9.0\nRuntimeError: Couldn't find appropriate backend to handle uri a.flac and "
                          "format None.")
    assert "torchcodec" in _fix(r)


def test_sox_on_linux_is_libsox_with_its_unversioned_name():
    r = diagnose.diagnose("RuntimeError: sox_effects requires sox extension which is not available. Please refer to the "
                          "stacktrace above for how to resolve this.")
    assert r["signature"] == "torchaudio-sox-unavailable" and r["layer"] == "libraries", r
    assert "libsox-dev" in _fix(r) and "soundfile" in _fix(r)


def test_sox_on_windows_is_soundfile_never_libsox():
    r = diagnose.diagnose('  File "D:\\app\\separate.py", line 12, in main\n'
                          "RuntimeError: Backend \"sox_io\" is not one of available backends: ['soundfile'].")
    assert r["signature"] == "torchaudio-sox-unavailable" and "Windows" in r["title"], r
    assert "soundfile" in _fix(r) and "libsox" not in _fix(r)


def test_torchcodec_not_installed_pins_the_release_of_the_torch():
    r = diagnose.diagnose("torch 2.9.0+cu128\nImportError: TorchCodec is required for load_with_torchcodec. Please "
                          "install torchcodec to use this function.")
    assert r["signature"] == "torchcodec-unavailable" and r["layer"] == "libraries", r
    assert "torchcodec==0.9.*" in _fix(r) and "ffmpeg" in _fix(r)


def test_torchcodec_that_cannot_find_ffmpeg():
    r = diagnose.diagnose("RuntimeError: Could not load libtorchcodec. Likely causes:\n  1. FFmpeg is not properly installed"
                          " in your environment. We support versions 4, 5, 6 and 7.\n[start of libtorchcodec loading "
                          "traceback]\nFFmpeg version 7: libavutil.so.59: cannot open shared object file: No such file")
    assert r["signature"] == "torchcodec-unavailable" and "ffmpeg" in _fix(r), r


def test_torchcodec_built_for_another_torch():
    r = diagnose.diagnose("torch 2.10.0\nRuntimeError: Could not load libtorchcodec. Likely causes:\n[start of "
                          "libtorchcodec loading traceback]\nFFmpeg version 6: /env/lib/python3.12/site-packages/torchcodec/"
                          "libtorchcodec_core6.so: undefined symbol: _ZN3c1013MessageLoggerC1EPKciib")
    assert r["signature"] == "torchcodec-for-another-torch" and r["layer"] == "toolchain", r
    assert "torchcodec==0.10.*" in _fix(r)


def test_ctranslate2_float16_on_the_cpu_is_the_program():
    r = diagnose.diagnose('model = WhisperModel("small", device="cpu", compute_type="float16")\nValueError: Requested '
                          "float16 compute type, but the target device or backend do not support efficient float16 "
                          "computation.")
    assert r["signature"] == "ctranslate2-type-not-on-device" and r["layer"] == "not-environment", r
    assert r["environment_problem"] is False and "int8" in _fix(r) and not _INSTALL.search(_fix(r))


@pytest.mark.parametrize("gpu, ct, floor", [("NVIDIA GeForce GTX 1080", "float16", "7.0"),
                                            ("Tesla T4", "bfloat16", "8.0")])
def test_ctranslate2_type_below_the_gpus_capability_is_arch(gpu, ct, floor):
    r = diagnose.diagnose(f'GPU: {gpu}\nmodel = WhisperModel("large-v3", device="cuda", compute_type="{ct}")\n'
                          f"ValueError: Requested {ct} compute type, but the target device or backend do not support "
                          f"efficient {ct} computation.")
    assert r["signature"] == "ctranslate2-type-below-gpu" and r["layer"] == "arch", r
    assert floor in r["title"] and "int8" in _fix(r)


def test_ctranslate2_warning_under_faster_whisper_is_a_gpu_it_cannot_see():
    r = diagnose.diagnose("faster-whisper on Windows, RTX 3060\n[ctranslate2] [warning] The compute type inferred from "
                          "the saved model is float16, but the target device or backend do not support efficient "
                          "float16 computation. The model weights have been automatically converted to use the float32 "
                          "compute type instead.")
    assert r["signature"] == "ctranslate2-sees-no-gpu" and r["layer"] == "gpu-unused", r
    assert "get_cuda_device_count" in _fix(r) and "cuDNN 9" in _fix(r)


def test_ctranslate2_warning_of_a_plain_translator_is_its_default_device():
    r = diagnose.diagnose("translator = ctranslate2.Translator(path)\n[ctranslate2] [thread 1] [warning] The compute type "
                          "inferred from the saved model is int8_float16, but the target device or backend do not "
                          "support efficient int8_float16 computation.")
    assert r["signature"] == "ctranslate2-type-not-on-device" and r["environment_problem"] is False, r
    assert 'device="cuda"' in _fix(r)


def test_whispers_fp16_warning_is_not_an_installation_problem():
    r = diagnose.diagnose('/venv/lib/python3.10/site-packages/whisper/transcribe.py:126: UserWarning: FP16 is not '
                          'supported on CPU; using FP32 instead\n  warnings.warn("FP16 is not supported on CPU; using '
                          'FP32 instead")')
    assert r["signature"] == "whisper-fp16-on-cpu" and r["environment_problem"] is False, r
    assert "fp16=False" in _fix(r) and not _INSTALL.search(_fix(r))


def test_torchvision_of_another_cuda_gets_torchs_index_and_its_pair():
    r = diagnose.diagnose("torch==2.0.1\nRuntimeError: Detected that PyTorch and torchvision were compiled with different "
                          "CUDA major versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=12.1. "
                          "Please reinstall the torchvision that matches your PyTorch install.")
    assert r["signature"] == "companion-cuda-differs" and r["layer"] == "toolchain", r
    assert "whl/cu117" in _fix(r) and "torchvision==0.15.*" in _fix(r) and "pip install torch " not in _fix(r)


def test_torchaudio_of_another_cuda_without_torchs_version():
    r = diagnose.diagnose("RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. "
                          "PyTorch has CUDA version 12.1 whereas TorchAudio has CUDA version 11.8. Please install the "
                          "TorchAudio version that matches your PyTorch version.")
    assert r["signature"] == "companion-cuda-differs" and "whl/cu121" in _fix(r), r
    assert "12.1" in r["title"] and "11.8" in r["title"]


_CXX11_SYMBOL = ("undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traits"
                 "IcESaIcEEE")


def test_cxx11_symbol_against_a_pre_cxx11_libtorch_is_the_abi():
    r = diagnose.diagnose("symbol lookup error: /opt/app/ext/myext.so: " + _CXX11_SYMBOL +
                          "\nlibtorch: libtorch-shared-with-deps-2.1.0+cpu")
    assert r["signature"] == "extension-cxx11-abi-mismatch" and r["layer"] == "toolchain", r
    assert "libtorch-cxx11-abi" in _fix(r) and "_GLIBCXX_USE_CXX11_ABI=0" in _fix(r)


def test_cxx11_symbol_against_a_cxx11_libtorch_is_not_the_abi():
    r = diagnose.diagnose("symbol lookup error: /opt/app/ext/myext.so: " + _CXX11_SYMBOL +
                          "\nlibtorch: libtorch-cxx11-abi-shared-with-deps-2.1.0+cpu")
    assert r["signature"] != "extension-cxx11-abi-mismatch", r


@pytest.mark.parametrize("torch, note", [("2.5.1", True), ("2.8.0", False)])
def test_a_packages_cxx11_binary_beside_an_old_abi_pip_torch(torch, note):
    r = diagnose.diagnose(f"torch {torch}\nImportError: /env/lib/python3.11/site-packages/fancyops/_C.cpython-311-x86_64-"
                          "linux-gnu.so: " + _CXX11_SYMBOL)
    assert r["signature"] == "extension-abi-mismatch", r
    assert ("cxx11abiFALSE" in _fix(r)) is note


def test_whispers_fp16_warning_before_an_error_is_not_the_answer():
    r = diagnose.diagnose("UserWarning: FP16 is not supported on CPU; using FP32 instead\nTraceback (most recent call "
                          "last):\n  File \"run.py\", line 3\nRuntimeError: CUDA error: no kernel image is available for "
                          "execution on the device")
    assert r["signature"] != "whisper-fp16-on-cpu", r
