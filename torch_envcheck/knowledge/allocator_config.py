"""torch's caching-allocator settings (PYTORCH_CUDA_ALLOC_CONF, PYTORCH_HIP_ALLOC_CONF, PYTORCH_ALLOC_CONF): the keys a
release reads, the variable names and which of them a release warns about, and what the allocator's own refusals mean.

The key list was read from torch 2.14.1 itself (each key given a value it cannot parse: a key it knows answers with
that key's own complaint, one it does not with "Unrecognized key"); the messages are those of c10's AllocatorConfig
and CUDAAllocatorConfig, and of CUDACachingAllocator for expandable segments shared between processes.
"""

from __future__ import annotations

SOURCES = {
    "config": {"url": "https://github.com/pytorch/pytorch/blob/main/c10/core/AllocatorConfig.cpp",
               "what": "AcceleratorAllocatorConfig::parseArgs: 'Unrecognized key ... in Accelerator allocator config', "
                       "'CachingAllocator option max_split_size_mb too small, must be >= 20', 'Expected 'True' or "
                       "'False' at index N in ConfigTokenizer but got ...'; PYTORCH_ALLOC_CONF read first, then "
                       "PYTORCH_CUDA_ALLOC_CONF and PYTORCH_HIP_ALLOC_CONF as aliases"},
    "cuda_config": {"url": "https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAAllocatorConfig.cpp",
                    "what": "the CUDA allocator's own keys (backend: native or cudaMallocAsync; 'Unknown allocator "
                            "backend, options are native and cudaMallocAsync'); older releases: 'Unrecognized "
                            "CachingAllocator option: <key>', 'Expected a single True/False argument for "
                            "expandable_segments'"},
    "alias": {"url": "https://github.com/pytorch/pytorch/pull/167659",
              "what": "the warning 'PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead' "
                      "(TORCH_WARN_ONCE in AllocatorConfig.cpp) replaced by documenting PYTORCH_CUDA_ALLOC_CONF as an "
                      "alias of PYTORCH_ALLOC_CONF"},
    "alias_ignored": {"url": "https://github.com/pytorch/pytorch/issues/183387",
                      "what": "torch 2.9.1: PYTORCH_ALLOC_CONF=expandable_segments:True silently ignored on CUDA; "
                              "only the PYTORCH_CUDA_ALLOC_CONF alias enables it"},
    "alias_warned": {"url": "https://github.com/PriorLabs/TabPFN/issues/608",
                     "what": "the deprecation warning printed on torch 2.8 at every run"},
    "pidfd": {"url": "https://man7.org/linux/man-pages/man2/pidfd_getfd.2.html",
              "what": "pidfd_getfd() first appeared in Linux 5.6 (pidfd_open() in 5.3): what sharing an "
                      "expandable-segments tensor between processes needs from the kernel"},
}

# Keys torch 2.14.1 reads (the accelerator-wide ones and CUDA's own). A key outside this set that a text reports as
# unrecognised is a typo or another framework's; one inside it, refused by the text's torch, is newer than that torch.
KNOWN_KEYS = frozenset({
    "max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold", "roundup_power2_divisions",
    "expandable_segments", "release_lock_on_cudamalloc", "pinned_use_cuda_host_register", "pinned_num_register_threads",
    "pinned_use_background_threads", "pinned_reserve_segment_size_mb", "pinned_max_cached_size_mb",
    "pinned_max_round_threshold_mb", "large_segment_size_mb", "per_process_memory_fraction",
    "graph_capture_record_stream_reuse", "backend",
})

# The unified name, and the per-backend names it replaced (still read as aliases).
UNIFIED = "PYTORCH_ALLOC_CONF"
ALIASES = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF")

# Releases measured without the deprecation warning in their libc10 (the string is absent from the binary).
SILENT_RELEASES = ("2.13.0", "2.14.1")


def key_status(key: str) -> str:
    """'known' (torch 2.14.1 reads it), 'case' (a known key in other letter case: the parser is case-sensitive) or
    'unknown'."""
    k = (key or "").strip()
    if k in KNOWN_KEYS:
        return "known"
    if k.lower() in KNOWN_KEYS:
        return "case"
    return "unknown"


def close_key(key: str) -> str | None:
    """The known key a misspelt one most likely meant (difflib's closest, above 0.75), or None."""
    import difflib  # noqa: PLC0415 - only when a key is unknown

    hits = difflib.get_close_matches((key or "").strip().lower(), sorted(KNOWN_KEYS), n=1, cutoff=0.75)
    return hits[0] if hits else None
