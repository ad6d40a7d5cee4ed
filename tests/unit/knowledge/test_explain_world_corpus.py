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
SPLITS = ("train", "test", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9",
          "test10", "test11", "test12", "test13", "test14", "test15", "test16", "test17", "test18",
          "test19", "test20", "test21", "test22", "test23", "test24", "test25", "test26", "test27", "test28", "test29", "test30", "test31", "test32",
          "test33", "test34", "test35", "test36", "test37", "test38", "test39")
# The first six test splits, measured and reported, were retired into development data on 2026-12-02, test7 to test9
# on 2026-12-03, test10 on 2026-12-04 (each after its last held-out figure): their files stay unchanged (their digests
# are checked) and may now be read and cited like train; test11 (collected after the tenth round's code by a fixed
# procedure) too, after its one measurement.
RETIRED = ("test", "test2", "test3", "test4", "test5", "test6", "test7", "test8", "test9", "test10", "test11",
           "test12", "test13", "test14", "test15", "test16", "test17", "test18", "test19", "test20", "test21",
           "test22", "test23", "test24", "test25", "test26", "test27", "test28", "test29", "test30", "test31", "test32",
           "test33", "test34", "test35", "test36", "test37", "test38", "test39")
# test12 (collected after the eleventh round's code) too, after its one measurement.
# test13 (collected after the twelfth round's code) too, after its one measurement.
# test14 (collected after the thirteenth round's code) too, after its one measurement.
# test15 (collected after the fourteenth round's code) too, after its one measurement.
# test16 (collected after the fifteenth round's code) too, after its one measurement.
# test17 (collected after the sixteenth round's code) too, after its one measurement.
# test18 (collected after the seventeenth round's code) too, after its one measurement.
# test19 (collected after the eighteenth round's code) too, after its one measurement.
# test20 (collected after the nineteenth round's code) too, after its one measurement.
# test21 (collected after the twentieth round's code) too, after its one measurement.
# test22 (collected after the twenty-first round's code) too, after its one measurement.
# test23 (collected after the twenty-second round's code) too, after its one measurement.
# test24 (collected after the twenty-third round's code) too, after its one measurement.
# test25 (collected after the twenty-fourth round's code) too, after its one measurement.
# test26 (collected after the twenty-fifth round's code) too, after its one measurement.
# test27 (collected after the twenty-sixth round's code) too, after its one measurement.
# test28 (collected after the twenty-seventh round's code) too, after its one measurement.
# test29 (collected after the twenty-eighth round's code) too, after its one measurement.
# test30 (collected after the twenty-ninth round's code) too, after its one measurement.
# test31 (collected after the thirtieth round's code) too, after its one measurement.
# test32 (collected after the thirty-first round's code) too, after its one measurement.
# test33 (collected after the thirty-second round's code) too, after its one measurement.
# test34 (collected after the thirty-third round's code) too, after its one measurement.
# test35 (collected after the thirty-fourth round's code) too, after its one measurement.
# test36 (collected after the thirty-fifth round's code) too, after its one measurement.
# test37 (collected after the thirty-sixth round's code) too, after its one measurement.
# test38 (collected after the thirty-seventh round's code) too, after its one measurement.
# test39 (collected after the thirty-eighth round's code) too, after its one measurement.
FROZEN: tuple[str, ...] = ()
# From this batch on an entry's split is decided by its source URL alone (train or test2).
URL_SPLIT_BATCH = 11
# From this batch on the URL rule sends the even half to a third frozen split (train or test3).
TEST3_BATCH = 12
# This batch is a frozen split as a whole (test4): collected apart by someone who never read or ran the matcher.
TEST4_BATCH = 13
# This batch was collected the same way as test4, from threads in none of the other files, and split when it was
# merged by a rule fixed before any of its entries was read: the even half by source URL to test5, the rest to train.
TRAIN_BATCH = 14
# This batch is a frozen split as a whole (test6), collected like test4: apart from the matcher, from threads in none
# of the other files nor real_errors.json.
TEST6_BATCH = 15
# This batch is a frozen split as a whole (test7), collected like test6 while the matcher's next round was under way:
# apart from the matcher, from threads in none of the other files nor real_errors.json.
TEST7_BATCH = 16
# This batch is a frozen split as a whole (test8), collected like test7 while test7 still measured the current round:
# apart from the matcher, from threads in none of the other files (test7 included) nor real_errors.json.
TEST8_BATCH = 17
# This batch is a frozen split as a whole (test9), collected like test8 while test8 measured the current round: apart
# from the matcher, from threads in none of the other files (test7 and test8 included) nor real_errors.json.
TEST9_BATCH = 18
# This batch is a frozen split as a whole (test10), collected like test9 while the matcher's next round was under way:
# apart from the matcher, from threads in none of the other files (test7, test8 and test9 included) nor real_errors.json.
TEST10_BATCH = 19
# This batch is a frozen split as a whole (test11), collected after the tenth round's code was committed, by a
# mechanical procedure fixed before any result was read, from threads in none of the other files nor real_errors.json.
TEST11_BATCH = 20
# This batch is a frozen split as a whole (test12), collected after the eleventh round's code was committed, by the
# same kind of mechanical procedure (its queries: the list of classes, then everyday traffic), from threads in
# none of the other files (test11 included) nor real_errors.json.
TEST12_BATCH = 21
# This batch is a frozen split as a whole (test13), collected after the twelfth round's code was committed, by the same
# kind of mechanical procedure (its queries name the packages users install beside torch), from threads in none of the
# other files (test12 included) nor real_errors.json.
TEST13_BATCH = 22
# This batch is a frozen split as a whole (test14), collected after the thirteenth round's code was committed, by the
# same kind of mechanical procedure (its queries name the machine or platform), from threads in none of the other files
# (test13 included) nor real_errors.json.
TEST14_BATCH = 23
# This batch is a frozen split as a whole (test15), collected after the fourteenth round's code was committed, by the
# same kind of mechanical procedure (its queries are the symptom in a user's words), from threads in none of the other
# files (test14 included) nor real_errors.json.
TEST15_BATCH = 24
# This batch is a frozen split as a whole (test16), collected after the fifteenth round's code was committed, by the
# same kind of mechanical procedure (its queries name what is recent in the stack), from threads in none of the other
# files (test15 included) nor real_errors.json.
TEST16_BATCH = 25
# This batch is a frozen split as a whole (test17), collected after the sixteenth round's code was committed, by the
# same kind of mechanical procedure (its queries name where users run torch), from threads in none of the other files
# (test16 included) nor real_errors.json.
TEST17_BATCH = 26
# This batch is a frozen split as a whole (test18), collected after the seventeenth round's code was committed, by the
# same kind of mechanical procedure (its queries are in the reporters' languages), from threads in none of the other
# files (test17 included) nor real_errors.json.
TEST18_BATCH = 27
# This batch is a frozen split as a whole (test19), collected after the eighteenth round's code was committed, by the
# same kind of mechanical procedure (its queries name the other frameworks and runtimes on the GPU stack), from threads
# in none of the other files (test18 included) nor real_errors.json.
TEST19_BATCH = 28
# This batch is a frozen split as a whole (test20), collected after the nineteenth round's code was committed, by the
# same kind of mechanical procedure (its queries name a change the user just made: upgrades and downgrades), from
# threads in none of the other files (test19 included) nor real_errors.json.
TEST20_BATCH = 29
# This batch is a frozen split as a whole (test21), collected after the twentieth round's code was committed, by the
# same kind of mechanical procedure (its queries name what users launch: launchers and applications), from threads in
# none of the other files (test20 included) nor real_errors.json.
TEST21_BATCH = 30
# This batch is a frozen split as a whole (test22), collected after the twenty-first round's code was committed, by the
# same kind of mechanical procedure (its queries name error codes: the enumerations the decoders read), from threads in
# none of the other files (test21 included) nor real_errors.json.
TEST22_BATCH = 31
# This batch is a frozen split as a whole (test23), collected after the twenty-second round's code was committed, by
# the same kind of mechanical procedure (its queries name the operating system's distribution and release), from
# threads in none of the other files (test22 included) nor real_errors.json.
TEST23_BATCH = 32
# This batch is a frozen split as a whole (test24), collected after the twenty-third round's code was committed, by
# the same kind of mechanical procedure (its queries name where the user sees the error: notebooks and IDEs), from
# threads in none of the other files (test23 included) nor real_errors.json.
TEST24_BATCH = 33
# This batch is a frozen split as a whole (test25), collected after the twenty-fourth round's code was committed, by
# the same kind of mechanical procedure (its queries name a feature the GPU, the build or the backend lacks), from
# threads in none of the other files (test24 included) nor real_errors.json.
TEST25_BATCH = 34
# This batch is a frozen split as a whole (test26), collected after the twenty-fifth round's code was committed, by
# the same kind of mechanical procedure (its queries name the C++ side of torch: LibTorch, its CMake package,
# TorchScript and AOTInductor), from threads in none of the other files (test25 included) nor real_errors.json.
TEST26_BATCH = 35
# This batch is a frozen split as a whole (test27), collected after the twenty-sixth round's code was committed, by
# the same kind of mechanical procedure (test26's axis again, the C++ side of torch, in the users' words), from threads
# in none of the other files (test26 included) nor real_errors.json.
TEST27_BATCH = 36
# This batch is a frozen split as a whole (test28), collected after the twenty-seventh round's code was committed, by
# the same kind of mechanical procedure (the C++ side a third time, with the bindings built on LibTorch), from threads
# in none of the other files (test27 included) nor real_errors.json.
TEST28_BATCH = 37
# This batch is a frozen split as a whole (test29), collected after the twenty-eighth round's code was committed, by
# the same kind of mechanical procedure (the commonest failures of the Python stack, in other words than test11's),
# from threads in none of the other files (test28 included) nor real_errors.json.
TEST29_BATCH = 38
# This batch is a frozen split as a whole (test30), collected after the twenty-ninth round's code was committed, by
# the same kind of mechanical procedure (the installers, resolvers and lockfiles users install torch with), from
# threads in none of the other files (test29 included) nor real_errors.json.
TEST30_BATCH = 39
# This batch is a frozen split as a whole (test31), collected after the thirtieth round's code was committed, by the
# same kind of mechanical procedure (the install itself failing: disk, memory, network, permissions, the OS's
# policies, conda's solver and cache), from threads in none of the other files (test30 included) nor real_errors.json.
TEST31_BATCH = 40
# This batch is a frozen split as a whole (test32), collected after the thirty-first round's code was committed, by the
# same kind of mechanical procedure (launching training on several GPUs and machines), from threads in none of the
# other files (test31 included) nor real_errors.json.
TEST32_BATCH = 41
# This batch is a frozen split as a whole (test33), collected after the thirty-second round's code was committed, by
# the same kind of mechanical procedure (torch on accelerators other than NVIDIA's), from threads in none of the other
# files (test32 included) nor real_errors.json.
TEST33_BATCH = 42
# This batch is a frozen split as a whole (test34), collected after the thirty-third round's code was committed, by
# the same kind of mechanical procedure (the ARM machines torch runs on), from threads in none of the other files
# (test33 included) nor real_errors.json.
TEST34_BATCH = 43
# This batch is a frozen split as a whole (test35), collected after the thirty-fourth round's code was committed, by
# the same kind of mechanical procedure (the GPU itself failing or degrading), from threads in none of the other
# files (test34 included) nor real_errors.json.
TEST35_BATCH = 44
# This batch is a frozen split as a whole (test36), collected after the thirty-fifth round's code was committed, by
# the same kind of mechanical procedure (LLM inference servers and local runners), from threads in none of the
# other files (test35 included) nor real_errors.json.
TEST36_BATCH = 45
# This batch is a frozen split as a whole (test37), collected after the thirty-sixth round's code was committed, by
# the same kind of mechanical procedure (older GPUs and the releases that dropped them), from threads in none of
# the other files (test36 included) nor real_errors.json.
TEST37_BATCH = 46
# This batch is a frozen split as a whole (test38), collected after the thirty-seventh round's code was committed,
# by the same kind of mechanical procedure (the Python interpreter under the stack), from threads in none of the
# other files (test37 included) nor real_errors.json.
TEST38_BATCH = 47
# This batch is a frozen split as a whole (test39), collected after the thirty-eighth round's code was committed,
# by the same kind of mechanical procedure (HPC clusters), from threads in none of the other files (test38
# included) nor real_errors.json.
TEST39_BATCH = 48
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
    if batch == TEST4_BATCH:
        return "test4"
    if batch == TEST6_BATCH:
        return "test6"
    if batch == TEST7_BATCH:
        return "test7"
    if batch == TEST8_BATCH:
        return "test8"
    if batch == TEST9_BATCH:
        return "test9"
    if batch == TEST10_BATCH:
        return "test10"
    if batch == TEST11_BATCH:
        return "test11"
    if batch == TEST12_BATCH:
        return "test12"
    if batch == TEST13_BATCH:
        return "test13"
    if batch == TEST14_BATCH:
        return "test14"
    if batch == TEST15_BATCH:
        return "test15"
    if batch == TEST16_BATCH:
        return "test16"
    if batch == TEST17_BATCH:
        return "test17"
    if batch == TEST18_BATCH:
        return "test18"
    if batch == TEST19_BATCH:
        return "test19"
    if batch == TEST20_BATCH:
        return "test20"
    if batch == TEST21_BATCH:
        return "test21"
    if batch == TEST22_BATCH:
        return "test22"
    if batch == TEST23_BATCH:
        return "test23"
    if batch == TEST24_BATCH:
        return "test24"
    if batch == TEST25_BATCH:
        return "test25"
    if batch == TEST26_BATCH:
        return "test26"
    if batch == TEST27_BATCH:
        return "test27"
    if batch == TEST28_BATCH:
        return "test28"
    if batch == TEST29_BATCH:
        return "test29"
    if batch == TEST30_BATCH:
        return "test30"
    if batch == TEST31_BATCH:
        return "test31"
    if batch == TEST32_BATCH:
        return "test32"
    if batch == TEST33_BATCH:
        return "test33"
    if batch == TEST34_BATCH:
        return "test34"
    if batch == TEST35_BATCH:
        return "test35"
    if batch == TEST36_BATCH:
        return "test36"
    if batch == TEST37_BATCH:
        return "test37"
    if batch == TEST38_BATCH:
        return "test38"
    if batch == TEST39_BATCH:
        return "test39"
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


def test_the_collected_apart_split_shares_no_thread_with_the_others(corpus):
    """test4 is batch 13 as a whole, collected from threads in none of the other files."""
    assert all(e["batch"] == TEST4_BATCH for e in corpus["test4"]["entries"])
    other = {s for sp in SPLITS if sp != "test4" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(corpus["test4"]["entries"], other, "test4")


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


def test_the_collected_apart_batch_15_is_test6_and_new(corpus):
    """test6 is batch 15 as a whole, and batch 15 is nowhere else; none of its threads is in another split or
    in real_errors.json."""
    test6 = corpus["test6"]["entries"]
    assert test6 and all(e["batch"] == TEST6_BATCH for e in test6)
    assert not [e["id"] for sp in SPLITS if sp != "test6" for e in corpus[sp]["entries"] if e["batch"] == TEST6_BATCH]
    other = {s for sp in SPLITS if sp != "test6" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test6, other, "test6")


def test_the_collected_apart_batch_16_is_test7_and_new(corpus):
    """test7 is batch 16 as a whole, and batch 16 is nowhere else; none of its threads is in another split (test6
    included) or in real_errors.json."""
    test7 = corpus["test7"]["entries"]
    assert test7 and all(e["batch"] == TEST7_BATCH for e in test7)
    assert not [e["id"] for sp in SPLITS if sp != "test7" for e in corpus[sp]["entries"] if e["batch"] == TEST7_BATCH]
    other = {s for sp in SPLITS if sp != "test7" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test7, other, "test7")


def test_the_collected_apart_batch_17_is_test8_and_new(corpus):
    """test8 is batch 17 as a whole, and batch 17 is nowhere else; none of its threads is in another split (test7
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test8 = corpus["test8"]["entries"]
    assert test8 and all(e["batch"] == TEST8_BATCH for e in test8)
    assert not [e["id"] for sp in SPLITS if sp != "test8" for e in corpus[sp]["entries"] if e["batch"] == TEST8_BATCH]
    other = {s for sp in SPLITS if sp != "test8" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test8, other, "test8")


def test_the_collected_apart_batch_18_is_test9_and_new(corpus):
    """test9 is batch 18 as a whole, and batch 18 is nowhere else; none of its threads is in another split (test7
    and test8 included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits
    above)."""
    test9 = corpus["test9"]["entries"]
    assert test9 and all(e["batch"] == TEST9_BATCH for e in test9)
    assert not [e["id"] for sp in SPLITS if sp != "test9" for e in corpus[sp]["entries"] if e["batch"] == TEST9_BATCH]
    other = {s for sp in SPLITS if sp != "test9" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test9, other, "test9")


def test_the_collected_apart_batch_19_is_test10_and_new(corpus):
    """test10 is batch 19 as a whole, and batch 19 is nowhere else; none of its threads is in another split (test7,
    test8 and test9 included) or in real_errors.json, and none of its texts repeats one of them (checked for all
    splits above)."""
    test10 = corpus["test10"]["entries"]
    assert test10 and all(e["batch"] == TEST10_BATCH for e in test10)
    assert not [e["id"] for sp in SPLITS if sp != "test10" for e in corpus[sp]["entries"] if e["batch"] == TEST10_BATCH]
    other = {s for sp in SPLITS if sp != "test10" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test10, other, "test10")


def test_the_collected_after_batch_20_is_test11_and_new(corpus):
    """test11 is batch 20 as a whole, and batch 20 is nowhere else; none of its threads is in another split (test10
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test11 = corpus["test11"]["entries"]
    assert test11 and all(e["batch"] == TEST11_BATCH for e in test11)
    assert not [e["id"] for sp in SPLITS if sp != "test11" for e in corpus[sp]["entries"] if e["batch"] == TEST11_BATCH]
    other = {s for sp in SPLITS if sp != "test11" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test11, other, "test11")


def test_the_collected_after_batch_21_is_test12_and_new(corpus):
    """test12 is batch 21 as a whole, and batch 21 is nowhere else; none of its threads is in another split (test11
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test12 = corpus["test12"]["entries"]
    assert test12 and all(e["batch"] == TEST12_BATCH for e in test12)
    assert not [e["id"] for sp in SPLITS if sp != "test12" for e in corpus[sp]["entries"] if e["batch"] == TEST12_BATCH]
    other = {s for sp in SPLITS if sp != "test12" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test12, other, "test12")


def test_the_collected_after_batch_22_is_test13_and_new(corpus):
    """test13 is batch 22 as a whole, and batch 22 is nowhere else; none of its threads is in another split (test12
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test13 = corpus["test13"]["entries"]
    assert test13 and all(e["batch"] == TEST13_BATCH for e in test13)
    assert not [e["id"] for sp in SPLITS if sp != "test13" for e in corpus[sp]["entries"] if e["batch"] == TEST13_BATCH]
    other = {s for sp in SPLITS if sp != "test13" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test13, other, "test13")


def test_the_collected_after_batch_23_is_test14_and_new(corpus):
    """test14 is batch 23 as a whole, and batch 23 is nowhere else; none of its threads is in another split (test13
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test14 = corpus["test14"]["entries"]
    assert test14 and all(e["batch"] == TEST14_BATCH for e in test14)
    assert not [e["id"] for sp in SPLITS if sp != "test14" for e in corpus[sp]["entries"] if e["batch"] == TEST14_BATCH]
    other = {s for sp in SPLITS if sp != "test14" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test14, other, "test14")


def test_the_collected_after_batch_24_is_test15_and_new(corpus):
    """test15 is batch 24 as a whole, and batch 24 is nowhere else; none of its threads is in another split (test14
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test15 = corpus["test15"]["entries"]
    assert test15 and all(e["batch"] == TEST15_BATCH for e in test15)
    assert not [e["id"] for sp in SPLITS if sp != "test15" for e in corpus[sp]["entries"] if e["batch"] == TEST15_BATCH]
    other = {s for sp in SPLITS if sp != "test15" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test15, other, "test15")


def test_the_collected_after_batch_25_is_test16_and_new(corpus):
    """test16 is batch 25 as a whole, and batch 25 is nowhere else; none of its threads is in another split (test15
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test16 = corpus["test16"]["entries"]
    assert test16 and all(e["batch"] == TEST16_BATCH for e in test16)
    assert not [e["id"] for sp in SPLITS if sp != "test16" for e in corpus[sp]["entries"] if e["batch"] == TEST16_BATCH]
    other = {s for sp in SPLITS if sp != "test16" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test16, other, "test16")


def test_the_collected_after_batch_26_is_test17_and_new(corpus):
    """test17 is batch 26 as a whole, and batch 26 is nowhere else; none of its threads is in another split (test16
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test17 = corpus["test17"]["entries"]
    assert test17 and all(e["batch"] == TEST17_BATCH for e in test17)
    assert not [e["id"] for sp in SPLITS if sp != "test17" for e in corpus[sp]["entries"] if e["batch"] == TEST17_BATCH]
    other = {s for sp in SPLITS if sp != "test17" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test17, other, "test17")


def test_the_collected_after_batch_27_is_test18_and_new(corpus):
    """test18 is batch 27 as a whole, and batch 27 is nowhere else; none of its threads is in another split (test17
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test18 = corpus["test18"]["entries"]
    assert test18 and all(e["batch"] == TEST18_BATCH for e in test18)
    assert not [e["id"] for sp in SPLITS if sp != "test18" for e in corpus[sp]["entries"] if e["batch"] == TEST18_BATCH]
    other = {s for sp in SPLITS if sp != "test18" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test18, other, "test18")


def test_the_collected_after_batch_28_is_test19_and_new(corpus):
    """test19 is batch 28 as a whole, and batch 28 is nowhere else; none of its threads is in another split (test18
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test19 = corpus["test19"]["entries"]
    assert test19 and all(e["batch"] == TEST19_BATCH for e in test19)
    assert not [e["id"] for sp in SPLITS if sp != "test19" for e in corpus[sp]["entries"] if e["batch"] == TEST19_BATCH]
    other = {s for sp in SPLITS if sp != "test19" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test19, other, "test19")


def test_the_collected_after_batch_29_is_test20_and_new(corpus):
    """test20 is batch 29 as a whole, and batch 29 is nowhere else; none of its threads is in another split (test19
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test20 = corpus["test20"]["entries"]
    assert test20 and all(e["batch"] == TEST20_BATCH for e in test20)
    assert not [e["id"] for sp in SPLITS if sp != "test20" for e in corpus[sp]["entries"] if e["batch"] == TEST20_BATCH]
    other = {s for sp in SPLITS if sp != "test20" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test20, other, "test20")


def test_the_collected_after_batch_30_is_test21_and_new(corpus):
    """test21 is batch 30 as a whole, and batch 30 is nowhere else; none of its threads is in another split (test20
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test21 = corpus["test21"]["entries"]
    assert test21 and all(e["batch"] == TEST21_BATCH for e in test21)
    assert not [e["id"] for sp in SPLITS if sp != "test21" for e in corpus[sp]["entries"] if e["batch"] == TEST21_BATCH]
    other = {s for sp in SPLITS if sp != "test21" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test21, other, "test21")


def test_the_collected_after_batch_31_is_test22_and_new(corpus):
    """test22 is batch 31 as a whole, and batch 31 is nowhere else; none of its threads is in another split (test21
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test22 = corpus["test22"]["entries"]
    assert test22 and all(e["batch"] == TEST22_BATCH for e in test22)
    assert not [e["id"] for sp in SPLITS if sp != "test22" for e in corpus[sp]["entries"] if e["batch"] == TEST22_BATCH]
    other = {s for sp in SPLITS if sp != "test22" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test22, other, "test22")


def test_the_collected_after_batch_32_is_test23_and_new(corpus):
    """test23 is batch 32 as a whole, and batch 32 is nowhere else; none of its threads is in another split (test22
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test23 = corpus["test23"]["entries"]
    assert test23 and all(e["batch"] == TEST23_BATCH for e in test23)
    assert not [e["id"] for sp in SPLITS if sp != "test23" for e in corpus[sp]["entries"] if e["batch"] == TEST23_BATCH]
    other = {s for sp in SPLITS if sp != "test23" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test23, other, "test23")


def test_the_collected_after_batch_33_is_test24_and_new(corpus):
    """test24 is batch 33 as a whole, and batch 33 is nowhere else; none of its threads is in another split (test23
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test24 = corpus["test24"]["entries"]
    assert test24 and all(e["batch"] == TEST24_BATCH for e in test24)
    assert not [e["id"] for sp in SPLITS if sp != "test24" for e in corpus[sp]["entries"] if e["batch"] == TEST24_BATCH]
    other = {s for sp in SPLITS if sp != "test24" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test24, other, "test24")


def test_the_collected_after_batch_34_is_test25_and_new(corpus):
    """test25 is batch 34 as a whole, and batch 34 is nowhere else; none of its threads is in another split (test24
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test25 = corpus["test25"]["entries"]
    assert test25 and all(e["batch"] == TEST25_BATCH for e in test25)
    assert not [e["id"] for sp in SPLITS if sp != "test25" for e in corpus[sp]["entries"] if e["batch"] == TEST25_BATCH]
    other = {s for sp in SPLITS if sp != "test25" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test25, other, "test25")


def test_the_collected_after_batch_35_is_test26_and_new(corpus):
    """test26 is batch 35 as a whole, and batch 35 is nowhere else; none of its threads is in another split (test25
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test26 = corpus["test26"]["entries"]
    assert test26 and all(e["batch"] == TEST26_BATCH for e in test26)
    assert not [e["id"] for sp in SPLITS if sp != "test26" for e in corpus[sp]["entries"] if e["batch"] == TEST26_BATCH]
    other = {s for sp in SPLITS if sp != "test26" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test26, other, "test26")


def test_the_collected_after_batch_36_is_test27_and_new(corpus):
    """test27 is batch 36 as a whole, and batch 36 is nowhere else; none of its threads is in another split (test26
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test27 = corpus["test27"]["entries"]
    assert test27 and all(e["batch"] == TEST27_BATCH for e in test27)
    assert not [e["id"] for sp in SPLITS if sp != "test27" for e in corpus[sp]["entries"] if e["batch"] == TEST27_BATCH]
    other = {s for sp in SPLITS if sp != "test27" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test27, other, "test27")


def test_the_collected_after_batch_37_is_test28_and_new(corpus):
    """test28 is batch 37 as a whole, and batch 37 is nowhere else; none of its threads is in another split (test27
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test28 = corpus["test28"]["entries"]
    assert test28 and all(e["batch"] == TEST28_BATCH for e in test28)
    assert not [e["id"] for sp in SPLITS if sp != "test28" for e in corpus[sp]["entries"] if e["batch"] == TEST28_BATCH]
    other = {s for sp in SPLITS if sp != "test28" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test28, other, "test28")


def test_the_collected_after_batch_38_is_test29_and_new(corpus):
    """test29 is batch 38 as a whole, and batch 38 is nowhere else; none of its threads is in another split (test28
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test29 = corpus["test29"]["entries"]
    assert test29 and all(e["batch"] == TEST29_BATCH for e in test29)
    assert not [e["id"] for sp in SPLITS if sp != "test29" for e in corpus[sp]["entries"] if e["batch"] == TEST29_BATCH]
    other = {s for sp in SPLITS if sp != "test29" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test29, other, "test29")


def test_the_collected_after_batch_39_is_test30_and_new(corpus):
    """test30 is batch 39 as a whole, and batch 39 is nowhere else; none of its threads is in another split (test29
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test30 = corpus["test30"]["entries"]
    assert test30 and all(e["batch"] == TEST30_BATCH for e in test30)
    assert not [e["id"] for sp in SPLITS if sp != "test30" for e in corpus[sp]["entries"] if e["batch"] == TEST30_BATCH]
    other = {s for sp in SPLITS if sp != "test30" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test30, other, "test30")


def test_the_collected_after_batch_40_is_test31_and_new(corpus):
    """test31 is batch 40 as a whole, and batch 40 is nowhere else; none of its threads is in another split (test30
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test31 = corpus["test31"]["entries"]
    assert test31 and all(e["batch"] == TEST31_BATCH for e in test31)
    assert not [e["id"] for sp in SPLITS if sp != "test31" for e in corpus[sp]["entries"] if e["batch"] == TEST31_BATCH]
    other = {s for sp in SPLITS if sp != "test31" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test31, other, "test31")


def test_the_collected_after_batch_41_is_test32_and_new(corpus):
    """test32 is batch 41 as a whole, and batch 41 is nowhere else; none of its threads is in another split (test31
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test32 = corpus["test32"]["entries"]
    assert test32 and all(e["batch"] == TEST32_BATCH for e in test32)
    assert not [e["id"] for sp in SPLITS if sp != "test32" for e in corpus[sp]["entries"] if e["batch"] == TEST32_BATCH]
    other = {s for sp in SPLITS if sp != "test32" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test32, other, "test32")


def test_the_collected_after_batch_42_is_test33_and_new(corpus):
    """test33 is batch 42 as a whole, and batch 42 is nowhere else; none of its threads is in another split (test32
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test33 = corpus["test33"]["entries"]
    assert test33 and all(e["batch"] == TEST33_BATCH for e in test33)
    assert not [e["id"] for sp in SPLITS if sp != "test33" for e in corpus[sp]["entries"] if e["batch"] == TEST33_BATCH]
    other = {s for sp in SPLITS if sp != "test33" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test33, other, "test33")


def test_the_collected_after_batch_43_is_test34_and_new(corpus):
    """test34 is batch 43 as a whole, and batch 43 is nowhere else; none of its threads is in another split (test33
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test34 = corpus["test34"]["entries"]
    assert test34 and all(e["batch"] == TEST34_BATCH for e in test34)
    assert not [e["id"] for sp in SPLITS if sp != "test34" for e in corpus[sp]["entries"] if e["batch"] == TEST34_BATCH]
    other = {s for sp in SPLITS if sp != "test34" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test34, other, "test34")


def test_the_collected_after_batch_44_is_test35_and_new(corpus):
    """test35 is batch 44 as a whole, and batch 44 is nowhere else; none of its threads is in another split (test34
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test35 = corpus["test35"]["entries"]
    assert test35 and all(e["batch"] == TEST35_BATCH for e in test35)
    assert not [e["id"] for sp in SPLITS if sp != "test35" for e in corpus[sp]["entries"] if e["batch"] == TEST35_BATCH]
    other = {s for sp in SPLITS if sp != "test35" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test35, other, "test35")


def test_the_collected_after_batch_45_is_test36_and_new(corpus):
    """test36 is batch 45 as a whole, and batch 45 is nowhere else; none of its threads is in another split (test35
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test36 = corpus["test36"]["entries"]
    assert test36 and all(e["batch"] == TEST36_BATCH for e in test36)
    assert not [e["id"] for sp in SPLITS if sp != "test36" for e in corpus[sp]["entries"] if e["batch"] == TEST36_BATCH]
    other = {s for sp in SPLITS if sp != "test36" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test36, other, "test36")


def test_the_collected_after_batch_46_is_test37_and_new(corpus):
    """test37 is batch 46 as a whole, and batch 46 is nowhere else; none of its threads is in another split (test36
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test37 = corpus["test37"]["entries"]
    assert test37 and all(e["batch"] == TEST37_BATCH for e in test37)
    assert not [e["id"] for sp in SPLITS if sp != "test37" for e in corpus[sp]["entries"] if e["batch"] == TEST37_BATCH]
    other = {s for sp in SPLITS if sp != "test37" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test37, other, "test37")


def test_the_collected_after_batch_47_is_test38_and_new(corpus):
    """test38 is batch 47 as a whole, and batch 47 is nowhere else; none of its threads is in another split (test37
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test38 = corpus["test38"]["entries"]
    assert test38 and all(e["batch"] == TEST38_BATCH for e in test38)
    assert not [e["id"] for sp in SPLITS if sp != "test38" for e in corpus[sp]["entries"] if e["batch"] == TEST38_BATCH]
    other = {s for sp in SPLITS if sp != "test38" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test38, other, "test38")


def test_the_collected_after_batch_48_is_test39_and_new(corpus):
    """test39 is batch 48 as a whole, and batch 48 is nowhere else; none of its threads is in another split (test38
    included) or in real_errors.json, and none of its texts repeats one of them (checked for all splits above)."""
    test39 = corpus["test39"]["entries"]
    assert test39 and all(e["batch"] == TEST39_BATCH for e in test39)
    assert not [e["id"] for sp in SPLITS if sp != "test39" for e in corpus[sp]["entries"] if e["batch"] == TEST39_BATCH]
    other = {s for sp in SPLITS if sp != "test39" for s in _sources(corpus[sp]["entries"])} | _cited()
    _assert_new_threads(test39, other, "test39")


def test_the_scorer_retired_test11_into_development():
    """test11 measured the tenth round once (75.9%) and was retired: --wrong lists its misses, it is development data,
    and --split all still reads it."""
    ev = _scorer()
    assert "test11" not in ev.FROZEN
    assert "test11" in ev.SPLIT_SETS["all"] and "test11" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test12_into_development():
    """test12 measured the eleventh round once (74.6%) and was retired the same way."""
    ev = _scorer()
    assert "test12" not in ev.FROZEN
    assert "test12" in ev.SPLIT_SETS["all"] and "test12" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test13_into_development():
    """test13 measured the twelfth round once (43.5%) and was retired the same way."""
    ev = _scorer()
    assert "test13" not in ev.FROZEN
    assert "test13" in ev.SPLIT_SETS["all"] and "test13" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test15_into_development():
    """test15 measured the fourteenth round once (52.8%) and was retired the same way."""
    ev = _scorer()
    assert "test15" not in ev.FROZEN
    assert "test15" in ev.SPLIT_SETS["all"] and "test15" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test16_into_development():
    """test16 measured the fifteenth round once (56.1%) and was retired the same way."""
    ev = _scorer()
    assert "test16" not in ev.FROZEN
    assert "test16" in ev.SPLIT_SETS["all"] and "test16" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test17_into_development():
    """test17 measured the sixteenth round once (67.5%) and was retired the same way."""
    ev = _scorer()
    assert "test17" not in ev.FROZEN
    assert "test17" in ev.SPLIT_SETS["all"] and "test17" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test18_into_development():
    """test18 measured the seventeenth round once (51.6%) and was retired the same way."""
    ev = _scorer()
    assert "test18" not in ev.FROZEN
    assert "test18" in ev.SPLIT_SETS["all"] and "test18" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test19_into_development():
    """test19 measured the eighteenth round once (58.8%) and was retired the same way."""
    ev = _scorer()
    assert "test19" not in ev.FROZEN
    assert "test19" in ev.SPLIT_SETS["all"] and "test19" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test20_into_development():
    """test20 measured the nineteenth round once (42.9%) and was retired the same way."""
    ev = _scorer()
    assert "test20" not in ev.FROZEN
    assert "test20" in ev.SPLIT_SETS["all"] and "test20" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test21_into_development():
    """test21 measured the twentieth round once (33.3%) and was retired the same way."""
    ev = _scorer()
    assert "test21" not in ev.FROZEN
    assert "test21" in ev.SPLIT_SETS["all"] and "test21" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test22_into_development():
    """test22 measured the twenty-first round once (44.4%) and was retired the same way."""
    ev = _scorer()
    assert "test22" not in ev.FROZEN
    assert "test22" in ev.SPLIT_SETS["all"] and "test22" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test23_into_development():
    """test23 measured the twenty-second round once (69.2%) and was retired the same way."""
    ev = _scorer()
    assert "test23" not in ev.FROZEN
    assert "test23" in ev.SPLIT_SETS["all"] and "test23" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test24_into_development():
    """test24 measured the twenty-third round once (40.0%) and was retired the same way."""
    ev = _scorer()
    assert "test24" not in ev.FROZEN
    assert "test24" in ev.SPLIT_SETS["all"] and "test24" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test25_into_development():
    """test25 measured the twenty-fourth round once (34.3%) and was retired the same way."""
    ev = _scorer()
    assert "test25" not in ev.FROZEN
    assert "test25" in ev.SPLIT_SETS["all"] and "test25" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test26_into_development():
    """test26 measured the twenty-fifth round once (9.1%) and was retired the same way."""
    ev = _scorer()
    assert "test26" not in ev.FROZEN
    assert "test26" in ev.SPLIT_SETS["all"] and "test26" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test27_into_development():
    """test27 measured the twenty-sixth round once (4.2%) and was retired the same way."""
    ev = _scorer()
    assert "test27" not in ev.FROZEN
    assert "test27" in ev.SPLIT_SETS["all"] and "test27" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test28_into_development():
    """test28 measured the twenty-seventh round once (30.0%) and was retired the same way."""
    ev = _scorer()
    assert "test28" not in ev.FROZEN
    assert "test28" in ev.SPLIT_SETS["all"] and "test28" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test14_into_development():
    """test14 measured the thirteenth round once (44.1%) and was retired the same way."""
    ev = _scorer()
    assert "test14" not in ev.FROZEN
    assert "test14" in ev.SPLIT_SETS["all"] and "test14" in ev.SPLIT_SETS["dev"]


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


def test_the_scorer_retired_test7_into_development():
    """test7 was retired once it had measured three rounds and test8 the one that followed (test6 before it, once test7
    had measured its round): --wrong lists its misses, and it is part of the development data; no frozen split is."""
    ev = _scorer()
    assert "test7" not in ev.FROZEN and "test6" not in ev.FROZEN
    assert {"test6", "test7"} <= set(ev.SPLIT_SETS["dev"])
    assert not set(ev.FROZEN) & set(ev.SPLIT_SETS["dev"])
    assert not set(ev.FROZEN) & set(RETIRED)


def test_the_scorer_retired_test8_into_development():
    """test8 was retired once it had measured two rounds as held out (63.6% both times): --wrong lists its misses, it
    is part of the development data, and --split all still reads it."""
    ev = _scorer()
    assert "test8" not in ev.FROZEN
    assert "test8" in ev.SPLIT_SETS["all"] and "test8" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test9_into_development():
    """test9 was retired once it had measured three rounds as held out (67.3%, 69.2%, 69.2%): --wrong lists its
    misses, it is part of the development data, and --split all still reads it."""
    ev = _scorer()
    assert "test9" not in ev.FROZEN
    assert "test9" in ev.SPLIT_SETS["all"] and "test9" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test10_into_development():
    """test10 was retired after its held-out figure (48.6%, twice, on the eighth and ninth rounds' bases): --wrong
    lists its misses, it is part of the development data, and --split all still reads it."""
    ev = _scorer()
    assert "test10" not in ev.FROZEN
    assert "test10" in ev.SPLIT_SETS["all"] and "test10" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test29_into_development():
    """test29 measured the twenty-eighth round once (67.9%) and was retired the same way."""
    ev = _scorer()
    assert "test29" not in ev.FROZEN
    assert "test29" in ev.SPLIT_SETS["all"] and "test29" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test30_into_development():
    """test30 measured the twenty-ninth round once (35.7%) and was retired the same way."""
    ev = _scorer()
    assert "test30" not in ev.FROZEN
    assert "test30" in ev.SPLIT_SETS["all"] and "test30" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test31_into_development():
    """test31 measured the thirtieth round once (15.2%) and was retired the same way."""
    ev = _scorer()
    assert "test31" not in ev.FROZEN
    assert "test31" in ev.SPLIT_SETS["all"] and "test31" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test32_into_development():
    """test32 measured the thirty-first round once (53.3%) and was retired the same way."""
    ev = _scorer()
    assert "test32" not in ev.FROZEN
    assert "test32" in ev.SPLIT_SETS["all"] and "test32" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test33_into_development():
    """test33 measured the thirty-second round once (29.2%) and was retired the same way."""
    ev = _scorer()
    assert "test33" not in ev.FROZEN
    assert "test33" in ev.SPLIT_SETS["all"] and "test33" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test34_into_development():
    """test34 measured the thirty-third round once (33.3%) and was retired the same way."""
    ev = _scorer()
    assert "test34" not in ev.FROZEN
    assert "test34" in ev.SPLIT_SETS["all"] and "test34" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test35_into_development():
    """test35 measured the thirty-fourth round once (64.3%) and was retired the same way."""
    ev = _scorer()
    assert "test35" not in ev.FROZEN
    assert "test35" in ev.SPLIT_SETS["all"] and "test35" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test36_into_development():
    """test36 measured the thirty-fifth round once (52.6%) and was retired the same way."""
    ev = _scorer()
    assert "test36" not in ev.FROZEN
    assert "test36" in ev.SPLIT_SETS["all"] and "test36" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test37_into_development():
    """test37 measured the thirty-sixth round once (61.5%) and was retired the same way."""
    ev = _scorer()
    assert "test37" not in ev.FROZEN
    assert "test37" in ev.SPLIT_SETS["all"] and "test37" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test38_into_development():
    """test38 measured the thirty-seventh round once (33.3%) and was retired the same way."""
    ev = _scorer()
    assert "test38" not in ev.FROZEN
    assert "test38" in ev.SPLIT_SETS["all"] and "test38" in ev.SPLIT_SETS["dev"]


def test_the_scorer_retired_test39_into_development():
    """test39 measured the thirty-eighth round once (47.6%) and was retired the same way."""
    ev = _scorer()
    assert "test39" not in ev.FROZEN
    assert "test39" in ev.SPLIT_SETS["all"] and "test39" in ev.SPLIT_SETS["dev"]
