"""Every knowledge example keeps its answer however it was pasted.

Real pastes are not clean terminal output: the error sits in markdown bold, every line is quoted,
the page escaped its quotes, the terminal wrapped the message mid-word at 80 columns, Jupyter
printed its own traceback, a launcher prefixed every line with the rank. Each style below renders
each example of the knowledge base the way people paste it; `explain` must give the same first
answer for at least 98% of the examples it answers right when they are clean.
"""

from __future__ import annotations

import html
import json
import re
import textwrap

import pytest

from torchdoctor.kb import explain, load
from torchdoctor.kb.parse import parse

KB = load()
EXAMPLES = [(e.id, ex.text) for e in KB.entries.values() for ex in e.examples]
_EXC_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b.*?:\s")


def _final_line_index(lines: list[str]) -> int:
    """The index of the last exception line (the one people bold or quote in prose)."""
    for i in range(len(lines) - 1, -1, -1):
        if _EXC_LINE.match(lines[i].strip()):
            return i
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i
    return 0


def bold(text: str) -> str:
    lines = text.strip("\n").split("\n")
    i = _final_line_index(lines)
    lines[i] = f"**{lines[i].strip()}**"
    return "\n".join(lines)


def quoted(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.strip("\n").split("\n"))


def html_escaped(text: str) -> str:
    return html.escape(text.strip("\n"), quote=True)


def fenced_with_prose(text: str) -> str:
    return f"When I run `python train.py` I get this error:\n\n```python\n{text.strip()}\n```\n\nAny idea what is wrong?"


def chinese_prose(text: str) -> str:
    lines = text.strip("\n").split("\n")
    i = _final_line_index(lines)
    lines[i] = "运行训练脚本的时候报错：" + lines[i].strip()
    return "各位大佬好，\n" + "\n".join(lines) + "\n请问这是什么原因？"


def hard_wrapped(width: int):
    def render(text: str) -> str:
        out = []
        for line in text.strip("\n").split("\n"):
            out.extend([line[i:i + width] for i in range(0, len(line), width)] or [""])
        return "\n".join(out)
    render.__name__ = f"hard_wrapped_{width}"
    return render


def soft_wrapped(width: int):
    def render(text: str) -> str:
        out = []
        for line in text.strip("\n").split("\n"):
            indent = line[: len(line) - len(line.lstrip())]
            if len(line) <= width or indent:
                out.append(line)
            else:
                out.extend(textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False))
        return "\n".join(out)
    render.__name__ = f"soft_wrapped_{width}"
    return render


_FRAME = re.compile(r'^(\s*)File "([^"]+)", line (\d+), in (.+)$')


def jupyter(text: str) -> str:
    out = []
    for line in text.strip("\n").split("\n"):
        if line.strip() == "Traceback (most recent call last):":
            out.append("-" * 75)
            out.append("RuntimeError                              Traceback (most recent call last)")
            continue
        m = _FRAME.match(line)
        if m:
            out.append(f"File {m[2]}:{m[3]}, in {m[4]}")
            continue
        out.append(line)
    return "\n".join(out)


def rank_prefixed(text: str) -> str:
    return "\n".join(f"[rank0]: {line}" for line in text.strip("\n").split("\n"))


def details_block(text: str) -> str:
    return f"<details>\n<summary>Full traceback</summary>\n\n```\n{text.strip()}\n```\n\n</details>"


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def rich_boxed(text: str, width: int = 100) -> str:
    """The traceback as `rich` draws it (typer, Hugging Face and ComfyUI tools): frames in a rounded
    box, each title `path:line in func` (folded where longer than the box), the current source
    line marked, the exception below the box. (The layout of rich 15's rich.traceback.)"""
    inner = width - 4
    out: list[str] = []
    boxed = False

    def row(s: str = "") -> None:
        out.append("│ " + s.ljust(inner) + " │")

    lines = text.strip("\n").split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "Traceback (most recent call last):":
            out.append("╭" + " Traceback (most recent call last) ".center(width - 2, "─") + "╮")
            boxed = True
            continue
        m = _FRAME.match(line)
        if boxed and m:
            for piece in textwrap.wrap(f"{m[2]}:{m[3]} in {m[4]}", inner, break_on_hyphens=False):
                row(piece)
            row()
            continue
        if boxed and line.startswith("    "):
            code = line.strip()
            if code and code.strip("^~ "):
                number = _FRAME.match(lines[i - 1])[3] if i and _FRAME.match(lines[i - 1]) else "1"
                row(f"❱ {number} │   {code}"[:inner])
                row()
            continue
        if boxed:
            out.append("╰" + "─" * (width - 2) + "╯")
            boxed = False
        out.append(line)
    if boxed:
        out.append("╰" + "─" * (width - 2) + "╯")
    return "\n".join(out)


def json_log_field(text: str) -> str:
    """The error as a field of a JSON log record: one line, its line breaks written `\\n`."""
    return json.dumps({"level": "ERROR", "logger": "train", "message": text.strip("\n")})


_EXC_TYPE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Warning)\w*):\s?(?P<msg>.*)$")


def ansi_coloured(text: str) -> str:
    """A terminal's colours kept by the paste (Python 3.13's coloured tracebacks, a logger's
    coloured level): escape codes around the frame's parts and the exception line."""
    out = []
    for line in text.strip("\n").split("\n"):
        m = _FRAME.match(line)
        e = _EXC_TYPE.match(line)
        if m:
            out.append(f'  File \x1b[35m"{m[2]}"\x1b[0m, line \x1b[35m{m[3]}\x1b[0m, in \x1b[35m{m[4]}\x1b[0m')
        elif e:
            out.append(f"\x1b[1;35m{e['type']}\x1b[0m: \x1b[35m{e['msg']}\x1b[0m")
        else:
            out.append(line)
    return "\n".join(out)


def ipython_coloured(text: str) -> str:
    """IPython 8's traceback as a terminal or Jupyter's console prints it: coloured, a
    `File path:line, in func` frame with its source line marked `---->`."""
    out = []
    under_frame = False
    for line in text.strip("\n").split("\n"):
        m = _FRAME.match(line)
        e = _EXC_TYPE.match(line)
        source, under_frame = under_frame, bool(m)
        if line.strip() == "Traceback (most recent call last):":
            out.append("\x1b[0;31m" + "-" * 75 + "\x1b[0m")
            out.append("\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)")
        elif m:
            out.append(f"File \x1b[0;32m{m[2]}:{m[3]}\x1b[0m, in \x1b[0;36m{m[4]}\x1b[0;34m\x1b[0m")
        elif source and line.strip():
            out.append(f"\x1b[0;32m----> 1\x1b[0m \x1b[38;5;241m{line.strip()}\x1b[0m")
        elif e:
            out.append(f"\x1b[0;31m{e['type']}\x1b[0m: {e['msg']}")
        else:
            out.append(line)
    return "\n".join(out)


def ansi_escape_lost(text: str) -> str:
    """Coloured output copied from a web page that dropped the ESC byte: `[0;31m...[0m` left."""
    return ipython_coloured(text).replace("\x1b", "")


def _every_line(prefix: str, name: str, where: str):
    def render(text: str) -> str:
        return "\n".join(prefix + line for line in text.strip("\n").split("\n"))
    render.__name__ = name
    render.__doc__ = f"Every line prefixed `{prefix}`: {where}."
    return render


pdsh_host = _every_line("worker-1: ", "pdsh_host", "pdsh and DeepSpeed's multi-node runner")
mpirun_tag_output = _every_line("[1,0]<stderr>:", "mpirun_tag_output", "mpirun --tag-output (Horovod)")
ray_pid = _every_line("(pid=28417) ", "ray_pid", "a Ray task's output on the driver")
ray_actor = _every_line("(RayTrainWorker pid=28417, ip=10.0.0.3) ", "ray_actor", "a Ray actor's output")
slurm_task = _every_line("3: ", "slurm_task", "srun --label")
docker_compose = _every_line("trainer-1  | ", "docker_compose", "docker compose up / logs")
journald = _every_line("Nov 25 10:11:12 gpu-node-3 python3[28417]: ", "journald", "journalctl, syslog")
github_actions = _every_line("2024-05-01T12:00:00.1234567Z ", "github_actions", "a GitHub Actions raw log")
loguru = _every_line("2024-05-01 12:00:00.123 | ERROR    | __main__:main:42 - ", "loguru", "loguru's default format")


def cat_n(text: str) -> str:
    """Line numbers from `cat -n` (right-aligned, a tab)."""
    return "\n".join(f"{k:6d}\t{line}" for k, line in enumerate(text.strip("\n").split("\n"), 1))


def editor_gutter(text: str) -> str:
    """Line numbers copied with the text from an editor or a paste site's gutter."""
    return "\n".join(f"{k:>3} | {line}" for k, line in enumerate(text.strip("\n").split("\n"), 1))


def pytest_short(text: str) -> str:
    """A failed test's report, `pytest --tb=short` (as CI logs show it): frames as `path:12: in func`,
    the exception's lines prefixed `E   `."""
    lines = text.strip("\n").split("\n")
    final = _final_line_index(lines)
    out = ["_" * 20 + " test_train " + "_" * 20]
    for i, line in enumerate(lines):
        m = _FRAME.match(line)
        if i >= final:
            out.append("E   " + line)
        elif m:
            out.append(f"{m[2]}:{m[3]}: in {m[4]}")
        elif line.strip() != "Traceback (most recent call last):":
            out.append(line)
    return "\n".join(out)


def notebook_json(text: str) -> str:
    """A notebook cell's error as the .ipynb file holds it (a diff, an issue that pasted the file):
    Jupyter's traceback as a list of JSON strings, the exception line coloured."""
    lines = jupyter(text).split("\n")
    final = _final_line_index(lines)
    e = _EXC_TYPE.match(lines[final].strip())
    lines[final] = "\x1b[0;31m" + lines[final] + "\x1b[0m"
    output = {"ename": e["type"] if e else "RuntimeError", "evalue": e["msg"] if e else "", "output_type": "error",
              "traceback": lines}
    return json.dumps({"cell_type": "code", "outputs": [output]}, indent=1, ensure_ascii=False)


def exception_repr(text: str) -> str:
    """The final exception as its repr, after the frames: Optuna's "Trial 0 failed because of the
    following error: RuntimeError('...')", a logger's `%r`, a list of errors."""
    lines = text.strip("\n").split("\n")
    final = _final_line_index(lines)
    e = _EXC_TYPE.match(lines[final].strip())
    if e is None:
        return "Trial 0 failed because of the following error:\n" + text.strip("\n")
    message = "\n".join([e["msg"], *lines[final + 1:]])
    return "\n".join(lines[:final] + [f"Trial 0 failed because of the following error: {e['type']}({message!r})."])


def repr_in_json(text: str) -> str:
    """A JSON log record whose field holds the text's repr: escaped twice (`\\\\n` in the file)."""
    return json.dumps({"level": "error", "error": repr(text.strip("\n"))})


def loguru_diagnose(text: str) -> str:
    """loguru's `logger.exception` / `@logger.catch` (backtrace and diagnose on, its default): a log
    line before the traceback, a blank line after each frame's source with the values of its
    variables drawn under it, the frame that caught the exception marked `>`."""
    lines = text.strip("\n").split("\n")
    frames = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    out = ["2024-05-01 12:00:00.123 | ERROR    | __main__:main:42 - An error has been caught in function 'main', "
           "process 'MainProcess' (28417), thread 'MainThread' (139871):"]
    for i, line in enumerate(lines):
        if frames and i == frames[0]:
            line = "> " + line.lstrip()
        out.append(line)
        if i - 1 in frames and line.startswith("    ") and line.strip():
            out += ["    │       └ <function main at 0x7f3a2c1b5d30>", "    └ <module 'torch' from '/opt/torch/__init__.py'>", ""]
    return "\n".join(out)


def indentation_lost(text: str) -> str:
    """Every line's leading spaces lost (a forum or chat that trims lines, a copy from a rendered
    page): frames and source at the left margin."""
    return "\n".join(line.strip() for line in text.strip("\n").split("\n"))


def progress_bar_glued(text: str) -> str:
    """tqdm's last progress bar, which ends with no line break, glued before the error."""
    return "Epoch 3:  45%|████▌     | 450/1000 [00:12<00:15, 36.21it/s, loss=0.412]" + text.strip("\n")


def json_lines(text: str) -> str:
    """One JSON record per line, as docker's json-file driver and Kubernetes log shippers keep them."""
    return "\n".join(json.dumps({"log": line + "\n", "stream": "stderr", "time": "2024-05-01T12:00:00.123456789Z"})
                     for line in text.strip("\n").split("\n"))


def powershell(text: str) -> str:
    """Run from PowerShell on Windows: the prompt around it, frames' paths with backslashes."""
    body = [re.sub(r'File "/(?:[^"/]+/)*([^"/]+)"', lambda m: f'File "C:\\Users\\me\\proj\\{m[1]}"', line)
            for line in text.strip("\n").split("\n")]
    return "PS C:\\Users\\me\\proj> python train.py\n" + "\n".join(body) + "\nPS C:\\Users\\me\\proj>"


STYLES = [bold, quoted, html_escaped, fenced_with_prose, chinese_prose, hard_wrapped(80), hard_wrapped(120),
          soft_wrapped(80), soft_wrapped(100), jupyter, rank_prefixed, details_block, crlf, rich_boxed,
          json_log_field, ansi_coloured, ipython_coloured, ansi_escape_lost, pdsh_host, mpirun_tag_output, ray_pid,
          ray_actor, slurm_task, docker_compose, journald, github_actions, loguru, cat_n, editor_gutter, pytest_short,
          notebook_json, exception_repr, repr_in_json, loguru_diagnose, indentation_lost, progress_bar_glued,
          json_lines, powershell]


def _first(text: str) -> str | None:
    matches = explain(parse(text), KB)
    return matches[0].id if matches else None


CLEAN = {(entry_id, text): _first(text) for entry_id, text in EXAMPLES}


@pytest.mark.parametrize("style", STYLES, ids=[s.__name__ for s in STYLES])
def test_paste_style_keeps_the_answer(style):
    right = [(entry_id, text) for entry_id, text in EXAMPLES if CLEAN[(entry_id, text)] == entry_id]
    assert len(right) > 100
    lost = [(entry_id, text) for entry_id, text in right if _first(style(text)) != entry_id]
    kept = 1 - len(lost) / len(right)
    detail = "\n".join(f"  {entry_id}: got {_first(style(text))!r} for {style(text)[-160:]!r}"
                       for entry_id, text in lost[:8])
    assert kept >= 0.98, f"{style.__name__} keeps {kept:.1%} of the right answers; lost:\n{detail}"


def test_the_styles_really_change_the_text():
    """A style that leaves the text as it was would test nothing."""
    sample = next(text for _, text in EXAMPLES if "Traceback" in text and len(text) > 400)
    for style in STYLES:
        assert style(sample) != sample, style.__name__
