"""explain's seventy-ninth round, from the misses of test109 to test112 (features an older GPU lacks, computer-vision
toolkits, launchers, simulators and their rendering): EGL failures as PyOpenGL and Magnum print them, Magnum's EGL
device for a CUDA device, MuJoCo's EGL device display, OpenGL's error codes, PhysX's GPU kernels, BLAS's xerbla line,
a failed device count, a package built without its CUDA code, version ranges printed as lists, TensorRT's FP16
warning. The texts are written for these tests from the tools' own message formats, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_pyopengls_egl_error_is_decoded_from_decimal():
    r = diagnose.diagnose("OpenGL.error.GLError: GLError(\n\terr = 12289,\n\tbaseOperation = eglInitialize,\n\tresult = 0\n)")
    assert r["signature"] == "egl-no-display" and r["layer"] == "driver" and "EGL_NOT_INITIALIZED" in r["title"]
    assert "10_nvidia.json" in _fix(r)


def test_a_decimal_egl_code_that_is_not_about_the_display_is_left_alone():
    r = diagnose.diagnose("GLError(\n\terr = 12297,\n\tbaseOperation = eglMakeCurrent,\n\tresult = 0\n)")
    assert r.get("signature") != "egl-no-display"


def test_magnums_default_display_failure_names_its_code():
    r = diagnose.diagnose("Platform::WindowlessEglApplication::tryCreateContext(): cannot get default EGL display: "
                          "EGL_BAD_ALLOC\nWindowlessContext: Unable to create windowless context")
    assert r["signature"] == "egl-no-display" and "EGL_BAD_ALLOC" in r["title"] and "libEGL_nvidia" in _fix(r)


def test_magnum_finding_no_egl_device_for_the_cuda_device():
    r = diagnose.diagnose("Platform::WindowlessEglApplication::tryCreateContext(): unable to find CUDA device 1 among 3 "
                          "EGL devices in total\nWindowlessContext: Unable to create windowless context")
    assert r["signature"] == "egl-device-for-cuda-missing" and r["layer"] == "env"
    assert "CUDA device 1" in r["title"] and "3 EGL devices" in r["title"] and "gpu_device_id" in _fix(r)


def test_mujocos_egl_device_display():
    r = diagnose.diagnose("ImportError: Cannot initialize a EGL device display. This likely means that your EGL driver "
                          "does not support the PLATFORM_DEVICE extension, which is required for creating a headless "
                          "rendering context.")
    assert r["signature"] == "egl-platform-device-missing" and r["layer"] == "env"
    assert "MUJOCO_GL=osmesa" in _fix(r)


@pytest.mark.parametrize("text, name, layer", [
    ("OpenGL Error(1282): render.c 40\nThe specified operation is not allowed in the current state.",
     "GL_INVALID_OPERATION", "driver"),
    ("GL error 0x0506 after glDrawArrays", "GL_INVALID_FRAMEBUFFER_OPERATION", "driver"),
    ("OpenGL Error(1285): out of memory", "GL_OUT_OF_MEMORY", "not-environment"),
])
def test_opengl_error_codes_are_decoded(text, name, layer):
    r = diagnose.diagnose(text)
    assert name in r["title"] and r["layer"] == layer


def test_physx_failing_to_launch_its_kernels_is_the_scene():
    r = diagnose.diagnose("/buildAgent/work/abc/source/gpusimulationcontroller/src/PxgSimulationCore.cpp (400) : internal "
                          "error : GPU updateBodies fail to launch kernel!!")
    assert r["signature"] == "physx-gpu-launch-failed" and r["environment_problem"] is False
    assert "num_envs" in _fix(r)


@pytest.mark.parametrize("text, xla", [
    ("** On entry to SGEMM  parameter number 10 had an illegal value", False),
    ("2024-01-01 W external/xla/xla/service/gpu/gemm_algorithm_picker.cc:1 autotuning\n ** On entry to GEMM_EX  "
     "parameter number 12 had an illegal value", True),
])
def test_blas_refusing_an_argument_is_the_callers(text, xla):
    r = diagnose.diagnose(text)
    assert r["signature"] == "blas-argument-refused" and r["environment_problem"] is False
    assert ("autotuner" in _fix(r)) is xla


@pytest.mark.parametrize("text", ["Failed to query CUDA device count.",
                                  "Warp CUDA error: cuDeviceGetCount failed (error 999)"])
def test_a_failed_device_count_is_the_driver(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "driver" and "nvidia-smi" in _fix(r)


@pytest.mark.parametrize("text, mmcv", [("Compiling mmcv._ext without CUDA", True),
                                        ("Building pointnet2_ops without CUDA support", False)])
def test_a_package_built_without_its_cuda_code(text, mmcv):
    r = diagnose.diagnose(text)
    assert r["signature"] == "extension-built-without-cuda" and r["layer"] == "toolchain"
    assert "FORCE_CUDA=1" in _fix(r) and ("mim install mmcv" in _fix(r)) is mmcv


def test_a_version_range_printed_as_lists():
    r = diagnose.diagnose("AssertionError: MMCV==1.7.0 is used but incompatible. Please install mmcv>=[1, 3, 1], "
                          "<=[1, 4, 0].")
    assert r["signature"] == "package-version-out-of-range" and "mmcv-full>=1.3.1,<=1.4.0" in _fix(r)


def test_tensorrts_half2_warning_is_the_gpus_fp16():
    r = diagnose.diagnose("[TensorRT] WARNING: Half2 support requested on hardware without native FP16 support, "
                          "performance will be negatively affected.")
    assert r["signature"] == "gpu-lacks-fast-fp16" and r["layer"] == "arch" and "FP32" in _fix(r)


def test_a_checkers_cuda_failed_with_a_number_is_decoded():
    r = diagnose.diagnose("CUDA failed: 2 error at line 30")
    assert r["signature"] == "code-cudaerror-memoryallocation" and r["environment_problem"] is False
