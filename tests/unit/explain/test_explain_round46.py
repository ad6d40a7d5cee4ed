"""explain's forty-sixth round, from test46's misses (computer-vision libraries): YOLO's select_device hiding the GPU
through CUDA_VISIBLE_DEVICES, torchvision's bare image-extension warning, spconv's CPU wheels, NVIDIA's video decoder
libraries, a static archive without -fPIC linked into an extension, and the display watchdog behind a launch timeout.
The texts are written for these tests from the libraries' messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


@pytest.mark.parametrize("device", ["gpu", "cuda"], ids=["device-named-g-p-u", "device-named-cuda"])
def test_select_device_with_a_name_hides_every_gpu(device):
    r = diagnose.diagnose('  File "utils/torch_utils.py", line 40, in select_device\n'
                          f"AssertionError: CUDA unavailable, invalid device {device} requested")
    assert r["signature"] == "select-device-hides-gpu" and r["layer"] == "env", r
    assert f"'{device}'" in r["title"] and "--device 0" in _fix(r)


def test_select_device_where_the_shell_sees_the_gpu():
    r = diagnose.diagnose("    assert torch.cuda.is_available(), f'CUDA unavailable, invalid device {device} requested'\n"
                          "AssertionError\n>>> import torch\n>>> torch.cuda.is_available()\nTrue")
    assert r["signature"] == "select-device-hides-gpu", r
    assert "CUDA_VISIBLE_DEVICES" in r["explanation"] + _fix(r)


def test_select_device_with_an_index_and_no_gpu_seen_is_not_this_rule():
    r = diagnose.diagnose("AssertionError: CUDA unavailable, invalid device 0 requested")
    assert r is None or r["signature"] != "select-device-hides-gpu", r


def test_torchvisions_bare_image_warning_is_not_an_installation_problem():
    r = diagnose.diagnose("/env/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image "
                          "Python extension: ''If you don't plan on using image functionality from `torchvision.io`, you "
                          "can ignore this warning.\n  warn(")
    assert r["signature"] == "torchvision-image-extension-warning" and r["environment_problem"] is False, r
    assert "torchvision.io" in _fix(r) and not _INSTALL.search(_fix(r))


def test_torchvisions_image_warning_with_a_reason_is_left_to_that_reason():
    r = diagnose.diagnose("UserWarning: Failed to load image Python extension: '/env/lib/python3.10/site-packages/"
                          "torchvision/image.so: undefined symbol: _ZN3c1017RegisterOperatorsD1Ev'")
    assert r["signature"] != "torchvision-image-extension-warning", r


def test_torchvisions_image_warning_before_an_error_is_not_the_answer():
    r = diagnose.diagnose("UserWarning: Failed to load image Python extension: \nTraceback (most recent call last):\n"
                          "RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert r["signature"] != "torchvision-image-extension-warning", r


def test_tensorview_without_cuda_is_spconvs_cpu_wheel():
    r = diagnose.diagnose("torch 2.1.2+cu118\n  File \"/env/lib/python3.10/site-packages/spconv/pytorch/conv.py\"\n"
                          "ValueError: /io/include/tensorview/tensor.h(171)\ndon't compiled with cuda")
    assert r["signature"] == "spconv-cpu-build" and r["layer"] == "toolchain", r
    assert "spconv-cu118" in _fix(r) and "pip uninstall -y spconv cumm" in _fix(r)


def test_nvdec_in_a_container_is_the_video_capability():
    r = diagnose.diagnose("docker run --gpus all img\nRuntimeError: [cuda_parser.h:39] CUDAError: cuvidCreateVideoParser"
                          "(&parser_, &parser_info_) failed with error: CUDA_ERROR_NOT_SUPPORTED")
    assert r["signature"] == "nvdec-driver-library" and r["layer"] == "driver", r
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video" in _fix(r)


def test_nvdec_library_missing_on_a_host_is_the_drivers_decode_package():
    r = diagnose.diagnose("OSError: libnvcuvid.so.1: cannot open shared object file: No such file or directory")
    assert r["signature"] == "nvdec-driver-library" and "libnvidia-decode" in _fix(r), r


def test_ffmpeg_static_archive_without_pic():
    r = diagnose.diagnose("/usr/bin/ld: /usr/local/lib/libavcodec.a(vc1dsp_mmx.o): relocation R_X86_64_PC32 against "
                          "symbol `ff_pw_9' can not be used when making a shared object; recompile with -fPIC\n"
                          "/usr/bin/ld: final link failed: bad value")
    assert r["signature"] == "static-library-without-pic" and r["layer"] == "toolchain", r
    assert "--enable-shared" in _fix(r) and "libavcodec.a" in r["title"]


def test_python_static_archive_without_pic():
    r = diagnose.diagnose("/usr/bin/ld: /opt/py/lib/libpython3.10.a(abstract.o): relocation R_X86_64_32S against "
                          "`_Py_NotImplementedStruct' can not be used when making a shared object; recompile with -fPIC")
    assert r["signature"] == "static-library-without-pic" and "PYTHON_CONFIGURE_OPTS=--enable-shared" in _fix(r), r


def test_unknown_archive_without_pic_gets_the_flag():
    r = diagnose.diagnose("ld: relocation R_X86_64_32 against `.rodata' can not be used when making a shared object; "
                          "recompile with -fPIC")
    assert r["signature"] == "static-library-without-pic" and "-fPIC" in _fix(r), r


def test_launch_timeout_names_the_display_watchdog_on_any_os():
    r = diagnose.diagnose("RuntimeError: CUDA error: the launch timed out and was terminated")
    assert r["layer"] == "driver" and "watchdog" in _fix(r) + r["explanation"], r
    assert "TdrDelay" in _fix(r)
