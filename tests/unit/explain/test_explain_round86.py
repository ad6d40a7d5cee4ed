"""explain's eighty-sixth round, from the misses of test125 (Intel GPUs) and test126 (Kubernetes): containerd without
NVIDIA's runtime for a RuntimeClass, and a Kubernetes GPU component that cannot load NVML in its container. The texts
are written for these tests from the components' message formats, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_runtimeclass_without_its_handler_is_the_nodes_runtime():
    r = diagnose.diagnose('kubelet[99]: E1201 pod_workers.go:1] "Error syncing pod" err="failed to get sandbox runtime: '
                          'no runtime for \\"nvidia\\" is configured"')
    assert r["signature"] == "runtime-handler-missing" and r["layer"] == "container"
    assert "nvidia-ctk runtime configure --runtime=containerd" in _fix(r)


def test_another_handler_is_not_nvidias():
    r = diagnose.diagnose('failed to get sandbox runtime: no runtime for "kata" is configured')
    assert r.get("signature") != "runtime-handler-missing"


def test_the_device_plugin_without_nvml_is_its_containers_driver_libraries():
    r = diagnose.diagnose("I1201 10:00:00.000000       1 main.go:1] Starting device plugin\nW1201 10:00:01.000000       "
                          "1 rm.go:109] NVML not detected: could not load NVML library: libnvidia-ml.so.1: cannot open "
                          "shared object file: No such file or directory")
    assert r["signature"] == "nvml-unloadable-in-gpu-component" and r["layer"] == "container"
    assert "--set-as-default" in _fix(r) and "nvidiaDriverRoot" in _fix(r)


def test_go_nvml_outside_kubernetes_is_not_this_reading():
    r = diagnose.diagnose("exporter: could not load NVML library")
    assert r.get("signature") != "nvml-unloadable-in-gpu-component"
