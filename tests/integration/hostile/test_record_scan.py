"""Bounded reads, the RECORD scan (probes/file_owners.py): one RECORD line longer than csv's
field limit no longer ends the whole scan (the clash between two other wheels is still found), and
the scan has a total bound besides the per-file one: MAX_TOTAL_FILES files in all, each kept as two
ints (the hashes of its path and of its digest), so memory per file stays small."""

from __future__ import annotations

import csv
import tracemalloc

from torch_envcheck.doctor.probes import file_owners


def _dist(site, name: str, lines) -> None:
    d = site / f"{name}-1.0.dist-info"
    d.mkdir(parents=True)
    (d / "RECORD").write_text("".join(line + "\n" for line in lines))


def test_a_line_over_csvs_field_limit_does_not_hide_a_real_clash(tmp_path):
    huge = '"' + "a" * (csv.field_size_limit() + 10) + '",sha256=x,1'
    _dist(tmp_path, "aaa_evil", [huge, '"q,uoted.py",sha256=q,1'])
    _dist(tmp_path, "nvidia_cudnn_cu12", ["nvidia/cudnn/lib/libcudnn.so.9,sha256=one,10"])
    _dist(tmp_path, "nvidia_cudnn_cu13", ["nvidia/cudnn/lib/libcudnn.so.9,sha256=two,10"])
    out = file_owners.probe(paths=[str(tmp_path)])
    assert out["lines_skipped"] == 1 and out["pairs_total"] == 1
    pair = out["pairs"][0]
    assert pair["distributions"] == ["nvidia-cudnn-cu12==1.0", "nvidia-cudnn-cu13==1.0"] and pair["differing"] == 1


def test_a_quoted_line_csv_rejects_is_skipped(tmp_path):
    _dist(tmp_path, "odd", ['"unterminated,sha256=x,1', "ok.py,sha256=y,1"])
    out = file_owners.probe(paths=[str(tmp_path)])
    assert out["files"] >= 1  # the scan went on past the odd line


def test_the_scan_has_a_total_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(file_owners, "MAX_TOTAL_FILES", 250)
    for i in range(4):
        _dist(tmp_path, f"pkg{i}", [f"pkg{i}/f{j}.py,sha256=x,1" for j in range(100)])
    out = file_owners.probe(paths=[str(tmp_path)])
    assert out["files"] == 250 and out["truncated"] is True


def test_memory_per_file_is_a_few_hundred_bytes_at_most(tmp_path):
    """200,000 files in 4 RECORDs (paths of ~60 characters) cost the scan under 300 bytes each at its
    peak (tracemalloc: 162 here; the scan before, a dict of path and digest strings, took 390)."""
    n = 50_000
    for i in range(4):
        _dist(tmp_path, f"big{i}", [f"big{i}/some/deeper/folder/module_{j:07d}.py,sha256=" + "A" * 43 + ",1234"
                                    for j in range(n)])
    tracemalloc.start()
    try:
        out = file_owners.probe(paths=[str(tmp_path)])
        _cur, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out["files"] == 4 * n
    assert peak / (4 * n) < 300, peak / (4 * n)
