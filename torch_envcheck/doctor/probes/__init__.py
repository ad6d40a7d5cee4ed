"""The doctor's probes: each gathers facts about one area and never judges them.

run() calls them so that a probe that raises, or a thread that never returns, becomes a line in
probe_errors instead of a crash, and records each probe's seconds.  The probes that wait on programs
(driver: nvidia-smi; toolchain: nvcc, c++, ninja) run in threads while this thread imports torch,
so the report costs little more than `import torch` itself.
"""

from __future__ import annotations

import threading
import time

# probe name -> snapshot key
SECTIONS = {
    "platform": "platform", "torch": "torch", "packages": "packages", "driver": "driver",
    "env": "env", "libraries": "libraries", "toolchain": "toolchain", "extension": "extension",
    "tensorflow": "tensorflow", "file_owners": "file_owners",
}
ALL = tuple(SECTIONS)


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


def _probe_fn(name: str):
    # Imported on demand: a probe module that fails to import is reported like a probe that fails.
    import importlib  # noqa: PLC0415
    module = {"torch": "torch_probe", "env": "env_vars", "toolchain": "toolchain_probe",
              "extension": "extension_probe"}.get(name, name)
    return importlib.import_module(f"{__name__}.{module}").probe


def run(timeout: float = 5.0, only=None, env: dict | None = None, tensorflow: bool = True) -> dict:
    """Run the probes named in `only` (default: all); return {"sections", "probe_errors", "probe_seconds"}.
    tensorflow=False (--no-tensorflow): TensorFlow's metadata only, no child process."""
    names = [n for n in ALL if only is None or n in only]
    r = _Runner()
    threads = {}
    # TensorFlow is imported in a child process (seconds): started first, it overlaps the torch import.
    if "tensorflow" in names:
        threads["tensorflow"] = r.start("tensorflow", lambda: _probe_fn("tensorflow")(
            timeout=timeout, run_child=tensorflow, env=env))
    if "file_owners" in names:
        threads["file_owners"] = r.start("file_owners", lambda: _probe_fn("file_owners")())
    for name, kwargs in (("driver", {"timeout": timeout, "env": env}),
                         ("toolchain", {"timeout": timeout, "env": env})):
        if name in names:
            threads[name] = r.start(name, lambda n=name, kw=kwargs: _probe_fn(n)(**kw))
    # The package metadata (importlib.metadata: file reads, ~50 ms) overlaps the torch import too;
    # run on this thread it added its whole time to the report.
    if "packages" in names:
        threads["packages"] = r.start("packages", lambda: _probe_fn("packages")())
    for name in ("platform", "env", "libraries"):
        if name in names:
            r.call(name, lambda n=name: _probe_fn(n)(env=env))
    if "torch" in names:
        r.call("torch", lambda: _probe_fn("torch")())
    if "extension" in names:
        torch_facts = r.results.get("torch")
        r.call("extension", lambda: _probe_fn("extension")(torch_facts=torch_facts))
    # Every program has its own time limit; this bound only catches a probe stuck elsewhere
    # (e.g. inside NVML).  Two programs run one after the other at most, hence 2x.
    start = time.monotonic()
    for name, th in threads.items():
        # The TensorFlow child has its own, longer limit (tensorflow.CHILD_TIMEOUT_FACTOR x timeout).
        bound = (12 if name == "tensorflow" else 2) * timeout + 2.0
        th.join(max(0.0, start + bound - time.monotonic()))
        if th.is_alive():
            with r._lock:
                r.errors[name] = f"the {name} probe did not finish within {bound:g} s"
                r.seconds.setdefault(name, round(bound, 4))
                r.results.setdefault(name, None)
    with r._lock:
        return {"sections": {SECTIONS[n]: r.results.get(n) for n in names},
                "probe_errors": dict(r.errors), "probe_seconds": dict(r.seconds)}
