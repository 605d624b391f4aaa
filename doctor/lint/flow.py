"""The value-flow engine every lint rule shares: "where does this value come from, where does it go".

One engine, built lazily per file (`module.flow`, only when a rule asks) and shared by all rules,
in the spirit of Pysa/Semgrep's dataflow (lint-anchors): rules ask questions, the engine owns the
facts. It answers

* reaching definitions: the assignment that gave a name (or `self.x`) its value at a use, with
  tuple unpacking, branches that exclude each other, and `self.x` across the class's methods;
* origins: the expressions a value may come from, followed through names, `x if c else y`,
  `a or b`, calls of the file's own functions (their `return`s, one element of a returned tuple),
  parameters (the arguments at every call site), `self.x`, and iteration wrappers (`tqdm`,
  `enumerate`, `zip`, `iter`, `itertools.cycle`, a generator that yields from its argument);
* across the files of a run: a function imported from another file of the project is resolved
  in that file (parsed once, lazily), and a helper's callers are found in the files importing it.

Deliberately light (lint-anchors §4.0): flow-insensitive beyond "last binding before the use",
bounded in depth, never executing anything. Where it cannot tell, it says so (None / no origin)
and the rule stays quiet or lowers its claim.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Iterator

from .module import SourceModule, body_nodes, cached, final_identifier, scope_body, scope_of

_BUILTIN_NAMES = frozenset(dir(builtins))
_SCOPE_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


# ------------------------------------------------------------------ reaching definitions

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
    if isinstance(node, ast.Assign):
        for t in node.targets:
            _unpack(t, node.value, out)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        out.append((node.target, node.value))
    elif isinstance(node, ast.AugAssign):
        out.append((node.target, None))
    elif isinstance(node, ast.NamedExpr):
        out.append((node.target, node.value))
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        _unpack(node.target, None, out)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        for item in node.items:
            if item.optional_vars is not None:
                _unpack(item.optional_vars, None, out)
    return out


def _unpack(t: ast.AST, value: ast.AST | None, out: list[tuple[ast.AST, ast.AST | None]]) -> None:
    # A module-level function, not a closure: a recursive closure refers to itself through its
    # cell, and each call would leave a reference cycle for the garbage collector.
    if isinstance(t, (ast.Tuple, ast.List)):
        vals = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(t.elts) else None
        for i, e in enumerate(t.elts):
            _unpack(e.value if isinstance(e, ast.Starred) else e, vals[i] if vals else None, out)
    else:
        out.append((t, value))


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


def reaching_all(module: SourceModule, use: ast.AST, dotted: str | None = None) -> list[Definition]:
    """Like `reaching`, but every definition that may reach the use: the last one, and the
    earlier ones in branches that exclude it (`if d: s = A(...) else: s = B(...)` gives both)."""
    first = reaching(module, use, dotted)
    if first is None or not first.local or isinstance(first.node, _SCOPE_TYPES):
        return [first] if first is not None else []
    dotted = dotted or module.dotted(use)
    scope = scope_of(module, use)
    use_pos = _pos(use)
    out = [first]
    for stmt, target, value in bindings(module, scope, dotted):  # type: ignore[arg-type]
        if target is first.target or isinstance(stmt, _SCOPE_TYPES) or _pos(target) >= use_pos:
            continue
        if exclusive(module, target, use) or complementary(module, target, use):
            continue
        if exclusive(module, target, first.target):
            out.append(Definition(stmt, target, value, False, True))
    return out


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



# ------------------------------------------------------------------ reaching values (straight-line)


def _binds(target: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target))


_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr,
                      ast.Import, ast.ImportFrom, ast.ExceptHandler})


def _scope_index(body: list[ast.stmt]) -> dict[str, list[tuple[tuple[int, int], ast.expr | None]]]:
    """Every binding directly in this scope, by name: (position after which it holds, the bound
    value or None when unknown)."""
    out: dict[str, list[tuple[tuple[int, int], ast.expr | None]]] = {}

    def add(name: str, pos: tuple[int, int], value: ast.expr | None) -> None:
        out.setdefault(name, []).append((pos, value))

    def stored(target: ast.AST) -> list[str]:
        if type(target) is ast.Name:  # the common case, without a walk
            return [target.id] if type(target.ctx) is ast.Store else []
        return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]

    for node in body_nodes(body):
        if type(node) not in _BINDERS:
            continue  # most nodes bind nothing: skip them before reading their positions
        end = (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    add(t.id, end, node.value)
                else:
                    for name in stored(t):
                        add(name, end, None)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for name in stored(node.target):
                add(name, end, node.value if isinstance(node.target, ast.Name) else None)
        elif isinstance(node, ast.AugAssign):
            for name in stored(node.target):
                add(name, end, None)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            tpos = (node.target.end_lineno or 0, node.target.end_col_offset or 0)
            for name in stored(node.target):
                add(name, tpos, None)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            v = node.optional_vars
            for name in stored(v):
                add(name, (v.end_lineno or 0, v.end_col_offset or 0), None)
        elif isinstance(node, ast.NamedExpr):
            add(node.target.id, end, node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                add(a.asname or a.name.split(".")[0], end, None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name, (node.lineno, node.col_offset), None)
    return out


def _scope_bindings(module: SourceModule, scope: ast.AST | None,
                    name: str) -> list[tuple[tuple[int, int], ast.expr | None]]:
    index = cached(module, "scope_index", dict)
    key = id(scope) if scope is not None else 0
    if key not in index:
        index[key] = _scope_index(scope.body if scope is not None else module.tree.body)  # type: ignore[union-attr]
    return index[key].get(name, [])


def reaching_value(module: SourceModule, use: ast.Name) -> ast.expr | None:
    """The expression last assigned to `use.id` before this use in the same scope (straight-line:
    the positionally last binding wins); a module-level name read inside a function resolves
    when the module binds it exactly once. None when unknown (a parameter, a loop variable, a
    tuple unpacking, no binding)."""
    name = use.id
    pos = (use.lineno, use.col_offset)
    for anc in module.ancestors(use):  # comprehension variables shadow everything
        if isinstance(anc, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if any(_binds(g.target, name) for g in anc.generators):
                return None
        if isinstance(anc, ast.Lambda):
            return None
    func = module.enclosing_function(use)
    if func is not None:
        params = func.args
        all_params = [*params.posonlyargs, *params.args, *params.kwonlyargs,
                      *([params.vararg] if params.vararg else []), *([params.kwarg] if params.kwarg else [])]
        if any(p.arg == name for p in all_params):
            local = [b for b in _scope_bindings(module, func, name) if b[0] <= pos]
            return max(local, key=lambda b: b[0])[1] if local else None
    local = _scope_bindings(module, func, name)
    before = [b for b in local if b[0] <= pos]
    if before:
        return max(before, key=lambda b: b[0])[1]
    if func is not None and not local:
        glob = _scope_bindings(module, None, name)
        if len(glob) == 1:
            return glob[0][1]
    return None


def parameter_annotation(module: SourceModule, use: ast.Name) -> ast.expr | None:
    func = module.enclosing_function(use)
    if func is None:
        return None
    params = func.args
    for p in [*params.posonlyargs, *params.args, *params.kwonlyargs]:
        if p.arg == use.id:
            if any(b[0] <= (use.lineno, use.col_offset) for b in _scope_bindings(module, func, use.id)):
                return None
            return p.annotation
    return None


def self_attribute_values(module: SourceModule, node: ast.Attribute) -> list[ast.expr] | None:
    """For `self.x` inside a method: every value assigned to `self.x` in the class's methods
    (None when one of them is not a plain assignment, or there is none)."""
    if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
        return None
    cls = next((a for a in module.ancestors(node) if isinstance(a, ast.ClassDef)), None)
    if cls is None:
        return None
    return _self_attribute_table(module, cls).get(node.attr) or None


def _self_attribute_table(module: SourceModule, cls: ast.ClassDef) -> dict[str, list[ast.expr] | None]:
    """attr -> the values assigned to `self.attr` in the class (None once one assignment is not
    plain), built in one walk per class: model files ask about self.x(...) hundreds of times."""
    def compute() -> dict[str, list[ast.expr] | None]:
        table: dict[str, list[ast.expr] | None] = {}
        for n in ast.walk(cls):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(n, ast.Assign):
                targets, value = n.targets, n.value
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)):
                targets, value = [n.target], (n.value if isinstance(n, ast.AnnAssign) else None)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                targets = [n.target]
            for t in targets:
                for sub in ast.walk(t):
                    if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                            and sub.value.id == "self" and isinstance(sub.ctx, ast.Store)):
                        if sub is not t or value is None:
                            table[sub.attr] = None
                        elif table.get(sub.attr, []) is not None:
                            table.setdefault(sub.attr, []).append(value)  # type: ignore[union-attr]
        return table
    return module.memo(f"self_attributes:{id(cls)}", compute)



# ------------------------------------------------------------------ origins (the engine rules ask)

# Calls that hand back (an iterator over) their first argument: `for i, b in enumerate(tqdm(loader))`
# iterates the loader. zip/chain hand back every argument.
ITERATION_WRAPPERS = frozenset({"tqdm", "enumerate", "iter", "cycle", "islice", "reversed", "Prefetcher",
                                "DataPrefetcher", "data_prefetcher", "CudaPrefetcher", "prefetcher",
                                "BackgroundGenerator", "log_every", "track"})
ALL_ARGUMENT_WRAPPERS = frozenset({"zip", "chain"})
MAX_DEPTH = 6
# Expressions one question may look at. Parameters fan out to every call site and constructor
# arguments to every construction, so a deep class hierarchy (a model zoo) could otherwise make
# one question cost seconds; past the budget the rest is "unknown".
MAX_STEPS = 1000
_ACTIVE: set[tuple[int, int]] = set()  # questions being answered (a guard against cycles)
_SETTINGS = {"across_files": True, "steps_left": MAX_STEPS}  # of the question being answered


@dataclass(frozen=True)
class Origin:
    """An expression a value may come from, and the file it is written in."""
    module: SourceModule
    node: ast.AST

    def is_(self, module: SourceModule, node: ast.AST) -> bool:
        """The same expression as `node` of `module` (another parse of the same file counts: the
        project parses files lazily on its own)."""
        if self.node is node:
            return True
        return (type(self.node) is type(node) and self.module.path == module.path
                and getattr(self.node, "lineno", -1) == getattr(node, "lineno", -2)
                and getattr(self.node, "col_offset", -1) == getattr(node, "col_offset", -2)
                and getattr(self.node, "end_col_offset", -1) == getattr(node, "end_col_offset", -2))


def _params(fn: ast.AST) -> list[str]:
    a = fn.args  # type: ignore[attr-defined]
    return [p.arg for p in [*a.posonlyargs, *a.args]]


class ValueFlow:
    """The flow facts of one file. Get it with `module.flow`; it asks the project for other files."""

    def __init__(self, module: SourceModule) -> None:
        self.module = module
        self._call_sites: dict[str, list[tuple[SourceModule, ast.Call]]] | None = None

    # -------------------------------------------------------------- functions and their callers
    def resolve_function(self, call: ast.Call) -> tuple[SourceModule, ast.AST] | None:
        """The function a call runs, in this file or another file of the project; None when unknown."""
        m = self.module
        func = call.func
        if isinstance(func, ast.Name):
            defs = m.functions.get(func.id)
            if defs:
                top = [d for d in defs if m.parents.get(d) is m.tree]
                return m, (top or defs)[-1]
            imported = self._imported_function(func.id)
            if imported is not None:
                return imported
            return None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in ("self", "cls"):
                cls = next((a for a in m.ancestors(call) if isinstance(a, ast.ClassDef)), None)
                if cls is not None:
                    for item in cls.body:
                        if isinstance(item, _FUNCS) and item.name == func.attr:
                            return m, item
                return None
            other = self._imported_module(func.value.id)
            if other is not None:
                defs = [d for d in other.functions.get(func.attr, ()) if other.parents.get(d) is other.tree]
                if defs:
                    return other, defs[-1]
        return None

    def _imported_function(self, name: str) -> tuple[SourceModule, ast.AST] | None:
        m = self.module
        for node in m.nodes(ast.ImportFrom):
            for a in node.names:
                if (a.asname or a.name) == name:
                    other = m.project.import_target(m.path, node.module or "", node.level)
                    if other is None:
                        return None
                    defs = [d for d in other.functions.get(a.name, ()) if other.parents.get(d) is other.tree]
                    return (other, defs[-1]) if defs else None
        return None

    def _imported_module(self, name: str) -> SourceModule | None:
        m = self.module
        for node in m.nodes(ast.Import):
            for a in node.names:
                if (a.asname or a.name.split(".")[0]) == name and (a.asname or "." not in a.name):
                    return m.project.import_target(m.path, a.name, 0)
        for node in m.nodes(ast.ImportFrom):
            for a in node.names:
                if (a.asname or a.name) == name:
                    dotted = f"{node.module}.{a.name}" if node.module else a.name
                    return m.project.import_target(m.path, dotted, node.level)
        return None

    def call_sites(self, fn: ast.AST, mentioning: tuple[str, ...] = ()) -> list[tuple[SourceModule, ast.Call]]:
        """Every call of `fn` (a function of this file): in this file by name (`f(...)`,
        `self.f(...)`), and in the project's files that import it. `mentioning`: only other files
        whose text contains one of these words matter to the asker (they are not even parsed)."""
        name = fn.name  # type: ignore[attr-defined]
        out: list[tuple[SourceModule, ast.Call]] = []
        m = self.module
        owner = m.parents.get(fn)
        if name == "__init__" and isinstance(owner, ast.ClassDef):
            return self._constructions(owner)
        for call in m.nodes(ast.Call):
            if final_identifier(call) == name and call is not fn:
                resolved = self.resolve_function(call)
                if resolved is not None and resolved[1] is fn:
                    out.append((m, call))
        if m.parents.get(fn) is m.tree and _SETTINGS["across_files"]:
            for other in m.project.importers(m.path, name, mentioning):
                flow = other.flow
                for call in other.nodes(ast.Call):
                    if final_identifier(call) == name:
                        resolved = flow.resolve_function(call)
                        if resolved is not None and Origin(resolved[0], resolved[1]).is_(m, fn):
                            out.append((other, call))
        return out

    def arguments_for(self, fn: ast.AST, param: str, mentioning: tuple[str, ...] = ()
                      ) -> list[tuple[SourceModule, ast.expr]] | None:
        """What the calls of `fn` (a function of this file) pass for its parameter `param`: one
        (file, expression) per call site, the parameter's default where a call leaves it out.
        Empty when no call is known; None when some call passes it in a way that cannot be read
        (`*args`, `**kwargs`), so that no claim about every caller can be made."""
        out: list[tuple[SourceModule, ast.expr]] = []
        default = _default_for(fn, param)
        for cm, call in self.call_sites(fn, mentioning):
            a = _argument_for(fn, call, param)
            if a is None:
                if any(isinstance(x, ast.Starred) for x in call.args) or any(k.arg is None for k in call.keywords):
                    return None
                if default is None:
                    return None
                out.append((self.module, default))
                continue
            out.append((cm, a))
        return out

    def _constructions(self, cls: ast.ClassDef) -> list[tuple[SourceModule, ast.Call]]:
        """Calls that build an instance of `cls`: `Cls(...)`, `mod.Cls(...)`, or through a name
        that holds the class (`dataset_cls = Lazy if lazy else Eager; dataset_cls(data)`)."""
        m = self.module
        out: list[tuple[SourceModule, ast.Call]] = []
        modules = [m]
        if m.parents.get(cls) is m.tree and _SETTINGS["across_files"]:
            modules += m.project.importers(m.path, cls.name)
        for cm in modules:
            if cls.name not in cm.text:
                continue
            for call in cm.nodes(ast.Call):
                func = call.func
                if isinstance(func, ast.Attribute) and func.attr == cls.name:
                    out.append((cm, call))
                elif isinstance(func, ast.Name):
                    if func.id == cls.name:
                        out.append((cm, call))
                    elif func.id in _BUILTIN_NAMES or func.id in cm.functions or func.id in cm.aliases:
                        continue  # `print(...)`, a function of the file, an import: not a class in a variable
                    elif any((isinstance(o.node, ast.Name) and o.node.id == cls.name)
                             or (isinstance(o.node, ast.ClassDef) and o.node.name == cls.name)
                             for o in cm.flow.origins(func)):
                        out.append((cm, call))
        return out

    # -------------------------------------------------------------- origins
    def origins(self, expr: ast.AST, depth: int = 0, across_files: bool | None = None) -> list[Origin]:
        """The expressions `expr` may evaluate to, followed as far as the file (and project) say.
        A question asked again while it is being answered (recursion through parameters and
        callers) answers "unknown": the expression itself. `across_files=False` (asked by hot,
        per-call rules) still resolves imported functions but does not search the project for
        callers, which means parsing the files that import this one."""
        key = (id(self.module), id(expr))
        if key in _ACTIVE or len(_ACTIVE) > 24:
            return [Origin(self.module, expr)]
        if not _ACTIVE:
            _SETTINGS["across_files"] = True if across_files is None else across_files
            _SETTINGS["steps_left"] = MAX_STEPS
        _ACTIVE.add(key)
        try:
            out: list[Origin] = []
            self._origins(expr, depth, out, set())
            return out
        finally:
            _ACTIVE.discard(key)
            if not _ACTIVE:  # the setting belongs to this question: a later call_sites() asked
                _SETTINGS["across_files"] = True  # directly must search the project again

    def _origins(self, expr: ast.AST | None, depth: int, out: list[Origin], seen: set[int]) -> None:
        if expr is None:
            return
        _SETTINGS["steps_left"] -= 1
        if depth > MAX_DEPTH or id(expr) in seen or _SETTINGS["steps_left"] < 0:
            out.append(Origin(self.module, expr))  # unknown: the rule asking stays quiet
            return
        seen.add(id(expr))
        m = self.module
        if isinstance(expr, ast.IfExp):
            self._origins(expr.body, depth + 1, out, seen)
            self._origins(expr.orelse, depth + 1, out, seen)
            return
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
            for v in expr.values:
                self._origins(v, depth + 1, out, seen)
            return
        if isinstance(expr, ast.NamedExpr):
            self._origins(expr.value, depth + 1, out, seen)
            return
        if isinstance(expr, ast.Call):
            name = final_identifier(expr)
            if name in ITERATION_WRAPPERS and expr.args:
                self._origins(expr.args[0], depth + 1, out, seen)
                return
            if name in ALL_ARGUMENT_WRAPPERS and expr.args:
                for a in expr.args:
                    self._origins(a, depth + 1, out, seen)
                return
            resolved = self.resolve_function(expr)
            if resolved is not None:
                other, fn = resolved
                returns = live_returns(other, fn, expr)
                if returns:
                    for r in returns:
                        out.extend(other.flow.origins(r, depth + 1))
                    return
                if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in body_nodes(fn.body)):  # type: ignore[attr-defined]
                    # a generator around its argument: `def cycle(dl): while True: for b in dl: yield b`
                    for n in body_nodes(fn.body):  # type: ignore[attr-defined]
                        if isinstance(n, (ast.For, ast.AsyncFor)):
                            inner = other.flow.origins(n.iter, depth + 1)
                            if any(isinstance(o.node, ast.Name) or isinstance(o.node, ast.Call) for o in inner):
                                out.extend(_map_params(other, fn, inner, expr, m, depth))
                    return
            out.append(Origin(m, expr))
            return
        if isinstance(expr, ast.Name) or (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
                                          and expr.value.id == "self"):
            self._name_origins(expr, depth, out, seen)
            return
        out.append(Origin(m, expr))

    def _name_origins(self, expr: ast.AST, depth: int, out: list[Origin], seen: set[int]) -> None:
        m = self.module
        dotted = m.dotted(expr)
        defs = reaching_all(m, expr, dotted) if dotted else []
        if len(defs) > 1:
            for d in defs:
                self._definition_origins(expr, d, depth, out, seen)
            return
        d = defs[0] if defs else None
        if d is None and dotted and dotted.startswith("self."):
            values = [v for _, _, v in class_bindings(m, expr, dotted)]
            if values and all(v is not None for v in values):
                for v in values:
                    self._origins(v, depth + 1, out, seen)
                return
            out.append(Origin(m, expr))
            return
        if d is None:
            out.append(Origin(m, expr))
            return
        self._definition_origins(expr, d, depth, out, seen)

    def _definition_origins(self, expr: ast.AST, d: Definition, depth: int, out: list[Origin], seen: set[int]) -> None:
        m = self.module
        if d.value is not None:
            self._origins(d.value, depth + 1, out, seen)
            return
        stmt = d.node
        if isinstance(stmt, _SCOPE_TYPES) and isinstance(d.target, ast.arg):
            sites = self.call_sites(stmt) if isinstance(stmt, _FUNCS) else []
            args = [(cm, a) for cm, call in sites for a in [_argument_for(stmt, call, d.target.arg)] if a is not None]
            if not args:
                out.append(Origin(m, expr))
                return
            for cm, a in args:
                out.extend(cm.flow.origins(a, depth + 1))
            return
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Call):
            index = _tuple_index(stmt, d.target)
            if index is not None:
                resolved = self.resolve_function(stmt.value)
                if resolved is not None:
                    other, fn = resolved
                    found = False
                    for r in live_returns(other, fn, stmt.value):
                        if isinstance(r, ast.Tuple) and index < len(r.elts):
                            found = True
                            out.extend(other.flow.origins(r.elts[index], depth + 1))
                    if found:
                        return
        out.append(Origin(m, d.target))

    def mentions(self, expr: ast.AST, target: ast.AST, depth: int = 0) -> bool:
        """Does `expr` (or what it comes from) hold the value that `target` (a call node) makes?"""
        return any(o.is_(self.module, target) for o in self.origins(expr, depth))


def _map_params(other: SourceModule, fn: ast.AST, inner: list[Origin], call: ast.Call,
                caller: SourceModule, depth: int) -> list[Origin]:
    """A generator's loop iterates one of its parameters: the caller's argument for it."""
    out: list[Origin] = []
    for o in inner:
        if isinstance(o.node, ast.Name) and o.node.id in _params(fn):
            a = _argument_for(fn, call, o.node.id)
            if a is not None:
                out.extend(caller.flow.origins(a, depth + 1))
                continue
        out.append(o)
    return out


def live_returns(module: SourceModule, fn: ast.AST, call: ast.Call | None) -> list[ast.expr]:
    """The values `fn` may return for this call: a `return` under `if flag:` is dropped when the
    call leaves `flag` at a constant default (or passes a constant) that skips that branch
    (`def load_wav(path, torch_tensor=False): if torch_tensor: return torch.FloatTensor(d), sr`)."""
    out = []
    for n in body_nodes(fn.body):  # type: ignore[attr-defined]
        if not isinstance(n, ast.Return) or n.value is None:
            continue
        if call is not None and not _branch_may_run(module, fn, n, call):
            continue
        out.append(n.value)
    return out


def _constant_for(fn: ast.AST, call: ast.Call, param: str) -> tuple[bool, object]:
    a = _argument_for(fn, call, param)
    if a is not None:
        return (True, a.value) if isinstance(a, ast.Constant) else (False, None)
    args = fn.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    d = defaults.get(param)
    if isinstance(d, ast.Constant) and not any(k.arg is None for k in call.keywords):
        return True, d.value
    return False, None


def _branch_may_run(module: SourceModule, fn: ast.AST, node: ast.AST, call: ast.Call) -> bool:
    params = set(_params(fn))
    child = node
    for a in module.ancestors(node):
        if a is fn:
            return True
        if isinstance(a, ast.If):
            test, negate = a.test, False
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negate = test.operand, not negate
            if isinstance(test, ast.Name) and test.id in params:
                known, value = _constant_for(fn, call, test.id)
                if known:
                    holds = bool(value) != negate
                    if (child in a.body) != holds:
                        return False
        child = a
    return True


def _default_for(fn: ast.AST, param: str) -> ast.expr | None:
    args = fn.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    for p, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if p.arg == param:
            return d
    for p, d in zip(args.kwonlyargs, args.kw_defaults):
        if p.arg == param:
            return d
    return None


def _argument_for(fn: ast.AST, call: ast.Call, param: str) -> ast.expr | None:
    """The argument a call passes for `param` of `fn` (keyword, position or default)."""
    for k in call.keywords:
        if k.arg == param:
            return k.value
    params = _params(fn)
    if params and params[0] in ("self", "cls") and (isinstance(call.func, ast.Attribute)
                                                    or getattr(fn, "name", "") == "__init__"):
        params = params[1:]
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if param in params:
        i = params.index(param)
        if i < len(call.args):
            return call.args[i]
    return None


def _tuple_index(stmt: ast.AST, target: ast.AST) -> int | None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]  # type: ignore[attr-defined]
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            for i, e in enumerate(t.elts):
                if e is target:
                    return i
    return None


def iter_of(module: SourceModule, loop: ast.AST) -> Iterator[Origin]:
    """What a `for` loop iterates, through wrappers and names."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        yield from module.flow.origins(loop.iter)
