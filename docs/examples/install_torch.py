#!/usr/bin/env python3
"""An installer that asks torch-envcheck which torch build fits this machine instead of keeping its
own "which CUDA for which GPU" table (docs/advice.md, "The API for installers").

    python install_torch.py               # print what it would run
    python install_torch.py --run         # run it (pip, or uv with --uv)
    python install_torch.py --from-json report.json   # decide for a saved report's machine

It needs torch-envcheck (pip install torch-envcheck), not torch.  It reads only the documented
fields of schema_version 1 and refuses a document of another version.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

SCHEMA_VERSION = 1


def advice(from_json: str | None, uv: bool) -> dict:
    """The advice document: from the API in this process, or (a saved report) from the CLI."""
    if from_json:
        argv = [sys.executable, "-m", "torch_envcheck", "advise", "--json", "--from-json", from_json]
        if uv:
            argv.append("--uv")
        out = subprocess.run(argv, capture_output=True, text=True, check=False)
        return json.loads(out.stdout)
    import torch_envcheck
    return torch_envcheck.advise(forms=("uv",) if uv else ()).to_dict()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="run the install command (default: print it)")
    ap.add_argument("--uv", action="store_true", help="install with uv instead of pip")
    ap.add_argument("--from-json", metavar="FILE", help="decide for a saved torch-envcheck report")
    args = ap.parse_args()

    doc = advice(args.from_json, args.uv)
    if doc.get("schema_version") != SCHEMA_VERSION:
        print(f"unsupported advice schema {doc.get('schema_version')!r}; this installer reads {SCHEMA_VERSION}",
              file=sys.stderr)
        return 2
    for line in doc["reasons"]:
        print(f"# {line}")
    if doc["kind"] is None:
        print("no torch build fits this machine (see the reasons above)", file=sys.stderr)
        return 1
    build = doc["build"]
    print(f"# chosen: torch {build['torch'] or '(newest)'} {build['tag'] or ''} -> {' '.join(build['requirements'])}")
    # why not the others: the first reason each was turned down, grouped by what would have to change
    by_check: dict[str, int] = {}
    for alt in doc["alternatives"]:
        by_check[alt["rejected"][0]["check"]] = by_check.get(alt["rejected"][0]["check"], 0) + 1
    print("# other builds turned down: " + ", ".join(f"{n} by {c}" for c, n in sorted(by_check.items())))
    if doc["problems"]:
        print("refusing: torch-envcheck's own checker found problems: " + "; ".join(doc["problems"]), file=sys.stderr)
        return 1
    cmd = doc["commands"]["uv" if args.uv else "pip"]
    if cmd is None:
        print("no single command for this machine: run `torch-envcheck advise` and follow its steps", file=sys.stderr)
        return 1
    print(cmd)
    if not args.run:
        return 0
    if doc["machine"]["os"] == "Windows":
        print("on Windows, paste the command into PowerShell (it is quoted for it)", file=sys.stderr)
        return 0
    for line in cmd.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            rc = subprocess.run(["/bin/sh", "-c", line], check=False).returncode
            if rc:
                return rc
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
