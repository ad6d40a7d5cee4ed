"""explain's forty-fourth round, from test44's misses (GPU simulators and headless rendering): EGL's error codes
decoded from Khronos' egl.h and eglInitialize failing, the EGL/GL libraries missing (a container's graphics
capability), a driver below a component's encoded CUDA version, and Omniverse RTX's driver check. The texts are
written for these tests from the tools' messages, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.explain.layer_rules.graphics import EGL_ERRORS
from explain_answers import fix_of as _fix


def test_egl_codes_carry_their_header_names():
    assert EGL_ERRORS[0x3008] == "EGL_BAD_DISPLAY" and EGL_ERRORS[12289] == "EGL_NOT_INITIALIZED"


@pytest.mark.parametrize("text, name", [
    ("RuntimeError: EGL error at eglInitialize with error code: 12296", "EGL_BAD_DISPLAY"),
    ("[F glutil.cpp:338] eglInitialize() failed", None),
    ("ImportError: Cannot initialize a EGL device display. EGL_NOT_INITIALIZED", "EGL_NOT_INITIALIZED"),
])
def test_egl_without_a_display_is_the_drivers_egl(text, name):
    r = diagnose.diagnose(text)
    assert r["signature"] == "egl-no-display" and r["layer"] == "driver", r
    assert "10_nvidia.json" in _fix(r) and "NVIDIA_DRIVER_CAPABILITIES" in _fix(r)
    if name:
        assert name in r["title"]


def test_an_egl_code_of_a_program_is_not_a_missing_display():
    r = diagnose.diagnose("RuntimeError: EGL error at eglCreateContext with error code: 12297")  # EGL_BAD_MATCH
    assert r is None or r["signature"] != "egl-no-display", r


def test_gl_libraries_missing_in_a_container_is_its_graphics_capability():
    r = diagnose.diagnose("docker run --gpus all img\nerror while loading shared libraries: libEGL.so.1: cannot open "
                          "shared object file: No such file or directory")
    assert r["signature"] == "gl-libraries-missing" and r["layer"] == "container", r
    assert "NVIDIA_DRIVER_CAPABILITIES=all" in _fix(r) and "libegl1" in _fix(r)


def test_gl_libraries_missing_on_a_host_is_libglvnd_and_the_drivers_gl():
    r = diagnose.diagnose("error while loading shared libraries: libOpenGL.so.0: cannot open shared object file")
    assert r["signature"] == "gl-libraries-missing" and r["layer"] == "driver" and "libopengl0" in _fix(r), r


def test_an_encoded_cuda_version_below_the_components():
    r = diagnose.diagnose("warning : CUDA driver version is 11020, expected at least 11040.")
    assert r["signature"] == "driver-below-component-cuda" and r["layer"] == "driver", r
    assert "11.2" in r["title"] and "11.4" in r["title"]


def test_omniverse_rtx_driver_check():
    r = diagnose.diagnose("[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is unsupported "
                          "or has known issues. The recommended drivers: 535.161.07 (GameReady)")
    assert r["signature"] == "rtx-driver-unsupported" and "535.161.07" in _fix(r), r
