"""A signal turned into an exception that unwinds the main thread (raised by a signal handler), so
the code that was running can still write what it has: the signal's number and its name."""

from __future__ import annotations

import signal


class Signalled(BaseException):
    """BaseException: an `except Exception` on the way up must not swallow the stop."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        try:
            self.name = signal.Signals(signum).name
        except ValueError:
            self.name = f"signal {signum}"
