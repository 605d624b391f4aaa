"""explain never fails and never hangs: random text and bytes, giant lines, deep chains, and
inputs built to make each pattern backtrack."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import torchdoctor
from torchdoctor.kb.parse import parse

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.text(max_size=3000))
def test_random_text_never_raises(text):
    for m in torchdoctor.explain(text):
        assert 0.5 <= m.confidence <= 1.0


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(data):
    torchdoctor.explain(data)


@FAST
@given(st.lists(st.sampled_from([
    "Traceback (most recent call last):", '  File "x.py", line 1, in f', "    f()", "RuntimeError: boom",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:", "Original Traceback (most recent call last):",
    "KeyError: Caught KeyError in DataLoader worker process 0.", "[rank0]: RuntimeError: CUDA error: unknown error",
    "NCCL WARN Call to connect returned Connection refused", "  what():  CUDA error", "", "\x1b[31m", "\r"]),
    max_size=200))
def test_shuffled_traceback_fragments_never_raise(lines):
    torchdoctor.explain("\n".join(lines))


def test_deeply_chained_traceback():
    block = ('Traceback (most recent call last):\n  File "m.py", line {i}, in f{i}\n    g()\n'
             'RuntimeError: step {i} failed\n\nDuring handling of the above exception, another exception occurred:\n\n')
    text = "".join(block.format(i=i) for i in range(3000)) + "RuntimeError: CUDA error: device-side assert triggered\n"
    parsed = parse(text)
    assert parsed.exceptions[-1].role == "final"
    assert torchdoctor.explain(parsed)[0].id == "cuda-device-side-assert"


def test_giant_lines_are_bounded():
    text = "RuntimeError: " + "x" * 5_000_000 + "\n" + "y" * 3_000_000
    torchdoctor.explain(text)


ADVERSARIAL = textwrap.dedent(r'''
    import json, re, sys, time
    from torchdoctor.kb.loader import load
    kb = load()
    worst = []
    fillers = ["a" * 20000, " " * 20000, "0" * 20000, ":" * 20000, "/" * 20000, "." * 20000,
               "(" * 5000, "\t" * 5000 + "x", "- " * 10000, "ab" * 10000, "\n" * 5000]
    for entry in kb.entries.values():
        near = []
        for ex in entry.examples:
            t = ex.text
            near += [t[: len(t) * 4 // 5], t.replace(" ", " " * 40), t.replace("\n", " "), t * 20]
        for i, p in enumerate(entry.patterns):
            rx = re.compile(p.regex, (re.I if p.ignore_case else 0) | re.M)
            lits = kb.literals[entry.id][i]
            lits = [lit for group in lits for lit in group]
            inputs = fillers + near + [l * 2000 for l in lits] + [(l + " ") * 1000 + "!" for l in lits]
            for s in inputs:
                t0 = time.perf_counter()
                rx.search(s)
                dt = time.perf_counter() - t0
                worst.append((dt, entry.id, i, s[:40]))
    worst.sort(reverse=True)
    print(json.dumps(worst[:5]))
''')


def test_no_pattern_backtracks_catastrophically():
    # In a child process: a catastrophic regex cannot be interrupted inside re, only killed.
    proc = subprocess.run([sys.executable, "-c", ADVERSARIAL], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    worst = json.loads(proc.stdout)
    slow = [w for w in worst if w[0] > 0.25]
    assert not slow, f"patterns too slow on adversarial input (seconds, entry, pattern index, input): {slow}"
