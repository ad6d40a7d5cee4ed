"""Peak memory of the doctor under children that print without end (issue 21, class 2).

    python benchmarks/flood_memory.py [--code ROOT ...] [--mib 1024] [--timeout 3]

For each ROOT (a folder holding a torch_envcheck package; default: this checkout) it runs
`python -m torch_envcheck --json --timeout T` with, first on PYTHONPATH, a fake torch and a fake
TensorFlow whose imports each print MIB MiB (torch to stdout, TensorFlow to stderr) and, first on
PATH, an nvidia-smi that is `yes`; and prints the peak RSS, from the parent
(resource.getrusage(RUSAGE_CHILDREN).ru_maxrss, Linux: the largest of the doctor and the processes
it waited for), with the seconds it took.  Several ROOTs run side by side in one invocation (e.g.
a checkout of the commit before the fix), so their figures share the machine's state.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

FLOOD = textwrap.dedent("""
    import os
    chunk = b"x" * (1 << 20)
    for _ in range({mib}):
        os.write({fd}, chunk)
    __version__ = {version!r}
""")


def measure(code_root: str, mib: int, timeout: float) -> dict:
    tmp = tempfile.mkdtemp(prefix="te-flood-")
    try:
        roots = []
        for name, fd, version in (("torch", 1, "9.9.9"), ("tensorflow", 2, "2.99.0")):
            pkg = os.path.join(tmp, name, name)
            os.makedirs(pkg)
            with open(os.path.join(pkg, "__init__.py"), "w") as fh:
                fh.write(FLOOD.format(mib=mib, fd=fd, version=version))
            roots.append(os.path.join(tmp, name))
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        smi = os.path.join(bin_dir, "nvidia-smi")
        with open(smi, "w") as fh:
            fh.write("#!/bin/sh\nexec yes\n")
        os.chmod(smi, 0o755)
        # each measurement in its own parent, so RUSAGE_CHILDREN holds this run alone
        code = ("import json, resource, subprocess, sys, time\n"
                "t0 = time.monotonic()\n"
                "p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
                "print(json.dumps({'rc': p.returncode, 'seconds': time.monotonic() - t0,\n"
                "                  'peak_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,\n"
                "                  'valid_json': p.stdout.strip().startswith(b'{')}))\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([code_root] + roots), NO_COLOR="1",
                   PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        out = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "torch_envcheck", "--json",
                              "--timeout", f"{timeout:g}"], env=env, cwd=tmp, capture_output=True, text=True)
        return json.loads(out.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", action="append", default=None, metavar="ROOT",
                        help="a folder holding torch_envcheck (repeatable; default: this checkout)")
    parser.add_argument("--mib", type=int, default=1024, help="MiB each fake import prints (default 1024)")
    parser.add_argument("--timeout", type=float, default=3.0, help="the doctor's --timeout (default 3)")
    args = parser.parse_args()
    roots = args.code or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    print(f"| torch_envcheck | peak RSS | seconds | exit | report is JSON |")
    print(f"|---|---|---|---|---|")
    for root in roots:
        r = measure(os.path.abspath(root), args.mib, args.timeout)
        print(f"| {root} | {r['peak_kib'] / 1024:.0f} MB | {r['seconds']:.1f} | {r['rc']} | {r['valid_json']} |")


if __name__ == "__main__":
    main()
