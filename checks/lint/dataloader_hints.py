import ast
import re

from torchdoctor.checks.lint._callflow import (argument, cached, has_star_kwargs, is_const, keyword, passes, reaching_value,
                                              short_call)
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import SourceModule, body_nodes
from torchdoctor.registry import lint_rule

_DATALOADER = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
_BACKWARD = ("backward", "manual_backward")
_EVAL_NAME = re.compile(r"val|test|eval|infer|pred", re.IGNORECASE)


@lint_rule(
    code="TD204",
    name="dataloader-hints",
    title="Training DataLoader without workers or pinned memory; non_blocking copies from pageable memory",
    on=(ast.Call,),
    requires=(("DataLoader", "non_blocking"),),
    severity="note",
    default=False,
    related=(),
    invalid=[
        """
import torch
from torch.utils.data import DataLoader

def main():
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # <-
    for epoch in range(10):
        for x, y in train_loader:
            x, y = x.cuda(), y.cuda()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()

if __name__ == "__main__":
    main()
""",
        """
import argparse
import torch

parser = argparse.ArgumentParser()
loader = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=0, pin_memory=True)  # <-
for batch in loader:
    loss = model(batch.to("cuda")).mean()
    loss.backward()
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    loader = DataLoader(ds, batch_size=32, num_workers=8)  # <-
    for images, labels in loader:
        images = images.to(device, non_blocking=True)  # <-
        labels = labels.to(device, non_blocking=True)  # <-
        loss = criterion(model(images), labels)
        loss.backward()
""",
    ],
    valid=[
        """
import torch
if __name__ == "__main__":
    ds = torch.utils.data.TensorDataset(input_ids, position_ids)  # tensors in memory: nothing to load
    dl = torch.utils.data.DataLoader(ds, batch_size=1)
    for batch in dl:
        model(**batch).loss.backward()
""",
        """
import torch
from torch.utils.data import DataLoader
if __name__ == "__main__":
    dl = DataLoader(range(length), batch_size=8, shuffle=True)  # in-memory ints: nothing to load
    for batch in dl:
        model(batch.cuda()).sum().backward()
    data = list(range(10))
    train_loader = DataLoader(data, batch_size=1, shuffle=True)
""",
        """
import torch
from torch.utils.data import DataLoader

def main():
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8, pin_memory=True,
                              persistent_workers=True)
    for x, y in train_loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        model(x).sum().backward()

if __name__ == "__main__":
    main()
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    test_loader = DataLoader(test_set, batch_size=32, shuffle=True)  # shuffled, but an evaluation loader
    for x, y in test_loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
""",
        """
import torch
from torch.utils.data import DataLoader

def make_loader(ds, batch_size):  # library code: the caller decides
    return DataLoader(ds, batch_size=batch_size, shuffle=True)
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    val_loader = DataLoader(val_set, batch_size=256)  # evaluation only: not the training loader
    with torch.no_grad():
        for x, y in val_loader:
            acc = (model(x.cuda()).argmax(1) == y.cuda()).float().mean()
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
    for x, y in train_loader:  # CPU training: pinned memory would not help
        model(x).sum().backward()
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    loader = DataLoader(ds, **cfg.loader)  # workers and pinning come from the config
    for x in loader:
        model(x.to(device, non_blocking=True)).sum().backward()
""",
        """
import torch

def to_device(batch, device):
    return batch.to(device, non_blocking=True)  # no DataLoader in this file: its pinning is unknown here
""",
        """
import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    loader = DataLoader(ds, batch_size=8, num_workers=4, pin_memory=use_cuda)
    for x in loader:
        model(x.to("cuda", non_blocking=True)).sum().backward()
    preds = out.to("cpu", non_blocking=True)
""",
    ],
)
def dataloader_hints(node, module):
    """
    ## What it does
    Off by default (select it with `--select TD204`). In a training script, finds the training
    `DataLoader` (iterated by a loop that calls `backward()`, named like `train*`, or built
    with `shuffle=True`) created without `num_workers` (or with 0), or without
    `pin_memory=True` while the file moves batches to CUDA. In any file that builds its
    loaders, finds `.to(..., non_blocking=True)` / `.cuda(non_blocking=True)` when none of
    those loaders pins memory.

    ## Why is this bad?
    With `num_workers=0` every batch is loaded and augmented in the training process, between
    steps, while the GPU waits. Without `pin_memory=True` batches live in pageable memory: the
    host-to-GPU copy goes through a staging buffer and is synchronous, so `non_blocking=True`
    does nothing. These are speed hints, not bugs, which is why the rule is opt-in and reports
    notes.

    ## Example
    ```python
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    for x, y in loader:
        x = x.to(device, non_blocking=True)
    ```
    Use instead:
    ```python
    loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8,
                        pin_memory=True, persistent_workers=True)
    ```
    """
    name = module.call_name(node)
    if name in _DATALOADER:
        return _loader_hint(node, module)
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "cuda"):
        return _non_blocking_hint(node, module)
    return None


# ------------------------------------------------------------------ the training loader


def _loader_hint(node: ast.Call, module: SourceModule):
    if not module.is_script or has_star_kwargs(node):
        return None
    if not _is_training_loader(node, module):
        return None
    if _literal_data(module, argument(node, "dataset", 0)):
        return None  # DataLoader(range(n)) / a list literal: nothing to load, workers would only add overhead
    problems = []
    workers = argument(node, "num_workers", 5)
    if _tensor_dataset(module, argument(node, "dataset", 0)):
        pass  # tensors already in memory: indexing is a view, workers would only add IPC
    elif not passes(node, "num_workers", 5) or is_const(workers, 0):
        how = "no num_workers" if workers is None else "num_workers=0"
        problems.append(f"loads every batch in the training process ({how}), so the GPU waits between steps")
    pinned = argument(node, "pin_memory", 7)
    if _uses_cuda(module) and (not passes(node, "pin_memory", 7) or is_const(pinned, False)):
        problems.append("does not pin memory, so host-to-GPU copies cannot overlap with compute")
    if not problems:
        return None
    fixes = []
    if any("num_workers" in p for p in problems):
        fixes.append("num_workers=N (a few per GPU) with persistent_workers=True")
    if any("pin memory" in p for p in problems):
        fixes.append("pin_memory=True")
    return Violation(node, f"the training loader {short_call(module, node, 60)} " + ", and ".join(problems),
                     LintFix("Pass " + " and ".join(fixes)))


def _is_training_loader(node: ast.Call, module: SourceModule) -> bool:
    parent = module.parents.get(node)
    names: set[str] = set()
    if isinstance(parent, ast.Assign):
        for t in parent.targets:
            if isinstance(t, ast.Name):
                names.add(t.id)
            elif isinstance(t, ast.Attribute):
                names.add(t.attr)
    elif isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is node:
        return _loop_trains(parent)
    evaluation = any(_EVAL_NAME.search(n) for n in names)
    if not evaluation and (any("train" in n.lower() for n in names) or is_const(argument(node, "shuffle", 2), True)):
        return True
    if not names:
        return False
    for loop in _training_loops(module):
        for n in ast.walk(loop.iter):
            if (isinstance(n, ast.Name) and n.id in names) or (isinstance(n, ast.Attribute) and n.attr in names):
                return True
    return False


def _literal_data(module: SourceModule, data: ast.expr | None, depth: int = 0) -> bool:
    """`range(n)`, `list(range(n))`, a list/tuple literal or comprehension, directly or through a
    local name: data already in memory as plain Python values (tests and toy loops)."""
    if isinstance(data, ast.Name) and depth < 3:
        return _literal_data(module, reaching_value(module, data), depth + 1)
    if isinstance(data, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(data, ast.Call) and isinstance(data.func, ast.Name) and not data.keywords:
        if data.func.id == "range":
            return True
        if data.func.id in ("list", "tuple") and len(data.args) == 1:
            return _literal_data(module, data.args[0], depth + 1)
    return False


def _tensor_dataset(module: SourceModule, data: ast.expr | None) -> bool:
    if isinstance(data, ast.Name):
        data = reaching_value(module, data)
    return isinstance(data, ast.Call) and module.call_name(data) in (
        "torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset")


def _loop_trains(loop: ast.For | ast.AsyncFor) -> bool:
    for n in body_nodes(loop.body):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _BACKWARD:
            return True
    return False


def _training_loops(module: SourceModule) -> list[ast.For | ast.AsyncFor]:
    return cached(module, "training_loops", lambda: [
        n for n in ast.walk(module.tree) if isinstance(n, (ast.For, ast.AsyncFor)) and _loop_trains(n)])


def _uses_cuda(module: SourceModule) -> bool:
    def compute() -> bool:
        for n in ast.walk(module.tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "cuda":
                return True
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("cuda"):
                return True
            if isinstance(n, ast.keyword) and n.arg == "non_blocking":
                return True
        return False
    return cached(module, "uses_cuda", compute)


# ------------------------------------------------------------------ non_blocking without pinned memory


def _unpinned_loaders(module: SourceModule) -> list[int] | None:
    """Lines of the file's DataLoaders when none of them pins memory (None: one does, or may, or
    there are none, or the file pins batches itself)."""
    def compute() -> list[int] | None:
        lines: list[int] = []
        for n in ast.walk(module.tree):
            if isinstance(n, ast.Call):
                if module.call_name(n) in _DATALOADER:
                    if has_star_kwargs(n):
                        return None
                    pinned = argument(n, "pin_memory", 7)
                    if passes(n, "pin_memory", 7) and not is_const(pinned, False):
                        return None
                    lines.append(n.lineno)
                elif isinstance(n.func, ast.Attribute) and n.func.attr == "pin_memory":
                    return None  # batches pinned by hand (or a custom batch type's pin_memory)
        return lines or None
    return cached(module, "unpinned_loaders", compute)


def _non_blocking_hint(node: ast.Call, module: SourceModule):
    kw = keyword(node, "non_blocking")
    if kw is None or not is_const(kw.value, True):
        return None
    dest = node.args[0] if node.args else (keyword(node, "device").value if keyword(node, "device") else None)
    if isinstance(dest, ast.Constant) and isinstance(dest.value, str) and dest.value.startswith("cpu"):
        return None  # a device-to-host copy: another matter
    loaders = _unpinned_loaders(module)
    if not loaders:
        return None
    first = cached(module, "non_blocking_first_on_line", lambda: {})
    key = node.lineno
    if first.setdefault(key, node) is not node:
        return None  # one note per line
    where = ", ".join(str(n) for n in loaders[:3])
    plural = "s" if len(loaders) > 1 else ""
    verb = "do" if plural else "does"
    return Violation(node, f"{short_call(module, node, 50)}: the DataLoader{plural} at line{plural} {where} {verb} "
                           "not pin memory, so this copy from pageable memory is synchronous and non_blocking=True "
                           "has no effect",
                     LintFix(f"Pass pin_memory=True to the DataLoader{plural} at line{plural} {where}"))
