"""Escaping for every place a value from a snapshot lands.  A saved report is input from a stranger:
a GPU name, a path or a version string in it may carry terminal escape sequences, Markdown or HTML,
shell metacharacters or newlines.  Renderers and command builders pass every data-derived value
through the function for its destination:

    terminal(text)          one value for a terminal (control characters shown, never obeyed)
    md_text(text)           running Markdown text (no markup, no HTML, one line)
    md_code_block(text)     a fenced code block the text cannot close early
    md_inline_code(text)    inline code the text cannot close early
    shell_quote(word, sh)   one word of a command for "posix", "powershell", "cmd" or EITHER (a line
                            that cmd.exe and PowerShell both read as the same words)
    shell_join(words, sh)   a command line of such words (PowerShell: `&` before a quoted program),
                            as a Command: a str that keeps its words, to be rebuilt, never edited
    env_assign(name, v, sh) set (or, with None, remove) an environment variable in that shell
    path_prepend(d, sh), path_remove(d, sh)   put a folder first on / take it off PATH (Windows shells)
    per_shell(make, sh)     make(shell)'s line, or for EITHER one section per shell
    shell_for(os_name)      which of those a snapshot's OS uses
    requirement_version(v)  a version fit for a requirements line (PEP 440), else None
"""

from __future__ import annotations

import re

# C0 and C1 control characters (tab and newline handled by the callers that allow them), DEL,
# lone surrogates (unprintable: print() raises on them), the bidirectional marks and overrides that
# can make a terminal or a rendered page show text in another order than it runs (Unicode UAX #9),
# the line and paragraph separators (a new line to some viewers) and the byte-order mark.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028-\u202e"
                     "\u2066-\u2069\ufeff]")


def _show(match: re.Match) -> str:
    ch = match.group(0)
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text, multiline: bool = False) -> str:
    """`text` safe to print to a terminal: control characters become visible `\\xNN` escapes.
    Newlines and tabs are kept only with multiline=True (else a newline becomes a space)."""
    s = "" if text is None else str(text)
    if not multiline:
        s = s.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    else:
        s = s.replace("\r\n", "\n")
    return _UNSAFE.sub(_show, s).replace("\r", "\\x0d")


# Characters that act anywhere in a line: code spans, emphasis, links and images, HTML and
# entities (handled below), tables, strikethrough, GitHub @mentions, emoji :codes: and $math$.
_MD_INLINE = re.compile(r"([\\`*_\[\]!|~@:$])")
# What acts only at the start of a line: headings, lists, quotes, setext underlines, thematic
# breaks, ordered lists ("1." / "1)").
_MD_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+(?=[.)]))")


def md_text(text, line_start: bool = False) -> str:
    """`text` as literal Markdown text on one line: HTML is entity-escaped and Markdown's inline
    punctuation backslash-escaped, so no value can open a tag, a link, an autolink, emphasis, a
    table cell, math or an @mention.  line_start=True: the text begins a line, so a leading `#`,
    `-`, `+`, `=` or `1.` is escaped too (it would open a heading, list or underline)."""
    s = terminal(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    s = _MD_INLINE.sub(r"\\\1", s)
    if line_start:
        m = _MD_LINE_START.match(s)
        if m:
            lead, mark = m.group(1), m.group(2)
            s = lead + (mark + "\\" if mark[0].isdigit() else "\\" + mark) + s[m.end():]
    return s


def _longest_run(text: str, ch: str) -> int:
    runs = re.findall(re.escape(ch) + "+", text)
    return max((len(r) for r in runs), default=0)


def md_code_block(text, lang: str = "") -> str:
    """A fenced code block holding `text`; the fence is longer than any backtick run in it."""
    s = terminal(text, multiline=True)
    fence = "`" * max(3, _longest_run(s, "`") + 1)
    return f"{fence}{re.sub(r'[^A-Za-z0-9_+-]', '', lang)}\n{s}\n{fence}"


def md_inline_code(text) -> str:
    """`text` as inline code on one line (CommonMark: a longer backtick fence, padded by spaces)."""
    s = terminal(text)
    if not s:
        return "` `"
    fence = "`" * (_longest_run(s, "`") + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    return f"{fence}{pad}{s}{pad}{fence}"


# EITHER: native Windows where the shell is not known.  Anaconda Prompt is cmd.exe, Windows
# Terminal opens PowerShell: a line for both uses only what the two read alike (bare words, double
# quotes around text without `$`, backtick, `%` or `"`), never `$env:`, `'...'` or the call operator.
EITHER = "cmd-or-powershell"
SHELLS = ("posix", "powershell", "cmd", EITHER)
# Section comments of a fix that needs another line per shell (a quoted program, PATH changes): the
# fix checker reads the lines under each one with that shell's model (advice/check.py).
SECTION = {"powershell": "# in PowerShell:", "cmd": "# in cmd.exe (Anaconda Prompt):"}
_POSIX_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_PS_SAFE = re.compile(r"[A-Za-z0-9_%+=:./\\-]+")
# A plain option (-m, --index-url) passes to a native program as it is; an option word with `.`,
# `:` or `=` is quoted (Windows PowerShell 5.1 splits such words), and so is `--%`, which stops
# PowerShell's parsing of the rest of the line.
_PS_OPTION = re.compile(r"--?[A-Za-z][A-Za-z0-9-]*")
_CMD_SAFE = re.compile(r"[A-Za-z0-9_@+=:,./\\-]+")
# Words that are safe but for spaces ("/opt/my env/bin/python", "C:\Program Files\..."): written
# in double quotes, the way people write them; nothing in them expands inside double quotes.
_POSIX_SPACED = re.compile(r"[A-Za-z0-9_@%+=:,./ -]+")
_PS_SPACED = re.compile(r"[A-Za-z0-9_%+=:./\\ -]+")
# Both shells: bare only what neither acts on (cmd: % & | < > ( ) ^ , ;  PowerShell: $ @ ( ) { } , ; ` ' #);
# in double quotes anything but what either expands there (cmd: %, PowerShell: $ and the backtick)
# and the quote characters, and never a trailing backslash (the C runtime reads \" as a quote).
_EITHER_SAFE = re.compile(r"[A-Za-z0-9_+=:./\\-]+")
_EITHER_QUOTABLE = re.compile("[^\"%$`\u201c\u201d\u201e\x00-\x1f]*[^\"%$`\u201c\u201d\u201e\x00-\x1f\\\\]")


def shell_quote(word, shell: str = "posix") -> str:
    """One command word quoted so that `shell` passes it through literally."""
    s = terminal(word)  # a newline or escape sequence in a command is never wanted
    if shell == "posix":
        if _POSIX_SAFE.fullmatch(s):
            return s
        if _POSIX_SPACED.fullmatch(s):
            return f'"{s}"'
        return "'" + s.replace("'", "'\"'\"'") + "'"
    if shell == "powershell":
        # Single quotes are literal in PowerShell; a quote inside is doubled (curly quotes too,
        # which PowerShell also treats as quote characters).  `&` runs a quoted program path.
        if _PS_SAFE.fullmatch(s) and (not s.startswith("-") or _PS_OPTION.fullmatch(s)):
            return s
        if _PS_SPACED.fullmatch(s) and not s.startswith("-"):
            return f'"{s}"'
        return "'" + re.sub("(['\u2018\u2019\u201a\u201b])", r"\1\1", s) + "'"
    if shell == EITHER:
        if _EITHER_SAFE.fullmatch(s) and (not s.startswith("-") or _PS_OPTION.fullmatch(s)):
            return s
        if _EITHER_QUOTABLE.fullmatch(s):
            return f'"{s}"'
        # No quoting reads alike in both: PowerShell's literal quotes, which the fix checker flags
        # for cmd.exe (a `# caution:` line) rather than let a line run differently in one of them.
        return "'" + re.sub("(['\u2018\u2019\u201a\u201b])", r"\1\1", s) + "'"
    if shell == "cmd":
        if _CMD_SAFE.fullmatch(s):
            return s
        # cmd has no literal quoting: inside double quotes `"` is doubled, and `%` is doubled,
        # which is right in the .bat files this project writes (at an interactive prompt a `%`
        # cannot be escaped at all).  The program then splits its command line by the C runtime's
        # rules, where backslashes before a quote escape it: those are doubled (a path ending in
        # `\` must not swallow its closing quote).
        body = re.sub(r'(\\+)(?="|$)', r"\1\1", s)
        return '"' + body.replace('"', '""').replace("%", "%%") + '"'
    raise ValueError(f"unknown shell {shell!r}; expected one of {', '.join(SHELLS)}")


_POSIX_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_POSIX_RESERVED = frozenset(("!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in",
                             "then", "until", "while", "function", "select", "time", "[[", "]]", "coproc"))


class Command(str):
    """A command line as text (a str), which also keeps the words it was quoted from (`argv`) and
    the shell it was quoted for.  A caller that needs another form of the command (the same pip
    call in another environment's Python) builds it from `argv` and quotes it again, once: quoted
    text is never edited, cut or searched for words (a quoted path can hold ` -m pip `)."""

    argv: tuple = ()
    shell: str = "posix"

    def __new__(cls, text: str, argv=(), shell: str = "posix"):
        obj = super().__new__(cls, text)
        obj.argv, obj.shell = tuple(argv), shell
        return obj

    def __reduce__(self):  # pickles (and deep-copies) as what it is
        return (Command, (str(self), self.argv, self.shell))


def shell_join(words, shell: str = "posix") -> Command:
    """A command line from words, each quoted for `shell`.  In PowerShell a quoted program path
    needs the call operator `&` in front.  The result is a str that remembers `words` (Command)."""
    words = [str(w) for w in words]
    quoted = [shell_quote(w, shell) for w in words]
    if shell == "posix" and quoted and quoted[0] == words[0] and (
            _POSIX_ASSIGNMENT.match(words[0]) or words[0] in _POSIX_RESERVED):
        # as the program, `A=b` would be a variable assignment and `if` a keyword: quoted, they are words
        quoted[0] = "'" + words[0] + "'"
    if shell == "powershell" and quoted and quoted[0][:1] in ("'", '"'):
        quoted.insert(0, "&")
    if shell == EITHER and quoted and quoted[0][:1] in ("'", '"'):
        # a quoted program: PowerShell needs `&` before it, which cmd.exe rejects: one line per shell
        return Command("\n".join((SECTION["powershell"], shell_join(words, "powershell"),
                                   SECTION["cmd"], shell_join(words, "cmd"))), words, shell)
    return Command(" ".join(quoted), words, shell)


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def env_assign(name: str, value, shell: str = "posix") -> str:
    """A command that sets environment variable `name` to `value` (None: removes it) in `shell`.
    POSIX `export NAME=value`, PowerShell `$env:NAME = 'value'`, cmd `set "NAME=value"`."""
    if not _ENV_NAME.fullmatch(str(name)):
        raise ValueError(f"not an environment variable name: {name!r}")
    if shell == "posix":
        return f"unset {name}" if value is None else f"export {name}={shell_quote(value, 'posix')}"
    if shell == "powershell":
        if value is None:
            return f"Remove-Item Env:{name}"
        return f"$env:{name} = '" + re.sub("(['\u2018\u2019\u201a\u201b])", r"\1\1", terminal(value)) + "'"
    if shell == EITHER:
        return "\n".join((SECTION["powershell"], env_assign(name, value, "powershell"),
                          SECTION["cmd"], env_assign(name, value, "cmd")))
    if shell == "cmd":
        # The quotes around NAME=value keep & | < > literal; % cannot be escaped at a prompt, so
        # it and the quote character are dropped rather than let them expand.
        return f'set "{name}=' + ("" if value is None else re.sub('[%"]', "", terminal(value))) + '"'
    raise ValueError(f"unknown shell {shell!r}; expected one of {', '.join(SHELLS)}")


def per_shell(make, shell: str) -> str:
    """make(shell) -> the line(s) for one shell; for EITHER, the PowerShell and cmd.exe forms under
    their section comments (advice/check.py reads each under that shell's model)."""
    if shell == EITHER:
        return "\n".join((SECTION["powershell"], make("powershell"), SECTION["cmd"], make("cmd")))
    return make(shell)


def _cmd_path_text(folder: str) -> str | None:
    """A folder as literal text inside cmd's set "PATH=...": no % (it would expand) and no quote."""
    s = terminal(folder)
    return None if any(c in s for c in '%"') else s


def path_prepend(folder, shell: str) -> str:
    """Put `folder` first on PATH for the current session of `shell` (Windows shells)."""
    def make(sh: str) -> str:
        if sh == "cmd":
            body = _cmd_path_text(folder)
            return f'set "PATH={body};%PATH%"' if body is not None else "rem (the folder's name cannot be written for cmd.exe)"
        if sh == "powershell":
            return "$env:Path = " + shell_quote(str(folder) + ";", "powershell") + " + $env:Path"
        return "export PATH=" + shell_quote(str(folder), "posix") + ':"$PATH"'
    return per_shell(make, shell)


def path_remove(folder, shell: str) -> str:
    """Take `folder` off PATH for the current session of `shell` (Windows shells).  cmd.exe has no
    filter: its substitution %PATH:old=new% (`set /?`) drops the entry with its `;`."""
    def make(sh: str) -> str:
        if sh == "cmd":
            body = _cmd_path_text(folder)
            if body is None or "=" in body:
                return "rem (the folder's name cannot be written for cmd.exe: remove it in Environment Variables)"
            return f'set "PATH=%PATH:{body};=%"'
        if sh == "powershell":
            return ("$env:Path = ($env:Path -split ';' | Where-Object { $_ -ne " + shell_quote(str(folder), "powershell")
                    + " }) -join ';'")
        return None
    return per_shell(make, shell)


def shell_for(os_name) -> str:
    """The shell a fix command for a machine of `os_name` (platform.system()) is written for."""
    return "powershell" if os_name == "Windows" else "posix"


# PEP 440's canonical pattern (https://peps.python.org/pep-0440/, Appendix B), with a local part.
_PEP440 = re.compile(
    r"v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
    r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?", re.IGNORECASE)


def requirement_version(version) -> str | None:
    """`version` when it is a valid PEP 440 version (so it cannot smuggle a newline, an option
    such as `--index-url` or a second requirement into a requirements line), else None."""
    if not isinstance(version, str) or len(version) > 64:
        return None
    v = version.strip()
    return v if _PEP440.fullmatch(v) else None
