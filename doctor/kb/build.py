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
from collections import Counter
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


# With expand: how many groups an alternation gives at most (each one more substring test per text,
# each able to rule the pattern out); a literal run is read as the strings it can be while they are at
# most MAX_RUN_STRINGS ("sm_?(?:80|86|89|90)" is 8), a character class while it has at most
# MAX_CLASS_CHARS characters ("[345]0[5-9]0").
ALTERNATION_GROUPS = 3
MAX_RUN_STRINGS = 64
MAX_CLASS_CHARS = 10
# Patterns at least this long take a millisecond or more to compile: they also get the stronger
# prefilter (expand=True), where it adds groups. A short one compiles faster than its groups load.
PREFILTER_MIN_REGEX = 400


def required_literals(regex: str, ignore_case: bool, expand: bool = False) -> list[list[str]]:
    """What every match of `regex` must contain, as an AND of ORs of substrings (3+ characters).

    Walks the parsed regex along its mandatory spine (groups and one-or-more repeats are entered;
    optional parts and character classes break a run). An alternation whose every branch has a
    literal or an OR-group of its own becomes one OR-group. The result is a safe prefilter: when a
    group has no substring in the text, the pattern cannot match it, and is neither compiled nor run.
    Without `expand` the groups are also the message's fixed words, which template matching reads.

    `expand` makes a stronger prefilter that is no longer those words: small character classes,
    optional parts and alternations of literals are read into the strings ("[Cc]UDA" -> "CUDA",
    "cUDA"; "A(?:100|30)" -> "A100", "A30"), an alternation gives up to ALTERNATION_GROUPS groups,
    and one Chinese character is a literal.
    """
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse  # type: ignore[no-redef]
    from re import _constants as c  # type: ignore[attr-defined]

    def spine(items: Any, fold: bool) -> list[list[str]]:
        groups: list[list[str]] = []
        run = [""]  # the literal run being read, as the strings it can be (one without expand)

        def flush() -> None:
            nonlocal run
            if run != [""] and all(long_enough(s) for s in run):
                groups.append(minimal({s.lower() if fold else s for s in run}))
            run = [""]

        def extend(options: list[str]) -> None:
            # A run already long enough ends where the text may go several ways, as a plain run
            # does: "hangs? at epoch" gives "hang" and " at epoch", each group a substring test or
            # two. A run still too short ("A", "[345]0") reads on.
            nonlocal run
            if len(options) > 1 and all(long_enough(s) for s in run):
                flush()
            longer = [s + o for s in run for o in options]
            if len(longer) > MAX_RUN_STRINGS:
                flush()
                longer = options if len(options) <= MAX_RUN_STRINGS else [""]
            run = longer

        for op, arg in items:
            if op is c.AT:
                continue  # anchors consume nothing
            if expand and op is not c.ASSERT:
                options = finite([(op, arg)], fold)
                if options is not None:
                    extend(options)
                    continue
            if op is c.LITERAL:
                extend([chr(arg)])
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
                        extend([chr(inner_arg)])
                    else:
                        flush()
                        groups.extend(spine([(inner_op, inner_arg)], fold))
            elif op is c.BRANCH:
                flush()
                groups.extend(alternation(arg[1], fold))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
                flush()
                groups.extend(spine(arg[2], fold))
            elif op is c.ASSERT:
                # A positive lookaround's text must be in the text too (a pattern made only of
                # lookaheads, "(?=.*GPU name)(?=.*bf16)", would otherwise have no prefilter at all).
                flush()
                groups.extend(spine(arg[1], fold))
            else:
                flush()
        flush()
        return groups

    def alternation(branches: Any, fold: bool) -> list[list[str]]:
        # Every match goes through one branch and holds all of that branch's groups, so taking one
        # group from each branch and joining them gives a group every match holds one substring of:
        # each branch's most selective one. With expand the next groups join each branch's second
        # and third: a symptom in words, "(?:mps ... wrong ... cpu)|(?:wrong results ... mps)", then
        # needs "mps" too, not only one of the words "wrong" or "incorrect" (which CUDA's own "the
        # stacktrace below might be incorrect" holds).
        ranked = []
        for branch in branches:
            own = spine(branch, fold)
            if not own:
                return []
            ranked.append(sorted(own, key=_selectivity, reverse=True))
        count = min(ALTERNATION_GROUPS if expand else 1, *(len(own) for own in ranked))
        return [minimal({s for own in ranked for s in own[j]}) for j in range(count)]

    def finite(items: Any, fold: bool) -> list[str] | None:
        """Every string `items` can match, when they are few and made of literals, small character
        classes, optional parts and alternations of those; None otherwise."""
        out = [""]
        for op, arg in items:
            if op is c.AT:
                continue
            if op is c.LITERAL:
                options: list[str] | None = [chr(arg)]
            elif op is c.IN:
                options = class_chars(arg)
            elif op is c.SUBPATTERN:
                options = None if arg[1] & c.SRE_FLAG_IGNORECASE and not fold else finite(arg[-1], fold)
            elif op is c.BRANCH:
                options = []
                for branch in arg[1]:
                    one = finite(branch, fold)
                    if one is None:
                        return None
                    options += one
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] == 0 and arg[1] == 1:
                one = finite(arg[2], fold)
                options = None if one is None else ["", *one]
            else:
                return None
            if options is None:
                return None
            out = [s + o for s in out for o in options]
            if len(out) > MAX_RUN_STRINGS:
                return None
        return out

    def class_chars(items: Any) -> list[str] | None:
        chars: list[str] = []
        for op, arg in items:
            if op is c.LITERAL:
                chars.append(chr(arg))
            elif op is c.RANGE and arg[1] - arg[0] < MAX_CLASS_CHARS:
                chars.extend(chr(x) for x in range(arg[0], arg[1] + 1))
            else:
                return None  # a negated class, \d, \w, a wide range: too many strings
        return chars if len(chars) <= MAX_CLASS_CHARS else None

    def long_enough(s: str) -> bool:
        # Three characters at least; two suffice for a Chinese word (卡住, 显存), which is as
        # selective as an English one of five, and with expand one (涨): no English text holds it.
        return len(s) >= 3 or (0 < len(s) <= 2 and (expand or len(s) == 2) and all(ord(ch) > 0x2E7F for ch in s))

    def minimal(found: set[str]) -> list[str]:
        # With expand, a string holding another of the group adds nothing to an OR of substring tests.
        if not expand:
            return sorted(found)
        return sorted(s for s in found if not any(o != s and o in s for o in found))

    def _has_branch(items: Any) -> bool:
        return any(op is c.BRANCH for op, _ in items)

    def _selectivity(group: list[str]) -> tuple[bool, bool, int, int]:
        # Which of a branch's groups filters best. First any group without a word every bug report
        # carries ("error", "output": it passes on nearly every text); then one literal before an OR
        # of several ("(?:hangs|stuck) ... (?:num_workers|dataloader)"); then the group whose
        # shortest substring is longest.
        return (not _common(group), len(group) == 1, min(map(len, group)), -len(group))

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
    literals = [required_literals(p.matched_regex, p.ignore_case) for p in entry.patterns]
    more = [[g for g in required_literals(p.matched_regex, p.ignore_case, expand=True) if g not in own]
            if len(p.matched_regex) >= PREFILTER_MIN_REGEX else [] for p, own in zip(entry.patterns, literals)]
    return Head(entry.id, entry.title, entry.patterns, tuple(tuple(tuple(g) for g in x) for x in literals),
                entry.refined_by, tuple(tuple(tuple(g) for g in x) for x in more) if any(more) else ())


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
                   "entry_at": list(offsets[h.id]),
                   **({"prefilter": [[list(g) for g in x] for x in h.prefilter]} if h.prefilter else {})}
                  for h in heads],
    }


_VOCAB_WORD = re.compile(r"[a-z][a-z0-9_]+")


# Per entry, the words of the dev split's real reports labelled with it (written by
# `python -m torchdoctor.kb.build --reports DIR`); part of the retrieval index's documents.
REPORT_WORDS = "report_words.json"


def read_report_words(key: str = "words") -> dict[str, Any]:
    """report_words.json's "words" (per entry, its reports' words) or "counts" (per entry, its number of reports)."""
    try:
        with open(os.path.join(_directory(), REPORT_WORDS), encoding="utf-8") as fh:
            return json.load(fh)[key]
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
        counts = Counter(label for _, label, _ in lists if label in known)
        fh.write(json.dumps({"split": "dev", "reports": sum(counts.values()), "counts": dict(counts),
                             "words": words}, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    return path


def build_retrieval(entries: Any, files_digest: str = "") -> dict[str, Any]:
    """The retrieval index (BM25 documents) and the vocabulary of the entries."""
    from .retrieve import build

    entries = list(entries)
    data = build(entries, read_report_words(), read_report_words("counts"))
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
