"""How often `torchdoctor explain` names the right cause on real pastes it was not built from.

The corpus is tests/fixtures/explain_real/*.jsonl: error texts copied verbatim from public issue
trackers, forums and blogs (English and Chinese), each labelled by the cause its thread
established, or `none` for an error a PyTorch doctor must not claim. Each case carries its split,
computed from its URL before any tuning (tests/test_explain_corpus.py re-computes it):
- dev: failures may be looked at (`--failures`) and fixed, by class;
- heldout: figures only. This script refuses to print held-out failures.

Printed per split, for torchdoctor and for a naive baseline (a case-insensitive grep of each entry's
literal phrases, ranked by the longest phrase found):
- top-1: the first confident answer is right (silence is wrong); "first listed" also counts a
  possible cause listed first when nothing was confident (shown, but never as an answer);
- top-3: the right cause is among the first three of the answers, then the possible causes;
- wrong on negatives: share of `none` cases that got a confident answer;
- wrong on positives: share of labelled cases whose confident first answer is another cause.

The possible causes are ranked by an index that holds the words of the dev cases themselves
(knowledge/report_words.json), so dev's "first listed" and top-3 grade text the index learned from;
bench/retrieval_leaveout.py gives the dev figure with each case's own thread left out. Held-out
cases are never read into the index.

Usage: python bench/explain_accuracy.py [--failures] [--split dev|heldout|all]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "tests", "fixtures", "explain_real")


@dataclass
class Case:
    id: str
    url: str
    text: str
    label: str
    also: list[str]
    split: str
    style: str
    lang: str
    note: str = ""
    moved_to_dev: str = ""  # why a case whose URL hashes to held-out is dev: it was seen while tuning

    def right(self, known: set[str]) -> set[str]:
        """The acceptable answers, as knowledge ids. A `new:x` label is the entry `x` once it exists;
        until then the case cannot be answered right (and counts as a miss)."""
        out = set()
        for label in [self.label, *self.also]:
            name = label[4:] if label.startswith("new:") else label
            if name in known:
                out.add(name)
            elif label.startswith("new:"):
                out.add(label)  # unanswerable until the entry exists
        return out


def load_corpus(path: str = CORPUS) -> list[Case]:
    cases = []
    for name in sorted(glob.glob(os.path.join(path, "*.jsonl"))):
        with open(name, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    d = json.loads(line)
                    cases.append(Case(d["id"], d["url"], d["text"], d["label"], list(d.get("also", [])),
                                      d["split"], d.get("style", ""), d.get("lang", ""), d.get("note", ""),
                                      d.get("moved_to_dev", "")))
    return cases


@dataclass
class Tally:
    n: int = 0
    positives: int = 0
    negatives: int = 0
    top1: int = 0
    top3: int = 0
    wrong_neg: int = 0
    wrong_pos: int = 0
    first_listed: int = 0
    failures: list[tuple[Case, list[str]]] = field(default_factory=list)

    def add(self, case: Case, right: set[str], confident: list[str], ranked: list[str]) -> None:
        self.n += 1
        if case.label == "none":
            self.negatives += 1
            if confident:
                self.wrong_neg += 1
                self.failures.append((case, ranked))
            return
        self.positives += 1
        ok1 = bool(confident) and confident[0] in right
        self.top1 += ok1
        self.first_listed += bool(ranked) and ranked[0] in right
        self.top3 += any(r in right for r in ranked[:3])
        if confident and not ok1:
            self.wrong_pos += 1
        if not ok1:
            self.failures.append((case, ranked))

    def row(self, name: str, width: int = 12) -> str:
        p = max(self.positives, 1)
        q = max(self.negatives, 1)
        return (f"{name:<{width}} {self.n:>5} {self.positives:>5} {self.negatives:>5}  {100 * self.top1 / p:6.1f}%"
                f" {100 * self.top3 / p:6.1f}%  {100 * self.wrong_neg / q:6.1f}%  {100 * self.wrong_pos / p:6.1f}%"
                f"  {100 * self.first_listed / p:6.1f}%")


def torchdoctor_ranker():
    from torchdoctor.kb import explain, load
    from torchdoctor.kb.parse import parse

    try:
        from torchdoctor.kb.matcher import possible_causes
    except ImportError:  # an older torchdoctor (PYTHONPATH=...), measured as it was
        possible_causes = None
    kb = load()

    def rank(text: str) -> tuple[list[str], list[str]]:
        parsed = parse(text)
        matches = explain(parsed, kb)
        confident = [m.id for m in matches]
        if possible_causes is None:
            weak = [m.id for m in explain(parsed, kb, include_weak=True) if m.id not in confident]
            return confident, confident + weak
        possible = [p.id for p in possible_causes(parsed, matches, kb, limit=3 - len(matches))] if len(matches) < 3 else []
        return confident, confident + possible

    return rank, set(kb.heads)


def grep_ranker():
    """The naive baseline: a plain case-insensitive grep of the catalog's phrases (the quoted
    "what the user sees" messages of shared/kb-catalog.md, kept in bench/data/catalog_phrases.json);
    longer phrases rank first, and every hit counts as an answer."""
    with open(os.path.join(HERE, "data", "catalog_phrases.json"), encoding="utf-8") as fh:
        catalog = json.load(fh)["phrases"]
    phrases = [(p.lower(), entry_id) for entry_id, ps in catalog.items() for p in ps]

    def rank(text: str) -> tuple[list[str], list[str]]:
        low = text.lower()
        found: dict[str, int] = {}
        for phrase, entry_id in phrases:
            if phrase in low:
                found[entry_id] = max(found.get(entry_id, 0), len(phrase))
        ranked = sorted(found, key=lambda i: (-found[i], i))
        return ranked, ranked

    return rank


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--failures", action="store_true", help="list the dev failures (never held-out ones)")
    ap.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--by-style", action="store_true",
                    help="also print the figures per paste style (figures only, for both splits)")
    args = ap.parse_args(argv)

    cases = load_corpus(args.corpus)
    rank, known = torchdoctor_ranker()
    grep = grep_ranker()
    splits = ("dev", "heldout") if args.split == "all" else (args.split,)
    ours = {s: Tally() for s in splits}
    base = {s: Tally() for s in splits}
    by_style: dict[tuple[str, str], Tally] = {}
    start = time.perf_counter()
    for case in cases:
        if case.split not in ours:
            continue
        right = case.right(known)
        confident, ranked = rank(case.text)
        ours[case.split].add(case, right, confident, ranked)
        by_style.setdefault((case.style, case.split), Tally()).add(case, right, confident, ranked)
        g_conf, g_ranked = grep(case.text)
        base[case.split].add(case, right, g_conf, g_ranked)
    elapsed = time.perf_counter() - start

    print(f"explain on {sum(t.n for t in ours.values())} real cases from {args.corpus} ({elapsed:.1f} s)")
    print(f"{'':<12} {'cases':>5} {'pos':>5} {'neg':>5}  {'top-1':>7} {'top-3':>7}  {'wrong':>7}  {'wrong':>7}"
          f"  {'first':>7}")
    print(f"{'':<12} {'':>5} {'':>5} {'':>5}  {'':>7} {'':>7}  {'on neg':>7}  {'on pos':>7}  {'listed':>7}")
    for s in splits:
        print(ours[s].row(f"{s}"))
        print(base[s].row(f"{s} grep"))
        gap = 100 * (ours[s].top1 - base[s].top1) / max(ours[s].positives, 1)
        print(f"{'':<12} top-1 above grep: {gap:+.1f} points")
    unanswerable = sum(1 for c in cases if c.split in ours and c.label.startswith("new:")
                       and c.label[4:] not in known)
    if unanswerable:
        print(f"({unanswerable} cases are labelled with a cause the knowledge base has no entry for yet)")
    if args.by_style:
        print("\nper paste style:")
        for style, split in sorted(by_style, key=lambda k: (k[0], k[1])):
            print(by_style[style, split].row(f"{style} {split}", width=24))
    if args.failures:
        if "dev" not in ours:
            print("failures are listed for the dev split only", file=sys.stderr)
            return 2
        print("\ndev failures:")
        for case, ranked in ours["dev"].failures:
            first = case.text.strip().splitlines()[-1][:140] if case.text.strip() else ""
            print(f"- {case.id} [{case.style}] want {case.label} got {ranked[:3]}\n    {first!r}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # | head
        sys.exit(0)
