"""`torch-envcheck rebuild` for real: a fresh venv built offline from a folder of wheels (a CPU torch),
torch_envcheck installed into it, its self-test run there, the result verified and marked; a failing
step names itself and leaves nothing behind; the current environment is never touched.

The wheel folder is made with `pip download` (torch from the wheels on this disk, the rest from the
package index), once per session; the tests skip, saying so, where that is impossible.  The full
rebuild runs in the CPU-torch venv only (CI has two venvs; once is enough)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

TORCH = "2.13.0"


def _run(args, **kw):
    return subprocess.run([sys.executable, "-m", "torch_envcheck", "rebuild", *args], capture_output=True,
                          text=True, timeout=kw.pop("timeout", 2400), stdin=subprocess.DEVNULL, **kw)


@pytest.fixture(scope="session")
def jit_cache(tmp_path_factory):
    """One extension cache for the rebuilt environments: they share torch and sources, so the
    extension compiles once."""
    return str(tmp_path_factory.mktemp("rebuild-jit-cache"))


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory):
    torch = pytest.importorskip("torch")
    if torch.version.cuda:
        pytest.skip("the full rebuild runs in the CPU-torch venv (CI runs it there)")
    wh = tmp_path_factory.mktemp("wheelhouse")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(wh), f"torch=={TORCH}", "pytest",
                        "numpy"], capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or not any(f.startswith("torch-") for f in os.listdir(wh)):
        pytest.skip(f"cannot gather the wheels for an offline rebuild here: {r.stderr.strip()[-300:]}")
    return str(wh)


@pytest.mark.slow
def test_offline_rebuild_is_verified(wheelhouse, jit_cache, tmp_path):
    # No space in the path: torch.utils.cpp_extension does not quote the -L path of the venv's torch
    # in its ninja file, so the self-test's extension build cannot link in a path with a space.
    dest = tmp_path / "fresh-env"
    before = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    r = _run([str(dest), "--torch", TORCH, "--with", "none", "--no-index", "--find-links", wheelhouse],
             env={**os.environ, "TORCH_ENVCHECK_CACHE": jit_cache})
    assert r.returncode == 0, r.stdout + r.stderr
    for step in ("[1/5] create the environment", "install torch==2.13.0", "install torch_envcheck and pytest",
                 "run the self-test inside the new environment", "check the installed torch against the plan"):
        assert step in r.stdout
    assert f"has torch {TORCH}+cpu (CPU build) and its self-test passed" in r.stdout
    switch = [line for line in r.stdout.splitlines() if line.startswith("Switch to it:")]
    assert switch and shlex.split(switch[0].split(":", 1)[1]) == ["source", str(dest / "bin" / "activate")], switch
    marker = json.loads((dest / "torch-envcheck-rebuild.json").read_text())
    assert marker["verified"] is True and marker["torch"]["version"] == f"{TORCH}+cpu"
    py = dest / "bin" / "python"
    out = subprocess.run([str(py), "-c", "import torch_envcheck, torch; print(torch_envcheck.__file__, torch.__version__)"],
                         capture_output=True, text=True, cwd=str(tmp_path),  # not the checkout: `-c` puts cwd first
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert str(dest) in out.stdout and f"{TORCH}+cpu" in out.stdout
    after = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    assert before == after  # the environment this ran in is untouched


@pytest.mark.slow
def test_failing_step_is_named_and_nothing_is_left(wheelhouse, tmp_path):
    dest = tmp_path / "env"
    r = _run([str(dest), "--torch", "2.13.99", "--with", "none", "--no-index", "--find-links", wheelhouse])
    assert r.returncode == 1
    assert 'FAILED at step "install torch==2.13.99"' in r.stdout
    # the end of pip's own output: no such version (or, where a pip constraint caps torch, no way to
    # satisfy both)
    assert "No matching distribution found for torch==2.13.99" in r.stdout or (
        "Cannot install torch==2.13.99" in r.stdout and "ResolutionImpossible" in r.stdout), r.stdout
    assert "nothing half-built is left behind" in r.stdout and not dest.exists()
    kept = _run([str(dest), "--torch", "2.13.99", "--with", "none", "--no-index", "--find-links", wheelhouse,
                 "--keep-failed"])
    assert kept.returncode == 1 and "NOT marked verified" in kept.stdout
    assert dest.exists() and not (dest / "torch-envcheck-rebuild.json").exists()


def test_existing_dest_and_usage_errors(tmp_path):
    (tmp_path / "taken").mkdir()
    r = _run([str(tmp_path / "taken"), "--dry-run"], timeout=120)
    assert r.returncode == 0  # a dry run only prints
    r = _run([str(tmp_path / "taken"), "--torch", "2.13.0", "--no-index"], timeout=120)
    assert r.returncode == 2 and "already exists" in r.stdout
    r = _run([str(tmp_path / "new"), "--from-requirements", "x.txt", "--torch", "2.1"], timeout=120)
    assert r.returncode == 2 and "--from-requirements reproduces that file exactly" in r.stderr
    r = _run([str(tmp_path / "new"), "--mirror", "$(id)"], timeout=120)
    assert r.returncode == 2 and "is not a URL" in r.stderr and "Traceback" not in r.stderr


def test_dry_run_prints_the_commands(tmp_path):
    r = _run([str(tmp_path / "d"), "--dry-run", "--torch", "2.13.0", "--index-url", "https://pypi.example/simple",
              "--mirror", "https://mirror.example/whl"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert "-m venv" in r.stdout and "pip install" in r.stdout and "selftest" in r.stdout
    assert "--index-url https://mirror.example/whl/" in r.stdout
    assert "--extra-index-url https://pypi.example/simple" in r.stdout
    assert not (tmp_path / "d").exists()


@pytest.mark.slow
def test_rebuild_from_pinned_requirements(wheelhouse, jit_cache, tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text(f"torch=={TORCH}+cpu\n")
    dest = tmp_path / "pinned"
    r = _run([str(dest), "--from-requirements", str(req), "--no-index", "--find-links", wheelhouse],
             env={**os.environ, "TORCH_ENVCHECK_CACHE": jit_cache})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert "install the pinned requirements of requirements.txt" in r.stdout
    assert json.loads((dest / "torch-envcheck-rebuild.json").read_text())["torch"]["version"] == f"{TORCH}+cpu"
