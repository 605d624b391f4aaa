"""Loading the knowledge base: knowledge/*.toml, through a prebuilt index.

Parsing 80 TOML files and compiling every regex on each run would cost more than the whole
budget of `torchdoctor explain`, so the entries also live in knowledge/index.json, built by
`python -m torchdoctor.kb.loader`. The index records a digest of the TOML files; when they
changed since (a developer editing an entry), the loader parses the TOML instead, so the answer
is never stale. tests/test_knowledge.py fails when the committed index is out of date.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .schema import Entry, FixStep, NearMiss, Pattern, SchemaError, entry_from_dict, entry_to_dict
from .schema import Example as KbExample

PACKAGE = "torchdoctor.knowledge"
INDEX = "index.json"
INDEX_VERSION = 1


@dataclass
class KnowledgeBase:
    entries: dict[str, Entry]
    # Per entry, per pattern: substrings every match must contain (lower-cased when the pattern
    # ignores case). A pattern is compiled and run only when its literals are all in the text.
    literals: dict[str, list[list[str]]] = field(default_factory=dict)
    source: str = "index"  # "index" or "toml"

    def __len__(self) -> int:
        return len(self.entries)


def _toml_files() -> list[tuple[str, bytes]]:
    root = resources.files(PACKAGE)
    files = sorted((p.name, p.read_bytes()) for p in root.iterdir() if p.name.endswith(".toml"))
    return files


def digest(files: list[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


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


def required_literals(regex: str, ignore_case: bool) -> list[str]:
    """Substrings of 3+ characters that every match of `regex` must contain.

    Walks the parsed regex along its mandatory spine only (groups and one-or-more repeats are
    entered; alternatives, optional parts and character classes break a run), so the literals are
    a safe prefilter: if one is absent from the text, the pattern cannot match it.
    """
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    from re import _constants as c  # type: ignore[attr-defined]

    runs: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if len(current) >= 3:
            runs.append("".join(current))
        current.clear()

    def walk(items: Any) -> None:
        for op, arg in items:
            if op is c.LITERAL:
                current.append(chr(arg))
            elif op is c.SUBPATTERN:
                if arg[1] & c.SRE_FLAG_IGNORECASE and not ignore_case:
                    flush()  # (?i:...) inside a case-sensitive pattern: no safe literal here
                    continue
                walk(arg[-1])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
                flush()
                walk(arg[2])
                flush()
            elif op in (c.AT,):
                continue  # anchors consume nothing
            else:
                flush()

    try:
        parsed = sre_parse.parse(regex, 0)
    except Exception:
        return []
    if parsed.state.flags & c.SRE_FLAG_IGNORECASE:
        ignore_case = True
    walk(parsed)
    flush()
    if ignore_case:
        runs = [r.lower() for r in runs]
    return runs


def build_index(files: list[tuple[str, bytes]] | None = None) -> dict[str, Any]:
    files = _toml_files() if files is None else files
    entries = _parse_toml(files)
    return {
        "index_version": INDEX_VERSION,
        "digest": digest(files),
        "entries": [entry_to_dict(e) for e in entries.values()],
        "literals": {e.id: [required_literals(p.regex, p.ignore_case) for p in e.patterns] for e in entries.values()},
    }


def _entry_from_index(d: dict[str, Any]) -> Entry:
    # Trusted input (built by build_index from validated TOML): no re-validation, no compiling.
    return Entry(
        id=d["id"], title=d["title"], area=d["area"], summary=d["summary"], explanation=d["explanation"],
        patterns=tuple(Pattern(**p) for p in d["patterns"]),
        fixes=tuple(FixStep(f["summary"], tuple(f["commands"]), f["code"]) for f in d["fixes"]),
        examples=tuple(KbExample(x["text"], x["source"], x["captures"]) for x in d["examples"]),
        near_misses=tuple(NearMiss(**n) for n in d["near_misses"]),
        happened=tuple(d["happened"]), related=tuple(d["related"]), references=tuple(d["references"]),
        seed=d["seed"], see_also=tuple(d["see_also"]),
    )


_CACHE: KnowledgeBase | None = None


def load() -> KnowledgeBase:
    """The knowledge base, from the index when it is current, else from the TOML files."""
    global _CACHE
    if _CACHE is not None:
        return _CACHE
    files = _toml_files()
    current = digest(files)
    index_text = None
    try:
        index_text = resources.files(PACKAGE).joinpath(INDEX).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        pass
    if index_text:
        index = json.loads(index_text)
        if index.get("index_version") == INDEX_VERSION and index.get("digest") == current:
            entries = {d["id"]: _entry_from_index(d) for d in index["entries"]}
            _CACHE = KnowledgeBase(entries, index["literals"], "index")
            return _CACHE
    entries = _parse_toml(files)
    literals = {e.id: [required_literals(p.regex, p.ignore_case) for p in e.patterns] for e in entries.values()}
    _CACHE = KnowledgeBase(entries, literals, "toml")
    return _CACHE


def write_index() -> str:
    from pathlib import Path

    path = Path(str(resources.files(PACKAGE).joinpath(INDEX)))
    path.write_text(json.dumps(build_index(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return str(path)


if __name__ == "__main__":
    print(f"wrote {write_index()}")
