"""The file-ownership check on real installed distributions: two small distributions that this test
builds (wheels made by setuptools) and installs into a fresh venv, both shipping the same file;
and the real nvidia-cudnn-cu12 + nvidia-cudnn-cu13 pair where it is installed or can be downloaded."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap

import pytest

from torch_envcheck.doctor.probes import file_owners
from torch_envcheck.doctor.report import findings_for

from _rules_helpers import by_code


def _site_packages(venv: str) -> str:
    found = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")) or \
        glob.glob(os.path.join(venv, "Lib", "site-packages"))
    assert found, f"no site-packages under {venv}"
    return found[0]


def _project(root, name: str, payload: str, init: str = "") -> str:
    d = root / name
    (d / "te_shared").mkdir(parents=True)
    (d / "te_shared" / "__init__.py").write_text(init)
    (d / "te_shared" / "libshared.so.1").write_text(payload)
    (d / f"{name.replace('-', '_')}_own.py").write_text(f"OWNER = {name!r}\n")
    (d / "setup.py").write_text(textwrap.dedent(f"""\
        from setuptools import setup
        setup(name={name!r}, version="1.0", packages=["te_shared"], py_modules=[{name.replace('-', '_') + '_own'!r}],
              package_data={{"te_shared": ["libshared.so.1"]}})
        """))
    return str(d)


def _have(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="module")
def clashing_venv(tmp_path_factory):
    if not (_have("setuptools") and _have("wheel")):
        pytest.skip("needs setuptools and wheel to build the two test distributions")
    root = tmp_path_factory.mktemp("owners")
    a = _project(root, "te-owner-a", "build A\n")
    b = _project(root, "te-owner-b", "build B\n")
    wheels = root / "wheels"
    for proj in (a, b):
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), proj],
                       check=True, capture_output=True, timeout=300)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    if not py.exists():
        py = venv / "Scripts" / "python.exe"
    built = sorted(glob.glob(str(wheels / "*.whl")))
    assert len(built) == 2
    # pip installs the second wheel over the first one's te_shared/ files without a word
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", *built],
                   check=True, capture_output=True, timeout=300)
    return _site_packages(str(venv))


def test_probe_finds_the_shared_files(clashing_venv):
    out = file_owners.probe(paths=[clashing_venv, clashing_venv])  # the same folder twice counts once
    assert out["distributions"] == 2 and not out["truncated"]
    assert out["pairs_total"] == 1
    pair = out["pairs"][0]
    assert pair["distributions"] == ["te-owner-a==1.0", "te-owner-b==1.0"]
    # the payloads differ; the empty __init__.py files are identical (counted, harmless)
    assert pair["differing"] == 1 and pair["files"] == 2
    assert out["shared_files_differing"] == 1 and out["shared_files_identical"] == 1
    assert pair["examples"][0] == {"path": os.path.join("te_shared", "libshared.so.1"), "same_content": False}
    # the overwrite the rule warns about really happened: the file on disk matches only one owner's RECORD
    import base64
    import hashlib
    with open(os.path.join(clashing_venv, "te_shared", "libshared.so.1"), "rb") as fh:
        digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(fh.read()).digest()).rstrip(b"=").decode()
    matches = []
    for rec in glob.glob(os.path.join(clashing_venv, "te_owner_*.dist-info", "RECORD")):
        with open(rec) as fh:
            if any(line.startswith("te_shared/libshared.so.1,") and line.split(",")[1] == digest for line in fh):
                matches.append(rec)
    assert len(matches) == 1


def test_rule_fires_on_the_built_pair(clashing_venv):
    snap = {"file_owners": file_owners.probe(paths=[clashing_venv])}
    f = by_code(findings_for(snap), "TE850")
    assert f and "te-owner-a==1.0 and te-owner-b==1.0 (1 file)" in f[0]["message"]
    assert "libshared.so.1" in f[0]["explanation"]


def test_rule_silent_on_one_distribution(tmp_path, clashing_venv):
    only_a = [p for p in glob.glob(os.path.join(clashing_venv, "*")) if "owner_b" not in os.path.basename(p)]
    site = tmp_path / "site"
    site.mkdir()
    for p in only_a:
        os.symlink(p, site / os.path.basename(p))
    out = file_owners.probe(paths=[str(site)])
    assert out["distributions"] == 1 and out["pairs"] == []
    assert not by_code(findings_for({"file_owners": out}), "TE850")


def test_probe_is_bounded(tmp_path, monkeypatch):
    info = tmp_path / "big-1.0.dist-info"
    info.mkdir()
    with open(info / "RECORD", "w") as fh:
        for i in range(3000):
            fh.write(f"big/f{i}.py,sha256=x,1\n")
    monkeypatch.setattr(file_owners, "MAX_RECORD_LINES", 1000)
    assert file_owners.probe(paths=[str(tmp_path)])["files"] == 1000
    monkeypatch.setattr(file_owners, "MAX_DISTS", 1)
    other = tmp_path / "other-1.0.dist-info"
    other.mkdir()
    (other / "RECORD").write_text("big/f1.py,sha256=y,1\n")
    assert file_owners.probe(paths=[str(tmp_path)])["truncated"] is True


def _pair_site() -> str | None:
    """A site-packages with both nvidia-cudnn-cu12 and nvidia-cudnn-cu13: TE_TEST_CUDNN_PAIR_SITE, or one this
    test installs (--no-deps, ~1.3 GB download) when TE_TEST_DOWNLOADS=1."""
    return os.environ.get("TE_TEST_CUDNN_PAIR_SITE")


@pytest.mark.slow
@pytest.mark.skipif(not _pair_site() and os.environ.get("TE_TEST_DOWNLOADS") != "1",
                    reason="the real nvidia-cudnn-cu12 + nvidia-cudnn-cu13 pair is a ~1.3 GB download: set "
                           "TE_TEST_CUDNN_PAIR_SITE to a site-packages holding both, or TE_TEST_DOWNLOADS=1")
def test_real_cudnn_cu12_cu13_pair(tmp_path):
    site = _pair_site()
    if not site:
        venv = tmp_path / "pair"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                               "-q", "nvidia-cudnn-cu13", "nvidia-cudnn-cu12"], capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            pytest.skip(f"nvidia-cudnn-cu12/-cu13 could not be downloaded here: {proc.stderr.strip().splitlines()[-1:]}")
        site = _site_packages(str(venv))
    out = file_owners.probe(paths=[site])
    pair = next(p for p in out["pairs"] if {d.split("==")[0] for d in p["distributions"]} ==
                {"nvidia-cudnn-cu12", "nvidia-cudnn-cu13"})
    paths = {e["path"].replace(os.sep, "/") for e in pair["examples"]}
    assert "nvidia/cudnn/lib/libcudnn.so.9" in paths
    assert pair["differing"] > 0
    f = by_code(findings_for({"file_owners": out}), "TE850")
    assert f and "nvidia-cudnn-cu12" in f[0]["message"] and "nvidia-cudnn-cu13" in f[0]["message"]
