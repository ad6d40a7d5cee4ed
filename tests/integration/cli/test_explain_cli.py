"""`torch-envcheck explain` as a user runs it: the three ways in, --json, exit statuses, bounded and
hostile input, and the machine check (a saved report, a live probe)."""

from __future__ import annotations

import argparse
import json
import os

import pytest
from _explain_helpers import cli, snapshot

from torch_envcheck import doctor
from torch_envcheck.commands import explain as explain_cmd
from torch_envcheck.facts.snapshot import load

DRIVER = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver"
REQUIRED = ("recognised", "environment_problem", "layer", "signature", "cause", "explanation", "fix", "findings", "source")


def _json(p) -> dict:
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout)


def test_text_argument():
    p = cli("explain", "--no-probe", DRIVER)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "driver-too-old" in out and "CUDA up to 11.4" in out and "layer: driver" in out


def test_words_are_joined():
    p = cli("explain", "--no-probe", "--json", "AssertionError:", "Torch", "not", "compiled", "with", "CUDA", "enabled")
    assert _json(p)["signature"] == "torch-not-compiled-with-cuda"


def test_json_has_the_documented_fields():
    r = _json(cli("explain", "--no-probe", "--json", DRIVER))
    assert all(k in r for k in REQUIRED)
    assert r["recognised"] is True and r["environment_problem"] is True and r["layer"] == "driver"
    assert r["captures"]["driver_cuda"] == "11.4" and r["machine"] == "not checked" and r["findings"] == []
    assert r["input"] == {"source": "argument", "bytes_read": len(DRIVER), "total_bytes": len(DRIVER), "truncated": False}


def test_not_recognised_exits_1():
    p = cli("explain", "--no-probe", "--json", "ValueError: x must be positive")
    assert p.returncode == 1
    r = _json(p)
    assert r["recognised"] is False and r["signature"] is None and r["environment_problem"] is None
    assert cli("explain", "--no-probe", "all good").returncode == 1


def test_not_an_environment_problem_gets_no_reinstall_and_no_probe():
    p = cli("explain", "--json", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", timeout=30)
    r = _json(p)
    assert p.returncode == 0 and r["environment_problem"] is False and r["layer"] == "not-environment"
    assert r["machine"] == "not needed" and "batch size" in r["fix"] and "install" not in r["fix"]


def test_stdin_pipe_with_a_long_log():
    log = ("step 1200 | loss 0.41 | lr 3e-4\n" * 100_000) + "Traceback (most recent call last):\n" + DRIVER + "\n"
    p = cli("explain", "--no-probe", "--json", input=log)
    r = _json(p)
    assert r["signature"] == "driver-too-old"
    assert r["input"]["source"] == "stdin" and r["input"]["truncated"] is True
    assert r["input"]["total_bytes"] == len(log) and r["input"]["bytes_read"] == 1 << 20


def test_file_dash_reads_stdin():
    assert _json(cli("explain", "--no-probe", "--json", "--file", "-", input=DRIVER))["signature"] == "driver-too-old"


def test_a_1_gib_log_is_read_from_its_end(tmp_path):
    log = tmp_path / "train.log"
    tail = ("\n" + DRIVER + "\n").encode()
    with open(log, "wb") as fh:
        fh.truncate((1 << 30) - len(tail))  # sparse: 1 GiB on the file system, nothing on disk
        fh.seek(0, os.SEEK_END)
        fh.write(tail)
    r = _json(cli("explain", "--no-probe", "--json", "--file", str(log), timeout=60))
    assert r["signature"] == "driver-too-old"
    assert r["input"]["total_bytes"] == 1 << 30 and r["input"]["bytes_read"] == 1 << 20 and r["input"]["truncated"]


def test_powershell_utf16_log(tmp_path):
    log = tmp_path / "ps.log"
    log.write_bytes(("noise\r\n" * 10 + "AssertionError: Torch not compiled with CUDA enabled\r\n").encode("utf-16"))
    assert _json(cli("explain", "--no-probe", "--json", "--file", str(log)))["signature"] == "torch-not-compiled-with-cuda"


def test_large_utf16_log_cut_at_an_odd_offset(tmp_path):
    log = tmp_path / "ps.log"
    body = ("x" * 7 + "\r\n") * 200_001 + "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\r\n"
    log.write_bytes(body.encode("utf-16"))
    r = _json(cli("explain", "--no-probe", "--json", "--file", str(log)))
    assert r["signature"] == "cudnn-library-missing" and r["captures"]["cudnn_major"] == "9"


def test_notebook_file_outputs(tmp_path):
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "source": "import torch", "metadata": {}, "execution_count": 1, "outputs": [
            {"output_type": "error", "ename": "OSError", "evalue": "[WinError 126] The specified module could not be "
             "found. Error loading \"C:\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll\" or one of its dependencies.",
             "traceback": ["\u001b[1;31mOSError\u001b[0m  Traceback (most recent call last)"]}]}]}
    path = tmp_path / "analysis.ipynb"
    path.write_text(json.dumps(nb))
    r = _json(cli("explain", "--no-probe", "--json", "--file", str(path)))
    assert r["signature"] == "winerror-126" and r["captures"]["dll"] == "fbgemm.dll"


def test_terminal_escapes_in_the_input_are_never_printed():
    evil = "\x1b]0;owned\x07\x1b[2JRuntimeError: \x1bc\x07The NVIDIA driver on your system is too old (found version 11040)\x9b31m"
    p = cli("explain", "--no-probe", evil)
    assert p.returncode == 0
    assert b"\x1b" not in p.stdout and b"\x07" not in p.stdout and "\x9b" not in p.stdout.decode()


@pytest.mark.parametrize("args, words", [
    ((), "no error to explain"),
    (("--file", "/nonexistent/train.log"), "cannot open it"),
    (("--file", "."), "is a directory"),
    (("--file", "/dev/zero"), "not a regular file or a pipe"),
    (("--no-probe", "--file", "-", "text"), "not both"),
    (("--no-probe", "--from-json", "x.json", "text"), "cannot be combined"),
    (("--from-json", "/nonexistent.json", "CUDA out of memory. Tried to allocate 1 MiB"), "cannot read it"),
])
def test_bad_usage_is_one_line_and_exit_2(args, words):
    p = cli("explain", *args)
    err = p.stderr.decode()
    assert p.returncode == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_empty_file_is_bad_input(tmp_path):
    (tmp_path / "empty.log").write_text("  \n")
    p = cli("explain", "--no-probe", "--file", str(tmp_path / "empty.log"))
    assert p.returncode == 2 and b"empty" in p.stderr


def test_fifo_without_a_writer_does_not_block(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    p = cli("explain", "--no-probe", "--file", str(fifo), timeout=30)  # would hang forever if open() waited
    assert p.returncode == 2 and b"empty" in p.stderr


def _from_json(name: str, text: str) -> dict:
    return _json(cli("explain", "--json", "--from-json", snapshot(name), text))


def test_saved_report_confirms_the_cause_and_gives_the_doctors_fix():
    r = _from_json("old_driver_535_cu130.json", DRIVER)
    assert r["machine"] == "from-json" and r["cause_confirmed"] is True and r["cause_id"] == "driver-older-than-build"
    expected = next(f for f in doctor.report(load(snapshot("old_driver_535_cu130.json")))["findings"] if f["code"] == "TE302")
    assert [f["code"] for f in r["findings"]] == ["TE302"]
    assert r["fix"] == expected["fix"] and r["findings"][0]["message"] == expected["message"]
    assert r["causes"][0]["present"] is True and r["causes"][1]["present"] is False


def test_saved_report_picks_the_cause_it_shows():
    r = _from_json("cpu_venv_no_gpu.json", "AssertionError: Torch not compiled with CUDA enabled")
    assert r["cause_id"] == "cpu-wheel-no-gpu" and [f["code"] for f in r["findings"]] == ["TE203"]
    r = _from_json("windows_cpu_wheel_rtx4070.json", "AssertionError: Torch not compiled with CUDA enabled")
    assert r["cause_id"] == "cpu-wheel-with-gpu" and r["findings"][0]["code"] == "TE202"
    assert "download.pytorch.org" in r["fix"]


def test_saved_report_without_the_cause_says_so():
    r = _from_json("h100_cu130_healthy.json", DRIVER)
    assert r["cause_confirmed"] is False and r["findings"] == [] and all(c["present"] is False for c in r["causes"])
    assert r["on_this_machine"] and r["fix"] == r["generic_fix"]
    text = cli("explain", "--from-json", snapshot("h100_cu130_healthy.json"), DRIVER).stdout.decode()
    assert "none of these causes shows" in text


def test_probe_path_uses_collect_with_the_timeout(monkeypatch):
    seen = {}

    def fake_collect(timeout=5.0, only=None, torch_timeout=None, tensorflow=True):
        seen.update(timeout=timeout, torch_timeout=torch_timeout, tensorflow=tensorflow)
        return load(snapshot("rtx5090_cu121.json"))

    monkeypatch.setattr(doctor, "collect", fake_collect)
    args = argparse.Namespace(no_probe=False, from_json=None, timeout=7.0, no_tensorflow=False)
    from torch_envcheck.explain import textin
    text = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
    result, status = explain_cmd.explain_input(textin.from_text(text), args)
    assert status == 0 and result["machine"] == "probed" and result["cause_confirmed"]
    assert "TE401" in [f["code"] for f in result["findings"]]
    assert seen == {"timeout": 7.0, "torch_timeout": 7.0, "tensorflow": False}  # TensorFlow only for its own errors


def test_stdout_stays_json_while_probing(monkeypatch, capfd):
    # A library that prints while the probes run (even from C, straight to fd 1) must not spoil --json.
    def noisy_collect(timeout=5.0, only=None, torch_timeout=None, tensorflow=True):
        os.write(1, b"noise from a probe\n")
        return load(snapshot("cpu_venv_no_gpu.json"))

    monkeypatch.setattr(doctor, "collect", noisy_collect)
    args = argparse.Namespace(text=["AssertionError: Torch not compiled with CUDA enabled"], file=None, json=True,
                              no_probe=False, from_json=None, timeout=None, no_tensorflow=False)
    assert explain_cmd.run(args) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["machine"] == "probed" and "noise from a probe" in err


def test_flags_before_the_command():
    p = cli("--from-json", snapshot("old_driver_535_cu130.json"), "explain", "--json", DRIVER)
    assert _json(p)["machine"] == "from-json"


def test_help_lists_explain_and_run():
    out = cli("--help").stdout.decode()
    assert "explain" in out and "run" in out
