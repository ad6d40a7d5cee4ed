"""explain's sixty-eighth round, from test80's to test83's misses (TensorFlow's releases, the other frameworks' GPU
builds, torchvision/torchaudio/torchtext against torch, GPUs in virtual machines): the companion packages' backends,
operators, pins and moved modules, Windows' "Could not find module", Keras 3, TensorFlow's add-ons and Windows
self-check, Paddle's and MindSpore's own checks, Hyper-V's partitioning policy. The texts are written for these tests
from each tool's own messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge.releases import torchtext_for
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("text", [
    "RuntimeError: No audio I/O backend is available.",
    'RuntimeError: Backend "soundfile" is not one of available backends: [].',
    "RuntimeError: Couldn't find appropriate backend to handle uri speech.wav and format None.",
])
def test_torchaudio_without_a_backend_names_soundfile(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torchaudio-no-io-backend" and r["layer"] == "libraries"
    assert "pip install soundfile" in _fix(r) and "list_audio_backends" in _fix(r)


def test_pyav_missing_for_torchvision_video():
    r = diagnose.diagnose("ImportError: PyAV is not installed, and is necessary for the video operations in torchvision.")
    assert r["signature"] == "torchvision-pyav-missing" and "pip install av" in _fix(r)


def test_video_reader_backend_needs_a_source_build_or_pyav():
    r = diagnose.diagnose("RuntimeError: video_reader video backend is not available. Please compile torchvision from "
                          "source and try again")
    assert r["signature"] == "torchvision-video-reader-missing" and 'set_video_backend("pyav")' in _fix(r)


@pytest.mark.parametrize("sym, lib", [("gsm_destroy", "libgsm"), ("FLAC__stream_decoder_new", "libFLAC"),
                                      ("WavpackOpenFileInput", "wavpack")])
def test_a_codec_symbol_in_torchaudio_names_its_library(sym, lib):
    r = diagnose.diagnose(f"OSError: /opt/audio/torchaudio/lib/libtorchaudio.so: undefined symbol: {sym}")
    assert r["signature"] == "torchaudio-codec-symbol" and lib in r["title"]


def test_a_torch_symbol_in_torchaudio_is_not_a_codec():
    r = diagnose.diagnose("OSError: /venv/lib/python3.10/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: "
                          "_ZN3c1017RegisterOperatorsD1Ev")
    assert r["signature"] != "torchaudio-codec-symbol"


def test_a_custom_op_the_loader_has_not_loaded():
    r = diagnose.diagnose("Unknown builtin op: torchaudio::sox_effects_apply_effects_tensor.\nCould not find any similar "
                          "ops to torchaudio::sox_effects_apply_effects_tensor.")
    assert r["signature"] == "torchscript-custom-op-not-loaded" and r["layer"] == "toolchain"
    assert "import torchaudio" in _fix(r)


def test_an_aten_op_unknown_keeps_the_newer_torch_reading():
    r = diagnose.diagnose("RuntimeError: Unknown builtin op: aten::scaled_dot_product_attention.\nCould not find any "
                          "similar ops to aten::scaled_dot_product_attention.")
    assert r["signature"] != "torchscript-custom-op-not-loaded"


def test_pips_older_pin_report_for_a_companion():
    r = diagnose.diagnose("ERROR: torchaudio 2.0.2 has requirement torch==2.0.1, but you'll have torch 2.1.0 which is "
                          "incompatible.")
    assert r["signature"] == "companion-pins-another-torch" and "torch==2.0.1" in _fix(r)


def test_pips_pin_report_between_nightlies_says_install_the_companion_alone():
    r = diagnose.diagnose("ERROR: torchvision 0.20.0.dev20240801 has requirement torch==2.5.0.dev20240801, but you'll "
                          "have torch 2.5.0.dev20240802 which is incompatible.")
    assert r["signature"] == "companion-pins-another-torch" and "--pre torchvision" in _fix(r)


def test_poetrys_solver_on_a_companion_pin():
    r = diagnose.diagnose("Because torchvision (0.16.0) depends on torch (2.1.0)\n and no versions of torchvision match "
                          ">0.16.0,<0.17.0, torchvision (>=0.16.0,<0.17.0) requires torch (2.1.0).\nSo, because app "
                          "depends on both torch (2.0.1) and torchvision (^0.16.0), version solving failed.")
    assert r["signature"] == "companion-pins-another-torch" and "torch==2.1.0" in _fix(r)


def test_torchtext_built_for_another_torch_is_a_companion():
    r = diagnose.diagnose("OSError: /usr/lib/python3/dist-packages/torchtext/lib/libtorchtext.so: undefined symbol: "
                          "_ZN2at4_ops5empty4callEN3c108ArrayRefIlEE")
    assert r["signature"] == "companion-built-for-another-torch" and "0.18" in _fix(r)


def test_torchtexts_release_table():
    assert torchtext_for("2.3.1+cu121") == "0.18" and torchtext_for("2.0") == "0.15"
    assert torchtext_for("2.4.0") is None and torchtext_for(None) is None


def test_torchvision_module_removed_in_017():
    r = diagnose.diagnose("    from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"
                          "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'")
    assert r["signature"] == "torchvision-module-removed" and 'torchvision<0.17' in _fix(r)


def test_torchvision_private_module_added_in_015():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'torchvision.transforms._functional_pil'")
    assert r["signature"] == "torchvision-module-added-later" and "0.15" in _fix(r)


def test_windows_module_dependencies_of_a_companion():
    r = diagnose.diagnose("UserWarning: Failed to load image Python extension: Could not find module 'C:\\Python311\\Lib\\"
                          "site-packages\\torchvision\\image.pyd' (or one of its dependencies). Try using the full path "
                          "with constructor syntax.")
    assert r["signature"] == "windows-module-dependencies-missing" and r["layer"] == "windows-runtime"
    assert "torchvision" in _fix(r) and "os.add_dll_directory" in _fix(r)


def test_transformers_refusing_keras_3():
    r = diagnose.diagnose("ValueError: Your currently installed version of Keras is Keras 3, but this is not yet supported "
                          "in Transformers. Please install the backwards-compatible tf-keras package with `pip install "
                          "tf-keras`.")
    assert r["signature"] == "keras3-refused-by-transformers" and "pip install tf-keras" in _fix(r)


def test_keras_3_module_under_keras_2():
    r = diagnose.diagnose("ModuleNotFoundError: No module named 'keras.src.backend'")
    assert r["signature"] == "keras3-module-missing" and "tensorflow>=2.16" in _fix(r)


def test_a_tensorflow_addon_built_for_another_tensorflow():
    r = diagnose.diagnose("NotFoundError: /usr/local/lib/python3.11/dist-packages/tensorflow_io/python/ops/libtensorflow_"
                          "io.so: undefined symbol: _ZN10tensorflow8internal15LogMessageFatalD1Ev")
    assert r["signature"] == "tensorflow-addon-for-another-tensorflow" and "tensorflow-io" in _fix(r)


def test_tensorflows_windows_self_check_on_the_cuda_runtime():
    r = diagnose.diagnose('  File "C:\\tf\\lib\\site-packages\\tensorflow\\python\\platform\\self_check.py", line 75, in '
                          "preload_check\n    ctypes.WinDLL(build_info.cudart_dll_name)\n  File \"C:\\tf\\lib\\ctypes\\"
                          "__init__.py\", line 351, in __init__\nOSError: [WinError 126] The specified module could not "
                          "be found")
    assert r["signature"] == "tensorflow-preload-cuda-dll" and r["layer"] == "tensorflow" and "PATH" in _fix(r)


@pytest.mark.parametrize("libs, layer", [("libcudnn.so", "cudnn"), ("libcublas.so", "libraries")])
def test_paddles_third_party_library(libs, layer):
    r = diagnose.diagnose(f"PreconditionNotMetError: The third-party dynamic library ({libs}) that Paddle depends on is "
                          "not configured correctly. (error code is libcudnn.so: cannot open shared object file)")
    assert r["signature"] == "paddle-cuda-library-not-loaded" and r["layer"] == layer
    assert "paddle.version.cuda()" in _fix(r)


def test_paddles_cpu_package():
    r = diagnose.diagnose("You are using GPU version PaddlePaddle, but there is no GPU detected on your machine. Maybe "
                          "CUDA devices is not set properly.\n Original Error is Not compiled with CUDA")
    assert r["signature"] == "paddle-cpu-package" and "paddlepaddle-gpu" in _fix(r)


def test_mindsporess_cuda_check():
    r = diagnose.diagnose("OSError: MindSpore version 2.2.0 and cuda version 11.1 does not match")
    assert r["signature"] == "mindspore-cuda-mismatch" and "LD_LIBRARY_PATH" in _fix(r)


def test_hyperv_partition_policy():
    r = diagnose.diagnose("Could not allocate partitionable GPU device 'PCI#VEN_10DE' that is not compliant with "
                          "currently set group policy.")
    assert r["signature"] == "hyperv-gpu-partition-policy" and "RequireSupportedDeviceAssignment" in _fix(r)


def test_an_invalid_ordinal_names_visible_devices_and_mig():
    r = diagnose.diagnose("RuntimeError: CUDA error: invalid device ordinal")
    assert r["signature"] == "invalid-device-ordinal" and "MIG-<uuid>" in _fix(r)
