"""Flooding children: a child that prints without end costs the doctor a bounded amount of memory.
Children are read through one capped reader (_util/capped.py: the head and the tail kept, the
middle dropped and counted, a line saying so where the gap is): helper programs (an nvidia-smi that
is `yes`), the torch child and the TensorFlow child (a fake whose import prints 1 GiB).  The peak
memory of the whole doctor under such a flood is measured and must stay below 512 MB."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest

from doctor_support import REPO, fake_program
from hostile_support import finishes_within, peak_rss, posix_only

pytestmark = posix_only

GIB = 1 << 30
LIMIT_MB = 512


def test_capped_buffer_keeps_head_and_tail_and_counts_the_rest():
    from torch_envcheck._util.capped import CappedBuffer

    buf = CappedBuffer(head=10, tail=10)
    for _ in range(1000):
        buf.write(b"0123456789")
    buf.write(b"THE-END!!!")
    value = buf.value()
    assert value.startswith(b"0123456789") and value.endswith(b"THE-END!!!")
    assert buf.dropped == 10010 - 20 and b"truncated: 9990 bytes dropped" in value
    small = CappedBuffer(head=100, tail=100)
    small.write(b"short")
    assert small.value() == b"short" and small.dropped == 0


def test_helper_that_is_yes_is_capped_and_stopped(tmp_path):
    from torch_envcheck._util import proc

    yes = fake_program(tmp_path, "yes-smi", "exec yes 'GPU 0: flood'")
    res = finishes_within(30, proc.run_capped, [yes], 2.0)
    assert res.timed_out and res.stdout_dropped > 0
    assert len(res.stdout) <= proc.HELPER_HEAD + proc.HELPER_TAIL + 200
    assert b"truncated:" in res.stdout


def test_driver_probe_with_an_nvidia_smi_that_is_yes(tmp_path, monkeypatch):
    from torch_envcheck.doctor.probes import driver

    fake_program(tmp_path, "nvidia-smi", "exec yes")
    monkeypatch.setattr(driver, "_nvml", lambda out: False)
    out = finishes_within(30, driver.probe, timeout=2.0, env={"PATH": str(tmp_path)})
    assert out["present"] is False and any("timed out after 2 s" in e for e in out["errors"]), out["errors"]


def _fake_package(tmp_path, name: str, body: str) -> str:
    root = tmp_path / f"fake-{name}"
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(textwrap.dedent(body))
    return str(root)


FLOOD = textwrap.dedent("""
    import os, sys
    chunk = b"x" * (1 << 20)
    for _ in range(1024):        # 1 GiB
        os.write({fd}, chunk)
""")


def test_torch_child_printing_a_gib_keeps_its_facts_and_stays_small(tmp_path, monkeypatch):
    from torch_envcheck.doctor.probes import torch_probe

    # stdout of the import is pointed at stderr by the child: the flood lands in stderr
    root = _fake_package(tmp_path, "torch", FLOOD.format(fd=1) + "\n__version__ = '9.9.9'\n")
    monkeypatch.setattr(sys, "path", [root] + sys.path)  # the child imports what this process would
    out, _ext = finishes_within(120, lambda: torch_probe.finish(torch_probe.start(60.0, extension=False)))
    proc = out["import_process"]
    assert out["importable"] is True and out["version"] == "9.9.9", out
    assert proc["output_dropped_bytes"] and proc["output_dropped_bytes"] > GIB // 2


def test_doctor_peak_memory_under_flooding_children(tmp_path):
    """The doctor, with a fake torch and a fake TensorFlow each printing 1 GiB on import and an
    nvidia-smi that is `yes`, under --timeout 3: its peak RSS (resource.getrusage RUSAGE_CHILDREN
    of a parent: the largest of the doctor and its children) stays below 512 MB."""
    torch_root = _fake_package(tmp_path, "torch", FLOOD.format(fd=1) + "\n__version__ = '9.9.9'\n")
    tf_root = _fake_package(tmp_path, "tensorflow", FLOOD.format(fd=2) + "\n__version__ = '2.99.0'\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_program(bin_dir, "nvidia-smi", "exec yes")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(PYTHONPATH=os.pathsep.join([REPO, torch_root, tf_root]), NO_COLOR="1",
               PATH=str(bin_dir) + os.pathsep + env.get("PATH", ""),
               TORCH_ENVCHECK_CACHE=os.path.join(REPO, ".pytest_cache", "te-cache"))
    res = peak_rss([sys.executable, "-m", "torch_envcheck", "--json", "--timeout", "3"], env, REPO, timeout=240)
    assert res["rc"] in (0, 1), res["stderr"]
    rep = json.loads(res["stdout"])
    snap = rep["snapshot"]
    proc = snap["torch"]["import_process"]
    # the fake torch was read (its version), or stopped at the 3 s limit mid-flood: either way its
    # output was capped, never held whole
    assert snap["torch"]["version"] == "9.9.9" or proc["timed_out"], proc
    assert proc["output_dropped_bytes"] and proc["output_dropped_bytes"] > 1 << 20, proc
    assert any("nvidia-smi" in e and "timed out" in e for e in snap["driver"]["errors"]), snap["driver"]["errors"]
    peak_mb = res["maxrss_kib"] / 1024
    print(f"doctor peak RSS under a 1 GiB torch child, a 1 GiB TensorFlow child and `yes` as nvidia-smi: "
          f"{peak_mb:.0f} MB ({res['seconds']:.1f} s)")
    assert peak_mb < LIMIT_MB, peak_mb
