"""explain's twentieth round, from test20's misses (a change the user just made) read as structure: JAX's version
checks of every CUDA library; an nvidia/cuda tag Docker Hub no longer has; nvidia-docker's "driver 0.0" is the
runtime, not an old driver; conda's own verify and download errors; DKMS's failed module build for a new kernel;
xformers' Triton notice alone is no failure; a package's failure that names the pin to install; an unknown CUDA error
mid-run points at the kernel log.  The texts follow each tool's documented format; the oracle is what it means."""

from __future__ import annotations

from torch_envcheck.explain import diagnose


def test_jax_refuses_an_older_cuda_library_of_any_kind():
    r = diagnose.diagnose("CUDA backend failed to initialize: Found cuSPARSE version 12100, but JAX was built against "
                          "version 12500, which is newer. The copy of cuSPARSE that is installed must be at least as new "
                          "as the version against which JAX was built.")
    assert r["signature"] == "jax-cuda-library-too-old" and r["layer"] == "libraries", r
    assert "nvidia-cusparse" in r["fix"] and "LD_LIBRARY_PATH" in r["fix"], r["fix"]
    assert "12.1.0" in r["title"] and "12.5.0" in r["title"], r["title"]
    o = diagnose.diagnose("RuntimeError: Outdated cuBLAS installation found.\n  File \"jax_plugins/xla_cuda12/__init__.py\"")
    assert o["signature"] == "jax-cuda-library-too-old" and "nvidia-cublas" in o["fix"], o


def test_an_nvidia_cuda_tag_that_is_gone():
    r = diagnose.diagnose(" => ERROR [internal] load metadata for docker.io/nvidia/cuda:10.1-cudnn7-devel-ubuntu18.04\n"
                          "failed to solve: nvidia/cuda:10.1-cudnn7-devel-ubuntu18.04: docker.io/nvidia/cuda:10.1-cudnn7-"
                          "devel-ubuntu18.04: not found")
    assert r["signature"] == "cuda-image-tag-gone" and r["layer"] == "container", r
    assert "10.1-cudnn7-devel-ubuntu18.04" in r["title"], r["title"]
    # a tag that pulled fine is no error
    ok = diagnose.diagnose("Step 1/5 : FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n ---> 3f1c2e8d9a0b")
    assert ok["signature"] != "cuda-image-tag-gone", ok["signature"]


def test_nvidia_docker_reading_driver_zero_is_the_runtime_not_an_old_driver():
    r = diagnose.diagnose("Error: unsupported CUDA version: driver 0.0 < image 9.0.176")
    assert r["signature"] == "container-runtime-reads-no-driver" and r["layer"] == "container", r
    old = diagnose.diagnose("Error: unsupported CUDA version: driver 8.0 < image 9.0.176")
    assert old["signature"] == "container-driver-too-old-for-image", old["signature"]


def test_conda_cache_corrupt_and_channel_http_errors():
    r = diagnose.diagnose("CondaVerificationError: The package for pytorch located at /opt/conda/pkgs/pytorch-1.13.1-py3.9"
                          "_cuda11.7_cudnn8.5.0_0\nappears to be corrupted. The path 'lib/python3.9/site-packages/torch/"
                          "lib/libtorch_cuda.so'\nspecified in the package manifest cannot be found.")
    assert r["signature"] == "conda-package-cache-corrupt" and "conda clean" in r["fix"], r
    h = diagnose.diagnose("CondaHTTPError: HTTP 404 NOT FOUND for url <https://conda.anaconda.org/pytorch/linux-64/"
                          "pytorch-2.6.0-py3.11_cuda12.4_cudnn9.1.0_0.tar.bz2>")
    assert h["signature"] == "conda-channel-http-error" and "conda-forge" in h["fix"], h
    n = diagnose.diagnose("CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://conda.anaconda.org/conda-forge/"
                          "linux-64/repodata.json>")
    assert n["signature"] == "conda-channel-http-error" and "proxy" in n["fix"], n


def test_dkms_failing_for_a_new_kernel():
    r = diagnose.diagnose("Building module:\nError! Bad return status for module build on kernel: 6.8.0-45-generic "
                          "(x86_64)\nConsult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.\n"
                          "dpkg: error processing package nvidia-dkms-535 (--configure)")
    assert r["signature"] == "nvidia-module-not-built-for-kernel" and r["layer"] == "driver", r
    assert "linux-headers-6.8.0-45-generic" in r["fix"] and "make.log" in r["fix"], r["fix"]


def test_xformers_triton_notice_alone_is_not_a_failure():
    r = diagnose.diagnose("A matching Triton is not available, some optimizations will not be enabled\n"
                          "Traceback (most recent call last):\n  File \"xformers/__init__.py\", line 57, in _is_triton"
                          "_available\n    import triton\nModuleNotFoundError: No module named 'triton'")
    assert r["signature"] == "optional-triton-kernels-off" and r["environment_problem"] is False, r
    assert "pip install" not in (r["fix"] or "") and "Nothing needs installing" in (r["fix"] or ""), r["fix"]
    # followed by a real failure, it is not the answer
    f = diagnose.diagnose("A matching Triton is not available, some optimizations will not be enabled\n"
                          "RuntimeError: CUDA error: no kernel image is available for execution on the device")
    assert f["signature"] != "optional-triton-kernels-off", f["signature"]


def test_a_failure_that_names_the_pin_to_install():
    r = diagnose.diagnose("Exception: Failed to import Triton-based component: fused_layer_norm:\nNot Supported\n"
                          "Please make sure to install triton==3.2.0. Other versions may not work!")
    assert r["signature"] == "package-asks-for-pin" and "triton==3.2.0" in r["fix"], r
    # advice with no failure is not this
    a = diagnose.diagnose("Tip: please make sure to install numpy==1.26.4 for the examples.")
    assert a["signature"] != "package-asks-for-pin", a["signature"]


def test_unknown_cuda_error_advice_names_the_kernel_log():
    r = diagnose.diagnose("RuntimeError: CUDA error: unknown error\nCUDA kernel errors might be asynchronously reported")
    assert r["layer"] == "driver" and "dmesg" in r["fix"] and "nvidia_uvm" in r["fix"], r
