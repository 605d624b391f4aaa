"""One parsed source file with the facts every lint rule needs: qualified names through the
import aliases, parents, scopes, the module's functions (for a light call graph) and whether the
file is a training script or a library.

Parsing happens once per file; rules read this object and never re-parse.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, is_not
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .project import EMPTY, Project

if TYPE_CHECKING:
    from .flow import ValueFlow

_NAME_ID = attrgetter("id")
_NAME_CTX = attrgetter("ctx")
_ARG_NAME = attrgetter("arg")
_DEF_NAME = attrgetter("name")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_NAME_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_NEWLINE = re.compile(r"\r\n|\r|\n")
# Conventional names that mean the torch modules even when we cannot see their import (a
# notebook cell, `from common import *`), accepted only in files that import torch at all.
CONVENTIONAL = {"dist": "torch.distributed", "nn": "torch.nn", "F": "torch.nn.functional", "torch": "torch"}
# Each as a whole identifier of ASCII source (the name first, so that re can skip to it).
_CONVENTIONAL_WORD = {name: re.compile(rf"{name}(?<![A-Za-z0-9_]{name})(?![A-Za-z0-9_])") for name in CONVENTIONAL}


@dataclass
class SourceModule:
    path: str
    text: str = field(repr=False)
    tree: ast.Module = field(repr=False)
    aliases: dict[str, str] = field(default_factory=dict, repr=False)  # local name -> qualified name
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict, repr=False)
    by_type: dict[type, list[ast.AST]] = field(default_factory=dict, repr=False)
    _call_names: dict[ast.Call, str | None] = field(default_factory=dict, repr=False)
    project: Project = field(default_factory=lambda: EMPTY, repr=False)  # what the other files of the run say
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, path: str, text: str) -> "SourceModule":
        tree = ast.parse(text, filename=path, type_comments=False)
        module = cls(path, text, tree)
        module._index()
        return module

    # ------------------------------------------------------------------ indexing
    def _index(self) -> None:
        # One hand-written traversal builds the parent map and the node-by-type index that the
        # engine dispatches from (ast.walk/iter_child_nodes cost 3x more). It follows only the
        # fields that can hold nodes (see _child_fields): names, constants, operators and
        # Load/Store markers are never looked into, which halves the attribute reads.
        parents = self.parents
        by_type: dict[type, list[ast.AST]] = {}
        plans = _PLANS
        stack: list[ast.AST] = [self.tree]
        pop, push = stack.pop, stack.append
        name_type, constant_type = ast.Name, ast.Constant
        names: list[ast.AST] = []
        constants: list[ast.AST] = []
        while stack:
            node = pop()
            kind = type(node)
            bucket = by_type.get(kind)
            if bucket is None:
                bucket = by_type[kind] = []
            bucket.append(node)
            plan = plans.get(kind)
            if plan is None:
                plan = plans[kind] = _child_fields(kind)
            for name, many in plan:
                value = getattr(node, name, None)
                if value is None:
                    continue
                if many:
                    for item in reversed(value):
                        if item is not None:  # Dict keys: None for `**other`
                            parents[item] = node
                            leaf = type(item)
                            if leaf is name_type:  # the commonest leaves: no stack round trip
                                names.append(item)
                            elif leaf is constant_type:
                                constants.append(item)
                            else:
                                push(item)
                elif many is None:  # a field of unknown type
                    for item in reversed(value if isinstance(value, list) else [value]):
                        if isinstance(item, ast.AST) and not isinstance(item, _SINGLETONS):
                            parents[item] = node
                            push(item)
                else:
                    parents[value] = node
                    leaf = type(value)
                    if leaf is name_type:
                        names.append(value)
                    elif leaf is constant_type:
                        constants.append(value)
                    else:
                        push(value)
        if names:
            by_type.setdefault(ast.Name, []).extend(names)
        if constants:
            by_type.setdefault(ast.Constant, []).extend(constants)
        self.by_type = by_type
        for node in by_type.get(ast.Import, ()):
            for a in node.names:
                if a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    self.aliases.setdefault(top, top)
        for node in by_type.get(ast.ImportFrom, ()):
            if node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        if self.imports_torch:
            # Only names the imports do not already give can be added.
            missing = [name for name in CONVENTIONAL if name not in self.aliases]
            if missing:
                bound = self._bound_conventional_names(missing)
                for name in missing:
                    if name not in bound:  # `dist = Normal(mu, sigma)` is not torch.distributed
                        self.aliases[name] = CONVENTIONAL[name]

    def _bound_conventional_names(self, candidates: list[str]) -> set[str]:
        """Which of these conventional names the file binds itself (assignment, parameter, def,
        loop or with target)."""
        # A name never written as a word cannot be bound. Looking at the file's Name nodes costs
        # about a microsecond each (each is a separate object in memory): a model file has tens
        # of thousands, and most files spell none of the missing names. The parser normalises
        # identifiers (NFKC: a fullwidth `Ｆ` is `F`), so a source with other than ASCII in it is
        # searched in that form; the characters around an identifier in valid code are ASCII,
        # which normalisation leaves alone, so the word keeps its boundaries.
        # A word found in the text as it is needs no normalised copy (558 of the bench packages'
        # parsed files have other than ASCII; most spell a candidate plainly): the answer then
        # comes from the nodes, whichever candidate was seen.
        if not any(_CONVENTIONAL_WORD[name].search(self.text) for name in candidates):
            if self.text.isascii():
                return set()
            text = unicodedata.normalize("NFKC", self.text)
            if not any(_CONVENTIONAL_WORD[name].search(text) for name in candidates):
                return set()
        names = self.by_type.get(ast.Name, ())
        written = compress(map(_NAME_ID, names), map(is_not, map(type, map(_NAME_CTX, names)), repeat(ast.Load)))
        bound: set[str] = set(written) & CONVENTIONAL.keys()
        bound.update(CONVENTIONAL.keys() & set(map(_ARG_NAME, self.by_type.get(ast.arg, ()))))
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            bound.update(CONVENTIONAL.keys() & set(map(_DEF_NAME, self.by_type.get(kind, ()))))
        return bound

    def nodes(self, *types: type) -> list[ast.AST]:
        """Every node of these types, in source order within each type."""
        out: list[ast.AST] = []
        for t in types:
            out.extend(self.by_type.get(t, ()))
        return out

    @cached_property
    def imports_torch(self) -> bool:
        return any(q == "torch" or q.startswith("torch.") for q in self.aliases.values()) or \
            bool(re.search(r"^\s*(?:import|from)\s+torch\b", self.text, re.M))

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def is_script(self) -> bool:
        """An entry point (a training script) rather than a library module."""
        for node in self.tree.body:
            if isinstance(node, ast.If) and _is_main_guard(node.test):
                return True
        for node in self.by_type.get(ast.Call, ()):
            name = self.qualname(node.func) or ""
            if name.endswith(("argparse.ArgumentParser", "init_process_group")):
                return True
        return False

    # ------------------------------------------------------------------ names
    def qualname(self, node: ast.AST) -> str | None:
        """`dist.all_reduce` -> "torch.distributed.all_reduce"; None when the head is unknown."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = self.aliases.get(node.id)
        if head is None:
            return None
        return ".".join([head, *reversed(parts)])

    def dotted(self, node: ast.AST) -> str | None:
        """The written dotted name, aliases not expanded: `self.model.module`."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            return ".".join([node.id, *reversed(parts)])
        return None

    def call_name(self, call: ast.Call) -> str | None:
        # Every rule asks this of every call: resolve each call once per file.
        cache = self._call_names
        if call in cache:
            return cache[call]
        name = cache[call] = self.qualname(call.func)
        return name

    # ------------------------------------------------------------------ structure
    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        while node in self.parents:
            node = self.parents[node]
            yield node

    def enclosing_function(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for a in self.ancestors(node):
            if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return a
        return None

    @cached_property
    def functions(self) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
        """Functions and methods by simple name (a method also as `Class.method`)."""
        table: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in sorted(self.nodes(ast.FunctionDef, ast.AsyncFunctionDef), key=lambda n: (n.lineno, n.col_offset)):
            table.setdefault(node.name, []).append(node)
            parent = self.parents.get(node)
            if isinstance(parent, ast.ClassDef):
                table.setdefault(f"{parent.name}.{node.name}", []).append(node)
        return table

    # ------------------------------------------------------------------ text
    @cached_property
    def _line_starts(self) -> list[int]:
        """Character offset where each line starts, indexed by ast line number (1-based; lines end
        at \r\n, \n or \r as Python's tokenizer sees them, not at \f or \x1c as splitlines does)."""
        starts = [0, 0]
        starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
        return starts

    def char_offset(self, line: int, column: int) -> int:
        """An ast position (column: a UTF-8 byte offset into the line) as a character offset into
        the text; ValueError when it lies outside the text."""
        starts = self._line_starts
        if not 1 <= line < len(starts):
            raise ValueError(f"line {line} outside the file")
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
        raw = self.text[start:end].encode("utf-8")
        if not 0 <= column <= len(raw):
            raise ValueError(f"column {column} outside line {line}")
        return start + len(raw[:column].decode("utf-8", errors="ignore"))

    def segment(self, node: ast.AST) -> str | None:
        """The node's source text (ast.get_source_segment re-splits the whole file on every call)."""
        try:
            return self.text[self.char_offset(node.lineno, node.col_offset):  # type: ignore[attr-defined]
                             self.char_offset(node.end_lineno, node.end_col_offset)]  # type: ignore[attr-defined]
        except (AttributeError, TypeError, ValueError):
            return None

    def memo(self, key: str, compute: Callable[[], Any]) -> Any:
        """A fact about this file computed once (rules are called per node; a module lives for one
        file). Keys are shared by every rule and helper: name them after what they hold."""
        store = self._memo
        if key not in store:
            store[key] = compute()
        return store[key]

    def release(self) -> None:
        """Drop what the rules derived from this file once it is checked. The value-flow engine
        and some memoised facts point back at the module; left alone, every checked file would
        stay in memory until a full garbage collection, and each of those collections would walk
        all of them (on a large code base that cost more than the rules themselves)."""
        self._memo.clear()
        self._call_names.clear()
        for derived in ("flow", "functions", "classes"):
            self.__dict__.pop(derived, None)

    @cached_property
    def flow(self) -> "ValueFlow":
        """The file's value-flow facts (built on first use, shared by every rule)."""
        from .flow import ValueFlow

        return ValueFlow(self)

    @cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        return {n.name: n for n in sorted(self.nodes(ast.ClassDef), key=lambda n: n.lineno)}


# Field types that never hold a node worth indexing: plain values, and the operator and context
# singletons (one shared object per kind, so they cannot have a parent anyway).
_LEAF_FIELD_TYPES = {"identifier", "string", "constant", "int", "expr_context", "boolop", "operator",
                     "unaryop", "cmpop", "type_ignore"}
_SINGLETONS = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_PLANS: dict[type, tuple[tuple[str, bool], ...]] = {}
_REVERSED_PLANS: dict[type, tuple[tuple[str, bool], ...]] = {}
_SCOPE_KINDS = frozenset(_SCOPES)
_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")


def _child_fields(kind: type) -> tuple[tuple[str, bool], ...]:
    """(field, is_list) for the fields of an AST class that can hold nodes, read from the class
    signature the ast module documents (`Call(expr func, expr* args, keyword* keywords)`)."""
    doc = (kind.__doc__ or "").split("\n", 1)[0]
    typed = {name: (ftype, mark) for ftype, mark, name in _FIELD.findall(doc[doc.find("(") + 1:])}
    plan = []
    for name in getattr(kind, "_fields", ()):
        ftype, mark = typed.get(name, ("", ""))
        if ftype in _LEAF_FIELD_TYPES:
            continue
        # An undocumented field (a newer Python): look into it, whatever it holds.
        plan.append((name, mark == "*" if ftype else None))
    return tuple(plan)


def body_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements without descending into nested functions, lambdas or
    classes (they run later, if at all). Rules call this on loop and function bodies all the time:
    it follows only node-holding fields (see _child_fields), like the index does."""
    stack: list[ast.AST] = list(reversed(body))
    pop, push = stack.pop, stack.append
    plans, scopes = _REVERSED_PLANS, _SCOPE_KINDS
    while stack:
        node = pop()
        yield node
        kind = type(node)
        plan = plans.get(kind)
        if plan is None:
            plan = plans[kind] = tuple(reversed(_child_fields(kind)))
        # Children pushed last field first, each list from its end: they come off the stack in
        # source order, without building a list of them first.
        for name, many in plan:
            value = getattr(node, name, None)
            if value is None:
                continue
            if many:
                for child in reversed(value):
                    if child is not None and type(child) not in scopes:
                        push(child)
            elif many is None:
                for child in reversed(value if isinstance(value, list) else [value]):
                    if isinstance(child, ast.AST) and not isinstance(child, _SCOPES):
                        push(child)
            elif type(value) not in scopes:
                push(value)


def cached(module: SourceModule, key: str, compute: Callable[[], Any]) -> Any:
    """module.memo as a function: the spelling the rule helpers use."""
    return module.memo(key, compute)


def source(module: SourceModule, node: ast.AST) -> str | None:
    return module.segment(node)


def scope_of(module: SourceModule, node: ast.AST) -> ast.AST:
    """The function (or lambda) whose local names `node` sees; the module otherwise. Class
    bodies are skipped, as Python does for names used in methods."""
    for a in module.ancestors(node):
        if isinstance(a, _NAME_SCOPES):
            return a
    return module.tree


def scope_body(scope: ast.AST) -> list[ast.stmt]:
    if isinstance(scope, ast.Lambda):
        return [ast.Expr(scope.body)]
    return scope.body  # type: ignore[attr-defined]


def calls_in(body: list[ast.stmt]) -> Iterator[ast.Call]:
    return (n for n in body_nodes(body) if isinstance(n, ast.Call))


def final_identifier(node: ast.AST) -> str | None:
    """`a.b.c` -> "c"; `f` -> "f"; `x.f(...)` (a call) -> "f"."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def callee_simple_name(call: ast.Call) -> str | None:
    """`evaluate(...)` -> "evaluate"; `self.evaluate(...)` -> "evaluate"; else None."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return func.attr
    return None


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))
