"""Every pattern of the explain catalogue, whatever the catalogue holds when the test runs, timed on
adversarial input built from its own structure: long runs of each character it accepts, its own
near-match cut short and repeated, and a near-match prefix followed by a long run (what makes
chained overlapping bounded quantifiers slow).  No pattern may grow faster than linearly with its input,
nor come near a second per MiB.

A cheap screen first (16 KiB each); any input that looks slow there (over 0.1 s of CPU per MiB, scaled)
is measured again on 256 KiB and on a full MiB, side by side: 4x the input may take at most 8x the time
(a quadratic pattern takes 16x), so the speed and the load of the machine cancel out; and the MiB may take
at most LIMIT_S_PER_MIB, a backstop ten times the worst linear pattern measured, far below what a
backtracking pattern takes.  CPU time (process_time), the best of a few runs: the machine may be shared.
The absolute figures are benchmarks/explain_speed.py's to print."""

from __future__ import annotations

import time

import pytest

from torch_envcheck.explain import catalogue, match

try:  # Python 3.11+
    from re import _constants as sre_c
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants as sre_c
    import sre_parse

SCREEN_S_PER_MIB = 0.1   # what sends an input from the screen to the side-by-side measurement
LIMIT_S_PER_MIB = 1.0    # the backstop: the worst linear pattern measured took about 0.1 s per MiB
SCREEN = 16 << 10
QUARTER = 1 << 18
MIB = 1 << 20
POOL = "aZ1 .:_-/\\()[]'\"=,;\t\n+x0e9A#%@" + "\u00e9\u2026"
PATTERNS = [(sig.id, i, p) for sig in catalogue.signatures() for i, p in enumerate(sig.patterns)]


def _category(cat, ch: str) -> bool:
    name = str(cat).lower()
    test = {"digit": ch.isdigit(), "space": ch.isspace(), "word": ch.isalnum() or ch == "_",
            "linebreak": ch == "\n"}
    for key, value in test.items():
        if name.endswith("not_" + key):
            return not value
        if name.endswith(key):
            return value
    return False


def _in_set(items, ch: str) -> bool:
    negate, hit = False, False
    for op, av in items:
        if op is sre_c.NEGATE:
            negate = True
        elif op in (sre_c.LITERAL,):
            hit |= ord(ch) == av
        elif op is sre_c.RANGE:
            hit |= av[0] <= ord(ch) <= av[1]
        elif op is sre_c.CATEGORY:
            hit |= _category(av, ch)
        else:  # case-folding variants and the like: compare with a one-character match
            hit |= ch.isalnum()
    return hit != negate


def _accepts(op, av, ch: str) -> bool:
    if op is sre_c.LITERAL:
        return ord(ch) == av
    if op is sre_c.NOT_LITERAL:
        return ord(ch) != av
    if op is sre_c.ANY:
        return ch != "\n"
    if op is sre_c.IN:
        return _in_set(av, ch)
    if op is sre_c.CATEGORY:
        return _category(av, ch)
    return False


SINGLE = {sre_c.LITERAL, sre_c.NOT_LITERAL, sre_c.ANY, sre_c.IN, sre_c.CATEGORY}


def _walk(tree, reps: list) -> str:
    """A typical match (each repeat taken a few times) and, in `reps`, one accepted character for
    every single-character item of the pattern."""
    out = []
    for op, av in tree:
        if op in SINGLE:
            ch = next((c for c in POOL if _accepts(op, av, c)), None)
            if ch is None:
                ch = chr(av) if op is sre_c.LITERAL else "a"
            reps.append(ch)
            out.append(ch)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            body = _walk(sub, reps)
            out.append(body * max(1, min(lo if lo else 2, 4)))
        elif op is sre_c.SUBPATTERN:
            out.append(_walk(av[-1], reps))
        elif op is sre_c.BRANCH:
            alts = [_walk(alt, reps) for alt in av[1]]
            out.append(alts[0])
        elif op in (sre_c.ATOMIC_GROUP,) if hasattr(sre_c, "ATOMIC_GROUP") else ():
            out.append(_walk(av, reps))
    return "".join(out)


def _bounds(tree, out: set) -> set:
    for op, av in tree:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            if av[1] is not sre_c.MAXREPEAT:
                out.add(av[1])
            _bounds(av[2], out)
        elif op is sre_c.SUBPATTERN:
            _bounds(av[-1], out)
        elif op is sre_c.BRANCH:
            for alt in av[1]:
                _bounds(alt, out)
    return out


def adversarial(pattern, size: int) -> list[tuple[str, str]]:
    """(what, text) pairs of `size` characters each, built from the pattern's structure."""
    reps: list = []
    tree = sre_parse.parse(pattern.pattern, pattern.flags)
    typical = _walk(tree, reps)
    block = max(_bounds(tree, set()) or {8}) + 1  # a run just longer than the largest bound
    chars = list(dict.fromkeys(reps))
    texts = {}
    for c in chars[:12]:
        texts[f"run of {c!r}"] = c * size
    for a, b in list(zip(chars, chars[1:]))[:6]:
        texts[f"alternating {a!r}{b!r}"] = (a + b) * (size // 2)
    if typical:
        n = len(typical)
        for k in sorted({max(1, n - 1), max(1, n * 3 // 4), max(1, n // 2), max(1, n // 4)}):
            part = typical[:k]
            texts[f"near-match cut at {k}, repeated"] = (part * (size // k + 1))[:size]
            for c in chars[:4]:
                texts[f"near-match cut at {k} + run of {c!r}"] = part + c * (size - k)
                unit = part + c * block
                texts[f"near-match cut at {k} + {block} x {c!r}, repeated"] = (unit * (size // len(unit) + 1))[:size]
    return list(texts.items())


def _cpu(pattern, text: str, runs: int = 1) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        match.last_match(pattern, text)
        best = min(best, time.process_time() - t0)
    return best


def test_the_catalogue_has_patterns_to_time():
    assert len(PATTERNS) >= len(catalogue.signatures()) > 0


def too_slow(pattern, screen: int = SCREEN, quarter: int = QUARTER, full: int = MIB) -> list[str]:
    """What is wrong with a pattern's speed on its adversarial inputs (nothing: []): the first input of
    `full` characters found to take over 8x the time of one of `quarter`, or over LIMIT_S_PER_MIB per MiB."""
    slow = []
    for what, text in adversarial(pattern, screen):
        if _cpu(pattern, text) * (MIB / screen) <= SCREEN_S_PER_MIB:
            continue
        # looks slow on the screen: a quarter and a whole of the same input, side by side (the best of three runs)
        a = _cpu(pattern, adversarial_text(pattern, what, quarter), runs=3)
        b = _cpu(pattern, adversarial_text(pattern, what, full), runs=3)
        if b > max(8 * a, 0.02 * full / MIB):
            slow.append(f"{what}: {a:.3f} s for {quarter >> 10} KiB, {b:.3f} s for {full >> 10} KiB (superlinear)")
        elif b * (MIB / full) > LIMIT_S_PER_MIB:
            slow.append(f"{what}: {b * (MIB / full):.2f} s per MiB")
        if slow:
            break
    return slow


@pytest.mark.parametrize("sid,index,pattern", PATTERNS, ids=[f"{s}[{i}]" for s, i, _ in PATTERNS])
def test_no_pattern_grows_faster_than_its_input(sid, index, pattern):
    slow = too_slow(pattern)
    assert not slow, f"{sid} pattern {index} ({pattern.pattern[:120]}): " + slow[0]


def test_a_quadratic_pattern_is_caught():
    # each start in a run of spaces scans to the run's end: 4x the input, 16x the time (small sizes: the
    # check itself is what is tested, not a MiB of quadratic work)
    import re
    planted = re.compile(r"\s*x(?=\d)")
    assert too_slow(planted, screen=1 << 10, quarter=4 << 10, full=16 << 10)
    assert not too_slow(re.compile(r"x(?=\d)"), screen=1 << 10, quarter=4 << 10, full=16 << 10)


def adversarial_text(pattern, what: str, size: int = MIB) -> str:
    return dict(adversarial(pattern, size))[what]
