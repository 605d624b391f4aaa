"""Shared by TD105, TD108, TD111, TD112, TD202, TD203: the model wrappers (DataParallel,
DistributedDataParallel, torch.compile) and a light reaching-definition lookup ("which
assignment gave `model` the value it has here?").

Reaching definitions are deliberately simple (lint-anchors §4.0): the last assignment to the
same dotted name earlier in the same scope, ignoring assignments in a branch that excludes the
use (`if`/`else`, different `except` handlers or `match` cases). A definition "dominates" the
use when it sits in the same statement list as one of the use's enclosing statements, i.e. it
runs on every path to the use; otherwise the value is only "maybe" the one we found.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchdoctor.lint.module import SourceModule, body_nodes, cached, scope_body, scope_of  # noqa: F401 - re-exported

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


# ------------------------------------------------------------------ scopes and statements





def statement_of(module: SourceModule, node: ast.AST) -> ast.AST:
    cur = node
    while not isinstance(cur, ast.stmt):
        parent = module.parents.get(cur)
        if parent is None:
            return cur
        cur = parent
    return cur


def _container(module: SourceModule, stmt: ast.AST) -> tuple[ast.AST | None, str | None, int]:
    """The node, field and index of the statement list that holds `stmt`."""
    parent = module.parents.get(stmt)
    if parent is None:
        return None, None, -1
    for fname, value in ast.iter_fields(parent):
        if isinstance(value, list) and stmt in value:
            return parent, fname, value.index(stmt)
    return parent, None, -1


def dominates(module: SourceModule, definition: ast.AST, use: ast.AST) -> bool:
    """True when the statement holding `definition` runs on every path to `use` (same statement
    list as one of the use's enclosing statements, earlier in it)."""
    stmt = statement_of(module, definition)
    parent, fname, index = _container(module, stmt)
    if parent is None or fname is None:
        return False
    siblings = getattr(parent, fname)
    for a in [use, *module.ancestors(use)]:
        if a is parent:
            return False
        if module.parents.get(a) is parent and a in siblings:
            return siblings.index(a) > index
    return False


def exclusive(module: SourceModule, a: ast.AST, b: ast.AST) -> bool:
    """a and b sit in branches of one statement that never both run (if/else, match cases,
    different except handlers, an except handler and the try's else)."""
    chain_a = [a, *module.ancestors(a)]
    index_b = {id(x): j for j, x in enumerate([b, *module.ancestors(b)])}
    chain_b = [b, *module.ancestors(b)]
    for i, anc in enumerate(chain_a):
        j = index_b.get(id(anc))
        if j is not None:
            if i == 0 or j == 0:
                return False
            return _branches_exclusive(anc, chain_a[i - 1], chain_b[j - 1])
    return False


def _guards(module: SourceModule, node: ast.AST) -> set[tuple[str, bool]]:
    """The `if` tests around `node` (same function) as (dumped test without `not`, whether it
    holds there): `if not d: ... else: <node>` gives (dump(d), True)."""
    out = set()
    child = node
    for a in module.ancestors(node):
        if isinstance(a, ast.If) and child is not a.test:
            test, holds = a.test, child in a.body
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, holds = test.operand, not holds
            out.add((ast.dump(test), holds))
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
        child = a
    return out


def complementary(module: SourceModule, a: ast.AST, b: ast.AST) -> bool:
    """a runs only where some `if` test holds and b only where it does not, in separate
    statements: `if args.distributed: model = DDP(model)` ... `if not args.distributed: export(model)`."""
    ga = _guards(module, a)
    if not ga:
        return False
    return any((test, not holds) in ga for test, holds in _guards(module, b))


def _field_of(parent: ast.AST, child: ast.AST) -> str | None:
    for fname, value in ast.iter_fields(parent):
        if value is child or (isinstance(value, list) and child in value):
            return fname
    return None


def _branches_exclusive(parent: ast.AST, ca: ast.AST, cb: ast.AST) -> bool:
    if ca is cb:
        return False
    fa, fb = _field_of(parent, ca), _field_of(parent, cb)
    if isinstance(parent, (ast.If, ast.IfExp)):
        return {fa, fb} == {"body", "orelse"}
    if isinstance(parent, ast.Try) or type(parent).__name__ == "TryStar":
        if fa == fb == "handlers":
            return True
        return {fa, fb} == {"handlers", "orelse"}
    if type(parent).__name__ == "Match":
        return fa == fb == "cases"
    return False


# ------------------------------------------------------------------ reaching definitions

@dataclass(frozen=True)
class Definition:
    node: ast.AST  # the assignment (or for/with/parameter) that binds the name
    target: ast.AST  # the bound name's node
    value: ast.AST | None  # the value bound to exactly this name; None: unknown (unpacking, loop target, parameter)
    certain: bool  # runs on every path to the use (in the same scope)
    local: bool  # found in the use's own scope


def _targets(node: ast.AST) -> list[tuple[ast.AST, ast.AST | None]]:
    """(target node, the value it gets or None) for one binding statement/expression."""
    out: list[tuple[ast.AST, ast.AST | None]] = []

    def unpack(t: ast.AST, value: ast.AST | None) -> None:
        if isinstance(t, (ast.Tuple, ast.List)):
            vals = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(t.elts) else None
            for i, e in enumerate(t.elts):
                unpack(e.value if isinstance(e, ast.Starred) else e, vals[i] if vals else None)
        else:
            out.append((t, value))

    if isinstance(node, ast.Assign):
        for t in node.targets:
            unpack(t, node.value)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        out.append((node.target, node.value))
    elif isinstance(node, ast.AugAssign):
        out.append((node.target, None))
    elif isinstance(node, ast.NamedExpr):
        out.append((node.target, node.value))
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        unpack(node.target, None)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                unpack(item.optional_vars, None)
    return out


def _written(module: SourceModule, t: ast.AST) -> str | None:
    return module.dotted(t) if isinstance(t, (ast.Name, ast.Attribute)) else None


def bindings(module: SourceModule, scope: ast.AST, dotted: str) -> list[tuple[ast.AST, ast.AST, ast.AST | None]]:
    """Every (statement, target, value) in `scope` (not nested scopes) that binds `dotted`."""
    table = cached(module, f"bindings:{id(scope)}", lambda: _binding_table(module, scope))
    return table.get(dotted, [])


def _binding_table(module: SourceModule, scope: ast.AST) -> dict[str, list[tuple[ast.AST, ast.AST, ast.AST | None]]]:
    table: dict[str, list[tuple[ast.AST, ast.AST, ast.AST | None]]] = {}
    if isinstance(scope, _SCOPE_TYPES):
        args = scope.args
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                table.setdefault(a.arg, []).append((scope, a, None))
    for node in body_nodes(scope_body(scope)):
        for t, value in _targets(node):
            name = _written(module, t)
            if name:
                table.setdefault(name, []).append((node, t, value))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            table.setdefault(node.name, []).append((node, node, None))
    return table


def _pos(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _inside(module: SourceModule, node: ast.AST, container: ast.AST | None) -> bool:
    if container is None:
        return False
    return node is container or any(a is container for a in module.ancestors(node))


def reaching(module: SourceModule, use: ast.AST, dotted: str | None = None) -> Definition | None:
    """The definition of `dotted` (default: the written name of `use`) that reaches `use`.

    Same scope: the last binding before the use that is not in an exclusive branch. A bare
    name that is not bound in its scope: the last binding in the enclosing scopes (module last).
    `self.attr` not bound earlier in the method: every binding in the class's methods, reported
    only when they all give the same kind of value (see `class_bindings`)."""
    dotted = dotted or module.dotted(use)
    if not dotted:
        return None
    scope = scope_of(module, use)
    use_pos = _pos(use)
    found = []
    for stmt, target, value in bindings(module, scope, dotted):
        if isinstance(stmt, _SCOPE_TYPES) and stmt is scope:  # a parameter
            found.append((stmt, target, value))
            continue
        if _pos(target) >= use_pos or _inside(module, use, value):
            continue
        if exclusive(module, target, use) or complementary(module, target, use):
            continue
        found.append((stmt, target, value))
    if found:
        stmt, target, value = max(found, key=lambda d: (0, 0) if d[0] is scope else _pos(d[1]))
        certain = stmt is scope or dominates(module, stmt, use)
        return Definition(stmt, target, value, certain, True)
    head = dotted.split(".")[0]
    if "." in dotted:
        return None  # attributes: see class_bindings
    if bindings(module, scope, head):
        return None  # bound in this scope, but only later: no reaching definition
    outer = scope
    while outer is not module.tree:
        outer = scope_of(module, outer)
        defs = bindings(module, outer, dotted)
        if defs:
            stmt, target, value = max(defs, key=lambda d: _pos(d[1]))
            return Definition(stmt, target, value, False, False)
    return None


def class_bindings(module: SourceModule, use: ast.AST, dotted: str) -> list[tuple[ast.AST, ast.AST, ast.AST | None]]:
    """`self.x` used in a method: every `self.x = ...` in the methods of the enclosing class."""
    if not dotted.startswith("self."):
        return []
    cls = next((a for a in module.ancestors(use) if isinstance(a, ast.ClassDef)), None)
    if cls is None:
        return []
    out = []
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.extend(bindings(module, item, dotted))
    return out


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
