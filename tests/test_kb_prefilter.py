"""The literal prefilter of knowledge patterns (loader.required_literals) is what keeps a pattern
from being compiled and run on a text that cannot hold it. It must be safe (never filter out a text
the pattern matches) and it must filter: a pattern made of alternations alone, such as the symptom
patterns in words, still gets a group of substrings."""

from __future__ import annotations

import re

from torchdoctor.kb.build import required_literals
from torchdoctor.kb.loader import load
from torchdoctor.kb.matcher import _Haystack


def _passes(groups, text: str, ignore_case: bool) -> bool:
    return _Haystack([(1, text)]).contains_all(groups, ignore_case)


def test_every_pattern_that_matches_a_knowledge_text_passes_its_prefilter():
    kb = load()
    texts = [x.text for e in kb.entries.values() for x in (*e.examples, *e.near_misses)]
    texts += [s for e in kb.entries.values() for s in e.symptoms]
    stacks = [(_Haystack([(1, t)]), t) for t in texts]
    unsafe, filtered = [], 0
    for head in kb.heads.values():
        for pattern, groups in zip(head.patterns, head.literals):
            flags = (re.IGNORECASE if pattern.ignore_case else 0) | re.MULTILINE
            for stack, text in stacks:
                if not stack.contains_all(groups, pattern.ignore_case):
                    filtered += 1
                    if re.search(pattern.regex, text, flags):
                        unsafe.append((head.id, pattern.regex[:60], text[:60]))
    assert not unsafe, unsafe[:5]
    assert filtered  # and it does filter


def test_an_alternation_of_alternations_gets_a_group():
    regex = (r"(?:\bhang(?:s|ing)?\b|\bstuck\b|卡住)[^\n]{0,80}?(?:num_workers?|data ?loader)"
             r"|(?:num_workers?|data ?loader)[^\n]{0,80}?(?:\bhangs?\b|\bstuck\b|卡住)")
    groups = required_literals(regex, ignore_case=True)
    assert groups == [["loader", "num_worker"]]
    hang = "Training hangs forever with num_workers=8"
    assert re.search(regex, hang, re.I) and _passes(groups, hang, True)
    # A close healthy line: the hang is about something else, and the pattern is never compiled.
    assert not _passes(groups, "Training hangs forever at the barrier", True)


def test_a_branch_without_any_literal_leaves_the_alternation_out():
    # "12x34" has no fixed substring of three characters: no group may claim that every match
    # holds one of its substrings.
    assert required_literals(r"\d+x\d+|shape mismatch", ignore_case=True) == []
    assert required_literals(r"(?:\d+|several) ranks|gpu 0", ignore_case=True) == [[" ranks", "gpu 0"]]


def test_another_frameworks_words_are_in_every_match_of_its_regex():
    # other_framework() skips its regex for an ASCII text that holds none of _FOREIGN_WORDS: that is
    # safe only while each literal the regex requires (one per branch) contains one of the words.
    from torchdoctor.kb.matcher import _FOREIGN, _FOREIGN_WORDS, other_framework
    from torchdoctor.kb.parse import parse

    groups = required_literals(_FOREIGN, ignore_case=True)
    assert len(groups) == 1 and len(groups[0]) > 10
    assert all(any(w in lit for w in _FOREIGN_WORDS) for lit in groups[0]), groups[0]
    # Fires on another framework's error, stays quiet on PyTorch's own with the same status.
    foreign = 'File "/usr/lib/python3/site-packages/tensorflow/python/ops/nn_ops.py", line 12, in conv\n' \
              "InternalError: CUBLAS_STATUS_EXECUTION_FAILED"
    assert other_framework(parse(foreign))
    assert not other_framework(parse('File "train.py", line 3, in step\n'
                                     "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm`"))



def test_every_knowledge_pattern_has_a_prefilter():
    # A pattern without one is compiled and run on every `explain` (a pattern made only of lookaheads
    # once cost the cold start a tenth of its budget).
    kb = load()
    bare = [(head.id, p.regex[:60]) for head in kb.heads.values() for p, g in zip(head.patterns, head.literals) if not g]
    assert not bare, bare


def test_a_positive_lookahead_is_required_text():
    regex = r"^(?=[^\n]{0,200}?\b(?:V100|Turing)\b)(?=[^\n]{0,200}?\bbfloat16\b)(?=[^\n]{0,200}?\bslow)"
    groups = required_literals(regex, ignore_case=False)
    line = "bfloat16 training on my V100 is very slow"
    assert re.search(regex, line) and _passes(groups, line, False)
    assert not _passes(groups, "float16 training on my V100 is very slow", False)
    # A negative lookahead says what must NOT be there: none of its text is required.
    assert required_literals(r"^(?!.*\bnccl\b)hangs? at epoch", ignore_case=True) == [["hang"], [" at epoch"]]


def test_a_word_every_paste_holds_is_not_chosen_as_the_filter():
    # Each branch needs one of its groups; "error"/"output" pass on nearly every traceback, the GPU name does not.
    regex = r"(?:A100|H100|RTX 3090)[^\n]{0,40}?(?:wrong|different|error|output)|(?:wrong|different|error|output)[^\n]{0,40}?(?:A100|H100)"
    groups = required_literals(regex, ignore_case=False)
    assert groups and all("error" not in g for g in groups), groups
    line = "results on the A100 are wrong"
    assert re.search(regex, line) and _passes(groups, line, False)
    assert not _passes(groups, "RuntimeError: shape error in output", False)
