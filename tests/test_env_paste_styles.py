"""`env --facts` keeps its verdict however a report was pasted.

Every dev report of tests/fixtures/env_reports (copied from public issues) is re-rendered the way
pages, consoles and log collectors hand it on: quoted, HTML-escaped, inside <details>, with CRLF,
non-breaking spaces, every line doubled by a blank one, a Python logging prefix on every line, cut
by a terminal at a fixed column. Each must still be read, and (nearly) every report must give the
same errors and warnings as the report as it was pasted. The same idea as the paste styles of
`explain` (tests/test_explain_paste_styles.py), on the env reader's real input.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from torchdoctor import paste
from torchdoctor.cli import env as cli_env
from torchdoctor.cli.common import UsageError
from torchdoctor.facts import nvidia_smi_text
from torchdoctor.model import Status
from torchdoctor.runner import run_env_checks

REPORTS = Path(__file__).parent / "fixtures" / "env_reports"
DEV = [r["file"] for r in json.loads((REPORTS / "manifest.json").read_text())["reports"] if r["split"] == "dev"]


def quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def html_escaped(text: str) -> str:
    """Copied from a page's source, or from an API that returns the issue body as HTML text."""
    return html.escape(text, quote=True)


def details_block(text: str) -> str:
    return "<details><summary>Environment</summary>\n\n```\n" + text.strip("\n") + "\n```\n\n</details>\n"


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def non_breaking_spaces(text: str) -> str:
    """A web page's copy: runs of spaces (alignment, indentation) as U+00A0."""
    return re.sub(r" {2,}", lambda m: "\u00a0" * len(m.group(0)), text).replace(": ", ":\u00a0")


def doubled_lines(text: str) -> str:
    """A blank line after every line (copied from some pages and from a Windows console)."""
    return "\n\n".join(text.split("\n"))


def logging_prefix(text: str) -> str:
    """Printed through Python's logging (mmcv/mmdet log their environment this way)."""
    return "\n".join("2021-03-04 10:11:12,345 - mmdet - INFO - " + line for line in text.split("\n"))


def terminal_cut(width: int):
    def cut(text: str) -> str:
        return "\n".join(line[i:i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))
    cut.__name__ = f"terminal_cut_{width}"
    return cut


# A terminal cut that leaves only one line cut cannot be told from a line that long: those reports
# may lose the fact on that line. Every other style keeps (nearly) every verdict.
STYLES = [(quoted, 0.995), (html_escaped, 0.995), (details_block, 0.995), (crlf, 0.995), (non_breaking_spaces, 0.995),
          (doubled_lines, 0.995), (logging_prefix, 0.995), (terminal_cut(100), 0.93), (terminal_cut(80), 0.9)]


def _verdict(text: str, tmp_path: Path) -> list[str] | None:
    path = tmp_path / "paste.txt"
    path.write_bytes(text.encode("utf-8"))
    try:
        facts = cli_env.load_facts(path)
    except UsageError:
        return None
    return sorted({f.code for f in run_env_checks(facts) if f.status in (Status.ERROR, Status.WARNING)})


@pytest.fixture(scope="module")
def as_pasted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("as-pasted")
    return {name: _verdict((REPORTS / name).read_text(encoding="utf-8"), tmp) for name in DEV}


@pytest.mark.parametrize("style,keep", STYLES, ids=[s.__name__ for s, _ in STYLES])
def test_a_paste_style_keeps_the_verdict(style, keep, as_pasted, tmp_path):
    assert len(as_pasted) > 400
    unread, changed = [], []
    for name, before in as_pasted.items():
        after = _verdict(style((REPORTS / name).read_text(encoding="utf-8")), tmp_path)
        if after is None and before is not None:  # a report that states no version is refused either way
            unread.append(name)
        elif after != before:
            changed.append(f"{name}: {before} -> {after}")
    if keep >= 0.99:
        assert not unread, f"{style.__name__}: no longer read: {unread[:5]}"
    kept = 1 - (len(changed) + len(unread)) / len(as_pasted)
    assert kept >= keep, f"{style.__name__} keeps {kept:.1%}; changed:\n" + "\n".join(changed[:8])


def test_the_styles_really_change_the_text():
    sample = (REPORTS / DEV[0]).read_text(encoding="utf-8")
    long_sample = "It's torch's report:\nPyTorch version: 2.1.0+cu121\n" + "x" * 250 + "\n" + sample
    for style, _ in STYLES:
        assert style(long_sample) != long_sample, style.__name__


# --------------------------------------------------------------------------- the pieces, each both ways

def test_a_terminal_cut_at_one_column_is_joined_again():
    line = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation. The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 "
            "sm_80 sm_86 sm_90.")
    text = "UserWarning:\n" + terminal_cut(80)(line) + "\nPyTorch version: 2.5.1+cu124\n"
    assert line in paste.report_text(text)


def test_a_quoted_paste_is_joined_under_its_quote_marks():
    line = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
            "installation. The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75.")
    text = quoted("UserWarning:\n" + terminal_cut(80)(line) + "\nPyTorch version: 2.5.1+cu124")
    assert "> " + line in paste.report_text(text).split("\n")


def test_sentences_that_happen_to_be_as_wide_are_not_joined():
    # Each line is a whole sentence; two are 70 wide, like rows a terminal cut at 70.
    text = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible.\n"
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_90.\n"
            "If you want to use the GPU with PyTorch, please read the instructions.\n")
    lines = text.split("\n")
    assert paste._wrap_width(lines, [len(line) for line in lines])[1]  # the widths alone say: cut
    assert paste.report_text(text) == text


def test_a_table_padded_to_its_columns_is_not_a_terminal_cut():
    # conda list rows are all as wide as the widest: equal widths, but nothing was cut.
    rows = [f"{name:<26}{version:<21}{build:>15}    conda-forge" for name, version, build in
            [("bzip2", "1.0.8", "h4bc722e_7"), ("c-ares", "1.34.4", "hb9d3cd8_0"), ("cudnn", "9.3.0.75", "h62a6f1c_2"),
             ("fmt", "11.0.2", "h434a139_0"), ("pytorch", "2.5.1", "cuda126_py310"), ("sympy", "1.13.3", "pyh2585a3b_1")]]
    text = "# Name                    Version                   Build  Channel\n" + "\n".join(rows) + "\n"
    assert paste.report_text(text) == text


def test_nvidia_smis_table_is_not_a_terminal_cut():
    table = ("+-----------------------------------------------------------------------------+\n"
             "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
             "|-------------------------------+----------------------+----------------------+\n"
             "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
             "+-----------------------------------------------------------------------------+\n")
    text = "torch 1.13.1+cu117 says:\n" + terminal_cut(80)("x" * 200) + "\n" + table
    assert table in paste.report_text(text)


def test_doubled_line_breaks_are_undone_and_a_reports_own_blank_lines_stay():
    text = "PyTorch version: 2.0.1\nIs debug build: False\n\nOS: Ubuntu 22.04\nGCC version: 11.4\n"
    assert paste.report_text(doubled_lines(text)).strip("\n") == text.strip("\n")
    assert paste.report_text(text) == text  # runs of filled lines: not doubled


def test_html_escaping_hides_no_quote_marker(tmp_path):
    text = quoted("Collecting environment information...\nPyTorch version: 2.1.0+cpu\n"
                  "CUDA used to build PyTorch: None\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\n"
                  "Nvidia driver version: 537.13\n")
    assert "TE203" in (_verdict(html_escaped(text), tmp_path) or [])


def test_an_nvidia_smi_q_log_indented_with_non_breaking_spaces_is_read_not_a_crash():
    log = ["==============NVSMI LOG==============", "", "Driver Version                      : 535.104.05",
           "CUDA Version                        : 12.2", "", "Attached GPUs                       : 1",
           "GPU 00000000:00:04.0", "\u00a0\u00a0\u00a0\u00a0Product Name                    : Tesla T4"]
    assert nvidia_smi_text.query(log)["driver_version"] == "535.104.05"  # the odd line ends the log
    assert nvidia_smi_text.query(paste.report_text("\n".join(log)).split("\n"))["gpus"][0]["name"] == "Tesla T4"


def test_a_logging_prefix_keeps_the_messages_indentation():
    from torchdoctor.facts import pasted
    text = logging_prefix("RuntimeError:\n      The detected CUDA version (11.8) mismatches the version that was used to "
                          "compile\n      PyTorch (12.4). Please make sure to use the same CUDA versions.")
    assert pasted._strip_log_prefixes(text).split("\n")[1].startswith("      The detected")
