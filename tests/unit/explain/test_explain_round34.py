"""explain's thirty-fourth round, from test34's misses (the ARM machines torch runs on): the torch releases whose
aarch64 wheels need ARMv8.1 atomics (SIGILL on ARMv8.0 cores), JetPack 4's l4t images that take CUDA from the host
through the NVIDIA runtime, the Jetson's nvhost/nvmap device nodes, the system OpenBLAS ARM builds link to. The texts
are written for these tests from each message and the threads' sources, not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge.arm_baseline import armv8_0_regression
from explain_answers import fix_of as _fix


@pytest.mark.parametrize("version, fixed", [("2.10.0", "2.11.0"), ("2.6.0+cpu", "2.7.0"), ("2.4.0", "2.4.1")])
def test_the_lse_regressions_name_the_release_that_fixed_them(version, fixed):
    row = armv8_0_regression(version)
    assert row["fixed_in"] == fixed and row["sources"][0]["url"].startswith("https://github.com/pytorch/pytorch/")


@pytest.mark.parametrize("version", ["2.9.1", "2.11.0", "garbage", None])
def test_other_releases_are_not_lse_regressions(version):
    assert armv8_0_regression(version) is None


def test_sigill_on_a_pi_with_torch_2_10_is_the_wheels_baseline():
    r = diagnose.diagnose("Raspberry Pi 4 (aarch64), pip install torch==2.10.0\n$ python3 -c 'import torch'\n"
                          "Illegal instruction (core dumped)")
    assert r["layer"] == "torch-build", r
    assert "2.11.0" in _fix(r) and "ARMv8.0" in _fix(r), _fix(r)


def test_sigill_on_arm_with_another_torch_keeps_the_openblas_reading():
    r = diagnose.diagnose("Jetson Nano, torch 1.10.0 from NVIDIA\n>>> import torch\nIllegal instruction (core dumped)")
    assert "OPENBLAS_CORETYPE" in _fix(r), _fix(r)


@pytest.mark.parametrize("build", [True, False])
def test_a_cuda_library_missing_in_an_l4t_image_is_the_nvidia_runtime(build):
    head = ("FROM nvcr.io/nvidia/l4t-ml:r32.7.1-py3\nStep 5/9 : RUN python3 -c 'import cv2'\n" if build else
            "$ docker run -it nvcr.io/nvidia/l4t-ml:r32.7.1-py3 python3 -c 'import cv2'\n")
    r = diagnose.diagnose(head +
                          "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory")
    assert r["signature"] == "l4t-container-without-runtime" and r["layer"] == "container", r
    assert "default-runtime" in _fix(r) and "--runtime nvidia" in _fix(r), _fix(r)
    assert ("docker build" in r["explanation"]) == build, r["explanation"]


def test_a_cuda_library_missing_outside_l4t_is_not_the_jetson_answer():
    r = diagnose.diagnose("ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory")
    assert r["signature"] != "l4t-container-without-runtime", r


@pytest.mark.parametrize("line", ["NvRmMemInitNvmap failed with Permission denied",
                                  "Error: Can't initialize nvrm channel"])
def test_the_jetsons_device_nodes_are_the_video_group(line):
    r = diagnose.diagnose(line + "\nCouldn't create ddkvic Session: Cannot allocate memory")
    assert r["signature"] == "jetson-device-nodes" and r["layer"] == "driver", r
    assert "usermod -aG video" in _fix(r), _fix(r)


def test_the_system_openblas_is_an_os_package():
    r = diagnose.diagnose("  File \"/usr/local/lib/python3.10/dist-packages/torch/__init__.py\", line 235, in <module>\n"
                          "    from torch._C import *\nImportError: libopenblas.so.0: cannot open shared object file: No "
                          "such file or directory")
    assert r["signature"] == "openblas-library-missing" and "libopenblas-dev" in _fix(r), r
