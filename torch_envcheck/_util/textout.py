"""Writing text to a stream whose encoding may not hold it: a redirected stdout on Windows is cp1252,
`LC_ALL=C` with Python's UTF-8 mode and locale coercion off is ASCII.  The reports use a few
symbols (✅ ⚠️ ❌ in Markdown, ✓ ✗ • → in text); where the stream cannot encode the text, those
become ASCII as the terminal renderer's marks do ([ok], [!], [x], +, x, -, ->), and any other
character it lacks is written as a backslash escape, never an exception.

    for_stream(text, stream) -> text the stream can encode
    write(text, stream=None)  stream.write(for_stream(text, stream)); default sys.stdout
    harden(stream)            make a text stream escape what it cannot encode (errors="backslashreplace")
"""

from __future__ import annotations

import sys

# Longest first: "⚠️" is U+26A0 followed by the emoji variation selector U+FE0F.
ASCII_FALLBACK = (("⚠️", "[!]"), ("✅", "[ok]"), ("❌", "[x]"), ("⚠", "[!]"), ("✓", "+"), ("✗", "x"),
                  ("•", "-"), ("→", "->"), ("←", "<-"), ("—", "--"), ("–", "-"), ("…", "..."), ("≥", ">="),
                  ("≤", "<="), ("×", "x"), ("\ufe0f", ""))


def encoding_of(stream) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def can_encode(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def for_encoding(text: str, encoding: str) -> str:
    """`text` as `encoding` can hold it: unchanged when it can, else the report symbols in ASCII and
    anything else still missing as a backslash escape."""
    if can_encode(text, encoding):
        return text
    for symbol, ascii_form in ASCII_FALLBACK:
        if symbol in text and not can_encode(symbol, encoding):
            text = text.replace(symbol, ascii_form)
    try:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # an encoding Python does not know: ASCII is in every one
        return text.encode("ascii", "backslashreplace").decode("ascii")


def for_stream(text: str, stream) -> str:
    return for_encoding(text, encoding_of(stream))


def write(text: str, stream=None) -> None:
    stream = sys.stdout if stream is None else stream
    stream.write(for_stream(text, stream))


def harden(stream) -> None:
    """Let `stream` (sys.stdout, sys.stderr) write what its encoding lacks as escapes instead of
    raising UnicodeEncodeError mid-report; a stream that cannot be reconfigured is left alone."""
    reconfigure = getattr(stream, "reconfigure", None)
    # strict, or surrogateescape (Python's choice for a C/POSIX locale), raise on a character the
    # encoding lacks; a stream already set to escape or replace is left as it is
    if reconfigure is None or getattr(stream, "errors", None) not in ("strict", "surrogateescape", None):
        return
    try:
        if not can_encode("✓✅…", encoding_of(stream)):
            reconfigure(errors="backslashreplace")
    except (ValueError, OSError, AttributeError):
        pass
