"""A plan as a setup script that can be run again and again: it builds a fresh environment (removing
the one it built before, never anything else), installs the plan, then runs the self-test inside it.

    render(plan, shell, dest, envcheck_spec) -> script text;  shell: "sh", "ps1" or "bat"

Every value from the plan is quoted for the script's shell (_util/escape.py), and comments carry
no value that could end the comment line.

"The one it built before" is a folder holding the script's own marker file (MARKER), written into
the folder as soon as the script made it.  A venv or conda env the script did not make (say
~/miniconda3) has none: the script refuses to touch it, however much it looks like an environment.
A symlink in DEST's place is refused too (removing it would not remove what the script built).
The cmd script keeps the folder in `set "ENV_DIR=..."` and uses it only as "%ENV_DIR%": cmd splits
an unquoted value at `,` `;` `=` and spaces, and runs what follows an `&`.
"""

from __future__ import annotations

import datetime as _dt

from torch_envcheck._util import escape
from torch_envcheck._version import __version__

SHELLS = {"sh": "posix", "ps1": "powershell", "bat": "cmd"}
MARKER = ".torch-envcheck-setup"
MARKER_TEXT = "made by a torch-envcheck setup script, which removes this folder when it runs again"
VC_REDIST_URL = "https://aka.ms/vs/17/release/vc_redist.x64.exe"  # Microsoft Learn: "Latest supported Visual C++ Redistributable downloads"


def _comment_lines(plan, shell: str, dest: str) -> list[str]:
    mark = "::" if shell == "bat" else "#"
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d")
    lines = [f"Fresh {'conda' if plan.conda else 'virtual'} environment for PyTorch, written by "
             f"torch-envcheck {__version__} (advise --script {shell}) on {now}.",
             "Run it again whenever the environment breaks: it removes the environment it built before "
             "and builds it anew from this plan.",
             f"Environment folder (first argument overrides it): {dest}", "Why this plan:"]
    lines += [f"  - {r}" for r in plan.describe()]
    # escape.terminal() turns newlines into spaces, so no value can end the comment early.
    return [f"{mark} {escape.terminal(line)}".rstrip() for line in lines]


def _forge(plan, q) -> str:
    """The conda create words that bring conda-forge's pytorch (plan.conda_specs), quoted, with a
    trailing space; '' without them."""
    return ("-c conda-forge " + " ".join(q(s) for s in plan.conda_specs) + " ") if plan.conda_specs else ""


def _pip_lines(plan) -> list[tuple[str, list[str]]]:
    return [(s["name"], s["pip"]) for s in plan.steps()]


def render(plan, shell: str, dest: str, envcheck_spec: str) -> str:
    if shell not in SHELLS:
        raise ValueError(f"unknown script kind {shell!r}; expected one of {', '.join(SHELLS)}")
    return {"sh": _sh, "ps1": _ps1, "bat": _bat}[shell](plan, dest, envcheck_spec)


# ------------------------------------------------------------------------------------------- POSIX

def _sh(plan, dest: str, spec: str) -> str:
    def q(word):
        return escape.shell_quote(word, "posix")

    def j(words):
        return escape.shell_join(words, "posix")

    py = getattr(plan, "base_python", None) or (f"python{plan.python}" if plan.python else "python3")
    out = ["#!/usr/bin/env bash"] + _comment_lines(plan, "sh", dest) + [
        "set -euo pipefail",
        f"ENV_DIR=${{1:-{q(dest)}}}",
        f"PYTHON=${{PYTHON:-{q(py)}}}   # the interpreter the environment is made from",
        'step() { printf \'\\n== %s\\n\' "$*"; }',
        'fail() { printf \'torch-envcheck setup: step failed: %s\\n\' "$*" >&2; exit 1; }',
        "",
        f"# Only a folder holding the marker of this script ({MARKER}) is one an earlier run made; anything",
        "# else at that path (another venv or conda env, a symlink, a file) is refused, never deleted.",
        f"MARK={q(MARKER)}",
        'if [ -e "$ENV_DIR" ] || [ -L "$ENV_DIR" ]; then',
        '  if [ ! -L "$ENV_DIR" ] && [ -d "$ENV_DIR" ] && [ -f "$ENV_DIR/$MARK" ] && [ ! -L "$ENV_DIR/$MARK" ]; then',
        '    step "remove the environment an earlier run built: $ENV_DIR"',
        '    rm -rf -- "$ENV_DIR"',
        "  else",
        '    fail "$ENV_DIR exists and is not an environment this script made (no $MARK in it); choose another folder"',
        "  fi",
        "fi",
        f"mark() {{ printf '%s\\n' {q(MARKER_TEXT)} > \"$ENV_DIR/$MARK\" || fail \"mark $ENV_DIR as this script's\"; }}",
    ]
    if plan.conda:
        out += ['step "create a conda environment in $ENV_DIR"',
                'CONDA=${CONDA_EXE:-$(command -v mamba || command -v micromamba || command -v conda || true)}',
                '[ -n "$CONDA" ] || fail "no conda, mamba or micromamba on PATH"',
                f'"$CONDA" create -y -p "$ENV_DIR" {_forge(plan, q)}{q("python=" + (plan.python or "3"))} pip '
                '|| fail "create the conda environment"',
                "mark",
                'PY="$ENV_DIR/bin/python"']
    else:
        out += ['step "create a virtual environment in $ENV_DIR with $PYTHON"',
                'mkdir -p -- "$ENV_DIR" || fail "create $ENV_DIR"',
                "mark",
                '"$PYTHON" -m venv "$ENV_DIR" || fail "create the virtual environment (is $PYTHON installed?)"',
                'PY="$ENV_DIR/bin/python"']
    for name, words in _pip_lines(plan):
        out += [f"step {q(name)}", f'"$PY" -m pip install {j(words)} || fail {q(name)}']
    out += ['step "install torch_envcheck and pytest (for the self-test)"',
            f'"$PY" -m pip install {j([spec, "pytest"] + plan.sources.pip_args())} || fail "install torch_envcheck"',
            'step "self-test inside the new environment"',
            '"$PY" -m torch_envcheck selftest || fail "the self-test (see its report above)"',
            'printf \'\\nThe environment works. Switch to it with:\\n  source %s/bin/activate\\n\' "$ENV_DIR"'
            if not plan.conda else
            'printf \'\\nThe environment works. Switch to it with:\\n  conda activate %s\\n\' "$ENV_DIR"',
            ""]
    return "\n".join(out)


# -------------------------------------------------------------------------------------- PowerShell

def _ps1(plan, dest: str, spec: str) -> str:
    def q(word):
        return escape.shell_quote(word, "powershell")

    def j(words):
        return " ".join(q(w) for w in words)

    ver = plan.python or "3"
    out = _comment_lines(plan, "ps1", dest) + [
        f"param([string]$EnvDir = {q(dest)})",
        "$ErrorActionPreference = 'Stop'",
        "function Step($Text) { Write-Host \"`n== $Text\" }",
        "function Check($Text) { if ($LASTEXITCODE -ne 0) { throw \"torch-envcheck setup: step failed: $Text\" } }",
        "",
        "# torch's Windows wheels need the Microsoft Visual C++ Redistributable (vcruntime140.dll).",
        "$vc = Get-ItemProperty -Path 'HKLM:\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64' "
        "-ErrorAction SilentlyContinue",
        "if (-not $vc -or $vc.Installed -ne 1) {",
        f"  Write-Warning 'The Visual C++ Redistributable (x64) is not installed: `import torch` will fail "
        f"loading its DLLs. Install it from {VC_REDIST_URL}'",
        "}",
        # PATH's CUDA folders are not checked: torch loads the DLLs its wheel bundles and never searches
        # PATH for them (knowledge/data/windows_dll_search.json).
        "",
        f"# Only a folder holding the marker of this script ({MARKER}) is one an earlier run made; anything",
        "# else at that path (another venv or conda env, a link, a file) is refused, never deleted.",
        f"$Mark = {q(MARKER)}",
        "function Mark { Set-Content -LiteralPath (Join-Path $EnvDir $Mark) -Value " + q(MARKER_TEXT) + " }",
        "if (Test-Path -LiteralPath $EnvDir) {",
        "  $item = Get-Item -LiteralPath $EnvDir -Force",
        "  $ours = $item.PSIsContainer -and -not ($item.Attributes -band [IO.FileAttributes]::ReparsePoint) -and "
        "(Test-Path -LiteralPath (Join-Path $EnvDir $Mark) -PathType Leaf)",
        "  if ($ours) {",
        "    Step \"remove the environment an earlier run built: $EnvDir\"",
        "    Remove-Item -LiteralPath $EnvDir -Recurse -Force",
        "  } else {",
        "    throw \"torch-envcheck setup: $EnvDir exists and is not an environment this script made (no $Mark in it); "
        "choose another folder\"",
        "  }",
        "}",
    ]
    if plan.conda:
        out += ["Step \"create a conda environment in $EnvDir\"",
                "$conda = if ($env:CONDA_EXE) { $env:CONDA_EXE } else { (Get-Command conda -ErrorAction Stop).Source }",
                f"& $conda create -y -p $EnvDir {_forge(plan, q)}{q('python=' + ver)} pip; "
                "Check 'create the conda environment'",
                "Mark",
                "$Py = Join-Path $EnvDir 'python.exe'"]
    else:
        out += ["Step \"create a virtual environment in $EnvDir (Python " + ver + " through the py launcher)\"",
                "[IO.Directory]::CreateDirectory($EnvDir) | Out-Null; Mark",
                f"py -{ver} -m venv $EnvDir; Check 'create the virtual environment (is Python {ver} installed? "
                "py --list shows them)'",
                "$Py = Join-Path $EnvDir 'Scripts\\python.exe'"]
    for name, words in _pip_lines(plan):
        out += [f"Step {q(name)}", f"& $Py -m pip install {j(words)}; Check {q(name)}"]
    out += ["Step 'install torch_envcheck and pytest (for the self-test)'",
            f"& $Py -m pip install {j([spec, 'pytest'] + plan.sources.pip_args())}; Check 'install torch_envcheck'",
            "Step 'self-test inside the new environment'",
            "& $Py -m torch_envcheck selftest; Check 'the self-test (see its report above)'",
            ("Write-Host \"`nThe environment works. Switch to it with:`n  conda activate $EnvDir\""
             if plan.conda else
             "Write-Host \"`nThe environment works. Switch to it with:`n  & (Join-Path $EnvDir 'Scripts\\Activate.ps1')\""),
            ""]
    return "\r\n".join(out)


# --------------------------------------------------------------------------------------------- cmd

def _bat(plan, dest: str, spec: str) -> str:
    def q(word):
        return escape.shell_quote(word, "cmd")

    def j(words):
        return " ".join(q(w) for w in words)

    def label(text):  # an echo of our own step names: cmd metacharacters dropped
        return "".join(ch for ch in escape.terminal(text) if ch not in '&|<>^%"()')

    ver = plan.python or "3"
    # `set "NAME=value"`: the quotes keep & | < > and cmd's separators (, ; = space) literal; in a
    # .bat file %% is one %; a `"` cannot be in a Windows path and would end the quoting: dropped.
    dest_value = escape.terminal(dest).replace('"', "").replace("%", "%%")
    out = ["@echo off"] + _comment_lines(plan, "bat", dest) + [
        "setlocal",
        f'set "ENV_DIR={dest_value}"',
        'if not "%~1"=="" set "ENV_DIR=%~1"',
        f'set "MARK={MARKER}"',
        "",
        ":: torch's Windows wheels need the Microsoft Visual C++ Redistributable (vcruntime140.dll).",
        'reg query "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64" /v Installed >nul 2>&1 '
        f"|| echo WARNING: the Visual C++ Redistributable (x64) is not installed; install it from {VC_REDIST_URL}",
        "",
        f":: Only a folder holding the marker of this script ({MARKER}) is one an earlier run made; anything",
        ":: else at that path (another venv or conda env, a file) is refused, never deleted.",
        'if exist "%ENV_DIR%\\%MARK%" goto :remove',
        'if exist "%ENV_DIR%" (echo torch-envcheck setup: "%ENV_DIR%" exists and is not an environment this script '
        "made, no %MARK% in it; choose another folder & exit /b 1)",
        "goto :create",
        ":remove",
        'echo == remove the environment an earlier run built: "%ENV_DIR%"',
        'rmdir /s /q "%ENV_DIR%" || goto :fail',
        ":create",
    ]
    mark = f'(echo {label(MARKER_TEXT)})> "%ENV_DIR%\\%MARK%" || goto :fail'
    if plan.conda:
        out += ['echo == create a conda environment in "%ENV_DIR%"',
                f'call conda create -y -p "%ENV_DIR%" {_forge(plan, q)}{q("python=" + ver)} pip || goto :fail',
                mark,
                'set "PY=%ENV_DIR%\\python.exe"']
    else:
        out += [f'echo == create a virtual environment in "%ENV_DIR%" (Python {ver} through the py launcher)',
                'mkdir "%ENV_DIR%" || goto :fail',
                mark,
                f'py -{ver} -m venv "%ENV_DIR%" || goto :fail',
                'set "PY=%ENV_DIR%\\Scripts\\python.exe"']
    for name, words in _pip_lines(plan):
        out += [f"echo == {label(name)}", f'"%PY%" -m pip install {j(words)} || goto :fail']
    out += ["echo == install torch_envcheck and pytest (for the self-test)",
            f'"%PY%" -m pip install {j([spec, "pytest"] + plan.sources.pip_args())} || goto :fail',
            "echo == self-test inside the new environment",
            '"%PY%" -m torch_envcheck selftest || goto :fail',
            "echo.",
            ('echo The environment works. Switch to it with: conda activate "%ENV_DIR%"' if plan.conda else
             'echo The environment works. Switch to it with: "%ENV_DIR%\\Scripts\\activate.bat"'),
            "exit /b 0",
            ":fail",
            "echo torch-envcheck setup: a step failed (see above) 1>&2",
            "exit /b 1",
            ""]
    return "\r\n".join(out)
