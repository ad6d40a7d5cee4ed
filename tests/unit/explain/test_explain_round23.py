"""explain's twenty-third round, from test23's misses (the OS distribution): pip on Alpine Linux (musl libc) finds
no torch wheel, because torch's wheels carry manylinux (glibc) tags and pip on musl accepts musllinux ones only (PEP
656); the answer is a glibc-based image, not another Python.  The oracle is the platform-tag rule."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose

_NONE = ("ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
         "ERROR: No matching distribution found for torch")


@pytest.mark.parametrize("where", ["FROM python:3.11-alpine\nRUN pip install torch", "/ # apk add py3-pip",
                                   "Platform: musllinux_1_2_x86_64", "bash-5.1# cat /etc/os-release\nNAME=\"Alpine Linux\""])
def test_pip_on_musl_finds_no_torch(where):
    r = diagnose.diagnose(where + "\n" + _NONE)
    assert r["signature"] == "torch-no-wheel-musl" and r["layer"] == "torch-build", r
    assert "glibc" in r["fix"] and "slim" in r["fix"], r["fix"]


def test_without_a_musl_marker_it_is_the_python():
    r = diagnose.diagnose("$ pip install torch\n" + _NONE)
    assert r["signature"] == "torch-no-wheel-for-python", r["signature"]


def test_the_placeholder_sdist_on_alpine_is_musl():
    r = diagnose.diagnose("Cannot install torch on python:3.7-alpine\n/ # pip3.7 install torch\nCollecting torch\n"
                          "  Downloading https://files.pythonhosted.org/packages/5f/e9/x/torch-0.1.2.post1.tar.gz\n"
                          "    RuntimeError: PyTorch does not currently provide packages for PyPI")
    assert r["signature"] == "torch-placeholder-sdist-musl" and "glibc" in r["fix"], r
    plain = diagnose.diagnose("Collecting torch\n  Downloading torch-0.1.2.post2.tar.gz (128 kB)")
    assert plain["signature"] == "torch-placeholder-sdist", plain["signature"]
