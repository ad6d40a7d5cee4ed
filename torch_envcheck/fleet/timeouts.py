"""Deadlines, and running a function under one: the fleet must never hang, so every wait has an
end and a probe that does not return in time is left behind (a daemon thread) and reported."""

from __future__ import annotations

import datetime
import threading
import time


class Deadline:
    def __init__(self, seconds: float, start: float | None = None):
        self.start = time.monotonic() if start is None else start
        self.seconds = float(seconds)
        self.end = self.start + self.seconds

    def left(self, floor: float = 0.0) -> float:
        return max(floor, self.end - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.end

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def delta(self, floor: float = 1.0) -> datetime.timedelta:
        """What is left as a timedelta (torch.distributed's timeouts); at least `floor` seconds."""
        return datetime.timedelta(seconds=self.left(floor))


class TimedOut(Exception):
    pass


def call_with_deadline(fn, seconds: float, name: str = "call"):
    """fn() in a daemon thread; its value, its exception re-raised, or TimedOut after `seconds`
    (the thread is abandoned: a probe stuck in a driver call cannot be interrupted)."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001  (re-raised in the caller's thread)
            box["error"] = exc

    th = threading.Thread(target=target, name=f"torch_envcheck-fleet-{name}", daemon=True)
    th.start()
    th.join(max(0.0, seconds))
    if th.is_alive():
        raise TimedOut(f"{name} did not finish within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")
