"""explain's thirtieth round, from test30's misses (the installers, resolvers and lockfiles): uv's resolution report
read clause by clause, Poetry's chooser, a conda solver's arm-variant leaf, an index option read as a requirement,
pip's and Pipenv's hash checks, the wheel format's RECORD. The texts are written for these tests from each tool's
messages (their source and documentation), not copied from the corpus."""

from __future__ import annotations

import pytest

from torch_envcheck.explain import diagnose
from explain_answers import fix_of as _fix


def _uv(body):
    return "  × No solution found when resolving dependencies:\n  ╰─▶ Because " + body


def test_uv_pin_against_torchs_own_dependency():
    r = diagnose.diagnose(_uv("torch==2.12.0+cu130 depends on nvidia-nccl-cu13==2.28.3 and you require\n"
                              "      nvidia-nccl-cu13==2.29.1, we can conclude that your requirements and "
                              "torch==2.12.0+cu130 are incompatible."))
    assert r["signature"] == "uv-pin-against-torch" and r["layer"] == "torch-build", r
    assert "nvidia-nccl-cu13" in _fix(r) and "2.28.3" in _fix(r)


def test_uv_wheel_tags_name_the_python_range_of_the_release():
    r = diagnose.diagnose(_uv("torch==2.1.0 is unusable because no wheels are available with a matching Python ABI "
                              "tag and you require torch==2.1.0, we can conclude that your requirements are "
                              "unsatisfiable."))
    assert r["signature"] == "uv-no-wheel-for-this-python" and r["layer"] == "torch-build", r
    assert "Python 3.8 to 3.11" in r["explanation"]


def test_uv_first_index_hint_names_the_index_strategy():
    r = diagnose.diagnose(_uv("there is no version of numpy==2.1.3 and your project depends on numpy==2.1.3, we can "
                              "conclude that your project's requirements are unsatisfiable.\n\n      hint: `numpy` was "
                              "found on https://download.pytorch.org/whl/cu128, but not at the requested version "
                              "(numpy==2.1.3)."))
    assert r["signature"] == "uv-first-index-only", r
    assert "explicit = true" in _fix(r) and "unsafe-best-match" in _fix(r)


@pytest.mark.parametrize("extra, sig, word", [
    ("$ uv pip install torch==2.4.1+cu121 --index-url https://download.pytorch.org/whl/torch_stable.html\n",
     "uv-find-links-page-as-index", "--find-links"),
    ("uv 0.1.5 (x86_64-unknown-linux-gnu)\n", "uv-old-without-local-versions", "uv self update"),
    ("", "uv-no-such-version-on-index", "--index-url"),
])
def test_uv_no_version_follows_where_it_looked(extra, sig, word):
    r = diagnose.diagnose(extra + _uv("there is no version of torch==2.4.1+cu121 and you require torch==2.4.1+cu121, "
                                      "we can conclude that your requirements are unsatisfiable."))
    assert r["signature"] == sig and r["layer"] == "torch-build", r
    assert word in _fix(r)


def test_uv_distribution_without_a_file_for_this_platform():
    r = diagnose.diagnose("error: Distribution `torchaudio==2.0.0 @ registry+https://download.pytorch.org/whl/cu118` "
                          "can't be installed because it doesn't have a source distribution or wheel for the current "
                          "platform")
    assert r["signature"] == "uv-no-wheel-for-this-python", r


def test_poetry_no_candidates_names_the_release_python_range():
    r = diagnose.diagnose("  - Installing torch (2.0.1): Failed\n\n  RuntimeError\n\n  Unable to find installation "
                          "candidates for torch (2.0.1)\n\n  at ~/.local/pipx/venvs/poetry/lib/python3.12/site-packages/"
                          "poetry/installation/chooser.py:74 in choose_for")
    assert r["signature"] == "poetry-no-installation-candidates" and r["layer"] == "torch-build", r
    assert "poetry env use" in _fix(r) and "Python 3.8 to 3.11" in _fix(r)
    assert "3.12" in r["explanation"]


@pytest.mark.parametrize("variant, word", [("sbsa", "JetPack"), ("tegra", "server ARM")])
def test_conda_arm_variant_leaf(variant, word):
    r = diagnose.diagnose("Cannot solve the request because of: pytorch-gpu * cannot be installed because there are no "
                          "viable options:\n  └─ pytorch ==2.9.0 cuda*_generic*201 would require\n     └─ arm-variant * "
                          f"{variant}, for which no candidates were found.")
    assert r["signature"] == "conda-arm-variant-unavailable" and r["layer"] == "torch-build", r
    assert word in _fix(r)


@pytest.mark.parametrize("text, word", [
    ("$ pipenv install torch --index-url https://download.pytorch.org/whl/cu124\nERROR: Invalid requirement: "
     "'--index-url https://download.pytorch.org/whl/cu124'", "pipenv run pip"),
    ("setup.py: install_requires=['torch', '--extra-index-url https://download.pytorch.org/whl/cu121']\n"
     "error: Invalid requirement: '--extra-index-url https://download.pytorch.org/whl/cu121'", "metadata"),
    ("pip install -r requirements.txt\nERROR: Invalid requirement: '--find-links https://x/whl torch' (from line 2 "
     "of requirements.txt)", "own line"),
])
def test_index_option_read_as_a_requirement(text, word):
    r = diagnose.diagnose(text)
    assert r["signature"] == "index-option-as-requirement" and r["layer"] == "torch-build", r
    assert word in _fix(r)


def test_a_hash_mismatch_after_a_cut_download_is_a_download_again():
    r = diagnose.diagnose(
        "Downloading https://download.pytorch.org/whl/cu126/torch-2.7.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl "
        "(2436.1 MB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╸━━━━━━━━━ 1.8/2.4 GB 3.1 MB/s eta 0:03:12\nERROR: THESE "
        "PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please "
        "update the hashes. Otherwise, examine the package contents carefully; someone may have tampered with them.\n"
        "    torch from https://download.pytorch.org/whl/cu126/torch-2.7.0%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl"
        "#sha256=aa:\n        Expected sha256 aa\n             Got        bb")
    assert r["signature"] == "download-cut-short" and "--no-cache-dir" in _fix(r), r


def test_a_hash_mismatch_against_a_lock_is_a_relock():
    r = diagnose.diagnose("THESE PACKAGES DO NOT MATCH THE HASHES FROM Pipfile.lock!. If you have updated the package "
                          "versions, please update the hashes.\n    torch==2.3.1 from https://download.pytorch.org/whl/"
                          "cpu/torch-2.3.1%2Bcpu-cp311-cp311-linux_x86_64.whl#egg=torch:\n        Expected sha256 cc")
    assert r["signature"] == "hashes-of-another-file" and "pipenv lock" in _fix(r), r


def test_a_hash_mismatch_with_hashes_in_the_file_regenerates_them():
    r = diagnose.diagnose("pip install --require-hashes -r requirements.txt\nERROR: THESE PACKAGES DO NOT MATCH THE "
                          "HASHES FROM THE REQUIREMENTS FILE.\n    torch==2.5.1+cu121 from https://download.pytorch.org/"
                          "whl/cu121/torch-2.5.1%2Bcu121-cp310-cp310-linux_x86_64.whl:\n        Expected sha256 dd")
    assert r["signature"] == "hashes-of-another-file" and "--generate-hashes" in _fix(r), r


def test_a_wheel_whose_record_disagrees():
    r = diagnose.diagnose("$ wheel unpack torch-2.0.0-cp310-cp310-manylinux1_x86_64.whl\nUnpacking to: "
                          "./torch-2.0.0...Hash mismatch for file 'torch-2.0.0.dist-info/METADATA'")
    assert r["signature"] == "wheel-record-mismatch" and r["captures"]["package"] == "torch", r
