"""What kind of thing a fix step is: a shell command, Python code, or a sentence for a person.

Fixes carry their steps as strings (`Fix.commands`, a knowledge entry's `commands` and `code`);
this module says which kind each one is, once, so every renderer shows it as what it is: a
command after `$`, Python as Python (`>>>` in a terminal, a ```python block in Markdown), prose as
prose — never `$ torch.load(path, map_location="cpu")` or `$ drop those keys and ...`.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import NamedTuple

COMMAND, PYTHON, PROSE = "command", "python", "prose"

# Programs a fix may start with. A step whose first word is one of these (after `sudo` and
# VAR=value assignments) is a shell command even when it would also parse as Python (`nvidia-smi`).
PROGRAMS = frozenset("""
    accelerate apt apt-get awk brew cat cd chmod chown cmake conda cp curl deepspeed df dmesg dnf docker du echo
    env export find free fuser git grep head htop ip journalctl kill kubectl ldconfig ldd ln ls lsmod lsof lspci
    make mamba micromamba mkdir modprobe mount mv nc ncu netstat ninja nohup nsys nvcc nvidia-smi nvitop nvtop
    pgrep pip pip3 pkill ps py pytest python python3 reboot rm rmdir scp sed service set setx sh source srun ss
    ssh sudo sysctl systemctl tail tar tee top torchdoctor torchrun touch ulimit unset uv watch wget where which
    winget yum zypper bash ccache sccache gcc g++ clang nsys-ui unzip timeout time taskset numactl strings sha256sum md5sum py-spy huggingface-cli hf
""".split())
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+")
_CLI_SIGNS = re.compile(r"\s--?[A-Za-z]|\s\||\$[({A-Za-z]|\s#\s|\b[A-Z]{3,}\b")
_VERSIONED = re.compile(r"^(?:python|pip|pypy)\d+(?:\.\d+)?$")  # python3.12, pip3.11
_PATHLIKE = re.compile(r"^(?:\.{0,2}/|~/|[A-Za-z]:\\)\S*?(?:python[\d.]*|pip\d?|torchdoctor|\.sh|\.exe)$")


# A named tuple rather than a frozen dataclass: `explain` defines it on every run, and a dataclass
# costs several times as much to define.
class Step(NamedTuple):
    kind: str  # COMMAND, PYTHON or PROSE
    text: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text}


def kind_of(text: str) -> str:
    """COMMAND, PYTHON or PROSE for one step."""
    stripped = text.strip()
    if not stripped:
        return PROSE
    head = stripped
    while True:  # `CUDA_VISIBLE_DEVICES=0 python ...`, `sudo apt ...`
        m = _ASSIGN.match(head)
        if m:
            head = head[m.end():]
            continue
        if head.startswith("sudo "):
            head = head[5:].lstrip()
            continue
        break
    first = head.split(None, 1)[0] if head.split() else ""
    if first in PROGRAMS or _VERSIONED.match(first) or _PATHLIKE.match(first) or (head is not stripped and first and "(" not in first):
        return COMMAND
    if "\n" not in stripped and re.match(r"^[a-z][\w.+-]*$", first) and re.search(r"\s--[A-Za-z]|\s\|\s", head) \
            and not re.match(r"^[\w.]+\s*=[^=]", head):
        return COMMAND  # `tool --flag`, `a | b`: parses as Python arithmetic, reads as a shell line
    if stripped.startswith("#") and "\n" not in stripped:
        return PROSE  # a lone comment is advice, not code
    try:
        with warnings.catch_warnings():
            # A Windows path in a fix ("C:\Program Files") is an invalid escape to the parser: Python 3.12+
            # would print a SyntaxWarning to the user's terminal while only the kind of step is asked.
            warnings.simplefilter("ignore")
            tree = ast.parse(stripped)
    except SyntaxError:
        # An unknown program still reads like one: a flag, a pipe, a variable, a FILE placeholder.
        if "\n" not in stripped and re.match(r"^[a-z][\w.+-]*$", first) and _CLI_SIGNS.search(head):
            return COMMAND
        return PROSE
    # A bare name or a few words that happen to parse ("reboot", "see above") are not code.
    if all(isinstance(n, ast.Expr) and isinstance(n.value, (ast.Name, ast.Constant)) for n in tree.body):
        return PROSE
    return PYTHON


def steps(commands: tuple[str, ...] | list[str], code: str = "") -> list[Step]:
    """Typed steps of a fix: each command classified; a code block is Python when it parses."""
    out = [Step(kind_of(c), c) for c in commands]
    if code.strip():
        out.append(Step(PYTHON if kind_of(code) == PYTHON else COMMAND if kind_of(code) == COMMAND else "text", code))
    return out
