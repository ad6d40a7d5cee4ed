"""Plans, package sources and docker tags: what a rebuild or a setup script would install, for recorded
machines; bad input gives a PlanError/SourceError that names it."""

from __future__ import annotations

import json
import shlex
import os

import pytest

from torch_envcheck.advice import recommend as advise_cli
from torch_envcheck.advice import docker
from torch_envcheck.advice import plan as planmod
from torch_envcheck.advice.sources import SourceError, Sources

from paths import SNAP_DIR as SNAPS


def snap(name: str) -> dict:
    with open(os.path.join(SNAPS, name), encoding="utf-8") as fh:
        data = json.load(fh)
    return data.get("snapshot", data)


def test_h100_plan_is_the_advised_cuda_build_with_paired_companions():
    p = planmod.from_advice(snap("h100_cu130_healthy.json"), companions=("torchvision", "torchaudio"))
    rec = advise_cli.recommend(snap("h100_cu130_healthy.json"))
    assert rec["kind"] == "cuda" and p.tag == rec["tag"] and p.torch == rec["torch"]
    words = p.torch_requirements()
    rel = p.torch
    # torch 2.14: no torchaudio release pins it (torchaudio_pypi), so torchaudio is not pinned
    assert words[0] == f"torch=={rel}.*" and words[2] == "torchaudio"
    assert words[1].startswith("torchvision==0.") and words[1].endswith(".*")
    (step,) = p.steps()
    assert step["pip"][:3] == words
    assert step["pip"][3:] == ["--index-url", f"https://download.pytorch.org/whl/{rec['tag']}"]


def test_the_plan_and_advise_agree_on_every_recorded_machine():
    for name in sorted(os.listdir(SNAPS)):
        s = snap(name)
        rec = advise_cli.recommend(s)
        _why, cmd = advise_cli.advise(s)
        if rec["kind"] is None:
            assert cmd is None
            with pytest.raises(planmod.PlanError, match="no torch build fits"):
                planmod.from_advice(s)
            continue
        p = planmod.from_advice(s)
        assert p.tag == rec["tag"], name
        if rec["kind"] == "keep":  # a working ROCm/XPU/MPS build: advise installs nothing, a rebuild makes it again
            assert cmd is None and p.torch == rec["torch"], name
            continue
        if rec["tag"]:
            assert f"/whl/{rec['tag']}" in cmd, name
        if rec["kind"] == "jetpack":  # NVIDIA's wheel for the board's JetPack, by URL, in both
            assert rec["wheel"] in cmd and p.torch_requirements() == [rec["wheel"]], name
        elif rec["kind"] == "native-python":  # Rosetta: both make a venv from a native arm64 Python
            assert p.base_python in cmd, name
        elif rec["torch"]:
            assert f"torch=={rec['torch']}" in cmd and p.torch == rec["torch"], name


def test_cpu_machine_gets_the_cpu_index_and_a_pinned_release():
    p = planmod.from_advice(snap("cpu_venv_no_gpu.json"))
    assert p.tag == "cpu" and p.torch  # pinned to the newest known release, for reproducible re-runs
    assert p.steps()[0]["pip"][-2:] == ["--index-url", "https://download.pytorch.org/whl/cpu"]


def test_macos_uses_pypi_torch():
    p = planmod.from_advice(snap("macos_apple_silicon.json"))
    assert p.tag is None and "--index-url" not in p.steps()[0]["pip"]


def test_torch_override_and_bad_version():
    p = planmod.from_advice(snap("cpu_venv_no_gpu.json"), torch="2.13.0", companions=("none",))
    assert p.torch_requirements() == ["torch==2.13.0"]
    with pytest.raises(planmod.PlanError, match="is not a version"):
        planmod.from_advice(snap("cpu_venv_no_gpu.json"), torch="2.13\n--index-url http://evil")


def test_sources_mirror_index_find_links_no_index():
    s = Sources(index_url="https://pypi.example/simple", mirror="https://mirror.example/pytorch-wheels/",
                find_links=("/wheels",))
    assert s.pip_args("cu130", torch_step=True) == [
        "--find-links", "/wheels", "--index-url", "https://mirror.example/pytorch-wheels/cu130",
        "--extra-index-url", "https://pypi.example/simple"]
    assert s.pip_args() == ["--find-links", "/wheels", "--index-url", "https://pypi.example/simple"]
    off = Sources(find_links=("/w",), no_index=True)
    assert off.pip_args("cu130", torch_step=True) == ["--find-links", "/w", "--no-index"]
    for bad in ("not a url", "https://x/ y", "https://x/$(id)'", "ftp://x"):
        with pytest.raises(SourceError, match="is not a URL"):
            Sources(mirror=bad)


def test_requirements_pin_wins_and_conflicts_are_refused(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("# deps\nnumpy>=1.26\ntorch==2.13.0+cpu\nrequests  # http\n")
    p = planmod.from_advice(snap("cpu_venv_no_gpu.json"), requirements=str(req))
    assert p.torch == "2.13.0" and p.tag == "cpu"
    assert any("pinned by requirements.txt" in r for r in p.reasons)
    last = p.steps()[-1]["pip"]
    assert last[:3] == ["-r", str(req), "torch==2.13.0"]  # pip must keep the same torch
    with pytest.raises(planmod.PlanError, match="pins torch==2.13.0.*--torch asks for 2.12.0"):
        planmod.from_advice(snap("cpu_venv_no_gpu.json"), requirements=str(req), torch="2.12.0")


@pytest.mark.parametrize("line, why", [
    ("torch==2.1 --index-url http://evil", "is not a requirement this command installs"),
    ("-e git+https://x", r"is a pip option \(-e\), which this command does not take from a file: write plain"),
    ("numpy; $(id)", r"holds `\$`: pip would replace \$\{VAR\}"),
    ("https://evil/x.whl", "is not a requirement this command installs"),
    ("--trusted-host evil", r"is a pip option \(--trusted-host\).*package sources go on the command line"),
])
def test_requirements_lines_that_are_not_requirements_are_refused(tmp_path, line, why):
    req = tmp_path / "r.txt"
    req.write_text(line + "\n")
    with pytest.raises(planmod.PlanError, match=why):
        planmod.read_requirements(str(req))


def test_requirements_file_limits(tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"a\n" * (planmod.MAX_REQUIREMENTS_BYTES // 2 + 1))
    with pytest.raises(planmod.PlanError, match="larger than"):
        planmod.read_requirements(str(big))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(planmod.PlanError, match="not UTF-8"):
        planmod.read_requirements(str(binary))
    with pytest.raises(planmod.PlanError, match="cannot read"):
        planmod.read_requirements(str(tmp_path / "missing.txt"))


def test_from_requirements_reproduces_a_pin_file(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("--extra-index-url https://download.pytorch.org/whl/cu130\ntorch==2.14.1+cu130\n"
                   "torchvision==0.29.1+cu130\n")
    p = planmod.from_requirements(str(req), snap("h100_cu130_healthy.json"))
    assert p.torch == "2.14.1" and p.tag == "cu130" and p.pinned
    (step,) = p.steps()
    assert step["pip"][:2] == ["-r", str(req)]
    empty = tmp_path / "nopin.txt"
    empty.write_text("numpy\n")
    with pytest.raises(planmod.PlanError, match="pins no torch"):
        planmod.from_requirements(str(empty), snap("h100_cu130_healthy.json"))


def test_tensorflow_step_and_the_two_cuda_generations_warning():
    p = planmod.from_advice(snap("h100_cu130_healthy.json"), tensorflow=True)
    assert p.steps()[1]["pip"][0] == "tensorflow[and-cuda]"
    assert any("two environments" in r for r in p.reasons)
    w = planmod.from_advice(snap("windows_cpu_wheel_rtx4070.json"), tensorflow=True)
    assert w.tensorflow == "tensorflow" and any("CPU only since TF 2.11" in r for r in w.reasons)


def test_docker_image_for_a_gpu_machine():
    rec = advise_cli.recommend(snap("h100_cu130_healthy.json"))
    rt = docker.image(rec)
    dev = docker.image(rec, devel=True)
    assert rt["image"].startswith("pytorch/pytorch:") and rt["image"].endswith("-runtime")
    assert dev["image"] == rt["image"][: -len("runtime")] + "devel"
    release = rec["torch"]
    assert f":{release}." in rt["image"] and f"-cuda{rec['cuda']}-cudnn9-" in rt["image"]
    assert docker.image(rec, devel=True, machine="aarch64")["image"] is None  # devel images are amd64 only
    assert docker.image(advise_cli.recommend(snap("cpu_venv_no_gpu.json")))["image"] is None
    line = docker.run_line(rt["image"], workdir="/home/user/my project")
    assert "--gpus all" in line and shlex.split(line)[8] == "/home/user/my project:/workspace"
