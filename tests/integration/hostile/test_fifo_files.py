"""Non-regular files: a FIFO (or any non-regular file) where a file is expected never blocks the
doctor.  One test per reader that opens files: the conda probe (a conda-meta record, history, a
pip dist-info's INSTALLER and RECORD), the dist-info readers (METADATA, INSTALLER: torch's and
TensorFlow's metadata, a FIFO first on sys.path), the RECORD scan, platform and sysfs reads,
`--from-json`, `fleet --from-json`, requirement files (`rebuild --from-requirements`) and
`init --check`; then the whole doctor with FIFOs first on sys.path under `--timeout 3`; and a probe
stuck anyway is abandoned at its deadline and named.

Every call runs under finishes_within() (hostile_support.py): a regression fails in seconds
instead of hanging the session."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from hostile_support import finishes_within, make_fifo, posix_only
from doctor_support import run_cli

pytestmark = posix_only

GUARD = 10.0  # seconds: every call here takes milliseconds once fixed


def _conda_prefix(tmp_path):
    from _conda_helpers import pytorch_cuda_env, write_prefix

    write_prefix(tmp_path, pytorch_cuda_env())
    return tmp_path


def test_conda_record_that_is_a_fifo_becomes_an_error(tmp_path):
    from torch_envcheck.doctor.probes import conda

    prefix = _conda_prefix(tmp_path)
    meta = prefix / "conda-meta"
    name = next(n for n in os.listdir(meta) if n.startswith("cuda-runtime-"))
    (meta / name).unlink()
    make_fifo(meta / name)
    facts = finishes_within(GUARD, conda.probe_prefix, str(prefix), env={}, system="Linux", site_dirs=[])
    assert any(name in e and "FIFO" in e for e in facts["errors"]), facts["errors"]
    assert any(p["name"] == "pytorch" for p in facts["packages"])  # the other records are still read


def test_conda_history_that_is_a_fifo_becomes_an_error(tmp_path):
    from torch_envcheck.doctor.probes import conda

    prefix = _conda_prefix(tmp_path)
    hist = prefix / "conda-meta" / "history"
    if hist.exists():
        hist.unlink()
    make_fifo(hist)
    facts = finishes_within(GUARD, conda.probe_prefix, str(prefix), env={}, system="Linux", site_dirs=[])
    assert any(e.startswith("conda-meta/history: cannot be read") and "FIFO" in e for e in facts["errors"])


def test_pip_installer_and_record_that_are_fifos(tmp_path):
    from torch_envcheck.doctor.probes import conda

    prefix = _conda_prefix(tmp_path)
    site = tmp_path / "lib" / "python3.11" / "site-packages"
    a = site / "torch-2.4.0.dist-info"
    a.mkdir(parents=True)
    make_fifo(a / "INSTALLER")
    b = site / "nvidia_cudnn_cu12-9.1.0.70.dist-info"
    b.mkdir()
    (b / "INSTALLER").write_text("pip\n")
    make_fifo(b / "RECORD")
    facts = finishes_within(GUARD, conda.probe_prefix, str(prefix), env={}, system="Linux", site_dirs=[str(site)])
    assert any("torch-2.4.0.dist-info/INSTALLER: cannot be read" in e and "FIFO" in e for e in facts["errors"])
    assert [d["name"] for d in facts["pip"]] == ["nvidia-cudnn-cu12"]  # its FIFO RECORD: no runtime files
    assert facts["pip"][0]["runtime_files"] is None


def _fifo_dist(site, name: str, files=("METADATA", "INSTALLER", "RECORD")):
    d = site / f"{name}-9.9.dist-info"
    d.mkdir(parents=True)
    for f in files:
        make_fifo(d / f)
    return d


def test_dist_info_fifos_first_on_sys_path(tmp_path, monkeypatch):
    from torch_envcheck.doctor.probes import dists, torch_probe

    site = tmp_path / "site"
    _fifo_dist(site, "torch")
    monkeypatch.setattr(sys, "path", [str(site)] + sys.path)
    dist = finishes_within(GUARD, dists.distribution, "torch")
    assert dist is not None and str(dist._path).startswith(str(site))  # found first, as importlib would
    assert finishes_within(GUARD, dists.version, dist) is None
    assert finishes_within(GUARD, dists.installer, dist, "torch") is None
    out = torch_probe._blank()
    finishes_within(GUARD, torch_probe._metadata, out)
    assert out["installed"] is True and out["version"] is None and out["installer"] is None


def test_tensorflow_metadata_with_fifo_files(tmp_path, monkeypatch):
    from torch_envcheck.doctor.probes import tensorflow

    site = tmp_path / "site"
    _fifo_dist(site, "tensorflow", ("METADATA", "INSTALLER", "RECORD", "requires.txt"))
    monkeypatch.setattr(sys, "path", [str(site)] + sys.path)
    out = finishes_within(GUARD, tensorflow.metadata)
    assert out["installed"] is False  # no readable version: not counted as installed
    json.dumps(out)


def test_record_scan_skips_a_fifo_record(tmp_path):
    from torch_envcheck.doctor.probes import file_owners

    d = _fifo_dist(tmp_path, "evil", ("RECORD",))
    assert finishes_within(GUARD, lambda: list(file_owners._records(str(d)))) == []
    good = tmp_path / "good-1.0.dist-info"
    good.mkdir()
    (good / "RECORD").write_text("good/a.py,sha256=x,1\n")
    out = finishes_within(GUARD, file_owners.probe, [str(tmp_path)])
    assert out["files"] == 1


def test_platform_and_sysfs_reads_refuse_fifos(tmp_path):
    from torch_envcheck.doctor.probes import driver, platform

    assert finishes_within(GUARD, platform._read, make_fifo(tmp_path / "os-release")) is None
    dev = tmp_path / "pci" / "0000:01:00.0"
    dev.mkdir(parents=True)
    make_fifo(dev / "vendor")
    (dev / "class").write_text("0x030000\n")
    assert finishes_within(GUARD, driver.pci_gpus, str(tmp_path / "pci"), str(tmp_path / "no-tegra")) == []


def test_from_json_fifo_is_refused(tmp_path):
    from torch_envcheck.facts.snapshot import SnapshotError, load
    from torch_envcheck.fleet.load import FleetFileError, load as fleet_load

    fifo = make_fifo(tmp_path / "report.json")
    with pytest.raises(SnapshotError, match="a FIFO, not a regular file"):
        finishes_within(GUARD, load, fifo)
    with pytest.raises(FleetFileError, match="a FIFO, not a regular file"):
        finishes_within(GUARD, fleet_load, fifo)


def test_requirements_fifo_is_refused(tmp_path):
    from torch_envcheck.advice import requirements_file

    fifo = make_fifo(tmp_path / "req.txt")
    with pytest.raises(requirements_file.RequirementsError, match="a FIFO, not a regular file"):
        finishes_within(GUARD, requirements_file.read, fifo)
    t0 = time.monotonic()
    proc = run_cli(sys.executable, ["rebuild", str(tmp_path / "env"), "--from-requirements", fifo, "--dry-run",
                                    "--timeout", "3"], timeout=120)
    assert proc.returncode == 2 and "a FIFO, not a regular file" in proc.stderr, proc.stderr
    assert time.monotonic() - t0 < 100


def test_init_check_on_a_fifo(tmp_path):
    make_fifo(tmp_path / "env_check.py")
    proc = run_cli(sys.executable, ["init", "--check", str(tmp_path)], timeout=60)
    assert proc.returncode == 2 and "cannot be read" in proc.stderr and "FIFO" in proc.stderr


def test_doctor_with_fifos_first_on_sys_path_finishes(tmp_path):
    """The issue's attack: torch-X.dist-info/METADATA (and INSTALLER, RECORD) as FIFOs first on
    sys.path, TensorFlow's too, under --timeout 3: the report comes out, with torch's facts from the
    child (the real torch is still imported, unless this busy machine needs more than the 3 s)."""
    site = tmp_path / "site"
    _fifo_dist(site, "torch")
    _fifo_dist(site, "tensorflow")
    t0 = time.monotonic()
    proc = run_cli(sys.executable, ["--json", "--timeout", "3"], env={"PYTHONPATH": str(site), "NO_COLOR": "1"},
                   timeout=150)
    took = time.monotonic() - t0
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    snap = json.loads(proc.stdout)["snapshot"]
    assert snap["torch"]["importable"] is True or snap["torch"]["import_process"]["timed_out"] is True, snap["torch"]
    assert not any("did not finish" in str(e) for e in snap["probe_errors"].values()), snap["probe_errors"]
    assert took < 120


def test_a_probe_stuck_on_this_thread_before_is_now_abandoned(monkeypatch):
    """platform, env, libraries and conda used to run on the doctor's own thread, without a deadline."""
    import threading

    from torch_envcheck.doctor import probes
    from torch_envcheck.doctor.probes import platform

    monkeypatch.setattr(platform, "probe", lambda env=None: threading.Event().wait())
    res = finishes_within(GUARD, probes.run, timeout=0.5, only=("platform", "env"))
    assert res["probe_errors"] == {"platform": "the platform probe did not finish within 3 s"}
    assert res["sections"]["env"] is not None
