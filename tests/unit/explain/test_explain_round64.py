"""explain's sixty-fourth round, from test72's and test73's misses (PyTorch under ROCm; cuDNN on its own): HSA's
statuses, ROCm's GPU memory faults, a host without /dev/kfd, MIOpen's unreadable database, cuDNN's frontend without a
plan. The texts are written for these tests from the runtimes' own messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_an_hsa_status_is_rocms():
    r = diagnose.diagnose("HCC STATUS_CHECK Error: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008) at file:mcwamp_hsa.cpp")
    assert r["signature"] == "hsa-status-out-of-resources" and r["layer"] == "rocm" and "rocminfo" in _fix(r)


def test_kfds_own_refusal_before_the_status_is_read_instead():
    r = diagnose.diagnose("Unable to open /dev/kfd read-write: Cannot allocate memory\n"
                          "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate")
    assert r["signature"] != "hsa-status-out-of-resources"


def test_a_gpu_memory_fault_under_rocm():
    r = diagnose.diagnose("Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f12. Reason: Page not "
                          "present or supervisor privilege.\nAborted (core dumped)")
    assert r["signature"] == "rocm-gpu-memory-fault" and r["layer"] == "rocm" and "HSA_OVERRIDE_GFX_VERSION" in _fix(r)


def test_a_host_without_kfd_for_the_container():
    r = diagnose.diagnose('docker: Error response from daemon: error gathering device information while adding custom '
                          'device "/dev/kfd": no such file or directory.')
    assert r["signature"] == "host-without-rocm-devices" and r["layer"] == "rocm" and "amdgpu" in _fix(r)


def test_miopens_unreadable_database_is_a_notice():
    r = diagnose.diagnose("MIOpen(HIP): Warning [SQLiteBase] Unable to read system database file:gfx1100_48.kdb "
                          "Performance may degrade")
    assert r["signature"] == "miopen-kernel-database-missing" and r["layer"] == "not-environment"


def test_cudnns_frontend_without_a_plan_is_the_operation():
    r = diagnose.diagnose("RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the "
                          "graph.")
    assert r["signature"] == "cudnn-frontend-no-plan" and r["layer"] == "not-environment"
    assert "enable_cudnn_sdp(False)" in _fix(r)
