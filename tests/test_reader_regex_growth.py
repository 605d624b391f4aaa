"""The readers' own regexes (not the knowledge base's: test_kb_robustness covers those) stay linear on
long input: a pasted log can hold a line of tens of thousands of characters without a space (a base64
blob, a path repeated by a loop), and a search whose every start position rescans the rest of it turns
a paste into minutes of CPU.

How the cost grows, not how long it took, as in test_kb_robustness: four times the input costs about
four times as much when the search is linear and sixteen times when it is quadratic. Costs too small to
time reliably (under 40 ms on the larger input) are not judged."""

from __future__ import annotations

import pytest

from torchdoctor.checks.env import _install
from torchdoctor.facts import nvidia_smi_text, pasted, prose, torch_warnings
from torchdoctor.kb import matcher

from regex_timing import best_search_time

N = 2500


@pytest.mark.parametrize(("rx", "head", "unit", "tail"), [
    (_install._TORCH_OWN_REFUSAL, "", "x", ""),          # one long token: every start rescanned it to its end
    (_install._TORCH_OWN_REFUSAL, "", "a/", ""),
    (torch_warnings._EXTENSION_SYMBOL, "", "a/", ""),
    (torch_warnings._EXTENSION_MODULE_SYMBOL, "", "a/", ""),
    (matcher._LAST_WORD, "", "a", "!x"),                 # a long word followed by a non-word and a word
    (nvidia_smi_text._QUERY_BANNER, "", "=", ""),        # a long rule of '=' that is not nvidia-smi -q's banner
    (nvidia_smi_text._QUERY_LINE, "a", " ", "b"),        # a -q line padded by a long run of spaces
    (pasted._ITEM, "a", " ", "b"),                       # an environment list's line padded so
    (pasted._PLAIN_ITEM, "a", "1.", "x:"),               # a long dotted number that is no version after all
    (prose._TORCH, "torch", " ", "x"),                  # facts stated in prose: a key padded by spaces
    (prose._TORCH, "torch ", "1.", "x"),                 # a long dotted number after it
    (prose._TORCH, "torch 1.0+", "a.", "+"),             # a long dotted local tag that is none after all
    (prose._DRIVER, "driver", " ", "x"),
    (prose._DRIVER_AFTER, "450.80", " ", "x"),
    (prose._PYTHON, "python", " ", "x"),
    (prose._CUDA_SAID, "cuda", " ", "x"),
    (prose._SMI_BANNER, "Driver Version: 535.54", " ", "x"),
    (prose._GPU, "NVIDIA", " ", "x"),
    (prose._GPU_NUMBER[1], "GPU", " ", "x"),
    (torch_warnings._IMPORTED_SYMBOL, "", "import a ", ""),   # many imports, no refusal under any
    (torch_warnings._IMPORTED_SYMBOL_KEPT, "", "import a ", ""),
    (torch_warnings._DGL_LIBRARY, "Cannot find DGL C++ sparse library at ", "a", ""),
    (prose._TORCH_WHEEL, "", "pytorch-1.", "x"),
    (torch_warnings._K2_BUILD_KEPT, "", "Cuda used to build k2: ", ""),
], ids=["torch-own-refusal-token", "torch-own-refusal-path", "extension-symbol-path", "extension-module-symbol-path", "last-word", "nvsmi-log-banner",
        "nvsmi-query-line", "environment-list-item", "plain-list-item",
        "prose-torch", "prose-torch-version", "prose-torch-tag", "prose-driver", "prose-driver-after", "prose-python", "prose-cuda",
        "prose-smi-banner", "prose-gpu", "prose-gpu-number", "imported-symbol", "imported-symbol-kept", "dgl-library",
        "prose-torch-distribution", "k2-build-record"])
def test_reader_regex_cost_grows_linearly(rx, head, unit, tail):
    once = best_search_time(rx, head + unit * (N // len(unit)) + tail)
    four = best_search_time(rx, head + unit * (4 * N // len(unit)) + tail)
    if four < 0.04:
        return
    assert four / max(once, 1e-4) <= 8.0, f"cost grows {four / max(once, 1e-4):.1f}x on 4x the input ({four:.2f}s)"
