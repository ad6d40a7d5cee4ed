"""Terminal safety, messages: `init` never prints a folder name's escape sequences raw (an OSC
or CSI sequence in a cloned repository's folder name would act on the terminal), and `build` says
which cache it uses and why, also when the private temp fallback already holds a build (a
TORCH_ENVCHECK_CACHE that cannot be used was silently replaced)."""

from __future__ import annotations

import argparse
import os
import sys
import types

import pytest

from doctor_support import run_cli

ESC_NAME = "proj\x1b]0;owned\x07\x1b[31mred"


@pytest.mark.skipif(os.name != "posix", reason="such a folder name needs a POSIX file system")
@pytest.mark.parametrize("args", [[], ["--check"], ["--force"]])
def test_init_escapes_a_folder_name(tmp_path, args):
    d = tmp_path / ESC_NAME
    d.mkdir()
    if args == ["--check"]:
        (d / "env_check.py").write_text("print('mine')\n\x1b[2J")
    proc = run_cli(sys.executable, ["init", *args, str(d)], timeout=60)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out
    assert "\x1b" not in out and "\x07" not in out, repr(out)
    assert "\\x1b]0;owned\\x07" in out  # shown, as visible escapes


def test_build_names_the_fallback_cache_even_when_it_already_holds_a_build(monkeypatch, tmp_path, capsys):
    from torch_envcheck.commands import build as build_cli
    from torch_envcheck.ext import extension

    bad = tmp_path / "cache-file"
    bad.write_text("not a folder")
    monkeypatch.setenv(extension.ENV_CACHE, str(bad))
    monkeypatch.setattr(extension, "fallback_cache_root", lambda: str(tmp_path / "fallback"))
    monkeypatch.setattr(extension, "_announced", set())
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(__version__="2.13.0+cpu"))
    monkeypatch.setattr(extension, "status", lambda probe=True: {
        "state": "ok", "mode": "jit", "built_against": "2.13.0+cpu",
        "path": str(tmp_path / "fallback" / "x" / "torch_envcheck_C.so"), "meta": {}})
    assert build_cli.run(argparse.Namespace(force=False, verbose=False)) == 0
    err = capsys.readouterr().err
    line = next(ln for ln in err.splitlines() if "build cache" in ln)
    assert str(tmp_path / "fallback") in line and str(bad) in line and "it is not a directory" in line
    assert f"set {extension.ENV_CACHE} to a writable folder" in line
    assert build_cli.run(argparse.Namespace(force=False, verbose=False)) == 0
    assert "build cache" not in capsys.readouterr().err  # said once per process


def test_build_names_a_usable_cache_and_where_it_was_set(monkeypatch, tmp_path, capsys):
    from torch_envcheck.ext import extension

    monkeypatch.setenv(extension.ENV_CACHE, str(tmp_path / "cache"))
    monkeypatch.setattr(extension, "_announced", set())
    extension.announce_cache()
    err = capsys.readouterr().err
    assert f"build cache {tmp_path / 'cache'} (set by {extension.ENV_CACHE})" in err
