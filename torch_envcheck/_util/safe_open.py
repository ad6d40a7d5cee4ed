"""Reading a file whose path a stranger may control, without ever blocking on it: regular files only,
opened without waiting, read up to a bound.

A plain open() of a FIFO waits for a writer, forever; a character device (/dev/zero, a terminal)
never ends; a socket or a directory is no file at all.  Any of them can sit where the doctor expects
a dist-info's METADATA, a conda-meta record or a requirements file.  So every such read goes
through here:

    os.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)   a FIFO opens at once instead of waiting
    os.fstat(fd)                                      what was opened, not what the path named before
    anything but a regular file is refused            NotRegularFile, nothing read
    at most `limit` bytes are read                    FileTooLarge, or the head / the tail kept

Both errors are OSErrors whose text is one line ("not a regular file (a FIFO); not read"), so the
callers' existing `except OSError` turns them into facts.  (Explain reads logs from pipes on
purpose; it has its own reader, explain/textin.py.)
"""

from __future__ import annotations

import os
import stat

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class UnsafeFile(OSError):
    """A file that was not read; str() is the reason alone (the caller names the path)."""

    def __init__(self, path: str, text: str):
        super().__init__(text)
        self.strerror, self.filename = text, path

    def __str__(self) -> str:
        return self.strerror


class NotRegularFile(UnsafeFile):
    pass


class FileTooLarge(UnsafeFile):
    pass


def kind(mode: int) -> str:
    """'a FIFO', 'a directory', ... for an st_mode that is not a regular file."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_fd(path: str) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file `path`, opened without waiting, and its stat; raises
    NotRegularFile (closing what it opened) for anything else, OSError when it cannot be opened."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, f"{kind(st.st_mode)}, not a regular file; not read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file never blocks; plain reads from here on
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_binary(path: str):
    """The regular file `path` as a binary file object (buffered); NotRegularFile otherwise."""
    fd, _st = open_fd(path)
    return os.fdopen(fd, "rb")


def read_bytes(path: str, limit: int, overflow: str = "error") -> bytes:
    """At most `limit` bytes of the regular file `path`.  A larger file: overflow="error" raises
    FileTooLarge, "head" returns its first `limit` bytes, "tail" its last `limit` bytes."""
    fd, st = open_fd(path)
    try:
        if st.st_size > limit:
            if overflow == "error":
                raise FileTooLarge(path, f"larger than {limit} bytes ({st.st_size}); not read")
            if overflow == "tail":
                os.lseek(fd, st.st_size - limit, os.SEEK_SET)
        chunks, left = [], limit + 1
        while left > 0:  # a file that grows while read is still cut at the bound
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        if overflow == "error":
            raise FileTooLarge(path, f"larger than {limit} bytes; not read")
        data = data[:limit]
    return data


def read_text(path: str, limit: int, overflow: str = "error", encoding: str = "utf-8",
              errors: str = "replace") -> str:
    """read_bytes() decoded (undecodable bytes replaced by default)."""
    return read_bytes(path, limit, overflow).decode(encoding, errors)


def is_regular(path: str) -> bool:
    """Whether `path` (symlinks followed) is a regular file; never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
