"""Crashes that become one clear line: undecodable bytes in explain's argv (the JSON stays valid
UTF-8), a notebook whose output lists hold numbers and objects, `knowledge update --timeout nan`, a
cache folder thousands of levels deep."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from paths import REPO

from torch_envcheck._util.dirs import make_dirs

ERROR = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def cli(args, env=None, timeout=120):
    env = dict(os.environ, PYTHONPATH=REPO, NO_COLOR="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "torch_envcheck", *args], capture_output=True, env=env,
                          timeout=timeout, cwd=REPO)


@pytest.mark.skipif(os.name != "posix", reason="argv as bytes")
@pytest.mark.parametrize("as_json", [True, False])
def test_undecodable_argv_bytes_are_explained_and_the_output_is_valid_utf8(as_json):
    argv = [sys.executable.encode(), b"-m", b"torch_envcheck", b"explain", b"--no-probe",
            ERROR.encode() + b" \xff\xfe\xed\xa0\x80"] + ([b"--json"] if as_json else [])
    p = subprocess.run(argv, capture_output=True, timeout=120, cwd=REPO,
                       env=dict(os.environ, PYTHONPATH=REPO, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8"))
    assert p.returncode == 0, p.stderr
    text = p.stdout.decode("utf-8")  # raises on invalid UTF-8
    if as_json:
        json.loads(text)
    assert "no-kernel-image" in text


def test_a_notebook_with_non_string_output_items_is_explained(tmp_path):
    nb = {"nbformat": 4, "cells": [{"cell_type": "code", "outputs": [
        {"output_type": "stream", "text": [ERROR, 5, None, {"a": 1}, ["x"]]},
        {"output_type": "error", "ename": ["x", 1], "evalue": {"b": 2}, "traceback": [1, None]},
        {"output_type": "execute_result", "data": {"text/plain": [3.5, "ok"]}},
        {"output_type": "display_data", "data": {"text/plain": 7}}]}]}
    f = tmp_path / "x.ipynb"
    f.write_text(json.dumps(nb))
    p = cli(["explain", "--no-probe", "--file", str(f)])
    assert p.returncode == 0 and b"no kernel image" in p.stdout and b"Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_knowledge_update_refuses_a_timeout_that_is_not_a_number_of_seconds(tmp_path, value):
    p = cli(["knowledge", "update", "--index-url", "http://127.0.0.1:9/simple", "--no-pytorch-index",
             "--timeout", value], env={"TORCH_ENVCHECK_KNOWLEDGE_DIR": str(tmp_path)})
    assert p.returncode == 2 and b"--timeout" in p.stderr and p.stderr.count(b"\n") == 1, p.stderr


def test_a_deep_folder_is_made_without_recursion(tmp_path):
    deep = os.path.join(str(tmp_path), *(["d"] * 1500))  # os.makedirs: a RecursionError
    try:
        make_dirs(deep)
        assert os.path.isdir(deep)
        make_dirs(deep)  # exists: fine
    finally:  # removed here, bottom up: shutil.rmtree (pytest's clean-up) recurses as deep
        d = deep
        while d != str(tmp_path):
            try:
                os.rmdir(d)
            except FileNotFoundError:
                pass
            d = os.path.dirname(d)


def test_a_cache_folder_too_deep_to_exist_is_one_line(tmp_path):
    root = tmp_path / "idx" / "torch"
    root.mkdir(parents=True)
    name = "torch-2.99.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
    (root / "index.html").write_text(f"<a href='{name}'>{name}</a>")
    deep = os.path.join(str(tmp_path), *(["k"] * 3000))  # longer than any path the OS allows
    p = cli(["knowledge", "update", "--index-url", (tmp_path / "idx").as_uri(), "--pypi-json", "none",
             "--no-pytorch-index"], env={"TORCH_ENVCHECK_KNOWLEDGE_DIR": deep})
    assert p.returncode == 2 and b"could not be written" in p.stderr and b"Traceback" not in p.stderr, p.stderr[-500:]
    assert p.stderr.count(b"\n") == 1
