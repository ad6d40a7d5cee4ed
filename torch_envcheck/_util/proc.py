"""Running a helper program (nvidia-smi, nvcc, c++, ninja, the torch and TensorFlow children, the
rebuild's pip steps) so that it can neither hang the caller, nor flood its memory, nor outlive it.

    Child(argv, ...)          start it: in a session (process group) of its own, stdin from /dev/null,
                              stdout and stderr drained by a thread into capped buffers (capped.py:
                              head and tail kept, the middle dropped and counted)
    Child.wait(timeout)       wait for the *process* to exit (not for its pipes to close: a daemon it
                              left behind may hold them for ever), at most `timeout`; then, however
                              the run ended, kill its whole process group, so nothing it started
                              outlives the run; read what is left in the pipes for a short grace
    run(argv, timeout)        the three together: (returncode, stdout, stderr) as text, or
                              CommandFailed with a one-line reason

subprocess.run(timeout=...) kills only the direct child on timeout, nothing on a normal exit, and
waits for the pipes' EOF, which a grandchild holding them never sends; it also buffers everything.

On POSIX the child is waited for with waitid(WNOWAIT): it stays a zombie, so its process-group id
cannot be reused, until its group has been killed.  Windows has no process groups here: the child
itself is killed, and its pipes are read by a thread each.

A child still running when this process ends (Ctrl-C, SIGTERM turned into SystemExit, a fleet rank
leaving with os._exit) is killed with its group too: kill_all(), registered with atexit.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import threading
import time

from torch_envcheck._util.capped import CappedBuffer

# What a helper program's output may cost: its first MiB (nvidia-smi's CSV for many GPUs) and its
# last 256 KiB (the error it ended with).
HELPER_HEAD = 1 << 20
HELPER_TAIL = 256 << 10
# After the process exited and its group was killed: how long the pipes are still read for.
GRACE_S = 1.0
POSIX = os.name == "posix"


class CommandFailed(RuntimeError):
    """The program could not run or did not finish; the message is a one-line fact for the report."""


class Result:
    """How a run ended, and what it wrote (capped)."""

    def __init__(self, returncode, stdout: bytes, stderr: bytes, timed_out: bool, seconds: float,
                 stdout_dropped: int = 0, stderr_dropped: int = 0, pipes_held: bool = False):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.timed_out, self.seconds = timed_out, seconds
        self.stdout_dropped, self.stderr_dropped, self.pipes_held = stdout_dropped, stderr_dropped, pipes_held

    @property
    def dropped(self) -> int:
        return self.stdout_dropped + self.stderr_dropped

    def text(self, which: str = "stdout") -> str:
        return getattr(self, which).decode("utf-8", "replace")


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process and, on POSIX, everything in its process group (it was started in a
    session of its own), so a wrapper's children cannot outlive it."""
    if POSIX:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        except (OSError, ProcessLookupError):
            pass  # the group is empty already (or was never ours): the process alone, below
    try:
        proc.kill()
    except OSError:
        pass


_LIVE: set = set()
_LIVE_LOCK = threading.Lock()


def kill_all() -> None:
    """Kill the process group of every child still running (this process is about to end)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for child in live:
        child.kill()


atexit.register(kill_all)


class Child:
    """A running program.  stdout_cap / stderr_cap: (head, tail) bytes kept of each.  merge=True
    sends stderr into stdout (one stream, in order).  on_output(bytes), if given, sees every chunk
    of stdout as it comes (from the reading thread), e.g. to stream it into a log."""

    def __init__(self, argv: list[str], env: dict | None = None, cwd: str | None = None,
                 stdout_cap=(HELPER_HEAD, HELPER_TAIL), stderr_cap=(HELPER_HEAD, HELPER_TAIL),
                 merge: bool = False, on_output=None):
        self.t0 = time.monotonic()
        self.out = CappedBuffer(*stdout_cap)
        self.err = None if merge else CappedBuffer(*stderr_cap)
        self._on_output = on_output
        self._stop = threading.Event()
        self._exited = threading.Event()
        self._result: Result | None = None
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT if merge else subprocess.PIPE, env=env, cwd=cwd,
                                     start_new_session=POSIX, close_fds=True)
        self.pid = self.proc.pid
        with _LIVE_LOCK:
            _LIVE.add(self)
        streams = [(self.proc.stdout, self.out, on_output)]
        if not merge:
            streams.append((self.proc.stderr, self.err, None))
        self._readers = _start_readers(streams, self._stop)
        self._waiter = None
        if POSIX and hasattr(os, "waitid"):
            self._waiter = threading.Thread(target=self._wait_exit, name="torch_envcheck-proc-wait", daemon=True)
            self._waiter.start()

    def _wait_exit(self) -> None:
        # Wait without reaping (WNOWAIT): the zombie keeps its pid, and so its group id, reserved
        # until wait() has killed the group.
        while True:
            try:
                os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
                break
            except InterruptedError:
                continue
            except ChildProcessError:  # reaped elsewhere
                break
            except OSError:
                break
        self._exited.set()

    def _wait_until(self, end: float | None) -> bool:
        """Whether the process exited before monotonic time `end` (None: no limit).  Waits in
        slices, so that a signal handler of the caller's main thread runs meanwhile."""
        while True:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                return self._done()
            step = 0.25 if left is None else min(0.25, left)
            if self._waiter is not None:
                if self._exited.wait(step):
                    return True
            else:
                try:
                    self.proc.wait(step)
                    return True
                except subprocess.TimeoutExpired:
                    pass

    def _done(self) -> bool:
        if self._waiter is not None:
            return self._exited.is_set()
        return self.proc.poll() is not None

    def wait(self, timeout: float | None, grace: float = GRACE_S) -> Result:
        """Wait for the process at most `timeout` seconds from now (None: no limit), then kill its
        group whatever happened, reap it and collect its output.  Calling it again returns the
        same Result."""
        if self._result is not None:
            return self._result
        end = None if timeout is None else time.monotonic() + max(0.0, timeout)
        exited = False
        try:
            exited = self._wait_until(end)
        finally:
            # Normal exit, timeout, or an exception in the caller (Ctrl-C, SIGTERM): the group goes.
            kill_group(self.proc)
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:  # SIGKILL never failed to end a process; stay bounded anyway
                pass
            held = _join_readers(self._readers, self._stop, grace)
            with _LIVE_LOCK:
                _LIVE.discard(self)
        rc = self.proc.returncode
        self._result = Result(rc if exited else None, self.out.value(),
                              self.err.value() if self.err is not None else b"", not exited,
                              round(time.monotonic() - self.t0, 3), self.out.dropped,
                              self.err.dropped if self.err is not None else 0, held)
        return self._result

    def kill(self) -> None:
        """Kill the whole group now (e.g. from a signal handler); wait() still reaps it."""
        kill_group(self.proc)


def _start_readers(streams, stop: threading.Event) -> list[threading.Thread]:
    if POSIX:
        th = threading.Thread(target=_drain_select, args=(streams, stop), name="torch_envcheck-proc-read", daemon=True)
        th.start()
        return [th]
    out = []
    for stream, buf, hook in streams:
        th = threading.Thread(target=_drain_blocking, args=(stream, buf, hook), name="torch_envcheck-proc-read",
                              daemon=True)
        th.start()
        out.append(th)
    return out


def _feed(buf: CappedBuffer, hook, data: bytes) -> None:
    buf.write(data)
    if hook is not None:
        try:
            hook(data)
        except Exception:  # noqa: BLE001  (a failing log write must not stop the draining)
            pass


def _drain_select(streams, stop: threading.Event) -> None:
    import selectors  # noqa: PLC0415

    sel = selectors.DefaultSelector()
    try:
        for stream, buf, hook in streams:
            os.set_blocking(stream.fileno(), False)
            sel.register(stream.fileno(), selectors.EVENT_READ, (stream, buf, hook))
        while sel.get_map() and not stop.is_set():
            for key, _ in sel.select(0.1):
                stream, buf, hook = key.data
                try:
                    data = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fd)
                    stream.close()
                    continue
                _feed(buf, hook, data)
    finally:
        for key in list(sel.get_map().values()):
            try:
                key.data[0].close()
            except OSError:
                pass
        sel.close()


def _drain_blocking(stream, buf: CappedBuffer, hook) -> None:
    try:
        while True:
            data = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
            if not data:
                break
            _feed(buf, hook, data)
    except (OSError, ValueError):
        pass


def _join_readers(readers, stop: threading.Event, grace: float) -> bool:
    """Let the readers reach EOF for up to `grace` seconds; then stop them.  True when a pipe was
    still open by then (a process outside the group holds it)."""
    end = time.monotonic() + grace
    for th in readers:
        th.join(max(0.0, end - time.monotonic()))
    held = any(th.is_alive() for th in readers)
    stop.set()
    for th in readers:
        th.join(0.5)
    return held


def shown_name(argv: list[str]) -> str:
    """"nvidia-smi --query..." -> "nvidia-smi": the program and a short first argument."""
    return os.path.basename(argv[0]) + (f" {argv[1]}" if len(argv) > 1 and len(argv[1]) <= 12 else "")


def run_capped(argv: list[str], timeout: float, env: dict | None = None, shown: str | None = None,
               stdout_cap=(HELPER_HEAD, HELPER_TAIL), stderr_cap=(HELPER_HEAD, HELPER_TAIL)) -> Result:
    """Run argv to its end or `timeout`; the Result (timed_out set when it was stopped).  Raises
    CommandFailed only when it cannot be started."""
    shown = shown or shown_name(argv)
    try:
        child = Child(argv, env=env, stdout_cap=stdout_cap, stderr_cap=stderr_cap)
    except (OSError, ValueError) as exc:
        raise CommandFailed(f"`{shown}` could not run: {getattr(exc, 'strerror', None) or exc}") from None
    return child.wait(timeout)


def run(argv: list[str], timeout: float, env: dict | None = None, shown: str | None = None) -> tuple[int, str, str]:
    """(returncode, stdout, stderr) of argv, decoded as UTF-8 with undecodable bytes replaced, each
    capped (a line in the middle says how much was dropped); raises CommandFailed with a readable
    message naming `shown` (default: the program's name) when it cannot run or does not finish."""
    shown = shown or shown_name(argv)
    res = run_capped(argv, timeout, env=env, shown=shown)
    if res.timed_out:
        raise CommandFailed(f"`{shown}` timed out after {timeout:g} s")
    return res.returncode, res.text("stdout"), res.text("stderr")
