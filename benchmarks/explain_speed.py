"""How long `explain` takes on 1 MiB of text (not shipped): every pattern of the extractor and of the catalogue on
adversarial input (seconds per MiB), and whole diagnoses of 1 MiB logs, measured side by side in one run.

    python benchmarks/explain_speed.py            # the slowest patterns and the whole-text figures
    python benchmarks/explain_speed.py --all      # every pattern

Targets: a diagnosis of 1 MiB well under 1 s; each pattern under 0.1 s per MiB of adversarial input.  Figures
depend on the machine and its load: quote them with the machine they were measured on."""

from __future__ import annotations

import argparse
import random
import re
import sys
import time

from torch_envcheck.explain import catalogue, diagnose, extract

MIB = 1 << 20


def _best(fn, reps=3) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def adversarial(pattern: re.Pattern) -> list:
    lit = re.match(r"[A-Za-z0-9 _:'\"=.\-\[\]]{3,30}", re.sub(r"\\(.)", r"\1", pattern.pattern))
    seed = lit.group(0) if lit else "a"
    return ["a" * MIB, (seed * (MIB // len(seed) + 1))[:MIB]]


def log_text(seed: int = 1) -> str:
    random.seed(seed)
    lines = ["epoch 12 | loss 0.1234 | lr 3e-4 | step 1234/5000 | 12.3 it/s",
             '  File "/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl',
             "INFO: Loaded libcudart.so.12 from /usr/local/cuda/lib64; NVIDIA A100 sm_80 torch==2.1.0+cu121",
             "WARNING: some warning text here Error: nothing", "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-xx)"]
    body = "\n".join(random.choice(lines) for _ in range(MIB // 50))
    return body[:MIB - 100] + "\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args(argv)
    pats = [(n, p) for n, p in vars(extract).items() if isinstance(p, re.Pattern)]
    pats += [(f"{s.id}#{i}", p) for s in catalogue.signatures() for i, p in enumerate(s.patterns)]
    rows = []
    for name, p in pats:
        worst = max(_best(lambda t=t: sum(1 for _ in p.finditer(t))) for t in adversarial(p))
        rows.append((worst, name))
    rows.sort(reverse=True)
    print(f"patterns: {len(rows)}; seconds per MiB of adversarial input (the worst of 'a'*N and the pattern's own "
          "start repeated):")
    for worst, name in rows if args.all else rows[:15]:
        print(f"  {worst:8.4f}  {name}")
    diagnose.diagnose("warm up")
    for label, text in (("1 MiB training log ending in a CUDA error", log_text()), ("1 MiB of 'a'", "a" * MIB),
                        ("1 MiB of 'cuda '", ("cuda " * (MIB // 5 + 1))[:MIB]),
                        ("1 MiB of 'undefined symbol: _ZN3c10'", ("undefined symbol: _ZN3c10" * (MIB // 25 + 1))[:MIB])):
        print(f"diagnose, {label}: {_best(lambda: diagnose.diagnose(text)):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
