"""`torch-envcheck selftest [--require-gpu] [-- PYTEST ARGS]`: run the self-test shipped in the package.

It is `python -m pytest --pyargs torch_envcheck.selftest -rs --envcheck` in a child process of this
interpreter (so the torch tested is the torch this command runs with), with the environment header of
the envcheck pytest plugin at the top and the reasons of skipped tests at the end.  The run is isolated
from the folder it is started in: that folder's pytest configuration, conftest.py and PYTEST_ADDOPTS
do not apply (a project's conftest may need plugins the environment under test does not have).

Exit status: 0 every test passed or was skipped; 1 a test failed; 2 pytest is missing or was misused.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

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


def pytest_command(extra: list[str], isolated_ini: str | None = None) -> list[str]:
    """The pytest command line.  isolated_ini: an empty ini file in a private folder, which becomes
    the run's only configuration and rootdir (see isolation_args)."""
    # Loading the plugin twice (entry point + -p) is an error in pytest, so add -p only when needed,
    # e.g. when torch_envcheck runs from a source tree (PYTHONPATH) rather than an installed package.
    plugin = [] if _plugin_autoloaded() else ["-p", PLUGIN_MODULE]
    # -P (Python >= 3.11): `python -m` would put the working directory first on sys.path, and run
    # from a source checkout that would test the checkout's torch_envcheck instead of this one.
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe_path, "-m", "pytest", "--pyargs", "torch_envcheck.selftest", "-rs",
            "-p", "no:cacheprovider", *isolation_args(isolated_ini), *plugin, "--envcheck", *extra]


def _selftest_dir() -> str | None:
    spec = importlib.util.find_spec("torch_envcheck.selftest")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return locations[0] if locations else None


def isolation_args(isolated_ini: str | None) -> list[str]:
    """Options that keep the caller's project out of the self-test: its pytest.ini / pyproject.toml /
    tox.ini / setup.cfg are not read (`-c` an empty ini of our own, which is also the rootdir), and
    no conftest.py above the shipped self-test is loaded (--confcutdir: a venv inside a project sits
    below that project's conftest, which may use plugins or hooks this environment lacks).  The run
    also starts in the ini's private folder (run()), whose conftest pytest would load otherwise."""
    if isolated_ini is None:
        return []
    out = ["-c", isolated_ini, "--rootdir", os.path.dirname(isolated_ini)]
    here = _selftest_dir()
    if here:
        out += ["--confcutdir", here]
    return out


# Variables through which the caller's shell would add its own options and plugins to the run.
FOREIGN_PYTEST_VARS = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")


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
    for var in FOREIGN_PYTEST_VARS:
        env.pop(var, None)
    with tempfile.TemporaryDirectory(prefix="torch-envcheck-selftest-") as private:
        ini = os.path.join(private, "pytest.ini")
        with open(ini, "w", encoding="utf-8") as fh:
            fh.write("[pytest]\n")
        cmd = pytest_command(extra, ini)
        try:
            # from the private folder: pytest loads the conftest.py of the folder it starts in
            # whenever its arguments are module names (--pyargs), whatever --confcutdir says
            rc = subprocess.call(cmd, env=env, cwd=private)
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
