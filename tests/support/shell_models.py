"""Tokenizer models of the three shells this project writes commands for, for the tests (not a test
module).  Each turns one line into tokens the way that shell would, and says where it would do
more than pass a literal word: an expansion, a glob, an operator.  A test then checks that a value
quoted by torch_envcheck comes out as exactly one literal word.

    posix(line, allow_vars=())       bash / POSIX sh (non-interactive, but `!` is flagged as in an
                                     interactive bash, where a pasted fix line runs)
    powershell(line, allow_vars=())  PowerShell in argument mode
    cmd(line, allow_vars=())         a line of a .bat file run by cmd.exe, then the program's own
                                     argv split (the Microsoft C runtime's rules)

Each returns a list of tokens: ("word", text) for a literal word, ("op", text) for an operator that
ends or joins commands, ("var", name) for a whole word that is one of `allow_vars` (the scripts'
own $PY, %PY%).  Anything else the shell would act on raises Unsafe naming it.  commands(tokens)
splits the tokens into the argv of each simple command.

Rules modelled (the sources say more than the model needs; where a rule is stricter than the
shell, the model errs towards raising):

POSIX (IEEE Std 1003.1-2017, Shell Command Language, 2.2 Quoting, 2.3 Token Recognition, 2.6 Word
Expansions; bash(1) HISTORY EXPANSION):
  - outside quotes, blank separates words; `;` `&` `|` `&&` `||` newline end a command; `<` `>` `(`
    `)` are redirections / subshells: raised;
  - `'...'` is literal; `"..."` is literal but for `$`, backtick and `\\` before `$` `` ` `` `"` `\\`
    newline; `!` starts history expansion (interactive bash, also inside double quotes);
  - outside quotes `\\` quotes the next character; `$`, backtick, `*` `?` `[` (globs), `{` (brace
    expansion), `~` at the start of a word (tilde expansion) and `#` at the start of a word (a
    comment) all act; the first word of a command that looks like NAME=... is an assignment, and
    a reserved word (if, !, {, ...) there is syntax.

PowerShell (Microsoft Learn: about_Quoting_Rules, about_Parsing, about_Special_Characters):
  - `'...'` verbatim, `''` inside is one quote; the curly quotes ‘ ’ ‚ ‛ are single quotes too;
  - `"..."` (and “ ” „) expands `$` and the backtick escape: raised when present;
  - unquoted, `$` `@` `(` `)` `{` `}` `,` `;` `|` `&` `<` `>` and the backtick act, `#` at the start of
    a token is a comment, `--%` stops parsing; `&` alone as the first token is the call operator;
  - a token starting with `-` and holding `.` `:` or `=` may be split by Windows PowerShell 5.1: raised.

cmd (`cmd /?`, `set /?` "set "var=value"", and Microsoft's "Parsing C command-line arguments"):
  - in a .bat file `%%` is one `%`; `%NAME%` expands: raised unless NAME is allowed;
  - `"` toggles quoting; outside quotes `&` `|` `<` `>` `(` `)` `^` act: raised (`&&`/`||` are ops);
  - the program then splits its command line: blanks separate arguments outside quotes, `"` toggles
    quoting, `""` inside quotes is a literal quote, 2n backslashes before a quote are n backslashes
    (and the quote acts), 2n+1 are n and a literal quote.
"""

from __future__ import annotations

import re

from torch_envcheck._util.escape import SECTION


class Unsafe(ValueError):
    """The shell would do something with this line besides passing literal words."""


_POSIX_RESERVED = {"!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then",
                   "until", "while", "function", "select", "time", "[[", "]]", "coproc"}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def posix(line: str, allow_vars=(), allow_tilde=()) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(line)
    word: list[str] | None = None
    literal_only = True          # the word so far is unquoted letters only (for NAME= and reserved words)
    at_command_start = True

    def end_word():
        nonlocal word, at_command_start, literal_only
        if word is None:
            return
        text = "".join(word)
        if at_command_start and literal_only and (text in _POSIX_RESERVED or _ASSIGNMENT.match(text)):
            raise Unsafe(f"first word {text!r} is a reserved word or an assignment")
        tokens.append(("word", text))
        word, literal_only, at_command_start = None, True, False

    while i < n:
        c = line[i]
        if c in " \t":
            end_word()
            i += 1
            continue
        if c in ";&|\n":
            end_word()
            op = line[i:i + 2] if line[i:i + 2] in ("&&", "||") else c
            if op == "&":
                raise Unsafe("a lone & runs the command in the background")
            tokens.append(("op", op))
            at_command_start = True
            i += len(op)
            continue
        if c in "<>()":
            raise Unsafe(f"unquoted {c!r} (redirection or subshell)")
        if c == "#" and word is None:
            break  # a comment to the end of the line
        if word is None:
            word = []
            # a whole-word variable of our own scripts: "$PY"
            m = re.match(r'"\$([A-Za-z_][A-Za-z0-9_]*)"(?=[ \t;&|\n]|$)', line[i:])
            if m and m.group(1) in allow_vars:
                tokens.append(("var", m.group(1)))
                word, at_command_start = None, False
                i += m.end()
                continue
            if c == "~":
                rest = re.match(r"[^ \t;&|\n]*", line[i:]).group(0)
                if not any(rest.startswith(t) for t in allow_tilde):
                    raise Unsafe(f"unquoted ~ at the start of {rest!r} (tilde expansion)")
        if c == "'":
            j = line.find("'", i + 1)
            if j < 0:
                raise Unsafe("unterminated single quote")
            word.append(line[i + 1:j])
            literal_only = False
            i = j + 1
            continue
        if c == '"':
            i += 1
            literal_only = False
            while True:
                if i >= n:
                    raise Unsafe("unterminated double quote")
                d = line[i]
                if d == '"':
                    i += 1
                    break
                if d in "$`":
                    raise Unsafe(f"{d!r} inside double quotes expands")
                if d == "!":
                    raise Unsafe("'!' inside double quotes is history expansion in an interactive bash")
                if d == "\\" and i + 1 < n and line[i + 1] in '$`"\\\n':
                    word.append(line[i + 1])
                    i += 2
                    continue
                word.append(d)
                i += 1
            continue
        if c == "\\":
            if i + 1 >= n:
                raise Unsafe("a trailing backslash continues the line")
            word.append(line[i + 1])
            literal_only = False
            i += 2
            continue
        if c in "$`":
            raise Unsafe(f"unquoted {c!r} expands")
        if c in "*?[":
            raise Unsafe(f"unquoted {c!r} is a glob")
        if c == "{":
            raise Unsafe("unquoted '{' (brace expansion)")
        if c == "!":
            raise Unsafe("unquoted '!' (history expansion, or negation as a first word)")
        word.append(c)
        i += 1
    end_word()
    return tokens


_PS_SQ = "'\u2018\u2019\u201a\u201b"
_PS_DQ = '"\u201c\u201d\u201e'


def powershell(line: str, allow_vars=()) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(line)
    first = True
    while i < n:
        c = line[i]
        if c in " \t":
            i += 1
            continue
        if c == ";":
            tokens.append(("op", ";"))
            first = True
            i += 1
            continue
        if c == "#":
            break  # a comment
        if c == "&" and first and i + 1 < n and line[i + 1] == " ":
            tokens.append(("op", "&"))  # the call operator
            i += 1
            continue
        if c == "$":
            m = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)(?=[ \t;]|$)", line[i:])
            if m and m.group(1) in allow_vars:
                tokens.append(("var", m.group(1)))
                first = False
                i += m.end()
                continue
            raise Unsafe("unquoted $ expands")
        # one token: quoted parts and bare parts glued together
        parts: list[str] = []
        start = i
        while i < n and line[i] not in " \t;":
            c = line[i]
            if c in _PS_SQ:
                i += 1
                buf = []
                while True:
                    if i >= n:
                        raise Unsafe("unterminated single-quoted string")
                    if line[i] in _PS_SQ:
                        if i + 1 < n and line[i + 1] in _PS_SQ:
                            buf.append(line[i + 1])
                            i += 2
                            continue
                        i += 1
                        break
                    buf.append(line[i])
                    i += 1
                parts.append("".join(buf))
                continue
            if c in _PS_DQ:
                j = i + 1
                while j < n and line[j] not in _PS_DQ:
                    if line[j] in "$`":
                        raise Unsafe(f"{line[j]!r} inside a double-quoted string expands")
                    j += 1
                if j >= n:
                    raise Unsafe("unterminated double-quoted string")
                parts.append(line[i + 1:j])
                i = j + 1
                continue
            if c in "$@(){},|&<>`" or (c == "#" and i == start):
                raise Unsafe(f"unquoted {c!r} acts in PowerShell")
            parts.append(c)
            i += 1
        text = "".join(parts)
        raw = line[start:i]
        if raw == "--%":
            raise Unsafe("--% stops PowerShell's parsing")
        if raw.startswith("-") and raw[:1] not in _PS_SQ + _PS_DQ and any(ch in raw for ch in ".:="):
            raise Unsafe(f"option-like {raw!r} may be split by Windows PowerShell")
        tokens.append(("word", text))
        first = False
    return tokens


def _crt_split(line: str) -> list[str]:
    """The Microsoft C runtime's argv split of a command line (post-2008 rules)."""
    args, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            return args
        buf, quoted = [], False
        while i < n and (quoted or line[i] not in " \t"):
            if line[i] == "\\":
                j = i
                while j < n and line[j] == "\\":
                    j += 1
                count = j - i
                if j < n and line[j] == '"':
                    buf.append("\\" * (count // 2))
                    if count % 2:
                        buf.append('"')
                        i = j + 1
                    else:
                        i = j  # the quote acts below
                    continue
                buf.append("\\" * count)
                i = j
                continue
            if line[i] == '"':
                if quoted and i + 1 < n and line[i + 1] == '"':
                    buf.append('"')  # "" inside quotes: a literal quote
                    i += 2
                    continue
                quoted = not quoted
                i += 1
                continue
            buf.append(line[i])
            i += 1
        args.append("".join(buf))


def cmd(line: str, allow_vars=()) -> list[tuple[str, str]]:
    # phase 1: percent expansion of a batch file
    out, i, n = [], 0, len(line)
    while i < n:
        if line[i] == "%":
            if line[i + 1:i + 2] == "%":
                out.append("%")
                i += 2
                continue
            m = re.match(r"%([A-Za-z_][A-Za-z0-9_]*)%", line[i:])
            if m and m.group(1) in allow_vars:
                out.append("\x00" + m.group(1) + "\x00")  # a placeholder for the variable
                i += m.end()
                continue
            raise Unsafe("a % that is not %% expands in a batch file")
        out.append(line[i])
        i += 1
    text = "".join(out)
    # phase 2: special characters outside quotes; && / || split commands
    tokens: list[tuple[str, str]] = []
    quoted, start, i, n = False, 0, 0, len(text)
    segments = []
    while i < n:
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif not quoted:
            if text[i:i + 2] in ("&&", "||"):
                segments.append((text[start:i], text[i:i + 2]))
                i += 2
                start = i
                continue
            if c in "&|<>()^":
                raise Unsafe(f"unquoted {c!r} acts in cmd")
        i += 1
    segments.append((text[start:], None))
    for seg, op in segments:
        for arg in _crt_split(seg):
            m = re.fullmatch("\x00([A-Za-z0-9_]+)\x00", arg.strip('"'))
            tokens.append(("var", m.group(1)) if m else ("word", arg))
        if op:
            tokens.append(("op", op))
    return tokens


def commands(tokens) -> list[list[tuple[str, str]]]:
    """The tokens split into simple commands at the operators (a leading PowerShell `&` dropped)."""
    out, cur = [], []
    for kind, text in tokens:
        if kind == "op" and text != "&":
            if cur:
                out.append(cur)
            cur = []
        elif kind == "op":
            continue
        else:
            cur.append((kind, text))
    if cur:
        out.append(cur)
    return out


def argvs(tokens) -> list[list[str]]:
    """Each simple command's words (a variable shown as $NAME)."""
    return [[text if kind == "word" else f"${text}" for kind, text in c] for c in commands(tokens)]


MODELS = {"posix": posix, "powershell": powershell, "cmd": cmd}


def sections(text: str) -> list[tuple[str | None, str]]:
    """(shell, line) for each line of a fix written for either Windows shell, comments left out: shell
    is "powershell" or "cmd" under that shell's section comment (escape.SECTION), None for a line both
    shells read.  Any other comment ends a section."""
    out, current = [], None
    for line in text.splitlines():
        if line.strip() == SECTION["powershell"]:
            current = "powershell"
        elif line.strip() == SECTION["cmd"]:
            current = "cmd"
        elif line.lstrip().startswith("#"):
            current = None
        else:
            out.append((current, line))
    return out
