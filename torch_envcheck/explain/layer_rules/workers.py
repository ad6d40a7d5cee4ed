"""Layer rules for the DataLoader's workers and Python's multiprocessing, read from their own messages: what the program
did with its processes (pickling under spawn, an unguarded main module, the start method, a worker's own exception,
pinned memory), never an install.

    pickle_for_workers   "Can't pickle local object", "Can't get attribute 'X' on <module '__main__'>" -> spawn pickles
                         the dataset and collate_fn: module-level functions, not lambdas or local ones
    spawn_reimports_main  "An attempt has been made to start a new process before the current process has finished its
                         bootstrapping phase", spawn's prepare() in the traceback, a broken pipe to spawned workers on
                         Windows -> the main module's `if __name__ == '__main__':` guard
    start_method_already_set  "context has already been set" -> set_start_method once, or force=True
    dataloader_option_refused  torch's own DataLoader argument checks (persistent_workers, prefetch_factor without
                         workers) -> the arguments
    worker_raised        "Caught OSError in DataLoader worker process 0" -> the dataset's own code or data (its original
                         traceback follows); library errors inside it are read by their own rules first
    pin_memory_thread_failed  "Caught RuntimeError in pin memory thread", "Pin memory thread exited unexpectedly" ->
                         page-locked host memory: pin_memory=False or smaller batches
    worker_segfault      "Unexpected segmentation fault encountered in worker" -> native code the dataset runs in a
                         forked worker (OpenCV's or a decoder's threads): num_workers=0 to see it, their thread settings
"""

from __future__ import annotations

import re

from torch_envcheck.explain.layer_rules.kit import _context, _match, _sig, last_in_tail, on_windows

_MP_DOC = {"url": "https://docs.python.org/3/library/multiprocessing.html#the-spawn-and-forkserver-start-methods",
           "what": "multiprocessing: under spawn the main module is imported again (guard it) and arguments are "
                   "pickled (module-level functions only)"}
_DATA_DOC = {"url": "https://pytorch.org/docs/stable/data.html#platform-specific-behaviors",
             "what": "torch.utils.data: workers are spawned on Windows and macOS; the dataset and collate_fn are "
                     "pickled; wrap the main code in if __name__ == '__main__'"}

_PICKLE = re.compile(r"Can't pickle (?:local object )?'?(?P<obj>[^'\n]{1,120}?)'?(?::|\n|$)|PicklingError: Can't pickle "
                     r"<(?P<kind>function|class|lambda)[^>\n]{0,120}>|Can't get attribute '(?P<attr>\w{1,80})' on "
                     r"<module '__(?:mp_)?main__'")


def pickle_for_workers(ent, text):
    m, at = last_in_tail(_PICKLE, text, "pickle")
    if m is None:
        m, at = last_in_tail(_PICKLE, text, "Can't get attribute")
    if m is None:
        return None
    obj = (m.group("obj") or m.group("attr") or "").strip() or None
    missing_attr = m.group("attr") is not None
    sig = _sig("pickle-for-workers", "not-environment",
               "worker processes cannot receive " + ("{obj}: it is defined only in the main script" if missing_attr
                                                    else "{obj|an object}: it cannot be pickled"), 78,
               "Processes started with 'spawn' (DataLoader workers on Windows and macOS, torch.multiprocessing with "
               "spawn) get the dataset, the collate_fn and their arguments by pickling; " +
               ("a class or function defined in a notebook cell, or inside the main script's `if __name__ == '__main__':` "
                "block (the child imports the script as __mp_main__ without running it), is not importable by the "
                "child." if
                missing_attr else "a lambda, a function defined inside another function, or an object holding one, "
                "cannot be pickled."),
               look_at="Define the function (or class) at the top level of an importable module and pass that, not a "
                       "lambda or a nested function; in a notebook move the Dataset into a .py file; num_workers=0 "
                       "avoids the workers entirely. Nothing to install.",
               areas=("program",), sources=(_MP_DOC, _DATA_DOC))
    return _match(sig, text, at, {"obj": obj})


_BOOTSTRAP = re.compile(r"An attempt has been made to start a new process before the\s{1,20}current process has finished "
                        r"its bootstrapping phase|multiprocessing[/\\]spawn\.py\", line \d{1,5}, in _main\s{1,10}"
                        r"prepare\(preparation_data\)")
_BROKEN_PIPE = re.compile(r"BrokenPipeError\b(?::? \[Errno 32\] Broken pipe)?")
_WORKER_WORDS = r"(?i)dataloader|num_workers|multiprocessing|_worker_loop|for [\w, ]{1,40} in [\w.]{0,60}loader"


def spawn_reimports_main(ent, text):
    m, at = last_in_tail(_BOOTSTRAP, text, None)
    if m is None:
        m, at = last_in_tail(_BROKEN_PIPE, text, "BrokenPipeError")
        if m is None or not _context(text, _WORKER_WORDS) or not on_windows(ent, text):
            return None
    sig = _sig("spawn-reimports-main", "not-environment",
               "spawned worker processes re-ran the main script: it lacks the __main__ guard", 80,
               "With the 'spawn' start method (Windows and macOS, and wherever the program chooses it) each child "
               "process imports the main module again. Code at its top level that starts processes, a DataLoader with "
               "workers or training, runs again in every child: the child aborts (the bootstrapping error, or on Windows "
               "a broken pipe to a worker that died at start).",
               look_at="Put the program's entry under `if __name__ == '__main__':` (with `multiprocessing.freeze_support()` "
                       "first for frozen Windows executables), keep the Dataset and functions at module level; in a "
                       "notebook on Windows set num_workers=0. Nothing to install.",
               areas=("program",), sources=(_MP_DOC, _DATA_DOC))
    return _match(sig, text, at, {})


_CONTEXT_SET = re.compile(r"RuntimeError: context has already been set")


def start_method_already_set(ent, text):
    m, at = last_in_tail(_CONTEXT_SET, text, "context has already been set")
    if m is None:
        return None
    sig = _sig("start-method-already-set", "not-environment", "the multiprocessing start method was set twice", 80,
               "multiprocessing.set_start_method() may run once per process: something (an imported library, or an "
               "earlier line) already chose the start method, so the second call raises.",
               look_at="Call set_start_method('spawn', force=True), or set it once under `if __name__ == '__main__':` "
                       "before anything else starts processes, or use a context: multiprocessing.get_context('spawn'). "
                       "Nothing to install.",
               areas=("program",), sources=(_MP_DOC,))
    return _match(sig, text, at, {})


# torch.utils.data.DataLoader's own argument checks
_OPTION = re.compile(r"persistent_workers option needs num_workers > 0|prefetch_factor option could only be specified in "
                     r"multiprocessing|num_workers option should be non-negative|timeout option should be non-negative")


def dataloader_option_refused(ent, text):
    m, at = last_in_tail(_OPTION, text, "option")
    if m is None:
        return None
    sig = _sig("dataloader-option-refused", "not-environment",
               "the DataLoader refused its own arguments ({line})", 80,
               "torch's DataLoader checks its arguments: persistent_workers and prefetch_factor mean something only with "
               "worker processes (num_workers > 0).",
               look_at="Pass those options only when num_workers > 0 (e.g. persistent_workers=num_workers > 0). Nothing "
                       "to install.",
               areas=("program",), sources=({"url": "https://pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",
                                             "what": "DataLoader's arguments"},))
    return _match(sig, text, at, {"line": m.group(0)})


# a worker's own exception, re-raised in the main process with the worker's traceback ("Original Traceback"); the
# exception types that say the dataset's code or data, not a library failing to load
_WORKER_RAISED = re.compile(r"Caught (?P<exc>OSError|FileNotFoundError|IsADirectoryError|PermissionError|KeyError|"
                            r"IndexError|ValueError|TypeError|AttributeError|UnicodeDecodeError|ZeroDivisionError|"
                            r"AssertionError|UnidentifiedImageError|EOFError|JSONDecodeError) in DataLoader worker process "
                            r"(?P<n>\d{1,4})")


# the worker's original traceback naming a library or the GPU: that failure is the answer, not the dataset's code
_ENVIRONMENT_INSIDE = re.compile(r"cannot open shared object file|undefined symbol|DLL load failed|[Ee]rror loading "
                                 r"\"?[^\n]{0,200}\.dll|CUDA (?:error|driver)|cuDNN|CUBLAS_STATUS|NCCL|GLIBC|CXXABI|"
                                 r"[Nn]o module named|(?:library|Library) [^\n]{0,80} (?:is )?not found")


def worker_raised(ent, text):
    m, at = last_in_tail(_WORKER_RAISED, text, "in DataLoader worker process")
    if m is None or _ENVIRONMENT_INSIDE.search(text, at):
        return None
    sig = _sig("dataloader-worker-raised", "not-environment",
               "the dataset's code raised {exc} in DataLoader worker {n}", 64,
               "A DataLoader worker re-raises, in the main process, the exception the dataset's __getitem__ (or the "
               "collate_fn) raised; its original traceback follows the message. {exc} there is the data or the code "
               "reading it (a path that does not exist, a corrupt or unexpected file, an index past the data).",
               look_at="Read the 'Original Traceback' part: the last frame in your dataset names the file or sample; "
                       "num_workers=0 raises the same error directly in the main process.",
               areas=("program",), sources=(_DATA_DOC,))
    return _match(sig, text, at, {"exc": m.group("exc"), "n": m.group("n")})


_PIN_THREAD = re.compile(r"Caught \w{3,40} in pin memory thread for device \d{1,2}|Pin memory thread exited unexpectedly")


def pin_memory_thread_failed(ent, text):
    m, at = last_in_tail(_PIN_THREAD, text, "in memory thread")
    if m is None:
        return None
    sig = _sig("pin-memory-thread-failed", "not-environment",
               "the DataLoader's pin-memory thread failed", 66,
               "With pin_memory=True a thread copies each batch into page-locked host memory before it goes to the GPU. "
               "That memory is scarcer than ordinary RAM (the host's, a container's limits): large batches or many "
               "prefetched ones exhaust it, and the thread fails or exits.",
               look_at="Set pin_memory=False in the DataLoader, or lower the batch size / prefetch_factor / num_workers; "
                       "the error after 'Original Traceback', if printed, names what failed. Nothing to install.",
               areas=("program",), sources=({"url": "https://pytorch.org/docs/stable/data.html#memory-pinning",
                                             "what": "torch.utils.data: memory pinning"},))
    return _match(sig, text, at, {})


# torch's (and PaddlePaddle's) handler for a worker that crashed in native code; the bus-error variant is shared memory's
# and dataloader_worker_died's
_WORKER_SEGV = re.compile(r"Unexpected segmentation fault encountered in (?:DataLoader )?workers?")


def worker_segfault(ent, text):
    m, at = last_in_tail(_WORKER_SEGV, text, "segmentation fault encountered")
    if m is None:
        return None
    sig = _sig("dataloader-worker-segfault", "not-environment",
               "a DataLoader worker crashed in native code (segmentation fault)", 66,
               "A worker process died of a segmentation fault inside native code the dataset calls: an image or video "
               "decoder, OpenCV (whose own thread pool does not survive fork), a custom extension. The Python traceback "
               "cannot show it; the same code in the main process usually raises or crashes visibly.",
               look_at="Run with num_workers=0 to see where it fails; with OpenCV call cv2.setNumThreads(0) in the "
                       "worker_init_fn (or start workers with multiprocessing_context='spawn'); check the sample files "
                       "for corrupt ones. In a container, a bus error instead is /dev/shm's size.",
               areas=("program",), sources=(_DATA_DOC,))
    return _match(sig, text, at, {})
