"""One report's reading of a snapshot, kept: inside `reading()`, an accessor marked `@per_report`
returns what it returned before for the same snapshot object and arguments (a list as a new list of
the same frozen records), instead of reading the recorded lists again (a report asks for the conda
packages of one snapshot dozens of times, once per rule and per advice route).  Outside a reading
nothing is kept, so a snapshot changed between two reports is read anew.  The rules are pure and never change the snapshot they read, which is what
makes a kept answer right within one report."""

from __future__ import annotations

import contextlib
import contextvars
import functools

_KEPT: contextvars.ContextVar = contextvars.ContextVar("torch_envcheck_facts_reading", default=None)


@contextlib.contextmanager
def reading():
    """The span of one report (the rules and the fix check): accessors' answers are kept inside it.
    Nested readings share the outer one's answers."""
    if _KEPT.get() is not None:
        yield
        return
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def per_report(fn):
    """Keep `fn(snapshot, *args)`'s answer for the current reading.  The snapshot object is held with
    the answer, so its id cannot be reused by another object while the reading lasts."""
    @functools.wraps(fn)
    def kept(s, *args):
        memo = _KEPT.get()
        if memo is None:
            return fn(s, *args)
        key = (fn, id(s), args)
        try:
            held = memo.get(key)
        except TypeError:  # an argument that cannot be a key: read it anew
            return fn(s, *args)
        if held is None or held[0] is not s:
            held = memo[key] = (s, fn(s, *args))
        # a list is handed out as a copy: a caller that sorts or extends its own cannot change another's
        return list(held[1]) if isinstance(held[1], list) else held[1]
    return kept
