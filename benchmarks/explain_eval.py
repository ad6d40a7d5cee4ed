"""How often `torch-envcheck explain` is right on real error texts it was not written from.

Runs the current explain (in-process, through `torch_envcheck.explain.explain`, without probing this
machine) on every entry of the world corpus (tests/data/explain/world_train.json, world_test.json,
world_test2.json and on, listed in tests/data/explain/splits.json; see docs/explain-corpus.md) and grades four
criteria per text against the entry's `expected`:

  recognised            explain recognised the text as expected
  layer                 the layer it names is the expected one
  environment_problem   it says environment problem / not one, as expected
  fix                   the fix it prints names the expected package / version / flag / action
                        (one of `fix_patterns` matches, case-insensitive); for a text that is not an
                        environment problem, the fix also must not tell to install or reinstall anything

and `right` when all four hold.  Prints per-class and overall accuracy, each split separately.

    python benchmarks/explain_eval.py                    # train and test, table
    python benchmarks/explain_eval.py --split test39     # one split alone (splits.json lists them, in order)
    python benchmarks/explain_eval.py --split dev        # the development data: train and every retired split
    python benchmarks/explain_eval.py --split all        # every split
    python benchmarks/explain_eval.py --split test --json
    python benchmarks/explain_eval.py --split all --wrong     # list the entries it gets wrong
    python benchmarks/explain_eval.py --split test5 --reading # the default answer alone, on every text
    python benchmarks/explain_eval.py --split dev --paths     # how many answers come from a message, a rule, the
                                                              # default answer (reading) or none, and how often right

--reading grades the default answer (torch_envcheck/explain/reading.py: a vote of the layers the text's parts
belong to) on every text as if no rule or sentence had matched: how the fallback transfers, measured on a split it
was not developed on (docs/explain-corpus.md, "Round 4").

Each text is bounded in time (--timeout seconds, default 2; on POSIX through an interval timer); a
text that runs past it counts as wrong on every criterion.  Not shipped in the package: a measuring
tool for the matcher's developers.  A split held out from development (state held-out in splits.json) is
not part of dev, and --wrong does not list its misses."""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = ROOT / "tests" / "data" / "explain"
REGISTRY = CORPUS_DIR / "splits.json"


def _registry(path: Path = REGISTRY) -> list:
    """splits.json's rows ({'split', 'batch', 'state'}), in order."""
    rows = json.loads(path.read_text(encoding="utf-8"))["splits"]
    for r in rows:
        if not re.fullmatch(r"train|test\d{0,3}", r["split"]) or r["state"] not in ("development", "held-out", "retired"):
            raise ValueError(f"{path.name}: bad row {r!r}")
    return rows


_ROWS = _registry()
SPLITS = tuple(r["split"] for r in _ROWS)
# Splits held out from development, whose entries --wrong does not list and dev leaves out.
FROZEN: tuple[str, ...] = tuple(r["split"] for r in _ROWS if r["state"] == "held-out")
# What --split both means (kept as it was before test2 existed), all and dev.
SPLIT_SETS = {"both": ("train", "test"), "all": SPLITS, "dev": tuple(sp for sp in SPLITS if sp not in FROZEN)}
CRITERIA = ("recognised", "layer", "environment_problem", "fix")

# A fix that installs or reinstalls something: never right for a text that is not an environment problem.
REINSTALL = re.compile(
    r"\b(?:pip3?|uv\s+pip|uv|conda|mamba|micromamba|pixi|apt(?:-get)?|dnf|yum|brew)\s+(?:install|add|upgrade)\b"
    r"|\breinstall\b|--force-reinstall|--upgrade\b", re.IGNORECASE)


# "no reinstall", "do not reinstall", "without reinstalling": a negated install is not an instruction.
NEGATION = re.compile(r"\b(?:no|not|don't|never|without|nothing\s+to|no\s+need\s+to|needn't)\W+(?:\w+\W+){0,2}$",
                      re.IGNORECASE)


def tells_to_install(fix: str) -> bool:
    """Whether `fix` tells to install or reinstall something (a negated mention does not count)."""
    return any(not NEGATION.search(fix[max(0, m.start() - 40):m.start()]) for m in REINSTALL.finditer(fix))


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):  # noqa: ARG001
    raise _Timeout()


def load(split: str, corpus_dir: Path = CORPUS_DIR) -> list:
    data = json.loads((corpus_dir / f"world_{split}.json").read_text(encoding="utf-8"))
    return data["entries"]


def fix_ok(expected: dict, fix) -> bool:
    if not isinstance(fix, str) or not fix.strip():
        return False
    patterns = expected.get("fix_patterns") or []
    if expected.get("environment_problem") is False and tells_to_install(fix):
        return False
    if not patterns:
        return expected.get("environment_problem") is False
    return any(re.search(p, fix, re.IGNORECASE) for p in patterns)


def grade(entry: dict, result: dict | None) -> dict:
    """The four criteria and `right` for one entry; result None: explain failed or ran out of time."""
    exp = entry["expected"]
    if result is None:
        marks = {c: False for c in CRITERIA}
    else:
        marks = {
            "recognised": bool(result.get("recognised")) == bool(exp["recognised"]),
            "layer": result.get("layer") == exp["layer"],
            "environment_problem": result.get("environment_problem") == exp["environment_problem"],
            "fix": fix_ok(exp, result.get("fix")),
        }
    marks["right"] = all(marks[c] for c in CRITERIA)
    return marks


def run_one(explain, text: str, timeout: float):
    """(result or None, seconds, error): explain(text) bounded by `timeout` seconds."""
    use_timer = timeout > 0 and hasattr(signal, "setitimer")
    old = signal.signal(signal.SIGALRM, _on_alarm) if use_timer else None
    t0 = time.perf_counter()
    try:
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        result = explain(text)
        error = None
    except _Timeout:
        result, error = None, f"over {timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - a crash is a wrong answer, recorded, not fatal
        result, error = None, f"{type(exc).__name__}: {exc}"
    finally:
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - t0
    if result is not None and timeout > 0 and seconds > timeout:
        result, error = None, f"over {timeout:g} s"
    return result, seconds, error


def _reading_only(text: str) -> dict:
    from torch_envcheck.explain import diagnose, identify  # noqa: PLC0415 - imported only when measuring
    found, ent = identify.read_only(text)
    return diagnose.diagnose(text, found=found, entities=ent)


def evaluate(entries: list, timeout: float = 2.0, reading: bool = False) -> dict:
    from torch_envcheck.explain import explain  # noqa: PLC0415 - imported only when measuring
    if reading:
        explain = _reading_only
    rows = []
    for e in entries:
        result, seconds, error = run_one(explain, e["text"], timeout)
        marks = grade(e, result)
        rows.append({"id": e["id"], "class": e["class"], "source": e["source"], "marks": marks,
                     "expected": {k: e["expected"][k] for k in ("recognised", "layer", "environment_problem", "fix")},
                     "got": None if result is None else {
                         "recognised": result.get("recognised"), "layer": result.get("layer"),
                         "environment_problem": result.get("environment_problem"),
                         "signature": result.get("signature"), "fix": result.get("fix"),
                         "basis": result.get("basis"), "confidence": result.get("confidence")},
                     "seconds": round(seconds, 4), "error": error})
    return {"n": len(rows), "overall": summarise(rows), "classes": {
        c: summarise([r for r in rows if r["class"] == c]) for c in sorted({r["class"] for r in rows})},
        "max_seconds": round(max((r["seconds"] for r in rows), default=0.0), 4), "entries": rows}


def summarise(rows: list) -> dict:
    n = len(rows)
    out = {"n": n}
    for c in (*CRITERIA, "right"):
        k = sum(1 for r in rows if r["marks"][c])
        out[c] = {"count": k, "rate": round(k / n, 4) if n else None}
    return out


def _pct(s: dict, c: str) -> str:
    rate = s[c]["rate"]
    return "   -" if rate is None else f"{100 * rate:5.1f}%"


def paths(report: dict) -> dict:
    """basis -> {"n", "right", and each criterion's count}: how many answers came from a catalogue message, a layer
    rule, the default reading, or none (unrecognised), and how often each was right."""
    out = {}
    for r in report["entries"]:
        basis = (r["got"] or {}).get("basis") or "none"
        d = out.setdefault(basis, {"n": 0, **{c: 0 for c in (*CRITERIA, "right")}})
        d["n"] += 1
        for c in (*CRITERIA, "right"):
            d[c] += bool(r["marks"][c])
    return out


def render_paths(split: str, report: dict) -> str:
    lines = [f"-- {split}: answers by basis --", f"{'basis':<10} {'n':>4} {'right':>6} {'layer':>6} {'env':>6} {'fix':>6}"]
    for basis, d in sorted(paths(report).items()):
        lines.append(f"{basis:<10} {d['n']:>4} {d['right']:>6} {d['layer']:>6} {d['environment_problem']:>6} {d['fix']:>6}")
    return "\n".join(lines)


def render(split: str, report: dict, wrong: bool = False) -> str:
    head = f"{'class':<18} {'n':>4}  {'recog':>6} {'layer':>6} {'env':>6} {'fix':>6} {'RIGHT':>6}"
    lines = [f"== {split}: {report['n']} texts (slowest {report['max_seconds']:.3f} s) ==", head, "-" * len(head)]
    for name, s in report["classes"].items():
        lines.append(f"{name:<18} {s['n']:>4}  " + " ".join(f"{_pct(s, c):>6}" for c in (*CRITERIA, "right")))
    s = report["overall"]
    lines.append("-" * len(head))
    lines.append(f"{'overall':<18} {s['n']:>4}  " + " ".join(f"{_pct(s, c):>6}" for c in (*CRITERIA, "right"))
                 + f"   ({s['right']['count']}/{s['n']} right)")
    if wrong:
        lines.append("")
        for r in report["entries"]:
            if not r["marks"]["right"]:
                got = r["got"] or {}
                bad = ",".join(c for c in CRITERIA if not r["marks"][c])
                lines.append(f"  {r['id']:<36} [{bad}] expected {r['expected']['layer']}/{r['expected']['fix']!r}; "
                             f"got {got.get('layer')}/{got.get('signature')}" + (f" ({r['error']})" if r["error"] else ""))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=(*SPLITS, *SPLIT_SETS), default="both",
                    help="one split (splits.json), both (train and test), dev (train and the retired splits) or all")
    ap.add_argument("--json", action="store_true", help="one JSON object: per split, overall, per class, per entry")
    ap.add_argument("--wrong", action="store_true", help="list the entries that are not right")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds allowed per text (0: unbounded)")
    ap.add_argument("--reading", action="store_true",
                    help="grade the default answer alone (a reading of the text's parts), as if nothing else matched")
    ap.add_argument("--paths", action="store_true",
                    help="also count the answers by basis (message, rule, reading, none) and how often each is right")
    ap.add_argument("--corpus-dir", type=Path, default=CORPUS_DIR)
    args = ap.parse_args(argv)
    splits = SPLIT_SETS.get(args.split, (args.split,))
    reports = {}
    for sp in splits:
        try:
            entries = load(sp, args.corpus_dir)
        except (OSError, ValueError, KeyError) as exc:
            print(f"explain_eval: cannot read the {sp} split in {args.corpus_dir}: {exc}", file=sys.stderr)
            return 2
        reports[sp] = evaluate(entries, args.timeout, reading=args.reading)
    if args.json:
        print(json.dumps({"schema": "torch_envcheck.explain_eval/1", "splits": reports}, indent=1, ensure_ascii=False))
    else:
        print("\n\n".join(render(sp, rep, args.wrong and sp not in FROZEN) +
                            ("\n" + render_paths(sp, rep) if args.paths else "") for sp, rep in reports.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
