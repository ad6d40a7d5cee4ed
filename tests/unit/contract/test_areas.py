"""One Area record per area (torch_envcheck/doctor/areas.py), and every table derived from it: the
rule modules, the headlines, the probe routing, the could-not-judge facts, the --verbose sections."""

from __future__ import annotations

import pytest

import torch_envcheck.doctor as doctor
from torch_envcheck.doctor.finding import Finding
from torch_envcheck.doctor import areas, codes, probes, rules
from torch_envcheck.facts import contract
from torch_envcheck.doctor.render import areas as render_areas


def test_report_order_and_optional_areas():
    assert areas.AREAS == ("platform", "torch", "driver", "gpu", "libraries", "toolchain", "extension", "tensorflow")
    assert areas.OPTIONAL_AREAS == ("conda",)
    assert doctor.AREAS == rules.AREAS == areas.AREAS and rules.OPTIONAL_AREAS == areas.OPTIONAL_AREAS
    assert areas.areas_for({}) == areas.AREAS
    assert areas.areas_for({}, [Finding.from_dict({"area": "conda"})]) == areas.ORDER
    assert areas.areas_for({"platform": {"python": {"conda_env": "dl"}}}) == areas.ORDER


@pytest.mark.parametrize("area", areas.ALL, ids=lambda a: f"{a.name}-area")
def test_each_record_resolves(area):
    module = rules.MODULES[area.name]
    assert module.__name__ == f"{areas.RULES_PACKAGE}.{area.rules}" and module.RULES
    assert all(fn.__module__ == module.__name__ for fn in module.RULES)
    assert callable(render_areas._headline(area.name))
    assert isinstance(render_areas.headline(area.name, {}), str)
    assert codes.CODES[area.probe_failed][0].endswith("probe-failed")
    if area.could_not_judge:
        assert codes.CODES[area.could_not_judge][0].endswith("-unknown") and area.judged_by
    assert all(contract.declared(p) for p in area.judged_by)
    assert all(s in contract.SECTIONS for s in area.shows)
    assert area.title and render_areas.sections(area.name) == area.shows


def test_every_probe_belongs_to_an_area():
    assert {p: areas.probe_area(p) for p in probes.ALL} == {
        "platform": "platform", "torch": "torch", "packages": "torch", "driver": "driver", "env": "platform",
        "libraries": "libraries", "toolchain": "toolchain", "extension": "extension", "conda": "conda",
        "tensorflow": "tensorflow", "file_owners": "tensorflow", "system": "platform"}
    # older names and helpers' names: a word in the name
    assert areas.probe_area("nvidia-smi") == "driver" and areas.probe_area("cudnn_version") == "libraries"
    assert areas.probe_area("something else") == "platform"


def test_a_record_with_a_foreign_code_fails():
    bad = areas.Area("gpu", "GPUs", "gpu", "areas:gpu_headline", "TE390")
    saved = areas.ALL
    try:
        areas.ALL = (bad,)
        with pytest.raises(ValueError, match="TE390"):
            areas._check()
    finally:
        areas.ALL = saved
