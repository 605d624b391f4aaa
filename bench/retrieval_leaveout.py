"""How well the "possible causes" retrieval finds a case's cause in text it was not written from.

The knowledge base's symptoms and examples were partly written from dev cases, and the index holds
the words of the dev cases themselves (knowledge/report_words.json), so retrieval on dev grades the
text it learned from. This leaves out, for each case, every symptom and example (and, with
--explanation, every sentence of an explanation) that shares at least --share of its words with the
case, and every dev report from the case's own thread (its URL), rebuilds the BM25 index without them
(the report words recounted, their cut at REPORT_WORD_MIN_REPORTS included), and ranks the case's
text: a dev figure that reads like unseen input. Retrieval alone is measured (no patterns): top-1 and
top-3 of the ranked entries. --no-reports leaves the report words out altogether.

Dev only unless --heldout (which prints held-out figures, for reporting, never for tuning).

Usage: python bench/retrieval_leaveout.py [--styles symptom|all|a,b] [--share 0.35] [--show]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv: list[str] | None = None) -> int:
    from explain_accuracy import CORPUS, load_corpus

    import torchdoctor.kb.retrieve as R
    from torchdoctor.kb import load
    from torchdoctor.kb.matcher import query_text
    from torchdoctor.kb.parse import parse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--styles", default="symptom", help="paste styles to measure, comma-separated, or 'all'")
    ap.add_argument("--share", type=float, default=0.35, help="leave out KB text sharing this share of its words")
    ap.add_argument("--explanation", action="store_true", help="also index the entries' explanations")
    ap.add_argument("--show", action="store_true", help="list the dev cases whose cause is not in the top three")
    ap.add_argument("--heldout", action="store_true", help="also print held-out figures (report only)")
    ap.add_argument("--no-reports", action="store_true", help="index the entries' own words only")
    args = ap.parse_args(argv)
    from torchdoctor.kb.build import report_word_lists, reports_of

    kb = load()
    entries = kb.entries
    pieces = []  # (entry id, may be left out, tokens, weight): the index's own parts of each entry
    for e in entries.values():
        pieces += [(e.id, kind in ("symptom", "example"), words, weight) for kind, words, weight in R.document_parts(e)]
        if args.explanation:
            pieces += [(e.id, True, R.tokens(s), 1) for s in re.split(r"(?<=[.!?:])\s+", e.explanation)]

    reports = [] if args.no_reports else report_word_lists(reports_of(args.corpus, "dev"))

    def index_without(words: set[str], url: str) -> R.Retriever:
        docs: dict[str, collections.Counter] = {i: collections.Counter() for i in entries}
        for entry_id, optional, toks, weight in pieces:
            if optional and toks and len(set(toks) & words) / len(set(toks)) >= args.share:
                continue
            for t in toks:
                docs[entry_id][t] += weight
        held = R.report_words([(label, w) for u, label, w in reports if u != url], set(entries))
        for entry_id, bag in held.items():
            docs[entry_id].update(bag)
        counts = collections.Counter(label for u, label, _ in reports if u != url)
        return R.Retriever({**R.postings({i: dict(bag) for i, bag in docs.items()}), "priors": R.priors(list(docs), counts)})

    styles = None if args.styles == "all" else set(args.styles.split(","))
    tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for case in load_corpus(args.corpus):
        if case.label == "none" or (styles and case.style not in styles):
            continue
        if case.split == "heldout" and not args.heldout:
            continue
        right = case.right(set(kb.heads))
        query = query_text(parse(case.text))
        ranked = [c.id for c in index_without(set(R.tokens(query)), case.url).rank(query, limit=3)]
        row = tally[case.split]
        row[0] += 1
        row[1] += bool(ranked) and ranked[0] in right
        row[2] += any(r in right for r in ranked)
        if args.show and case.split == "dev" and not any(r in right for r in ranked):
            print(f"- {case.id} [{case.style}] want {case.label} got {ranked}\n    {case.text[:160]!r}")
    for split, (n, top1, top3) in sorted(tally.items()):
        print(f"{split:<8} {args.styles:<12} {n:>5} cases   top-1 {100 * top1 / max(n, 1):5.1f}%   top-3 {100 * top3 / max(n, 1):5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
