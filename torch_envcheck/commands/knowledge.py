"""`torch-envcheck knowledge update | show | check`: keep the doctor's knowledge current.

    update   learn releases and their builds from the package indexes this machine can reach (PyPI's
             JSON API, the PyTorch index per CUDA tag, or --index-url / --extra-index-url / --mirror,
             file:// folders too) and write the dated overlay the doctor prefers over the shipped tables
    show     what is known, and from when (the tables' dates, the overlay's date and sources)
    check    the maintainers' check: re-derive every row the indexes can answer and print the
             differences from the shipped tables (exit 1 when there are any)

Exit status: 0 done (check: no differences), 1 nothing could be read (check: differences), 2 bad
arguments or an unusable answer.  docs/knowledge.md describes the tables, the overlay and the checks.
"""

from __future__ import annotations

import json
import re
import sys

from torch_envcheck._util.escape import terminal


def _sources_args(p) -> None:
    g = p.add_argument_group("where to read (like pip's options)")
    g.add_argument("--index-url", metavar="URL", default=None,
                   help="a simple index (PEP 503 HTML / PEP 691 JSON; http(s):// or a file:// folder) read instead "
                        "of PyPI's JSON API")
    g.add_argument("--extra-index-url", metavar="URL", action="append", default=[],
                   help="another simple index to read as well (repeatable)")
    g.add_argument("--pypi-json", metavar="URL", default=None,
                   help="PyPI's JSON API base (default https://pypi.org/pypi unless --index-url is given; 'none': "
                        "do not use it)")
    g.add_argument("--mirror", metavar="URL", default=None,
                   help="a mirror of https://download.pytorch.org/whl/ (one simple index per CUDA tag below it)")
    g.add_argument("--no-pytorch-index", action="store_true", help="do not read the PyTorch index at all")
    g.add_argument("--cuda-tag", metavar="TAG", action="append", default=[],
                   help="also read the PyTorch index of this CUDA tag (e.g. cu134; repeatable)")
    g.add_argument("--no-wheel-range", action="store_true",
                   help="read wheel metadata only from PEP 658 .metadata files, never by HTTP range requests")
    lim = p.add_argument_group("limits")
    lim.add_argument("--timeout", type=float, default=20.0, metavar="S", help="seconds per request (default 20)")
    lim.add_argument("--max-mb", type=int, default=160, metavar="N",
                     help="stop after reading N MiB from the indexes in this run (default 160)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="knowledge_command", metavar="SUBCOMMAND")
    up = sub.add_parser("update", help="learn releases and builds from the package indexes into the overlay",
                        description="Learn torch/TensorFlow releases and their builds from the package indexes and "
                                    "write the dated overlay (in the user's cache) the doctor prefers.")
    _sources_args(up)
    up.add_argument("--dry-run", action="store_true", help="print what the overlay would add; write nothing")
    sh = sub.add_parser("show", help="what the doctor knows, and from when",
                        description="The knowledge tables' dates and newest rows, and the overlay's date and sources.")
    sh.add_argument("--json", action="store_true", help="print it as JSON")
    ck = sub.add_parser("check", help="maintainers: compare the shipped tables with the package indexes",
                        description="Re-derive every row the package indexes can answer and print the differences "
                                    "from the shipped tables (exit 1 when there are any).")
    _sources_args(ck)
    ck.add_argument("--since", default="2.4", metavar="X.Y",
                    help="read wheel metadata (the nvidia pins) of torch releases from X.Y on (default 2.4)")
    ck.add_argument("--project", choices=("torch", "tensorflow", "both"), default="both")


def _fail(msg: str) -> int:
    print(f"torch-envcheck knowledge: {terminal(msg)}", file=sys.stderr)
    return 2


def _sources(args):
    from torch_envcheck.advice.sources import SourceError, check_url  # noqa: PLC0415
    from torch_envcheck.knowledge_update import learn  # noqa: PLC0415

    try:
        urls = {}
        for opt, value in (("--index-url", args.index_url), ("--mirror", args.mirror)):
            urls[opt] = check_url(value, opt).rstrip("/") if value else None
        extra = tuple(check_url(u, "--extra-index-url").rstrip("/") for u in args.extra_index_url)
        json_api = args.pypi_json
        if json_api is not None and json_api.lower() == "none":
            json_api = None
        elif json_api is not None:
            json_api = check_url(json_api, "--pypi-json").rstrip("/")
        elif urls["--index-url"] is None:
            json_api = learn.PYPI_JSON
    except SourceError as exc:
        raise ValueError(str(exc)) from None
    for tag in args.cuda_tag:
        if not re.fullmatch(r"cu\d{2,4}", tag):
            raise ValueError(f"--cuda-tag {tag!r} is not a CUDA tag (expected e.g. cu134)")
    if args.timeout <= 0 or args.timeout > 600 or args.max_mb <= 0 or args.max_mb > 4096:
        raise ValueError("--timeout must be in (0, 600] seconds and --max-mb in 1..4096")
    if json_api is None and urls["--index-url"] is None and not extra:
        raise ValueError("no index to read: give --index-url or --extra-index-url, or keep PyPI's JSON API")
    pytorch = None if args.no_pytorch_index else (urls["--mirror"] or learn.PYTORCH_INDEX)
    return learn.Sources(json_api=json_api, index_url=urls["--index-url"], extra_index_urls=extra, pytorch=pytorch,
                         wheel_range=not args.no_wheel_range)


def _fetcher(args):
    from torch_envcheck.knowledge_update import index as ix  # noqa: PLC0415
    return ix.Fetcher(timeout=args.timeout, max_run=args.max_mb << 20)


def _update(args) -> int:
    import dataclasses  # noqa: PLC0415

    from torch_envcheck.knowledge import overlay  # noqa: PLC0415
    from torch_envcheck.knowledge_update import update  # noqa: PLC0415
    try:
        src = _sources(args)
    except ValueError as exc:
        return _fail(str(exc))
    if src.pytorch:
        src = dataclasses.replace(src, tags=update.default_tags(args.cuda_tag))
    try:
        res = update.run_update(src, _fetcher(args), write=not args.dry_run)
    except overlay.OverlayError as exc:
        return _fail(f"the overlay could not be written: {exc}")
    except OSError as exc:
        return _fail(f"the overlay could not be written to {overlay.path()}: {exc.strerror or exc}")
    if args.json:
        print(json.dumps({k: v for k, v in res.items()}, indent=1, ensure_ascii=True))
    else:
        for line in res["read"]:
            print(f"read {terminal(line)}")
        for line in res["problems"]:
            print(f"problem: {terminal(line)}")
        if res["doc"] is None:
            pass
        elif args.dry_run:
            print("would add (--dry-run, nothing written):")
        else:
            print(f"wrote {terminal(res['path'])} (fetched {terminal(res['doc']['fetched'])})")
        for line in res.get("added", []):
            print(f"  {terminal(line)}")
        if res["doc"] is not None and not res.get("added"):
            print("  nothing new: the shipped tables know every release and build the indexes listed")
    if res["doc"] is None:
        first = res["problems"][0] if res["problems"] else "no index listed any torch or tensorflow wheel"
        print(f"torch-envcheck knowledge update: nothing could be read ({terminal(first)}); no overlay written, "
              "the shipped tables serve", file=sys.stderr)
        return 1
    return 0


def _show(args) -> int:
    from torch_envcheck.knowledge_update import summary  # noqa: PLC0415
    info = summary.known()
    if args.json:
        print(json.dumps(info, indent=1, ensure_ascii=True))
    else:
        sys.stdout.write(summary.render(info))
    return 0


def _check(args) -> int:
    from torch_envcheck.knowledge_update import check  # noqa: PLC0415
    try:
        src = _sources(args)
    except ValueError as exc:
        return _fail(str(exc))
    if src.pytorch and args.cuda_tag:
        from torch_envcheck.knowledge_update import update  # noqa: PLC0415
        import dataclasses  # noqa: PLC0415
        src = dataclasses.replace(src, tags=update.default_tags(args.cuda_tag))
    if not re.fullmatch(r"\d+\.\d+", args.since):
        return _fail(f"--since {args.since!r} is not a release (expected e.g. 2.4)")
    projects = ("torch", "tensorflow") if args.project == "both" else (args.project,)
    res = check.run_check(src, _fetcher(args), since=args.since, projects=projects)
    if args.json:
        print(json.dumps(res, indent=1, ensure_ascii=True, default=str))
    else:
        sys.stdout.write(check.render(res))
    if res["nothing_read"]:
        first = res["problems"][0] if res["problems"] else "no index listed any wheel"
        print(f"torch-envcheck knowledge check: nothing could be read ({terminal(first)})", file=sys.stderr)
        return 2
    return 1 if res["differences"] else 0


def run(args) -> int:
    cmd = getattr(args, "knowledge_command", None)
    if cmd == "update":
        return _update(args)
    if cmd == "show":
        return _show(args)
    if cmd == "check":
        return _check(args)
    return _fail("name a subcommand: update, show or check (see `torch-envcheck knowledge --help`)")
