"""What the installed torch release has or lacks, read from a text: a package's floor on torch's version, a torch
name that is missing (a local torch.py, a removed private name, a public name from a later release), torch 2.6's
weights-only torch.load, torch.compile refused on Windows, setuptools 70 without pkg_resources.packaging.  The texts
follow each message's source (quoted in explain/layer_rules/torch_release.py and toolchain.py); the oracle is what
the message means, written before the rules ran."""

from __future__ import annotations

import re

import pytest

from torch_envcheck.explain import diagnose

REINSTALL = re.compile(r"\b(?:pip3?|uv|conda|mamba|apt(?:-get)?)\s+install\b|(?<!no )\breinstall\b|--force-reinstall",
                       re.IGNORECASE)
CVE = ("ValueError: Due to a serious vulnerability issue in `torch.load`, even with `weights_only=True`, we now require "
       "users to upgrade torch to at least v2.6 in order to use the function. This version restriction does not apply "
       "when loading files with safetensors.\nSee the vulnerability report here "
       "https://nvd.nist.gov/vuln/detail/CVE-2025-32434")


def test_transformers_torch_load_check_asks_for_torch_26_in_the_same_build():
    r = diagnose.diagnose("  File \"/venv/lib/python3.11/site-packages/transformers/modeling_utils.py\", line 556, in "
                          "load_state_dict\n    check_torch_load_is_safe()\n" + CVE)
    assert r["layer"] == "torch-build" and r["environment_problem"], r
    assert "torch>=2.6" in r["fix"] and "safetensors" in r["fix"], r["fix"]


@pytest.mark.parametrize("text, need, tag", [
    ("RuntimeError: diffusers requires torch>=2.0 but found torch==1.13.1", "2.0", None),
    ("RuntimeError: This function requires PyTorch >= 2.4 (you have 2.1.2+cu121)", "2.4", "cu121"),
    ("ImportError: peft requires torch >= 1.13.0, but found 1.12.1+cu113.", "1.13", "cu113"),
])
def test_a_package_floor_above_the_torch_found_upgrades_torch_in_its_build(text, need, tag):
    r = diagnose.diagnose(text)
    assert r["layer"] == "torch-build" and f"torch>={need}" in r["fix"], r
    if tag:
        assert f"whl/{tag}" in r["fix"], r["fix"]


def test_a_floor_the_torch_found_meets_is_not_a_torch_too_old():
    r = diagnose.diagnose("ValueError: This feature requires torch>=2.1 (found 2.3.0).")
    assert (r or {}).get("signature") not in ("package-needs-newer-torch", "compiled-package-needs-newer-torch"), r


def test_a_compiled_package_floor_installs_that_packages_build_first():
    r = diagnose.diagnose("ImportError: xformers requires PyTorch >= 2.1, but you have 2.0.1")
    assert r["layer"] == "toolchain" and r["signature"] == "compiled-package-needs-newer-torch", r
    assert r["fix"].startswith("Install the release of xformers"), r["fix"]


@pytest.mark.parametrize("text", [
    "AttributeError: partially initialized module 'torch' has no attribute 'cuda' (most likely due to a circular import)",
    "AttributeError: module 'torch' has no attribute 'cuda'",
    "AttributeError: module 'torch' has no attribute '__version__'",
])
def test_torch_without_its_core_names_is_not_the_package(text):
    r = diagnose.diagnose(text)
    assert r["signature"] == "torch-is-not-the-package" and "torch.__file__" in r["fix"], r


def test_a_missing_private_name_points_at_the_older_caller():
    r = diagnose.diagnose("AttributeError: module 'torch' has no attribute '_six'")
    assert r["signature"] == "torch-name-removed" and "torch._six" in r["fix"], r
    assert "release made for this torch" in r["fix"], r["fix"]


@pytest.mark.parametrize("mod, attr", [("torch", "float8_e4m3fn"), ("torch.library", "register_fake"),
                                       ("torch", "compiler")])
def test_a_missing_public_name_means_an_older_torch(mod, attr):
    r = diagnose.diagnose(f"AttributeError: module '{mod}' has no attribute '{attr}'")
    assert r["signature"] == "torch-name-missing" and r["layer"] == "torch-build", r
    assert f"{mod}.{attr}" in r["fix"] and "upgrade torch" in r["fix"], r["fix"]


@pytest.mark.parametrize("text", [
    "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, "
    "do those steps only if you trust the source of the checkpoint.",
    "RuntimeError: Cannot use ``weights_only=True`` with TorchScript archives passed to ``torch.load``. In PyTorch 2.6, "
    "we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`.",
])
def test_the_weights_only_default_is_the_programs_call_not_the_install(text):
    r = diagnose.diagnose(text)
    assert r["layer"] == "not-environment" and not r["environment_problem"], r
    assert "weights_only=False" in r["fix"] and "add_safe_globals" in r["fix"], r["fix"]
    assert not REINSTALL.search(r["fix"]), r["fix"]


@pytest.mark.parametrize("frame", ["", "  File \"C:\\venv\\lib\\site-packages\\torch\\_dynamo\\eval_frame.py\", line 375, "
                                       "in check_if_dynamo_supported\n"])
def test_compile_refused_on_windows_runs_eager(frame):
    r = diagnose.diagnose(frame + "RuntimeError: Windows not yet supported for torch.compile")
    assert r["signature"] == "compile-refused-on-windows" and "compile=False" in r["fix"], r
    assert "WSL 2" in r["fix"] and "triton-windows" in r["fix"], r["fix"]


@pytest.mark.parametrize("frame, names_torch", [
    ("  File \"/opt/conda/lib/python3.8/site-packages/torch/utils/cpp_extension.py\", line 25, in <module>\n"
     "    from pkg_resources import packaging  # type: ignore[attr-defined]\n", True),
    ("  File \"/home/user/clip/clip.py\", line 6, in <module>\n    from pkg_resources import packaging\n", False),
])
def test_setuptools_70_without_pkg_resources_packaging(frame, names_torch):
    r = diagnose.diagnose(frame + "ImportError: cannot import name 'packaging' from 'pkg_resources' "
                                  "(/opt/conda/lib/python3.8/site-packages/pkg_resources/__init__.py)")
    assert r["layer"] == "toolchain" and "setuptools<70" in r["fix"], r
    assert ("torch to 2.2" in r["fix"]) is names_torch, r["fix"]
