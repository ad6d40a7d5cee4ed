"""Find the catalogue's signatures in an error text.

The text is a stranger's log: it is cleaned (ANSI colour codes and carriage-return progress bars
removed) and only its last MAX_SCAN characters are searched, where a traceback ends.  Every pattern
is compiled once and has no nested quantifiers (a test checks), so a search is linear in the text.

    find(text) -> list[Match]   every signature found, best first
    best(text) -> Match | None

Best: the highest catalogue priority (the most specific message: "sm_120 is not compatible" before
the "no kernel image" it causes), then the one nearest the end of the text (the final error)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch_envcheck.explain import catalogue
from torch_envcheck.explain.decode import DECODERS

MAX_SCAN = 1 << 20  # characters searched, from the end of the text
MAX_LINE = 400      # characters of the matched line kept for display

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[A-Za-z]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)")


def clean(text: str) -> str:
    """The last MAX_SCAN characters of `text`, without terminal colour codes, with every line ending a
    newline (a progress bar's carriage returns, Windows' CRLF), without NUL characters, UTF-16 lines whose NULs
    were pasted as spaces joined up again, with percent-encoded spaces (%20) decoded, curly quotes straightened, autolinked names unlinked and Markdown quote
    marks removed."""
    s = text[-(MAX_SCAN + 4096):] if len(text) > MAX_SCAN + 4096 else text
    s = _ANSI.sub("", s).replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if _SPACED_RUN.search(s):
        # a UTF-16 log read as bytes and pasted with its NULs shown as spaces ("2 0 2 3 - 0 7 ... [ E : o n n x"):
        # every second character of such a line is a space, and its own spaces are three
        s = "\n".join(_unspaced(line) for line in s.split("\n"))
    if "%20" in s:
        # a message pasted through a URL (an issue form, a chat link) keeps its spaces percent-encoded
        s = s.replace("%20", " ")
    if "](" in s:
        # a paste rendered by an autolinker keeps a file name as a Markdown link to itself:
        # "[flash_attn_cuda.so](http://flash_attn_cuda.so/)" is the file name
        s = _AUTOLINK.sub(_unlink, s)
    if any(chr(q) in s for q in _CURLY):
        # a paste that went through a word processor or a chat client has its quotes curled: the messages' own are
        # straight ('Error loading "x.dll"', "No module named 'x'")
        s = s.translate(_CURLY)
    if ">" in s:
        # a paste quoted as a Markdown block quote ("> xFormers was built for:"); a REPL's ">>>" stays
        s = _QUOTE.sub("", s)
    return s[-MAX_SCAN:]


_SPACED_RUN = re.compile(r"(?:\S ){12}")


def _unspaced(line: str) -> str:
    """`line` without the space after each of its characters when every second character is one (from its first
    character or its second), else `line` unchanged."""
    for start in (0, 1):
        body = line[start:].rstrip("\n")
        if len(body) >= 24 and body[1::2].count(" ") >= len(body[1::2]) - 1 and body[0::2].strip():
            return body[0::2].rstrip()
    return line


_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'"})
_AUTOLINK = re.compile(r"\[(?P<text>[^\]\n]{1,300})\]\((?P<url>[^)\s]{1,400})\)")
_QUOTE = re.compile(r"(?m)^[ \t]{0,3}>(?!>)[ \t]?")


def _unlink(m: re.Match) -> str:
    """A Markdown link whose target spells its own text (an autolinked name) is that name; any other link keeps
    both, so a URL in it is still read."""
    text, url = m.group("text"), m.group("url")
    return text if text.strip("`") in url else m.group(0)


@dataclass(frozen=True)
class Match:
    signature: "catalogue.Signature"
    start: int
    end: int
    line: str        # the line(s) that matched, at most MAX_LINE characters
    captures: dict   # named group -> text (groups that matched something)
    decoded: dict    # decoded name -> meaning

    @property
    def values(self) -> dict:
        return {**self.captures, **self.decoded}


def _line(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", max(0, start - MAX_LINE), start) + 1
    b = text.find("\n", end, end + MAX_LINE)
    b = len(text) if b < 0 or b > end + MAX_LINE else b
    line = text[max(a, start - MAX_LINE):b].strip()
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 1] + "\u2026"


def last_match(pattern: re.Pattern, text: str) -> re.Match | None:
    """The last match of `pattern` in `text`, or None."""
    last = None
    for last in pattern.finditer(text):  # linear: patterns cannot backtrack catastrophically
        pass
    return last


def _match(sig, text: str) -> Match | None:
    found = None
    for pattern in sig.patterns:
        m = last_match(pattern, text)
        if m is not None and (found is None or m.end() > found.end()):
            found = m
    if found is None:
        return None
    captures = {k: v for k, v in found.groupdict().items() if v}
    decoded = {}
    for group, (name, decoder) in sig.decode.items():
        if group in captures:
            value = DECODERS[decoder](captures[group])
            if value:
                decoded[name] = value
    return Match(sig, found.start(), found.end(), _line(text, found.start(), found.end()), captures, decoded)


def find(text: str, cleaned: bool = False) -> list:
    """Every catalogue signature found in `text`, best first."""
    s = text if cleaned else clean(text or "")
    found = [m for m in (_match(sig, s) for sig in catalogue.signatures()) if m is not None]
    found.sort(key=lambda m: (m.signature.priority, m.end), reverse=True)
    return found


def best(text: str) -> Match | None:
    found = find(text)
    return found[0] if found else None
