"""Issue 14 items 7 and 8: output a person reads. explain shows the user's own failing line and the
DataLoader worker's original exception; nothing is cut mid-word; nothing passes 80 columns except
commands and code; no line ends in spaces; fix steps are typed (command / Python / prose) and each
renderer shows them as what they are."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

from rich.console import Console

from torchdoctor.facts.model import Facts
from torchdoctor.fix_steps import COMMAND, PROSE, PYTHON, kind_of, steps
from torchdoctor.kb import explain, load
from torchdoctor.kb.parse import parse
from torchdoctor.model import Finding, Fix, Status
from torchdoctor.registry import env_checks
from torchdoctor.render import human, markdown
from torchdoctor.render.explain import render_json, render_text
from torchdoctor.runner import run_check

WORKER = """\
Traceback (most recent call last):
  File "/home/ada/proj/train.py", line 61, in main
    for step, (x, y) in enumerate(loader):
  File "/home/ada/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1491, in _process_data
    data.reraise()
  File "/home/ada/venv/lib/python3.11/site-packages/torch/_utils.py", line 715, in reraise
    raise exception
KeyError: Caught KeyError in DataLoader worker process 0.
Original Traceback (most recent call last):
  File "/home/ada/venv/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 351, in _worker_loop
    data = fetcher.fetch(index)
  File "/home/ada/proj/data.py", line 40, in __getitem__
    label = self.labels[row["image_id"]]
KeyError: 'img_00417'
"""
CODE_PREFIX = re.compile(r"^\s*(\$ |>>> |\.\.\. )")


def _text(source: str, width: int = 80) -> str:
    parsed = parse(source)
    out = io.StringIO()
    render_text(parsed, explain(parsed), Console(file=out, width=width, color_system=None, highlight=False))
    return out.getvalue()


def test_explain_shows_the_worker_error_and_the_users_line():
    out = _text(WORKER)
    assert "The original error in the DataLoader worker: KeyError: 'img_00417'" in out
    assert "Your code: /home/ada/proj/data.py:40 in __getitem__" in out
    assert 'label = self.labels[row["image_id"]]' in out
    doc = json.loads(render_json(parse(WORKER), explain(parse(WORKER))))
    assert doc["worker_error"]["message"] == "'img_00417'"
    assert doc["worker_error"]["user_frame"] == {"frame": "/home/ada/proj/data.py:40 in __getitem__",
                                                 "code": 'label = self.labels[row["image_id"]]'}


def test_user_line_of_a_plain_traceback():
    text = ('Traceback (most recent call last):\n  File "/work/train.py", line 12, in <module>\n'
            '    out = model(x)\n  File "/usr/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 125,'
            ' in forward\n    return F.linear(input, self.weight, self.bias)\n'
            'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)\n')
    out = _text(text)
    assert "Your code: /work/train.py:12 in <module>" in out and "out = model(x)" in out


def _check_layout(out: str, width: int = 80) -> None:
    """No trailing spaces; a line past `width` is code (a command, Python, the user's source line)
    or one word too long to break (a URL, a path) — never prose that should have wrapped."""
    user_code = False  # inside the "Your code:" block: its path (wrapped where long) and the source line under it
    for line in out.splitlines():
        assert line == line.rstrip(), f"trailing spaces: {line!r}"
        user_code = line.lstrip().startswith("Your code:") or (user_code and bool(line.strip()))
        code = CODE_PREFIX.match(line) or line.startswith("       ") or user_code
        if len(line) > width and not code:
            words = line.split()
            longest = max(words, key=len)
            assert len(line) - len(longest) < width // 2 and len(longest) > width // 3, f"over {width} columns: {line!r}"


def test_every_kb_entry_explained_at_80_columns_is_laid_out():
    kb = load()
    for entry in kb.entries.values():
        out = _text(entry.examples[0].text)
        _check_layout(out)


def test_a_long_frame_path_and_a_long_source_line_are_laid_out():
    # The path wraps after the label, so the source line is not the line after "Your code:" (layout test fragility).
    text = ('Traceback (most recent call last):\n  File "/home/someone/projects/very-long-project-name/src/training/'
            'pipelines/distributed_trainer.py", line 12, in <module>\n    out = model(torch.cat([features_from_backbone, '
            'extra_embedding_features, positional_features], dim=-1))\n'
            'RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x10 and 20x5)\n')
    out = _text(text)
    assert "distributed_trainer.py:12" in out and "extra_embedding_features" in out
    _check_layout(out)


def test_long_messages_end_in_an_ellipsis_at_a_word():
    message = "RuntimeError: CUDA out of memory. " + " ".join(f"allocation{i} of 2.00 GiB failed" for i in range(60))
    out = _text(message, width=100)
    first = next(line for line in out.splitlines() if "RuntimeError" in line)
    tail = out[out.index(first):].split("(line 1)")[0]
    assert "…" in tail
    cut = tail.split("…")[0].split()[-1]
    assert re.fullmatch(r"allocation\d+|of|2\.00|GiB|failed", cut), cut


def test_steps_are_typed():
    assert kind_of('torch.load(path, map_location="cpu")') == PYTHON
    assert kind_of("drop those keys and load with strict=False …") == PROSE
    assert kind_of("python -m pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu") == COMMAND
    assert kind_of("CUDA_VISIBLE_DEVICES=0 torchrun --nproc-per-node=1 train.py") == COMMAND
    assert kind_of("py-spy dump --pid <pid>  # while it hangs") == COMMAND
    assert kind_of("nvidia-smi") == COMMAND
    assert [s.kind for s in steps(("pip install x",), "a = 1\nb = a")] == [COMMAND, PYTHON]
    assert steps((), "--extra-index-url https://x\ntorch==<torch-version>")[0].kind == "text"


def test_a_windows_path_in_a_step_is_typed_without_a_syntax_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the invalid escape the parser sees would raise here if it leaked
        assert kind_of('subprocess.run(["C:\\Program Files\\Python311\\python.exe", "-V"])') == PYTHON


def test_no_renderer_shows_python_or_prose_as_a_shell_command():
    fix = Fix("Load it on the CPU", ('torch.load(path, map_location="cpu")', "drop those keys and load with strict=False …",
                                     "torchdoctor ckpt convert IN OUT --to-cpu"))
    finding = Finding("TI105", "saved-on-accelerator", "checkpoint", Status.WARNING, "t", "m", {}, fix)
    out = io.StringIO()
    human._finding(finding, Console(file=out, width=100, color_system=None), False)
    text = out.getvalue()
    assert '>>> torch.load(path, map_location="cpu")' in text and "$ torch.load" not in text
    assert "- drop those keys" in text and "$ drop" not in text
    assert "$ torchdoctor ckpt convert IN OUT --to-cpu" in text
    md = "\n".join(markdown.steps_markdown(fix.steps()))
    assert '```python\ntorch.load(path, map_location="cpu")\n```' in md and "```sh\ntorchdoctor ckpt" in md
    assert [s["kind"] for s in fix.to_json()["steps"]] == [PYTHON, PROSE, COMMAND]
    for check in env_checks():  # and every env fix, rendered: never `$ ` before Python
        for example in check.examples:
            f = run_check(check, Facts.partial(**example.facts))
            for step in f.fix.steps() if f.fix else []:
                if step.kind == PYTHON:
                    buf = io.StringIO()
                    human._finding(f, Console(file=buf, width=200, color_system=None), False)
                    assert f"$ {step.text.splitlines()[0]}" not in buf.getvalue()


def test_sarif_carries_the_fix_as_a_code_change(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nsd = torch.load('m.pt')\n")
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--format", "sarif", "--select",
                           "TD402", "train.py"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    doc = json.loads(proc.stdout)
    result = doc["runs"][0]["results"][0]
    assert "`torch.load('m.pt')`" in result["message"]["markdown"]
    assert "`weights_only=True`" in result["fixes"][0]["description"]["markdown"]
    change = result["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert change["deletedRegion"]["startLine"] == 2 and change["insertedContent"]["text"] == ", weights_only=True"
