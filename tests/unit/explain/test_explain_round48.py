"""explain's forty-eighth round, from test48's misses (the DataLoader and multiprocessing): the program's own process
errors (pickling under spawn, an unguarded main module, the start method set twice, the DataLoader's argument checks, a
worker's exception, the pin-memory thread, a worker's native crash), a worker killed by SIGKILL, CUDA's initialization
error beside a DataLoader, and the fork message in lower case. The texts are written for these tests from Python's
and torch's messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


def _program(r, sid):
    assert r["signature"] == sid and r["layer"] == "not-environment" and r["environment_problem"] is False, r
    assert not _INSTALL.search(_fix(r)), _fix(r)


@pytest.mark.parametrize("text", [
    "AttributeError: Can't pickle local object 'build_loader.<locals>.<lambda>'",
    "_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f3a2c0>: attribute lookup <lambda> on __main__ failed",
    "AttributeError: Can't get attribute 'MyDataset' on <module '__main__' (built-in)>",
])
def test_what_spawned_workers_cannot_receive(text):
    _program(diagnose.diagnose(text), "pickle-for-workers")


def test_the_bootstrapping_error_is_the_main_guard():
    r = diagnose.diagnose("RuntimeError:\n        An attempt has been made to start a new process before the\n        "
                          "current process has finished its bootstrapping phase.")
    _program(r, "spawn-reimports-main")
    assert "__name__ == '__main__'" in _fix(r)


def test_a_broken_pipe_to_windows_workers_is_the_main_guard():
    r = diagnose.diagnose("  File \"C:\\proj\\train.py\", line 40, in <module>\n    for batch in train_loader:\n"
                          "BrokenPipeError: [Errno 32] Broken pipe")
    _program(r, "spawn-reimports-main")


def test_a_broken_pipe_elsewhere_is_not_the_main_guard():
    r = diagnose.diagnose("BrokenPipeError: [Errno 32] Broken pipe\n  File \"/srv/app/server.py\", line 10, in send")
    assert r is None or r["signature"] != "spawn-reimports-main", r


def test_the_start_method_set_twice():
    r = diagnose.diagnose("    mp.set_start_method('spawn')\nRuntimeError: context has already been set")
    _program(r, "start-method-already-set")
    assert "force=True" in _fix(r)


def test_the_dataloaders_argument_check():
    _program(diagnose.diagnose("ValueError: persistent_workers option needs num_workers > 0"), "dataloader-option-refused")


def test_a_workers_own_exception_is_the_dataset():
    r = diagnose.diagnose("FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 3.\nOriginal Traceback "
                          "(most recent call last):\n  File \"data.py\", line 12, in __getitem__\nFileNotFoundError: [Errno "
                          "2] No such file or directory: 'imgs/0001.png'")
    _program(r, "dataloader-worker-raised")
    assert "FileNotFoundError" in r["title"]


def test_a_library_failing_inside_a_worker_is_read_by_its_own_rule():
    r = diagnose.diagnose("OSError: Caught OSError in DataLoader worker process 0.\nOriginal Traceback (most recent call "
                          "last):\nOSError: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or "
                          "directory")
    assert r["signature"] != "dataloader-worker-raised" and r["environment_problem"] is True, r


def test_the_pin_memory_thread():
    _program(diagnose.diagnose("RuntimeError: Caught RuntimeError in pin memory thread for device 0."),
             "pin-memory-thread-failed")


def test_a_workers_native_crash():
    r = diagnose.diagnose("ERROR: Unexpected segmentation fault encountered in worker.\nRuntimeError: DataLoader worker "
                          "(pid 4242) is killed by signal: Segmentation fault.")
    _program(r, "dataloader-worker-segfault")
    assert "num_workers=0" in _fix(r)


def test_a_worker_killed_by_sigkill_is_memory_not_shared_memory():
    r = diagnose.diagnose("RuntimeError: DataLoader worker (pid 22048) is killed by signal: Killed.")
    _program(r, "dataloader-worker-killed")
    assert "dmesg" in _fix(r)


def test_a_worker_bus_error_stays_shared_memory():
    r = diagnose.diagnose("docker run img\nRuntimeError: DataLoader worker (pid 17) is killed by signal: Bus error. It is "
                          "possible that dataloader's workers are out of shared memory.")
    assert r["layer"] == "container" and "--shm-size" in _fix(r), r


def test_cuda_initialization_error_beside_a_dataloader_is_fork():
    r = diagnose.diagnose("calling .cuda() inside my dataloader's collate_fn\nRuntimeError: CUDA error: initialization "
                          "error")
    _program(r, "cuda-in-forked-child")


def test_the_fork_message_in_lower_case():
    r = diagnose.diagnose('raise RuntimeError("cannot re-initialize cuda in forked subprocess. " + msg)')
    assert r["signature"] == "cuda-in-forked-subprocess" and r["environment_problem"] is False, r
