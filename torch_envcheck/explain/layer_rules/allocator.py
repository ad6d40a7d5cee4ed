"""Layer rules for torch's caching-allocator settings, read from the allocator's own messages (knowledge.allocator_config).

    allocator_config_refused  the allocator refusing PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF: an unrecognised key
                         (a typo, another framework's key, or one newer than this torch), a value out of range or not
                         True/False, an unknown backend, an unclosed bracket -> env: the variable's value
    allocator_alias_warning  "PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead" -> env: a warning;
                         the old name still works, and on 2.9.x the new one is ignored for expandable_segments
    expandable_segments_ipc  expandable-segment tensors shared between processes refused (the kernel's pidfd calls, or
                         not shareable at all) -> env: expandable_segments off in the processes that share tensors
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _match, _sig, last_in_tail
from torch_envcheck.knowledge import allocator_config

_S = allocator_config.SOURCES
_KNOWN = ", ".join(sorted(allocator_config.KNOWN_KEYS))

_REFUSAL = re.compile(
    r"Unrecognized key '(?P<key>[\w.\- ]{1,80})' in (?:\w{1,12} )?allocator config"
    r"|Unrecognized CachingAllocator option: ?(?P<key_old>[\w.\-]{1,80})"
    r"|CachingAllocator option (?P<opt>\w{1,60}) (?:too small, must be >= ?(?P<min>\d{1,6})|must be > ?(?P<gt>\d{1,6}))"
    r"|Expected 'True' or 'False' at index \d{1,4} in ConfigTokenizer but got '(?P<bool>[\w.\- ]{0,60})'"
    r"|Expected a single True/False argument for (?P<bool_key>\w{1,60})"
    r"|(?P<backend>Unknown allocator backend, options are native and cudaMallocAsync)"
    r"|(?P<gc>garbage_collect(?:ion)?_threshold (?:is invalid, set it in \(0\.0, 1\.0\)|too (?:small|big), set it 0\.0~1\.0))"
    r"|(?P<bracket>Expected closing bracket '\]' in ConfigTokenizer|Index out of bounds in ConfigTokenizer)")


def _refusal_reading(m) -> tuple:
    """(title, what is wrong, what to write instead) for one refusal."""
    key = m.group("key") or m.group("key_old")
    if key:
        status = allocator_config.key_status(key)
        if status == "known":
            return (f"this torch does not know the allocator option '{key}'",
                    f"'{key}' is an option of newer torch releases (torch 2.14.1 reads it) that the torch which "
                    "printed this predates; PYTORCH_CUDA_ALLOC_CONF is often set for every program of a job or shell, "
                    "so an older torch in another environment inherits it.",
                    f"Drop '{key}' from the variable for this program (unset it, or set it in the environment of the "
                    "programs that use a torch new enough), or upgrade torch within its own CUDA build so it reads "
                    f"'{key}'.")
        near = allocator_config.close_key(key)
        if status == "case":
            near = key.lower()
        return (f"'{key}' is not an allocator option",
                f"The allocator reads only its own keys, spelt exactly (case counts); '{key}' is none of them"
                + (f" (the nearest is '{near}')" if near else "") + ". Keys torch 2.14.1 reads: " + _KNOWN + ".",
                (f"Write '{near}' instead of '{key}'" if near else f"Remove '{key}'") +
                " in PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF): key:value pairs separated by commas, e.g. "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128.")
    if m.group("opt"):
        bound = m.group("min") or m.group("gt")
        rel = ">=" if m.group("min") else ">"
        return (f"the allocator option {m.group('opt')} is out of range (must be {rel} {bound})",
                f"{m.group('opt')} is given in MiB and must be {rel} {bound}.",
                f"Set {m.group('opt')} to {bound if rel == '>=' else int(bound) + 1} MiB or more (e.g. "
                f"{m.group('opt')}:128) in PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF, or leave it out.")
    if m.group("bool") is not None or m.group("bool_key"):
        got = m.group("bool")
        return ("an allocator option takes True or False" + (f", not '{got}'" if got else ""),
                "Switches such as expandable_segments take the words True or False, capitalised (not true, 1 or yes).",
                "Write the value as True or False, e.g. PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.")
    if m.group("backend"):
        return ("an unknown allocator backend",
                "backend: takes native (the caching allocator) or cudaMallocAsync (CUDA's stream-ordered allocator).",
                "Set backend:native or backend:cudaMallocAsync (or leave backend out).")
    if m.group("gc"):
        return ("garbage_collection_threshold is out of range",
                "garbage_collection_threshold is a fraction of the memory torch may use, strictly between 0.0 and 1.0.",
                "Set garbage_collection_threshold to a fraction such as 0.6 (garbage_collection_threshold:0.6).")
    return ("the allocator setting cannot be parsed",
            "A list value (roundup_power2_divisions:[256:1,512:2,>:8]) was not closed, or the value ends early.",
            "Close the bracket, and quote the whole value in the shell: "
            "PYTORCH_CUDA_ALLOC_CONF='roundup_power2_divisions:[256:1,>:4]'.")


def allocator_config_refused(ent, text):
    m, at = last_in_tail(_REFUSAL, text)
    if m is None:
        return None
    title, why, fix = _refusal_reading(m)
    sig = _sig("allocator-config-refused", "env", "PYTORCH_CUDA_ALLOC_CONF refused: " + title, 86,
               "torch reads its allocator's settings from PYTORCH_ALLOC_CONF, or the older names PYTORCH_CUDA_ALLOC_CONF "
               "and PYTORCH_HIP_ALLOC_CONF, when the allocator starts (the first tensor on the GPU, or "
               "torch.cuda.memory._set_allocator_settings), and refuses a value it cannot parse. " + why,
               fix=fix + " Check what the process really sees: a launcher script, a .env file or the job's exports may "
                         "set it.",
               areas=("env",), sources=(_S["config"], _S["cuda_config"]))
    return _match(sig, text, at, {})


_ALIAS = re.compile(r"(?P<var>PYTORCH_(?:CUDA|HIP)_ALLOC_CONF) is deprecated, use PYTORCH_ALLOC_CONF instead")


def allocator_alias_warning(ent, text):
    m, at = last_in_tail(_ALIAS, text, "is deprecated, use PYTORCH_ALLOC_CONF")
    if m is None:
        return None
    var = m.group("var")
    sig = _sig("allocator-alias-warning", "env",
               f"a warning, not an error: {var} still works (an alias of PYTORCH_ALLOC_CONF)", 80,
               f"Some torch releases (2.8 to 2.11 reported) warn once that {var} is deprecated; they still read it. "
               "Renaming it is not always safe: on torch 2.9.1 the CUDA allocator ignores expandable_segments given "
               f"under PYTORCH_ALLOC_CONF, so only {var} switches it on. torch 2.13.0 and 2.14.1 carry no such warning.",
               fix=f"Keep {var} as it is (on torch 2.9.x rename it and expandable_segments is silently off); the warning "
                   "can be ignored. To be rid of it, upgrade torch within its CUDA build (2.13.0 and later do not print "
                   "it); there, PYTORCH_ALLOC_CONF and the old name both work.",
               areas=("env",), sources=(_S["alias"], _S["alias_ignored"], _S["alias_warned"]))
    return _match(sig, text, at, {"var": var})


_IPC = re.compile(r"does not support the (?P<call>pidfd_(?:getfd|open)) syscall needed to use IPC for CUDA tensors"
                  r"|(?P<share>Tensors allocated with expandable_segments:True cannot be shared between processes)"
                  r"|(?P<handle>Cannot share an expandable_segments allocation)")


def expandable_segments_ipc(ent, text):
    m, at = last_in_tail(_IPC, text, "xpandable_segments")
    if m is None:
        return None
    call = m.group("call")
    kernel = {"pidfd_getfd": "5.6", "pidfd_open": "5.3"}.get(call or "")
    sig = _sig("expandable-segments-ipc", "env",
               "CUDA tensors from expandable segments cannot be shared between these processes"
               + (f" (the kernel lacks {call})" if call else ""), 84,
               "With expandable_segments:True, a CUDA tensor passed to another process (DataLoader workers, "
               "torch.multiprocessing, a serving engine's workers) is shared through file descriptors of the memory "
               "itself, which needs the kernel's pidfd calls" +
               (f"; this kernel has no {call} (Linux {kernel} added it)" if kernel else "") + ".",
               fix="Turn expandable segments off in the processes that share CUDA tensors: "
                   "torch.cuda.memory._set_allocator_settings('expandable_segments:False') before the tensors are "
                   "made there, or remove expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF for that job" +
                   (f"; or run on a Linux kernel {kernel} or newer." if kernel else "."),
               areas=("env",), sources=(_S["pidfd"], _S["config"]))
    return _match(sig, text, at, {"call": call} if call else {})
