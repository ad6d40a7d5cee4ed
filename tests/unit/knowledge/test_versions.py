"""The one version parser and the CUDA/cuDNN decoders (torch_envcheck/_util/versions.py).  The
expected values are the documented encodings: CUDA's integer is 1000 * major + 10 * minor (CUDA
Runtime API, cudaRuntimeGetVersion), cuDNN's 1000 * major + 100 * minor + patch up to 8.x and
10000 * major + 100 * minor + patch from 9.0 (cudnn_version.h, CUDNN_VERSION)."""

from __future__ import annotations

import pytest

from torch_envcheck._util import versions as v


@pytest.mark.parametrize("text, want", [
    ("580.65.06", (580, 65, 6)), ("2.14.1+cu130", (2, 14, 1)), ("2.15.0.dev20260101", (2, 15, 0)),
    ("535.104.05-1ubuntu", (535, 104, 5)), ("12", (12,)), ("  13.0 ", (13, 0)), (12.4, (12, 4)),
    ("junk", None), ("", None), (None, None), (True, None),
])
def test_version_tuple(text, want):
    assert v.version_tuple(text) == want


def test_major_minor_and_keys():
    assert v.major_minor("2.14.1+cu130") == (2, 14) and v.major_minor("12") == (12, 0) and v.major_minor("x") is None
    assert v.major("12.4") == 12 and v.major(None) is None
    assert v.release_key("2.14.1+cu130") == "2.14" and v.public("2.14.1+cu130") == "2.14.1" and v.public(None) is None
    assert v.local_tag("0.29.1+CU130") == "cu130" and v.local_tag("2.14.1") is None


@pytest.mark.parametrize("tag, cuda", [("cu130", "13.0"), ("cu118", "11.8"), ("cu92", "9.2"), ("cpu", None),
                                       ("rocm6.4", None), (None, None), (130, None)])
def test_cuda_tags(tag, cuda):
    assert v.cuda_from_tag(tag) == cuda
    if cuda:
        assert v.tag_from_cuda(cuda) == tag


@pytest.mark.parametrize("value, text", [(12040, "12.4"), (13000, "13.0"), (11080, "11.8"), (9020, "9.2"),
                                         (999, None), (0, None), (True, None), ("12040", None)])
def test_cuda_integer(value, text):
    assert v.cuda_from_int(value) == text


@pytest.mark.parametrize("value, want", [(92400, (9, 24, 0)), (90100, (9, 1, 0)), (8907, (8, 9, 7)), (7102, (7, 1, 2)),
                                         ("9.24.0", (9, 24, 0)), ("8907", (8, 9, 7)), ([9, 1], (9, 1, 0)),
                                         (999, None), (True, None), (None, None)])
def test_cudnn_integer(value, want):
    assert v.cudnn_tuple(value) == want


def test_satisfies_uses_packaging():
    assert v.satisfies("3.12.1", ">=3.10,<3.13") is True and v.satisfies("3.13.0", ">=3.10,<3.13") is False
    assert v.satisfies("3.12", "~=3.10") is True and v.satisfies("3.9", "~=3.10") is False
    assert v.satisfies("2.1.0", "") is True and v.satisfies("x", ">=1") is None and v.satisfies("1.0", "=>1") is None


def test_satisfies_without_packaging(monkeypatch):
    monkeypatch.setattr(v, "_packaging", lambda: None)
    assert v.satisfies("3.12.1", ">=3.10,<3.13") is True and v.satisfies("3.13.0", ">=3.10,<3.13") is False
    assert v.satisfies("3.11.4", "==3.11.*") is True and v.satisfies("3.12", "!=3.12") is False
    assert v.satisfies("3.12", "~=3.10") is None  # outside the subset: unknown, never a guess
    assert v.version_tuple("535.104.05-1ubuntu") == (535, 104, 5)
