"""Issue 14 item 10: the command-line conventions a new user expects."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from rich.console import Console

from torchdoctor.text import plural, shorten


def torchdoctor(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_version_and_short_help():
    from torchdoctor import __version__

    proc = torchdoctor("--version")
    assert proc.returncode == 0 and proc.stdout == f"torchdoctor {__version__}\n"
    for args in (["-h"], ["explain", "-h"], ["kb", "search", "-h"], ["ckpt", "-h"]):
        proc = torchdoctor(*args)
        assert proc.returncode == 0 and proc.stdout.startswith("Usage: torchdoctor"), (args, proc.stderr)


def test_a_closed_pipe_is_a_quiet_exit():
    """`torchdoctor kb list | head -1`: the reader leaves before the output is written."""
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "torchdoctor", "kb", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b"", err


def test_plural_and_shorten():
    assert [plural(1, "key"), plural(2, "key"), plural(0, "file")] == ["1 key", "2 keys", "0 files"]
    assert plural(1, "checkpoint error") == "1 checkpoint error" and plural(3, "process") == "3 processes"
    assert plural(2, "match") == "2 matches"
    text = "installing a new version from the URL: http://www.nvidia.com/Download/index.aspx"
    short = shorten(text, 30)
    assert short.endswith("…") and len(short) <= 30 and text.startswith(short[:-1])
    assert short[:-1].split()[-1] in text.split()  # no word cut in half
    assert shorten("short", 30) == "short"


def test_check_sentence_counts_what_it_says(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nm = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n")
    (tmp_path / "b.py").write_text("def f(:\n")
    (tmp_path / "c.py").write_bytes(b"\xff\xfe\x00bad")
    proc = torchdoctor("check", "a.py", "b.py", "c.py", cwd=str(tmp_path))
    assert proc.stdout.rstrip().splitlines()[-1] == "Found 1 finding; 2 files could not be checked."
    proc = torchdoctor("check", "b.py", cwd=str(tmp_path))
    assert proc.stdout.rstrip().splitlines()[-1] == "1 file could not be checked."


def test_lists_are_aligned_whatever_the_longest_name():
    for args in (["rule", "--list"], ["env", "--list"]):
        rows = torchdoctor(*args).stdout.splitlines()
        starts = set()
        for row in rows:
            code, name, rest = row.split(None, 2)
            starts.add(row.index(rest, len(code) + len(name) + 2))
        assert len(starts) == 1, (args, starts)


def test_dist_table_has_no_literal_none():
    from torchdoctor.runtime.dist import Report, render_text

    report = Report("gloo", 1, {0: {"host": "h", "pid": 12, "torch": "2.13.0+cpu", "cuda": None, "nccl": None,
                                    "python": "3.11.7", "device": "cpu"}}, phases={"barrier": "ok"})
    out = io.StringIO()
    render_text(report, Console(file=out, width=100, color_system=None))
    assert "None" not in out.getvalue() and "1 ranks" not in out.getvalue()
    assert "the only rank healthy" in out.getvalue()


def test_env_python_names_the_interpreter_in_the_header():
    proc = torchdoctor("env", "--quick", "--python", sys.executable)
    assert sys.executable in " ".join(proc.stdout.split("\n\n")[0].split()), proc.stdout[:300]


def test_skip_lines_are_worded_one_way():
    from torchdoctor.facts.model import Facts, PythonFacts
    from torchdoctor.facts.torch_probe import quick
    from torchdoctor.runner import run_env_checks

    findings = run_env_checks(Facts(torch=quick(PythonFacts(sys_path=[]))))
    skipped = [f.message for f in findings if f.status.value == "skip"]
    assert skipped and not any("skipped" in m for m in skipped), skipped


def test_kb_show_header_and_search_ranking():
    proc = torchdoctor("kb", "show", "cuda-out-of-memory")
    assert "seed" not in proc.stdout.splitlines()[1]
    rows = torchdoctor("kb", "search", "mat1", "mat2").stdout.split()
    assert rows.index("shape-mismatch-matmul") < rows.index("dtype-mismatch")


def test_no_clean_bill_of_health_for_checks_that_could_not_run():
    from torchdoctor.facts.model import Facts
    from torchdoctor.registry import find_env_check
    from torchdoctor.render.summary import closing_line
    from torchdoctor.runner import run_env_checks

    findings = run_env_checks(Facts.partial(), [find_env_check("TE101")])  # nothing known: TE101 cannot run
    assert closing_line(findings) == ("No problems in what could be checked; 1 check not run for missing "
                                      "facts (TE101).")
