"""The conda probe on prefixes built with real conda-meta record shapes (conda and micromamba)."""

from __future__ import annotations

import json
import os

import pytest

from torch_envcheck.doctor.probes import conda as probe

from _conda_helpers import filler, pytorch_cuda_env, record, write_prefix


def _probe(prefix, **kw):
    """The probe's facts, with packages and requested keyed by name for the assertions."""
    kw.setdefault("env", {})
    kw.setdefault("system", "Linux")
    facts = probe.probe_prefix(str(prefix), **kw)
    names = [p["name"] for p in facts["packages"]]
    assert len(names) == len(set(names))
    facts["packages"] = {p["name"]: p for p in facts["packages"]}
    facts["requested"] = {r["name"]: {k: v for k, v in r.items() if k != "name"} for r in facts["requested"]}
    return facts


@pytest.mark.parametrize("style", ["conda", "micromamba"])
def test_lists_cuda_packages_with_version_build_channel(tmp_path, style):
    write_prefix(tmp_path, pytorch_cuda_env(style=style) + filler(30, style=style), style=style)
    facts = _probe(tmp_path)
    assert facts["records"] == 11 + 30 and facts["errors"] == [] and facts["records_truncated"] is False
    pt = facts["packages"]["pytorch"]
    assert (pt["version"], pt["build"], pt["build_number"], pt["channel"], pt["subdir"]) == \
        ("2.3.0", "py3.11_cuda12.1_cudnn8.9.2_0", 0, "pytorch", "linux-64")
    assert "pytorch-cuda >=12.1,<12.2" in pt["depends"] and pt["constrains"] == ["cpuonly <0"]
    assert facts["packages"]["cuda-runtime"]["channel"] == "nvidia"
    assert facts["packages"]["python"]["channel"] == "pkgs/main"
    assert facts["packages"]["libstdcxx-ng"]["runtime_files"] == ["lib/libstdc++.so", "lib/libstdc++.so.6",
                                                                 "lib/libstdc++.so.6.0.29"]
    # only the CUDA-relevant records are kept
    assert not any(name.startswith("pkg") for name in facts["packages"])
    json.dumps(facts)


@pytest.mark.parametrize("channel,url,expected", [
    ("https://conda.anaconda.org/conda-forge", None, "conda-forge"),            # conda >= 23
    ("https://conda.anaconda.org/conda-forge/linux-64", None, "conda-forge"),   # older conda, micromamba
    ("https://repo.anaconda.com/pkgs/main/win-64", None, "pkgs/main"),
    ("conda-forge/noarch", None, "conda-forge"),
    ("https://conda.anaconda.org/t/tk-123/private/linux-64", None, "private"),
    (None, "https://conda.anaconda.org/nvidia/linux-64/cuda-runtime-12.1.0-0.tar.bz2", "nvidia"),
    (None, None, None),
])
def test_channel_names(channel, url, expected):
    assert probe.channel_name(channel, url) == expected


def test_large_record_read_at_both_ends_matches_a_full_parse(tmp_path):
    # a pytorch record the size of a real one (12000 files): read by key at both ends
    rec = record("pytorch", "2.3.0", "py3.11_cuda12.1_cudnn8.9.2_0", "pytorch", n_files=12000,
                 depends=["pytorch-cuda >=12.1,<12.2", "pytorch-mutex 1.0 cuda"])
    # file names that spell the keys must not be taken for them
    rec["files"][:3] = ["version", "name", "depends"]
    write_prefix(tmp_path, [rec])
    path = tmp_path / "conda-meta" / "pytorch-2.3.0-py3.11_cuda12.1_cudnn8.9.2_0.json"
    assert path.stat().st_size > probe.FULL_PARSE_BYTES
    fast = probe.read_record(str(path), path.name)
    full = probe.parse_record(path.read_bytes(), path.name)
    for key in ("name", "version", "build", "build_number", "channel", "subdir", "depends", "constrains",
                "requested_spec"):
        assert fast[key] == full[key], key


def test_large_record_in_unsorted_compact_form_falls_back_to_a_full_parse(tmp_path):
    rec = record("pytorch", "2.3.0", "py3.11_cpu_0", "pytorch", n_files=12000)
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    # "version" first and compact: the tail window does not hold it whole -> full parse
    body = json.dumps({"version": rec.pop("version"), **rec}, separators=(",", ":"))
    (meta / "pytorch-2.3.0-py3.11_cpu_0.json").write_text(body)
    facts = _probe(tmp_path)
    assert facts["packages"]["pytorch"]["version"] == "2.3.0" and facts["errors"] == []


@pytest.mark.parametrize("content,expected", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "expected a JSON object, got list"),
    (json.dumps({"name": "cudnn", "build": "0"}).encode(), "'version' is missing"),
    (json.dumps({"name": "cudnn", "version": 8, "build": "0"}).encode(), "'version' is missing or not a string"),
    (b"\xff\xfe garbage", "not valid JSON"),
])
def test_malformed_record_becomes_an_error_fact(tmp_path, content, expected):
    write_prefix(tmp_path, pytorch_cuda_env())
    (tmp_path / "conda-meta" / "cudnn-8.9.2-h0_0.json").write_bytes(content)
    facts = _probe(tmp_path)
    assert "pytorch" in facts["packages"] and "cudnn" not in facts["packages"]
    assert len(facts["errors"]) == 1 and "cudnn-8.9.2-h0_0.json" in facts["errors"][0] and expected in facts["errors"][0]


def test_bounds_record_size_count_and_errors(tmp_path, monkeypatch):
    write_prefix(tmp_path, pytorch_cuda_env() + filler(20))
    (tmp_path / "conda-meta" / "badname.json").write_text("{}")
    monkeypatch.setattr(probe, "MAX_RECORD_BYTES", 1000)
    facts = _probe(tmp_path)
    assert any("larger than 1000 bytes" in e for e in facts["errors"])
    assert any("badname.json: the file name is not" in e for e in facts["errors"])
    monkeypatch.setattr(probe, "MAX_RECORDS", 5)
    monkeypatch.setattr(probe, "MAX_ERRORS", 2)
    facts = _probe(tmp_path)
    assert facts["records_truncated"] is True and facts["records"] <= 5
    assert len(facts["errors"]) == 3 and facts["errors"][-1].startswith("... more errors")


def test_history_gives_requested_specs_and_the_manager(tmp_path):
    write_prefix(tmp_path, pytorch_cuda_env(), history=[["python=3.11"], ["pytorch=2.3", "pytorch-cuda=12.1", "numpy"],
                                                        ["-", "numpy"]])
    hist = tmp_path / "conda-meta" / "history"
    hist.write_text(hist.read_text() + "==> 2024-06-01 <==\n# cmd: /home/user/bin/micromamba install torchvision\n"
                    '# update specs: ["torchvision"]\n')
    facts = _probe(tmp_path)
    assert set(facts["requested"]) == {"python", "pytorch", "pytorch-cuda", "torchvision"}
    assert facts["requested"]["pytorch"] == {"spec": "pytorch=2.3", "version": "2.3.0",
                                             "build": "py3.11_cuda12.1_cudnn8.9.2_0"}
    assert facts["manager"] == "micromamba"


def test_pip_distributions_and_runtime_files_they_put_in_the_env(tmp_path):
    site = write_prefix(tmp_path, pytorch_cuda_env(), pip=[
        ("torch", "2.3.1", "pip", ["torch/__init__.py,sha256=x,1"]),
        ("intel-openmp", "2024.1.0", "pip", ["../../libiomp5.so,sha256=x,1", "../../libgomp.so.1,sha256=y,2"]),
        ("numpy", "1.26.4", "conda", []),
        ("requests", "2.32.3", "uv", []),
        ("mystery", "1.0", None, []),
    ])
    facts = _probe(tmp_path, site_dirs=[site])
    by_name = {d["name"]: d for d in facts["pip"]}
    assert set(by_name) == {"torch", "intel-openmp", "requests", "mystery"}  # conda's numpy is not pip's
    assert by_name["requests"]["installer"] == "uv" and by_name["mystery"]["installer"] is None  # no INSTALLER: unknown
    assert by_name["intel-openmp"]["runtime_files"] == ["lib/libiomp5.so", "lib/libgomp.so.1"]
    assert by_name["torch"]["runtime_files"] is None


def test_windows_search_path_finds_toolkits_and_the_env_library_bin():
    env = "C:\\Users\\user\\miniconda3\\envs\\tf"
    toolkit = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.0\\bin"
    other = "D:\\cuda12\\bin"
    listing = {other: ["cudart64_12.dll"], env + "\\Library\\bin": ["cudart64_110.dll"]}
    path = ";".join([toolkit, "C:\\Windows", other, env + "\\Library\\bin", ""])
    # The probe runs on Linux here: normcase does not lower-case, so the env dir is given as written.
    entries = probe.windows_search_path(path, env, listdir=lambda d: listing[d] if d in listing else [])
    assert [(e["index"], e["kind"], e["cuda_version"]) for e in entries] == \
        [(0, "cuda", "11.0"), (2, "cuda", "12"), (3, "env-library-bin", None)]


def test_not_a_conda_env_gives_none(tmp_path, monkeypatch):
    monkeypatch.setattr(probe.sys, "prefix", str(tmp_path))
    assert probe.probe() is None
    (tmp_path / "conda-meta").mkdir()
    facts = probe.probe(env={"CONDA_PREFIX": str(tmp_path), "CONDA_DEFAULT_ENV": "dl"})
    assert facts["env_name"] == "dl" and facts["records"] == 0 and facts["packages"] == []


def test_unreadable_conda_meta_raises_for_the_runner(tmp_path):
    with pytest.raises(RuntimeError, match="cannot list"):
        probe.probe_prefix(str(tmp_path / "missing"))


def test_registered_with_the_probe_runner(tmp_path, monkeypatch):
    from torch_envcheck.doctor import probes
    monkeypatch.setattr(probe.sys, "prefix", str(tmp_path))
    write_prefix(tmp_path, pytorch_cuda_env())
    res = probes.run(only=("conda",))
    assert res["probe_errors"] == {}
    assert {p["name"]: p["version"] for p in res["sections"]["conda"]["packages"]}["pytorch"] == "2.3.0"
    assert os.path.basename(res["sections"]["conda"]["prefix"]) == tmp_path.name
