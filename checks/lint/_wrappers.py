"""Shared by TD105, TD108, TD111, TD112, TD202, TD203: the model wrappers (DataParallel,
DistributedDataParallel, torch.compile) and a light reaching-definition lookup ("which
assignment gave `model` the value it has here?").

Reaching definitions live in the shared value-flow engine (torchdoctor.lint.flow) and are
re-exported here for the rules that import them from this module. They are deliberately simple
(lint-anchors §4.0): the last assignment to the same dotted name earlier in the same scope,
ignoring assignments in a branch that excludes the use (`if`/`else`, different `except`
handlers or `match` cases). A definition "dominates" the use when it sits in the same statement
list as one of the use's enclosing statements, i.e. it runs on every path to the use; otherwise
the value is only "maybe" the one we found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchdoctor.lint.module import SourceModule, body_nodes, cached, scope_body, scope_of  # noqa: F401 - re-exported
from torchdoctor.lint.flow import (  # noqa: F401 - re-exported: the shared value-flow engine
    Definition, bindings, class_bindings, complementary, dominates, exclusive, reaching, statement_of,
)

DATA_PARALLEL = frozenset({
    "torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel",
})
DISTRIBUTED_DATA_PARALLEL = frozenset({
    "torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
    "torch.nn.DistributedDataParallel", "apex.parallel.DistributedDataParallel",
})
COMPILE = frozenset({"torch.compile"})

# Module methods that return the module itself: `DDP(model).cuda()` is still the wrapper.
_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "half", "double", "bfloat16",
                           "requires_grad_", "share_memory", "type", "xpu", "mps", "to_empty"})
_SCOPE_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def call_name_if(module: SourceModule, call: ast.Call, last: frozenset[str] | set[str]) -> str | None:
    """The call's qualified name, computed only when it can matter: `x.attr(...)` with attr in
    `last`, or a bare name (which an import alias may have renamed)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr not in last:
        return None
    return module.call_name(call)


def wrapper_kind(module: SourceModule, call: ast.AST) -> str | None:
    """"DataParallel", "DistributedDataParallel", "torch.compile" for a call of one; else None."""
    if not isinstance(call, ast.Call):
        return None
    name = module.call_name(call)
    if name in DATA_PARALLEL:
        return "DataParallel"
    if name in DISTRIBUTED_DATA_PARALLEL:
        return "DistributedDataParallel"
    if name in COMPILE:
        return "torch.compile"
    return None


def prefix_of(kind: str) -> str:
    return "_orig_mod." if kind == "torch.compile" else "module."


def unchain(expr: ast.AST) -> ast.AST:
    """`DDP(m).cuda().train()` -> `DDP(m)`: strip calls of module methods that return self."""
    while (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
           and expr.func.attr in _RETURNS_SELF):
        expr = expr.func.value
    return expr




def top_level_classes(module: SourceModule) -> dict[str, ast.ClassDef]:
    """Classes defined at module level (cheaper than a walk of the whole tree)."""
    return cached(module, "top_level_classes",
                  lambda: {n.name: n for n in module.tree.body if isinstance(n, ast.ClassDef)})


# ------------------------------------------------------------------ wrapped models

@dataclass(frozen=True)
class Wrapped:
    kind: str  # DataParallel / DistributedDataParallel / torch.compile
    call: ast.Call  # the wrapper call
    certain: bool  # the wrapping runs on every path to the use
    via: str = "local"  # local (same scope), class (self.x assigned in a method), outer (enclosing scope)

    @property
    def origin(self) -> str:
        """'made at line 12' / '..., when that branch runs' / 'assigned to self.x in __init__'."""
        where = f"made at line {self.call.lineno}"
        if self.via == "class":
            return f"{where} (the class only ever assigns wrappers to it)"
        if self.via == "outer":
            return f"{where} in an enclosing scope"
        return where if self.certain else f"{where}, when that branch runs"


def wrapped(module: SourceModule, expr: ast.AST, depth: int = 0) -> Wrapped | None:
    """Is `expr` (a call, or a name through its reaching definition) a wrapped model?"""
    if depth > 4 or expr is None:
        return None
    expr = unchain(expr)
    kind = wrapper_kind(module, expr)
    if kind:
        return Wrapped(kind, expr, True)  # type: ignore[arg-type]
    if isinstance(expr, ast.IfExp):
        if any(_unwraps(b) for b in (expr.body, expr.orelse)):
            return None  # `model.module if hasattr(model, "module") else model`: the unwrapping idiom
        for branch in (expr.body, expr.orelse):
            w = wrapped(module, branch, depth + 1)
            if w:
                return Wrapped(w.kind, w.call, False, w.via)
        return None
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    dotted = module.dotted(expr)
    if not dotted:
        return None
    d = reaching(module, expr, dotted)
    if d is not None:
        if d.value is None:
            return None
        w = wrapped(module, d.value, depth + 1)
        if w is None:
            return None
        via = w.via if d.local else "outer"
        return Wrapped(w.kind, w.call, w.certain and d.certain and d.local, via)
    defs = class_bindings(module, expr, dotted)
    if not defs:
        return None
    kinds = [wrapped(module, v, depth + 1) if v is not None else None for _, _, v in defs]
    if all(k is not None for k in kinds) and len({k.kind for k in kinds if k}) == 1:
        first = kinds[0]
        assert first is not None
        return Wrapped(first.kind, first.call, False, "class")
    return None


def _unwraps(expr: ast.AST) -> bool:
    """`x.module`, `x._orig_mod`, `unwrap_model(x)`, `de_parallel(x)`: the network inside a wrapper."""
    if isinstance(expr, ast.Attribute) and expr.attr in ("module", "_orig_mod"):
        return True
    if isinstance(expr, ast.Call):
        f = expr.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return "unwrap" in name or name in ("de_parallel", "get_model", "extract_model_from_parallel")
    return False


def wrapper_calls(module: SourceModule) -> list[tuple[str, ast.Call]]:
    """Every DP/DDP/torch.compile call in the file."""
    def compute() -> list[tuple[str, ast.Call]]:
        out = []
        for node in ast.walk(module.tree):
            kind = wrapper_kind(module, node) if isinstance(node, ast.Call) else None
            if kind:
                out.append((kind, node))
        return out
    return cached(module, "wrapper_calls", compute)


_PREFIX_STRINGS = ("module.", "module", "_orig_mod.", "_orig_mod")


def strips_prefix(module: SourceModule) -> bool:
    """The file already deals with wrapper prefixes: a `"module."` literal (`k.replace("module.",
    "")`, `k[len("module."):]`), `consume_prefix_in_state_dict_if_present`, `_orig_mod`."""
    def compute() -> bool:
        if "consume_prefix_in_state_dict_if_present" in module.text or "_orig_mod" in module.text:
            return True
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in _PREFIX_STRINGS:
                return True
        return False
    return cached(module, "strips_prefix", compute)
