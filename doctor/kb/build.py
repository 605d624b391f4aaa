"""Building the knowledge index from knowledge/*.toml: index.json (what matching needs of each
entry, with the literal prefilter of every pattern), entries.jsonl (the validated entries),
retrieval.json (the BM25 index, with the words of report_words.json) and vocabulary.json (the words
the entries use).

`python -m torchdoctor.kb.loader` (or `python -m torchdoctor.kb.build`) rewrites them; the loader
reads them, and falls back to this module only when they are older than the TOML files.
`python -m torchdoctor.kb.build --reports tests/fixtures/explain_real` first rewrites report_words.json
from the corpus's dev split.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .loader import (ENTRIES, INDEX, INDEX_VERSION, RETRIEVAL, VOCABULARY, Head, _directory, _parse_toml,
                     _toml_files, digest)
from .schema import Entry, entry_to_dict


# Words most error pastes hold, whatever their cause (and their beginnings, "erro", "outp", ...): a
# prefilter group that accepts one of them filters nothing.
_COMMON_WORDS = frozenset(
    prefix for word in ("error", "errors", "output", "outputs", "result", "results", "value", "values", "test",
                        "tests", "file", "line", "call", "last", "recent", "return", "self", "input", "model",
                        "train", "training", "tensor", "torch", "python", "module", "data", "size", "type",
                        "when", "while", "after", "during", "from", "with", "only", "all", "can", "time",
                        "version", "device", "cuda", "gpu", "run", "the", "not", "and", "for", "lib", "load", "use", "using",
                        "used", "take", "than", "still", "start", "state", "loss", "info", "information")
    for prefix in {word[:n] for n in range(3, len(word) + 1)})


def required_literals(regex: str, ignore_case: bool) -> list[list[str]]:
    """What every match of `regex` must contain, as an AND of ORs of substrings (3+ characters).

    Walks the parsed regex along its mandatory spine (groups and one-or-more repeats are entered;
    optional parts and character classes break a run). An alternation whose every branch has a
    literal or an OR-group of its own becomes one OR-group. The result is a safe prefilter: when a
    group has no substring in the text, the pattern cannot match it, and is neither compiled nor run.
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
                alternatives: set[str] = set()
                for branch in arg[1]:
                    best = _most_selective(spine(branch, fold))
                    if best is None:
                        alternatives.clear()
                        break
                    alternatives.update(best)
                if alternatives:
                    groups.append(sorted(alternatives))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
                flush()
                groups.extend(spine(arg[2], fold))
            elif op is c.AT:
                continue  # anchors consume nothing
            elif op is c.ASSERT:
                # A positive lookaround's text must be in the text too (a pattern made only of
                # lookaheads, "(?=.*GPU name)(?=.*bf16)", would otherwise have no prefilter at all).
                flush()
                groups.extend(spine(arg[1], fold))
            else:
                flush()
        flush()
        return groups

    def _has_branch(items: Any) -> bool:
        return any(op is c.BRANCH for op, _ in items)

    def _most_selective(groups: list[list[str]]) -> list[str] | None:
        # One of the branch's groups, each contained in every match of the branch. First any group
        # without a word every bug report carries ("error", "output": it passes on nearly every text);
        # then one literal before an OR of several ("(?:hangs|stuck) ... (?:num_workers|dataloader)");
        # then the group whose shortest substring is longest.
        if not groups:
            return None
        return max(groups, key=lambda g: (not _common(g), len(g) == 1, min(map(len, g)), -len(g)))

    def _common(group: list[str]) -> bool:
        return any(s.lower() in _COMMON_WORDS for s in group)

    try:
        parsed = sre_parse.parse(regex, 0)
    except Exception:
        return []
    fold = ignore_case or bool(parsed.state.flags & c.SRE_FLAG_IGNORECASE)
    return spine(list(parsed), fold)


def head_of(entry: Entry) -> Head:
    """What matching needs of an entry, with each pattern's literal prefilter."""
    return Head(entry.id, entry.title, entry.patterns,
                tuple(tuple(tuple(g) for g in required_literals(p.matched_regex, p.ignore_case)) for p in entry.patterns),
                entry.refined_by)


def build_entries(entries: dict[str, Entry]) -> tuple[bytes, dict[str, tuple[int, int]]]:
    """entries.jsonl (one validated entry a line, without its patterns: the index has them) and
    each line's offset and length."""
    out = bytearray()
    offsets = {}
    for entry in entries.values():
        data = entry_to_dict(entry)
        del data["patterns"]
        line = json.dumps(data, ensure_ascii=False).encode("utf-8")
        offsets[entry.id] = (len(out), len(line))
        out += line + b"\n"
    return bytes(out), offsets


def _pattern_fields(pattern: Any) -> dict[str, Any]:
    """A pattern's fields without those at their default: every `explain` parses the index, and
    the defaults were a third of it."""
    fields = entry_to_dict(pattern)
    return {k: v for k, v in fields.items() if k == "regex" or v != type(pattern)._field_defaults.get(k)}


def build_index(files: list[tuple[str, bytes]] | None = None) -> dict[str, Any]:
    files = _toml_files() if files is None else files
    entries = _parse_toml(files)
    heads = [head_of(e) for e in entries.values()]
    _, offsets = build_entries(entries)
    return {
        "index_version": INDEX_VERSION,
        "digest": digest(files),
        "heads": [{"id": h.id, "title": h.title, "patterns": [_pattern_fields(p) for p in h.patterns],
                   "literals": [[list(g) for g in x] for x in h.literals], "refined_by": list(h.refined_by),
                   "entry_at": list(offsets[h.id])}
                  for h in heads],
    }


_VOCAB_WORD = re.compile(r"[a-z][a-z0-9_]+")


# Per entry, the words of the dev split's real reports labelled with it (written by
# `python -m torchdoctor.kb.build --reports DIR`); part of the retrieval index's documents.
REPORT_WORDS = "report_words.json"


def read_report_words() -> dict[str, dict[str, int]]:
    try:
        with open(os.path.join(_directory(), REPORT_WORDS), encoding="utf-8") as fh:
            return json.load(fh)["words"]
    except (OSError, ValueError, KeyError):
        return {}


def reports_of(corpus_dir: str, split: str = "dev") -> list[tuple[str, str, str]]:
    """(url, label, text) of the corpus's reports of one split (the jsonl files of
    tests/fixtures/explain_real); a `new:x` label is x."""
    import glob

    out = []
    for name in sorted(glob.glob(os.path.join(corpus_dir, "*.jsonl"))):
        with open(name, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    case = json.loads(line)
                    if case["split"] == split:
                        label = case["label"]
                        out.append((case["url"], label[4:] if label.startswith("new:") else label, case["text"]))
    return out


def report_word_lists(reports: list[tuple[str, str, str]]) -> list[tuple[str, str, list[str]]]:
    """(url, label, retrieval words) of each report: the words a query of its text would be ranked by."""
    from .matcher import query_text
    from .parse import parse
    from .retrieve import tokens

    return [(url, label, tokens(query_text(parse(text)))) for url, label, text in reports]


def write_report_words(corpus_dir: str) -> str:
    """knowledge/report_words.json from the corpus's dev split. Never the held-out split: its
    figures would then measure text the index was built from."""
    from .retrieve import report_words

    known = {name[:-5] for name, _ in _toml_files()}
    lists = report_word_lists(reports_of(corpus_dir, "dev"))
    words = report_words([(label, w) for _, label, w in lists], known)
    path = os.path.join(_directory(), REPORT_WORDS)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"split": "dev", "reports": sum(1 for _, label, _ in lists if label in known),
                             "words": words}, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    return path


def build_retrieval(entries: Any, files_digest: str = "") -> dict[str, Any]:
    """The retrieval index (BM25 documents) and the vocabulary of the entries."""
    from .retrieve import build

    entries = list(entries)
    data = build(entries, read_report_words())
    words: set[str] = set()
    for e in entries:
        for text in (e.title, e.summary, e.explanation, *e.symptoms, *(x.text for x in e.examples)):
            words.update(_VOCAB_WORD.findall(text.lower()))
    data["vocabulary"] = sorted(words)
    data["digest"] = files_digest
    return data


def write_index() -> str:
    files = _toml_files()
    path = os.path.join(_directory(), INDEX)
    with open(path, "w", encoding="utf-8") as fh:
        # One head per line: diffs stay readable, and the file is a fifth of an indented one's size.
        index = build_index(files)
        heads = ",\n".join(json.dumps(h, ensure_ascii=False, separators=(",", ":")) for h in index["heads"])
        fh.write(f'{{"index_version":{index["index_version"]},"digest":{json.dumps(index["digest"])},'
                 f'"heads":[\n{heads}\n]}}\n')
    entries = _parse_toml(files)
    with open(os.path.join(_directory(), ENTRIES), "wb") as fh:
        fh.write(build_entries(entries)[0])
    retrieval = build_retrieval(entries.values(), digest(files))
    for name, key in ((RETRIEVAL, "postings"), (VOCABULARY, "vocabulary")):
        with open(os.path.join(_directory(), name), "w", encoding="utf-8") as fh:
            part = {key: retrieval[key], "digest": retrieval["digest"]}
            fh.write(json.dumps(part, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    return path


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m torchdoctor.kb.build", description="Rebuild the knowledge index.")
    ap.add_argument("--reports", metavar="DIR", help="first rewrite report_words.json from the dev split of this corpus")
    args = ap.parse_args()
    if args.reports:
        print(f"wrote {write_report_words(args.reports)}")
    print(f"wrote {write_index()}")
