"""`init` never writes through a planted file or symlink, and `bench --device cuda` without a GPU
fails with one line instead of exiting 0 having measured nothing."""

from __future__ import annotations

import argparse
import os
import stat
import sys

import pytest

from torch_envcheck.commands import init as init_cli

posix_only = pytest.mark.skipif(os.name != "posix", reason="symlinks and modes")


def _init(argv) -> int:
    parser = argparse.ArgumentParser()
    init_cli.add_arguments(parser)
    return init_cli.run(parser.parse_args([str(a) for a in argv]))


@posix_only
@pytest.mark.parametrize("force", [False, True])
def test_init_never_writes_through_a_planted_tmp_symlink(tmp_path, force):
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("keep me\n")
    secret.chmod(0o600)
    (project / "env_check.py.tmp").symlink_to(secret)
    if force:
        (project / "env_check.py").write_text("old\n")
    assert _init((["--force"] if force else []) + [project]) == 0
    assert secret.read_text() == "keep me\n" and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert (project / "env_check.py.tmp").is_symlink()  # left alone
    written = project / "env_check.py"
    assert not written.is_symlink() and "TEMPLATE_VERSION" in written.read_text()
    assert stat.S_IMODE(written.stat().st_mode) == 0o755
    # no temp file left behind
    assert sorted(p.name for p in project.iterdir()) == ["env_check.py", "env_check.py.tmp"]


@posix_only
def test_init_force_replaces_a_symlinked_env_check_not_its_target(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "secret"
    secret.write_text("keep me\n")
    secret.chmod(0o600)
    (project / "env_check.py").symlink_to(secret)
    assert _init([project]) == 1  # exists: refused without --force, even as a symlink
    assert _init(["--force", project]) == 0
    assert secret.read_text() == "keep me\n" and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert not (project / "env_check.py").is_symlink()


def test_bench_cuda_without_a_gpu_fails_with_one_line():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is usable here: --device cuda runs")
    from doctor_support import run_cli

    proc = run_cli(sys.executable, ["bench", "--device", "cuda", "--quick", "--no-progress"], timeout=300)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    # (torch's own "Failed to initialize NumPy" warning may precede it in a venv without NumPy)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("torch-envcheck")]
    assert len(lines) == 1 and lines[0].startswith("torch-envcheck bench: --device cuda needs a usable NVIDIA GPU")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
