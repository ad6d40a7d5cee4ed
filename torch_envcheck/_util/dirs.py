"""Creating a folder and its missing parents without recursion: os.makedirs calls itself once per
missing level, so a path from a stranger (an environment variable naming a cache folder thousands
of levels deep) ends in a RecursionError instead of an OSError the callers report in one line."""

from __future__ import annotations

import errno
import os

MAX_PATH = 1 << 16


def _path_max() -> int:
    try:
        return min(MAX_PATH, os.pathconf("/", "PC_PATH_MAX") - 1)
    except (AttributeError, OSError, ValueError):
        return MAX_PATH  # Windows: the OS says when it is too long


def make_dirs(path: str, mode: int = 0o777) -> None:
    """os.makedirs(path, mode, exist_ok=True), iteratively; raises OSError only."""
    path = os.path.abspath(path)
    if len(path) > _path_max():  # said before anything is made: no half-made tree is left behind
        raise OSError(errno.ENAMETOOLONG, "the folder's path is too long", path[:200] + "...")
    missing = []
    p = path
    while not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for d in reversed(missing):
        try:
            os.mkdir(d, mode)
        except FileExistsError:
            if not os.path.isdir(d):
                raise
