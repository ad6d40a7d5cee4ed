"""Reading the error text to explain: an argument, a file or standard input, bounded.

A log can be huge (a 1 GB training log) and its error sits at its end: a regular file is read
from its last TAIL_BYTES; a pipe is read through, keeping only its last TAIL_BYTES, for at most
STREAM_LIMIT bytes.  Only regular files and pipes are read (never a terminal or a device, which
could block or never end); a FIFO is opened without waiting for a writer.  Text is decoded as
UTF-8 or, after a byte-order mark, UTF-16/32 (PowerShell's `>` writes UTF-16); undecodable bytes
become U+FFFD.  A Jupyter notebook (.ipynb) contributes its cells' outputs.

    read_path(path) -> Input      ("-" reads standard input)
    from_text(text) -> Input
Errors are InputError with one line naming the problem."""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass

TAIL_BYTES = 1 << 20
STREAM_LIMIT = 2 << 30
CHUNK = 1 << 20
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


class InputError(ValueError):
    """The input cannot be read; the message is one line."""


@dataclass(frozen=True)
class Input:
    text: str
    source: str          # "argument", "stdin" or the file name
    bytes_read: int
    total_bytes: int     # as far as known (a pipe: what was read through)
    truncated: bool      # only the end of the input was kept

    def describe(self) -> dict:
        return {"source": self.source, "bytes_read": self.bytes_read, "total_bytes": self.total_bytes,
                "truncated": self.truncated}


def _encoding(head: bytes) -> tuple:
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc, len(bom)
    return "utf-8", 0


def _decode(raw: bytes, encoding: str) -> str:
    return raw.decode(encoding.replace("-sig", ""), errors="replace")


def _stream(fd: int, source: str) -> Input:
    tail = bytearray()
    head = b""
    total = 0
    while total < STREAM_LIMIT:
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:  # an O_NONBLOCK FIFO whose writer has not written yet
            import select  # noqa: PLC0415
            select.select([fd], [], [], 1.0)
            continue
        except OSError as exc:
            raise InputError(f"{source}: cannot read it: {exc.strerror or exc}") from None
        if not chunk:
            break
        if total < 4:
            head = (head + chunk)[:4]
        total += len(chunk)
        tail += chunk
        if len(tail) > TAIL_BYTES:
            del tail[:len(tail) - TAIL_BYTES]
    encoding, skip = _encoding(head)
    raw = bytes(tail)
    if total <= len(tail):
        raw = raw[skip:]
    elif encoding.startswith("utf-16") and (total - len(tail)) % 2:
        raw = raw[1:]  # keep UTF-16 code units aligned after cutting the front
    truncated = total > len(tail) or total >= STREAM_LIMIT
    return Input(_decode(raw, encoding), source, len(tail), total, truncated)


def _regular(fd: int, size: int, source: str) -> Input:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        head = os.read(fd, 4)
        encoding, skip = _encoding(head)
        start = max(skip, size - TAIL_BYTES)
        if encoding.startswith("utf-16") and (start - skip) % 2:
            start += 1
        elif encoding.startswith("utf-32") and (start - skip) % 4:
            start += 4 - (start - skip) % 4
        os.lseek(fd, start, os.SEEK_SET)
        parts, want = [], size - start
        while want > 0:
            chunk = os.read(fd, min(CHUNK, want))
            if not chunk:
                break
            parts.append(chunk)
            want -= len(chunk)
    except OSError as exc:
        raise InputError(f"{source}: cannot read it: {exc.strerror or exc}") from None
    raw = b"".join(parts)
    return Input(_decode(raw, encoding), source, len(raw), size, start > skip)


def _from_fd(fd: int, source: str) -> Input:
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode):
        return _regular(fd, st.st_size, source)
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        return _stream(fd, source)
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{source}: is a directory; expected a log or a text file")
    raise InputError(f"{source}: not a regular file or a pipe (a terminal or a device is never read)")


def read_path(path: str) -> Input:
    """The text of file `path`, or of standard input for "-", bounded (see the module docstring)."""
    if not isinstance(path, str) or not path:
        raise InputError("--file needs a file name (or '-' for standard input)")
    if path == "-":
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):
            raise InputError("-: standard input is closed; pipe the error into it or give --file") from None
        if os.isatty(fd):
            raise InputError("-: standard input is a terminal; pipe the error into it, e.g. `python train.py 2>&1 | torch-envcheck explain`")
        return notebook_outputs(_from_fd(fd, "stdin"))
    nonblock = getattr(os, "O_NONBLOCK", 0)  # POSIX: opening a FIFO must not wait for a writer
    try:
        fd = os.open(path, os.O_RDONLY | nonblock | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot open it: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if nonblock and stat.S_ISREG(st.st_mode):
            os.set_blocking(fd, True)
        result = _from_fd(fd, path)
    finally:
        os.close(fd)
    return notebook_outputs(result, path.lower().endswith(".ipynb"))


def clean_text(text: str) -> str:
    """`text` with every lone surrogate (an undecodable byte of argv or a file name, which Python
    carries as one) made U+FFFD: it can then always be written as UTF-8, to a terminal or a JSON."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace") \
        .encode("utf-8", errors="replace").decode("utf-8")


def from_text(text: str) -> Input:
    text = clean_text(text)
    data = text.encode("utf-8", errors="replace")
    if len(data) > TAIL_BYTES:
        return Input(data[-TAIL_BYTES:].decode("utf-8", errors="replace"), "argument", TAIL_BYTES, len(data), True)
    return Input(text, "argument", len(data), len(data), False)


def _joined(value) -> str:
    """A notebook's multiline string: a str, or a list of str (anything else in it is skipped: the
    file is a stranger's)."""
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _output_text(out: dict) -> str:
    kind = out.get("output_type")
    if kind == "error":
        tb = out.get("traceback")
        tb = "\n".join(t for t in tb if isinstance(t, str)) if isinstance(tb, list) else ""
        return f"{tb}\n{_joined(out.get('ename'))}: {_joined(out.get('evalue'))}"
    if kind == "stream":
        return _joined(out.get("text"))
    data = out.get("data") if isinstance(out.get("data"), dict) else {}
    return _joined(data.get("text/plain"))


def notebook_outputs(inp: Input, is_notebook: bool = False) -> Input:
    """For a whole Jupyter notebook (JSON with "cells"), the text of its cells' outputs instead of
    the JSON (where every newline is an escape); anything else unchanged."""
    head = inp.text.lstrip()[:4096]
    if inp.truncated or not head.startswith("{") or not (is_notebook or '"cells"' in head or '"nbformat"' in inp.text[-4096:]):
        return inp
    try:
        nb = json.loads(inp.text)
    except (ValueError, RecursionError):
        return inp
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return inp
    texts = []
    for cell in cells:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for out in outputs if isinstance(outputs, list) else ():
            if isinstance(out, dict):
                texts.append(_output_text(out))
    return Input("\n".join(texts), inp.source, inp.bytes_read, inp.total_bytes, inp.truncated)
