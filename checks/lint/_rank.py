"""The rank-guard classifier shared by TD101 (collective under a rank guard) and TD110 (torch.save
on every rank): which conditions make ranks take different paths, and which calls each path
reaches (lint-anchors §4a).

A *rank expression* is the process's rank: `rank`, `local_rank`, `args.rank`, `RANK`,
`accelerator.process_index`, `dist.get_rank()`, `get_local_rank()`, `int(os.environ["RANK"])`,
`os.environ.get("LOCAL_RANK")`, or a name assigned from one in the same scope.

A condition is *divergent* when it is true on some ranks and false on others (`rank == 0`,
`rank != 0`, `local_rank in (-1, 0)`, `if local_rank:`, `is_main_process()`,
`trainer.is_global_zero`, a boolean assigned from such a test), and *uniform* when it is the
same on every rank (`rank == -1`, `rank != -1`, `rank >= 0`, `world_size > 1`,
`dist.is_initialized()`, `args.distributed`). Only divergent conditions are guards. A guard has a
polarity: +1 when the guarded code runs on the main rank only (`rank == 0`), -1 when it runs on
the other ranks only (`rank != 0`, `not is_main_process()`); `not` flips it, `and`/`or` keep
the divergent operand's.

Flow: a call's guards are found by climbing from it to its function: an enclosing `if G:` puts
it under G, an `else`/`elif` under not-G; an early exit earlier in the same block
(`if rank != 0: return`; a `raise` is an error path, not a rank split) puts it under not-G;
conditional expressions, `and`/`or` short-circuits and comprehension filters guard their
operands; a `@rank_zero_only`-style decorator guards the whole function. A guard that holds only
while a uniform condition does (the else of `if U and rank == 0`) is dropped under an inner test
that contradicts it (`elif not U:`). Module-local calls give a light call graph (`evaluate()`,
`self.evaluate()`); constant arguments and the facts known at a call are carried into the callee
to see which of its branches can run.

Everything is computed once per file, lazily, and only for files that pass a cheap text
prefilter; nothing here imports torch or reads files.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Iterator

from torchdoctor.lint.flow import bindings as scope_bindings
from torchdoctor.lint.module import SourceModule, body_nodes, final_identifier

_NAME_ID, _NAME_CTX, _ARG_NAME = attrgetter("id"), attrgetter("ctx"), attrgetter("arg")

# ------------------------------------------------------------------ vocabulary

# Identifiers that hold the process's rank (matched case-insensitively: RANK, LOCAL_RANK).
RANK_NAME = re.compile(
    r"^(?:(?:ddp|dist|my|proc|process|local|global|node|world|gpu|cur|current|this|device|trainer|dp|tp|pp|ep|cp|"
    r"mp|data_parallel|tensor_parallel|tensor_model_parallel|pipeline_parallel|pipeline_model_parallel|"
    r"model_parallel|expert_parallel|context_parallel)_)?(?:local_|global_)?rank(?:_id)?$|"
    r"^(?:local_)?process_index$|^gpu(?:_id)?$", re.IGNORECASE)
# Functions that return it: dist.get_rank(), get_local_rank(), mpu.get_data_parallel_rank(),
# xm.get_ordinal().
RANK_FUNC = re.compile(r"^get_(?:[a-z_]+_)?rank$|^get_(?:local_)?ordinal$")
RANK_ENV = frozenset({"RANK", "LOCAL_RANK", "GLOBAL_RANK", "NODE_RANK", "GROUP_RANK", "SLURM_PROCID",
                      "SLURM_LOCALID", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK",
                      "MV2_COMM_WORLD_RANK", "LOCAL_PROCESS_RANK"})
# Calls or attributes true on the main process only (+1) or on one non-main process (-1).
PREDICATES = {name: +1 for name in (
    "is_main_process", "is_local_main_process", "is_global_zero", "is_local_zero", "is_master",
    "is_local_master", "is_world_process_zero", "is_local_process_zero", "is_rank_zero", "is_rank0",
    "is_main", "is_main_rank", "is_master_process", "master_process", "is_primary", "is_local_primary",
    "is_chief", "is_main_worker", "is_master_rank", "is_first_rank", "is_zero_rank", "should_save",
    "should_log", "is_leader",
)}
PREDICATES["is_last_process"] = -1
PREDICATES["is_last_rank"] = -1
# Decorators that make the whole function run on the main process only.
GUARD_DECORATORS = re.compile(r"^(?:rank_?zero|rank0|main_process|main_rank|master|global_zero|main)_only$"
                              r"|^on_(?:local_)?main_process$|^rank_zero_experiment$")
_PROCESS_DECORATORS = {"on_process", "on_local_process"}  # accelerate: on_process(process_index=k)

# Cheap text prefilter (plain substring tests: much faster than one big regex): a file without
# any of these tokens cannot have a rank guard.
GUARD_TOKENS = ("rank", "RANK", "Rank", "process_index", "main_process", "is_main", "master", "global_zero",
                 "process_zero", "primary", "is_chief", "is_leader", "should_save", "should_log", "_only",
                 "on_process", "on_local_process", "last_process", "main_worker")


def mentions_a_guard(text: str) -> bool:
    """Any of GUARD_TOKENS in the text (TD101's prefilter). Most files have none, and each absent
    word is a scan of the whole file: the words sharing a part are looked for only when the part is
    there (six of them contain "process", three "main")."""
    for word in ("rank", "RANK", "Rank", "master", "global_zero", "primary", "is_chief", "is_leader", "should_save",
                 "should_log", "_only", "main_worker"):
        if word in text:
            return True
    if "process" in text and any(w in text for w in ("process_index", "main_process", "process_zero", "on_process",
                                                     "on_local_process", "last_process")):
        return True
    return "is_main" in text


_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def short(node: ast.AST, limit: int = 48) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse of odd trees
        return "..."
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_test_file(path: str) -> bool:
    """Test code breaks rank symmetry on purpose (testing that a mismatch errors out)."""
    parts = re.split(r"[\\/]", path)
    name = parts[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or any(p in ("tests", "test", "testing") for p in parts[:-1]))


# ------------------------------------------------------------------ guards and sites


@dataclass(frozen=True)
class Guard:
    """A divergent condition in force: `polarity` +1 main rank only, -1 the other ranks only."""

    polarity: int
    node: ast.AST  # the test expression, or the decorator
    line: int
    how: str  # "if", "else", "exit", "while", "ifexp", "and", "or", "comp", "decorator"
    text: str  # the condition's source, shortened
    exit: str = ""  # for "exit": return / raise / continue / break
    # literal facts (ast dump, truth) the guard is divergent under: the else of `U and rank == 0`
    # is rank-dependent only while the uniform U holds (an `elif not U:` makes it moot)
    assume: frozenset = frozenset()
    neg_assume: frozenset = frozenset()

    def negated(self, how: str, exit: str = "") -> "Guard":
        return Guard(-self.polarity, self.node, self.line, how, self.text, exit, self.neg_assume, self.assume)

    def describe(self) -> str:
        if self.how == "exit":
            return f"after the early exit `if {self.text}: {self.exit}` (line {self.line})"
        if self.how == "else":
            return f"in the else branch of `if {self.text}` (line {self.line})"
        if self.how == "decorator":
            return f"inside a function decorated @{self.text} (line {self.line})"
        if self.how == "while":
            return f"under `while {self.text}` (line {self.line})"
        if self.how in ("and", "or"):
            return f"behind `{self.text} {self.how} ...` (line {self.line})"
        if self.how == "comp":
            return f"under the comprehension filter `if {self.text}` (line {self.line})"
        if self.how == "ifexp":
            return f"under `... if {self.text} else ...` (line {self.line})"
        return f"under `if {self.text}` (line {self.line})"

    def escape(self) -> str:
        """Where to move code to get it out from under this guard."""
        if self.how == "exit":
            return f"before the early exit `if {self.text}: {self.exit}`"
        if self.how == "decorator":
            return f"out of the @{self.text} function"
        if self.how == "else":
            return f"out of the else branch of `if {self.text}`"
        return f"out of the `{self.text}` branch"

    @property
    def who(self) -> str:
        if not self.about_rank_zero:
            return "only on some ranks"
        zero = "local rank 0" if "local" in self.text.lower() else "rank 0"
        return f"only on {zero}" if self.polarity > 0 else f"only on the ranks other than {zero}"

    @property
    def about_rank_zero(self) -> bool:
        """The test singles out rank 0 (`rank == 0`, `in (-1, 0)`, `is_main_process`, a decorator)."""
        return self.how == "decorator" or bool(_RANK_ZERO_TEXT.search(self.text))

    @property
    def hang(self) -> str:
        if not self.about_rank_zero:
            return ("the ranks that skip it never join, so the ranks that call it wait forever "
                    "(a hang until the NCCL timeout)")
        zero = "local rank 0" if "local" in self.text.lower() else "rank 0"
        if self.polarity > 0:
            return f"the other ranks never call it, so {zero} waits for them forever (a hang until the NCCL timeout)"
        return f"{zero} never calls it, so the other ranks wait for it forever (a hang until the NCCL timeout)"


_RANK_ZERO_TEXT = re.compile(r"[=!<>]=?\s*0\b|\b0\s*[=!<>]=?|[\[({]-1,\s*0[\])}]|main|master|zero|primary|chief|"
                             r"should_|is_leader|rank0", re.IGNORECASE)


@dataclass(frozen=True)
class Site:
    """A call, the statement holding it, its scope and the divergent guards around it."""

    call: ast.Call
    stmt: ast.AST  # the statement holding the call
    scope: ast.AST  # FunctionDef / AsyncFunctionDef / Module
    guards: tuple[Guard, ...]  # outermost first

    @property
    def guard(self) -> Guard | None:
        return self.guards[-1] if self.guards else None


@dataclass
class _Env:
    rank_names: set[str] = field(default_factory=set)
    not_rank: set[str] = field(default_factory=set)  # loop variables: `for rank in range(n)`
    predicates: dict[str, int] = field(default_factory=dict)  # name -> polarity


_STMT_LISTS = ("body", "orelse", "finalbody")


# node type -> bucket of RankAnalysis.__init__: 1 calls, 2 functions, 3 assignments, 4 other binders
_BUCKET = {ast.Call: 1, ast.FunctionDef: 2, ast.AsyncFunctionDef: 2, ast.Assign: 3, ast.AnnAssign: 3,
           ast.For: 4, ast.AsyncFor: 4, ast.comprehension: 4, ast.NamedExpr: 4}


_LINE_COL = attrgetter("lineno", "col_offset")  # _position for nodes that always have one


def _position(node: ast.AST) -> tuple[int, int]:
    if type(node) is ast.comprehension:  # the one bucketed node without a position of its own
        node = node.target
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


class RankAnalysis:
    """Rank guards of the calls of one file, its module-local call graph and name facts.

    Everything is lazy: the constructor only sorts the file's nodes into a few buckets (one pass
    over the parent table the engine already built); guards are computed for the calls a rule
    asks about, by climbing from the call to its scope."""

    def __init__(self, module: SourceModule) -> None:
        self.module = module
        self.tree = module.tree
        self.parents = module.parents
        self.calls: list[ast.Call] = []
        self.attr_assigns: dict[str, list[ast.AST]] = {}
        self.functions: dict[str, list[ast.AST]] = {}  # simple name -> defs (methods included)
        binders: list[ast.AST] = []  # assignments to names, loops, walruses: read by env()
        # The buckets come from the engine's node-by-type index, in source order (walking every
        # node of a large model file here cost as much as the rules that use the buckets).
        by_type = module.by_type
        self.calls = sorted(by_type.get(ast.Call, ()), key=_LINE_COL)  # calls have positions: a C key
        for kind, k in _BUCKET.items():
            if k == 1:
                continue
            for node in by_type.get(kind, ()):
                if k == 2:
                    self.functions.setdefault(node.name, []).append(node)
                elif k == 3:
                    for target in (node.targets if type(node) is ast.Assign else (node.target,)):
                        tt = type(target)
                        if tt is ast.Attribute:
                            self.attr_assigns.setdefault(target.attr, []).append(node)
                        elif tt is ast.Name and node.value is not None:
                            binders.append(node)
                else:
                    binders.append(node)
        binders.sort(key=_position)
        for table in (self.functions, self.attr_assigns):  # definitions and assignments: positioned
            for nodes in table.values():
                nodes.sort(key=_LINE_COL)
        self._dist_shadowed: bool | None = None
        self._binders = binders
        self._binders_by_scope: dict[int, list[ast.AST]] | None = None
        self.local_names = set(self.functions)
        self._envs: dict[int, _Env] = {}
        self._attr_kind: dict[str, tuple[str, int]] = {}
        self._func_kind: dict[str, tuple[str, int]] = {}
        self._guards: dict[int, tuple[ast.AST, ast.stmt | None, tuple[Guard, ...]] | None] = {}
        self._after: dict[int, tuple[tuple[Guard, ...], frozenset]] = {}
        self._ends: dict[int, bool] = {}
        self._callees: dict[int, list[ast.AST]] = {}
        self._callers: dict[int, list[ast.Call]] | None = None
        self._main_only: dict[int, bool | None] = {}
        self._params: dict[tuple[int, str], tuple[bool, int] | None] = {}

    # ---------------------------------------------------------------- names
    def resolved(self, node: ast.AST) -> str | None:
        """The qualified name, not trusting the conventional `dist` when the file binds it."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id == "dist" and self.dist_shadowed:
            return None
        return self.module.qualname(node)

    @property
    def dist_shadowed(self) -> bool:
        """`dist` is a local variable here (a distance), not an import of torch.distributed."""
        if self._dist_shadowed is None:
            # From the engine's node-by-type index, the names filtered at C speed: a Python loop
            # over every node of a model file cost more than the rest of the analysis.
            by_type = self.module.by_type
            names = by_type.get(ast.Name, ())
            stored = compress(map(_NAME_ID, names), map(is_, map(type, map(_NAME_CTX, names)), repeat(ast.Store)))
            bound = "dist" in set(stored) or "dist" in set(map(_ARG_NAME, by_type.get(ast.arg, ())))
            imported = any((a.asname or a.name.split(".")[0]) == "dist"
                           for kind in (ast.Import, ast.ImportFrom) for node in by_type.get(kind, ()) for a in node.names)
            self._dist_shadowed = bound and not imported
        return self._dist_shadowed

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function (or module, or lambda) whose body holds `node`."""
        c = node
        p = self.parents.get(c)
        while p is not None:
            if isinstance(p, _FUNCS):
                if any(s is c for s in p.body):
                    return p
            elif isinstance(p, ast.Lambda):
                if c is p.body:
                    return p
            c, p = p, self.parents.get(p)
        return self.tree

    def enclosing_class(self, fn: ast.AST) -> ast.ClassDef | None:
        p = self.parents.get(fn)
        return p if isinstance(p, ast.ClassDef) else None

    def env(self, scope: ast.AST) -> _Env:
        env = self._envs.get(id(scope))
        if env is not None:
            return env
        env = self._envs[id(scope)] = _Env()
        if isinstance(scope, _FUNCS):
            for a in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs):
                if RANK_NAME.match(a.arg):
                    env.rank_names.add(a.arg)
        if self._binders_by_scope is None:
            table: dict[int, list[ast.AST]] = {}
            for node in self._binders:
                table.setdefault(id(self.scope_of(node)), []).append(node)
            for nodes in table.values():
                nodes.sort(key=lambda n: (getattr(n, "lineno", 0) or getattr(getattr(n, "target", None), "lineno", 0),
                                          getattr(n, "col_offset", 0)))
            self._binders_by_scope = table
        for node in self._binders_by_scope.get(id(scope), ()):
            t = type(node)
            if t is ast.For or t is ast.AsyncFor or t is ast.comprehension:
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        env.not_rank.add(n.id)
            elif (t is ast.Assign or t is ast.AnnAssign or t is ast.NamedExpr) and node.value is not None:
                targets = node.targets if t is ast.Assign else [node.target]
                names = [x.id for x in targets if isinstance(x, ast.Name)]
                if not names:
                    continue
                if self.is_rank(node.value, scope):
                    env.rank_names.update(names)
                    continue
                p = self.polarity(node.value, scope)
                if p:
                    for n in names:
                        env.predicates.setdefault(n, p)
        return env

    def _lookup_name(self, name: str, scope: ast.AST) -> tuple[bool, int]:
        """(is the rank, predicate polarity) of a bare name, through the enclosing scopes."""
        s = scope
        for _ in range(50):
            env = self.env(s)
            if name in env.not_rank:
                return False, 0
            if name in env.rank_names:
                return True, 0
            if name in env.predicates:
                return False, env.predicates[name]
            if s is scope and isinstance(s, _FUNCS):
                passed = self._parameter_kind(s, name)
                if passed is not None:
                    return passed
            if s is self.tree:
                break
            s = self.scope_of(s)
        return bool(RANK_NAME.match(name)), 0

    def _parameter_kind(self, fn: ast.AST, name: str) -> tuple[bool, int] | None:
        """A parameter the function never rebinds, whose name says nothing: what its callers pass,
        from the value-flow engine (`save(model, rank == 0)` makes `if should_write:` a main-rank
        guard inside `save`). None when there are no known callers or they disagree."""
        key = (id(fn), name)
        if key in self._params:
            return self._params[key]
        self._params[key] = None  # in progress: a recursion through callers answers "unknown"
        if fn.name == "__init__":  # type: ignore[attr-defined]
            return None  # every construction of the class, across the project: too dear per guard
        a = fn.args  # type: ignore[attr-defined]
        if name not in {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)} or \
                any(stmt is not fn for stmt, _, _ in scope_bindings(self.module, fn, name)):
            return None
        passed = self.module.flow.arguments_for(fn, name)
        kinds = set()
        for caller, expr in passed or ():
            ca = analysis(caller)
            where = ca.scope_of(expr)
            kinds.add((True, 0) if ca.is_rank(expr, where) else (False, ca.polarity(expr, where)))
        result = kinds.pop() if len(kinds) == 1 and kinds != {(False, 0)} else None
        self._params[key] = result
        return result

    def attr_kind(self, attr: str) -> tuple[str, int]:
        """("rank", 0), ("predicate", polarity) or ("", 0) for `x.<attr>` from its assignments
        anywhere in the file (`self.is_master = rank == 0`)."""
        known = self._attr_kind.get(attr)
        if known is not None:
            return known
        self._attr_kind[attr] = ("", 0)  # in progress: no recursion through itself
        result = ("", 0)
        for node in self.attr_assigns.get(attr, ()):
            if node.value is None:
                continue
            scope = self.scope_of(node)
            if self.is_rank(node.value, scope):
                result = ("rank", 0)
                break
            p = self.polarity(node.value, scope)
            if p:
                result = ("predicate", p)
                break
        self._attr_kind[attr] = result
        return result

    def func_kind(self, name: str) -> tuple[str, int]:
        """A module-local function that returns the rank (`def get_rank(): ...`) or a rank test
        (`def is_main_process(): return get_rank() == 0`)."""
        known = self._func_kind.get(name)
        if known is not None:
            return known
        self._func_kind[name] = ("", 0)
        result = ("", 0)
        for fn in self.functions.get(name, ()):
            polarity: set[int] = set()
            ranks = 0
            other = False
            for node in body_nodes(fn.body):
                if isinstance(node, ast.Return) and node.value is not None:
                    value = node.value
                    if isinstance(value, ast.Constant):
                        continue
                    if self.is_rank(value, fn):
                        ranks += 1
                        continue
                    p = self.polarity(value, fn)
                    if p:
                        polarity.add(p)
                    else:
                        other = True
            if other:
                continue
            if ranks and not polarity:
                result = ("rank", 0)
            elif len(polarity) == 1 and not ranks:
                result = ("predicate", polarity.pop())
            if result[0]:
                break
        self._func_kind[name] = result
        return result

    # ---------------------------------------------------------------- classification
    def is_rank(self, e: ast.AST, scope: ast.AST) -> bool:
        """Is `e` the process's rank (or arithmetic on it)?"""
        t = type(e)
        if t is ast.Name:
            return self._lookup_name(e.id, scope)[0]
        if t is ast.Attribute:
            if RANK_NAME.match(e.attr):
                return True
            return e.attr in self.attr_assigns and self.attr_kind(e.attr)[0] == "rank"
        if t is ast.Call:
            f = e.func
            name = final_identifier(f)
            if name is None:
                return False
            if type(f) is ast.Name and name in ("int", "str", "float") and e.args:
                return self.is_rank(e.args[0], scope)
            if RANK_FUNC.match(name):
                return True
            if name in ("get", "getenv") and e.args and isinstance(e.args[0], ast.Constant):
                return e.args[0].value in RANK_ENV and (self.module.dotted(f) or "").startswith(("os.", "environ."))
            if name in self.local_names and self.func_kind(name)[0] == "rank":
                return True
            return False
        if t is ast.Subscript:
            key = e.slice
            return (isinstance(key, ast.Constant) and key.value in RANK_ENV
                    and (self.module.dotted(e.value) or "").endswith("environ"))
        if t is ast.BinOp:  # iterative: `a + b + ... ` nests as deep as it is long
            stack = [e.left, e.right]
            while stack:
                x = stack.pop()
                if type(x) is ast.BinOp:
                    stack.append(x.left)
                    stack.append(x.right)
                elif self.is_rank(x, scope):
                    return True
            return False
        if t is ast.NamedExpr:
            return self.is_rank(e.value, scope)
        if t is ast.IfExp:
            return self.is_rank(e.body, scope) or self.is_rank(e.orelse, scope)
        if t is ast.BoolOp and isinstance(e.op, ast.Or):
            return any(self.is_rank(v, scope) for v in e.values)
        return False

    def polarity(self, e: ast.AST, scope: ast.AST) -> int:
        """+1: true on the main rank only; -1: true on the non-main ranks only; 0: uniform or not
        about ranks."""
        t = type(e)
        if t is ast.UnaryOp:
            return -self.polarity(e.operand, scope) if isinstance(e.op, ast.Not) else 0
        if t is ast.BoolOp:
            for v in e.values:
                p = self.polarity(v, scope)
                if p:
                    return p
            return 0
        if t is ast.Compare:
            return self._compare(e, scope)
        if t is ast.NamedExpr:
            return self.polarity(e.value, scope)
        if t is ast.Call:
            name = final_identifier(e.func)
            if name is None:
                return 0
            if type(e.func) is ast.Name and name == "bool" and e.args:
                return self.polarity(e.args[0], scope)
            p = self._predicate_name(name, e.func)
            if p:
                return p
            if name in self.local_names:
                kind, p = self.func_kind(name)
                if kind == "predicate":
                    return p
            return -1 if self.is_rank(e, scope) else 0  # truthiness of a rank: the nonzero ranks
        if t is ast.Name:
            p = PREDICATES.get(e.id, 0)
            if p:
                return p
            is_rank, p = self._lookup_name(e.id, scope)
            return p if p else (-1 if is_rank else 0)
        if t is ast.Attribute:
            p = self._predicate_name(e.attr, e)
            if p:
                return p
            if e.attr in self.local_names:  # a @property
                kind, p = self.func_kind(e.attr)
                if kind == "predicate":
                    return p
            if e.attr in self.attr_assigns:
                kind, p = self.attr_kind(e.attr)
                if kind == "predicate":
                    return p
            return -1 if self.is_rank(e, scope) else 0
        if t is ast.Subscript or t is ast.BinOp:
            return -1 if self.is_rank(e, scope) else 0
        return 0

    def _predicate_name(self, name: str, node: ast.AST) -> int:
        p = PREDICATES.get(name, 0)
        if p and name in _ARGS_PREDICATES:
            # TrainingArguments.should_save/should_log depend on the process; TrainerControl's
            # should_save is a flag set on every rank
            recv = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else \
                node.value if isinstance(node, ast.Attribute) else None
            recv_name = (final_identifier(recv) or "") if recv is not None else ""
            return p if recv_name.lower().endswith("args") else 0
        return p

    def _compare(self, e: ast.Compare, scope: ast.AST) -> int:
        left = e.left
        for op, right in zip(e.ops, e.comparators):
            p = 0
            lr, rr = self.is_rank(left, scope), self.is_rank(right, scope)
            if lr and not rr:
                p = _rank_compare(op, right)
            elif rr and not lr:
                if not isinstance(op, (ast.In, ast.NotIn)):
                    p = _rank_compare(_FLIP.get(type(op), op), left)
            elif isinstance(right, ast.Constant) and isinstance(right.value, bool):
                lp = self.polarity(left, scope)
                if lp:
                    same = isinstance(op, (ast.Eq, ast.Is)) == right.value
                    p = lp if same else -lp
            if p:
                return p
            left = right
        return 0

    def guard(self, test: ast.AST, scope: ast.AST, how: str) -> Guard | None:
        p = self.polarity(test, scope)
        if not p:
            return None
        pos, neg = self._assumes(test, scope)
        return Guard(p, test, getattr(test, "lineno", 0), how, short(test), "", pos, neg)

    def _assumes(self, e: ast.AST, scope: ast.AST) -> tuple[frozenset, frozenset]:
        """The uniform literals a divergent test relies on, when true and when false:
        `U or rank == 0` is rank-dependent only while U is false; `not (U and rank == 0)` only
        while U is true. An inner test that contradicts them (`if U:` inside) makes the guard moot."""
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            pos, neg = self._assumes(e.operand, scope)
            return neg, pos
        if not isinstance(e, ast.BoolOp):
            return frozenset(), frozenset()
        pos: frozenset = frozenset()
        neg: frozenset = frozenset()
        is_and = isinstance(e.op, ast.And)
        for v in e.values:
            if self.polarity(v, scope):
                vp, vn = self._assumes(v, scope)
                pos |= vp
                neg |= vn
            elif is_and:
                neg |= _facts(v, True)
            else:
                pos |= _facts(v, False)
        return pos, neg

    def decorator_guard(self, fn: ast.AST) -> Guard | None:
        for dec in getattr(fn, "decorator_list", ()):
            name = final_identifier(dec)
            if name is None:
                continue
            if GUARD_DECORATORS.match(name):
                return Guard(+1, dec, dec.lineno, "decorator", short(dec))
            if name in _PROCESS_DECORATORS and isinstance(dec, ast.Call):
                idx = next((k.value for k in dec.keywords if k.arg and k.arg.endswith("process_index")),
                           dec.args[0] if dec.args else None)
                if isinstance(idx, ast.Constant) and isinstance(idx.value, int):
                    return Guard(+1 if idx.value == 0 else -1, dec, dec.lineno, "decorator", short(dec))
            if name == "on_last_process":
                return Guard(-1, dec, dec.lineno, "decorator", short(dec))
        return None

    # ---------------------------------------------------------------- guards of a node
    def site(self, call: ast.Call) -> Site | None:
        """The call with its scope, statement and divergent guards; None inside a lambda."""
        info = self.guards_of(call)
        if info is None:
            return None
        scope, stmt, guards = info
        return Site(call, stmt if stmt is not None else call, scope, guards)

    def guards_of(self, node: ast.AST) -> tuple[ast.AST, ast.stmt | None, tuple[Guard, ...]] | None:
        key = id(node)
        if key in self._guards:
            return self._guards[key]
        chain: list[tuple[ast.AST, ast.AST]] = []
        c = node
        p = self.parents.get(c)
        scope: ast.AST = self.tree
        stmt = None
        while p is not None:
            if stmt is None and isinstance(c, ast.stmt):
                stmt = c
            if isinstance(p, _FUNCS) and any(s is c for s in p.body):
                scope = p
                break
            if isinstance(p, ast.Lambda) and c is p.body:
                self._guards[key] = None
                return None
            chain.append((c, p))
            c, p = p, self.parents.get(p)
        if stmt is None and isinstance(c, ast.stmt):
            stmt = c
        top = c if isinstance(scope, _FUNCS) else None  # the scope's statement holding the node
        levels: list[list[Guard]] = []  # inner to outer
        facts: set = set()
        for c, p in chain:
            level: list[Guard] = []
            new_facts: set = set()
            t = type(p)
            if t is ast.IfExp:
                if c is p.body or c is p.orelse:
                    g = self.guard(p.test, scope, "ifexp")
                    if g:
                        level.append(g if c is p.body else g.negated("else"))
                    new_facts |= _facts(p.test, c is p.body)
            elif t is ast.BoolOp:
                is_and = isinstance(p.op, ast.And)
                for v in p.values:
                    if v is c:
                        break
                    g = self.guard(v, scope, "and" if is_and else "or")
                    if g:
                        level.append(g if is_and else Guard(-g.polarity, g.node, g.line, "or", g.text, "",
                                                            g.neg_assume, g.assume))
                    new_facts |= _facts(v, is_and)
            elif t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
                if c is not p.generators and all(c is not gen for gen in p.generators):
                    for gen in p.generators:
                        for cond in gen.ifs:
                            g = self.guard(cond, scope, "comp")
                            if g:
                                level.append(g)
            elif isinstance(c, ast.stmt):
                field_name, idx = _position_in(p, c)
                if field_name is not None:
                    if t is ast.If and not _statically_false(p.test):
                        g = self.guard(p.test, scope, "if")
                        if g:
                            level.append(g if field_name == "body" else g.negated("else"))
                        new_facts |= _facts(p.test, field_name == "body")
                    elif t is ast.While and field_name == "body":
                        g = self.guard(p.test, scope, "while")
                        if g:
                            level.append(g)
                    siblings = getattr(p, field_name)
                    for s in siblings[:idx]:
                        after, after_facts = self._after_stmt(s, scope)
                        level.extend(after)
                        new_facts |= after_facts
            kept = [g for g in level if not _contradicted(g.assume, facts)]
            if kept:
                levels.append(kept)
            facts |= new_facts
        # the top-level statement list of the scope
        if top is not None:
            level = []
            for s in scope.body:
                if s is top:
                    break
                level.extend(self._after_stmt(s, scope)[0])
            kept = [g for g in level if not _contradicted(g.assume, facts)]
            if kept:
                levels.append(kept)
        guards: list[Guard] = []
        dg = self.decorator_guard(scope) if isinstance(scope, _FUNCS) else None
        if dg:
            guards.append(dg)
        for level in reversed(levels):
            guards.extend(level)
        result = (scope, stmt, tuple(guards))
        self._guards[key] = result
        return result

    def _after_stmt(self, s: ast.stmt, scope: ast.AST) -> tuple[tuple[Guard, ...], frozenset]:
        """Guards (and literal facts) that hold after `s` completes normally: an early exit
        `if rank != 0: return` leaves the rest of the block to rank 0."""
        key = id(s)
        known = self._after.get(key)
        if known is not None:
            return known
        result: tuple[tuple[Guard, ...], frozenset] = ((), frozenset())
        t = type(s)
        if t is ast.If and not _statically_false(s.test):
            t1 = self._block_ends(s.body)
            t2 = self._block_ends(s.orelse) if s.orelse else False
            if t1 != t2 and not _raises(s.body if t1 else s.orelse):
                g = self.guard(s.test, scope, "if")
                if t1:  # the body leaves: what follows runs where the test was false
                    own = (g.negated("exit", _exit_word(s.body)) if not s.orelse else g.negated("else"),) if g else ()
                    rest = self._after_block(s.orelse, scope)
                    result = (own + rest[0], _facts(s.test, False) | rest[1])
                else:
                    rest = self._after_block(s.body, scope)
                    result = (((g,) if g else ()) + rest[0], _facts(s.test, True) | rest[1])
        elif t is ast.With or t is ast.AsyncWith:
            if not self._block_ends(s.body):
                result = self._after_block(s.body, scope)
        elif t is ast.Try or t.__name__ == "TryStar":
            if s.handlers and all(self._block_ends(h.body) for h in s.handlers):
                result = self._after_block([*s.body, *s.orelse], scope)
        self._after[key] = result
        return result

    def _after_block(self, stmts: list[ast.stmt], scope: ast.AST) -> tuple[tuple[Guard, ...], frozenset]:
        guards: tuple[Guard, ...] = ()
        facts: frozenset = frozenset()
        for s in stmts:
            g, f = self._after_stmt(s, scope)
            guards += g
            facts |= f
        return guards, facts

    def _block_ends(self, stmts: list[ast.stmt]) -> bool:
        """The block never falls through (return/raise/continue/break/sys.exit on every path)."""
        return any(self._stmt_ends(s) for s in stmts)

    def _stmt_ends(self, s: ast.stmt) -> bool:
        key = id(s)
        known = self._ends.get(key)
        if known is not None:
            return known
        t = type(s)
        if t in _EXITS:
            result = True
        elif t is ast.Expr and isinstance(s.value, ast.Call):
            result = (self.module.dotted(s.value.func) or "") in _EXIT_CALLS
        elif t is ast.If:
            result = bool(s.orelse) and self._block_ends(s.body) and self._block_ends(s.orelse)
        elif t is ast.With or t is ast.AsyncWith:
            result = self._block_ends(s.body)
        elif t is ast.Try or t.__name__ == "TryStar":
            result = (self._block_ends(s.body) or self._block_ends(s.orelse)) and \
                all(self._block_ends(h.body) for h in s.handlers)
        else:
            result = False
        self._ends[key] = result
        return result

    def def_guards(self, fn: ast.AST) -> tuple[Guard, ...]:
        """The guards in force where a nested function is defined."""
        info = self.guards_of(fn)
        return info[2] if info else ()

    # ---------------------------------------------------------------- the call graph
    def callees(self, call: ast.Call, scope: ast.AST | None = None) -> list[ast.AST]:
        """Module-local functions a call may run: `evaluate(...)` -> the module's non-method
        `evaluate`; `self.evaluate(...)` -> the method of the enclosing class (or a local base)."""
        key = id(call)
        known = self._callees.get(key)
        if known is not None:
            return known
        out: list[ast.AST] = []
        f = call.func
        table = self.functions
        if isinstance(f, ast.Name):
            if f.id in self.local_names and f.id not in self.module.aliases:
                out = [d for d in table.get(f.id, ()) if self.enclosing_class(d) is None]
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls") \
                and f.attr in self.local_names:
            cls = self._class_of_scope(scope if scope is not None else self.scope_of(call))
            seen: set[str] = set()
            while cls is not None and cls.name not in seen:
                seen.add(cls.name)
                found = [d for d in cls.body if isinstance(d, _FUNCS) and d.name == f.attr]
                if found:
                    out = found
                    break
                cls = next((self.module.classes.get(b.id) for b in cls.bases
                            if isinstance(b, ast.Name) and b.id in self.module.classes), None)
        self._callees[key] = out
        return out

    def _class_of_scope(self, scope: ast.AST) -> ast.ClassDef | None:
        s = scope
        for _ in range(50):
            if not isinstance(s, _FUNCS):
                return None
            cls = self.enclosing_class(s)
            if cls is not None:
                return cls
            s = self.scope_of(s)
        return None

    def local_calls(self) -> Iterator[ast.Call]:
        """Calls that may run a module-local function (by simple name)."""
        names = self.local_names
        for call in self.calls:
            f = call.func
            if (type(f) is ast.Name and f.id in names) or \
                    (type(f) is ast.Attribute and f.attr in names and isinstance(f.value, ast.Name)
                     and f.value.id in ("self", "cls")):
                yield call

    def callers(self) -> dict[int, list[ast.Call]]:
        if self._callers is None:
            table: dict[int, list[ast.Call]] = {}
            for call in self.local_calls():
                for fn in self.callees(call):
                    table.setdefault(id(fn), []).append(call)
            self._callers = table
        return self._callers

    def main_only(self, fn: ast.AST, _active: set[int] | None = None) -> bool | str | None:
        """Does this function run on the main rank only, judging by its module-local calls?
        True: every call is under a divergent guard (or in a function that is); "module": an
        unguarded call path starts in module-level code; "unknown": an unguarded path starts in a
        function whose callers are elsewhere; None: the module never calls it."""
        if id(fn) in self._main_only:
            return self._main_only[id(fn)]
        active = _active if _active is not None else set()
        if id(fn) in active:
            return True  # recursion: decided by the other calls
        active.add(id(fn))
        result: bool | str | None
        if self.decorator_guard(fn) is not None:
            result = True
        else:
            calls = self.callers().get(id(fn), [])
            result = None if not calls else True
            for call in calls:
                site = self.site(call)
                if site is None or site.guards:
                    continue
                if not isinstance(site.scope, _FUNCS):
                    result = "module"
                    break
                outer = self.main_only(site.scope, active)
                if outer is True:
                    continue
                if outer == "module":
                    result = "module"
                    break
                result = "unknown"
        active.discard(id(fn))
        if _active is None or result is not True:
            self._main_only[id(fn)] = result
        return result


_ARGS_PREDICATES = frozenset({"should_save", "should_log"})


def _position_in(parent: ast.AST, child: ast.AST) -> tuple[str | None, int]:
    for name in _STMT_LISTS:
        lst = getattr(parent, name, None)
        if lst:
            for i, s in enumerate(lst):
                if s is child:
                    return name, i
    return None, 0


def _constant_like(e: ast.AST) -> bool:
    """A literal or a dotted name such as an enum member (`CheckpointType.LEGACY`)."""
    while isinstance(e, ast.Attribute):
        e = e.value
    return isinstance(e, (ast.Constant, ast.Name))


def _literal(e: ast.AST, truth: bool) -> tuple:
    while isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        e = e.operand
        truth = not truth
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) \
            and _constant_like(e.comparators[0]) and not isinstance(e.comparators[0], ast.Name):
        equal = isinstance(e.ops[0], (ast.Eq, ast.Is)) == truth
        return ("eq", ast.dump(e.left), ast.dump(e.comparators[0]), equal)
    return ("lit", ast.dump(e), truth)


def _facts(test: ast.AST, truth: bool) -> frozenset:
    """Literals known to hold when `test` evaluated to `truth`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _facts(test.operand, not truth)
    if isinstance(test, ast.BoolOp):
        if truth and isinstance(test.op, ast.And):
            return frozenset().union(*(_facts(v, True) for v in test.values))
        if not truth and isinstance(test.op, ast.Or):
            return frozenset().union(*(_facts(v, False) for v in test.values))
        return frozenset()
    return frozenset({_literal(test, truth)})


def _contradicted(assume: frozenset, facts: set) -> bool:
    for lit in assume:
        if lit[0] == "lit":
            if ("lit", lit[1], not lit[2]) in facts:
                return True
            continue
        _, x, v, equal = lit
        for f in facts:
            if f[0] == "eq" and f[1] == x:
                if (f[2] == v and f[3] != equal) or (f[2] != v and f[3] and equal):
                    return True
    return False


def _raises(body: list[ast.stmt]) -> bool:
    """An error path: a rank-dependent `raise` crashes the job; it is not a rank split."""
    return bool(body) and isinstance(body[-1], ast.Raise)


def _exit_word(body: list[ast.stmt]) -> str:
    last = body[-1] if body else None
    if isinstance(last, ast.Return):
        return "return"
    if isinstance(last, ast.Raise):
        return "raise"
    if isinstance(last, ast.Continue):
        return "continue"
    if isinstance(last, ast.Break):
        return "break"
    if isinstance(last, ast.Expr):
        return short(last.value, 24)
    return "..."


def _statically_false(test: ast.AST) -> bool:
    if isinstance(test, ast.Constant):
        return not test.value
    name = final_identifier(test)
    return name == "TYPE_CHECKING"


_FLIP = {ast.Lt: ast.Gt(), ast.Gt: ast.Lt(), ast.LtE: ast.GtE(), ast.GtE: ast.LtE()}


def _const_int(node: ast.AST) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _const_int(node.operand)
        return -v if v is not None else None
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, str) and re.fullmatch(r"-?\d+", v.strip()):
            return int(v)
    return None


def _rank_compare(op: ast.cmpop, other: ast.AST) -> int:
    """The polarity of `rank <op> other`."""
    if isinstance(other, ast.Constant) and other.value is None:
        return 0  # `local_rank is None`: launched distributed or not
    if isinstance(op, (ast.In, ast.NotIn)):
        if not isinstance(other, (ast.Tuple, ast.List, ast.Set)):
            return +1 if isinstance(op, ast.In) else -1  # `rank in ranks`: a subset
        values = [_const_int(e) for e in other.elts]
        if any(v is None for v in values) or not values:
            return +1 if isinstance(op, ast.In) else -1
        if set(values) <= {-1}:
            return 0
        p = +1 if 0 in values else -1
        return p if isinstance(op, ast.In) else -p
    c = _const_int(other)
    if isinstance(op, (ast.Eq, ast.Is)):
        if c is None:
            return +1  # rank == src
        return 0 if c < 0 else (+1 if c == 0 else -1)
    if isinstance(op, (ast.NotEq, ast.IsNot)):
        if c is None:
            return -1
        return 0 if c < 0 else (-1 if c == 0 else +1)
    if c is None:
        return 0  # rank < world_size: unknown, say nothing
    if isinstance(op, ast.Gt):
        return -1 if c >= 0 else 0
    if isinstance(op, ast.GtE):
        return -1 if c >= 1 else 0
    if isinstance(op, ast.Lt):
        return +1 if c >= 1 else 0
    if isinstance(op, ast.LtE):
        return +1 if c >= 0 else 0
    return 0


def analysis(module: SourceModule) -> RankAnalysis:
    """The file's rank analysis, computed once and shared by the rules."""
    return module.memo("rank_analysis", lambda: RankAnalysis(module))


_WORLD_SIZE = re.compile(r"^(?:(?:ddp|dist|global|local)_)?world_size$|^(?:num_processes|n_procs|nprocs|world)$",
                         re.IGNORECASE)
_DISTRIBUTED_FLAG = re.compile(r"^(?:is_|use_|args_)?(?:distributed|ddp|multiprocessing_distributed)$|"
                               r"^is_initialized$|^is_available$|^is_dist_avail_and_initialized$", re.IGNORECASE)


def single_process(a: RankAnalysis, test: ast.AST, truth: bool, scope: ast.AST) -> bool:
    """Does `test` evaluating to `truth` mean the run is not distributed (one process):
    `world_size <= 1`, `rank == -1`, `not dist.is_initialized()`, `not args.distributed`?"""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return single_process(a, test.operand, not truth, scope)
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) == truth:  # and/True, or/False: every operand holds as given
            return any(single_process(a, v, truth, scope) for v in test.values)
        return False
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        c = _const_int(right)
        if c is None:
            return False
        name = final_identifier(left) or ""
        if _WORLD_SIZE.match(name) or name == "get_world_size":
            one = {ast.LtE: c == 1, ast.Eq: c == 1, ast.Lt: c == 2}.get(type(op))
            many = {ast.Gt: c == 1, ast.NotEq: c == 1, ast.GtE: c == 2}.get(type(op))
            return bool(one) if truth else bool(many)
        if a.is_rank(left, scope):
            minus = {ast.Eq: c == -1, ast.Lt: c == 0, ast.LtE: c == -1}.get(type(op))
            not_minus = {ast.NotEq: c == -1, ast.GtE: c == 0, ast.Gt: c == -1}.get(type(op))
            return bool(minus) if truth else bool(not_minus)
        return False
    if not truth:
        name = final_identifier(test) or ""
        return bool(_DISTRIBUTED_FLAG.match(name))
    return False


def under_single_process(a: RankAnalysis, node: ast.AST) -> bool:
    """Is `node` inside a branch that only runs when the job is not distributed?"""
    c = node
    p = a.parents.get(c)
    scope = None
    while p is not None and not isinstance(p, (*_FUNCS, ast.Lambda)):
        if isinstance(p, (ast.If, ast.IfExp)):
            in_body = c is p.body or (isinstance(p.body, list) and any(s is c for s in p.body))
            in_else = c is p.orelse or (isinstance(p.orelse, list) and any(s is c for s in p.orelse))
            if in_body or in_else:
                if scope is None:
                    scope = a.scope_of(node)
                if single_process(a, p.test, in_body, scope):
                    return True
        c, p = p, a.parents.get(p)
    return False


# ------------------------------------------------------------------ constant arguments
# `evaluate(args, model, evaluate=True)` where the helper's barrier sits under
# `if local_rank not in [-1, 0] and not evaluate:` never reaches it: the HF example scripts'
# load_and_cache_examples idiom. Conditions are partially evaluated with the call's constants.

UNKNOWN = object()


def peval(e: ast.AST, env: dict[str, object]) -> object:
    """The value of `e` given constant bindings of some names; UNKNOWN when it depends on others."""
    t = type(e)
    if t is ast.Constant:
        return e.value
    if t is ast.Name:
        return env.get(e.id, UNKNOWN)
    if t is ast.UnaryOp:
        v = peval(e.operand, env)
        if v is UNKNOWN:
            return UNKNOWN
        if isinstance(e.op, ast.Not):
            return not v
        if isinstance(e.op, ast.USub) and isinstance(v, (int, float)):
            return -v
        return UNKNOWN
    if t is ast.BoolOp:
        is_and = isinstance(e.op, ast.And)
        known = True
        for v in e.values:
            r = peval(v, env)
            if r is UNKNOWN:
                known = False
            elif bool(r) != is_and:
                return r  # and: a false operand decides; or: a true one
        return (True if is_and else False) if known else UNKNOWN
    if t is ast.Compare:
        left = peval(e.left, env)
        for op, right in zip(e.ops, e.comparators):
            r = peval(right, env)
            if left is UNKNOWN or r is UNKNOWN:
                return UNKNOWN
            try:
                ok = _CMP[type(op)](left, r)
            except Exception:
                return UNKNOWN
            if not ok:
                return False
            left = r
        return True
    if t in (ast.Tuple, ast.List, ast.Set):
        vals = [peval(x, env) for x in e.elts]
        return UNKNOWN if any(v is UNKNOWN for v in vals) else tuple(vals)
    return UNKNOWN


_CMP = {ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y, ast.Lt: lambda x, y: x < y,
        ast.LtE: lambda x, y: x <= y, ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y,
        ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y, ast.Is: lambda x, y: x is y,
        ast.IsNot: lambda x, y: x is not y}


def bindings(call: ast.Call, fn: ast.AST, caller_env: dict[str, object]) -> dict[str, object]:
    """Constant values of `fn`'s parameters at this call (defaults included)."""
    args = fn.args
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    env: dict[str, object] = {}
    defaults = args.defaults
    for name, default in zip(params[len(params) - len(defaults):], defaults):
        v = peval(default, {})
        if v is not UNKNOWN:
            env[name] = v
    for a, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            v = peval(default, {})
            if v is not UNKNOWN:
                env[a.arg] = v
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        params = params[1:]
    for name, arg in zip(params, call.args):
        if isinstance(arg, ast.Starred):
            for n in params:  # *args: positions unknown from here
                env.pop(n, None)
            break
        v = peval(arg, caller_env)
        if v is UNKNOWN:
            env.pop(name, None)
        else:
            env[name] = v
    for k in call.keywords:
        if k.arg is None:
            return {}  # **kwargs: anything may be overridden
        v = peval(k.value, caller_env)
        if v is UNKNOWN:
            env.pop(k.arg, None)
        else:
            env[k.arg] = v
    return env


def reachable(a: RankAnalysis, node: ast.AST, env: dict[str, object], known: frozenset = frozenset()) -> bool:
    """False when a condition on the way to `node` (within its function) is decided against it,
    by the constant bindings or by literal facts known at the call (`known`: the caller is in the
    else branch of `if self.args.pipe_parallel`, so the callee's `if self.args.pipe_parallel:`
    branch is not taken): an enclosing branch not taken, or an early exit taken."""
    if not env and not known:
        return True
    c = node
    p = a.parents.get(c)
    while p is not None and not isinstance(p, ast.Module):
        t = type(p)
        if t is ast.If or t is ast.IfExp or t is ast.While:
            in_body = c is p.body or (isinstance(p.body, list) and any(s is c for s in p.body))
            in_else = c is p.orelse or (isinstance(p.orelse, list) and any(s is c for s in p.orelse))
            if in_body or in_else:
                if _decided_against(p.test, in_body, env, known):
                    return False
        elif t is ast.BoolOp:
            for v in p.values:
                if v is c:
                    break
                if _decided_against(v, isinstance(p.op, ast.And), env, known):
                    return False  # short-circuited before reaching c
        if isinstance(c, ast.stmt):
            field_name, idx = _position_in(p, c)
            if field_name is not None:
                for s in getattr(p, field_name)[:idx]:
                    if isinstance(s, ast.If) and not s.orelse and a._block_ends(s.body):
                        if _decided_against(s.test, False, env, known):
                            return False  # an early exit taken
        if isinstance(p, (*_FUNCS, ast.Lambda)):
            break
        c, p = p, a.parents.get(p)
    return True


def _decided_against(test: ast.AST, needed: bool, env: dict[str, object], known: frozenset) -> bool:
    if env:
        v = peval(test, env)
        if v is not UNKNOWN:
            return bool(v) != needed
    return bool(known) and _contradicted(_facts(test, needed), known)


def path_facts(a: RankAnalysis, node: ast.AST) -> frozenset:
    """Literal facts that hold where `node` runs in its function: the enclosing branches' tests
    and the early exits before it."""
    facts: frozenset = frozenset()
    c = node
    p = a.parents.get(c)
    while p is not None and not isinstance(p, ast.Module):
        t = type(p)
        if t is ast.If or t is ast.IfExp or t is ast.While:
            in_body = c is p.body or (isinstance(p.body, list) and any(s is c for s in p.body))
            in_else = c is p.orelse or (isinstance(p.orelse, list) and any(s is c for s in p.orelse))
            if in_body or (in_else and t is not ast.While):
                facts |= _facts(p.test, in_body)
        elif t is ast.BoolOp:
            for v in p.values:
                if v is c:
                    break
                facts |= _facts(v, isinstance(p.op, ast.And))
        if isinstance(c, ast.stmt):
            field_name, idx = _position_in(p, c)
            if field_name is not None:
                for s in getattr(p, field_name)[:idx]:
                    if isinstance(s, ast.If) and not s.orelse and a._block_ends(s.body):
                        facts |= _facts(s.test, False)
        if isinstance(p, (*_FUNCS, ast.Lambda)):
            break
        c, p = p, a.parents.get(p)
    return facts


_RANKISH = re.compile(r"rank|process_index|pid|ordinal", re.IGNORECASE)


def mentions_rank(expr: ast.AST, a: RankAnalysis, scope: ast.AST) -> bool:
    """Does a path expression vary per rank/process (`f"ckpt_rank{rank}.pt"`, os.getpid())?"""
    for n in ast.walk(expr):
        ident = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
        if ident and _RANKISH.search(ident):
            return True
        if isinstance(n, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) and a.is_rank(n, scope):
            return True
        if isinstance(n, ast.Call) and (a.module.dotted(n.func) or "").endswith(("getpid", "uuid4", "uuid1",
                                                                                "mkstemp", "mkdtemp")):
            return True
        if isinstance(n, ast.Name) and RANK_NAME.match(n.id):
            return True
    return False
