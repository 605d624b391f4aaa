"""The retrieval index learns from the dev split's real reports (knowledge/report_words.json).

Per entry, the words of the dev reports labelled with it are part of the BM25 document that
"possible causes" rank by: people describe a failure in the words other people used for it, not in
the knowledge entry's. Held-out reports are never read into it (their figures would then grade text
the index was built from); bench/retrieval_leaveout.py measures the gain on dev with each case's own
thread left out."""

from __future__ import annotations

import json
from pathlib import Path

from torchdoctor.kb import load
from torchdoctor.kb.build import read_report_words, report_word_lists, reports_of
from torchdoctor.kb.retrieve import REPORT_WORD_MIN_REPORTS, Retriever, build, report_words

ROOT = Path(__file__).parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "explain_real"
KB = load()


def test_the_committed_report_words_are_the_dev_splits_and_only_its():
    committed = json.loads((ROOT / "knowledge" / "report_words.json").read_text(encoding="utf-8"))
    lists = report_word_lists(reports_of(str(CORPUS), "dev"))
    fresh = report_words([(label, words) for _, label, words in lists], set(KB.heads))
    assert committed["split"] == "dev"
    assert committed["words"] == fresh, "run: python -m torchdoctor.kb.build --reports tests/fixtures/explain_real"
    assert read_report_words() == fresh


def test_held_out_reports_are_not_read():
    dev = reports_of(str(CORPUS), "dev")
    heldout = reports_of(str(CORPUS), "heldout")
    assert dev and heldout
    assert not {url for url, _, _ in dev} & {url for url, _, _ in heldout}
    assert all(json.loads(line)["split"] == "dev" for name in CORPUS.glob("*.jsonl")
               for line in name.read_text(encoding="utf-8").splitlines()
               if line.strip() and json.loads(line)["url"] in {url for url, _, _ in dev})


def test_a_word_counts_only_where_enough_reports_hold_it():
    reports = [("dataloader-hang", ["hang", "epoch", "myrepo"])] + [("dataloader-hang", ["hang", "epoch"])] * 2
    reports += [("not-an-entry", ["hang"]), ("none", ["epoch"])]
    words = report_words(reports, {"dataloader-hang"})
    assert words == {"dataloader-hang": {"epoch": 3, "hang": 3}}  # "myrepo": one report; unknown labels: none
    assert REPORT_WORD_MIN_REPORTS == 3


def test_reports_words_rank_an_entry_that_its_own_words_do_not():
    entries = list(KB.entries.values())
    query = "tqdm sits at 99%, htop lists zombies"
    plain = Retriever(build(entries)["postings"]).rank(query)
    told = {"dataloader-hang": {"tqdm": 5, "zombie": 4, "htop": 3}}
    learned = Retriever(build(entries, told)["postings"]).rank(query)
    assert learned and learned[0].id == "dataloader-hang" and "tqdm" in learned[0].words
    assert "dataloader-hang" not in [c.id for c in plain]
    # A text that holds none of those words is ranked as before.
    other = "CUDA out of memory. Tried to allocate 2.00 GiB"
    assert [c.id for c in Retriever(build(entries, told)["postings"]).rank(other)] == \
        [c.id for c in Retriever(build(entries)["postings"]).rank(other)]


def test_committed_counts_are_the_dev_splits_labels():
    committed = json.loads((ROOT / "knowledge" / "report_words.json").read_text(encoding="utf-8"))
    labels = [label for _, label, _ in reports_of(str(CORPUS), "dev") if label in KB.heads]
    assert committed["counts"] == {label: labels.count(label) for label in set(labels)}
    assert committed["reports"] == len(labels)


def test_a_common_cause_ranks_first_only_where_the_words_fit_two_about_as_well():
    entries = list(KB.entries.values())
    # Words that fit both hang entries: with no counts the order is BM25's; a cause real reports name far
    # more often comes first once its prior counts.
    query = "training hangs, dataloader workers stuck, nccl collective never returns"
    plain = [c.id for c in Retriever(build(entries)["postings"]).rank(query)]
    assert {"dataloader-hang", "nccl-collective-timeout"} <= set(plain)
    second = next(i for i in plain[1:] if i in {"dataloader-hang", "nccl-collective-timeout"})
    counted = [c.id for c in Retriever(build(entries, None, {second: 200})["postings"]).rank(query)]
    assert counted[0] == second
    # A text whose words name one entry clearly keeps it first, whatever the other's count.
    clear = "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity)"
    top = Retriever(build(entries)["postings"]).rank(clear)[0].id
    other = next(c.id for c in Retriever(build(entries)["postings"]).rank(clear)[1:])
    assert Retriever(build(entries, None, {other: 200})["postings"]).rank(clear)[0].id == top
