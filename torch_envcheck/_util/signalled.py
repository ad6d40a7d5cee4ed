"""Signal handlers set and put back in one way, and a signal turned into an exception that unwinds
the main thread (raised by a signal handler), so the code that was running can still write what it
has: the signal's number and its name.

    named(*names)             the signals of those names this platform has
    install(signals, handler) set `handler` where this thread may; returns what it replaced
    restore(saved)            put those handlers back
    Signalled                 the exception a stopping handler raises
"""

from __future__ import annotations

import signal


def named(*names: str) -> tuple:
    return tuple(getattr(signal, n) for n in names if hasattr(signal, n))


def install(signals, handler) -> dict:
    """`handler` for each of `signals`; one that cannot be set (not the main thread, or refused by
    the OS) is skipped.  Returns {signal: the handler it replaced}, for restore()."""
    saved = {}
    for sig in signals:
        try:
            saved[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):
            continue
    return saved


def restore(saved: dict) -> None:
    for sig, old in saved.items():
        try:
            signal.signal(sig, old)
        except (ValueError, OSError, TypeError):  # TypeError: the old handler was set outside Python (None)
            pass


class Signalled(BaseException):
    """BaseException: an `except Exception` on the way up must not swallow the stop."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        try:
            self.name = signal.Signals(signum).name
        except ValueError:
            self.name = f"signal {signum}"
