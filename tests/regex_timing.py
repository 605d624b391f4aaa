"""The one timing both regex-growth tests take (tests/test_kb_robustness.py for the knowledge base's
patterns, tests/test_reader_regex_growth.py for the readers' own): the best of a few searches, so that
a moment of load on the machine does not count as the pattern's cost."""

from __future__ import annotations

import time


def best_search_time(rx, text: str, runs: int = 3) -> float:
    """The shortest of `runs` wall times of `rx.search(text)`, in seconds."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        rx.search(text)
        times.append(time.perf_counter() - t0)
    return min(times)
