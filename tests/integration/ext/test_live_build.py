"""The build's lock and cache: a build killed with SIGKILL/SIGTERM does not block later builds,
`build --force` waits for a running build instead of deleting its folder, and an unusable cache
folder gives a temp-folder fallback with one line, or one line and exit 1.  The compiler itself is
replaced by a stub here (the real build is covered by test_ext_*.py)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import types

import pytest

from torch_envcheck.commands import build as build_cli
from torch_envcheck.ext import buildcfg
from torch_envcheck.ext import extension

posix_only = pytest.mark.skipif(os.name != "posix", reason="signals and flock are POSIX")
from paths import REPO


def _holder(directory: str, torch_lock: bool = False, handle_term: bool = False) -> subprocess.Popen:
    """A real process that takes the build lock (and, like torch < 2.14's cpp_extension, creates
    `<dir>/lock`), says so, and then stays until killed or told to go (a line on stdin)."""
    code = textwrap.dedent(f"""
        import os, sys
        from torch_envcheck.ext import extension
        d = {directory!r}
        os.makedirs(d, exist_ok=True)
        with extension.BuildLock(d, quiet=True):
            if {torch_lock!r}:
                os.close(os.open(os.path.join(d, "lock"), os.O_CREAT | os.O_EXCL))
            print("locked", flush=True)
            sys.stdin.readline()
        print("released", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=REPO))
    assert proc.stdout.readline().strip() == "locked"
    return proc


def _fake_torch():
    return types.SimpleNamespace(__version__="2.13.0+cpu", version=types.SimpleNamespace(cuda=None, hip=None))


@pytest.fixture
def stub_build(monkeypatch, tmp_path):
    """build_jit with a stub compiler that records the folder it was given and what was in it."""
    cache = tmp_path / "cache"
    monkeypatch.setenv(extension.ENV_CACHE, str(cache))
    calls = []

    def compile_stub(torch, p, directory, verbose, quiet):
        calls.append({"directory": directory, "torch_lock": os.path.exists(os.path.join(directory, "lock")),
                      "files": sorted(os.listdir(directory))})
        return types.SimpleNamespace(__file__=os.path.join(directory, "x.so")), {"torch_version": torch.__version__}

    monkeypatch.setattr(extension, "_compile", compile_stub)
    monkeypatch.setattr(buildcfg, "plan", lambda torch: {"with_cuda": False, "cuda_reason": "test"})
    monkeypatch.setattr(buildcfg, "apply_env", lambda p: None)
    return types.SimpleNamespace(calls=calls, cache=cache, torch=_fake_torch())


@posix_only
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_builds_lock_does_not_block_the_next_build(stub_build, sig):
    directory = extension.jit_dir(stub_build.torch)
    holder = _holder(directory, torch_lock=True)
    holder.send_signal(sig)
    holder.wait(timeout=30)
    assert os.path.exists(os.path.join(directory, "lock"))  # what torch < 2.14 leaves behind
    done = []
    th = threading.Thread(target=lambda: done.append(extension.build_jit(quiet=True, torch=stub_build.torch)),
                          daemon=True)
    th.start()
    th.join(60)
    assert done, "the build after a killed one is still waiting"
    assert stub_build.calls[0]["torch_lock"] is False  # the dead build's lock file was cleared first


@posix_only
def test_a_live_holder_is_waited_for_and_named(stub_build, capfd):
    directory = extension.jit_dir(stub_build.torch)
    holder = _holder(directory)
    try:
        lock = extension.BuildLock(directory, poll=0.05)
        th = threading.Thread(target=lambda: lock.__enter__(), daemon=True)
        th.start()
        th.join(1.5)
        assert th.is_alive(), "a second build got the lock while the first was running"
        err = capfd.readouterr().err
        assert f"waiting for the build running in pid {holder.pid} on " in err
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=30)
    th.join(10)
    assert not th.is_alive()
    lock.__exit__(None, None, None)


@posix_only
def test_force_during_a_running_build_waits_and_leaves_its_folder_alone(stub_build):
    directory = extension.jit_dir(stub_build.torch)
    os.makedirs(directory)
    marker = os.path.join(directory, "object.o")
    open(marker, "w").close()
    holder = _holder(directory)
    done = []
    th = threading.Thread(target=lambda: done.append(
        extension.build_jit(quiet=True, torch=stub_build.torch, force=True)), daemon=True)
    th.start()
    th.join(1.5)
    assert th.is_alive() and not done
    assert os.path.exists(marker), "--force deleted the folder of a build that is still running"
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == "released"
    holder.wait(timeout=30)
    th.join(30)
    assert done and stub_build.calls[-1]["files"] == []  # then it started from nothing


@posix_only
def test_build_cli_force_goes_through_the_lock(stub_build, monkeypatch):
    seen = {}

    def fake_build_jit(verbose=False, quiet=False, torch=None, force=False):
        seen["force"] = force
        return types.SimpleNamespace(__file__="x.so"), {"so_path": "x.so", "build_seconds": 1.0}

    monkeypatch.setattr(extension, "build_jit", fake_build_jit)
    monkeypatch.setitem(sys.modules, "torch", stub_build.torch)
    assert build_cli.run(argparse.Namespace(force=True, verbose=False)) == 0
    assert seen == {"force": True}


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_unusable_cache_falls_back_to_a_temp_cache_with_one_line(stub_build, monkeypatch, tmp_path, capfd, kind):
    bad = tmp_path / "bad-cache"
    if kind == "file":
        bad.write_text("not a folder")
        reason = "it is not a directory"
    else:
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            pytest.skip("root can write into any folder")
        bad.mkdir()
        bad.chmod(0o500)
        reason = "it is not writable"
    monkeypatch.setenv(extension.ENV_CACHE, str(bad))
    fallback = tmp_path / "tmp-fallback"
    monkeypatch.setattr(extension, "fallback_cache_root", lambda: str(fallback))
    extension.build_jit(torch=stub_build.torch)
    err = [ln for ln in capfd.readouterr().err.splitlines() if "cache" in ln]
    assert len(err) == 1 and reason in err[0] and str(fallback) in err[0]
    assert stub_build.calls[0]["directory"].startswith(str(fallback))
    # reading finds the build where it went
    assert extension.jit_dir(stub_build.torch).startswith(str(fallback))


def test_unusable_cache_and_fallback_give_one_line_and_exit_1(stub_build, monkeypatch, tmp_path, capfd):
    bad = tmp_path / "bad-cache"
    bad.write_text("not a folder")
    monkeypatch.setenv(extension.ENV_CACHE, str(bad / "sub"))
    monkeypatch.setattr(extension, "fallback_cache_root", lambda: str(bad / "fallback"))
    monkeypatch.setitem(sys.modules, "torch", stub_build.torch)
    monkeypatch.setattr(extension, "status", lambda probe=True: {"state": "missing"})
    assert build_cli.run(argparse.Namespace(force=False, verbose=False)) == 1
    err = capfd.readouterr().err.strip().splitlines()
    assert err[-1].startswith("torch-envcheck build: the build cache ") and "is not a directory" in err[-1]
    assert not any("Traceback" in ln for ln in err)


@posix_only
def test_a_planted_fallback_is_refused(tmp_path, monkeypatch, stub_build):
    target = tmp_path / "elsewhere"
    target.mkdir()
    planted = tmp_path / "planted"
    planted.symlink_to(target)
    with pytest.raises(OSError):
        extension._own_private_dir(str(planted))


def test_doctor_with_a_file_as_cache_has_no_traceback(tmp_path):
    from doctor_support import run_cli

    bad = tmp_path / "cache-file"
    bad.write_text("x")
    proc = run_cli(sys.executable, ["--json"], env={extension.ENV_CACHE: str(bad)}, timeout=180)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
