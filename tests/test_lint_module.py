"""What SourceModule tells every rule: names through the import aliases (and the conventional
ones only where the file does not bind them itself), and script-vs-library."""

from __future__ import annotations

import ast

import pytest

from torchdoctor.lint.module import SourceModule


def _call_name(source: str) -> str | None:
    module = SourceModule.parse("x.py", source)
    call = [n for n in ast.walk(module.tree) if isinstance(n, ast.Call)][-1]
    return module.qualname(call.func)


@pytest.mark.parametrize("source,expected", [
    ("import torch.distributed as dist\ndist.all_reduce(t)\n", "torch.distributed.all_reduce"),
    ("import torch\ndist.all_reduce(t)\n", "torch.distributed.all_reduce"),  # `from common import *` style
    ("import torch\ndist = torch.distributions.Normal(0, 1)\ndist.sample()\n", None),
    ("import torch\ndef kl(dist):\n    return dist.entropy()\n", None),
    ("import torch\nfor F in fields:\n    F.clean()\n", None),
    ("dist.all_reduce(t)\n", None),  # no torch in the file: no conventional names at all
])
def test_conventional_aliases_yield_to_the_files_own_bindings(source, expected):
    assert _call_name(source) == expected


@pytest.mark.parametrize("source,expected", [
    # the word is spelled only inside another identifier or a comment: not bound, the alias holds
    ("import torch\ndistance = 3  # dist\nnn_layers = F_out = 2\n",
     {"dist": "torch.distributed", "nn": "torch.nn", "F": "torch.nn.functional"}),
    # bound as a parameter, a def and an assignment target (a tuple element)
    ("import torch\ndef nn(dist):\n    F, x = 1, 2\n", {}),
    # non-ASCII source: identifiers are NFKC-normalised, so a fullwidth F binds F
    ("import torch\n\u00e9t\u00e9 = 1\n\uff26 = 2\n", {"dist": "torch.distributed", "nn": "torch.nn"}),
    ("import torch\nx = '\u00e9t\u00e9 \uff26'\n", {"dist": "torch.distributed", "nn": "torch.nn",
                                                     "F": "torch.nn.functional"}),
    # the imports already give it: nothing to add, whatever else the file binds
    ("import torch.nn.functional as F\nimport torch\nnn = 1\n", {"dist": "torch.distributed",
                                                                 "F": "torch.nn.functional"}),
])
def test_conventional_aliases_added_only_for_names_the_file_leaves_free(source, expected):
    aliases = SourceModule.parse("x.py", source).aliases
    added = {k: v for k, v in aliases.items() if k in ("dist", "nn", "F")}
    assert added == expected


@pytest.mark.parametrize("source,script", [
    ("import argparse\nparser = argparse.ArgumentParser()\n", True),
    ("import torch\nif __name__ == '__main__':\n    main()\n", True),
    ("import torch\nclass Net(torch.nn.Module):\n    pass\n", False),
    # Libraries start processes and accelerators too (Lightning's launcher, transformers' Trainer):
    # neither makes a file a training script (they gave TD401 false positives when they did).
    ("import torch.multiprocessing as mp\ndef launch(fn):\n    mp.spawn(fn, nprocs=4)\n", False),
    ("from accelerate import Accelerator\nclass Trainer:\n    def __init__(self):\n        self.a = Accelerator()\n", False),
])
def test_scripts_and_libraries(source, script):
    assert SourceModule.parse("x.py", source).is_script is script
