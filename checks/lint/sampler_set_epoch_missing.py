import ast
import re

from torchdoctor.checks.lint._wrappers import cached, scope_body, scope_of, statement_of, top_level_classes
from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import body_nodes, callee_simple_name
from torchdoctor.registry import lint_rule

_SAMPLERS = {"torch.utils.data.DistributedSampler", "torch.utils.data.distributed.DistributedSampler"}
_LOADERS = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_EVAL_NAME = re.compile(r"val|test|eval", re.I)


@lint_rule(
    code="TD105",
    name="sampler-set-epoch-missing",
    title="DistributedSampler shuffles, but set_epoch() is never called",
    on=(ast.Call,),
    requires=("DistributedSampler",),
    severity="warning",
    related=(),
    invalid=[
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
sampler = DistributedSampler(train_set)  # <-
loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=8)
for epoch in range(args.epochs):
    for x, y in loader:
        train_step(x, y)
""",
        """
import torch
from torch.utils.data.distributed import DistributedSampler
def main(args):
    train_loader = torch.utils.data.DataLoader(
        dataset, batch_size=32,
        sampler=DistributedSampler(dataset, shuffle=True),  # <-
    )
    for epoch in range(args.epochs):
        train_one_epoch(model, train_loader, optimizer)

def train_one_epoch(model, data_loader, optimizer):
    for images, targets in data_loader:
        loss = model(images, targets)
""",
        """
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
def build_loaders(train_set, val_set):
    train_sampler = DistributedSampler(train_set) if dist.is_initialized() else None  # <-
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train = DataLoader(train_set, sampler=train_sampler)
    val = DataLoader(val_set, sampler=val_sampler)
    return train, val

train_loader, val_loader = build_loaders(train_set, val_set)
def train(epoch):
    for batch in tqdm(train_loader):
        step(batch)
for epoch in range(100):
    train(epoch)
""",
    ],
    valid=[
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
sampler = DistributedSampler(train_set)
loader = DataLoader(train_set, batch_size=64, sampler=sampler)
for epoch in range(args.epochs):
    sampler.set_epoch(epoch)
    for x, y in loader:
        train_step(x, y)
""",
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
loader = DataLoader(val_set, sampler=DistributedSampler(val_set, shuffle=False))
for epoch in range(args.epochs):
    for x, y in loader:
        evaluate(x, y)
""",
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
train_loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
for epoch in range(args.epochs):
    if args.distributed:
        train_loader.sampler.set_epoch(epoch)
    train_one_epoch(model, train_loader, optimizer)
""",
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
loader = DataLoader(test_set, sampler=DistributedSampler(test_set))
for x, y in loader:  # one pass: there is no next epoch to reshuffle
    predict(x)
""",
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
val_loader = DataLoader(val_set, sampler=DistributedSampler(val_set))  # shuffles, but order is irrelevant
for epoch in range(args.epochs):
    for x, y in val_loader:
        evaluate(x, y)
""",
        """
import torch
from engine import train_one_epoch
from torch.utils.data import DataLoader, DistributedSampler
loader = DataLoader(train_set, sampler=DistributedSampler(train_set))
for epoch in range(args.epochs):
    train_one_epoch(model, loader, epoch)  # defined elsewhere: it may call set_epoch itself
""",
    ],
)
def sampler_set_epoch_missing(node, module):
    """
    ## What it does
    Finds a `DistributedSampler` that shuffles (`shuffle` is not `False`; it defaults to
    `True`) whose DataLoader is iterated once per epoch — in a loop nested in an outer loop,
    in a function called from a loop, or passed to a module function that iterates it from
    a loop — in a file that never calls `set_epoch`. Loaders named like validation/test
    loaders are skipped (their order does not matter), and so are samplers re-created with a
    `seed=` inside the epoch loop.

    ## Why is this bad?
    DistributedSampler seeds its permutation with `seed + epoch`, and `epoch` only changes
    through `sampler.set_epoch(epoch)`. Without the call every epoch visits the samples in
    exactly the same order on every rank, and each rank keeps seeing the same shard of the
    data: shuffling is effectively off, which hurts convergence and generalisation without
    any error or warning.

    ## Example
    ```python
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, sampler=sampler, batch_size=64)
    for epoch in range(epochs):
        for batch in loader:
            ...
    ```
    Use instead:
    ```python
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            ...
    ```
    """
    if not _is_sampler(module, node):
        return None
    shuffle = next((k.value for k in node.keywords if k.arg == "shuffle"), node.args[3] if len(node.args) > 3 else None)
    if isinstance(shuffle, ast.Constant) and not shuffle.value:
        return None
    if "set_epoch" in module.text or module.project.files_with("set_epoch"):
        # called somewhere (directly, through loader.sampler, a loop over loaders, getattr), or
        # in another file of the project (an engine.py whose epoch loop takes the loader)
        return None
    handles, direct = _assigned_to(module, node)
    loader_calls: list[ast.Call] = []
    for a in module.ancestors(node):
        if isinstance(a, ast.Call) and module.call_name(a) in _LOADERS:
            loader_calls.append(a)
            break
        if isinstance(a, ast.stmt):
            break
    if handles:
        loader_calls.extend(_loaders_using(module, node, handles))
    for call in loader_calls:
        for loader in _loader_handles(module, call):
            if _EVAL_NAME.search(loader[0].rsplit(".", 1)[-1]):
                continue  # the order of an evaluation pass does not matter
            found = _epoch_loop(module, loader)
            if found is None:
                continue
            loop, how = found
            if any(k.arg == "seed" for k in node.keywords) and any(a is loop for a in module.ancestors(node)):
                continue  # a new sampler, seeded per epoch
            return _violation(module, node, shuffle, handles, direct, loader, loop, how)
    return None


def _is_sampler(module, node) -> bool:
    name = module.call_name(node)
    if name in _SAMPLERS:
        return True
    if isinstance(node.func, ast.Name):  # a project subclass: class RASampler(DistributedSampler)
        cls = top_level_classes(module).get(node.func.id)
        return cls is not None and any(module.qualname(b) in _SAMPLERS for b in cls.bases)
    return False


def _climb(module, node):
    """From a value up through `a if c else b` / `a or b` to what receives it."""
    cur = node
    parent = module.parents.get(cur)
    while isinstance(parent, (ast.IfExp, ast.BoolOp)):
        cur, parent = parent, module.parents.get(parent)
    return cur, parent


def _assigned_to(module, node) -> tuple[list[str], bool]:
    """Dotted names the value of `node` is assigned to; True when assigned as is (no if/or)."""
    cur, parent = _climb(module, node)
    if isinstance(parent, ast.Assign) and parent.value is cur:
        names = [module.dotted(t) for t in parent.targets if isinstance(t, (ast.Name, ast.Attribute))]
        return [n for n in names if n], cur is node
    if isinstance(parent, ast.AnnAssign) and parent.value is cur \
            and isinstance(parent.target, (ast.Name, ast.Attribute)):
        name = module.dotted(parent.target)
        return ([name] if name else []), cur is node
    return [], False


def _mentions(module, expr, handles) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, (ast.Name, ast.Attribute)) and module.dotted(n) in handles:
            return True
    return False


def _loaders_using(module, sampler, handles) -> list[ast.Call]:
    """DataLoader calls that take the sampler (by name) as sampler / batch_sampler."""
    local = all("." not in h for h in handles)
    where = scope_body(scope_of(module, sampler)) if local else module.tree.body
    out = []
    for n in body_nodes(where) if local else ast.walk(module.tree):
        if isinstance(n, ast.Call) and module.call_name(n) in _LOADERS:
            args = [k.value for k in n.keywords if k.arg in ("sampler", "batch_sampler")]
            if len(n.args) > 3:
                args.append(n.args[3])
            if any(_mentions(module, a, handles) for a in args):
                out.append(n)
    return out


def _loader_handles(module, call):
    """Names a DataLoader call ends up in: its assignment targets, or through `return` from a
    module function, the targets of that function's callers (`train, val = build_loaders()`)."""
    names, _ = _assigned_to(module, call)
    out = [(n, call) for n in names]
    cur, parent = _climb(module, call)
    index = None
    if isinstance(parent, ast.Tuple):
        index = parent.elts.index(cur)
        cur, parent = parent, module.parents.get(parent)
    if not isinstance(parent, ast.Return):
        # `loader = DataLoader(...); return loader` / `return train_loader, val_loader`
        func = module.enclosing_function(call)
        if func is None or not names:
            return out
        for n in body_nodes(func.body):
            if isinstance(n, ast.Return) and n.value is not None:
                elts = n.value.elts if isinstance(n.value, ast.Tuple) else [n.value]
                for i, e in enumerate(elts):
                    if isinstance(e, ast.Name) and e.id in names:
                        out.extend(_caller_targets(module, func.name, i if isinstance(n.value, ast.Tuple) else None))
        return out
    func = module.enclosing_function(call)
    if func is not None:
        out.extend(_caller_targets(module, func.name, index))
    return out


def _caller_targets(module, fname, index):
    out = []
    for n in ast.walk(module.tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and callee_simple_name(n.value) == fname:
            for t in n.targets:
                if index is None and isinstance(t, (ast.Name, ast.Attribute)):
                    name = module.dotted(t)
                elif index is not None and isinstance(t, (ast.Tuple, ast.List)) and index < len(t.elts):
                    name = module.dotted(t.elts[index])
                else:
                    name = None
                if name:
                    out.append((name, n.value))
    return out


def _loops_around(module, node):
    for a in module.ancestors(node):
        if isinstance(a, _LOOPS):
            yield a
        if isinstance(a, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            return


def _iterates(module, loop, handle) -> bool:
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    for n in ast.walk(loop.iter):
        if isinstance(n, (ast.Name, ast.Attribute)) and module.dotted(n) == handle \
                and not isinstance(module.parents.get(n), ast.Attribute):
            return True
    return False


def _for_loops(module):
    return cached(module, "TD105:for",
                  lambda: [n for n in ast.walk(module.tree) if isinstance(n, (ast.For, ast.AsyncFor))])


def _calls_in_loops(module):
    def compute():
        out = []
        for n in ast.walk(module.tree):
            if isinstance(n, ast.Call):
                loop = next(_loops_around(module, n), None)
                if loop is not None:
                    out.append((n, loop))
        return out
    return cached(module, "TD105:calls-in-loops", compute)


def _epoch_loop(module, loader):
    """(the loop that repeats the pass over the loader, how) or None."""
    handle, _ = loader
    for f in _for_loops(module):
        if not _iterates(module, f, handle):
            continue
        outer = next(_loops_around(module, f), None)
        if outer is not None:
            return outer, "nested"
        func = module.enclosing_function(f)
        if func is not None:
            for call, loop in _calls_in_loops(module):
                if callee_simple_name(call) == func.name:
                    return loop, f"{func.name}()"
    # passed to a module function that iterates it, from inside a loop
    for call, loop in _calls_in_loops(module):
        name = callee_simple_name(call)
        if not name or name not in module.functions:
            continue
        for pos, arg in [*enumerate(call.args), *((k.arg, k.value) for k in call.keywords)]:
            if not (isinstance(arg, (ast.Name, ast.Attribute)) and module.dotted(arg) == handle):
                continue
            for fdef in module.functions[name]:
                params = [a.arg for a in [*fdef.args.posonlyargs, *fdef.args.args]]
                if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
                    params = params[1:]
                param = params[pos] if isinstance(pos, int) and pos < len(params) else pos
                if isinstance(param, str) and any(_iterates(module, f, param) for f in body_nodes(fdef.body)
                                                  if isinstance(f, (ast.For, ast.AsyncFor))):
                    return loop, f"{name}()"
    # passed, from inside a loop, to a function imported from another file of the project
    # (`from engine import train_one_epoch`): that function's job is to iterate it
    for call, loop in _calls_in_loops(module):
        name = callee_simple_name(call)
        if not name or name in module.functions or not _imported_from_project(module, name):
            continue
        if any(isinstance(arg, (ast.Name, ast.Attribute)) and module.dotted(arg) == handle
               for arg in [*call.args, *(k.value for k in call.keywords)]):
            return loop, f"{name}()"
    return None


def _imported_from_project(module, name) -> bool:
    for node in module.nodes(ast.ImportFrom):
        if any((a.asname or a.name) == name for a in node.names):
            return module.project.is_local_module(node.module)
    return False


def _violation(module, node, shuffle, handles, direct, loader, loop, how):
    loader_name = loader[0]
    sampler_text = ast.get_source_segment(module.text, node.func) or "DistributedSampler"
    why = "shuffle defaults to True" if shuffle is None else \
        f"shuffle={ast.get_source_segment(module.text, shuffle) or '...'}"
    via = "" if how == "nested" else f" through {how}"
    call_target = handles[0] if handles else f"{loader_name}.sampler"
    message = (f"{sampler_text}(...) shuffles ({why}) and {loader_name} is iterated again in every pass of the "
               f"loop at line {loop.lineno}{via}, but set_epoch() is never called: every epoch uses the same "
               f"order on every rank")
    named = isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name)
    epoch = loop.target.id if named else "epoch"
    edits = ()
    first = loop.body[0]
    if (how == "nested" and isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)
            and first.lineno > loop.lineno and (direct or not handles)
            and scope_of(module, loop) is scope_of(module, node)
            and statement_of(module, node).lineno < loop.lineno):
        indent = " " * first.col_offset
        edits = (Edit(first.lineno, first.col_offset, first.lineno, first.col_offset,
                      f"{call_target}.set_epoch({epoch})\n{indent}"),)
    return Violation(node, message,
                     LintFix(f"Call {call_target}.set_epoch({epoch}) at the start of every epoch, before iterating "
                             f"{loader_name}", edits, safe=False))
