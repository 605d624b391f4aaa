"""Loading the knowledge base: knowledge/*.toml, through a prebuilt index.

Parsing 80 TOML files and compiling every regex on each run would cost more than the whole
budget of `torchdoctor explain`, so the entries also live in knowledge/index.json, built by
`python -m torchdoctor.kb.loader`. The index records a digest of the TOML files; when they
changed since (a developer editing an entry), the loader parses the TOML instead, so the answer
is never stale. tests/test_knowledge.py fails when the committed index is out of date.
"""

from __future__ import annotations

import json
import os
import re
import sys
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .schema import Entry, Pattern, SchemaError, entry_from_dict, entry_to_dict

if TYPE_CHECKING:
    from .retrieve import Retriever

PACKAGE = "torchdoctor.knowledge"
INDEX = "index.json"
# Read only when no pattern is confident (possible causes) or a paste was re-wrapped (vocabulary).
RETRIEVAL = "retrieval.json"
INDEX_VERSION = 1


@dataclass(frozen=True)
class Head:
    """What matching needs of an entry; the rest is read from its TOML file only when it matched."""

    id: str
    title: str
    patterns: tuple[Pattern, ...]
    # Per pattern: groups of substrings; every match contains one of each group (lower-cased
    # when the pattern ignores case). A pattern is compiled and run only when the text does.
    literals: tuple[tuple[tuple[str, ...], ...], ...]
    refined_by: tuple[str, ...] = ()


class KnowledgeBase:
    def __init__(self, heads: dict[str, Head], source: str, entries: dict[str, Entry] | None = None) -> None:
        self.heads = heads
        self.source = source  # "index" or "toml"
        self._entries: dict[str, Entry] = dict(entries or {})
        self._complete = entries is not None
        self.digest = ""
        self._retrieval: dict[str, Any] | None = None
        self._retriever: Retriever | None = None
        self._vocabulary: frozenset[str] | None = None

    def __len__(self) -> int:
        return len(self.heads)

    def entry(self, entry_id: str) -> Entry:
        if entry_id not in self._entries:
            name = f"{entry_id}.toml"
            data = _read(name)
            self._entries[entry_id] = _parse_toml([(name, data)])[entry_id]
        return self._entries[entry_id]

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry, fully read (for kb list/search and the tests)."""
        if not self._complete:
            for entry_id in self.heads:
                self.entry(entry_id)
            self._complete = True
        return {i: self._entries[i] for i in self.heads}

    def _retrieval_data(self) -> dict[str, Any]:
        if self._retrieval is None:
            data = None
            if self.source == "index":
                try:
                    data = json.loads(_read(RETRIEVAL))
                    if data.get("digest") != self.digest:
                        data = None
                except (OSError, ValueError):
                    data = None
            self._retrieval = data or build_retrieval(self.entries.values())
        return self._retrieval

    @property
    def retriever(self) -> "Retriever":
        from .retrieve import Retriever

        if self._retriever is None:
            self._retriever = Retriever(self._retrieval_data())
        return self._retriever

    def vocabulary(self) -> frozenset[str]:
        """Words the entries use (lower case): tells a line cut mid-word from one cut at a space."""
        if self._vocabulary is None:
            self._vocabulary = frozenset(self._retrieval_data()["vocabulary"])
        return self._vocabulary

    @property
    def literals(self) -> dict[str, list[list[list[str]]]]:
        return {h.id: [[list(g) for g in x] for x in h.literals] for h in self.heads.values()}


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
    # A change detector, not a security check: crc32 costs a fraction of hashlib's import.
    crc = 0
    for name, data in files:
        crc = zlib.crc32(data, zlib.crc32(name.encode() + b"\0", crc))
    return f"crc32:{crc:08x}:{sum(len(d) for _, d in files)}"


def _parse_toml(files: list[tuple[str, bytes]]) -> dict[str, Entry]:
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


def required_literals(regex: str, ignore_case: bool) -> list[list[str]]:
    """What every match of `regex` must contain, as an AND of ORs of substrings (3+ characters).

    Walks the parsed regex along its mandatory spine (groups and one-or-more repeats are entered;
    optional parts and character classes break a run). An alternation whose every branch has a
    literal of its own becomes one OR-group. The result is a safe prefilter: when a group has no
    substring in the text, the pattern cannot match it, and is neither compiled nor run.
    """
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    from re import _constants as c  # type: ignore[attr-defined]

    def spine(items: Any, fold: bool) -> list[list[str]]:
        groups: list[list[str]] = []
        run: list[str] = []

        def flush() -> None:
            # Three characters at least; two suffice for a Chinese word (卡住, 显存), which is
            # as selective as an English one of five.
            if len(run) >= 3 or (len(run) == 2 and all(ord(ch) > 0x2E7F for ch in run)):
                text = "".join(run)
                groups.append([text.lower() if fold else text])
            run.clear()

        for op, arg in items:
            if op is c.LITERAL:
                run.append(chr(arg))
            elif op is c.SUBPATTERN:
                if arg[1] & c.SRE_FLAG_IGNORECASE and not fold:
                    flush()  # (?i:...) inside a case-sensitive pattern: no safe literal here
                    continue
                if _has_branch(arg[-1]):
                    flush()
                    groups.extend(spine(arg[-1], fold))
                    continue
                # A plain group: its literals continue the current run.
                for inner_op, inner_arg in arg[-1]:
                    if inner_op is c.LITERAL:
                        run.append(chr(inner_arg))
                    else:
                        flush()
                        groups.extend(spine([(inner_op, inner_arg)], fold))
            elif op is c.BRANCH:
                flush()
                alternatives = []
                for branch in arg[1]:
                    best = _longest(spine(branch, fold))
                    if best is None:
                        alternatives = []
                        break
                    alternatives.append(best)
                if alternatives:
                    groups.append(sorted(set(alternatives)))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
                flush()
                groups.extend(spine(arg[2], fold))
            elif op is c.AT:
                continue  # anchors consume nothing
            else:
                flush()
        flush()
        return groups

    def _has_branch(items: Any) -> bool:
        return any(op is c.BRANCH for op, _ in items)

    def _longest(groups: list[list[str]]) -> str | None:
        singles = [g[0] for g in groups if len(g) == 1]
        return max(singles, key=len) if singles else None

    try:
        parsed = sre_parse.parse(regex, 0)
    except Exception:
        return []
    fold = ignore_case or bool(parsed.state.flags & c.SRE_FLAG_IGNORECASE)
    return spine(list(parsed), fold)


def _head(entry: Entry) -> Head:
    return Head(entry.id, entry.title, entry.patterns,
                tuple(tuple(tuple(g) for g in required_literals(p.matched_regex, p.ignore_case)) for p in entry.patterns),
                entry.refined_by)


def build_index(files: list[tuple[str, bytes]] | None = None) -> dict[str, Any]:
    files = _toml_files() if files is None else files
    entries = _parse_toml(files)
    heads = [_head(e) for e in entries.values()]
    return {
        "index_version": INDEX_VERSION,
        "digest": digest(files),
        "heads": [{"id": h.id, "title": h.title, "patterns": [entry_to_dict(p) for p in h.patterns],
                   "literals": [[list(g) for g in x] for x in h.literals], "refined_by": list(h.refined_by)}
                  for h in heads],
    }


_VOCAB_WORD = re.compile(r"[a-z][a-z0-9_]+")


def build_retrieval(entries: Any, files_digest: str = "") -> dict[str, Any]:
    """The retrieval index (BM25 documents) and the vocabulary of the entries."""
    from .retrieve import build

    entries = list(entries)
    data = build(entries)
    words: set[str] = set()
    for e in entries:
        for text in (e.title, e.summary, e.explanation, *e.symptoms, *(x.text for x in e.examples)):
            words.update(_VOCAB_WORD.findall(text.lower()))
    data["vocabulary"] = sorted(words)
    data["digest"] = files_digest
    return data


_CACHE: KnowledgeBase | None = None


def load() -> KnowledgeBase:
    """The knowledge base, from the index when it is current, else from the TOML files."""
    global _CACHE
    if _CACHE is not None:
        return _CACHE
    files = _toml_files()
    current = digest(files)
    try:
        index = json.loads(_read(INDEX))
    except (OSError, ValueError):
        index = None
    if index and index.get("index_version") == INDEX_VERSION and index.get("digest") == current:
        heads = {h["id"]: Head(h["id"], h["title"], tuple(Pattern(**p) for p in h["patterns"]),
                               tuple(tuple(tuple(g) for g in x) for x in h["literals"]),
                               tuple(h.get("refined_by", ()))) for h in index["heads"]}
        _CACHE = KnowledgeBase(heads, "index")
        _CACHE.digest = current
        return _CACHE
    entries = _parse_toml(files)
    _CACHE = KnowledgeBase({e.id: _head(e) for e in entries.values()}, "toml", entries)
    _CACHE.digest = current
    return _CACHE


def write_index() -> str:
    files = _toml_files()
    path = os.path.join(_directory(), INDEX)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(build_index(files), indent=1, ensure_ascii=False) + "\n")
    retrieval = build_retrieval(_parse_toml(files).values(), digest(files))
    with open(os.path.join(_directory(), RETRIEVAL), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(retrieval, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    return path


if __name__ == "__main__":
    print(f"wrote {write_index()}")
