"""Escaping for every place a value from a snapshot lands.  A saved report is input from a stranger:
a GPU name, a path or a version string in it may carry terminal escape sequences, Markdown or HTML,
shell metacharacters or newlines.  Renderers and command builders pass every data-derived value
through the function for its destination:

    terminal(text)          one value for a terminal (control characters shown, never obeyed)
    md_text(text)           running Markdown text (no markup, no HTML, one line)
    md_code_block(text)     a fenced code block the text cannot close early
    md_inline_code(text)    inline code the text cannot close early
    shell_quote(word, sh)   one word of a command for "posix", "powershell" or "cmd"
    shell_for(os_name)      which of those a snapshot's OS uses
    requirement_version(v)  a version fit for a requirements line (PEP 440), else None
"""

from __future__ import annotations

import re

# C0 and C1 control characters (tab and newline handled by the callers that allow them), DEL,
# lone surrogates (unprintable: print() raises on them), and the bidirectional overrides that can
# make a terminal or a rendered page show text in another order than it runs.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069]")


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


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md_text(text) -> str:
    """`text` as literal Markdown text on one line: HTML is entity-escaped and Markdown's
    punctuation backslash-escaped, so no value can open a tag, a link, emphasis or a new block."""
    s = terminal(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return _MD_SPECIAL.sub(r"\\\1", s)


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


SHELLS = ("posix", "powershell", "cmd")
_POSIX_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_CMD_SAFE = re.compile(r"[A-Za-z0-9_@+=:,./\\-]+")


def shell_quote(word, shell: str = "posix") -> str:
    """One command word quoted so that `shell` passes it through literally."""
    s = terminal(word)  # a newline or escape sequence in a command is never wanted
    if shell == "posix":
        return s if _POSIX_SAFE.fullmatch(s) else "'" + s.replace("'", "'\"'\"'") + "'"
    if shell == "powershell":
        # Single quotes are literal in PowerShell; a quote inside is doubled (curly quotes too,
        # which PowerShell also treats as quote characters).  `&` runs a quoted program path.
        if _POSIX_SAFE.fullmatch(s) and not s.startswith("-"):
            return s
        return "'" + re.sub("(['\u2018\u2019\u201a\u201b])", r"\1\1", s) + "'"
    if shell == "cmd":
        if _CMD_SAFE.fullmatch(s):
            return s
        # cmd has no literal quoting: inside double quotes `"` is doubled, and `%` is doubled,
        # which is right in the .bat files this project writes (at an interactive prompt a `%`
        # cannot be escaped at all).
        return '"' + s.replace('"', '""').replace("%", "%%") + '"'
    raise ValueError(f"unknown shell {shell!r}; expected one of {', '.join(SHELLS)}")


def shell_join(words, shell: str = "posix") -> str:
    """A command line from words, each quoted for `shell`.  In PowerShell a quoted program path
    needs the call operator `&` in front."""
    quoted = [shell_quote(w, shell) for w in words]
    if shell == "powershell" and quoted and quoted[0].startswith("'"):
        quoted.insert(0, "&")
    return " ".join(quoted)


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
