"""Benchmark: how long the doctor takes next to what users run today.

    python benchmarks/doctor_speed.py [--repeat 7] [--python PYTHON]

Times, interleaved round by round (so a busy machine slows every command alike), in fresh
processes of PYTHON:
  report       `python -m torch_envcheck --json` (the full doctor; no kernel benchmark)
  collect_env  `python -m torch.utils.collect_env`
  import torch `python -c "import torch"`
and, inside one process, what `import torch_envcheck` adds after `import torch`.
Prints the medians and the ratios against the targets: report <= 0.5x collect_env,
report <= 1.1x bare import torch, import torch_envcheck adds < 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

TARGETS = {"vs_collect_env": 0.5, "vs_import_torch": 1.1, "import_ms": 50.0}
_ADDED = ("import time, torch; t = time.perf_counter(); import torch_envcheck; "
          "print((time.perf_counter() - t) * 1000)")


def _env() -> dict:
    env = dict(os.environ)
    # Run the torch_envcheck this module belongs to (a checkout works without installing).
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("NO_COLOR", "1")
    # An installed package has its .pyc files (pip compiles them), and so has torch here: with
    # PYTHONDONTWRITEBYTECODE set, a checkout would recompile every torch_envcheck module on every
    # run (~30 ms) and time the compiler instead of the doctor.  The uncounted warm-up run writes them.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _wall(argv: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t0
    if proc.returncode not in (0, 1):  # the doctor exits 1 on a failure finding: still a full run
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return dt


def _report_argv(python: str) -> list[str]:
    return [python, "-m", "torch_envcheck", "--json"]


def measure(python: str, repeat: int) -> dict:
    env = _env()
    cmds = {
        "report": _report_argv(python),
        "collect_env": [python, "-m", "torch.utils.collect_env"],
        "import_torch": [python, "-c", "import torch"],
    }
    times: dict = {k: [] for k in cmds}
    added = []
    for k, argv in cmds.items():  # warm the file cache once; not counted
        _wall(argv, env)
    for _ in range(repeat):
        for k, argv in cmds.items():
            times[k].append(_wall(argv, env))
        out = subprocess.run([python, "-c", _ADDED], capture_output=True, text=True, env=env, check=True)
        added.append(float(out.stdout.strip().splitlines()[-1]))
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"python": python, "repeat": repeat, "median_s": med, "import_torch_envcheck_ms": statistics.median(added),
            "runs_s": times, "report_cmd": " ".join(cmds["report"][1:])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/doctor_speed.py", description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter (venv) to measure; default this one")
    ap.add_argument("--repeat", type=int, default=7, help="rounds (default 7)")
    args = ap.parse_args(argv)
    r = measure(args.python, max(1, args.repeat))
    m = r["median_s"]
    print(f"python: {r['python']}   rounds: {r['repeat']} (interleaved; medians)")
    print(f"  report       ({r['report_cmd']}): {m['report']:.3f} s")
    print(f"  collect_env  (python -m torch.utils.collect_env): {m['collect_env']:.3f} s")
    print(f"  import torch (python -c 'import torch'): {m['import_torch']:.3f} s")
    rows = [
        ("report / collect_env", m["report"] / m["collect_env"], TARGETS["vs_collect_env"], "x"),
        ("report / import torch", m["report"] / m["import_torch"], TARGETS["vs_import_torch"], "x"),
        ("import torch_envcheck after torch", r["import_torch_envcheck_ms"], TARGETS["import_ms"], " ms"),
    ]
    for name, value, target, unit in rows:
        verdict = "meets" if value <= target else f"MISSES by {value / target:.2f}x"
        print(f"  {name:36s} {value:7.2f}{unit}  target <= {target:g}{unit}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
