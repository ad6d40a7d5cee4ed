"""`torch-envcheck info`: print build_info() and runtime_info() as one JSON document.

Exit status: 0 when the extension is available, 1 when it is not (the JSON says why)."""

from __future__ import annotations

import json
import sys


def add_arguments(parser) -> None:
    parser.add_argument("--no-build", action="store_true",
                        help="do not compile the extension if it is missing (report it as unavailable)")
    parser.add_argument("--only", choices=("build", "runtime"),
                        help="print only build_info() or only runtime_info()")
    parser.add_argument("--compact", action="store_true", help="one line of JSON instead of indented")


def run(args) -> int:
    from torch_envcheck.ext.info import build_info, runtime_info  # noqa: PLC0415  (loads torch; keep the CLI parser fast)

    build = False if args.no_build else None
    doc = {}
    if args.only in (None, "build"):
        doc["build_info"] = build_info(build=build)
    if args.only in (None, "runtime"):
        doc["runtime_info"] = runtime_info(build=build)
    print(json.dumps(doc, indent=None if args.compact else 2, sort_keys=False, default=str))
    ok = all(part.get("available") for part in doc.values())
    if not ok:
        reasons = {part.get("reason") for part in doc.values() if not part.get("available")}
        for r in reasons:
            print(f"torch-envcheck info: the extension is not available: {r}", file=sys.stderr)
    return 0 if ok else 1
