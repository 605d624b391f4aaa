import ast
import re

from torchdoctor.checks.lint._wrappers import (
    cached, prefix_of, reaching, scope_body, scope_of, statement_of, strips_prefix, wrapped, wrapper_calls,
)
from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import body_nodes
from torchdoctor.registry import lint_rule

_SAVERS = {"torch.save", "safetensors.torch.save_file", "torch.distributed.checkpoint.save"}
_LOADERS = {"torch.load", "safetensors.torch.load_file", "torch.hub.load_state_dict_from_url",
            "torch.utils.model_zoo.load_url"}


@lint_rule(
    code="TD112",
    name="wrapped-state-dict-saved",
    title="state_dict() of a DataParallel/DDP/torch.compile wrapper saved, or strict=False loading",
    on=(ast.Call,),
    requires=("state_dict", ("DataParallel", "compile", "strict")),
    severity="warning",
    related=("state-dict-module-prefix",),
    invalid=[
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(Net().cuda(), device_ids=[local_rank])
for epoch in range(10):
    train(model)
    torch.save(model.state_dict(), f"ckpt_{epoch}.pt")  # <-
""",
        """
import torch
import torch.nn as nn
def main():
    model = Net()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.to("cuda")
    train(model)
    checkpoint = {
        "epoch": 10,
        "model": model.state_dict(),  # <-
        "optimizer": optimizer.state_dict(),
    }
    torch.save(checkpoint, "last.pt")
""",
        """
import torch
model = torch.compile(Net())
state = model.state_dict()  # <-
torch.save(state, "model.pt")
""",
        """
import torch
model = torch.nn.parallel.DistributedDataParallel(Net())
net = Net()
net.load_state_dict(torch.load("pretrained.pt"), strict=False)  # <-
ckpt = torch.load("last.pt", map_location="cpu")
model.load_state_dict(ckpt["model"], strict=False)  # <-
""",
    ],
    valid=[
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(Net().cuda(), device_ids=[local_rank])
torch.save(model.module.state_dict(), "model.pt")  # the unwrapped network
""",
        """
import torch
import torch.nn as nn
model = Net()
model_without_ddp = model
if args.distributed:
    model = nn.parallel.DistributedDataParallel(model)
    model_without_ddp = model.module
torch.save({"model": model_without_ddp.state_dict()}, "checkpoint.pth")
""",
        """
import copy
import torch
model = torch.nn.DataParallel(Net())
best = copy.deepcopy(model.state_dict())  # kept in memory and loaded back into the same wrapper
model.load_state_dict(best)
""",
        """
import torch
model = torch.nn.DataParallel(Net())
torch.save(model.state_dict(), "model.pt")
def load(net, path):
    state = torch.load(path)
    state = {k.replace("module.", ""): v for k, v in state.items()}  # the prefix is handled
    net.load_state_dict(state)
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(Net().cuda())
model_to_save = model.module if hasattr(model, "module") else model  # the unwrapping idiom
torch.save(model_to_save.state_dict(), "pytorch_model.bin")
""",
        """
import torch
import torch.nn as nn
model = nn.parallel.DistributedDataParallel(Net().cuda(), device_ids=[gpu])
if resume:
    ckpt = torch.load("checkpoint.pth", map_location="cpu")
    model.load_state_dict(ckpt["model"])  # resumed into the same wrapper: the keys match
for epoch in range(epochs):
    train(model)
    torch.save({"epoch": epoch, "model": model.state_dict()}, "checkpoint.pth")
""",
        """
import torch
model = Net()
model.compile()  # in place: no _orig_mod. prefix
torch.save(model.state_dict(), "model.pt")
""",
        """
import torch
backbone = Net()
backbone.load_state_dict(torch.load("imagenet.pt"), strict=False)  # no wrapper in this file: fine-tuning
""",
        """
import torch
model = torch.nn.parallel.DistributedDataParallel(Net())
ckpt = torch.load("last.pt", map_location="cpu")
missing, unexpected = model.module.load_state_dict(ckpt["model"], strict=False)  # inspected
assert not unexpected, unexpected
""",
        """
import torch
def main(args):
    checkpoint = torch.load(args.finetune, map_location="cpu")
    checkpoint_model = checkpoint["model"]
    for k in ["head.weight", "head.bias"]:
        del checkpoint_model[k]  # a deliberate partial load: the new head stays random
    model.load_state_dict(checkpoint_model, strict=False)
    model = torch.nn.parallel.DistributedDataParallel(model)
""",
    ],
)
def wrapped_state_dict_saved(node, module):
    """
    ## What it does
    Finds `torch.save(model.state_dict(), ...)` (directly, in a checkpoint dict, or through a
    variable) where `model`'s reaching assignment is `nn.DataParallel(...)`,
    `DistributedDataParallel(...)` or `torch.compile(...)`. In a file that wraps models it also
    finds `load_state_dict(torch.load(...), strict=False)` whose result is ignored and whose
    checkpoint was not edited in between (deleting a head's keys is deliberate). Files that
    already strip the prefix (`"module."` literals, `consume_prefix_in_state_dict_if_present`,
    `_orig_mod`) or load checkpoints back into a model wrapped the same way (a resume
    round trip) are left alone.

    ## Why is this bad?
    A wrapper's `state_dict()` names every tensor `module.<name>` (DataParallel/DDP) or
    `_orig_mod.<name>` (torch.compile). Loading the file into the plain network for
    evaluation or inference fails with `Missing key(s) ... Unexpected key(s) in state_dict:
    "module.conv1.weight"`. Adding `strict=False` to silence that error loads nothing at
    all: every key mismatches, and the model keeps its random initialisation without a word.

    ## Example
    ```python
    model = DDP(model, device_ids=[local_rank])
    torch.save(model.state_dict(), "model.pt")
    ...
    net.load_state_dict(torch.load("model.pt"), strict=False)
    ```
    Use instead:
    ```python
    torch.save(model.module.state_dict(), "model.pt")  # keys without "module."
    ...
    net.load_state_dict(torch.load("model.pt"))        # strict: mismatches are errors
    ```
    """
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "state_dict":
        return _saved_wrapper_state(node, module)
    if func.attr == "load_state_dict":
        return _strict_false(node, module)
    return None


def _saved_wrapper_state(node: ast.Call, module):
    receiver = node.func.value
    if not isinstance(receiver, (ast.Name, ast.Attribute, ast.Call)):
        return None
    saver = _saved_by(module, node)
    if saver is None:
        return None
    w = wrapped(module, receiver)
    if w is None or strips_prefix(module) or _round_trip(module, w.kind):
        return None
    prefix = prefix_of(w.kind)
    recv = ast.get_source_segment(module.text, receiver) or "model"
    message = (f"{recv}.state_dict() is saved ({saver}) from the {w.kind} wrapper {w.origin}: "
               f"every key starts with '{prefix}', so loading the file into the plain network fails with "
               f"'Unexpected key(s) in state_dict: \"{prefix}<name>\"' (or loads nothing with strict=False)")
    edits = ()
    if w.kind == "torch.compile":
        summary = (f"Save the original network's state_dict: keep a reference to the module you passed to "
                   f"torch.compile (or {recv}._orig_mod.state_dict())")
    else:
        summary = f"Save the wrapped network: {recv}.module.state_dict()"
        if w.certain and isinstance(receiver, (ast.Name, ast.Attribute)) and receiver.end_lineno is not None:
            # Unsafe: a resume path in this project may expect the prefixed keys.
            edits = (Edit(receiver.end_lineno, receiver.end_col_offset, receiver.end_lineno,
                          receiver.end_col_offset, ".module"),)
    return Violation(node, message, LintFix(summary, edits, safe=False))


_RESUME = re.compile(r"checkpoint|resume|restart|load", re.I)


def _round_trip(module, kind: str) -> bool:
    """The file loads checkpoints back into a model wrapped the same way (`model.load_state_dict`
    after `model = DDP(model)`, or `restart_from_checkpoint(path, state_dict=model)`): a resume
    checkpoint whose prefixed keys match where they go."""
    def compute() -> bool:
        for n in ast.walk(module.tree):
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name == "load_state_dict" and isinstance(f, ast.Attribute):
                if any(k.arg == "strict" for k in n.keywords):
                    continue  # strict=False proves nothing about the keys
                targets = [f.value]
            elif _RESUME.search(name):
                targets = [*n.args, *(k.value for k in n.keywords)]
            else:
                continue
            for t in targets:
                if isinstance(t, (ast.Name, ast.Attribute)):
                    w = wrapped(module, t)
                    if w is not None and w.kind == kind:
                        return True
        return False
    return cached(module, f"TD112:round-trip:{kind}", compute)


def _saved_by(module, sd_call: ast.Call) -> str | None:
    """'torch.save at line N' when the state_dict() result flows into a save call: as (part
    of) its argument, or through a variable assigned in the same scope and saved later."""
    stmt = statement_of(module, sd_call)
    for a in module.ancestors(sd_call):
        if isinstance(a, ast.Call) and module.call_name(a) in _SAVERS:
            return f"{module.call_name(a)} at line {a.lineno}"
        if a is stmt:
            break
    # `state = m.state_dict()`, `ckpt = {"model": m.state_dict()}`, `ckpt["model"] = m.state_dict()`
    names: set[str] = set()
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            while isinstance(t, ast.Subscript):
                t = t.value
            if isinstance(t, ast.Name):
                names.add(t.id)
    if not names:
        return None
    scope = scope_of(module, sd_call)
    for call in _saver_calls(module, scope):
        if call.lineno < stmt.lineno:
            continue
        for arg in [*call.args[:1], *(k.value for k in call.keywords if k.arg in ("obj", "tensors", "state_dict"))]:
            for n in ast.walk(arg):
                if isinstance(n, ast.Name) and n.id in names:
                    return f"{module.call_name(call)} at line {call.lineno}"
    return None


def _saver_calls(module, scope) -> list[ast.Call]:
    def compute():
        return [n for n in body_nodes(scope_body(scope))
                if isinstance(n, ast.Call) and module.call_name(n) in _SAVERS]
    return cached(module, f"savers:{id(scope)}", compute)


def _strict_false(node: ast.Call, module):
    strict = next((k.value for k in node.keywords if k.arg == "strict"), None)
    if not (isinstance(strict, ast.Constant) and strict.value is False):
        return None
    if not isinstance(module.parents.get(node), ast.Expr):
        return None  # the missing/unexpected keys are looked at
    if not node.args:
        return None
    chain: list[str] = []
    loaded = _loaded_checkpoint(module, node.args[0], chain)
    if loaded is None:
        return None
    if chain and _edited(module, node, set(chain)):
        return None  # keys deleted/renamed/filled in between: a deliberate partial load (fine-tuning)
    wraps = wrapper_calls(module)
    if not wraps or strips_prefix(module):
        return None
    kind, call = next(((k, c) for k, c in wraps if k != "torch.compile"), wraps[0])
    unwrapped = "model._orig_mod" if kind == "torch.compile" else "model.module"
    return Violation(
        node,
        f"load_state_dict(..., strict=False) of the checkpoint from {loaded}, in a file that wraps models "
        f"({kind} at line {call.lineno}): if the keys carry a '{prefix_of(kind)}' prefix (or lack one), "
        f"nothing is loaded and no error is raised; the returned missing/unexpected keys are ignored",
        LintFix("Make the keys match and load strictly: strip the prefix with torch.nn.modules.utils."
                f"consume_prefix_in_state_dict_if_present(state, '{prefix_of(kind)}'), or save "
                f"{unwrapped}.state_dict(); if some keys are meant to be skipped, check the returned "
                "missing_keys/unexpected_keys"))


def _loaded_checkpoint(module, expr: ast.AST, chain: list[str], depth: int = 0) -> str | None:
    """'torch.load at line N' when `expr` is (a part of) a loaded checkpoint; `chain` collects
    the variables on the way (`ckpt = torch.load(p); sd = ckpt["model"]` -> ckpt, sd)."""
    if depth > 3:
        return None
    if isinstance(expr, ast.Call):
        name = module.call_name(expr)
        if name in _LOADERS:
            return f"{name} at line {expr.lineno}"
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in ("get", "copy"):
            return _loaded_checkpoint(module, expr.func.value, chain, depth + 1)
        return None
    if isinstance(expr, ast.Subscript):
        return _loaded_checkpoint(module, expr.value, chain, depth + 1)
    if isinstance(expr, ast.Name):
        d = reaching(module, expr)
        if d is not None and d.value is not None and d.local:
            chain.append(expr.id)
            return _loaded_checkpoint(module, d.value, chain, depth + 1)
    return None


_EDITING_METHODS = ("pop", "popitem", "update", "setdefault", "clear", "__delitem__", "__setitem__")


def _edited(module, use: ast.Call, names: set[str]) -> bool:
    """Is one of the checkpoint variables edited in this scope before `use` (`del sd[k]`,
    `sd.pop(k)`, `sd[k] = v`)?"""
    for n in body_nodes(scope_body(scope_of(module, use))):
        if getattr(n, "lineno", use.lineno) >= use.lineno:
            continue
        target = None
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
            target = n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _EDITING_METHODS:
            target = n.func.value
        while isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name) and target.id in names:
            return True
    return False
