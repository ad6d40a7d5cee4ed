"""fleet --preflight without processes: the outlier analysis (median absolute deviation), the link
attribution, Slurm's hostlist form, the GPU-health rules on recorded NVML facts, the Xid reader, the
node page, and a saved report read back."""

from __future__ import annotations

import json
import os
import random

import pytest

from torch_envcheck.fleet import aggregate, health, nodes, outliers, preflight, rank_facts, render

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data", "fleet", "gpu_health.json")


# ------------------------------------------------------------------ the analysis

def test_slow_outliers_flags_the_slow_rank_and_never_the_fast_one():
    values = {r: 1.0 + 0.01 * (r % 3) for r in range(8)}
    values[5] = 4.0
    values[2] = 0.3  # faster than the rest: never a reason to exclude
    a = outliers.slow_outliers(values)
    assert set(a["outliers"]) == {5}
    assert a["outliers"][5] == pytest.approx(4.0 / a["median"])


def test_slow_outliers_needs_both_the_spread_and_the_ratio():
    # 40% slower stands out by MAD but is under the 1.5x ratio: not flagged by default
    values = {r: 1.0 for r in range(8)}
    values[3] = 1.4
    assert outliers.slow_outliers(values)["outliers"] == {}
    assert set(outliers.slow_outliers(values, min_ratio=1.2)["outliers"]) == {3}
    # a noisy fleet whose slowest is 1.6x but within its own spread: not flagged
    noisy = {r: v for r, v in enumerate([1.0, 1.6, 0.7, 1.3, 0.9, 1.5, 0.8, 1.2])}
    assert outliers.slow_outliers(noisy)["outliers"] == {}


def test_slow_outliers_with_too_few_values_says_so():
    a = outliers.slow_outliers({0: 1.0, 1: 9.0, 2: None})
    assert a["outliers"] == {} and "too few" in a["reason"]


def test_healthy_fleets_have_no_false_positive_over_many_draws():
    rng = random.Random(7)
    for _ in range(500):
        values = {r: 0.002 * rng.uniform(0.9, 1.15) for r in range(rng.randint(3, 64))}
        assert outliers.slow_outliers(values)["outliers"] == {}


def test_link_rounds_cover_every_ring_link_once_without_a_rank_twice_per_round():
    for n in (2, 3, 4, 7, 8, 1024, 1025):
        rounds = preflight.link_rounds(n)
        assert len(rounds) <= 3
        seen = [p for r in rounds for p in r]
        assert sorted(seen) == sorted(preflight.link_pairs(n))
        for r in rounds:
            ends = [x for p in r for x in p]
            assert len(ends) == len(set(ends))
    assert preflight.link_pairs(2) == [(0, 1)] and preflight.link_pairs(1) == []


def test_attribute_links_blames_the_common_end_or_the_link_itself():
    n = 8
    times = {p: 0.001 for p in preflight.link_pairs(n)}
    times[(4, 5)] = times[(5, 6)] = 0.02      # rank 5 is slow: both of its links
    times[(1, 2)] = 0.03                       # one bad link: neither end slow on its other link
    res = outliers.attribute_links(times, n)
    assert set(res["ranks"]) == {5}
    assert [(a, b) for a, b, _ in res["links"]] == [(1, 2)]


def test_hostlist_matches_slurm_compressed_form():
    assert outliers.hostlist(["node01", "node02", "node03", "node07", "gpu5"]) == "gpu5,node[01-03,07]"
    assert outliers.hostlist(["node9", "node10", "node11"]) == "node[9-11]"
    assert outliers.hostlist(["login", "a1"]) == "a1,login"
    assert outliers.hostlist([]) == ""


def _records(n, per_node=2, health_by_rank=None):
    recs = []
    for r in range(n):
        facts = {"rank": r, "host": f"node{r // per_node:02d}", "local_rank": r % per_node}
        if health_by_rank and r in health_by_rank:
            facts["health"] = health_by_rank[r]
        recs.append({"rank": r, "status": "ok", "error": None, "rank_facts": facts, "snapshot": None,
                     "report": None})
    return recs


def _preflight(n, slow=None, factor=4.0):
    rows = []
    for r in range(n):
        k = factor if r == slow else 1.0
        rows.append({"rank": r, "matmul_s": 0.002 * k, "sgemm_s": None, "triad_s": 0.001 * k,
                     "link_s": 0.0002 * (100 if r in (slow, (slow or 0) - 1) and slow is not None else 1)})
    return {"ranks": rows, "pairs": [list(p) for p in preflight.link_pairs(n)], "matmul_n": 256,
            "matmul_flops": 2 * 256 ** 3, "triad_bytes": 12 << 22, "link_bytes": 1 << 20, "device": "cpu"}


def test_report_names_the_slow_node_and_excludes_exactly_it():
    rep = aggregate.build(_records(8), preflight=_preflight(8, slow=5))
    codes = [f["code"] for f in rep["findings"]]
    assert "TE958" in codes and "TE959" not in codes
    assert rep["exclude"] == {"hosts": ["node02"], "slurm": "node02"}
    assert rep["verdict"]["exit_status"] == 1
    page = nodes.rows(rep)
    assert page[0]["host"] == "node02" and page[0]["exclude"] and not any(r["exclude"] for r in page[1:])
    text = render.to_terminal(rep)
    assert "exclude: node02" in text and "EXCLUDE" in text
    assert "**exclude**" in render.to_markdown(rep)


def test_a_hostile_host_name_stays_one_word_in_the_fix():
    recs = _records(8)
    for r in recs[4:6]:
        r["rank_facts"]["host"] = "n1;$(reboot)"
    rep = aggregate.build(recs, preflight=_preflight(8, slow=5))
    fix = [f for f in rep["findings"] if f["code"] == "TE958"][0]["fix"]
    assert "--exclude='n1;$(reboot)' " in fix


def test_healthy_report_excludes_nobody():
    rep = aggregate.build(_records(8), preflight=_preflight(8))
    assert rep["exclude"] == {"hosts": [], "slurm": ""}
    assert not [f for f in rep["findings"] if f["code"] in ("TE958", "TE959", "TE960")]
    assert rep["verdict"]["exit_status"] == 0


def test_a_failed_preflight_is_a_warning_not_an_exclusion():
    rep = aggregate.build(_records(4), preflight={"error": "links: RuntimeError: connection reset"})
    f = [f for f in rep["findings"] if f["code"] == "TE960"]
    assert f and f[0]["severity"] == "warning" and rep["exclude"]["hosts"] == []


def test_saved_preflight_report_reads_back_with_the_same_verdict(tmp_path):
    from torch_envcheck.fleet import load
    rep = aggregate.build(_records(8), preflight=_preflight(8, slow=5), min_ratio=2.0)
    path = tmp_path / "fleet.json"
    path.write_text(render.to_json(rep), encoding="utf-8")
    back = load.load(str(path))
    assert back["exclude"] == rep["exclude"]
    assert back["preflight"]["analysis"]["min_ratio"] == 2.0
    # a saved file cannot smuggle its own verdict in: the analysis is made again from the numbers
    data = json.loads(path.read_text(encoding="utf-8"))
    data["preflight"]["analysis"]["exclude"] = ["node00"]
    data["exclude"] = {"hosts": ["node00"], "slurm": "node00"}
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load.load(str(path))["exclude"]["hosts"] == ["node02"]


# ------------------------------------------------------------------ GPU health

def _cases():
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)["cases"]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["name"])
def test_gpu_health_rules_on_recorded_facts(case):
    h = health.normalise(case["health"], rank_facts._typed)  # as rank 0 keeps a rank's payload
    rep = aggregate.build(_records(4, health_by_rank={1: h}))
    got = sorted({f["code"] for f in rep["findings"] if f["code"] in [f"TE96{i}" for i in range(1, 8)]})
    assert got == sorted(set(case["expect"])), case["name"]
    assert (rep.get("exclude", {}).get("hosts") == ["node00"]) is case["exclude"]
    for f in rep["findings"]:
        if f["code"] in case["expect"]:
            assert f["details"]["ranks"] == [1] and f["details"]["hosts"] == ["node00"]


def test_health_normalise_drops_what_is_not_declared():
    h = health.normalise({"ecc_uncorrected_volatile": "7", "remapping_failed": 1, "evil": {"x": 1},
                          "clock_event_reasons": ["HwSlowdown", "rm -rf"], "xid": [{"xid": 79, "pci": 5}, "x"]},
                         rank_facts._typed)
    assert h == {"ecc_uncorrected_volatile": None, "remapping_failed": None, "clock_event_reasons": ["HwSlowdown"],
                 "xid": [{"pci": None, "xid": 79}]}
    assert health.normalise("nonsense", rank_facts._typed) is None


def test_xids_are_read_from_the_kernel_log_format(tmp_path):
    log = tmp_path / "kmsg"
    log.write_text("4,1234,5678,-;NVRM: Xid (PCI:0000:2B:00): 79, GPU has fallen off the bus.\n"
                   "4,1235,5679,-;NVRM: Xid (0000:01:00): 3, C 00000005\n"
                   "6,1236,5680,-;usb 1-1: new device\n", encoding="utf-8")
    found, source = health.xids_from_kmsg(str(log))
    assert source == "kmsg"
    assert found == [{"pci": "0000:2b:00", "xid": 79}, {"pci": "0000:01:00", "xid": 3}]
    missing, why = health.xids_from_kmsg(str(tmp_path / "absent"))
    assert missing is None and why.startswith("unreadable")


def test_xid_reader_does_not_block_on_a_fifo(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    found, source = health.xids_from_kmsg(str(fifo))  # O_NONBLOCK: no writer means no data, at once
    assert found == [] and source == "kmsg"


def test_bus_ids_normalise_to_the_xid_form():
    assert health.norm_bus_id("00000000:3B:00.0") == "0000:3b:00"
    assert health.norm_bus_id("0000:3b:00") == "0000:3b:00"
    assert health.norm_bus_id("nonsense") is None


def test_test_nodes_knob_splits_one_host_into_named_nodes(monkeypatch):
    monkeypatch.setenv(rank_facts.ENV_TEST_NODES, "4")
    assert [rank_facts.hostname(r, 8) for r in range(8)] == [f"node{r // 2:02d}" for r in range(8)]
    monkeypatch.delenv(rank_facts.ENV_TEST_NODES)
    assert rank_facts.hostname(0, 8) == rank_facts.socket.gethostname()[:255]
