"""Unit tests of torch_envcheck/_util/escape.py: each function against the hostile values it is
there for (terminal escape sequences, Markdown/HTML injection, shell metacharacters, requirement
lines with newlines).  Shell quoting is checked by parsing the result: shlex and `bash -n` for
POSIX, a tokenizer of PowerShell's single-quote rules for PowerShell (no pwsh on this machine)."""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pytest

from torch_envcheck._util import escape

import shell_models  # tests/support

ESC_PAYLOADS = [
    "\x1b]0;pwned title\x07",      # OSC: set the window title
    "\x1b]2;x\x1b\\",              # OSC ended by ST
    "\x1b[2J\x1b[H",               # clear the screen, cursor home
    "\x1b[8mhidden\x1b[0m",        # conceal text
    "\x1b[1A\x1b[2K",              # cursor up, erase line (rewrites what was printed)
    "\x9b2J",                      # C1 CSI
    "\x9d0;title\x9c",             # C1 OSC ... ST
    "a\rb",                        # carriage return: overwrite the line
    "\x08\x08\x08",                # backspaces
    "\x7f",
]
SHELL_HOSTILE = [
    "/home/user/$(touch pwned)/bin/python",
    "/home/user/`id`/bin/python",
    '/home/user/a"b/bin/python',
    "/home/user/it's/bin/python",
    "/home/user/(x)/bin/python",
    "/home/user/a b;rm -rf ~/bin/python",
    "/home/user/a|b&c>d<e/python",
    "/home/user/${HOME}/python",
    "/home/user/!!/python",
    "/home/user/*?[x]/python",
    "/home/user/a\\b/python",
    "-rf",
    "",
    " ",
    "/opt/my env/bin/python",
    "/home/user/\u2019curly\u2018/python",
    "/home/user/#comment/python",
    "~/python",
    "a\nrm -rf /\n",
]


@pytest.mark.parametrize("payload", ESC_PAYLOADS)
def test_terminal_shows_control_characters_instead_of_obeying_them(payload):
    out = escape.terminal("NVIDIA " + payload + " GPU")
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in out), repr(out)
    assert out.startswith("NVIDIA ") and out.endswith(" GPU")
    assert "\\x" in out  # visible, not silently dropped


def test_terminal_newlines_bidi_and_surrogates():
    assert escape.terminal("a\nb\tc\r\nd") == "a b c d"
    assert escape.terminal("a\nb", multiline=True) == "a\nb"
    assert escape.terminal("a\rb", multiline=True) == "a\\x0db"
    assert escape.terminal("x\u202ey\u2066z\u200f\u061c\u2028\ufeff") == "x\\u202ey\\u2066z\\u200f\\u061c\\u2028\\ufeff"
    assert escape.terminal("lone \ud800 surrogate") == "lone \ufffd surrogate"
    assert escape.terminal(None) == "" and escape.terminal(12) == "12"
    assert escape.terminal("NVIDIA GeForce RTX 4090 – ü 日本") == "NVIDIA GeForce RTX 4090 – ü 日本"
    # printable after escaping: no UnicodeEncodeError on a UTF-8 stream
    escape.terminal("\udcff\ud83d").encode("utf-8")


def test_terminal_is_idempotent():
    once = escape.terminal("\x1b[2J" + "\ud800" + "\u202e")
    assert escape.terminal(once) == once


def test_md_text_neutralises_markup_and_html():
    cases = {
        "<script>alert(1)</script>": "&lt;script&gt;",
        "</details>": "&lt;/details&gt;",
        "**curl evil.sh | sh**": "\\*\\*curl evil.sh \\| sh\\*\\*",
        "[click](https://evil.example)": "\\[click\\](https\\://evil.example)",
        "![img](x)": "\\!\\[img\\](x)",
        "`code`": "\\`code\\`",
        "@maintainer": "\\@maintainer",
        "~~gone~~": "\\~\\~gone\\~\\~",
        "$x^2$": "\\$x^2\\$",
        "&lt;": "&amp;lt;",
        "a\n# heading": "a # heading",
    }
    for value, want in cases.items():
        out = escape.md_text(value)
        assert want in out, (value, out)
        assert "\n" not in out and "<" not in out


@pytest.mark.parametrize("value, want", [("# h", "\\# h"), ("- item", "\\- item"), ("+ x", "\\+ x"),
                                         ("1. one", "1\\. one"), ("12) x", "12\\) x"), ("=== ", "\\=== "),
                                         ("  - x", "  \\- x"), ("plain 1. text", "plain 1. text")])
def test_md_text_at_line_start_escapes_block_markers(value, want):
    assert escape.md_text(value, line_start=True) == want
    if value[0] not in "# " and not value[0].isdigit() and value[0] not in "-+=":
        assert escape.md_text(value) == value


@pytest.mark.parametrize("body", ["```\n</details>\n<script>x</script>", "a ```` b", "``````", "~~~\nx", "plain"])
def test_md_code_block_cannot_be_closed_by_its_content(body):
    block = escape.md_code_block(body, "sh")
    first, *middle, last = block.split("\n")
    fence = last
    assert first == fence + "sh" and set(fence) == {"`"} and len(fence) >= 3
    assert all(fence not in line for line in middle), block  # no inner line holds the fence
    assert "\n".join(middle) == body


def test_md_code_block_language_is_sanitised():
    assert escape.md_code_block("x", "sh\n<b>").split("\n")[0] == "```shb"


def test_md_inline_code():
    assert escape.md_inline_code("a`b") == "``a`b``"
    assert escape.md_inline_code("`x`") == "`` `x` ``"
    assert escape.md_inline_code("") == "` `"
    assert escape.md_inline_code("x\ny") == "`x y`"


def test_markdown_structure_with_markdown_it():
    """The rendered HTML of escaped values holds no tag, link or emphasis from the value."""
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")
    hostile = "</details><script>alert(1)</script> **`curl evil | sh`** [x](https://e) ~~y~~"
    html = md.render("- " + escape.md_text(hostile) + "\n\n" + escape.md_code_block("```\n</details>\n```", "sh"))
    assert "<script>" not in html and "</details>" not in html and "<strong>" not in html
    assert "<a " not in html and "<del>" not in html
    assert html.count("<pre>") == 1 and "&lt;/details&gt;" in html


def _posix_ok(word: str, quoted: str) -> None:
    expected = escape.terminal(word)
    assert shlex.split(quoted) == [expected], (word, quoted)
    bash = shutil.which("bash")
    if bash:
        # bash parses it as one word equal to the value, running nothing.
        out = subprocess.run([bash, "--noprofile", "--norc", "-c", f"printf '%s' {quoted}"],
                             capture_output=True, text=True, timeout=10)
        assert out.returncode == 0 and out.stdout == expected, (quoted, out)


@pytest.mark.parametrize("word", SHELL_HOSTILE)
def test_shell_quote_posix_round_trips(word, tmp_path):
    quoted = escape.shell_quote(word, "posix")
    _posix_ok(word, quoted)
    assert "\n" not in quoted


def test_shell_quote_posix_runs_nothing(tmp_path):
    bash = shutil.which("bash")
    if not bash:
        pytest.skip("no bash")
    marker = tmp_path / "pwned"
    for word in (f"$(touch {marker})", f"`touch {marker}`", f"x;touch {marker}", f"'; touch {marker}; '"):
        cmd = escape.shell_join(["echo", word], "posix")
        assert subprocess.run([bash, "-n", "-c", cmd], timeout=10).returncode == 0
        subprocess.run([bash, "--noprofile", "--norc", "-c", cmd], capture_output=True, timeout=10)
        assert not marker.exists(), cmd


def test_shell_quote_keeps_plain_words_and_spaced_paths_readable():
    assert escape.shell_quote("/usr/bin/python3", "posix") == "/usr/bin/python3"
    assert escape.shell_quote("/opt/my env/bin/python", "posix") == '"/opt/my env/bin/python"'
    assert escape.shell_quote("C:\\Users\\ana\\python.exe", "powershell") == "C:\\Users\\ana\\python.exe"
    assert escape.shell_quote("C:\\Program Files\\Python\\python.exe", "powershell") == \
        '"C:\\Program Files\\Python\\python.exe"'


def _powershell_words(line: str) -> list[str]:
    """PowerShell's words for a line, by the model in tests/support/shell_models.py (the call operator
    kept as "&"); raises ValueError (shell_models.Unsafe) where PowerShell would do more than pass
    literal words."""
    return [text for _kind, text in shell_models.powershell(line)]


@pytest.mark.parametrize("word", SHELL_HOSTILE + ["C:\\Users\\O'Brien\\python.exe", "C:\\a$b\\python.exe",
                                                  "C:\\x\\`whoami`.exe", "@(1,2)", "-Command"])
def test_shell_quote_powershell(word):
    quoted = escape.shell_quote(word, "powershell")
    assert _powershell_words(quoted) == [escape.terminal(word)], quoted
    line = escape.shell_join([word, "-m", "pip"], "powershell")
    words = _powershell_words(line)
    if quoted[:1] in "'\"":
        assert words[0] == "&" and words[1:] == [escape.terminal(word), "-m", "pip"]  # call operator
    else:
        assert words == [escape.terminal(word), "-m", "pip"]


def test_shell_quote_cmd():
    assert escape.shell_quote("C:\\Python\\python.exe", "cmd") == "C:\\Python\\python.exe"
    assert escape.shell_quote('a "b" & c %PATH%', "cmd") == '"a ""b"" & c %%PATH%%"'
    with pytest.raises(ValueError):
        escape.shell_quote("x", "fish")


@pytest.mark.parametrize("value", ["0", "0,1", "GPU-1234 $(id)", "a'b", "x\ny", "`id`", ";rm -rf ~"])
def test_env_assign(value):
    posix = escape.env_assign("CUDA_VISIBLE_DEVICES", value, "posix")
    assert posix.startswith("export CUDA_VISIBLE_DEVICES=")
    assert shlex.split(posix) == ["export", "CUDA_VISIBLE_DEVICES=" + escape.terminal(value)]
    bash = shutil.which("bash")
    if bash:
        out = subprocess.run([bash, "--noprofile", "--norc", "-c", posix + '; printf "%s" "$CUDA_VISIBLE_DEVICES"'],
                             capture_output=True, text=True, timeout=10)
        assert out.stdout == escape.terminal(value)
    ps = escape.env_assign("CUDA_VISIBLE_DEVICES", value, "powershell")
    assert ps.startswith("$env:CUDA_VISIBLE_DEVICES = ")
    assert _powershell_words(ps[len("$env:CUDA_VISIBLE_DEVICES = "):]) == [escape.terminal(value)]
    cmd = escape.env_assign("CUDA_VISIBLE_DEVICES", value, "cmd")
    assert cmd.startswith('set "CUDA_VISIBLE_DEVICES=') and cmd.endswith('"') and cmd.count('"') == 2


def test_env_assign_unset_and_bad_names():
    assert escape.env_assign("LD_LIBRARY_PATH", None) == "unset LD_LIBRARY_PATH"
    assert escape.env_assign("X", None, "powershell") == "Remove-Item Env:X"
    assert escape.env_assign("X", None, "cmd") == 'set "X="'
    with pytest.raises(ValueError):
        escape.env_assign("X;rm", "1")


def test_shell_for():
    assert escape.shell_for("Windows") == "powershell"
    assert escape.shell_for("Linux") == escape.shell_for("Darwin") == escape.shell_for(None) == "posix"


@pytest.mark.parametrize("version", ["2.14.1", "2.14.1+cu130", "0.29.1+cpu", "2.6.0a0+git1234abc", "1.0.post1",
                                     "2.0.0rc1", "2.5.0.dev20240801+cu124", "1!2.0", "v1.0"])
def test_requirement_version_accepts_pep440(version):
    assert escape.requirement_version(version) == version


@pytest.mark.parametrize("version", ["2.14.1\n--index-url https://evil.example/simple", "2.14.1 --index-url x",
                                     "2.14.1; os_name=='nt'", "2.14.1\r\nevil==1", "2.14.1,<3", "", "latest",
                                     "2.14.1 #", "1" * 65, None, 2.14, ["2.14.1"], "2.14.1+cu130\x00",
                                     "2.14.1+", "2.14.1+-x", "../../x"])
def test_requirement_version_refuses_everything_else(version):
    assert escape.requirement_version(version) is None
