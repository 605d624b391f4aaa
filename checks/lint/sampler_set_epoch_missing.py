import ast
import os
import re

from torchdoctor.checks.lint._wrappers import cached, scope_of, statement_of, top_level_classes
from torchdoctor.lint.model import Edit, LintFix, Violation
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
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
# the validation sampler gets set_epoch; the training one does not (a comment saying set_epoch counts for nothing)
train_sampler = DistributedSampler(train_set)  # <-
val_sampler = DistributedSampler(val_set)
train_loader = DataLoader(train_set, sampler=train_sampler)
val_loader = DataLoader(val_set, sampler=val_sampler)
for epoch in range(args.epochs):
    val_sampler.set_epoch(epoch)
    for batch in train_loader:
        step(batch)
""",
        """
import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
def main(args):
    if args.local_rank == -1:
        train_sampler = RandomSampler(train_data)
    else:
        train_sampler = DistributedSampler(train_data)  # <-
    train_dataloader = DataLoader(train_data, sampler=train_sampler, batch_size=32)
    for epoch in range(args.epochs):
        train_iter = tqdm(train_dataloader) if is_main_process() else train_dataloader
        for step, batch in enumerate(train_iter):
            loss = model(*batch)
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
        """
import torch
from torch.utils.data import DataLoader, DistributedSampler
def train(model, loader, sampler, epochs):
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # set through the helper's parameter
        for batch in loader:
            model(batch)

sampler = DistributedSampler(train_set)
train(model, DataLoader(train_set, sampler=sampler), sampler, 10)
""",
    ],
)
def sampler_set_epoch_missing(node, module):
    """
    ## What it does
    Finds a `DistributedSampler` that shuffles (`shuffle` is not `False`; it defaults to
    `True`) whose DataLoader is iterated once per epoch — in a loop nested in an outer loop,
    in a function called from a loop, or passed to a module function that iterates it from
    a loop — when no `set_epoch()` reaches that sampler. The facts come from the value flow, not
    from the word: the loader may be built in a helper and returned (in a tuple, to another file
    of the project), wrapped in `tqdm`/`enumerate`/a generator, chosen by `x if c else y`;
    `set_epoch()` counts when it is called on this sampler, on `loader.sampler`, or on something
    the flow cannot follow (a helper's parameter, a data wrapper), and not when it provably goes
    to another sampler (the validation one) or only appears in a comment. Loaders named like
    validation/test loaders are skipped (their order does not matter), and so are samplers
    re-created with a `seed=` inside the epoch loop.

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
    handles, direct = _assigned_to(module, node)
    for call in _loaders_fed_by(module, node):
        names, _ = _assigned_to(module, call)
        name = names[0] if names else None
        if name and _EVAL_NAME.search(name.rsplit(".", 1)[-1]):
            continue  # the order of an evaluation pass does not matter
        found = _epoch_loop(module, call)
        if found is None:
            continue
        loop_module, loop, how = found
        if any(k.arg == "seed" for k in node.keywords) and any(a is loop for a in module.ancestors(node)):
            continue  # a new sampler, seeded per epoch
        covering = _set_epoch_calls(module, node, call)
        if covering:
            return None
        return _violation(module, node, shuffle, handles, direct, (name or "the DataLoader", call),
                          loop_module, loop, how, _ignored_calls(module, node, call))
    return None


def _connected(module):
    """This file and the project files it imports from or that import it (cached per file)."""
    def compute():
        out = [module]
        seen = {id(module)}
        for node in module.nodes(ast.ImportFrom):
            other = module.project.import_target(module.path, node.module or "", node.level)
            if other is not None and id(other) not in seen:
                seen.add(id(other))
                out.append(other)
        stem = module.path.rsplit("/", 1)[-1][:-3]
        for other in module.project.importers(module.path, stem):
            if id(other) not in seen:
                seen.add(id(other))
                out.append(other)
        return out
    return cached(module, "TD105:connected", compute)


def _sampler_arg(call):
    for k in call.keywords:
        if k.arg in ("sampler", "batch_sampler"):
            yield k.value
    for i in (3, 4):
        if len(call.args) > i:
            yield call.args[i]


def _feeds(module, expr, sampler, depth=0) -> bool:
    """Does `expr` carry the sampler, itself or inside a batch sampler built around it?"""
    for o in module.flow.origins(expr):
        if o.is_(module, sampler):
            return True
        if depth < 2 and isinstance(o.node, ast.Call) and o.node is not sampler:
            name = (o.module.call_name(o.node) or "").rsplit(".", 1)[-1]
            if name.endswith("Sampler") and not _is_sampler(o.module, o.node):
                inner = [*o.node.args, *(k.value for k in o.node.keywords)]
                if any(_feeds(o.module, a, sampler, depth + 1) for a in inner):
                    return True
    return False


def _loaders_fed_by(module, sampler):
    """The DataLoader calls of this file that take the sampler (named, inline or wrapped in a
    BatchSampler), found through the value flow."""
    return [c for c in module.nodes(ast.Call) if module.call_name(c) in _LOADERS
            and any(_feeds(module, a, sampler) for a in _sampler_arg(c))]


def _epoch_loop(module, loader):
    """(file, the loop that repeats the pass over the loader, how) or None. A `for` loop iterates
    the loader when the flow says so (names, tqdm/enumerate/zip wrappers, helpers returning it,
    parameters receiving it, in this file or a connected one); the pass repeats when that loop
    sits in another loop, or its function is called from inside a loop."""
    for m in _connected(module):
        for f in m.nodes(ast.For, ast.AsyncFor):
            if not any(o.is_(module, loader) for o in m.flow.origins(f.iter)):
                continue
            outer = next(_loops_around(m, f), None)
            if outer is not None:
                return m, outer, "nested"
            func = m.enclosing_function(f)
            if func is None:
                continue
            for cm, call in m.flow.call_sites(func):
                loop = next(_loops_around(cm, call), None)
                if loop is not None:
                    return cm, loop, f"{func.name}()"
    return None


def _set_epoch_receivers(module, sampler, loader):
    for m in _connected(module):
        for c in m.nodes(ast.Call):
            if isinstance(c.func, ast.Attribute) and c.func.attr == "set_epoch":
                yield m, c, c.func.value


def _covers(m, receiver, sampler_module, sampler, loader) -> bool:
    """True: this set_epoch reaches our sampler (or may: its receiver cannot be followed);
    False: it provably goes to another sampler or loader."""
    base = receiver
    via_loader = False
    while isinstance(base, ast.Attribute) and base.attr in ("sampler", "batch_sampler"):
        base, via_loader = base.value, True
    origins = m.flow.origins(base)
    known_other = True
    for o in origins:
        if o.is_(sampler_module, sampler) or o.is_(sampler_module, loader):
            return True
        if isinstance(o.node, ast.Call) and (_is_sampler(o.module, o.node)
                                             or o.module.call_name(o.node) in _LOADERS):
            continue  # another sampler or loader
        known_other = False
    return not known_other


def _set_epoch_calls(module, sampler, loader):
    return [c for m, c, r in _set_epoch_receivers(module, sampler, loader) if _covers(m, r, module, sampler, loader)]


def _ignored_calls(module, sampler, loader):
    """set_epoch calls that provably go to other samplers (the validation sampler's)."""
    return [(m, c) for m, c, r in _set_epoch_receivers(module, sampler, loader) if not _covers(m, r, module, sampler, loader)]


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


def _loops_around(module, node):
    for a in module.ancestors(node):
        if isinstance(a, _LOOPS):
            yield a
        if isinstance(a, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            return


def _violation(module, node, shuffle, handles, direct, loader, loop_module, loop, how, ignored):
    loader_name = loader[0]
    sampler_text = ast.get_source_segment(module.text, node.func) or "DistributedSampler"
    why = "shuffle defaults to True" if shuffle is None else \
        f"shuffle={ast.get_source_segment(module.text, shuffle) or '...'}"
    via = "" if how == "nested" else f" through {how}"
    where = f"line {loop.lineno}" if loop_module is module else \
        f"{os.path.basename(loop_module.path)}:{loop.lineno}"
    call_target = handles[0] if handles else f"{loader_name}.sampler"
    others = ""
    if ignored:
        m, c = ignored[0]
        at = f"line {c.lineno}" if m is module else f"{os.path.basename(m.path)}:{c.lineno}"
        others = f" (the set_epoch() at {at} goes to another sampler)"
    message = (f"{sampler_text}(...) shuffles ({why}) and {loader_name} is iterated again in every pass of the "
               f"loop at {where}{via}, but set_epoch() is never called on this sampler{others}: every epoch "
               f"uses the same order on every rank")
    named = isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name)
    epoch = loop.target.id if named else "epoch"
    edits = ()
    first = loop.body[0]
    if (loop_module is module and how == "nested" and isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)
            and first.lineno > loop.lineno and (direct or not handles)
            and scope_of(module, loop) is scope_of(module, node)
            and statement_of(module, node).lineno < loop.lineno):
        indent = " " * first.col_offset
        edits = (Edit(first.lineno, first.col_offset, first.lineno, first.col_offset,
                      f"{call_target}.set_epoch({epoch})\n{indent}"),)
    return Violation(node, message,
                     LintFix(f"Call {call_target}.set_epoch({epoch}) at the start of every epoch, before iterating "
                             f"{loader_name}", edits, safe=False))
