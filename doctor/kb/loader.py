"""Loading the knowledge base: knowledge/*.toml, through a prebuilt index.

Parsing 100 TOML files and compiling every regex on each run would cost more than the whole
budget of `torchdoctor explain`, so what matching needs of the entries lives in
knowledge/index.json, and the entries themselves, validated, in knowledge/entries.jsonl (one JSON
line each, read by offset: an answer reads only its own entry, with neither the TOML parser nor
the validation's regex compiling). retrieval.json and vocabulary.json are read only when needed.
All four are built by `python -m torchdoctor.kb.loader` (kb/build.py, which `explain` never
loads). The index records the TOML files' names and sizes; when they changed since (a developer
editing an entry), the loader parses the TOML instead, so the answer is never stale.
tests/test_knowledge.py fails when the committed files are out of date.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import zlib
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, Sequence

from .schema import Entry, Pattern, SchemaError, entry_from_index

if TYPE_CHECKING:
    from .retrieve import Retriever

PACKAGE = "torchdoctor.knowledge"
INDEX = "index.json"
# The validated entries, one JSON line each; the index holds each line's offset and length.
ENTRIES = "entries.jsonl"
# Read only for possible causes, and only for a paste that was re-wrapped.
RETRIEVAL = "retrieval.json"
VOCABULARY = "vocabulary.json"
INDEX_VERSION = 1


class Head(NamedTuple):
    """What matching needs of an entry; the rest is read from entries.jsonl only when it matched."""

    id: str
    title: str
    patterns: tuple[Pattern, ...]
    # Per pattern: groups of substrings; every match contains one of each group (lower-cased
    # when the pattern ignores case). A pattern is compiled and run only when the text does.
    # (Lists when read from the index.)
    literals: Sequence[Sequence[Sequence[str]]]
    refined_by: tuple[str, ...] = ()
    # Per pattern, more groups of the same kind for a long pattern, which costs a millisecond to
    # compile: a stronger prefilter that is not the message's fixed words (build.required_literals
    # with expand). Empty when no pattern of the entry has any.
    prefilter: Sequence[Sequence[Sequence[str]]] = ()


class KnowledgeBase:
    def __init__(self, heads: dict[str, Head], source: str, entries: dict[str, Entry] | None = None,
                 offsets: dict[str, tuple[int, int]] | None = None) -> None:
        self.heads = heads
        self.source = source  # "index" or "toml"
        self._entries: dict[str, Entry] = dict(entries or {})
        self._complete = entries is not None
        self._offsets = offsets or {}  # where each entry's line is in entries.jsonl
        self.digest = ""
        self._retriever: Retriever | None = None
        self._vocabulary: frozenset[str] | None = None

    def __len__(self) -> int:
        return len(self.heads)

    def entry(self, entry_id: str) -> Entry:
        if entry_id not in self._entries:
            entry = None
            if entry_id in self._offsets:
                start, length = self._offsets[entry_id]
                try:
                    with open(os.path.join(_directory(), ENTRIES), "rb") as fh:
                        fh.seek(start)
                        entry = self._from_line(fh.read(length), entry_id)
                except OSError:
                    pass
            if entry is None:  # no index, or an entries file missing or not fitting it: the TOML
                name = f"{entry_id}.toml"
                entry = _parse_toml([(name, _read(name))])[entry_id]
            self._entries[entry_id] = entry
        return self._entries[entry_id]

    def _from_line(self, line: bytes, entry_id: str | None = None) -> Entry | None:
        """An entry from its line of entries.jsonl (validated when the index was built); None
        when the line is not the entry asked for."""
        try:
            data = json.loads(line)
            head = self.heads.get(data["id"])
            if head is not None and entry_id in (None, head.id):
                return entry_from_index(data, head.patterns)
        except (ValueError, KeyError, TypeError):
            pass
        return None

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry, fully read (for kb list/search and the tests)."""
        if not self._complete:
            if self._offsets:  # one read of the entries file instead of one per entry
                try:
                    lines = _read(ENTRIES).splitlines()
                except OSError:
                    lines = []
                for line in lines:
                    entry = self._from_line(line)
                    if entry is not None:
                        self._entries.setdefault(entry.id, entry)
            for entry_id in self.heads:
                self.entry(entry_id)
            self._complete = True
        return {i: self._entries[i] for i in self.heads}

    def _built(self, name: str, key: str) -> Any:
        """`key` of an index file built beside index.json (retrieval.json, vocabulary.json);
        built now when there is no index or it is older than the TOML files."""
        if self.source == "index":
            try:
                with _collector_paused():
                    data = json.loads(_read(name))
                if data.get("digest") == self.digest:
                    return data[key]
            except (OSError, ValueError, AttributeError, KeyError):
                pass
        from .build import build_retrieval

        return build_retrieval(self.entries.values())[key]

    @property
    def retriever(self) -> "Retriever":
        from .retrieve import Retriever

        if self._retriever is None:
            self._retriever = Retriever(self._built(RETRIEVAL, "postings"))
        return self._retriever

    def vocabulary(self) -> frozenset[str]:
        """Words the entries use (lower case): tells a line cut mid-word from one cut at a space."""
        if self._vocabulary is None:
            self._vocabulary = frozenset(self._built(VOCABULARY, "vocabulary"))
        return self._vocabulary

    @property
    def literals(self) -> dict[str, list[list[list[str]]]]:
        return {h.id: [[list(g) for g in x] for x in h.literals] for h in self.heads.values()}


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Reading an index file creates tens of thousands of objects and no garbage: the cyclic
    collector would only walk them (a collection or two, ~2 ms of every `explain`)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _directory() -> str:
    # A plain directory in both the wheel and an editable install; os.scandir is ~10x faster
    # than walking importlib.resources Traversables, and explain's budget is tens of milliseconds.
    import importlib

    return os.path.dirname(importlib.import_module(PACKAGE).__file__)


def _read(name: str) -> bytes:
    with open(os.path.join(_directory(), name), "rb") as fh:
        return fh.read()


def _toml_files() -> list[tuple[str, bytes]]:
    directory = _directory()
    names = sorted(e.name for e in os.scandir(directory) if e.name.endswith(".toml"))
    out = []
    for name in names:
        with open(os.path.join(directory, name), "rb") as fh:
            out.append((name, fh.read()))
    return out


def digest(files: list[tuple[str, bytes]]) -> str:
    """What the index was built from: each TOML file's name and size."""
    return _digest_of_sizes([(name, len(data)) for name, data in files])


def _digest_of_sizes(sizes: list[tuple[str, int]]) -> str:
    # A change detector, not a security check. Names and sizes only: reading 170 files to hash
    # them cost ~10 ms of every `explain` (a stat each costs a tenth). An edit that keeps a file's
    # size is missed here, and caught by tests/test_knowledge.py, which compares the committed
    # index with a fresh build from the files' contents.
    crc = 0
    for name, size in sizes:
        crc = zlib.crc32(f"{name}\0{size}\n".encode(), crc)
    return f"sizes:{crc:08x}:{sum(size for _, size in sizes)}"


def _current_digest() -> str:
    with os.scandir(_directory()) as it:
        sizes = sorted((e.name, e.stat().st_size) for e in it if e.name.endswith(".toml"))
    return _digest_of_sizes(sizes)


def _parse_toml(files: list[tuple[str, bytes]]) -> dict[str, Entry]:
    from .validate import entry_from_dict

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib

    entries: dict[str, Entry] = {}
    for name, data in files:
        where = f"knowledge/{name}"
        try:
            raw = tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SchemaError(f"{where}: not valid TOML: {exc}") from None
        entry = entry_from_dict(raw, where)
        if entry.id != name[: -len(".toml")]:
            raise SchemaError(f"{where}: id {entry.id!r} must equal the file name")
        entries[entry.id] = entry
    return entries


_CACHE: KnowledgeBase | None = None


def load() -> KnowledgeBase:
    """The knowledge base, from the index when it is current, else from the TOML files."""
    global _CACHE
    if _CACHE is not None:
        return _CACHE
    current = _current_digest()
    try:
        with _collector_paused():
            index = json.loads(_read(INDEX))
            fresh = index.get("index_version") == INDEX_VERSION and index.get("digest") == current
            if fresh:
                # The literal groups stay the lists JSON gives (they are only iterated): making
                # tuples of them was half the cost of building the heads.
                heads = {h["id"]: Head(h["id"], h["title"], tuple([Pattern(**p) for p in h["patterns"]]),
                                       h["literals"], tuple(h.get("refined_by", ())), h.get("prefilter", ()))
                         for h in index["heads"]}
                offsets = {h["id"]: tuple(h["entry_at"]) for h in index["heads"] if "entry_at" in h}
    except (OSError, ValueError, AttributeError):
        fresh = False
    if fresh:
        _CACHE = KnowledgeBase(heads, "index", offsets=offsets)
        _CACHE.digest = current
        return _CACHE
    from .build import head_of

    files = _toml_files()
    current = digest(files)
    entries = _parse_toml(files)
    _CACHE = KnowledgeBase({e.id: head_of(e) for e in entries.values()}, "toml", entries)
    _CACHE.digest = current
    return _CACHE


if __name__ == "__main__":
    from .build import write_index

    print(f"wrote {write_index()}")
