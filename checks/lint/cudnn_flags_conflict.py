import ast
import re
from dataclasses import dataclass

from torchdoctor.checks.lint._callflow import argument, keyword
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import SourceModule, body_nodes
from torchdoctor.registry import lint_rule

_FLAGS = {"torch.backends.cudnn.benchmark": "benchmark", "torch.backends.cudnn.deterministic": "deterministic"}
_SHOWN = {"benchmark": "cudnn.benchmark = True", "deterministic": "cudnn.deterministic = True",
          "algorithms": "torch.use_deterministic_algorithms(True)"}
# Identifiers and strings that mean "this code seeds (or delegates seeding)": any of them in the
# file keeps the no-seeding check quiet. Deliberately broad: this check must not guess wrong.
_SEEDING = re.compile(r"seed|reproduc|rng|random_state", re.IGNORECASE)
_EXITS = {"exit", "quit", "sys.exit", "os._exit"}


@dataclass
class _Event:
    flag: str  # benchmark | deterministic | algorithms
    value: bool | None  # None: not a literal
    node: ast.AST  # the statement (or call) that sets it
    stmt: ast.stmt
    scope: ast.AST | None  # enclosing function, None for module level

    @property
    def pos(self) -> tuple[int, int]:
        return self.node.lineno, self.node.col_offset


@lint_rule(
    code="TD301",
    name="cudnn-flags-conflict",
    title="cudnn.benchmark with cudnn.deterministic, or determinism without seeding",
    on=(ast.Module,),
    requires=(("cudnn", "deterministic"),),
    severity="warning",
    related=(),
    invalid=[
        """
import torch
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = True  # <-
""",
        """
import random
import torch.backends.cudnn as cudnn

def setup(args):
    random.seed(args.seed)
    cudnn.benchmark = True
    if args.seed is not None:
        cudnn.deterministic = True  # <-
""",
        """
import torch
from torch.backends import cudnn

def main():
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    for epoch in range(10):
        cudnn.benchmark = True  # <-
        train(epoch)

if __name__ == "__main__":
    main()
""",
        """
import argparse
import torch

def main():
    parser = argparse.ArgumentParser()
    args = parser.parse_args()
    torch.backends.cudnn.deterministic = True  # <-
    torch.backends.cudnn.benchmark = False
    train(args)

if __name__ == "__main__":
    main()
""",
        """
import torch
with torch.backends.cudnn.flags(enabled=True, benchmark=True, deterministic=True):  # <-
    y = model(x)
""",
    ],
    valid=[
        """
import torch
torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
""",
        """
import torch
if args.deterministic:
    torch.backends.cudnn.deterministic = True
else:
    torch.backends.cudnn.benchmark = True
""",
        """
import torch
torch.backends.cudnn.benchmark = not args.deterministic
torch.backends.cudnn.deterministic = args.deterministic
""",
        """
import torch
if args.deterministic:
    torch.backends.cudnn.deterministic = True
if not args.deterministic:
    torch.backends.cudnn.benchmark = True
""",
        """
import torch

def make_reproducible():
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

def make_fast():
    torch.backends.cudnn.benchmark = True
""",
        """
import torch
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False  # reset before anything runs
""",
        """
import sys
import torch

def configure(args):
    if args.deterministic:
        torch.backends.cudnn.deterministic = True
        return
    torch.backends.cudnn.benchmark = True
""",
        """
import torch
from utils import set_global_seed

if __name__ == "__main__":
    set_global_seed(1234)  # a project helper: seeding is delegated
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
""",
        """
import torch

def set_determinism():  # library code: whoever calls it seeds
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
""",
    ],
)
def cudnn_flags_conflict(node, module):
    """
    ## What it does
    Finds `torch.backends.cudnn.benchmark = True` set together with
    `torch.backends.cudnn.deterministic = True` or `torch.use_deterministic_algorithms(True)`
    on one path of the same function (or module body) and not undone later there, including
    `torch.backends.cudnn.flags(benchmark=True, deterministic=True)`. In a training script it
    also finds determinism switched on while nothing in the file seeds the random number
    generators (no `torch.manual_seed`, `random.seed`, `np.random.seed`, `seed_everything`,
    `set_seed`, and no other name mentioning a seed).

    Branches that exclude each other (`if`/`else`, a branch that returns) are understood, and
    values that are not literals (`cudnn.benchmark = not args.deterministic`) are left alone.
    Flags set in different functions, and seeding done in another file, are not followed yet.

    ## Why is this bad?
    Both flags together raise no error but contradict each other. With `benchmark` on, cuDNN
    times the candidate convolution algorithms on the first call of every input shape and keeps
    the fastest deterministic one; that choice can change from run to run ("benchmarking may
    select different algorithms on subsequent runs, even on the same machine", PyTorch's
    Reproducibility notes), so results still differ between runs — what `deterministic` was
    meant to prevent — and the benchmarking time is spent for nothing.

    Deterministic kernels without seeding do not make runs repeatable either: weights, dropout
    masks and the data order still start from a different random state each run.

    ## Example
    ```python
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = True
    ```
    Use instead:
    ```python
    torch.manual_seed(seed); random.seed(seed); np.random.seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    ```
    """
    events = _events(module)
    out: list[Violation] = []
    for call in _flags_calls(module):
        out.append(Violation(call, "cudnn.flags(benchmark=True, deterministic=True): benchmarking picks the "
                                   "fastest deterministic algorithm, which can differ between runs, so runs are not "
                                   "reproducible and the benchmarking time is wasted",
                             LintFix("Pass benchmark=False where determinism is wanted")))
    out.extend(_conflicts(module, events))
    if not out:
        out.extend(_unseeded(module, events))
    return out


# ------------------------------------------------------------------ events


def _events(module: SourceModule) -> list[_Event]:
    found: list[_Event] = []
    # From the node index, not a walk of the tree: only these four kinds can set a flag.
    for n in module.nodes(ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call):
        if isinstance(n, ast.Assign):
            pairs: list[tuple[ast.expr, ast.expr | None]] = []
            for t in n.targets:
                if isinstance(t, (ast.Tuple, ast.List)):
                    values = n.value.elts if isinstance(n.value, (ast.Tuple, ast.List)) and \
                        len(n.value.elts) == len(t.elts) else [None] * len(t.elts)
                    pairs.extend(zip(t.elts, values))
                else:
                    pairs.append((t, n.value))
            for target, value in pairs:
                flag = _FLAGS.get(module.qualname(target) or "") if isinstance(target, ast.Attribute) else None
                if flag:
                    found.append(_Event(flag, _literal_bool(value), n, n, module.enclosing_function(n)))
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Attribute):
            flag = _FLAGS.get(module.qualname(n.target) or "")
            if flag:
                value = _literal_bool(n.value) if isinstance(n, ast.AnnAssign) else None
                found.append(_Event(flag, value, n, n, module.enclosing_function(n)))
        elif isinstance(n, ast.Call) and module.call_name(n) == "torch.use_deterministic_algorithms":
            stmt = _statement(module, n)
            if stmt is not None:
                found.append(_Event("algorithms", _literal_bool(argument(n, "mode", 0)), n, stmt,
                                    module.enclosing_function(n)))
    found.sort(key=lambda e: e.pos)
    return found


def _literal_bool(node: ast.AST | None) -> bool | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


def _statement(module: SourceModule, node: ast.AST) -> ast.stmt | None:
    if isinstance(node, ast.stmt):
        return node
    for anc in module.ancestors(node):
        if isinstance(anc, ast.stmt):
            return anc
    return None


def _flags_calls(module: SourceModule) -> list[ast.Call]:
    out = []
    for n in module.nodes(ast.Call):
        if module.call_name(n) == "torch.backends.cudnn.flags":
            bench = keyword(n, "benchmark")
            det = keyword(n, "deterministic")
            if bench is not None and det is not None and _literal_bool(bench.value) is True \
                    and _literal_bool(det.value) is True:
                out.append(n)
    return out


# ------------------------------------------------------------------ benchmark + deterministic


def _conflicts(module: SourceModule, events: list[_Event]) -> list[Violation]:
    out: list[Violation] = []
    reported: set[int] = set()
    for i, first in enumerate(events):
        for second in events[i + 1:]:
            if first.value is not True or second.value is not True or first.scope is not second.scope:
                continue
            if "benchmark" not in (first.flag, second.flag) or first.flag == second.flag:
                continue
            if id(second.node) in reported:
                continue
            # Neither flag may be set again afterwards in this scope (a reset, or a value we cannot read).
            if any(e.scope is first.scope and e.flag == first.flag and e.pos > first.pos for e in events):
                continue
            if any(e.scope is second.scope and e.flag == second.flag and e.pos > second.pos for e in events):
                continue
            if not _same_path(module, first, second):
                continue
            reported.add(id(second.node))
            det = second if second.flag != "benchmark" else first
            bench = first if det is second else second
            out.append(Violation(second.node,
                                 f"{_SHOWN['benchmark']} (line {bench.pos[0]}) together with {_SHOWN[det.flag]} "
                                 f"(line {det.pos[0]}): benchmarking picks the fastest deterministic algorithm, which "
                                 "can differ between runs, so runs are not reproducible and the benchmarking time is "
                                 "wasted",
                                 LintFix("Set torch.backends.cudnn.benchmark = False where determinism is wanted "
                                         "(or drop the deterministic setting if speed is the goal)")))
    return out


def _chain(module: SourceModule, stmt: ast.stmt, scope: ast.AST | None) -> list[tuple[ast.AST, str, ast.stmt]]:
    """From the scope down to `stmt`: (compound statement or scope, field, statement in that field)."""
    chain: list[tuple[ast.AST, str, ast.stmt]] = []
    node: ast.AST = stmt
    stop = scope if scope is not None else module.tree
    while node is not stop:
        parent = module.parents.get(node)
        if parent is None:
            return []
        if isinstance(node, ast.stmt):
            fld = next((f for f, v in ast.iter_fields(parent) if isinstance(v, list) and any(x is node for x in v)), "")
            chain.append((parent, fld, node))
        elif isinstance(node, (ast.ExceptHandler, ast.match_case)):
            fld = "handlers" if isinstance(node, ast.ExceptHandler) else "cases"
            chain.append((parent, fld, node))  # type: ignore[arg-type]
        node = parent
    chain.reverse()
    return chain


_UNCONDITIONAL = {(ast.With, "body"), (ast.AsyncWith, "body"), (ast.Try, "body"), (ast.Try, "finalbody"),
                  (ast.Module, "body"), (ast.FunctionDef, "body"), (ast.AsyncFunctionDef, "body")}
if hasattr(ast, "TryStar"):
    _UNCONDITIONAL |= {(ast.TryStar, "body"), (ast.TryStar, "finalbody")}


def _unconditional(module: SourceModule, links: list[tuple[ast.AST, str, ast.stmt]]) -> bool:
    for owner, fld, _ in links:
        if (type(owner), fld) in _UNCONDITIONAL:
            continue
        if isinstance(owner, ast.If) and fld == "body" and _is_main_guard(owner.test):
            continue
        return False
    return True


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _guards_mention_flags(module: SourceModule, links: list[tuple[ast.AST, str, ast.stmt]]) -> bool:
    for owner, _, _ in links:
        test = getattr(owner, "test", None)
        if test is None:
            continue
        for n in ast.walk(test):
            if isinstance(n, (ast.Attribute, ast.Name)) and (module.qualname(n) or "") in _FLAGS:
                return True
            if isinstance(n, ast.Call) and (module.call_name(n) or "").endswith("are_deterministic_algorithms_enabled"):
                return True
    return False


def _escapes(module: SourceModule, stmt: ast.stmt) -> bool:
    for n in body_nodes([stmt]):
        if isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return True
        if isinstance(n, ast.Call):
            name = module.call_name(n) or (n.func.id if isinstance(n.func, ast.Name) else "")
            if name in _EXITS:
                return True
    return False


def _same_path(module: SourceModule, first: _Event, second: _Event) -> bool:
    """Whether some execution sets `first` and then `second` (and surely, when both are reached)."""
    if first.stmt is second.stmt:
        return True
    a = _chain(module, first.stmt, first.scope)
    b = _chain(module, second.stmt, second.scope)
    if not a or not b:
        return False
    k = 0
    while k < len(a) and k < len(b) and a[k][2] is b[k][2]:
        k += 1
    if k == len(a) or k == len(b):
        return False  # one statement contains the other (cannot happen for simple statements)
    if a[k][0] is not b[k][0] or a[k][1] != b[k][1]:
        return False  # different branches of one compound statement (if/else, try/except, match cases)
    rest_a, rest_b = a[k:], b[k:]
    if _guards_mention_flags(module, rest_a) or _guards_mention_flags(module, rest_b):
        return False
    a_plain, b_plain = _unconditional(module, rest_a), _unconditional(module, rest_b)
    if not (a_plain or b_plain):
        return False  # both conditional: the conditions may exclude each other
    if not a_plain and _escapes(module, rest_a[0][2]):
        return False  # the branch that sets the first flag may leave before the second is set
    if _escapes_between(module, rest_a[0][2], rest_b[0][2]):
        return False
    return True


def _escapes_between(module: SourceModule, first_top: ast.stmt, second_top: ast.stmt) -> bool:
    """A sibling statement between the two that may leave the block (return inside an if...)."""
    parent = module.parents.get(first_top)
    for fld, value in ast.iter_fields(parent) if parent is not None else ():
        if isinstance(value, list) and any(x is first_top for x in value):
            i = next(j for j, x in enumerate(value) if x is first_top)
            j = next((j for j, x in enumerate(value) if x is second_top), None)
            if j is None:
                return True
            return any(_escapes(module, s) for s in value[i + 1:j])
    return True


# ------------------------------------------------------------------ determinism without seeding


def _unseeded(module: SourceModule, events: list[_Event]) -> list[Violation]:
    if not module.is_script:
        return []
    first = next((e for e in events if e.flag in ("deterministic", "algorithms") and e.value is True), None)
    if first is None:
        return []
    if _SEEDING.search(module.text):
        return []
    what = _SHOWN[first.flag]
    return [Violation(first.node,
                      f"{what} but nothing in this file seeds the random number generators (no torch.manual_seed, "
                      "random.seed, np.random.seed or seed_everything): weights, dropout and the data order still "
                      "differ between runs, so the runs are not reproducible",
                      LintFix("Seed every generator before building the model and the loaders: "
                              "torch.manual_seed(seed), random.seed(seed), np.random.seed(seed) "
                              "(or lightning's seed_everything(seed))"))]
