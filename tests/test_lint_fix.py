"""`torchdoctor check --fix / --unsafe-fixes / --diff`: the edits land exactly, merge where two
rules insert at one point, never break the file, and keep its encoding, newlines and mode."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from torchdoctor.lint.engine import Selection
from torchdoctor.lint.fix import _apply, _overlaps, fix_file
from torchdoctor.registry import lint_rules

DDP_TRAIN = '''\
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(), device_ids=[local_rank])
    ckpt = torch.load("résumé.pt")
    model.module.load_state_dict(ckpt["model"])
    total = 0
    for x, y in loader:
        loss = model(x).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss

if __name__ == "__main__":
    main()
'''


def run(cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--no-cache", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}, timeout=120)


@pytest.fixture
def train(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(DDP_TRAIN, encoding="utf-8")
    return path


def test_fix_applies_the_safe_fixes_and_reports_what_remains(train):
    proc = run(train.parent, "--fix", "train.py")
    text = train.read_text(encoding="utf-8")
    assert 'ckpt = torch.load("résumé.pt", map_location="cpu")\n' in text  # TD401: safe here
    assert "total += loss.detach()\n" in text  # TD102: safe
    assert "weights_only" not in text  # TD402 is unsafe: a person chooses True or False
    assert "Fixed 2 findings in 1 file (1 more with --unsafe-fixes)." in proc.stderr
    assert proc.stdout.startswith("train.py:10:12: TD402 ") and "Found 1 finding in 1 file." in proc.stdout
    assert proc.returncode == 1


def test_unsafe_fixes_merge_two_insertions_at_one_point(train):
    proc = run(train.parent, "--fix", "--unsafe-fixes", "train.py")
    assert 'torch.load("résumé.pt", map_location="cpu", weights_only=True)' in train.read_text(encoding="utf-8")
    assert proc.returncode == 0 and "All checks passed" in proc.stdout


def test_diff_shows_the_fixes_and_changes_nothing(train):
    before = train.read_bytes()
    proc = run(train.parent, "--diff", "train.py")
    assert train.read_bytes() == before
    assert proc.returncode == 1
    assert '-    ckpt = torch.load("résumé.pt")\n+    ckpt = torch.load("résumé.pt", map_location="cpu")\n' in proc.stdout
    assert "Would fix 2 findings" in proc.stderr
    clean = train.parent / "clean.py"
    clean.write_text("import torch\n")
    assert run(train.parent, "--diff", "clean.py").returncode == 0


def test_encoding_newlines_and_mode_survive(tmp_path):
    path = tmp_path / "legacy.py"
    source = ('# -*- coding: latin-1 -*-\r\nimport torch\r\nimport torch.distributed as dist\r\n'
              'dist.init_process_group("gloo")\r\nstate = torch.load("a.pt")  # café\r\n')
    path.write_bytes(source.encode("latin-1"))
    path.chmod(0o751)
    proc = run(tmp_path, "--fix", "--unsafe-fixes", "legacy.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert path.read_bytes() == source.replace('torch.load("a.pt")', 'torch.load("a.pt", map_location="cpu", '
                                               'weights_only=True)').encode("latin-1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["legacy.py"]  # no temporary file left behind


def test_usage_errors_are_one_line(train):
    for args in (["--unsafe-fixes"], ["--fix", "--diff"]):
        proc = run(train.parent, *args, "train.py")
        assert proc.returncode == 2 and proc.stderr.startswith("torchdoctor: error: ") and proc.stderr.count("\n") == 1


def test_a_fix_that_would_break_the_file_is_dropped(tmp_path, monkeypatch):
    from torchdoctor.lint import fix as fixmod
    from torchdoctor.lint.model import Edit, LintFix

    path = tmp_path / "train.py"
    path.write_text(DDP_TRAIN, encoding="utf-8")
    real_check = fixmod.check_module

    def sabotaged(module, rules, selection, result, *a, **k):
        real_check(module, rules, selection, result, *a, **k)
        for i, f in enumerate(result.findings):
            if f.code == "TD102":  # make its edit produce invalid Python
                result.findings[i] = type(f)(**{**f.__dict__, "fix": LintFix("x", (Edit(f.line, 8, f.line, 10, "+= ("),), True)})

    monkeypatch.setattr(fixmod, "check_module", sabotaged)
    selection = Selection()
    done = fix_file(str(path), selection.rules(lint_rules()), selection)
    assert [f.code for f in done.applied] == ["TD401"]
    assert [(f.code, why) for f, why in done.skipped] == [("TD102", "the edited file would not parse")]
    text = path.read_text(encoding="utf-8")
    assert 'map_location="cpu"' in text and "total += loss\n" in text


def test_overlap_rules():
    assert _overlaps(5, 10, 7, 8) and _overlaps(5, 10, 7, 7)  # a replacement and what lies inside it
    assert not _overlaps(5, 5, 5, 5) and not _overlaps(5, 10, 10, 10) and not _overlaps(5, 10, 10, 12)
    # insertions at one point keep the order of their findings
    assert _apply("f(a)", [(None, [(3, 3, ", b")]), (None, [(3, 3, ", c")])]) == "f(a, b, c)"
