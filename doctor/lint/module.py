"""One parsed source file with the facts every lint rule needs: qualified names through the
import aliases, parents, scopes, the module's functions (for a light call graph) and whether the
file is a training script or a library.

Parsing happens once per file; rules read this object and never re-parse.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# Conventional names that mean the torch modules even when we cannot see their import (a
# notebook cell, `from common import *`), accepted only in files that import torch at all.
CONVENTIONAL = {"dist": "torch.distributed", "nn": "torch.nn", "F": "torch.nn.functional", "torch": "torch"}


@dataclass
class SourceModule:
    path: str
    text: str
    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)

    @classmethod
    def parse(cls, path: str, text: str) -> "SourceModule":
        tree = ast.parse(text, filename=path, type_comments=False)
        module = cls(path, text, tree)
        module._index()
        return module

    # ------------------------------------------------------------------ indexing
    def _index(self) -> None:
        parents = self.parents
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        if self.imports_torch:
            for name, qual in CONVENTIONAL.items():
                self.aliases.setdefault(name, qual)

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
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
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
        return self.qualname(call.func)

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
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                table.setdefault(node.name, []).append(node)
                parent = self.parents.get(node)
                if isinstance(parent, ast.ClassDef):
                    table.setdefault(f"{parent.name}.{node.name}", []).append(node)
        return table

    @cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        return {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef)}


def body_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of these statements without descending into nested functions, lambdas or
    classes (they run later, if at all)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(ast.iter_child_nodes(node))):
            if not isinstance(child, _SCOPES):
                stack.append(child)


def calls_in(body: list[ast.stmt]) -> Iterator[ast.Call]:
    return (n for n in body_nodes(body) if isinstance(n, ast.Call))


def callee_simple_name(call: ast.Call) -> str | None:
    """`evaluate(...)` -> "evaluate"; `self.evaluate(...)` -> "evaluate"; else None."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return func.attr
    return None


def transitive_callers(module: SourceModule, direct: set[str]) -> dict[str, str]:
    """Module-local functions that reach a function in `direct` (or a direct fact) through calls.

    `direct` names functions that have the property themselves; the result maps each function
    name with the property to the chain that gives it ("evaluate -> reduce_metrics").
    """
    reach: dict[str, str] = {name: name for name in direct}
    changed = True
    while changed:
        changed = False
        for name, defs in module.functions.items():
            if name in reach or "." in name:
                continue
            for d in defs:
                for call in calls_in(d.body):
                    callee = callee_simple_name(call)
                    if callee in reach and callee != name:
                        reach[name] = f"{name} -> {reach[callee]}"
                        changed = True
                        break
                if name in reach:
                    break
    return reach


def _is_main_guard(test: ast.expr) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))
