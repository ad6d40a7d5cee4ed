"""`torch-envcheck run -- CMD ARGS...`: run a command unchanged and explain how it went.

Standard input and output are the command's own (inherited), and so is every other descriptor this
process inherited (`3>file` reaches the command); a descriptor that is closed here is closed for
the command too.  Its standard error is passed through live while its last TAIL_BYTES are kept;
when a background process the command left behind still holds that pipe after the command ended,
a small relay process takes over the passing-through until the last holder closes it, so that
process never writes into a pipe nobody reads (SIGPIPE).  SIGTERM is forwarded to the command, and so are SIGINT,
SIGQUIT and SIGHUP unless this process is in the terminal's foreground group (then the terminal
already sent them to the command); one this process was started ignoring (`nohup`'s SIGHUP) stays
ignored and is not passed on.  The exit status is always the command's: when it dies by a
signal, this process dies by the same signal (without a core file of its own), so a shell sees the
same status.

After it ends, on standard error:
  * failure: the explanation of the error at the end of its standard error (as `explain`, checking
    this machine unless --no-probe);
  * success: whether the job used a GPU: NVML's per-process accounting sampled while it ran (memory,
    SM utilisation; a mostly idle GPU is said to be so), or, without NVML, what this machine shows
    ("this job could not have used a GPU: torch here is the CPU build").
Exit status: the command's; 127 when it cannot be found, 126 when it cannot be run, 2 bad usage."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys

from torch_envcheck._util import signalled
from torch_envcheck.commands import _source as _args

TAIL_BYTES = 256 * 1024
PROG = "torch-envcheck run"
_FORWARD = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT")
_FROM_TERMINAL = ("SIGINT", "SIGHUP", "SIGQUIT")
# Findings that mean no GPU could have been used by a torch job here.
_NO_GPU_CODES = ("TE202", "TE203", "TE206", "TE201", "TE101", "TE102", "TE301", "TE302", "TE307", "TE303", "TE306",
                 "TE402", "TE403", "TE901")


def add_arguments(parser) -> None:
    parser.add_argument("--no-probe", action="store_true",
                        help="do not check this machine (explanations from the error text alone; no machine facts after success)")
    parser.add_argument("-q", "--quiet", action="store_true", help="say nothing after a successful run")
    _args.add_source(parser)
    parser.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS ...]",
                        help="the command to run, after --")


def _say(text: str) -> None:
    from torch_envcheck._util.escape import terminal  # noqa: PLC0415
    if _CLOSED.intersection((2,)) or sys.stderr is None:
        return  # no stderr: say nothing (never into the command's stdout)
    try:
        sys.stderr.write(terminal(text, multiline=True) + ("" if text.endswith("\n") else "\n"))
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


_CLOSED: set = set()


def _hold_closed_std_fds() -> set:
    """The standard descriptors (0, 1, 2) this process was started without.  Each is filled with
    /dev/null, close-on-exec: no pipe or file this process opens can take its number (and be
    written to as if it were stdout or stderr), and the command still starts with it closed."""
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
    for fd in sorted(closed):
        try:
            new = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
            if new != fd:
                os.dup2(new, fd, inheritable=False)
                os.close(new)
            os.set_inheritable(fd, False)
        except OSError:
            pass
    if 2 in closed:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  (print(file=None) means stdout)
    if 1 in closed:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    return closed


def _foreground() -> bool:
    """This process is in the foreground group of its controlling terminal (POSIX; elsewhere False)."""
    if not (hasattr(os, "tcgetpgrp") and hasattr(os, "getpgrp")):
        return False
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) == os.getpgrp():
                return True
        except OSError:
            continue
    return False


def _install_forwarding(proc) -> dict:
    def forward(signum, _frame):
        if proc.poll() is not None:
            return
        if signal.Signals(signum).name in _FROM_TERMINAL and _foreground():
            return  # the terminal delivered it to the whole foreground group, the command included
        try:
            proc.send_signal(signum)
        except OSError:
            pass

    # A signal this process was started ignoring (`nohup` ignores SIGHUP) the command ignores too, since it
    # inherited the same disposition: catching it here would only keep `run` from ending as the command does.
    wanted = [sig for sig in signalled.named(*_FORWARD) if signal.getsignal(sig) is not signal.SIG_IGN]
    return signalled.install(wanted, forward)


def _write_all(fd: int, data: bytes) -> bool:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError:
            return False  # our stderr is gone: keep draining the command's so it never blocks
        view = view[n:]
    return True


class _Tee:
    """Pass the command's stderr to ours as it comes, in a thread, keeping its last TAIL_BYTES.  A
    thread, so that a background process the command left behind, still holding the pipe open,
    cannot keep `run` waiting after the command itself has ended."""

    GRACE_S = 2.0  # after the command ends: time for the rest of its output to arrive

    def __init__(self, proc):
        import threading  # noqa: PLC0415
        self._fd = proc.stderr.fileno()
        self._file = proc.stderr
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, name="torch_envcheck-run-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        ours_ok = True
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                break
            if not chunk:
                break
            if ours_ok:
                ours_ok = _write_all(2, chunk)
            with self._lock:
                self._tail += chunk
                if len(self._tail) > 2 * TAIL_BYTES:
                    del self._tail[:len(self._tail) - TAIL_BYTES]

    def finish(self) -> bytes:
        """The tail, once the pipe is closed or the grace period after the command's end is over;
        then a process the command left behind still holds the pipe, and a relay passes on the rest."""
        self._thread.join(self.GRACE_S)
        if not self._thread.is_alive():
            self._file.close()
        else:
            self._hand_off()
        with self._lock:
            return bytes(self._tail[-TAIL_BYTES:])

    def _hand_off(self) -> None:
        """Fork a relay that copies the pipe to stderr until its last writer closes it (or stderr
        goes away, which the writer would have met too), and stop reading it here."""
        if not hasattr(os, "fork"):
            return  # Windows: the pipe closes with `run`
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:  # the relay: the forking thread alone, no Python cleanup on the way out
            code = 0
            try:
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)  # never keep `run`'s stdout open (a `$(...)` would wait on it)
                while True:
                    chunk = os.read(self._fd, 65536)
                    if not chunk or not _write_all(2, chunk):
                        break
            except BaseException:  # noqa: BLE001
                code = 1
            os._exit(code)
        # here: the pipe's number now names /dev/null, so the reading thread meets an end of file
        try:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, self._fd, inheritable=False)
            os.close(null)
        except OSError:
            pass


def _die_by(signum: int) -> int:
    """End this process by `signum` (default action), as the command ended; 128 + signum if we live on."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    try:
        import resource  # noqa: PLC0415
        _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))  # the command dumped its core, not us
    except (ImportError, OSError, ValueError):
        pass
    try:
        signal.signal(signum, signal.SIG_DFL)  # SIGKILL and SIGSTOP have no handler to reset
    except (OSError, ValueError):
        pass
    try:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os.kill(os.getpid(), signum)
    except (OSError, ValueError):
        pass
    return 128 + signum


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _after_failure(args, tail: bytes, rc: int) -> None:
    from torch_envcheck.explain import render
    from torch_envcheck.explain import textin  # noqa: PLC0415
    from torch_envcheck.commands.explain import explain_input  # noqa: PLC0415

    how = f"was killed by {_signal_name(-rc)}" if rc < 0 else f"failed with exit status {rc}"
    text = tail.decode("utf-8", errors="replace")
    result, status = explain_input(textin.Input(text, "stderr", len(tail), len(tail), len(tail) >= TAIL_BYTES), args) \
        if text.strip() else (None, 1)
    if result is not None and result.get("recognised"):
        _say(f"{PROG}: the command {how}.")
        _say(render.text(result, prog=PROG))
        return
    if status == 2:
        return  # --from-json could not be read: already said
    hint = ""
    if rc == -getattr(signal, "SIGKILL", 9):
        hint = " SIGKILL often comes from the kernel's out-of-memory killer (host RAM): see `dmesg`."
    _say(f"{PROG}: the command {how}; its error output holds no environment error torch-envcheck knows.{hint}")


def _machine_lines(args) -> list:
    from torch_envcheck.commands.explain import machine_report  # noqa: PLC0415

    got = machine_report(args, ("torch", "driver", "gpu"))
    if got is None or got[0] is None:
        return []
    report, _state = got
    blocking = [f for f in report.causes if f.code in _NO_GPU_CODES]
    if blocking:
        f = blocking[0]
        return [f"this job could not have used a GPU: {f.message} [{f.code}]"]
    torch_line = report.headline("torch")
    return [f"this machine: {torch_line}"] if torch_line else []


def _after_success(args, usage: dict) -> None:
    from torch_envcheck.explain import gpu_usage  # noqa: PLC0415

    said = gpu_usage.lines(usage)
    used = bool(usage.get("gpus")) or bool(usage.get("unmapped_new"))
    if not used and not getattr(args, "no_probe", False):
        machine = _machine_lines(args)
        if machine and machine[0].startswith("this job could not"):
            said = machine
        elif not said:
            said = [f"NVML is not available ({usage.get('error') or 'unknown reason'}), so this job's GPU use cannot be "
                    "measured"] + machine
        else:
            said += machine
    elif not said:
        said = [f"NVML is not available ({usage.get('error') or 'unknown reason'}), so this job's GPU use cannot be measured"]
    for line in said:
        _say(f"{PROG}: {line}")


def run(args) -> int:
    argv = list(getattr(args, "argv", None) or [])
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        _args.error("run needs a command: torch-envcheck run -- CMD [ARGS ...]")
        return 2
    if getattr(args, "no_probe", False) and getattr(args, "from_json", None) is not None:
        _args.error("--no-probe and --from-json cannot be combined")
        return 2
    if getattr(args, "from_json", None) is not None:
        from torch_envcheck.commands.explain import saved_snapshot  # noqa: PLC0415
        if saved_snapshot(args) is None:
            return 2  # bad usage: said before the command runs
    from torch_envcheck.explain.gpu_usage import Sampler  # noqa: PLC0415

    _CLOSED.clear()
    _CLOSED.update(_hold_closed_std_fds())
    # close_fds=False: every descriptor this process inherited goes on to the command (ours are
    # close-on-exec, PEP 446); stderr is piped only when there is a stderr to pass it on to.
    tee_stderr = 2 not in _CLOSED
    try:
        proc = subprocess.Popen(argv, stderr=subprocess.PIPE if tee_stderr else None, close_fds=False)
    except FileNotFoundError:
        _args.error(f"{argv[0]}: command not found")
        return 127
    except (PermissionError, OSError) as exc:
        _args.error(f"{argv[0]}: cannot run it: {getattr(exc, 'strerror', None) or exc}")
        return 126
    saved = _install_forwarding(proc)
    sampler = Sampler()
    try:
        sampler.start(proc.pid)
        tee = _Tee(proc) if tee_stderr else None
        rc = proc.wait()  # the main thread waits: signal handlers run here, forwarding to the command
        tail = tee.finish() if tee is not None else b""
    finally:
        signalled.restore(saved)
    usage = sampler.stop()
    # What follows is commentary: nothing in it may change the exit status.
    try:
        if rc != 0:
            _after_failure(args, tail, rc)
        elif not getattr(args, "quiet", False) and 2 not in _CLOSED:
            _after_success(args, usage)
    except (KeyboardInterrupt, SystemExit):  # SIGTERM while the machine is checked: its children are ended
        pass
    except Exception as exc:  # noqa: BLE001
        _say(f"{PROG}: could not explain the outcome ({type(exc).__name__}: {exc}); the exit status is the command's")
    if rc < 0:
        return _die_by(-rc)
    return rc
