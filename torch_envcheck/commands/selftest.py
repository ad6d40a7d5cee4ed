"""`torch-envcheck selftest [--require-gpu] [-- PYTEST ARGS]`: run the self-test shipped in the package.

It is `python -m pytest --pyargs torch_envcheck.selftest -rs --envcheck` in a child process of this
interpreter (so the torch tested is the torch this command runs with), with the environment header of
the envcheck pytest plugin at the top and the reasons of skipped tests at the end.

Exit status: 0 every test passed or was skipped; 1 a test failed; 2 pytest is missing or was misused.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys

PLUGIN_MODULE = "torch_envcheck.pytest_plugin"
ENV_REQUIRE_GPU = "TORCH_ENVCHECK_REQUIRE_GPU"  # read by torch_envcheck/selftest/_support.py


def add_arguments(parser) -> None:
    parser.add_argument("--require-gpu", action="store_true",
                        help=f"fail, instead of skip, the GPU tests when no GPU is usable (sets {ENV_REQUIRE_GPU}=1)")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, metavar="-- PYTEST ARGS",
                        help="further pytest arguments, after `--` (e.g. -- -x -k cuda)")


def _plugin_autoloaded() -> bool:
    """Whether pytest will load our plugin through its pytest11 entry point (installed package)."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return False
    try:
        from importlib.metadata import entry_points
        try:
            eps = entry_points(group="pytest11")
        except TypeError:  # Python 3.9: entry_points() is a dict
            eps = entry_points().get("pytest11", [])
    except Exception:
        return False
    return any(ep.value.split(":")[0].strip() == PLUGIN_MODULE for ep in eps)


def pytest_command(extra: list[str]) -> list[str]:
    # Loading the plugin twice (entry point + -p) is an error in pytest, so add -p only when needed,
    # e.g. when torch_envcheck runs from a source tree (PYTHONPATH) rather than an installed package.
    plugin = [] if _plugin_autoloaded() else ["-p", PLUGIN_MODULE]
    # -P (Python >= 3.11): `python -m` would put the working directory first on sys.path, and run
    # from a source checkout that would test the checkout's torch_envcheck instead of this one.
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe_path, "-m", "pytest", "--pyargs", "torch_envcheck.selftest", "-rs",
            "-p", "no:cacheprovider", *plugin, "--envcheck", *extra]


def run(args) -> int:
    if importlib.util.find_spec("pytest") is None:
        print("torch-envcheck selftest: pytest is not installed in this environment "
              f"({sys.executable}); install it with: {sys.executable} -m pip install pytest", file=sys.stderr)
        return 2
    extra = list(args.pytest_args or [])
    if extra and extra[0] == "--":
        extra = extra[1:]
    env = dict(os.environ)
    if args.require_gpu:
        env[ENV_REQUIRE_GPU] = "1"
    cmd = pytest_command(extra)
    try:
        rc = subprocess.call(cmd, env=env)
    except OSError as exc:
        print(f"torch-envcheck selftest: cannot run {cmd[0]}: {exc}", file=sys.stderr)
        return 2
    # pytest: 0 passed, 1 tests failed, 2 interrupted, 3 internal error, 4 usage error, 5 no tests collected.
    if rc == 0:
        return 0
    if rc in (2, 4):
        return 2
    if rc == 5:
        print("torch-envcheck selftest: pytest collected no tests (was a -k or -m filter too narrow?)",
              file=sys.stderr)
    return 1
