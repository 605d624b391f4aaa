"""The real-code accuracy corpus (tests/fixtures/check_real/) and bench/check_accuracy.py's scoring.

The corpus is data: real files with a hand label per rule, split by repository before tuning.
These tests keep it honest (every file attributed, every label inside its file, the split the
one its repository hashes to) and run the scorer on the dev split, the one tuning may look at."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "check_real"
FILES = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["files"]


def _bench():
    spec = importlib.util.spec_from_file_location("check_accuracy", ROOT / "bench" / "check_accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_corpus_size_and_spread():
    assert len(FILES) >= 120
    assert len({f["repo"] for f in FILES}) >= 40
    assert {f["split"] for f in FILES} == {"dev", "heldout"}


@pytest.mark.parametrize("entry", FILES, ids=lambda f: f["fixture"])
def test_every_file_is_attributed_and_labelled_inside_its_lines(entry):
    path = CORPUS / entry["fixture"]
    lines = path.read_text(encoding="utf-8").splitlines()
    head = "\n".join(lines[:3])
    assert entry["repo"] in head and entry["commit"] in head and entry["path"] in head
    assert re.search(r"lines \d+-\d+ \(.+\)", lines[0]), "the header gives the source line range and license"
    split = "heldout" if int(hashlib.sha1(entry["repo"].encode()).hexdigest(), 16) % 5 < 2 else "dev"
    # A held-out file that a change was made from is moved to dev, with the reason recorded.
    assert entry["split"] == ("dev" if entry.get("moved_to_dev") else split)
    assert entry["labels"], "a file without a label measures nothing"
    for label in entry["labels"]:
        assert re.fullmatch(r"TD\d{3}", label["rule"]) and label["kind"] in ("positive", "near_miss")
        if label["kind"] == "positive":
            assert label["lines"] and all(3 < n <= len(lines) for n in label["lines"])


def test_scoring_counts_hits_misses_and_false_positives():
    bench = _bench()
    files = [
        {"fixture": "a.py", "split": "dev", "labels": [{"rule": "TD105", "kind": "positive", "lines": [10, 12]},
                                                       {"rule": "TD401", "kind": "near_miss"}]},
        {"fixture": "b.py", "split": "dev", "labels": [{"rule": "TD105", "kind": "positive", "lines": [5]}]},
    ]
    found = {"a.py": {("TD105", 12), ("TD401", 3)}, "b.py": {("TD105", 6)}}
    table = bench.score(files, found)["dev"]
    assert (table["TD105"]["tp"], table["TD105"]["pos"]) == (1, 2)
    assert (table["TD401"]["fp"], table["TD401"]["near"]) == (1, 1)


def test_dev_split_findings_alone(tmp_path):
    """The rules on the dev split, each file alone: most real bugs found, few near misses flagged.
    (A regression floor, far below the measured figures, not a target; held-out is never used here.)"""
    import shutil

    from torchdoctor.lint import context

    bench = _bench()
    dev = [f for f in FILES if f["split"] == "dev"]
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("manifest.json", "conftest.py"))
    old = context.TARGET_TORCH
    context.TARGET_TORCH = "2.6"
    try:
        table = bench.score(dev, bench.findings_alone(corpus, dev))["dev"]
    finally:
        context.TARGET_TORCH = old
    tp = sum(c["tp"] for c in table.values())
    pos = sum(c["pos"] for c in table.values())
    fp = sum(c["fp"] for c in table.values())
    near = sum(c["near"] for c in table.values())
    assert tp / pos >= 0.8
    assert fp / near <= 0.05
