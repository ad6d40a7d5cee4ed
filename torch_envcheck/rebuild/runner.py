"""Carry a plan out into a fresh environment DEST, step by step, and verify it: the environment is
created, the plan installed, this torch_envcheck installed, the self-test run inside it, and the
torch it imports compared with the plan.  Only then is DEST marked verified
(DEST/torch-envcheck-rebuild.json).  A failed step is named with the end of its output; DEST is
removed unless the caller asked to keep it, except when the self-test could not even run (pytest's own
usage or internal error): that is no fault of DEST, which is kept, its torch still checked, and
marked not verified.  The self-test runs from a private folder, away from the caller's conftest.py
and pytest configuration.  The environment this runs in is never touched: every
command runs with DEST's own interpreter.

Hostile conditions, each handled:
- two rebuilds into one DEST: a lock file beside DEST (flock; released by the kernel when its
  holder dies) is taken before DEST is checked, so the second refuses instead of running a second
  pip into the first one's environment;
- SIGTERM, SIGINT (Ctrl-C), SIGHUP: every step runs in a session of its own (_util/proc.py), so the
  signal reaches this process only; it kills the step's whole process group, waits for it to end,
  and only then removes DEST (and says whether that worked);
- a step that leaves a daemon holding its output: the step ends when its process exits, not when
  the pipe closes, and the daemon (in the step's process group) is killed with it;
- requirement files: pip is handed a private copy of the lines the plan checked, never the path
  (advice/requirements_file.py).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import signal
import sys
import tempfile
import time

from torch_envcheck._util import escape
from torch_envcheck._util import proc as _proc
from torch_envcheck._util import signalled
from torch_envcheck._util.signalled import Signalled
from torch_envcheck.rebuild import selfwheel

MARKER = "torch-envcheck-rebuild.json"
TAIL_LINES = 25


class StepFailed(RuntimeError):
    def __init__(self, step: str, detail: str, returncode: int | None = None):
        super().__init__(f"{step}: {detail}")
        self.step, self.detail, self.returncode = step, detail, returncode


# `torch-envcheck selftest` exits 2 when pytest itself could not run the tests (a usage error, an
# internal error, an interruption): that says nothing against the environment, which is kept.
SELFTEST_COULD_NOT_RUN = 2


class Interrupted(Signalled):
    """A signal (SIGTERM, SIGINT, SIGHUP) stopped the run; raised in the main thread by its handler."""


STOP_SIGNALS = signalled.named("SIGTERM", "SIGINT", "SIGHUP")


class DestLock:
    """One rebuild per DEST at a time: an exclusive lock on `<parent>/.<name>.torch-envcheck-rebuild.lock`,
    taken before DEST is checked and held until the run ends.  flock (POSIX) / msvcrt.locking
    (Windows) locks are released by the kernel when the holder dies, so a killed rebuild leaves no
    stale lock, only a file that the next run reuses."""

    def __init__(self, dest: str):
        parent, name = os.path.split(os.path.abspath(dest))
        self.path = os.path.join(parent, f".{name}.torch-envcheck-rebuild.lock")
        self.fd = None

    def acquire(self) -> bool:
        """True when this process now holds the lock; False when another one does."""
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        for _ in range(5):  # the holder may unlink the file between our open and our lock: retry
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                if os.name == "nt":
                    import msvcrt  # noqa: PLC0415
                    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                else:
                    import fcntl  # noqa: PLC0415
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except OSError:
                same = False
            if same:
                self.fd = fd
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
                return True
            os.close(fd)
        return False

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)  # while still locked: a waiting rebuild then retries on a fresh file
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def env_python(dest: str, conda: bool = False) -> str:
    if os.name == "nt":
        return os.path.join(dest, "python.exe" if conda else os.path.join("Scripts", "python.exe"))
    return os.path.join(dest, "bin", "python")


def base_python(version: str | None) -> str:
    """The interpreter the new venv is made from: this one when its X.Y is the plan's, else
    pythonX.Y from PATH."""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if not version or version == here:
        return sys.executable
    found = shutil.which(f"python{version}")
    if not found:
        raise StepFailed("create the environment", f"the plan needs Python {version}, and no python{version} is on "
                                                   f"PATH (this interpreter is {here}); install it or pass --python")
    return found


def conda_program() -> str:
    for cand in (os.environ.get("CONDA_EXE"), shutil.which("mamba"), shutil.which("micromamba"), shutil.which("conda")):
        if cand and os.path.isfile(cand):
            return cand
    raise StepFailed("create the environment", "--conda was given, but no conda, mamba or micromamba was found "
                                               "(CONDA_EXE is unset and none is on PATH)")


class Runner:
    def __init__(self, plan, dest: str, verbose: bool = False, keep_failed: bool = False,
                 python: str | None = None, out=None):
        self.plan, self.dest, self.verbose, self.keep_failed = plan, os.path.abspath(dest), verbose, keep_failed
        self.python = python
        self.out = out or sys.stdout
        self.log_path = None
        self._log = None
        self.results: list[dict] = []
        self._child = None        # the step's running command, for the signal handler
        self._stopping = False
        self._private = None      # a private folder for the copies of requirement files
        self.selftest_problem = None  # why the self-test could not run (pytest's own failure), if it could not

    # -------------------------------------------------------------- output

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _run(self, step: str, cmd: list[str], env=None, cwd=None) -> str:
        """Run one command of a step in a session of its own; its output goes to the log (and the
        terminal with -v).  The step ends when the command exits (a daemon it left holding the
        output pipe is killed with its process group); a signal to this process kills the group."""
        self._log.write(f"\n$ {escape.shell_join(cmd)}\n")
        self._log.flush()
        pending = [b""]

        def on_output(data: bytes) -> None:
            self._log.write(data.decode("utf-8", "replace"))
            if self.verbose:
                pending[0] += data
                *lines, pending[0] = pending[0].split(b"\n")
                for raw in lines:
                    self.out.write("    " + escape.terminal(raw.decode("utf-8", "replace")) + "\n")
                self.out.flush()

        try:
            child = _proc.Child(cmd, env=env, cwd=cwd, merge=True, stdout_cap=(0, 256 << 10), on_output=on_output)
        except (OSError, ValueError) as exc:
            raise StepFailed(step, f"cannot run {cmd[0]}: {getattr(exc, 'strerror', None) or exc}") from None
        self._child = child
        try:
            res = child.wait(None)
        finally:
            self._child = None
            self._log.flush()
        text = res.text("stdout")
        if res.returncode != 0:
            tail = "\n".join(text.rstrip("\n").splitlines()[-TAIL_LINES:])
            raise StepFailed(step, f"`{cmd[0]} {' '.join(cmd[1:4])} ...` exited with status {res.returncode}; "
                                   "its last lines:\n" + escape.terminal(tail, multiline=True), res.returncode)
        return text

    # -------------------------------------------------------------- the steps

    def steps(self) -> list[tuple[str, object]]:
        plan = self.plan
        py = env_python(self.dest, plan.conda)
        out: list[tuple[str, object]] = [("create the environment", self._create)]
        for s in plan.steps():
            out.append((s["name"], lambda s=s: self._run(s["name"], [py, "-m", "pip", "install",
                                                                     *self._private_requirements(s["pip"])])))
        out.append(("install torch_envcheck and pytest", self._install_self))
        out.append(("run the self-test inside the new environment", self._selftest))
        out.append(("check the installed torch against the plan", self._verify))
        return out

    def _private_requirements(self, words: list[str]) -> list[str]:
        """The step's pip words with each `-r FILE` of the plan pointing at a private copy of the
        lines the plan checked (pip would re-read FILE, which may have changed since)."""
        plan = self.plan
        copies = {}
        if plan.pinned is not None and plan.pinned_file:
            copies[plan.pinned_file] = ("pinned-requirements.txt", plan.pinned)
        if plan.requirements and getattr(plan, "requirement_lines", None) is not None:
            copies[plan.requirements] = ("project-requirements.txt", plan.requirement_lines)
        out = list(words)
        for i in range(len(out) - 1):
            if out[i] == "-r" and out[i + 1] in copies:
                name, lines = copies[out[i + 1]]
                path = os.path.join(self._private, name)
                if not os.path.exists(path):
                    from torch_envcheck.advice.requirements_file import write_private  # noqa: PLC0415
                    write_private(lines, self._private, name)
                out[i + 1] = path
        return out

    def _create(self):
        name = "create the environment"
        if self.plan.conda:
            self._run(name, [conda_program(), "create", "-y", "-p", self.dest, f"python={self.plan.python or '3'}", "pip"])
        else:
            # DEST is claimed (created empty, under the lock) before anything runs; venv fills it
            try:
                os.mkdir(self.dest)
            except OSError as exc:
                raise StepFailed(name, f"cannot create {escape.terminal(self.dest)}: {exc.strerror or exc}") from None
            self._run(name, [self.python or base_python(self.plan.python), "-m", "venv", self.dest])

    def _install_self(self):
        name = "install torch_envcheck and pytest"
        with tempfile.TemporaryDirectory(prefix="torch-envcheck-wheel-") as tmp:
            try:
                wheel = selfwheel.build(tmp)
            except OSError as exc:
                raise StepFailed(name, f"cannot pack this torch_envcheck into a wheel: {exc}") from None
            self._run(name, [env_python(self.dest, self.plan.conda), "-m", "pip", "install", wheel, "pytest",
                             *self.plan.sources.pip_args()])

    def _selftest(self):
        env = dict(os.environ)
        # the new environment's own packages only, and none of the caller's pytest options or plugins
        for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
            env.pop(var, None)
        name = "run the self-test inside the new environment"
        try:
            # from the private folder: `python -m` puts the working directory on sys.path, and the
            # caller's folder may hold a conftest.py, a pytest.ini or a module named like ours
            self._run(name, [env_python(self.dest, self.plan.conda), "-m", "torch_envcheck", "selftest"], env=env,
                      cwd=self._private)
        except StepFailed as exc:
            if exc.returncode != SELFTEST_COULD_NOT_RUN:
                raise
            # pytest could not run the tests: nothing the environment did; keep it, say so, and let
            # the next step still check its torch
            self.selftest_problem = exc.detail
            self.say("      the self-test could not run (pytest stopped before testing anything); the environment "
                     "is kept and its torch still checked")

    def _verify(self):
        name = "check the installed torch against the plan"
        text = self._run(name, [env_python(self.dest, self.plan.conda), "-c",
                                "import json, torch; print(json.dumps({'version': torch.__version__, "
                                "'cuda': torch.version.cuda}))"])
        try:
            got = json.loads(text.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise StepFailed(name, "could not read the new environment's torch version") from None
        want = self.plan.torch
        version = str(got.get("version"))
        if want and not (version == want or version.startswith(want + "+") or version.startswith(want + ".")):
            raise StepFailed(name, f"the plan asked for torch {want}, the environment has {version}")
        tag = self.plan.tag
        if tag == "cpu" and got.get("cuda"):
            raise StepFailed(name, f"the plan asked for the CPU build, the environment has CUDA {got['cuda']} ({version})")
        if tag and tag.startswith("cu") and not got.get("cuda"):
            raise StepFailed(name, f"the plan asked for the {tag} build, the environment has a CPU build ({version})")
        self.torch_found = got

    # -------------------------------------------------------------- the whole run

    def _on_signal(self, signum, frame):
        if self._stopping:
            return  # already stopping: let the cleanup finish
        self._stopping = True
        child = self._child
        if child is not None:
            child.kill()  # at once: pip must not write one more file into DEST
        raise Interrupted(signum)

    def run(self) -> int:
        lock = DestLock(self.dest)
        try:
            if not lock.acquire():
                self.say(f"torch-envcheck rebuild: another rebuild into {escape.terminal(self.dest)} is running "
                         f"(it holds {escape.terminal(lock.path)}); wait for it to end, or choose another folder")
                return 2
        except OSError as exc:
            self.say(f"torch-envcheck rebuild: cannot lock {escape.terminal(lock.path)}: {exc.strerror or exc}")
            return 2
        try:
            return self._run_locked()
        finally:
            lock.release()

    def _run_locked(self) -> int:
        if os.path.lexists(self.dest):
            self.say(f"torch-envcheck rebuild: {escape.terminal(self.dest)} already exists; rebuild makes a fresh "
                     "environment: name a new folder, or remove that one first")
            return 2
        if os.path.realpath(self.dest) == os.path.realpath(sys.prefix):
            self.say("torch-envcheck rebuild: that is the environment this command runs in; name a new folder")
            return 2
        self._child = None
        self._stopping = False
        # off the main thread no handler is set: Ctrl-C still works
        saved = signalled.install(STOP_SIGNALS, self._on_signal)
        self._private = tempfile.mkdtemp(prefix="torch-envcheck-rebuild-")
        try:
            return self._steps_run()
        finally:
            signalled.restore(saved)
            shutil.rmtree(self._private, ignore_errors=True)

    def _steps_run(self) -> int:
        fd, self.log_path = tempfile.mkstemp(prefix="torch-envcheck-rebuild-", suffix=".log")
        self._log = os.fdopen(fd, "w", encoding="utf-8", errors="replace")
        steps = self.steps()
        t_all = time.monotonic()
        self.torch_found = None
        try:
            for i, (name, fn) in enumerate(steps, 1):
                self.say(f"[{i}/{len(steps)}] {escape.terminal(name)} ...")
                t0 = time.monotonic()
                fn()
                secs = time.monotonic() - t0
                self.results.append({"step": name, "seconds": round(secs, 1)})
                self.say(f"      done in {secs:.1f} s")
        except (StepFailed, Interrupted, KeyboardInterrupt) as exc:
            self._stopping = True  # a second signal no longer interrupts the cleanup below
            if isinstance(exc, StepFailed):
                failed, detail, code = exc.step, exc.detail, 1
            else:
                sig = exc if isinstance(exc, Interrupted) else Interrupted(signal.SIGINT)
                failed, detail, code = "interrupted", f"stopped by {sig.name}", 128 + sig.signum
            self.say(f"\ntorch-envcheck rebuild: FAILED at step \"{escape.terminal(failed)}\": {detail}")
            self._cleanup_failed()
            self.say(f"Full log: {self.log_path}")
            self._log.close()
            return code
        self._log.close()
        marker = {"schema": "torch_envcheck.rebuild/1",
                  "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                  "verified": self.selftest_problem is None, "selftest_problem": self.selftest_problem,
                  "torch": self.torch_found, "plan": {
                      "torch": self.plan.torch, "tag": self.plan.tag, "python": self.plan.python,
                      "steps": [s["pip"] for s in self.plan.steps()], "reasons": self.plan.reasons},
                  "steps": self.results}
        from torch_envcheck._util.atomic_write import write_atomic  # noqa: PLC0415
        write_atomic(os.path.join(self.dest, MARKER), json.dumps(marker, indent=2))
        os.unlink(self.log_path)
        found = self.torch_found or {}
        has = (f"{escape.terminal(self.dest)} has torch {escape.terminal(found.get('version'))}"
               + (f" (CUDA {escape.terminal(found.get('cuda'))})" if found.get("cuda") else " (CPU build)"))
        if self.selftest_problem is not None:
            self.say(f"\nKept, NOT verified: {has}, as planned, but its self-test could not run:\n"
                     f"{self.selftest_problem}\nRun it there once that is solved:  "
                     f"{escape.shell_join([env_python(self.dest, self.plan.conda), '-m', 'torch_envcheck', 'selftest'])}")
        else:
            self.say(f"\nVerified in {time.monotonic() - t_all:.0f} s: {has} and its self-test passed.")
        if self.plan.conda:
            self.say(f"Switch to it:  conda activate {escape.shell_quote(self.dest)}")
        elif os.name == "nt":
            self.say(f"Switch to it:  {escape.shell_quote(os.path.join(self.dest, 'Scripts', 'Activate.ps1'), 'powershell')}")
        else:
            self.say(f"Switch to it:  source {escape.shell_quote(os.path.join(self.dest, 'bin', 'activate'))}")
        return 0 if self.selftest_problem is None else 1

    def _cleanup_failed(self) -> None:
        """After a failed or interrupted step (whose process group is gone by now): DEST kept with
        --keep-failed, else removed; the message says what really happened."""
        shown = escape.terminal(self.dest)
        if self.keep_failed:
            if os.path.lexists(self.dest):
                self.say(f"The half-built environment is left in {shown} (--keep-failed); it is NOT marked verified.")
            return
        if not os.path.lexists(self.dest):
            self.say(f"Nothing was created in {shown}.")
            return
        errors = []
        shutil.rmtree(self.dest, onerror=lambda fn, path, exc: errors.append(f"{path}: {exc[1]}"))
        if os.path.lexists(self.dest):
            self.say(f"Could not remove {shown} entirely ({escape.terminal(errors[0]) if errors else 'unknown error'}); "
                     "it is NOT a verified environment: remove it by hand.")
        else:
            self.say(f"Removed {shown}: nothing half-built is left behind (--keep-failed keeps it for a look).")
