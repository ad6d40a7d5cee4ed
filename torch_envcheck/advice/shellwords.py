"""Reading back the command lines this package writes, for the fix checker (check.py): a line of a
fix, in the shell it was quoted for, as the argv of each simple command in it.

    commands(line, shell) -> [[word, ...], ...]   None when the line is not a command this package
                                                  writes (a comment, prose, an assignment to $env:)

cmd.exe lines are read as an interactive prompt reads them (not a .bat file): outside double quotes
`^` escapes the next character, `&&` `||` `&` `|` end a command, `<` `>` redirect (not a line this
package writes: None); `"` toggles quoting and nothing else quotes, so a single-quoted word reaches
the program with its quotes (`'torch==2.4.*'` is what pip then sees, an invalid requirement).  Each
command's text is then split into argv by the Microsoft C runtime's rules (what python.exe does).
A line for either Windows shell (escape.EITHER) is read by both; check.py compares the two readings.

POSIX lines are split by shlex (POSIX mode; `&&`, `||`, `;` and `|` end a command).  PowerShell
lines are split by the subset of its argument-mode grammar that escape.shell_quote uses: '...' with ''
for a quote, "..." without `$` or backtick, bare words, `;` between commands and `&` (the call
operator) before a program.  Anything else (a pipeline into Where-Object, $env: assignments) is
not a command to check, and None says so; the tests' shell models (tests/support/shell_models.py)
are the strict judges of quoting.
"""

from __future__ import annotations

import functools
import re
import shlex

_OPS = ("&&", "||", ";", "|")


def _posix(line: str) -> list[list[str]] | None:
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split = True
    lex.commenters = "#"
    out, cur = [], []
    try:
        for word, raw in _with_quoting(lex):
            if word in _OPS and not raw:
                if cur:
                    out.append(cur)
                cur = []
            else:
                cur.append(word)
    except ValueError:  # an unbalanced quote: not a line this package wrote
        return None
    if cur:
        out.append(cur)
    return out


def _with_quoting(lex):
    """(word, quoted?) from a POSIX shlex: a word that was quoted ("';'") is never an operator."""
    stream = lex.instream
    while True:
        start = stream.tell() if hasattr(stream, "tell") else None
        word = lex.get_token()
        if word == lex.eof or word is None:
            return
        end = stream.tell() if hasattr(stream, "tell") else None
        raw = ""
        if start is not None and end is not None:
            stream.seek(start)
            raw = stream.read(end - start)
            stream.seek(end)
        quoted = raw.lstrip()[:1] in ("'", '"', "\\")
        yield word, quoted


def _powershell(line: str) -> list[list[str]] | None:
    out, cur, word, i, n = [], [], None, 0, len(line)
    quoted_char = ("'", "\u2018", "\u2019", "\u201a", "\u201b")
    while i < n:
        ch = line[i]
        if ch in " \t":
            if word is not None:
                cur.append(word)
                word = None
            i += 1
            continue
        if ch == "#" and word is None:
            break  # a comment
        if ch == ";" :
            if word is not None:
                cur.append(word)
                word = None
            if cur:
                out.append(cur)
            cur = []
            i += 1
            continue
        if ch == "&" and word is None and not cur:
            i += 1  # the call operator before a program
            continue
        if ch in quoted_char:
            j, buf = i + 1, []
            while j < n:
                if line[j] in quoted_char:
                    if j + 1 < n and line[j + 1] in quoted_char:
                        buf.append(line[j])
                        j += 2
                        continue
                    break
                buf.append(line[j])
                j += 1
            else:
                return None
            word = (word or "") + "".join(buf)
            i = j + 1
            continue
        if ch == '"':
            j = line.find('"', i + 1)
            if j < 0:
                return None
            inner = line[i + 1:j]
            if "$" in inner or "`" in inner:
                return None  # an expanding string: not a command word this package writes
            word = (word or "") + inner
            i = j + 1
            continue
        if ch in "|(){}@,<>`" or (ch == "$" and word is None and line[i:i + 5].lower() == "$env:"):
            return None  # a pipeline, a subexpression, an environment assignment: not checked here
        word = (word or "") + ch
        i += 1
    if word is not None:
        cur.append(word)
    if cur:
        out.append(cur)
    return out


def crt_split(text: str) -> list[str]:
    """A Windows command line split into argv by the Microsoft C runtime (what python.exe and pip
    see): blanks separate words outside quotes, `"` toggles quoting, `""` inside quotes is a quote,
    2n backslashes before a quote are n and the quote acts, 2n+1 are n and a literal quote."""
    args, i, n = [], 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return args
        buf, quoted = [], False
        while i < n and (quoted or text[i] not in " \t"):
            ch = text[i]
            if ch == "\\":
                j = i
                while j < n and text[j] == "\\":
                    j += 1
                if j < n and text[j] == '"':
                    buf.append("\\" * ((j - i) // 2))
                    if (j - i) % 2:
                        buf.append('"')
                        j += 1
                    i = j
                    continue
                buf.append(text[i:j])
                i = j
                continue
            if ch == '"':
                if quoted and i + 1 < n and text[i + 1] == '"':
                    buf.append('"')
                    i += 2
                    continue
                quoted = not quoted
                i += 1
                continue
            buf.append(ch)
            i += 1
        args.append("".join(buf))


def _cmd(line: str) -> list[list[str]] | None:
    stripped = line.strip()
    low = stripped.lower()
    if low.startswith(("rem ", "::", "set ", "@echo", "echo ")) or low == "rem":
        return None  # a remark, an assignment, an echo: not a command that installs anything
    segments, cur, quoted, i, n = [], [], False, 0, len(line)
    while i < n:
        ch = line[i]
        if ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif quoted:
            cur.append(ch)
        elif ch == "^":
            if i + 1 < n:
                cur.append(line[i + 1])
            i += 2
            continue
        elif ch in "&|":
            segments.append("".join(cur))
            cur = []
            i += 2 if line[i:i + 2] in ("&&", "||") else 1
            continue
        elif ch in "<>":
            return None  # a redirection: not a line this package writes for cmd
        else:
            cur.append(ch)
        i += 1
    if quoted:
        return None  # cmd would pass the open quote on; not a line this package writes
    segments.append("".join(cur))
    out = [crt_split(seg) for seg in segments]
    return [argv for argv in out if argv]


def powershell_only(line: str) -> str | None:
    """What in a line only PowerShell reads (for a line meant for both Windows shells), or None."""
    stripped = line.strip()
    if "$env:" in stripped.lower():
        return "$env: (a PowerShell variable)"
    if stripped.startswith("& "):
        return "the call operator &"
    if re.search(r"(?:^|\s)'[^']*'(?=\s|$|;)", stripped):
        return "single quotes (literal in PowerShell, passed on as they are by cmd.exe)"
    return None


def commands(line: str, shell: str) -> list[list[str]] | None:
    """The simple commands of one line as argv lists (new lists each call); None for a line that is
    not one."""
    read = _commands(line, shell) if isinstance(line, str) and isinstance(shell, str) else None
    return None if read is None else [list(argv) for argv in read]


# A report checks the same few fix lines once per finding and per shell: each line is read once.
# Bounded, so a stream of distinct lines cannot grow it.
@functools.lru_cache(maxsize=2048)
def _commands(line: str, shell: str) -> tuple[tuple[str, ...], ...] | None:
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or stripped.startswith("<"):
        return None
    if shell == "posix":
        read = _posix(line)
    elif shell == "cmd":
        read = _cmd(line)
    else:
        read = _powershell(line)
    return None if read is None else tuple(tuple(argv) for argv in read)
