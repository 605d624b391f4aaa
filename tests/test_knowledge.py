"""The knowledge base stays consistent as it grows: every entry's examples match it and rank it
first, its near misses do not match it, and no entry's example is claimed by another entry above it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from torchdoctor.kb import explain
from torchdoctor.kb.build import build_entries, build_index, build_retrieval
from torchdoctor.kb.loader import KnowledgeBase, _parse_toml, _toml_files, digest, load

ROOT = Path(__file__).resolve().parents[1]
CATALOG = (Path(__file__).parent / "fixtures" / "kb_catalog_ids.txt").read_text().split()
KB = load()
EXAMPLES = [(e.id, i, ex) for e in KB.entries.values() for i, ex in enumerate(e.examples)]
NEAR = [(e.id, i, n) for e in KB.entries.values() for i, n in enumerate(e.near_misses)]


def test_every_catalog_id_has_an_entry():
    missing = sorted(set(CATALOG) - set(KB.entries))
    assert not missing, f"catalog ids without an entry: {missing}"


def test_catalog_copy_matches_the_shared_catalog():
    shared = ROOT.parent / "shared" / "kb-catalog.md"
    if not shared.exists():
        pytest.skip("shared/kb-catalog.md is not beside this checkout")
    ids = re.findall(r"^\| ([a-z0-9-]+) \|", shared.read_text(), re.M)
    assert sorted(i for i in ids if i != "id") == sorted(CATALOG)


def test_entries_parse_strictly_and_the_index_is_current():
    files = _toml_files()
    entries = _parse_toml(files)  # raises SchemaError on any unknown key, bad regex, wrong id
    assert set(entries) == set(KB.entries)
    index = json.loads((ROOT / "knowledge" / "index.json").read_text())
    assert index["digest"] == digest(files), "knowledge/index.json is stale: run python -m torchdoctor.kb.loader"
    assert index == json.loads(json.dumps(build_index(files))), "index differs from a fresh build"
    assert (ROOT / "knowledge" / "entries.jsonl").read_bytes() == build_entries(entries)[0], \
        "knowledge/entries.jsonl differs from a fresh build: run python -m torchdoctor.kb.loader"
    retrieval = build_retrieval(entries.values(), digest(files))
    for name, key in (("retrieval.json", "postings"), ("vocabulary.json", "vocabulary")):
        built = json.loads((ROOT / "knowledge" / name).read_text())
        assert built == {key: retrieval[key], "digest": digest(files)}, f"knowledge/{name} differs from a fresh build"


def test_the_retrieval_index_finds_every_word_it_holds_and_no_other():
    from torchdoctor.kb.retrieve import POSTINGS_BLOCK, Retriever, postings

    docs = {"a": {"cuda": 3, "cudnn": 1, "显存": 2}, "b": {"cuda": 1, "hang": 4}, "c": {"worker": 2, "zeta": 1}}
    index = postings(docs)
    retriever = Retriever(index)
    for word in ("cuda", "cudnn", "hang", "worker", "zeta", "显存"):
        idf, *held = retriever.postings(word).split(" ")
        assert float(idf) > 0 and {p.split(":")[0] for p in held} == {str(list(docs).index(d)) for d in docs if word in docs[d]}
    # A word before the first, between two (a prefix of one: "cud"), after the last: none.
    for word in ("aaa", "cud", "cudaa", "hangs", "zz"):
        assert retriever.postings(word) is None
    # The real index, across its blocks: every one of its words, read back the way a run reads it.
    kb_index = json.loads((ROOT / "knowledge" / "retrieval.json").read_text())["postings"]
    real = Retriever(kb_index)
    words = [record.split("=", 1)[0] for record in kb_index["words"].strip(";").split(";")]
    assert len(words) > 2 * POSTINGS_BLOCK and words == sorted(words)
    assert all(real.postings(w) is not None for w in words)
    assert real.postings(words[0][:-1] + "~") is None


def test_an_entry_read_from_the_index_is_the_entry_its_toml_file_gives():
    entries = _parse_toml(_toml_files())
    kb = KnowledgeBase(KB.heads, "index", offsets=KB._offsets)
    assert KB.source == "index" and set(KB._offsets) == set(entries)
    for entry_id in sorted(entries)[::7]:  # one at a time, by offset
        assert kb.entry(entry_id) == entries[entry_id]
    assert KnowledgeBase(KB.heads, "index", offsets=KB._offsets).entries == entries  # all at once


def test_a_missing_entries_file_falls_back_to_the_toml_files(monkeypatch):
    from torchdoctor.kb import loader

    entries = _parse_toml(_toml_files())
    monkeypatch.setattr(loader, "ENTRIES", "no-such-entries.jsonl")
    kb = KnowledgeBase(KB.heads, "index", offsets=KB._offsets)
    assert kb.entry("cuda-out-of-memory") == entries["cuda-out-of-memory"]
    assert KnowledgeBase(KB.heads, "index", offsets=KB._offsets).entries == entries


def test_an_entries_line_that_is_not_the_entry_falls_back_to_its_toml_file():
    entries = _parse_toml(_toml_files())
    first, second = sorted(entries)[:2]
    swapped = dict(KB._offsets)
    swapped[first] = KB._offsets[second]  # an entries file from another build of the index
    assert KnowledgeBase(KB.heads, "index", offsets=swapped).entry(first) == entries[first]


@pytest.mark.parametrize("entry_id", sorted(KB.entries))
def test_entry_has_real_examples(entry_id):
    entry = KB.entries[entry_id]
    assert len(entry.examples) >= 2, f"{entry_id}: at least two real error texts, with their source URL"
    assert len({ex.source for ex in entry.examples}) >= 2 or len(entry.examples) >= 3, \
        f"{entry_id}: examples should come from more than one report"
    assert entry.near_misses, f"{entry_id}: a near miss shows what it must not match"


@pytest.mark.parametrize("entry_id,index,example", EXAMPLES, ids=[f"{e}-{i}" for e, i, _ in EXAMPLES])
def test_example_matches_its_entry_first(entry_id, index, example):
    matches = explain(example.text)
    assert matches, f"{entry_id} example {index} matched nothing"
    assert matches[0].id == entry_id, \
        f"{entry_id} example {index}: ranked {[(m.id, round(m.confidence, 2)) for m in matches[:3]]}"
    for key, value in example.captures.items():
        assert matches[0].captures.get(key) == value, f"capture {key}: {matches[0].captures}"


@pytest.mark.parametrize("entry_id,index,near", NEAR, ids=[f"{e}-near-{i}" for e, i, _ in NEAR])
def test_near_miss_does_not_match(entry_id, index, near):
    ids = [m.id for m in explain(near.text)]
    assert entry_id not in ids, f"{entry_id} near miss {index} ({near.note}) matched: {ids}"


def test_torchdoctor_commands_in_entries_parse():
    """A fix that says `torchdoctor env TE206` must be a command line the CLI accepts."""
    import shlex

    import typer

    from torchdoctor.cli import app
    from torchdoctor.kb.loader import _parse_toml, _toml_files

    group = typer.main.get_command(app)
    bad = []
    for entry in _parse_toml(_toml_files()).values():
        for fix in entry.fixes:
            for command in fix.commands:
                if not command.startswith("torchdoctor "):
                    continue
                args = shlex.split(command.split("#")[0])[1:]
                try:
                    parent = group.make_context("torchdoctor", list(args), resilient_parsing=False)
                    sub = group.get_command(parent, args[0])
                    assert sub is not None, f"no command {args[0]}"
                    if hasattr(sub, "get_command") and len(args) > 1:  # a group: kb show ID
                        ctx = sub.make_context(args[0], list(args[1:]), parent=parent)
                        leaf = sub.get_command(ctx, args[1])
                        assert leaf is not None, f"no command {args[1]}"
                        leaf.make_context(args[1], list(args[2:]), parent=ctx)
                    else:
                        sub.make_context(args[0], list(args[1:]), parent=parent)
                except Exception as exc:  # click raises UsageError/NoSuchOption; report them all at once
                    bad.append((entry.id, command, f"{type(exc).__name__}: {exc}"))
    assert not bad, bad
