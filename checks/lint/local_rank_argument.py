import ast

from torchdoctor.checks.lint._wrappers import cached
from torchdoctor.lint import context
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

_FLAGS = ("--local_rank", "--local-rank")
_ENV_GETTERS = {"os.getenv", "os.environ.get", "os.environ.setdefault", "os.environ.pop", "os.environ.__getitem__"}


@lint_rule(
    code="TD109",
    name="local-rank-argument",
    title="argparse --local_rank instead of the LOCAL_RANK environment variable",
    on=(ast.Call,),
    requires=(("local_rank", "local-rank"),),
    severity="warning",
    related=("launch-local-rank-arg",),
    invalid=[
        """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)  # <-
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
""",
        """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--local-rank", "--local_rank", type=int, required=True)  # <-
""",
        """
import argparse
import os
def get_args():
    p = argparse.ArgumentParser()
    p.add_argument('--local_rank', default=0, type=int, help='node rank for distributed training')  # <-
    args = p.parse_args()
    os.environ["LOCAL_RANK"] = str(args.local_rank)  # writing it is not reading it
    return args
""",
    ],
    valid=[
        """
import argparse
from util.misc import init_distributed_mode  # reads LOCAL_RANK itself
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", default=-1, type=int)  # only swallows what torch.distributed.launch passes
args = parser.parse_args()
init_distributed_mode(args)
""",
        """
import argparse
import torch
parser = argparse.ArgumentParser()
if int(torch.__version__.split(".")[0]) == 1:  # the launcher of torch 1.x passes --local_rank
    parser.add_argument("--local_rank", type=int, required=True)
""",
        """
import argparse
import os
parser = argparse.ArgumentParser()
parser.add_argument("--local-rank", "--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", -1)))
""",
        """
import argparse
import os
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
args = parser.parse_args()
if "LOCAL_RANK" in os.environ:  # torchrun: the environment wins
    args.local_rank = int(os.environ["LOCAL_RANK"])
""",
        """
import argparse
from os import getenv
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=getenv("LOCAL_RANK", 0))
""",
        """
import argparse
import os
parser = argparse.ArgumentParser()
parser.add_argument("--rank", type=int, default=0)
parser.add_argument("--world_size", type=int, default=1)
local_rank = int(os.environ["LOCAL_RANK"])
""",
        """
import argparse
import deepspeed
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)  # the deepspeed launcher passes it
parser = deepspeed.add_config_arguments(parser)
""",
        """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--local-rank", "--local_rank", type=int)  # swallows the launcher's flag, value unused here
args = parser.parse_args()
init_distributed_mode(args)
""",
    ],
)
def local_rank_argument(node, module):
    """
    ## What it does
    Finds `parser.add_argument("--local_rank" / "--local-rank", ...)` in a file that never
    reads `LOCAL_RANK` from the environment (`os.environ["LOCAL_RANK"]`,
    `os.environ.get("LOCAL_RANK")`, `os.getenv("LOCAL_RANK")`, `"LOCAL_RANK" in os.environ`),
    (nor does a file of the project it imports, such as an `init_distributed_mode` helper), when
    the file uses the value (`args.local_rank`: under torchrun it is the default), and any
    `required=True` flag (torchrun passes nothing, so every worker exits). A flag whose value is
    not used only swallows what `torch.distributed.launch` passes and is left alone, and so is
    one declared under a torch-version check. In library
    modules (the environment may be read by the entry script) it is a note; files that import
    deepspeed (whose launcher passes `--local_rank=N` by design) are left alone.

    ## Why is this bad?
    Only the deprecated `python -m torch.distributed.launch` passes the local rank as an
    argument, and since PyTorch 2.0 it spells it `--local-rank=N`, which a parser that knows
    only `--local_rank` rejects: `error: unrecognized arguments: --local-rank=0` on every
    worker. `torchrun` passes nothing and sets `LOCAL_RANK` instead: the argument keeps its
    default (-1 turns distributed mode off, 0 puts every process on GPU 0), and with
    `required=True` every worker exits with "the following arguments are required".

    ## Example
    ```python
    parser.add_argument("--local_rank", type=int, default=-1)
    ```
    Use instead:
    ```python
    parser.add_argument("--local-rank", "--local_rank", type=int,
                        default=int(os.environ.get("LOCAL_RANK", -1)))
    ```
    """
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "add_argument"):
        return None
    flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    declared = [f for f in flags if f in _FLAGS]
    if not declared:
        return None
    required = next((k.value for k in node.keywords if k.arg == "required"), None)
    is_required = isinstance(required, ast.Constant) and required.value is True
    if not is_required and cached(module, "reads_local_rank_env", lambda: _reads_local_rank_env(module)):
        return None
    if _under_version_check(module, node):
        return None  # `if torch_version < 2: add_argument("--local_rank")`: the launcher of that version
    if any(q == "deepspeed" or q.startswith("deepspeed.") for q in module.aliases.values()):
        return None  # the deepspeed launcher passes --local_rank=N by design
    default = next((k.value for k in node.keywords if k.arg == "default"), None)
    default_text = ast.get_source_segment(module.text, default) if default is not None else "None"
    dest_kw = next((k.value for k in node.keywords if k.arg == "dest"), None)
    dest = dest_kw.value if isinstance(dest_kw, ast.Constant) and isinstance(dest_kw.value, str) else "local_rank"
    used = cached(module, f"attr-read:{dest}", lambda: _value_read(module, dest))
    old, new = "--local_rank" in declared, "--local-rank" in declared
    modern = (context.target() or (2, 0)) >= (2, 0)
    spelling = None
    if old and not new:
        spelling = ("torch.distributed.launch passes --local-rank=N since PyTorch 2.0, which this parser rejects: "
                    "'error: unrecognized arguments: --local-rank=0' on every worker")
    elif new and not old and not modern:
        spelling = "torch.distributed.launch before PyTorch 2.0 passes --local_rank=N, which this parser rejects"
    flags = ", ".join(repr(f) for f in declared)
    if is_required:
        message = (f"add_argument({flags}, required=True): torchrun passes no such argument (it sets LOCAL_RANK in "
                   f"the environment), so every worker exits with 'the following arguments are required'")
        severity = "error"
    elif used:
        message = (f"add_argument({flags}) and LOCAL_RANK is never read from the environment: torchrun passes no "
                   f"such argument, so args.{dest} silently keeps its default {default_text} (distributed mode off, "
                   f"or every process on one GPU)" + (f"; and {spelling}" if spelling else ""))
        severity = None if module.is_script else "note"
    else:
        # The value is not used here: the flag only swallows what torch.distributed.launch passes,
        # and the rank comes from elsewhere (the environment, read by a helper).
        return None
    return Violation(
        node, message,
        LintFix('Read the local rank from the environment: `local_rank = int(os.environ.get("LOCAL_RANK", -1))` '
                '(keep the flag only as `add_argument("--local-rank", "--local_rank", type=int, '
                'default=int(os.environ.get("LOCAL_RANK", -1)))`)'),
        severity=severity)


def _value_read(module, dest) -> bool:
    """Does this file read the parsed value (`args.local_rank`, `opt["local_rank"]`)?"""
    if dest not in module.text:
        return False
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and node.attr == dest and isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and node.slice.value == dest:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value == dest:
            return True
    return False


def _under_version_check(module, node) -> bool:
    for a in module.ancestors(node):
        if isinstance(a, ast.If):
            test = ast.get_source_segment(module.text, a.test) or ""
            if "version" in test.lower() or "VERSION" in test:
                return True
    return False


def _reads_local_rank_env(module) -> bool:
    """This file or a file of the project it imports (an `init_distributed_mode` helper) reads
    LOCAL_RANK from the environment."""
    if _reads_env_here(module):
        return True
    project = module.project
    if not project.files_with("LOCAL_RANK"):
        return False
    for imp in module.nodes(ast.ImportFrom, ast.Import):
        names = [(imp.module or "", imp.level)] if isinstance(imp, ast.ImportFrom) else [(a.name, 0) for a in imp.names]
        if isinstance(imp, ast.ImportFrom):
            names += [(f"{imp.module}.{a.name}" if imp.module else a.name, imp.level) for a in imp.names]
        for dotted, level in names:
            other = project.import_target(module.path, dotted, level)
            if other is not None and other.path in project.files_with("LOCAL_RANK") and _reads_env_here(other):
                return True
    return False


def _reads_env_here(module) -> bool:
    if "LOCAL_RANK" not in module.text:
        return False
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_key(node.slice) \
                and module.qualname(node.value) == "os.environ":
            return True
        if isinstance(node, ast.Call) and node.args and _is_key(node.args[0]) \
                and (module.call_name(node) in _ENV_GETTERS):
            return True
        if isinstance(node, ast.Compare) and _is_key(node.left) and len(node.comparators) == 1 \
                and module.qualname(node.comparators[0]) == "os.environ":
            return True
    return False


def _is_key(node) -> bool:
    return isinstance(node, ast.Constant) and node.value == "LOCAL_RANK"
