"""CI's own scripts: .ci/run calls the README's test command, and the step runner (.ci/steps.sh) keeps
CI's output small, bounds every step and shows the end of a failed step's log."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STEPS = ROOT / ".ci" / "steps.sh"


def _readme_test_command() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Run the tests", 1)[1]
    block = re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)
    return block.split("&&")[-1].split()


def test_ci_runs_the_readme_test_command():
    cmd = _readme_test_command()
    assert cmd[0] == "pytest" and cmd[-1] == "tests", cmd
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    xdist = re.search(r"^XDIST=\((.*?)\)", run, re.M).group(1).split()
    line = next(ln for ln in run.splitlines() if "the README's test command" in ln and ln.startswith("step "))
    pytest_args = line.split(" pytest ", 1)[1].split()
    expanded = [a for arg in pytest_args for a in (xdist if arg == '"${XDIST[@]}"' else [arg])]
    assert ["pytest", *expanded] == cmd


def _bash(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    full = f't0=$(date +%s); LOGS={tmp_path}/logs; set -euo pipefail; source {STEPS}\n{script}'
    return subprocess.run(["bash", "-c", full], capture_output=True, text=True, timeout=60)


needs_tools = pytest.mark.skipif(not (shutil.which("bash") and shutil.which("timeout")),
                                 reason="needs bash and GNU timeout (what CI runs on)")


@needs_tools
def test_a_step_keeps_its_output_in_its_log_and_prints_its_summary(tmp_path):
    out = _bash("step 'chatty' 30 python3 -c \"print('x' * 200000); "
                "print('===== 3 passed, 1 skipped in 0.1s =====')\"", tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 500, out.stdout
    assert "== [" in out.stdout and "chatty" in out.stdout and "3 passed, 1 skipped" in out.stdout
    (log,) = (tmp_path / "logs").iterdir()
    assert log.stat().st_size > 200000 and log.name.endswith("-chatty.log")


@needs_tools
def test_a_failing_step_ends_ci_with_its_status_and_the_end_of_its_log(tmp_path):
    out = _bash("step 'breaks' 30 bash -c 'for i in $(seq 1 400); do echo line$i; done; exit 3'\necho after",
                tmp_path)
    assert out.returncode == 3
    assert "'breaks' failed (exit status 3)" in out.stdout
    assert "line400" in out.stdout and "line1\n" not in out.stdout   # the tail only
    assert "after" not in out.stdout


@needs_tools
def test_a_step_past_its_deadline_is_stopped_and_named(tmp_path):
    out = _bash("step 'hangs' 1 sleep 30", tmp_path)
    assert out.returncode == 124
    assert "'hangs' ran past its 1 s and was stopped" in out.stdout


@needs_tools
def test_a_soft_step_shows_its_status_and_goes_on(tmp_path):
    out = _bash("step_soft 'report' 30 bash -c 'echo No issues found; exit 1'\nshow_log 'report' 100\necho after",
                tmp_path)
    assert out.returncode == 0
    assert "exit status 1" in out.stdout and out.stdout.rstrip().endswith("after")
    assert out.stdout.count("No issues found") == 2   # the summary line, then the log shown


def test_the_cpu_venv_leaves_out_only_the_files_marked_any_torch_build():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    start = run.index('step "CPU venv: the tests that depend on the torch build"')
    step = run[start:run.index("\nstep ", start + 1)]
    assert '-m "not slow and not any_torch_build"' in step
    marked = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")
                    if re.search(r"^pytestmark = pytest\.mark\.any_torch_build$", p.read_text(encoding="utf-8"), re.M))
    # the marker is declared, and what carries it is a file the CPU step would otherwise run
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"any_torch_build: ' in pyproject
    assert marked and all(m.startswith("tests/integration/cli/") for m in marked), marked
