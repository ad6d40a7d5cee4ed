"""Reading back the command lines this package writes, for the fix checker (check.py): a line of a
fix, in the shell it was quoted for, as the argv of each simple command in it.

    commands(line, shell) -> [[word, ...], ...]   None when the line is not a command this package
                                                  writes (a comment, prose, an assignment to $env:)

POSIX lines are split by shlex (POSIX mode; `&&`, `||`, `;` and `|` end a command).  PowerShell
lines are split by the subset of its argument-mode grammar that escape.shell_quote uses: '...' with ''
for a quote, "..." without `$` or backtick, bare words, `;` between commands and `&` (the call
operator) before a program.  Anything else (a pipeline into Where-Object, $env: assignments) is
not a command to check, and None says so; the tests' shell models (tests/support/shell_models.py)
are the strict judges of quoting.
"""

from __future__ import annotations

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


def commands(line: str, shell: str) -> list[list[str]] | None:
    """The simple commands of one line as argv lists; None for a line that is not one."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or stripped.startswith("<"):
        return None
    return _posix(line) if shell == "posix" else _powershell(line)
