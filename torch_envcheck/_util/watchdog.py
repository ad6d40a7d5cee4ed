"""The last bound on a torch-envcheck process: a deadline after which it ends, saying why and where.

Every probe already runs under its own deadline, and every helper program is killed with its process
group; what remains unbounded is what no thread of ours can interrupt: the interpreter's own exit
(which joins every non-daemon thread a library started, and flushes the output the report sits in),
a C call that never returns on the main thread, a lock an abandoned thread holds.  A report that
never comes is the worst answer a doctor can give, so a process that owns its lifetime (the
`torch-envcheck` script, `python -m torch_envcheck`; never a caller that imported the package) arms
a deadline while it works:

    arm(seconds, doing, status)   from now on, at most `seconds` more; past it: one line on stderr
                                  naming what was going on (`doing`), the stack of every thread (so
                                  the hang can be fixed), and the process ends with `status`
    disarm(handle)                the work finished in time
    disarm_current()              whatever deadline is armed (a command that may run long starts)

    stacks_on_request()           from now on, SIGUSR2 prints the stack of every thread to stderr and
                                  the work goes on (`kill -USR2 PID`: where is a slow run now?)

It fires from a daemon thread; faulthandler's own watchdog (a C thread that needs no interpreter
lock) ends the process a few seconds later still, should a C call hold that lock for ever.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading

# How much longer than the deadline faulthandler's backstop waits (the Python thread goes first: it
# prints the one-line reason).
BACKSTOP_S = 10.0

owned = False   # set by the command line when this process is the torch-envcheck program itself
_lock = threading.Lock()
_current: dict | None = None


def _fire(handle: dict) -> None:
    if handle["done"].wait(handle["seconds"]):
        return
    try:
        sys.stderr.write(f"torch-envcheck: gave up after {handle['seconds']:g} s: {handle['doing']} did not "
                         "finish (this is a bug: please report it with the thread stacks below)\n")
        sys.stderr.flush()
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    except Exception:  # noqa: BLE001  (no usable stderr: end anyway)
        pass
    os._exit(handle["status"])


def arm(seconds: float, doing: str, status: int = 2) -> dict | None:
    """Bound what follows to `seconds` (replacing an earlier deadline); a no-op (None) unless this
    process is the torch-envcheck program (`owned`)."""
    global _current
    if not owned:
        return None
    handle = {"seconds": float(seconds), "doing": doing, "status": int(status), "done": threading.Event()}
    with _lock:
        if _current is not None:
            _current["done"].set()
        _current = handle
    threading.Thread(target=_fire, args=(handle,), name="torch_envcheck-watchdog", daemon=True).start()
    try:
        faulthandler.dump_traceback_later(seconds + BACKSTOP_S, exit=True, file=sys.stderr)
    except (RuntimeError, ValueError, OSError, AttributeError):  # no usable stderr file descriptor
        pass
    return handle


def disarm(handle: dict | None) -> None:
    """The work `handle` bounded finished in time."""
    global _current
    if handle is None:
        return
    handle["done"].set()
    with _lock:
        if _current is handle:
            _current = None
            try:
                faulthandler.cancel_dump_traceback_later()
            except (RuntimeError, AttributeError):
                pass


def disarm_current() -> None:
    """Disarm the deadline armed last, whatever armed it."""
    with _lock:
        handle = _current
    disarm(handle)


def stacks_on_request() -> bool:
    """SIGUSR2 prints every thread's stack to stderr (faulthandler, so even a main thread stuck in a
    C call answers); only in the torch-envcheck program itself, and only where the signal exists.
    True when installed."""
    sig = getattr(signal, "SIGUSR2", None)
    if not owned or sig is None:
        return False
    try:
        faulthandler.register(sig, file=sys.stderr, all_threads=True, chain=False)
    except (RuntimeError, ValueError, OSError, AttributeError):  # no usable stderr file descriptor
        return False
    return True
