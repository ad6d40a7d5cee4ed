"""The world corpus (tests/data/explain/world_train.json, world_test*.json) is well
formed: every entry has its public source, the diagnosis, the expected answer in the form
benchmarks/explain_eval.py grades; it sits in the split its hash assigns; no text repeats (nor one
of real_errors.json); nothing carries a path of the machine it was recorded on; each frozen split
matches its recorded digest.  This checks the data, never explain's accuracy on it."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data" / "explain"
# The registry of splits (tests/data/explain/splits.json): their order, the batch each whole-batch split holds and
# its state. A split held out from development (held-out) is measured once and then retired into development data
# (retired): its file stays unchanged (its digest is checked) and may then be read and cited like train's.
REGISTRY = json.loads((DATA / "splits.json").read_text(encoding="utf-8"))["splits"]
SPLITS = tuple(r["split"] for r in REGISTRY)
RETIRED = tuple(r["split"] for r in REGISTRY if r["state"] == "retired")
FROZEN: tuple[str, ...] = tuple(r["split"] for r in REGISTRY if r["state"] == "held-out")
# the splits that hold one batch as a whole, collected apart or after a round's code by a fixed procedure from threads
# in none of the other files nor real_errors.json: batch -> split
WHOLE_BATCH = {r["batch"]: r["split"] for r in REGISTRY if r["batch"] is not None}
# From this batch on an entry's split is decided by its source URL alone (train or test2).
URL_SPLIT_BATCH = 11
# From this batch on the URL rule sends the even half to a third frozen split (train or test3).
TEST3_BATCH = 12
# This batch was collected the same way as test4, from threads in none of the other files, and split when it was
# merged by a rule fixed before any of its entries was read: the even half by source URL to test5, the rest to train.
TRAIN_BATCH = 14
EXPECTED_KEYS = {"recognised", "layer", "environment_problem", "fix", "fix_patterns"}
# The classes the corpus must cover (issue's list), each present in the corpus as a whole.
REQUIRED_CLASSES = {"container", "driver-state", "rocm", "jit-arch", "c-runtime", "cuda-libs", "ext-abi",
                    "built-for-torch", "toolchain", "tensorflow", "nccl", "numpy", "not-env", "windows", "macos"}
# Paths of the recording machine: its work tree, venvs, caches (a user's /home/x/work/ is fine).
MACHINE_PATH = re.compile(r"(?<![\w.~-])/work/|/tmp/bash_jobs|jit-cache|/work/venvs")


def _load(split):
    return json.loads((DATA / f"world_{split}.json").read_text(encoding="utf-8"))


def _norm(text):
    return re.sub(r"\s+", " ", text).strip().lower()


def _split_of(source, text, batch):
    if batch in WHOLE_BATCH:
        return WHOLE_BATCH[batch]
    if batch == TRAIN_BATCH:
        return "test5" if int(hashlib.sha256(source.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "train"
    if batch >= URL_SPLIT_BATCH:
        frozen = "test3" if batch >= TEST3_BATCH else "test2"
        return frozen if int(hashlib.sha256(source.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "train"
    h = hashlib.sha256((source + "\n" + text).encode("utf-8")).hexdigest()
    return "test" if int(h, 16) % 3 == 0 else "train"


@pytest.fixture(scope="module")
def corpus():
    return {sp: _load(sp) for sp in SPLITS}


@pytest.mark.parametrize("split", RETIRED + FROZEN)
def test_frozen_split_matches_its_recorded_digest(split):
    recorded = (DATA / f"world_{split}.sha256").read_text(encoding="utf-8").split()[0]
    assert hashlib.sha256((DATA / f"world_{split}.json").read_bytes()).hexdigest() == recorded


def test_files_declare_their_split_and_layers(corpus):
    for sp, data in corpus.items():
        assert data["split"] == sp
        assert isinstance(data["about"]["layers"], dict) and data["about"]["layers"]
        assert "sha256" in data["about"]["split"]
        assert data["entries"], sp


@pytest.mark.parametrize("split", SPLITS)
def test_every_entry_has_source_diagnosis_and_expected_answer(corpus, split):
    layers = set(corpus[split]["about"]["layers"])
    for e in corpus[split]["entries"]:
        where = e.get("id")
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,80}", e["id"]), where
        assert re.match(r"https://[a-z0-9.-]+\.[a-z]{2,}/\S+$", e["source"]), where
        assert isinstance(e["text"], str) and e["text"].strip() and len(e["text"]) <= 20000, where
        assert isinstance(e["diagnosis"], str) and 10 <= len(e["diagnosis"]) <= 400, where
        assert isinstance(e["class"], str) and e["class"], where
        assert isinstance(e["batch"], int) and e["batch"] >= 1, where
        exp = e["expected"]
        assert set(exp) == EXPECTED_KEYS, where
        assert isinstance(exp["recognised"], bool), where
        assert exp["layer"] in layers, where
        assert isinstance(exp["environment_problem"], bool), where
        assert isinstance(exp["fix"], str) and exp["fix"].strip(), where
        assert isinstance(exp["fix_patterns"], list), where
        for p in exp["fix_patterns"]:
            re.compile(p)
        if exp["environment_problem"]:
            # the right fix must be checkable: at least one pattern it has to match
            assert exp["fix_patterns"], where
            assert exp["layer"] != "not-environment", where
        else:
            assert exp["layer"] == "not-environment", where


@pytest.mark.parametrize("split", SPLITS)
def test_each_entry_is_in_the_split_its_hash_assigns(corpus, split):
    for e in corpus[split]["entries"]:
        assert _split_of(e["source"], e["text"], e["batch"]) == split, e["id"]


def test_no_text_repeats_and_no_test_text_reaches_the_catalogue(corpus):
    """Train texts (and, since they were retired, the former test splits' texts) may become the cited sources of
    catalogue sentences (real_errors.json): that is what development data is for.  A held-out split's text never
    may: it is measured, never tuned on."""
    catalogue, ids = {}, set()
    for e in json.loads((DATA / "real_errors.json").read_text(encoding="utf-8"))["entries"]:
        catalogue[_norm(e["text"])] = "real_errors:" + e["id"]
        ids.add(e["id"])
    for e in (e for sp in FROZEN for e in corpus[sp]["entries"]):
        key = _norm(e["text"])
        assert key not in catalogue and e["id"] not in ids, f"test text {e['id']} is in the catalogue's corpus"
    seen = {}
    for sp in SPLITS:
        for e in corpus[sp]["entries"]:
            key = _norm(e["text"])
            assert key not in seen, f"{e['id']} repeats {seen.get(key)}"
            seen[key] = e["id"]
            ids.add(e["id"])


def _sources(entries) -> set:
    return {e["source"].rstrip("/") for e in entries}


def _cited() -> set:
    return _sources(json.loads((DATA / "real_errors.json").read_text(encoding="utf-8"))["entries"])


def _assert_new_threads(batch, elsewhere: set, what: str):
    """No thread of `batch` is in `elsewhere` or twice in the batch: a thread read while tuning, or measured
    before, would add no new variety to train and measure nothing new in a test split."""
    seen = set()
    for e in batch:
        src = e["source"].rstrip("/")
        assert src not in elsewhere, f"{e['id']}: {e['source']} is already in the corpus"
        assert src not in seen, f"{e['id']}: {e['source']} twice in {what}"
        seen.add(src)


def test_the_collected_apart_batch_14_is_new_and_split_between_train_and_test5(corpus):
    """Batch 14 is split between train and test5 (and test5 holds nothing else), from threads in none of the
    other splits.  While test5 was held out none of its threads was a source of the catalogue
    (real_errors.json); since it was retired, its threads may be cited like train's."""
    assert corpus["test5"]["entries"] and all(e["batch"] == TRAIN_BATCH for e in corpus["test5"]["entries"])
    batch = [e for sp in ("train", "test5") for e in corpus[sp]["entries"] if e["batch"] == TRAIN_BATCH]
    assert len(batch) > len(corpus["test5"]["entries"])
    other = {s for sp in SPLITS if sp not in ("train", "test5") for s in _sources(corpus[sp]["entries"])}
    other |= _sources(e for e in corpus["train"]["entries"] if e["batch"] != TRAIN_BATCH)
    _assert_new_threads(batch, other, "batch 14")


@pytest.mark.parametrize("split", [r["split"] for r in REGISTRY if r["batch"] is not None])
def test_a_whole_batch_split_is_its_batch_and_new(corpus, split):
    """A whole-batch split (test4, test6 and on) holds its batch as a whole, and the batch is nowhere else; none of
    its threads is in another split or in real_errors.json, and none of its texts repeats one of theirs (checked for
    all splits above)."""
    batch = next(r["batch"] for r in REGISTRY if r["split"] == split)
    entries = corpus[split]["entries"]
    assert entries and all(e["batch"] == batch for e in entries)
    assert not [e["id"] for sp in SPLITS if sp != split for e in corpus[sp]["entries"] if e["batch"] == batch]
    other = {s for sp in SPLITS if sp != split for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(entries, other, split)


def test_the_registry_lists_every_corpus_file_once():
    files = {p.name[len("world_"):-len(".json")] for p in DATA.glob("world_*.json")}
    assert set(SPLITS) == files and len(SPLITS) == len(set(SPLITS))
    batches = [r["batch"] for r in REGISTRY if r["batch"] is not None]
    assert len(batches) == len(set(batches)) and TRAIN_BATCH not in batches
    assert [r["split"] for r in REGISTRY if r["state"] == "development"] == ["train"]
    assert all(r["state"] in ("development", "held-out", "retired") for r in REGISTRY)


@pytest.mark.parametrize("split", RETIRED)
def test_the_scorer_reads_a_retired_split_as_development(split):
    """A retired split measured its round once and was retired: --wrong lists its misses, it is development data, and
    --split all still reads it."""
    ev = _scorer()
    assert split not in ev.FROZEN
    assert split in ev.SPLIT_SETS["all"] and split in ev.SPLIT_SETS["dev"]


def test_the_scorer_leaves_held_out_splits_out_of_development():
    ev = _scorer()
    assert set(ev.FROZEN) == set(FROZEN)
    assert not set(ev.FROZEN) & set(ev.SPLIT_SETS["dev"])
    assert not set(ev.FROZEN) & set(RETIRED)


def test_a_repeated_thread_is_caught():
    entry = {"id": "x-1", "source": "https://github.com/o/r/issues/1"}
    with pytest.raises(AssertionError, match="already in the corpus"):
        _assert_new_threads([entry], {"https://github.com/o/r/issues/1"}, "test6")
    with pytest.raises(AssertionError, match="twice in test6"):
        _assert_new_threads([entry, dict(entry, id="x-2")], set(), "test6")


def test_nothing_carries_a_path_of_the_recording_machine(corpus):
    for sp in SPLITS:
        raw = (DATA / f"world_{sp}.json").read_text(encoding="utf-8")
        m = MACHINE_PATH.search(raw)
        assert m is None, f"world_{sp}.json: {raw[max(0, m.start() - 60):m.end() + 60]!r}"


def test_every_required_class_is_covered(corpus):
    classes = {e["class"] for sp in SPLITS for e in corpus[sp]["entries"]}
    assert REQUIRED_CLASSES <= classes, sorted(REQUIRED_CLASSES - classes)


def _scorer():
    import importlib.util  # noqa: PLC0415
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "explain_eval.py"
    spec = importlib.util.spec_from_file_location("explain_eval", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_scorer_grades_the_four_criteria_without_running_explain():
    ev = _scorer()
    env = {"recognised": True, "layer": "rocm", "environment_problem": True, "fix": "x",
           "fix_patterns": ["HSA_OVERRIDE_GFX_VERSION"]}
    good = {"recognised": True, "layer": "rocm", "environment_problem": True,
            "fix": "export HSA_OVERRIDE_GFX_VERSION=10.3.0"}
    assert ev.grade({"expected": env}, good)["right"]
    assert not ev.grade({"expected": env}, dict(good, fix="reinstall ROCm"))["fix"]
    assert not ev.grade({"expected": env}, dict(good, layer="driver"))["right"]
    assert not any(ev.grade({"expected": env}, None).values())
    not_env = {"recognised": True, "layer": "not-environment", "environment_problem": False,
               "fix": "no reinstall", "fix_patterns": []}
    answer = {"recognised": True, "layer": "not-environment", "environment_problem": False,
              "fix": "Reduce the batch size; no reinstall needed."}
    assert ev.grade({"expected": not_env}, answer)["right"]
    assert not ev.grade({"expected": not_env}, dict(answer, fix="pip install --force-reinstall torch"))["fix"]


def test_scorer_reads_every_split():
    ev = _scorer()
    assert ev.SPLIT_SETS["all"] == SPLITS and set(ev.FROZEN) == set(FROZEN)
    assert ev.SPLIT_SETS["both"] == ("train", "test")
    for sp in SPLITS:
        assert ev.load(sp), sp


