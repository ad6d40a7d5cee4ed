"""Benchmark: the doctor's wall time with TensorFlow installed, next to the imports it replaces.

    python benchmarks/speed_tensorflow.py [--repeat 5] [--python PYTHON]

Times, interleaved round by round in fresh processes of PYTHON (a venv with torch and TensorFlow):
  report             `python -m torch_envcheck --json` (TensorFlow probed in its child process)
  import torch       `python -c "import torch"`
  import tensorflow  `python -c "import tensorflow"`
Prints the medians and the ratio against the target: report <= 1.1x the slower of the two imports
(the TensorFlow child runs beside the torch import, so the report costs about the slower one).
"""

from __future__ import annotations

import argparse
import statistics
import sys

from doctor_speed import _env, _report_argv, _wall

TARGET = 1.1


def measure(python: str, repeat: int) -> dict:
    env = _env()
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    cmds = {
        "report": _report_argv(python),
        "import_torch": [python, "-c", "import torch"],
        "import_tensorflow": [python, "-c", "import tensorflow"],
    }
    for argv in cmds.values():  # warm the file cache and write .pyc files; not counted
        _wall(argv, env)
    times: dict = {k: [] for k in cmds}
    for _ in range(repeat):
        for k, argv in cmds.items():
            times[k].append(_wall(argv, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    slower = max(med["import_torch"], med["import_tensorflow"])
    return {"python": python, "repeat": repeat, "median_s": med, "runs_s": times, "ratio": med["report"] / slower,
            "report_cmd": " ".join(cmds["report"][1:])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/speed_tensorflow.py",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter (venv with torch and TensorFlow); default this one")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    args = ap.parse_args(argv)
    r = measure(args.python, max(1, args.repeat))
    m = r["median_s"]
    print(f"python: {r['python']}   rounds: {r['repeat']} (interleaved; medians)")
    print(f"  report            ({r['report_cmd']}): {m['report']:.3f} s")
    print(f"  import torch      (python -c 'import torch'): {m['import_torch']:.3f} s")
    print(f"  import tensorflow (python -c 'import tensorflow'): {m['import_tensorflow']:.3f} s")
    verdict = "meets" if r["ratio"] <= TARGET else f"MISSES by {r['ratio'] / TARGET:.2f}x"
    print(f"  report / slower import              {r['ratio']:7.2f}x  target <= {TARGET:g}x: {verdict}")
    for k, v in r["runs_s"].items():
        print(f"  runs {k}: " + ", ".join(f"{x:.2f}" for x in v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
