"""`pin --hashes`: each pinned requirement gets the sha256 hashes its index publishes for that exact
build (not another build's or another version's), gated by the platform's marker, and pip's
hash-checking mode accepts the file; without the index the lines keep no hash, a comment says the
hashes were not checked, and the exit status is 1."""

from __future__ import annotations

import hashlib
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest

from paths import SNAP_DIR
from doctor_support import run_words as run


SNAP = os.path.join(SNAP_DIR, "h100_cu130_healthy.json")   # torch 2.14.1+cu130, torchvision 0.29.1+cu130


def _wheel(folder: pathlib.Path, name: str, version: str) -> tuple[str, str]:
    fname = f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(folder / fname, "w") as z:
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", f"{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")
    return fname, hashlib.sha256((folder / fname).read_bytes()).hexdigest()


def _page(folder: pathlib.Path, project: str, links: list[tuple[str, str]]) -> None:
    d = folder / project
    d.mkdir(parents=True, exist_ok=True)
    body = "".join(f'<a href="../{f}#sha256={h}">{f}</a><br/>\n' for f, h in links)
    (d / "index.html").write_text(f"<!DOCTYPE html><html><body>\n{body}</body></html>\n")


def _tree(tmp_path):
    base = tmp_path / "whl"
    cu130, cu126 = base / "cu130", base / "cu126"
    cu130.mkdir(parents=True)
    cu126.mkdir(parents=True)
    t, th = _wheel(cu130, "torch", "2.14.1+cu130")
    v, vh = _wheel(cu130, "torchvision", "0.29.1+cu130")
    old, oh = _wheel(cu130, "torch", "2.14.0+cu130")          # another version: not pinned
    other, xh = _wheel(cu126, "torch", "2.14.1+cu126")        # another build: another index
    _page(cu130, "torch", [(t, th), (old, oh)])
    _page(cu130, "torchvision", [(v, vh)])
    _page(cu126, "torch", [(other, xh)])
    return base, cu130, th, vh, oh, xh


def test_pin_hashes_takes_the_index_hashes_of_the_exact_build(tmp_path):
    base, _cu130, th, vh, oh, xh = _tree(tmp_path)
    rc, out, err = run("pin", "--hashes", "--index-base", base.as_uri(), "--from-json", SNAP)
    assert rc == 0, err
    assert f"--hash=sha256:{th}" in out and f"--hash=sha256:{vh}" in out
    assert oh not in out and xh not in out
    assert 'torch==2.14.1+cu130 ; sys_platform == "linux" and platform_machine == "x86_64" \\' in out


@pytest.mark.slow
def test_pip_hash_checking_mode_accepts_the_pinned_file(tmp_path):
    base, cu130, *_ = _tree(tmp_path)
    rc, out, err = run("pin", "--hashes", "--index-base", base.as_uri(), "--from-json", SNAP)
    assert rc == 0, err
    # pip's hash-checking mode reads the file and accepts the wheels the hashes name
    req = tmp_path / "requirements.txt"
    req.write_text("\n".join(ln for ln in out.splitlines() if not ln.startswith("--extra-index-url")) + "\n")
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--require-hashes",
                          "--no-index", "--find-links", str(cu130), "--ignore-installed", "-r", str(req)],
                         capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stdout[-1500:] + res.stderr[-1500:]
    assert "torch-2.14.1+cu130" in res.stdout or "torch-2.14.1" in res.stdout


def test_pin_hashes_offline_says_they_were_not_checked(tmp_path):
    rc, out, err = run("pin", "--hashes", "--index-base", (tmp_path / "nowhere").as_uri(), "--from-json", SNAP)
    assert rc == 1 and "hashes not checked" in out and "hashes not checked" in err
    assert "--hash=" not in out and "torch==2.14.1+cu130 ;" in out
