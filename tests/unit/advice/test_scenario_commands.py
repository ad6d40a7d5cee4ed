"""The recorded scenarios through every form of the advice: `advise`, `advise --script`
(sh, ps1, bat), `pin` and `rebuild --dry-run --from-json`, in process.  Every command `advise` prints
passes the fix checker; `pin` reproduces the environment without changing it; `rebuild --dry-run`
writes the recorded machine's layout, quoted for its shell; and each kind of machine gets its
platform's answer (a JetPack wheel on a Jetson, a native Python under Rosetta, Scripts\\python.exe
on Windows, two environments for two frameworks whose pins clash)."""

from __future__ import annotations

import re

import pytest

import shell_models as M
from _rules_helpers import SNAPSHOT_NAMES as NAMES, load, snapshot_path as path
from doctor_support import run_words as run
from torch_envcheck.advice import check

JETPACK_WHEEL = ("https://developer.download.nvidia.com/compute/redist/jp/v61/pytorch/"
                 "torch-2.5.0a0+872d972e41.nv24.08.17622132-cp310-cp310-linux_aarch64.whl")


def commands(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#"))


@pytest.mark.parametrize("name", NAMES)
def test_advise_output_passes_the_checker(name):
    rc, out, _err = run("advise", "--from-json", path(name))
    assert rc in (0, 1)
    if rc == 0:
        s = load(name)
        assert not check.problems(s, commands(out)), [p.text() for p in check.problems(s, commands(out))]


@pytest.mark.parametrize("name", NAMES)
def test_pin_reproduces_without_changing_anything(name):
    rc, out, _err = run("pin", "--from-json", path(name))
    if rc != 0:
        return  # nothing to pin (no torch): said on stderr
    reqs = [ln for ln in out.splitlines() if ln and not ln.startswith(("#", "--"))]
    s = load(name)
    exe = s["platform"]["python"]["executable"]
    # `pip install -r` of the pins, in the recorded environment: no installed requirement is broken
    from torch_envcheck._util.escape import shell_join
    from torch_envcheck.advice.platform import Platform
    line = shell_join([exe, "-m", "pip", "install", *reqs], Platform.of(s).shell)
    assert not [p for p in check.problems(s, line) if p.kind == "requires"], line


@pytest.mark.parametrize("name", NAMES)
def test_rebuild_dry_run_writes_the_recorded_machines_commands(name):
    s = load(name)
    windows = (s.get("platform") or {}).get("system") == "Windows"
    dest = "C:\\envs\\new torch" if windows else "/home/user/envs/new torch"
    rc, out, err = run("rebuild", dest, "--dry-run", "--from-json", path(name))
    if rc == 2:
        assert "no torch build fits" in err or "Jetson" in err, err
        return
    assert rc == 0, err
    shell = "powershell" if windows else "posix"
    lines = [ln for ln in out.splitlines() if not ln.startswith("#")]
    argvs = [M.argvs(M.MODELS[shell](ln)) for ln in lines]   # raises Unsafe for an unquoted value
    assert all(len(a) == 1 for a in argvs), lines
    create, *steps = [a[0] for a in argvs]
    assert dest in create
    py = dest + ("\\Scripts\\python.exe" if windows else "/bin/python")
    assert all(st[0] == py for st in steps), steps
    if windows:
        assert create[:2] == ["py", "-" + s["platform"]["python"]["version"].rsplit(".", 1)[0]]


@pytest.mark.parametrize("kind", ["sh", "ps1", "bat"])
@pytest.mark.parametrize("name", ["win10_tf210_torch_cu118_one_venv", "jetson_agx_orin_pytorch_index_aarch64_wheel",
                                  "macos_rosetta_x86_64_python", "tf218_torch251_cudnn_pins_clash_torch_last",
                                  "k8s_pod_without_gpu_request_void", "conda_win11_pytorch23_cuda124_first_on_path"])
def test_advise_script_is_written_for_every_class(name, kind):
    rc, out, err = run("advise", "--from-json", path(name), "--script", kind)
    assert rc == 0, err
    if name.startswith("jetson"):
        assert JETPACK_WHEEL in out and "download.pytorch.org/whl/cu" not in out
    if name.startswith("macos_rosetta") and kind == "sh":
        assert "PYTHON=${PYTHON:-/opt/homebrew/bin/python3}" in out


# ---------------------------------------------------------------- each class's answer

def test_jetson_advise_and_the_failure_name_the_jetpack_wheel():
    for name in ("jetson_agx_orin_pytorch_index_aarch64_wheel", "jetson_orin_nano_cu130_wheel_on_jetpack6",
                 "jetson_agx_orin_jetpack_wheel"):
        rc, out, _ = run("advise", "--from-json", path(name))
        assert rc == 0 and f"-m pip install --no-cache {JETPACK_WHEEL}" in out, name
        assert "update the NVIDIA driver" not in out and "CPU build" not in out
        assert "install-pytorch-jetson-platform" in out      # the public source, named
        rc, out, _ = run("rebuild", "/home/user/envs/t", "--dry-run", "--from-json", path(name))
        assert JETPACK_WHEEL in out and "torchvision==" not in out


def test_rosetta_advise_never_installs_torch_into_the_x86_64_python():
    for name in ("macos_rosetta_x86_64_python", "macos_rosetta_x86_64_python_no_torch"):
        rc, out, _ = run("advise", "--from-json", path(name))
        assert rc == 0
        assert "/Users/user/venvs/ml/bin/python -m pip" not in out
        assert "/opt/homebrew/bin/python3 -m venv ~/venvs/torch-arm64" in out
        rc, out, _ = run("rebuild", "/Users/user/envs/t", "--dry-run", "--from-json", path(name))
        assert out.splitlines()[-4].startswith("/opt/homebrew/bin/python3 -m venv")
    # the native twin keeps its own interpreter
    rc, out, _ = run("advise", "--from-json", path("macos_intel_x86_64"))
    assert "/opt/homebrew" not in out


def test_two_frameworks_whose_pins_clash_get_two_environments_from_advise():
    for name in ("tf218_torch251_cudnn_pins_clash_torch_last", "tf217_after_torch251_import_fails"):
        rc, out, _ = run("advise", "--from-json", path(name))
        assert rc == 0 and "one environment cannot serve both" in out, out
        cmds = commands(out).splitlines()
        assert len(cmds) == 2 and cmds[0].startswith("python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/python")
        assert cmds[1].startswith("python3 -m venv ~/venvs/tf && ~/venvs/tf/bin/python")
    # the twin whose pins agree: one environment
    rc, out, _ = run("advise", "--from-json", path("tf220_torch271_cu126_one_venv_pins_agree"))
    assert "one environment cannot serve both" not in out and "~/venvs" not in out


def test_a_torch_only_advise_that_would_break_tensorflow_moves_to_a_new_environment():
    rc, out, _ = run("advise", "--from-json", path("tf217_after_torch251_import_fails"), "--framework", "torch")
    assert rc == 0 and "it goes into a new one" in out
    assert commands(out).startswith("python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/python -m pip install")


def test_windows_two_framework_answers_use_the_windows_layout():
    rc, out, _ = run("advise", "--from-json", path("win10_tf210_torch_cu118_one_venv"), "--framework", "both")
    assert rc == 0
    assert not re.search(r"~/|/bin/python", commands(out)), out
    assert "tensorflow[and-cuda]" not in out


def test_pin_says_what_it_reproduces_on_jetson_rosetta_and_a_pin_clash():
    rc, out, _ = run("pin", "--from-json", path("jetson_agx_orin_jetpack_wheel"))
    assert f"pip install {JETPACK_WHEEL}" in out and "--extra-index-url" not in out
    rc, out, _ = run("pin", "--from-json", path("macos_rosetta_x86_64_python"))
    assert "runs under Rosetta" in out
    rc, out, _ = run("pin", "--from-json", path("tf218_torch251_cudnn_pins_clash_torch_last"))
    assert "tensorflow==2.18.0" in out.splitlines() and "tensorflow[and-cuda]==2.18.0" not in out
    assert "TE852" in out


def test_rebuild_from_json_needs_dry_run():
    rc, _out, err = run("rebuild", "/home/user/envs/t", "--from-json", path("h100_cu130_healthy"))
    assert rc == 2 and "--dry-run" in err
