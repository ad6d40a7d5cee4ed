"""`torch-envcheck explain`: from an error message to its cause and fix.

    torch-envcheck explain "TEXT"          the error as an argument
    torch-envcheck explain --file LOG      a log, a traceback, a saved notebook (.ipynb); '-' is stdin
    CMD 2>&1 | torch-envcheck explain      the error on standard input

It reads what the error is made of (error codes, libraries, symbols, versions, paths: explain/extract.py),
applies the layer rules and the catalogue of sentences (knowledge/data/error_signatures.json), names the
layer and the likely causes, then checks the machine (the doctor's probes, or --from-json a saved report)
to say which cause is present, with the doctor's finding and fix.  --no-probe explains from the
text alone.  Errors that are not environment problems are said to be so and get no reinstall.

Exit status: 0 recognised, 1 not recognised, 2 bad usage or input."""

from __future__ import annotations

import sys

from torch_envcheck.commands import _source as _args


def add_arguments(parser) -> None:
    parser.add_argument("text", nargs="*", metavar="TEXT",
                        help="the error message (quote it); without it, --file or standard input is read")
    parser.add_argument("-f", "--file", metavar="LOG", default=None,
                        help="read the error from a log file ('-' for standard input); a large log is read from its end")
    parser.add_argument("--json", action="store_true", help="print one JSON object (see docs/explain.md)")
    parser.add_argument("--no-probe", action="store_true",
                        help="explain from the text alone, without checking this machine")
    _args.add_source(parser)


def _stdin_is_data(stdin) -> bool:
    """Standard input is a pipe or a regular file (not /dev/null or another device)."""
    import os  # noqa: PLC0415
    import stat  # noqa: PLC0415
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def read_input(args):
    """The Input to explain, or None after printing the usage error."""
    from torch_envcheck.explain import textin  # noqa: PLC0415

    words = list(getattr(args, "text", None) or [])
    path = getattr(args, "file", None)
    if words == ["-"] and path is None:
        # the Unix convention: a lone "-" is standard input, not the text "-"
        words, path = [], "-"
    if words and path is not None:
        _args.error("give the error either as TEXT or with --file, not both")
        return None
    try:
        if words:
            inp = textin.from_text(" ".join(words))
        elif path is not None:
            inp = textin.read_path(path)
        else:
            stdin = sys.stdin
            try:
                interactive = stdin is None or stdin.isatty()
            except (AttributeError, ValueError, OSError):
                interactive = True
            if interactive or not _stdin_is_data(stdin):
                _args.error('no error to explain: give it as TEXT ("..."), with --file LOG, or on standard input')
                return None
            inp = textin.read_path("-")
    except textin.InputError as exc:
        _args.error(str(exc))
        return None
    if not inp.text.strip():
        _args.error(f"{inp.source}: the input is empty; nothing to explain")
        return None
    return inp


def saved_snapshot(args):
    """The snapshot of --from-json, read once (cached on args); None after printing the error."""
    cached = getattr(args, "_saved_snapshot", None)
    if cached is not None:
        return cached
    from torch_envcheck.facts.snapshot import SnapshotError, load  # noqa: PLC0415
    try:
        snap = load(args.from_json)
    except SnapshotError as exc:
        _args.error(str(exc))
        return None
    args._saved_snapshot = snap
    return snap


def machine_report(args, areas=()):
    """(report, machine state) for checking causes: the saved report of --from-json, else a live probe
    (bounded by --timeout); (None, "not checked") with --no-probe.  Returns None after printing the
    error when --from-json cannot be read."""
    from torch_envcheck import doctor  # noqa: PLC0415

    if getattr(args, "no_probe", False):
        return None, "not checked"
    path = getattr(args, "from_json", None)
    if path is not None:
        snap = saved_snapshot(args)
        if snap is None:
            return None
        state = "from-json"
    else:
        limit = getattr(args, "timeout", None)
        # TensorFlow's import (in a child) is the slowest probe: only when the error concerns it.
        tensorflow = "tensorflow" in areas and not getattr(args, "no_tensorflow", False)
        # SIGTERM while the probes run ends this process through SystemExit, which ends their children
        with _args.stdout_to_stderr(), _args.terminate_as_exit():
            snap = doctor.collect(timeout=limit or 5.0, torch_timeout=limit, tensorflow=tensorflow)
        state = "probed"
    return doctor.report(snap), state


# The diagnoses that name a package whose binary does not fit the installed torch: with the machine checked,
# the answer names the installed distribution, its Requires-Dist on torch and the torch installed.
OWNER_SIGNATURES = ("extension-abi-mismatch", "package-built-for-other-torch")


def _owner(sig_id, values, report, state):
    from torch_envcheck.explain import owners  # noqa: PLC0415
    if sig_id not in OWNER_SIGNATURES:
        return None
    names = [values.get("package"), values.get("module")]
    if state == "probed":
        return owners.lookup_live(names)
    if state == "from-json":
        return owners.lookup_report(report, names)
    return None


def explain_input(inp, args, found=None):
    """The diagnosis of an Input, checking the machine when the error is an environment problem.
    Returns (result, exit status)."""
    from torch_envcheck.explain import diagnose
    from torch_envcheck.explain import identify as recognise  # noqa: PLC0415

    entities = None
    if found is None:
        found, entities = recognise.analyse(inp.text)
    if not found:
        return diagnose.diagnose(inp.text, found=found, entities=entities), 1
    sig = found[0].signature
    report, state = None, "not checked"
    if sig.environment_problem:
        got = machine_report(args, sig.areas)
        if got is None:
            return None, 2
        report, state = got
    owner = _owner(sig.id, found[0].values, report, state)
    return diagnose.diagnose(inp.text, report=report, machine=state, found=found, entities=entities, owner=owner), 0


def run(args) -> int:
    if getattr(args, "no_probe", False) and getattr(args, "from_json", None) is not None:
        _args.error("--no-probe and --from-json cannot be combined: --from-json checks the causes on a saved report")
        return 2
    if getattr(args, "from_json", None) == "-" and not getattr(args, "text", None) and getattr(args, "file", None) in (None, "-"):
        _args.error("--from-json - and the error text cannot both come from standard input; give the error as TEXT or --file")
        return 2
    if getattr(args, "from_json", None) is not None and saved_snapshot(args) is None:
        return 2  # a bad --from-json is bad input, whatever the error turns out to be
    inp = read_input(args)
    if inp is None:
        return 2
    result, status = explain_input(inp, args)
    if result is None:
        return status
    from torch_envcheck.explain import render  # noqa: PLC0415
    try:
        if getattr(args, "json", False):
            sys.stdout.write(render.as_json(result, {"input": inp.describe()}))
        else:
            sys.stdout.write(render.text(result))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return status
