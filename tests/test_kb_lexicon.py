"""The word groups knowledge patterns share (doctor/kb/lexicon.py): each word a user says for the symptom
is read, the words that only look like it are not, and a pattern naming a group that does not exist is
refused when the knowledge base is read."""

from __future__ import annotations

import re

import pytest

from torchdoctor.kb import explain, lexicon, load
from torchdoctor.kb.parse import parse
from torchdoctor.kb.schema import SchemaError
from torchdoctor.kb.validate import entry_from_dict

HANG = re.compile(lexicon.expand("(?&hang)"))


@pytest.mark.parametrize("text", [
    "training hangs after the first epoch", "the job hung overnight", "Stuck at iteration 0", "it freezes randomly",
    "the whole process froze", "the program is frozen", "all ranks deadlocked", "Deadlock in the workers",
    "the loader stalls every few batches", "the call never returns", "训练卡住了", "程序卡主不动", "进程卡死",
    "程序假死", "运行后无响应",
])
def test_a_word_for_hanging_is_read(text):
    assert HANG.search(text)


@pytest.mark.parametrize("text", [
    "change the learning rate", "I freeze the backbone", "freezing all layers but the head", "frozen layers",
    "the model has frozen BatchNorm statistics", "a stuckness metric", "deadlockdetector", "unchanged",
])
def test_a_word_that_only_looks_like_hanging_is_not(text):
    assert not HANG.search(text)


GROWS = re.compile(lexicon.expand("(?&grows)"))


@pytest.mark.parametrize("text", [
    "memory keeps increasing", "it grows every step", "RAM grew to 60 GB", "usage climbs", "VRAM rises each epoch",
    "it goes up and up", "memory balloons", "VRAM keeps creeping up", "more and more memory", "显存不断增长", "内存一直涨",
    "显存越来越大", "越跑越高",
])
def test_a_word_for_growing_is_read(text):
    assert GROWS.search(text)


@pytest.mark.parametrize("text", ["the memory stays flat", "a grower", "sunrise", "prose", "memory goes down"])
def test_a_word_that_only_looks_like_growing_is_not(text):
    assert not GROWS.search(text)


def test_a_group_is_case_insensitive_inside_a_case_sensitive_pattern():
    assert re.search(lexicon.expand(r"DataLoader (?&hang)"), "DataLoader HANGS")
    assert not re.search(lexicon.expand(r"DataLoader (?&hang)"), "dataloader hangs")  # the rest keeps its case


def test_an_unknown_group_is_refused_with_its_name():
    entry = {"id": "demo-entry", "title": "t", "area": "DataLoader and host memory", "summary": "s", "explanation": "e",
             "patterns": [{"regex": "(?&hnag) at epoch end", "scope": "line"}], "fixes": [{"summary": "f"}],
             "examples": [{"text": "x"}]}
    with pytest.raises(SchemaError, match=r"patterns\[0\]\.regex: \(\?&hnag\) names no word group"):
        entry_from_dict(entry, "demo-entry.toml")


def _first(text: str) -> str | None:
    kb = load()
    found = explain(parse(text), kb)
    return found[0].id if found else None


def test_an_entry_reads_a_word_its_own_list_never_spelled():
    # "stalls" and the common typo "卡主" were in no pattern's list of dataloader-hang before the shared group.
    assert _first("the DataLoader stalls after a few iterations with num_workers=8") == "dataloader-hang"
    assert _first("训练卡主了，num_workers=4 的时候") == "dataloader-hang"


def test_memory_growth_said_in_other_words_is_read():
    # "balloons" and "creeping up" were in no list of gpu-memory-grows-retained-graph's patterns before the group.
    assert _first("GPU memory balloons every iteration until OOM") == "gpu-memory-grows-retained-graph"
    assert _first("VRAM usage keeps creeping up each step") == "gpu-memory-grows-retained-graph"
    # Memory that grows, then levels off, is the caching allocator warming up, not a leak.
    assert _first("GPU memory grows during the first epoch and then stays flat") != "gpu-memory-grows-retained-graph"


def test_freezing_weights_beside_a_dataloader_is_no_hang():
    assert _first("I freeze the backbone and the dataloader uses 8 workers") is None
