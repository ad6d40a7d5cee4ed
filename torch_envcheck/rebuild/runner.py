"""Carry a plan out into a fresh environment DEST, step by step, and verify it: the environment is
created, the plan installed, this torch_envcheck installed, the self-test run inside it, and the
torch it imports compared with the plan.  Only then is DEST marked verified
(DEST/torch-envcheck-rebuild.json).  A failed step is named with the end of its output; DEST is
removed unless the caller asked to keep it.  The environment this runs in is never touched: every
command runs with DEST's own interpreter.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from torch_envcheck._util import escape
from torch_envcheck.rebuild import selfwheel

MARKER = "torch-envcheck-rebuild.json"
TAIL_LINES = 25


class StepFailed(RuntimeError):
    def __init__(self, step: str, detail: str):
        super().__init__(f"{step}: {detail}")
        self.step, self.detail = step, detail


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

    # -------------------------------------------------------------- output

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _run(self, step: str, cmd: list[str], env=None) -> str:
        """Run one command of a step; its output goes to the log (and the terminal with -v)."""
        self._log.write(f"\n$ {escape.shell_join(cmd)}\n")
        self._log.flush()
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env)
        except OSError as exc:
            raise StepFailed(step, f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
        lines = []
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace")
            self._log.write(line)
            lines.append(line)
            del lines[:-TAIL_LINES * 4]
            if self.verbose:
                self.out.write("    " + escape.terminal(line.rstrip("\n"), multiline=False) + "\n")
                self.out.flush()
        rc = proc.wait()
        if rc != 0:
            tail = "".join(lines[-TAIL_LINES:])
            raise StepFailed(step, f"`{cmd[0]} {' '.join(cmd[1:4])} ...` exited with status {rc}; its last lines:\n"
                                   + escape.terminal(tail, multiline=True))
        return "".join(lines)

    # -------------------------------------------------------------- the steps

    def steps(self) -> list[tuple[str, object]]:
        plan = self.plan
        py = env_python(self.dest, plan.conda)
        out: list[tuple[str, object]] = [("create the environment", self._create)]
        for s in plan.steps():
            out.append((s["name"], lambda s=s: self._run(s["name"], [py, "-m", "pip", "install", *s["pip"]])))
        out.append(("install torch_envcheck and pytest", self._install_self))
        out.append(("run the self-test inside the new environment", self._selftest))
        out.append(("check the installed torch against the plan", self._verify))
        return out

    def _create(self):
        name = "create the environment"
        if self.plan.conda:
            self._run(name, [conda_program(), "create", "-y", "-p", self.dest, f"python={self.plan.python or '3'}", "pip"])
        else:
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
        for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(var, None)  # the new environment's own packages only
        self._run("run the self-test inside the new environment",
                  [env_python(self.dest, self.plan.conda), "-m", "torch_envcheck", "selftest"], env=env)

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

    def run(self) -> int:
        if os.path.lexists(self.dest):
            self.say(f"torch-envcheck rebuild: {escape.terminal(self.dest)} already exists; rebuild makes a fresh "
                     "environment: name a new folder, or remove that one first")
            return 2
        if os.path.realpath(self.dest) == os.path.realpath(sys.prefix):
            self.say("torch-envcheck rebuild: that is the environment this command runs in; name a new folder")
            return 2
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
        except (StepFailed, KeyboardInterrupt) as exc:
            failed = exc.step if isinstance(exc, StepFailed) else "interrupted"
            detail = exc.detail if isinstance(exc, StepFailed) else "stopped by Ctrl-C"
            self.say(f"\ntorch-envcheck rebuild: FAILED at step \"{escape.terminal(failed)}\": {detail}")
            if self.keep_failed:
                self.say(f"The half-built environment is left in {escape.terminal(self.dest)} (--keep-failed); it is "
                         "NOT marked verified.")
            else:
                shutil.rmtree(self.dest, ignore_errors=True)
                self.say(f"Removed {escape.terminal(self.dest)}: nothing half-built is left behind "
                         "(--keep-failed keeps it for a look).")
            self.say(f"Full log: {self.log_path}")
            self._log.close()
            return 1
        self._log.close()
        marker = {"schema": "torch_envcheck.rebuild/1",
                  "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                  "verified": True, "torch": self.torch_found, "plan": {
                      "torch": self.plan.torch, "tag": self.plan.tag, "python": self.plan.python,
                      "steps": [s["pip"] for s in self.plan.steps()], "reasons": self.plan.reasons},
                  "steps": self.results}
        with open(os.path.join(self.dest, MARKER), "w", encoding="utf-8") as fh:
            json.dump(marker, fh, indent=2)
        os.unlink(self.log_path)
        found = self.torch_found or {}
        self.say(f"\nVerified in {time.monotonic() - t_all:.0f} s: {escape.terminal(self.dest)} has torch "
                 f"{escape.terminal(found.get('version'))}"
                 + (f" (CUDA {escape.terminal(found.get('cuda'))})" if found.get("cuda") else " (CPU build)")
                 + " and its self-test passed.")
        if self.plan.conda:
            self.say(f"Switch to it:  conda activate {escape.shell_quote(self.dest)}")
        elif os.name == "nt":
            self.say(f"Switch to it:  {escape.shell_quote(os.path.join(self.dest, 'Scripts', 'Activate.ps1'), 'powershell')}")
        else:
            self.say(f"Switch to it:  source {escape.shell_quote(os.path.join(self.dest, 'bin', 'activate'))}")
        return 0
