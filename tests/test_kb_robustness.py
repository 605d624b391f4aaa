"""explain never fails and never hangs: random text and bytes, giant lines, deep chains, and
inputs built to make each pattern backtrack."""

from __future__ import annotations

import json
import os
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
    from regex_timing import best_search_time
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
            # Names the pattern being timed, so that a run killed by the timeout says which one hung.
            print(f"{entry.id} pattern {i}", file=sys.stderr, flush=True)
            rx = re.compile(p.regex, (re.I if p.ignore_case else 0) | re.M)
            lits = kb.literals[entry.id][i]
            lits = [lit for group in lits for lit in group]
            inputs = fillers + near + [l * 2000 for l in lits] + [(l + " ") * 1000 + "!" for l in lits]
            for s in inputs:
                t0 = time.perf_counter()
                rx.search(s)
                dt = time.perf_counter() - t0
                worst.append((dt, entry.id, i, s, rx))
    worst.sort(key=lambda w: -w[0])

    # How the cost grows, not how long it took: a machine under load makes every pattern slow,
    # but only a backtracking one costs much more than four times as much on four times the input
    # (linear: 4x; quadratic: 16x; a factor of four keeps the two apart under a load's noise).
    out = []
    for dt, entry_id, i, s, rx in worst[:8]:
        once, four = best_search_time(rx, s, 5), best_search_time(rx, s * 4, 5)
        if four / max(once, 1e-4) > 8.0:
            # One burst of load during either timing can double a ratio: measure again, longer, before judging.
            once, four = best_search_time(rx, s, 15), best_search_time(rx, s * 4, 15)
        out.append((round(four / max(once, 1e-4), 2), round(four, 4), entry_id, i, s[:40]))
    print(json.dumps(out))
''')


def test_no_pattern_backtracks_catastrophically():
    # In a child process: a catastrophic regex cannot be interrupted inside re, only killed.
    try:
        # (tests/ on the child's path for the timing helper both growth tests share)
        here = os.path.dirname(os.path.abspath(__file__))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (here, os.environ.get("PYTHONPATH"))))}
        proc = subprocess.run([sys.executable, "-c", ADVERSARIAL], capture_output=True, text=True, timeout=240, env=env)
    except subprocess.TimeoutExpired as exc:
        progress = (exc.stderr or b"")
        progress = progress.decode() if isinstance(progress, bytes) else progress
        last = progress.strip().splitlines()[-1:] or ["(none started)"]
        raise AssertionError(f"a pattern backtracks without end on adversarial input: {last[0]}") from None
    assert proc.returncode == 0, proc.stderr[-2000:]
    growth = json.loads(proc.stdout)
    # Linear cost grows 4x with 4x the input; quadratic backtracking 16x. Costs too small to time
    # reliably (under 40 ms on the larger input) are not judged.
    superlinear = [g for g in growth if g[0] > 8.0 and g[1] > 0.04]
    assert not superlinear, f"patterns whose cost grows faster than their input (ratio, seconds, entry, pattern, input): {superlinear}"


def test_a_conda_conflict_list_joined_on_one_line_is_read_and_a_torchless_one_is_not():
    # A web page that joined the lines of conda 4.4's list, with "->" chains inside the items: the
    # pattern once tried every way to split the line into items (1.5 s for these 300 characters).
    joined = ("Solving environment: failed  UnsatisfiableError: The following specifications were found to be in "
              "conflict:   - qt -> icu=58 -> *[track_features=vc14]   - pytorch   - qt -> icu=58 -> vc==14 Use "
              '"conda info <package>" to see the dependencies for each package.')
    assert [m.id for m in torchdoctor.explain(joined)][:1] == ["conda-env-conflict"]
    listed = joined.replace("   - ", "\n  - ")
    assert [m.id for m in torchdoctor.explain(listed)][:1] == ["conda-env-conflict"]
    torchless = joined.replace("- pytorch", "- numpy")
    assert "conda-env-conflict" not in [m.id for m in torchdoctor.explain(torchless)]
