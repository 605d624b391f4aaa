"""Every lint rule runs over its own VALID and INVALID examples: the examples are the tests.

In an INVALID example, the lines that must be reported end with `# <-`; no other line may be."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from torchdoctor.lint.engine import check_source
from torchdoctor.registry import lint_rules

RULES = lint_rules()
INVALID = [(r, i, src) for r in RULES for i, src in enumerate(r.invalid)]
VALID = [(r, i, src) for r in RULES for i, src in enumerate(r.valid)]


def _reported(rule, source):
    result = check_source(textwrap.dedent(source), select=(rule.code,))
    assert not result.errors, result.errors
    return result.findings


@pytest.mark.parametrize("rule,index,source", INVALID, ids=[f"{r.code}-invalid-{i}" for r, i, _ in INVALID])
def test_invalid_example_is_reported_on_the_marked_lines(rule, index, source):
    source = textwrap.dedent(source)
    expected = {n for n, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith("# <-")}
    assert expected, "an INVALID example marks its finding lines with `# <-`"
    findings = _reported(rule, source)
    assert {f.line for f in findings} == expected, [(f.line, f.message) for f in findings]
    for f in findings:
        assert f.code == rule.code and f.message and f.fix is not None and f.fix.summary


@pytest.mark.parametrize("rule,index,source", VALID, ids=[f"{r.code}-valid-{i}" for r, i, _ in VALID])
def test_valid_example_stays_quiet(rule, index, source):
    findings = _reported(rule, source)
    assert findings == [], [(f.line, f.message) for f in findings]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_documented_with_examples(rule):
    assert len(rule.invalid) >= 1 and len(rule.valid) >= 1, "a rule shows it fires and a close case where it doesn't"
    for section in ("## What it does", "## Why is this bad?", "## Example"):
        assert section in rule.doc, f"{rule.code} docstring lacks {section}"
    module_file = Path(__import__(rule.func.__module__, fromlist=["_"]).__file__)
    assert module_file.stem == rule.name.replace("-", "_")


def test_the_text_prefilter_never_hides_a_finding():
    """A rule's `requires` words only let it skip files where it cannot fire: over every example of
    every rule (each rule's snippets are realistic code for the others too), a rule that fires
    with the prefilter switched off must also be wanted by it."""
    import dataclasses

    from torchdoctor.lint.engine import Selection, check_module
    from torchdoctor.lint.model import CheckResult
    from torchdoctor.lint.module import SourceModule

    sources = [textwrap.dedent(src) for r in RULES for src in (*r.invalid, *r.valid)]
    assert all(r.requires for r in RULES), [r.code for r in RULES if not r.requires]
    missed = []
    for rule in RULES:
        unfiltered = dataclasses.replace(rule, requires=())
        for source in sources:
            result = CheckResult()
            check_module(SourceModule.parse("example.py", source), [unfiltered], Selection(), result)
            if result.findings and not rule.wanted(source):
                missed.append((rule.code, source.strip().splitlines()[:3]))
    assert not missed, missed


def test_the_text_prefilter_never_hides_a_finding_whose_evidence_is_in_another_file(tmp_path):
    """The same over whole projects: the value-flow engine follows a value into the run's other
    files, so a file can hold a finding its own words say little about (an int16 array returned
    by another file's helper for TD201; a loader of the test split built in another file for
    TD104). Every rule that fires there with the prefilter off must be wanted by the file's text."""
    import dataclasses

    from test_lint_project import AUDIO, BATCHES, CLIPS, DATA, ENGINE, FIT, SAMPLER, TRAIN

    from torchdoctor.lint.engine import Selection, _check_one, _project

    projects = {
        "audio": {"audio.py": AUDIO.format(ret="data"), "clips.py": CLIPS},
        "batches": {"batches.py": BATCHES, "fit.py": FIT},
        "dataset": {"data.py": DATA, "train.py": TRAIN.format(workers=8)},
        "sampler": {"train.py": SAMPLER, "engine.py": ENGINE.format(line="model.train()")},
    }
    unfiltered = [dataclasses.replace(rule, requires=()) for rule in RULES]
    fired, missed = set(), []
    for name, files in projects.items():
        root = tmp_path / name
        root.mkdir()
        for file, text in files.items():
            (root / file).write_text(text)
        paths = sorted(str(root / file) for file in files)
        project = _project(paths)
        for path in paths:
            text = (root / path).read_text()
            for rule, bare in zip(RULES, unfiltered):
                result = _check_one(path, [bare], Selection(select=(rule.code,)), project)
                assert not result.errors, result.errors
                if result.findings:
                    fired.add((rule.code, os.path.basename(path)))
                    if not rule.wanted(text):
                        missed.append((name, rule.code, os.path.basename(path)))
    # the cases that make this test mean something: each finding's evidence is in the other file
    assert {("TD201", "clips.py"), ("TD104", "fit.py"), ("TD111", "data.py"), ("TD105", "train.py")} <= fired, fired
    assert not missed, missed


def test_the_text_prefilter_skips_files_no_rule_can_fire_on():
    library = "import torch.nn as nn\n\nclass Block(nn.Module):\n    def forward(self, x):\n        return x * 2\n"
    assert [r.code for r in RULES if r.wanted(library)] == []


def test_td101_guard_prefilter_says_what_the_token_list_says():
    from torchdoctor.checks.lint._rank import GUARD_TOKENS, mentions_a_guard

    texts = ["", "import torch\nx = 1\n", "preprocess(images)", "if accelerator.is_main_process:",
             "trainer.is_global_zero", "@rank_zero_only\ndef log(): pass", "if os.environ['RANK'] == '0':",
             "state.process_index == 0", "def main_worker(gpu):", "process the batch", "local_process_index"]
    texts += [f"x = {w}" for w in GUARD_TOKENS]
    for text in texts:
        assert mentions_a_guard(text) == any(w in text for w in GUARD_TOKENS), text
