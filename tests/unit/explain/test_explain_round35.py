"""explain's thirty-fifth round, from test35's misses (the GPU itself failing or degrading): nvidia-smi's own words
on a GPU's state (a reset refused while a client holds the GPU, row remapping pending or failed, ERR! in the power
column alone) and the Fabric Manager's "Nothing to do" on a machine without NVSwitches. The texts are written for these
tests from the tools' output formats and NVIDIA's documentation, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def test_a_reset_refused_is_the_clients_that_hold_the_gpu():
    r = diagnose.diagnose("$ sudo nvidia-smi -r -i 3\nThe following GPUs could not be reset:\n  GPU 00000000:3B:00.0: In "
                          "use by another client\n\n1 device is currently being used by one or more other processes")
    assert r["signature"] == "gpu-reset-refused-in-use" and r["layer"] == "driver", r
    assert "nvidia-smi -pm 0" in _fix(r) and "fuser" in _fix(r), _fix(r)


def test_row_remapping_pending_is_a_reset():
    r = diagnose.diagnose("    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error   "
                          "            : 2\n        Pending                           : Yes\n        Remapping Failure "
                          "Occurred        : No")
    assert r["signature"] == "row-remapping-pending" and "nvidia-smi -r" in _fix(r), r


def test_a_failed_row_remapping_is_the_rma_threshold():
    r = diagnose.diagnose("    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error   "
                          "            : 512\n        Pending                           : No\n        Remapping Failure "
                          "Occurred        : Yes")
    assert r["signature"] == "row-remapping-failed" and "replaced" in _fix(r), r


def test_the_fabric_manager_without_nvswitch_is_not_needed():
    r = diagnose.diagnose("systemd[1]: Starting NVIDIA fabric manager service...\nnv-fabricmanager[2212]: request to "
                          "query NVSwitch device information from NVSwitch driver failed with error:WARNING Nothing to do "
                          "[NV_WARN_NOTHING_TO_DO]\nsystemd[1]: nvidia-fabricmanager.service: Failed with result "
                          "'exit-code'.")
    assert r["signature"] == "fabric-manager-without-nvswitch" and "disable --now nvidia-fabricmanager" in _fix(r), r


def test_err_in_the_power_column_alone_is_a_reading():
    r = diagnose.diagnose("|   0  NVIDIA A10          On   | 00000000:00:1E.0 Off |                    0 |\n"
                          "|  0%   31C    P8    ERR! / 150W |      0MiB / 23028MiB |      0%      Default |")
    assert r["signature"] == "nvidia-smi-power-reading" and r["environment_problem"] is False, r


def test_err_across_the_fields_stays_the_error_state():
    r = diagnose.diagnose("NVIDIA-SMI 550.54.15\n|   0  ERR!                ERR!  | 00000000:00:1E.0 Off |                 "
                          "ERR! |\n|ERR!  ERR!  ERR!    ERR! / ERR! |      0MiB / 23028MiB |    ERR!      Default |")
    assert r["signature"] == "gpu-in-error-state" and r["layer"] == "driver", r
