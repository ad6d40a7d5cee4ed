"""explain's forty-third round, from test43's misses (GPU machines rented in the cloud): the NVIDIA installer's module
that did not load (Secure Boot's signing read first), DKMS' stale entry, and AWS's NCCL plugin without EFA. The texts
are written for these tests from the tools' messages, not copied from the corpus."""

from __future__ import annotations

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


_INSTALLER = ("ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel "
              "module was built against the wrong or improperly configured kernel sources")


def test_the_installers_module_under_secure_boot_is_its_signature():
    r = diagnose.diagnose("The VM has Secure Boot enabled.\n" + _INSTALLER)
    assert r["signature"] == "installer-module-not-loaded" and r["layer"] == "driver", r
    assert "Secure Boot" in r["title"] and "mokutil" in _fix(r)


def test_the_installers_module_otherwise_names_every_cause():
    r = diagnose.diagnose(_INSTALLER)
    assert r["signature"] == "installer-module-not-loaded" and "Secure Boot" not in r["title"], r
    assert "linux-headers-$(uname -r)" in _fix(r) and "nouveau" in _fix(r)


def test_dkms_stale_entry_names_the_version_to_remove():
    r = diagnose.diagnose("$ dkms status\nError! Could not locate dkms.conf file.\nFile: "
                          "/var/lib/dkms/nvidia/470.82/source/dkms.conf does not exist.")
    assert r["signature"] == "dkms-stale-entry" and r["layer"] == "driver", r
    assert "dkms remove nvidia/470.82 --all" in _fix(r)


def test_aws_nccl_plugin_without_efa():
    r = diagnose.diagnose("ip-10-0-0-1:42:42 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl\n"
                          "ip-10-0-0-1:42:42 [0] NCCL WARN NET/OFI Only EFA provider is supported")
    assert r["signature"] == "nccl-ofi-without-efa" and r["layer"] == "distributed" and "EFA" in _fix(r), r
