"""Facts about torch, taken by importing it in a child process (the doctor's one expensive step).

A torch can take down the process that imports it: oneMKL prints "FATAL ERROR" and exits, a wheel
built for newer CPUs dies with SIGILL, a broken library with SIGSEGV, a lock or a network file
system can hang the import.  So torch is imported in a child (_torch_child.py) whose stdout is the
facts as JSON; this side starts it first thing, lets the other probes run meanwhile, and turns an
exit, a signal or the time limit into facts (import_error, import_process) the rules read.

An ImportError or OSError is kept verbatim: its text ("libcudnn.so.9: cannot open shared object
file", "undefined symbol ...") is usually the diagnosis.  CUDA initialisation errors are captured
from the warning torch emits ("CUDA initialization: ...") or from torch.cuda.init().  torch's
"Failed to initialize NumPy" warning becomes the fact numpy_error and never reaches the terminal.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time

from torch_envcheck._util import proc as _proc

_LOCAL_RE = re.compile(r"\+(.+)$")
CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_child.py")
STDERR_TAIL_CHARS = 2000
ENV_NO_EXTENSION = "TORCH_ENVCHECK_CHILD_NO_EXTENSION"


def local_suffix(version: str | None) -> str | None:
    m = _LOCAL_RE.search(version or "")
    return m.group(1) if m else None


def _blank() -> dict:
    return {
        "importable": False, "installed": False, "import_error": None, "import_seconds": None,
        "version": None, "local": None, "cuda": None, "hip": None, "cudnn": None, "cudnn_error": None,
        "arch_list": [], "cuda_available": None, "device_count": None, "cuda_init_error": None,
        "cuda_warnings": [], "devices": [], "mps": None, "mkldnn": None, "cxx11_abi": None,
        "installer": None, "location": None, "requires_python": None, "file": None,
        "numpy_error": None, "import_process": None, "xpu": None, "xpu_version": None, "copies": [],
    }


def _metadata(out: dict) -> None:
    # importlib.metadata costs ~15 ms to import: after the child has started, not before.
    from torch_envcheck.doctor.probes import dists  # noqa: PLC0415

    out["copies"] = dists.copies("torch")
    dist = dists.distribution("torch")
    if dist is None:
        return
    out["installed"] = True
    out["version"] = dists.version(dist)
    out["local"] = local_suffix(out["version"])
    out["installer"] = dists.installer(dist, "torch")
    out["location"] = dists.location(dist)
    try:
        out["requires_python"] = dist.metadata.get("Requires-Python")
    except Exception:
        pass


def child_sys_path() -> list[str]:
    """This interpreter's sys.path less the entry `python -m` / `-c` put first (the current
    directory): a stray ./torch folder must not stand in for the installed torch."""
    path = list(sys.path)
    if path and not getattr(sys.flags, "safe_path", False) and path[0] in ("", os.getcwd()):
        path = path[1:]
    return path


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(text: str) -> str | None:
    text = (text or "").strip()
    return text[-STDERR_TAIL_CHARS:] if text else None


def _last_line(text: str | None) -> str | None:
    for line in reversed((text or "").splitlines()):
        if line.strip():
            return line.strip()
    return None


# What is kept of the child's output: its protocol lines (stdout: a few KiB; more only for a
# machine with very many GPUs) and the start and the end of what torch printed (stderr).
STDOUT_CAP = (8 << 20, 1 << 20)
STDERR_CAP = (64 << 10, 256 << 10)


class Child:
    """The running child: start() returns at once; result() waits (at most the time left)."""

    def __init__(self, limit: float, env: dict | None = None, extension: bool = True, nice: int = 0):
        self.limit = limit
        self.t0 = time.monotonic()
        self.error: str | None = None
        env = dict(os.environ if env is None else env)
        if not extension:
            env[ENV_NO_EXTENSION] = "1"
        pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        argv = [sys.executable, "-I", CHILD, json.dumps(child_sys_path()), pkg_root]
        try:
            # its own session, its output capped, and its whole group killed when it ends (_util/proc.py)
            self.proc = _proc.Child(argv, env=env, stdout_cap=STDOUT_CAP, stderr_cap=STDERR_CAP)
        except (OSError, ValueError) as exc:
            self.proc = None
            self.error = f"could not start {sys.executable} to import torch: {getattr(exc, 'strerror', None) or exc}"
        if nice > 0 and self.proc is not None:
            lower_priority(self.proc.pid, nice)

    def result(self) -> tuple[dict | None, dict | None, dict]:
        """(torch facts or None, extension facts or None, process facts)."""
        proc_facts = {"returncode": None, "signal": None, "timed_out": False, "limit_s": self.limit,
                      "seconds": None, "stderr_tail": None, "error": self.error, "output_dropped_bytes": None}
        if self.proc is None:
            return None, None, proc_facts
        res = self.proc.wait(max(0.0, self.limit - (time.monotonic() - self.t0)))
        timed_out, rc = res.timed_out, res.returncode
        proc_facts.update(seconds=round(time.monotonic() - self.t0, 3), timed_out=timed_out,
                          returncode=None if timed_out else rc,
                          signal=signal_name(-rc) if (rc is not None and rc < 0 and not timed_out) else None,
                          output_dropped_bytes=res.dropped or None)
        sections = {}
        for line in res.text("stdout").splitlines():
            try:
                msg = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(msg, dict) and isinstance(msg.get("facts"), dict):
                sections[msg.get("section")] = msg["facts"]
        stderr = res.text("stderr")
        if timed_out or rc != 0 or "torch" not in sections:
            proc_facts["stderr_tail"] = _tail(stderr)
        torch_facts = sections.get("torch")
        if torch_facts is not None and torch_facts.get("numpy_error") is None and "Failed to initialize NumPy" in stderr:
            # printed rather than warned (an older torch): still the fact
            line = next(ln for ln in stderr.splitlines() if "Failed to initialize NumPy" in ln)
            torch_facts["numpy_error"] = line[line.index("Failed to initialize NumPy"):].split(" (Triggered")[0][:STDERR_TAIL_CHARS]
        return torch_facts, sections.get("extension"), proc_facts


def lower_priority(pid: int, nice: int) -> bool:
    """Raise a child's nice value by `nice` (POSIX; an unprivileged process may always lower its
    children's priority).  False where it could not, which only costs speed."""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, pid) + nice))
        return True
    except (AttributeError, OSError):  # Windows has no setpriority; the child may have exited already
        return False


def start(limit: float, env: dict | None = None, extension: bool = True, nice: int = 0) -> Child:
    """Start the child.  nice > 0: at a lower priority than this process (the doctor does so while
    TensorFlow's slower import runs beside it, so that the two imports do not share a core evenly)."""
    return Child(limit, env=env, extension=extension, nice=nice)


def describe_failure(p: dict) -> str:
    """import_error's text for a child that gave no torch facts."""
    hint = _last_line(p.get("stderr_tail"))
    if p.get("error"):
        return p["error"]
    if p.get("timed_out"):
        return (f"`import torch` did not finish within {p['limit_s']:g} s and was stopped"
                + (f"; its last output: {hint}" if hint else ""))
    if p.get("signal"):
        return f"`import torch` killed the Python process with {p['signal']}" + (f": {hint}" if hint else "")
    if p.get("returncode"):
        return (f"`import torch` ended the Python process with exit status {p['returncode']}"
                + (f": {hint}" if hint else " and no message"))
    return "the torch probe's process gave no facts" + (f": {hint}" if hint else "")


def finish(child: Child) -> tuple[dict, dict | None]:
    """The torch section, and the extension section when the child got that far."""
    out = _blank()
    _metadata(out)
    facts, ext, proc_facts = child.result()
    out["import_process"] = proc_facts
    if facts is None:
        out["import_error"] = describe_failure(proc_facts)
        out["import_seconds"] = proc_facts["seconds"]
        return out, None
    meta_version = out["version"]
    out.update(facts)
    if facts.get("importable"):
        out["installed"] = True
        out["version"] = facts.get("version") or meta_version
    else:
        out["version"] = meta_version
    out["local"] = local_suffix(out["version"])
    return out, ext


def probe(timeout: float = 30.0, env: dict | None = None) -> dict:
    """The torch section alone (no extension facts)."""
    return finish(start(timeout, env=env, extension=False))[0]
