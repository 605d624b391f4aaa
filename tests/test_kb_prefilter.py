"""The literal prefilter of knowledge patterns (loader.required_literals) is what keeps a pattern
from being compiled and run on a text that cannot hold it. It must be safe (never filter out a text
the pattern matches) and it must filter: a pattern made of alternations alone, such as the symptom
patterns in words, still gets a group of substrings."""

from __future__ import annotations

import re

from torchdoctor.kb.build import required_literals
from torchdoctor.kb.loader import load
from torchdoctor.kb.matcher import _Haystack, _ruled_out


def _passes(groups, text: str, ignore_case: bool) -> bool:
    return _Haystack([(1, text)]).contains_all(groups, ignore_case)


def test_every_pattern_that_matches_a_knowledge_text_passes_its_prefilter():
    kb = load()
    texts = [x.text for e in kb.entries.values() for x in (*e.examples, *e.near_misses)]
    texts += [s for e in kb.entries.values() for s in e.symptoms]
    stacks = [(_Haystack([(1, t)]), t) for t in texts]
    unsafe, filtered, more_filtered = [], 0, 0
    for head in kb.heads.values():
        for pattern, groups, more in zip(head.patterns, head.literals, head.prefilter or [[]] * len(head.patterns)):
            rx = re.compile(pattern.regex, (re.IGNORECASE if pattern.ignore_case else 0) | re.MULTILINE)
            for stack, text in stacks:
                fixed = stack.contains_all(groups, pattern.ignore_case)
                # The matcher's quick first-group test may only rule out what the prefilter does.
                if fixed and _ruled_out(stack, groups, pattern.ignore_case):
                    unsafe.append((head.id, "ruled out on its first group", text[:60]))
                if fixed and (not more or stack.contains_all(more, pattern.ignore_case)):
                    continue
                filtered += 1
                more_filtered += fixed
                if rx.search(text):
                    unsafe.append((head.id, pattern.regex[:60], text[:60]))
    assert not unsafe, unsafe[:5]
    assert filtered and more_filtered  # and it does filter, the long patterns' more groups too


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


def test_expand_reads_classes_optional_parts_and_small_alternations_into_strings():
    # A GPU-name alternation gives no fixed word ("A" + "100", "[345]0[5-9]0", "sm_?80"): read whole,
    # its strings are a group, and a symptom naming no such GPU never compiles the pattern.
    regex = r"\b(?:A(?:100|10G?|30)|[345]0[5-9]0|sm_?(?:80|86))\b[^\n]{0,60}?\b(?:wrong|different) results"
    assert required_literals(regex, ignore_case=False) == [["different", "wrong"], [" results"]]
    groups = required_literals(regex, ignore_case=False, expand=True)
    assert ["3050", "3060", "3070", "3080", "3090", "4050", "4060", "4070", "4080", "4090", "5050", "5060", "5070",
            "5080", "5090", "A10", "A30", "sm80", "sm86", "sm_80", "sm_86"] in groups
    line = "matmul on my RTX 4090 gives different results than on the CPU"
    assert re.search(regex, line) and _passes(groups, line, False)
    assert not _passes(groups, "after the upgrade training gives different results", False)


def test_expand_takes_more_than_one_group_from_an_alternation():
    regex = (r"\bmps\b[^\n]{0,80}?\b(?:different|wrong|incorrect)\b[^\n]{0,40}?\bcpu\b"
             r"|\b(?:different|wrong|incorrect)[ \t]+(?:results?|outputs?)\b[^\n]{0,40}?\b(?:mps\b[^\n]{0,30}?\bcpu|cpu\b[^\n]{0,30}?\bmps)\b")
    assert required_literals(regex, ignore_case=True) == [["different", "incorrect", "mps", "wrong"]]
    groups = required_literals(regex, ignore_case=True, expand=True)
    assert ["cpu", "mps"] in groups
    line = "conv2d on mps gives wrong values compared with cpu"
    assert re.search(regex, line, re.I) and _passes(groups, line, True)
    # CUDA's own boilerplate holds "incorrect": the fixed words pass it, the expanded groups do not.
    boilerplate = "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect."
    assert _passes(required_literals(regex, ignore_case=True), boilerplate, True)
    assert not _passes(groups, boilerplate, True)


def test_expand_keeps_one_chinese_character_and_plain_runs_stay_short():
    regex = r"显存[^\n]{0,20}?(?:一直|持续)(?:涨|增长)"
    assert required_literals(regex, ignore_case=True) == [["显存"], ["一直", "持续"]]
    groups = required_literals(regex, ignore_case=True, expand=True)
    assert ["涨", "增长"] in groups or ["增长", "涨"] in groups
    assert _passes(groups, "训练时显存一直涨", True) and not _passes(groups, "训练时显存一直不变", True)
    # An optional letter ends a run that is already long enough, as before: two short groups, not
    # one group of every spelling.
    assert required_literals(r"^(?!.*\bnccl\b)hangs? at epoch", ignore_case=True, expand=True) == [["hang"], [" at epoch"]]


def test_only_long_patterns_carry_more_groups_and_the_fixed_words_stay_as_they_were():
    from torchdoctor.kb.build import PREFILTER_MIN_REGEX

    kb = load()
    with_more = [(p, more) for h in kb.heads.values() if h.prefilter for p, more in zip(h.patterns, h.prefilter) if more]
    assert with_more and all(len(p.matched_regex) >= PREFILTER_MIN_REGEX for p, _ in with_more)
    for head in kb.heads.values():
        for p, groups in zip(head.patterns, head.literals):
            assert [list(g) for g in groups] == required_literals(p.matched_regex, p.ignore_case)


def test_the_first_group_rules_a_pattern_out_only_when_no_reading_holds_it():
    groups = [["out of memory"], ["cuda"]]
    # The message wrapped mid-phrase by a terminal: the re-joined reading holds it.
    wrapped = _Haystack([(1, "RuntimeError: CUDA out of"), (2, "memory. Tried to allocate 2.00 GiB")])
    assert not _ruled_out(wrapped, groups, True)
    assert wrapped.contains_all(groups, True)
    # A close healthy text: CUDA is there, running out of memory is not.
    healthy = _Haystack([(1, "RuntimeError: CUDA error: device-side assert triggered")])
    assert _ruled_out(healthy, groups, True)
    assert not _ruled_out(healthy, [["device-side assert"]], True)
    assert _ruled_out(_Haystack([]), [["anything"]], True)
