"""explain's fifty-second round, from test53's miss (GPU memory): the caching allocator's settings. Its refusals of
PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF (the messages of torch 2.14.1 as it prints them, and the older releases'),
the old name's deprecation warning, and expandable-segment tensors refused between processes. The texts are written
for these tests from the allocator's messages, not copied from the corpus."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose
from torch_envcheck.knowledge import allocator_config
from explain_answers import fix_of as _fix

_INSTALL = re.compile(r"\b(?:pip|conda|apt-get) install\b|\breinstall\b")


def test_a_misspelt_key_names_the_key_it_meant():
    r = diagnose.diagnose("  File \"train.py\", line 3, in <module>\n    x = torch.zeros(1, device='cuda')\n"
                          "ValueError: Unrecognized key 'expandable_segment' in Accelerator allocator config.")
    assert r["signature"] == "allocator-config-refused" and r["layer"] == "env" and r["environment_problem"]
    assert "Write 'expandable_segments' instead of 'expandable_segment'" in _fix(r)
    assert not _INSTALL.search(_fix(r))


def test_a_key_in_other_letter_case_is_named_in_lower_case():
    r = diagnose.diagnose("ValueError: Unrecognized key 'Expandable_Segments' in CUDA allocator config.")
    assert "Write 'expandable_segments'" in _fix(r)


def test_another_frameworks_key_is_removed_not_renamed():
    r = diagnose.diagnose("ValueError: Unrecognized key 'page_size_kb' in Accelerator allocator config.")
    assert r["signature"] == "allocator-config-refused"
    assert "Remove 'page_size_kb'" in _fix(r)


def test_a_key_newer_than_the_torch_that_refused_it():
    # torch before the accelerator-wide parser printed this for a key it did not know
    r = diagnose.diagnose("RuntimeError: Unrecognized CachingAllocator option: expandable_segments")
    assert r["signature"] == "allocator-config-refused" and r["layer"] == "env"
    assert "Drop 'expandable_segments'" in _fix(r) and "upgrade torch" in _fix(r)


@pytest.mark.parametrize("text, wanted", [
    ("ValueError: CachingAllocator option max_split_size_mb too small, must be >= 20", "max_split_size_mb to 20 MiB"),
    ("ValueError: CachingAllocator option large_segment_size_mb must be > 10 MB", "large_segment_size_mb to 11 MiB"),
    ("ValueError: Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'", "True or False"),
    ("RuntimeError: Expected a single True/False argument for expandable_segments", "True or False"),
    ("ValueError: Unknown allocator backend, options are native and cudaMallocAsync", "backend:native"),
    ("ValueError: garbage_collect_threshold is invalid, set it in (0.0, 1.0)", "garbage_collection_threshold:0.6"),
    ("RuntimeError: Expected closing bracket ']' in ConfigTokenizer but reached end of config", "Close the bracket"),
])
def test_each_refusal_says_what_to_write(text, wanted):
    r = diagnose.diagnose(text)
    assert r["signature"] == "allocator-config-refused" and r["layer"] == "env"
    assert wanted in _fix(r)


def test_the_deprecation_warning_keeps_the_old_name():
    r = diagnose.diagnose("[W1106 11:25:56.492120877 AllocatorConfig.cpp:28] Warning: PYTORCH_CUDA_ALLOC_CONF is "
                          "deprecated, use PYTORCH_ALLOC_CONF instead (function operator())")
    assert r["signature"] == "allocator-alias-warning" and r["layer"] == "env"
    assert _fix(r).startswith("Keep PYTORCH_CUDA_ALLOC_CONF") and "2.9" in _fix(r)


@pytest.mark.parametrize("call, kernel", [("pidfd_getfd", "5.6"), ("pidfd_open", "5.3")])
def test_expandable_segments_between_processes_on_an_old_kernel(call, kernel):
    r = diagnose.diagnose(f"RuntimeError: The kernel on this machine does not support the {call} syscall needed to "
                          "use IPC for CUDA tensors when expandable_segments:True is set.")
    assert r["signature"] == "expandable-segments-ipc" and r["layer"] == "env"
    assert "expandable_segments:False" in _fix(r) and f"kernel {kernel}" in _fix(r)


def test_the_out_of_memory_report_that_names_the_setting_stays_out_of_memory():
    r = diagnose.diagnose("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                          "capacity of 4.00 GiB of which 2.35 GiB is free. If reserved but unallocated memory is large "
                          "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
    assert r["signature"] == "cuda-out-of-memory" and r["environment_problem"] is False


def test_the_key_table_and_its_lookups():
    assert allocator_config.key_status("max_split_size_mb") == "known"
    assert allocator_config.key_status("MAX_SPLIT_SIZE_MB") == "case"
    assert allocator_config.key_status("page_size_kb") == "unknown"
    assert allocator_config.close_key("max_split_size") == "max_split_size_mb"
    assert allocator_config.close_key("page_size_kb") is None
