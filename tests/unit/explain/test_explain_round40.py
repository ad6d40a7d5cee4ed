"""explain's fortieth round, from test40's misses (containers and Kubernetes): nvidia-container-cli's own failures
(rootless device cgroups, a driver error decoded at initialisation), podman's GPUs through
CDI, a node whose device plugin marked GPUs unhealthy, nvcc under an image tag's flavour, glibc binaries on musl,
and MIG instances in one process. The texts are written for these tests from the tools' messages, not copied from
the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_driver_error_at_the_toolkits_initialisation_is_the_hosts_driver():
    r = diagnose.diagnose("docker: Error response from daemon: OCI runtime create failed: nvidia-container-cli: "
                          "initialization error: cuda error: unknown error: unknown.")
    assert r["signature"] == "container-cli-host-driver-error" and r["layer"] == "driver", r
    assert "unknown error" in r["title"] and "reboot" in _fix(r)


@pytest.mark.parametrize("detail", ["mount error: failed to add device rules: unable to find any existing device filters",
                                    "mount error: failed to add device rules: failed to obtain existing device filters: "
                                    "failed to call bpf_prog_query(BPF_CGROUP_DEVICE) failed: operation not permitted"])
def test_rootless_device_cgroups_turn_the_toolkits_cgroups_off(detail):
    r = diagnose.diagnose("stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: " + detail + ": unknown")
    assert r["signature"] == "container-cli-device-cgroups" and r["layer"] == "container", r
    assert "no-cgroups" in _fix(r)


def test_the_known_cli_failures_keep_their_readings():
    r = diagnose.diagnose("nvidia-container-cli: initialization error: nvml error: driver/library version mismatch")
    assert r["signature"] == "container-host-driver-stale", r
    r = diagnose.diagnose("nvidia-container-cli: initialization error: nvml error: driver not loaded")
    assert r["signature"] == "container-host-driver-not-loaded", r


def test_podman_gets_gpus_through_cdi():
    r = diagnose.diagnose("$ podman run --rm --gpus all ubuntu nvidia-smi\nError: crun: executable file `nvidia-smi` not "
                          "found in $PATH: No such file or directory: OCI runtime attempted to invoke a command that was "
                          "not found")
    assert r["signature"] == "podman-without-cdi" and r["layer"] == "container", r
    assert "--device nvidia.com/gpu=all" in _fix(r) and "cdi generate" in _fix(r)


def test_docker_without_the_runtime_keeps_its_reading():
    r = diagnose.diagnose("$ docker run --rm ubuntu nvidia-smi\ndocker: Error response from daemon: OCI runtime create "
                          "failed: exec: \"nvidia-smi\": executable file not found in $PATH: unknown.")
    assert r["signature"] == "container-without-nvidia-runtime", r


@pytest.mark.parametrize("text", [
    "status:\n  allocatable:\n    cpu: \"32\"\n    nvidia.com/gpu: \"0\"\n  capacity:\n    cpu: \"32\"\n    "
    "nvidia.com/gpu: \"8\"\n",
    "Capacity:\n  cpu:                64\n  nvidia.com/gpu:     4\nAllocatable:\n  cpu:                63\n  "
    "nvidia.com/gpu:     2\n",
])
def test_allocatable_gpus_below_capacity_are_the_device_plugins_health_check(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "k8s-gpus-unhealthy" and r["layer"] == "container", r
    assert "DP_DISABLE_HEALTHCHECKS" in _fix(r) and "kubectl logs" in _fix(r)


def test_allocatable_equal_to_capacity_is_not_a_finding():
    r = diagnose.diagnose("Capacity:\n  nvidia.com/gpu:  4\nAllocatable:\n  nvidia.com/gpu:  4\n")
    assert r is None or r["signature"] != "k8s-gpus-unhealthy", r


@pytest.mark.parametrize("tag, devel", [("12.4.1-cudnn-runtime-ubuntu22.04", "12.4.1-cudnn-devel-ubuntu22.04"),
                                        ("12.2.0-base-ubuntu22.04", "12.2.0-devel-ubuntu22.04")])
def test_nvcc_missing_in_a_runtime_or_base_image_is_the_devel_tag(tag, devel):
    r = diagnose.diagnose(f"FROM nvidia/cuda:{tag}\nRUN pip install flash-attn\n/bin/sh: 1: nvcc: not found")
    assert r["layer"] == "toolchain" and r["signature"].startswith("nvcc-missing-in-"), r
    assert f"nvidia/cuda:{devel}" in _fix(r)


def test_nvcc_missing_in_a_devel_image_is_its_path():
    r = diagnose.diagnose("FROM pytorch/pytorch:2.4.0-cuda12.4-cudnn9-devel\nRUN nvcc --version\n/bin/sh: 1: nvcc: not found")
    assert r["signature"] == "nvcc-not-on-path-in-devel-image" and "/usr/local/cuda/bin" in _fix(r), r


def test_glibc_binaries_on_musl():
    r = diagnose.diagnose("ImportError: Error relocating /usr/local/lib/python3.11/site-packages/foo/_foo.so: "
                          "__memcpy_chk: symbol not found")
    assert r["signature"] == "glibc-binary-on-musl" and r["layer"] == "c-runtime", r
    assert "slim" in _fix(r) and "_foo.so" in r["explanation"]


def test_a_missing_library_on_musl_that_is_not_glibcs_is_not_read_as_musl():
    r = diagnose.diagnose("Error loading shared library libfoo.so.1: No such file or directory (needed by /app/bar.so)")
    assert r is None or r["signature"] != "glibc-binary-on-musl", r


def test_two_mig_slices_in_one_process():
    r = diagnose.diagnose("GPU 0: NVIDIA A100-SXM4-80GB MIG 3g.40gb\nGPU 1: NVIDIA A100-SXM4-80GB MIG 3g.40gb\n"
                          "RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "
                          "\"../aten/src/ATen/cuda/CUDAContext.cpp\":50")
    assert r["signature"] == "mig-one-instance-per-process" and r["layer"] == "env", r
    assert "CUDA_VISIBLE_DEVICES=MIG-" in _fix(r)


def test_a_device_index_error_without_mig_keeps_its_reading():
    r = diagnose.diagnose("RuntimeError: CUDA error: invalid device ordinal")
    assert r["signature"] != "mig-one-instance-per-process", r
