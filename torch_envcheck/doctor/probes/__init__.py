"""The doctor's probes: each gathers facts about one area and never judges them.

run() calls them so that a probe that raises, or a thread that never returns, becomes a line in
probe_errors instead of a crash, and records each probe's seconds.  torch is imported in a child
process started first (torch_probe: a torch that hangs, exits or crashes becomes facts); every probe
runs on a thread of its own under a deadline (a probe stuck on a driver call or a file is abandoned
and named), so the report costs little more than `import torch` itself and always comes out.
"""

from __future__ import annotations

import threading
import time

# probe name -> snapshot key
SECTIONS = {
    "platform": "platform", "torch": "torch", "packages": "packages", "driver": "driver",
    "env": "env", "libraries": "libraries", "toolchain": "toolchain", "extension": "extension",
    "conda": "conda",
    "tensorflow": "tensorflow", "file_owners": "file_owners", "system": "system",
}
ALL = tuple(SECTIONS)
# Set by `torch-envcheck --all-envs` for the doctor it runs in another environment's interpreter:
# this package's compiled extension belongs to the environment it was installed in, so there it is
# neither loaded nor judged (its state is recorded as "not-checked").
OTHER_ENV = "TORCH_ENVCHECK_OTHER_ENV"


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class _Runner:
    def __init__(self):
        self.results: dict = {}
        self.errors: dict = {}
        self.seconds: dict = {}
        self._lock = threading.Lock()

    def call(self, name: str, fn, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            value = fn(*args, **kwargs)
        except (Exception, SystemExit) as exc:  # a probe must never take the doctor down (Ctrl-C still does)
            value = None
            with self._lock:
                self.errors[name] = _text(exc)
        with self._lock:
            self.seconds[name] = round(time.perf_counter() - t0, 4)
            self.results[name] = value
        return value

    def start(self, name: str, fn, *args, **kwargs) -> threading.Thread:
        th = threading.Thread(target=self.call, args=(name, fn) + args, kwargs=kwargs,
                              name=f"torch_envcheck-probe-{name}", daemon=True)
        th.start()
        return th


def _probe_module(name: str):
    # Imported on demand: a probe module that fails to import is reported like a probe that fails.
    import importlib  # noqa: PLC0415
    module = {"torch": "torch_probe", "env": "env_vars", "toolchain": "toolchain_probe",
              "extension": "extension_probe"}.get(name, name)
    return importlib.import_module(f"{__name__}.{module}")


def _probe_fn(name: str):
    return _probe_module(name).probe


# The torch import's own limit when the caller sets none: a CUDA torch's first import on a busy
# machine or a network file system can take well over the 5 s a helper program gets.
TORCH_IMPORT_LIMIT_S = 30.0
# TensorFlow's import takes about twice torch's: its child gets twice the torch import's limit.
TENSORFLOW_LIMIT_FACTOR = 2.0
# While TensorFlow's child runs, torch's runs this much nicer.  TensorFlow's import is the report's
# critical path and torch's ends well before it: with fewer free cores than busy processes, the
# scheduler should give the spare time to TensorFlow's, not split it evenly.  (On 2 quiet cores the
# gain was within the noise: 0.91x and 0.99x of a bare `import tensorflow` without it, 0.93x and 0.93x
# with it; the big cut was skipping TensorFlow's interpreter teardown in its child.)
TORCH_NICE_BESIDE_TENSORFLOW = 10


# Every probe has a deadline: one stuck on something the runner cannot interrupt (a driver call,
# a file the safe reader missed) is abandoned on its daemon thread and named in probe_errors.
# Probes that run programs: two programs one after the other at most, hence 2x.  The probes that
# only read files and variables get the same bound (they take milliseconds).
def probe_bound(timeout: float) -> float:
    return 2 * timeout + 2.0


def worst_case_s(timeout: float = 5.0, torch_timeout: float | None = None, tensorflow: bool = True) -> float:
    """How long run() can take at most: the slowest probe's deadline (TensorFlow's child, else
    torch's), then the extension's probe when the torch child did not report it."""
    limit = torch_timeout if torch_timeout else max(timeout, TORCH_IMPORT_LIMIT_S)
    slowest = TENSORFLOW_LIMIT_FACTOR * limit if tensorflow else limit
    return slowest + 2 * probe_bound(timeout)


def run(timeout: float = 5.0, only=None, env: dict | None = None, torch_timeout: float | None = None,
        tensorflow: bool = True) -> dict:
    """Run the probes named in `only` (default: all); return {"sections", "probe_errors", "probe_seconds"}.

    `timeout` bounds each helper program; `torch_timeout` bounds the child that imports torch
    (default: the larger of `timeout` and TORCH_IMPORT_LIMIT_S), and twice it the child that imports
    TensorFlow.  tensorflow=False (--no-tensorflow): TensorFlow's metadata only, no child process.
    Every probe runs on a thread of its own under a deadline (probe_bound); the report names a
    probe that did not finish in time, and the doctor goes on without it."""
    names = [n for n in ALL if only is None or n in only]
    r = _Runner()
    start = time.monotonic()
    threads: dict = {}   # name -> (thread, bound in seconds from start)
    limit = torch_timeout if torch_timeout else max(timeout, TORCH_IMPORT_LIMIT_S)
    tf_limit = TENSORFLOW_LIMIT_FACTOR * limit
    quick = probe_bound(timeout)

    def launch(name, fn, bound):
        threads[name] = (r.start(name, fn), bound)

    # Import every probe module here, one after another, before any thread starts: Python's import
    # machinery can deadlock when threads import modules at the same moment while an import hook
    # (setuptools' _distutils_hack, loaded from a .pth file) imports modules of its own.  A module that
    # fails to import is imported again on its thread, which reports the failure like a probe's.
    for name in names:
        try:
            _probe_module(name)
        except Exception:  # noqa: BLE001 - reported by the probe's own thread below
            pass

    # TensorFlow's child (the slowest import of all) first, on its own thread; torch's child next.
    tf_child = "tensorflow" in names and tensorflow and _probe_module("tensorflow").will_run_child()
    if "tensorflow" in names:
        # its child's own limit, plus the time to read its output and metadata
        launch("tensorflow", lambda: _probe_fn("tensorflow")(timeout=timeout, run_child=tensorflow, env=env,
                                                           limit=tf_limit), tf_limit + quick)
    if "file_owners" in names:
        launch("file_owners", lambda: _probe_fn("file_owners")(), quick)
    # torch first: its child imports torch (seconds) while everything below runs.  Starting it is one
    # fork and exec on this thread.
    child = None
    import os  # noqa: PLC0415
    other_env = (env if env is not None else os.environ).get(OTHER_ENV) == "1"
    if "torch" in names or "extension" in names:
        nice = TORCH_NICE_BESIDE_TENSORFLOW if tf_child else 0
        child = r.call("torch-start", lambda: _probe_module("torch").start(
            limit, env=env, nice=nice, extension="extension" in names and not other_env))
    for name in ("driver", "toolchain", "system"):
        if name in names:
            launch(name, lambda n=name: _probe_fn(n)(timeout=timeout, env=env), quick)
    # The package metadata (file reads, ~50 ms) overlaps the torch import too.
    if "packages" in names:
        launch("packages", lambda: _probe_fn("packages")(), quick)
    for name in ("platform", "env", "libraries", "conda"):
        if name in names:
            launch(name, lambda n=name: _probe_fn(n)(env=env), quick)
    if child is not None:
        # the child's own limit, then reading its output and torch's metadata
        launch("torch", lambda: _probe_module("torch").finish(child), limit + quick)
    _join(r, threads, start)
    threads.clear()
    torch_facts = ext_facts = None
    if child is not None:
        both = r.results.get("torch")
        torch_facts, ext_facts = both if isinstance(both, tuple) else (None, None)
        r.results["torch"] = torch_facts
    if "extension" in names and other_env:
        r.results["extension"] = {"status": {"state": "not-checked", "mode": None, "path": None, "built_against": None,
                                             "running_torch": (torch_facts or {}).get("version"), "meta": None,
                                             "error": "torch_envcheck's extension belongs to the environment it was "
                                                      "installed in (--all-envs checks this one from outside)"},
                                  "build_info": None, "runtime_info": None, "errors": []}
        r.seconds["extension"] = 0.0
    elif "extension" in names:
        if ext_facts is not None:
            r.results["extension"] = ext_facts
            r.seconds["extension"] = 0.0  # measured inside the torch child's time
        else:
            launch("extension", lambda: _extension_without_child(torch_facts), quick)
            _join(r, threads, time.monotonic())
    with r._lock:
        r.results.pop("torch-start", None)
        r.seconds.pop("torch-start", None)
        if "torch-start" in r.errors:
            r.errors["torch"] = r.errors.pop("torch-start")
        return {"sections": {SECTIONS[n]: r.results.get(n) for n in names},
                "probe_errors": dict(r.errors), "probe_seconds": dict(r.seconds)}


def _join(r: _Runner, threads: dict, start: float) -> None:
    """Wait for each probe thread until its deadline; one still running is abandoned and named."""
    for name, (th, bound) in threads.items():
        th.join(max(0.0, start + bound - time.monotonic()))
        if th.is_alive():
            with r._lock:
                r.errors[name] = f"the {name} probe did not finish within {bound:g} s"
                r.seconds.setdefault(name, round(bound, 4))
                r.results.setdefault(name, None)


def _extension_without_child(torch_facts: dict | None) -> dict:
    """The extension section when the torch child did not report it: torch failed to import
    (the extension probe says so without importing torch here), or the child died after torch."""
    ext = _probe_fn("extension")
    if torch_facts is not None and torch_facts.get("importable"):
        proc = torch_facts.get("import_process") or {}
        why = ("did not finish" if proc.get("timed_out") else
               f"died with {proc['signal']}" if proc.get("signal") else
               f"exited with status {proc.get('returncode')}")
        tail = (proc.get("stderr_tail") or "").strip().splitlines()
        return {"status": {"state": "broken", "mode": None, "path": None, "built_against": None,
                           "running_torch": torch_facts.get("version"),
                           "error": f"the process that imported torch {why} while loading the extension"
                                    + (f": {tail[-1]}" if tail else ""),
                           "meta": None},
                "build_info": None, "runtime_info": None, "errors": []}
    return ext(torch_facts=torch_facts if torch_facts is not None else {"importable": False})
