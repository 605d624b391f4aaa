import ast
import os
import re

from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import body_nodes, callee_simple_name
from torchdoctor.registry import lint_rule

from ._training_loop import (FUNCS, LOOPS, cached, calls_model, disables_grad, enclosing_loops, facts, is_backward,
                             key_of, loop_nodes, loop_trains, model_callee, optimizer_of_step, text, train_mode_call,
                             under_no_grad)

_EVAL_WORDS = frozenset({"evaluate", "evaluation", "eval", "validate", "validation", "valid", "val", "test",
                         "testing"})
_NOT_EVAL_WORDS = frozenset({"train", "training", "dataloader", "loader", "dataset", "sampler", "split"})
_FRAMEWORK_HOOKS = frozenset({"validation_step", "test_step", "predict_step", "validation_step_end",
                              "test_step_end", "validation_epoch_end", "test_epoch_end"})
_VAL_ITER = re.compile(r"(?i)^(val|valid|validation|test|testing|eval|evaluation|dev|holdout)"
                       r"(_|loader|dataloader|dl|set|data|ds|iter|batches|$)"
                       r"|_(val|valid|validation|test|eval|dev)(_|$|loader|dl)")


_EVAL_PREFIX = re.compile(r"(?<![A-Za-z0-9])(?i:val|valid|validation|test|testing|eval|evaluation|dev|holdout)_?"
                          r"(?i:data)?$")


def _names_an_eval_loader(text: str) -> bool:
    """`val_loader`, `test_dataloader`, `eval_dl`... anywhere. Found from the suffix: a pattern that
    starts with the alternatives has no literal prefix for re to skip by, and scanned whole files."""
    for suffix in ("loader", "Loader", "_dl"):
        i = text.find(suffix)
        while i != -1:
            if _EVAL_PREFIX.search(text, max(0, i - 16), i):
                return True
            i = text.find(suffix, i + 1)
    return False


@lint_rule(
    code="TD104",
    name="eval-without-no-grad",
    title="evaluation runs the model with autograd on, or eval() is never undone in the training loop",
    on=(ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor, ast.While, ast.Expr),
    requires=((
        # `model.eval()`, also spelled `model. eval()` or across a line break inside brackets
        "backward", re.compile(r"\.\s*eval\s*\("),
        # a function named like evaluation: evaluate, run_validation, test_epoch (words of the name)
        re.compile(r"def[ \t]+\w*?(?<![A-Za-z])(?i:evaluate|evaluation|eval|validate|validation|valid|val|test|"
                   r"testing)(?![a-z])"),
        # a loop over an evaluation split: `for x, y in val_loader:` (an identifier of the iterable
        # that starts with one of those words, as the rule's own _VAL_ITER sees it)
        re.compile(r"for[ \t][^:\n]*[ \t]in[ \t][^:\n]*?(?:(?<![A-Za-z0-9])"
                   r"(?i:val|valid|validation|test|testing|eval|evaluation|dev|holdout)"
                   r"(?:_|loader|dataloader|dl|set|data|ds|iter|batches|(?![A-Za-z0-9]))"
                   r"|_(?i:val|valid|validation|test|eval|dev)(?:_|loader|dl|(?![A-Za-z0-9])))"),
        # a loader of an evaluation split anywhere (`score(model, test_loader)`,
        # `batches = tqdm(val_dl)`): the value-flow engine may carry it into a loop
        _names_an_eval_loader),),
    severity="warning",
    related=("cuda-out-of-memory",),
    invalid=[
        """
import torch
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x)  # <-
        correct += (out.argmax(1) == y).sum().item()
    return correct
""",
        """
import torch

def predict(model, batches):
    model. eval()  # the same call, spaced after the dot
    outputs = []
    for x in batches:
        outputs.append(model(x))  # <-
    return outputs
""",
        """
import torch
def fit(model, train_loader, val_loader, optimizer):
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        for x, y in val_loader:
            val_loss = criterion(model(x), y).item()  # <-
""",
        """
import torch
model = Net()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    model.eval()  # <-
    with torch.no_grad():
        acc = accuracy(model(val_x), val_y)
""",
        """
import torch
model.eval()
for image in images:
    prediction = model(image.unsqueeze(0))  # <-
    print(prediction.argmax())
""",
        """
# pytorch/examples language_translation/main.py (BSD-3), shortened: "Turn off gradients" is not what eval() does
import torch
def validate(model, valid_dl, loss_fn):
    losses = 0
    # Turn off gradients a moment
    model.eval()
    for src, tgt in tqdm(valid_dl):
        logits = model(src, tgt[:-1, :])  # <-
        losses += loss_fn(logits, tgt[1:, :]).item()
    return losses / len(valid_dl)
""",
        """
import torch
def train(model, loader, val_loader, optimizer):
    for epoch in range(10):
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
        validate(model, val_loader)  # <-

@torch.no_grad()
def validate(model, loader):
    model.eval()                              # never undone: the next epoch trains in eval mode
    return [model(x) for x, _ in loader]
""",
        """
import torch
import torch.nn.functional as F
from tqdm import tqdm
def fit(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        batches = tqdm(val_loader, leave=False)   # the progress bar wraps the validation loader
        val_loss = 0.0
        for x, y in batches:
            val_loss += F.cross_entropy(model(x), y).item()  # <-
""",
        """
import torch
def fit(model, loaders, optimizer, criterion):
    for epoch in range(10):
        for x, y in loaders["train"]:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        for x, y in loaders["val"]:
            out = model(x)  # <-
            print(criterion(out, y).item())
""",
        """
import torch
def score(model, loader):                  # not named like evaluation; only ever given the test split
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()  # <-
    return correct

def main(model, test_loader):
    print("accuracy", score(model, test_loader) / len(test_loader.dataset))
""",
    ],
    valid=[
        """
import torch
if __name__ == "__main__":
    torch.set_grad_enabled(False)  # autograd already off for the whole script
    net = RetinaFace(phase="test")
    net.eval()
    for path in images:
        loc, conf = net(load(path))
""",
        """
import torch
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return [model(x) for x, _ in loader]
""",
        """
import torch
def validate(model, val_loader):
    model.eval()
    with torch.inference_mode():
        for x, y in val_loader:
            out = model(x)
""",
        """
import torch
class Trainer:
    def evaluate(self, dataset=None):     # a delegating wrapper: it never runs the model itself
        output = self.evaluation_loop(dataset, description="Evaluation")
        return output.metrics
""",
        """
import torch
import pytorch_lightning as pl
class LitModel(pl.LightningModule):
    def validation_step(self, batch, batch_idx):   # Lightning runs this under no_grad
        x, y = batch
        return self.loss(self(x), y)
""",
        """
import torch
for epoch in range(epochs):
    model.train()                          # back to training at the start of every epoch
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        evaluate_metrics(model(val_x))
""",
        """
import torch
def train_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()

for epoch in range(epochs):
    train_one_epoch(model, loader, optimizer)   # the helper switches back to train()
    model.eval()
""",
        """
import torch
model.backbone.eval()                      # frozen batch norm while fine-tuning: training follows
for x, y in loader:
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
""",
        """
import torch
def val_step(model, batch):
    return model(batch["x"])

with torch.no_grad():                      # every caller disables autograd
    for batch in val_loader:
        val_step(model, batch)
""",
        """
import torch
ema_model = copy.deepcopy(model)
for x, y in loader:
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()
    ema_model.eval()                       # an EMA copy is never trained
""",
        """
# kuangliu/pytorch-cifar models/resnet.py (MIT): a smoke test, not an evaluation
import torch
def test():
    net = ResNet18()
    y = net(torch.randn(1, 3, 32, 32))
    print(y.size())
""",
        """
import torch
import pytorch_lightning as pl
class LitResnet(pl.LightningModule):
    def evaluate(self, batch, stage=None):          # only called from Lightning's no_grad hooks
        x, y = batch
        return self.criterion(self(x), y)

    def validation_step(self, batch, batch_idx):
        self.evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self.evaluate(batch, "test")
""",
        """
# ultralytics/yolov5 val.py (AGPL-3.0), shortened: the project's own inference-mode decorator
import torch
from utils.torch_utils import smart_inference_mode
@smart_inference_mode()
def run(model, dataloader):
    model.eval()
    for im, targets in dataloader:
        preds = model(im)
""",
        """
import torch
def test_cam(model, images):                      # saliency: gradients are the point
    for x in images:
        model(x).max().backward()
""",
        """
import pytest
def test_forward_shape(model):
    out = model(torch.zeros(1, 3))
    assert out.shape == (1, 10)
""",
        """
import torch
def score(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct

def main(model, test_loader):
    with torch.no_grad():                  # the only caller disables autograd
        print("accuracy", score(model, test_loader))
""",
        """
import torch
def score(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct

def main(model, train_loader, test_loader, optimizer):
    for x, y in train_loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    print(score(model, train_loader), score(model, test_loader))   # not only evaluation data
""",
        """
import torch
from tqdm import tqdm
def fit(model, val_loader):
    batches = tqdm(val_loader)
    with torch.no_grad():
        for x, y in batches:
            model(x)
""",
    ],
)
def eval_without_no_grad(node, module):
    """
    ## What it does
    Finds evaluation code that runs the model with autograd on:

    * a function named like `evaluate` / `validate` / `val_*` / `test_*` (not a pytest test, not a
      framework hook such as Lightning's `validation_step`, not a `test()` smoke test without a
      loop) that calls the model itself outside `torch.no_grad()` / `torch.inference_mode()` (as a
      `with` block or a decorator, also a project wrapper named like one), unless every call of
      the function (in the file, or in the project's files that import it) already sits under one;
    * a loop over a validation/test loader (`val_loader`, `test_dl`, `loaders["val"]`, or, through
      the value-flow engine, a progress bar or iterator made from one earlier, a parameter that every
      caller passes one for), or a loop after `model.eval()`, that runs the model without either,
      and does not train;

    and `model.eval()` inside a training loop when nothing in that loop (directly or through a
    helper of the same file) switches the model back with `model.train()`.

    ## Why is this bad?
    `model.eval()` only changes dropout and batch norm; it does not stop autograd. Without
    `no_grad` every activation of the evaluation pass is kept for a backward pass that never
    comes: evaluation needs as much memory as training (often with larger batches) and runs
    slower, and CUDA out of memory appears "only during validation". The other way round, an
    `eval()` that is never undone leaves dropout off and batch norm statistics frozen for the
    rest of training, silently.

    ## Example
    ```python
    def evaluate(model, loader):
        model.eval()
        return [model(x) for x, _ in loader]
    ```
    Use instead:
    ```python
    @torch.no_grad()
    def evaluate(model, loader):
        model.eval()
        return [model(x) for x, _ in loader]
    ```
    """
    if isinstance(node, FUNCS):
        return _eval_function(node, module)
    if isinstance(node, ast.Expr):
        return _after_eval(node, module)
    found = []
    if isinstance(node, (ast.For, ast.AsyncFor)):
        v = _val_loop(node, module)
        if v is not None:
            found.append(v)
    v = _stuck_in_eval(node, module)
    if v is not None:
        found.append(v)
    return found


# ------------------------------------------------------------------ names

def _words(name: str) -> list[str]:
    return [w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_") if w]


def _is_eval_name(name: str) -> bool:
    lower = name.lower()
    if not ("val" in lower or "test" in lower) or name in _FRAMEWORK_HOOKS or name.startswith("on_"):
        return False
    words = _words(name)
    return bool(_EVAL_WORDS.intersection(words)) and not _NOT_EVAL_WORDS.intersection(words)


def _is_test_module(module) -> bool:
    def compute() -> bool:
        base = os.path.basename(module.path)
        parts = module.path.replace(os.sep, "/").split("/")
        if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py" or "tests" in parts:
            return True
        return any(q.split(".")[0] in ("pytest", "unittest") for q in module.aliases.values())
    return cached(module, "td104_test_module", compute)


def _in_eval_function(module, node) -> bool:
    for a in module.ancestors(node):
        if isinstance(a, FUNCS) and _is_eval_name(a.name):
            return True
    return False


def _callers_disable_grad(module, fn) -> bool:
    """Every call of `fn` runs under no_grad (and there is at least one): the calls by its name in
    this file, and those the value-flow engine finds in the project's files that import it
    (`evaluate()` defined in engine.py, called under `torch.no_grad()` from train.py)."""
    if fn is None:
        return False
    sites = [(module, c) for c in facts(module).calls_by_name.get(fn.name, [])]
    if module.parents.get(fn) is module.tree:
        sites += [(cm, c) for cm, c in module.flow.call_sites(fn) if cm is not module]
    return bool(sites) and all(under_no_grad(cm, c) or _in_framework_hook(cm, c) for cm, c in sites)


def _in_framework_hook(module, node) -> bool:
    """Inside Lightning's validation_step/test_step/predict_step, which the framework runs under no_grad."""
    fn = module.enclosing_function(node)
    return fn is not None and fn.name in _FRAMEWORK_HOOKS


def _grad_off_before(module, fn, node) -> bool:
    """`torch.set_grad_enabled(False)` as a statement earlier in the function (or, for module-level
    code such as a `__main__` block, earlier at module level)."""
    for n in body_nodes(fn.body if fn is not None else module.tree.body):
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and n.lineno < node.lineno and \
                disables_grad(module, n.value) and not isinstance(module.parents.get(n), (ast.With, ast.AsyncWith)):
            return True
    return False


def _unguarded_model_call(module, nodes, fn, model=None):
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        name = model_callee(module, n) if model is None else (model if calls_model(module, n, model) else None)
        if name is None or under_no_grad(module, n) or _grad_off_before(module, fn, n):
            continue
        return n, name
    return None


def _trains(module, nodes) -> bool:
    f = facts(module)
    for n in nodes:
        if isinstance(n, ast.Call) and (f.helper(n, "backward") or optimizer_of_step(module, n)
                                        or is_backward(module, n)):
            return True
    return False


def _enclosing_function(module, node):
    return module.enclosing_function(node)


# ------------------------------------------------------------------ the four checks

def _eval_function(fn, module):
    if not _is_eval_name(fn.name):
        return None
    if _words(fn.name)[0] == "test" and _is_test_module(module):
        return None
    cls = module.parents.get(fn)
    if isinstance(cls, ast.ClassDef) and any("TestCase" in (module.dotted(b) or "") for b in cls.bases):
        return None
    if any(disables_grad(module, d) for d in fn.decorator_list) or under_no_grad(module, fn):
        return None
    nodes = list(body_nodes(fn.body))
    found = _unguarded_model_call(module, nodes, fn)
    if found is None or _trains(module, nodes) or _callers_disable_grad(module, fn):
        return None
    call, model = found
    words = _words(fn.name)
    if not (_EVAL_WORDS - {"test", "testing"}).intersection(words) and not any(
            isinstance(n, LOOPS) for n in nodes):
        return None  # `def test(): net = ResNet18(); print(net(x).shape)`: a smoke test, not an evaluation
    edits: tuple[Edit, ...] = ()
    if module.aliases.get("torch") == "torch" and isinstance(fn, ast.FunctionDef):
        line = fn.lineno  # the `def` line: innermost decorator, below @staticmethod/@property
        indent = module.lines[line - 1][: fn.col_offset]
        if not indent.strip():
            edits = (Edit(line, fn.col_offset, line, fn.col_offset, f"@torch.no_grad()\n{indent}"),)
    return Violation(call, f"{fn.name}() runs `{text(module, call, 40)}` with autograd on: evaluation keeps every "
                           "activation for a backward pass that never comes (as much memory as training, slower); "
                           "model.eval() does not turn autograd off",
                     LintFix(f"Decorate {fn.name}() with @torch.no_grad() (or @torch.inference_mode())",
                             edits=edits, safe=False))


def _val_loop(loop, module):
    named = _names_eval_split(loop.iter)
    if not named and _flow_candidate(loop) is None:
        return None
    if _in_eval_function(module, loop):
        return None
    fn = _enclosing_function(module, loop)
    nodes = list(loop_nodes(loop))
    found = _unguarded_model_call(module, nodes, fn)
    if found is None or _trains(module, nodes):
        return None
    # The value-flow question last: most loops of a model file never get this far.
    if not named and not _val_loop_iter(loop, module):
        return None
    if _callers_disable_grad(module, fn):
        return None
    call, model = found
    return Violation(call, f"the loop over `{text(module, loop.iter, 40)}` (line {loop.lineno}) runs "
                           f"`{text(module, call, 40)}` with autograd on: evaluation keeps every activation for a "
                           "backward pass that never comes (as much memory as training, slower)",
                     LintFix("Wrap the evaluation loop in `with torch.no_grad():` (or torch.inference_mode())"))


def _after_eval(stmt, module):
    call = stmt.value
    if type(call) is not ast.Call or type(call.func) is not ast.Attribute or call.func.attr not in ("eval", "train"):
        return None
    mode = train_mode_call(module, call)
    if mode is None or mode[0] != "eval":
        return None
    model = mode[1]
    if _in_eval_function(module, stmt):
        return None
    fn = _enclosing_function(module, stmt)
    if _callers_disable_grad(module, fn):
        return None
    parent = module.parents.get(stmt)
    block = None
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(parent, field, None)
        if isinstance(stmts, list) and any(s is stmt for s in stmts):
            block = stmts
            break
    if block is None:
        return None
    later = block[[i for i, s in enumerate(block) if s is stmt][0] + 1:]
    for s in later:
        if isinstance(s, (*FUNCS, ast.ClassDef)):
            continue  # a definition runs later, if at all
        nodes = list(body_nodes([s]))
        if any(isinstance(n, ast.Call) and (m := train_mode_call(module, n)) and m[0] == "train" for n in nodes):
            return None
        loops = [n for n in nodes if isinstance(n, LOOPS)]
        for loop in loops:
            if isinstance(loop, (ast.For, ast.AsyncFor)) and _val_loop_iter(loop, module):
                continue
            inner = list(loop_nodes(loop))
            if _trains(module, inner):
                continue
            found = _unguarded_model_call(module, inner, fn, model)
            if found is not None:
                use = found[0]
                return Violation(use, f"`{text(module, use, 40)}` runs in a loop after {model}.eval() (line "
                                      f"{stmt.lineno}) with autograd on: inference keeps every activation for a "
                                      "backward pass that never comes; eval() does not turn autograd off",
                                 LintFix("Wrap the loop in `with torch.no_grad():` (or torch.inference_mode())"))
    return None


def _val_loop_iter(loop, module) -> bool:
    """The loop iterates an evaluation split: a name in the iterable says so (`tqdm(val_loader)`,
    `self.test_dl`), or, through the value-flow engine, every value the iterable may hold does (a
    progress bar or iterator made from the loader earlier, `loaders["val"]`, a parameter that
    every caller passes a validation loader for)."""
    if _names_eval_split(loop.iter):
        return True
    if _flow_candidate(loop) is None:
        return False
    origins = [o.node for o in module.flow.origins(loop.iter, across_files=False)]
    return bool(origins) and not any(o is loop.iter for o in origins) and all(_names_eval_split(o) for o in origins)


def _flow_candidate(loop):
    """The plain name a loop iterates, through wrappers (`enumerate(tqdm(batches))`); None for
    `self.blocks`, `range(n)` and the like, not worth a value-flow question."""
    inner = loop.iter
    while isinstance(inner, ast.Call) and inner.args:
        inner = inner.args[0]
    return inner if isinstance(inner, ast.Name) else None


def _names_eval_split(expr) -> bool:
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Name):
            n = sub.id
        elif isinstance(sub, ast.Attribute):
            n = sub.attr
        elif isinstance(sub, ast.Subscript) and isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str):
            n = sub.slice.value  # `loaders["val"]`
        else:
            continue
        if _VAL_ITER.search(n):
            return True
    return False


def _steps(module, loop) -> bool:
    """The loop runs backward and an optimizer step (directly or through helpers): it trains."""
    if loop_trains(module, loop) is None:
        return False
    table = cached(module, "td104_steps", dict)
    if id(loop) not in table:
        f = facts(module)
        table[id(loop)] = any(isinstance(n, ast.Call) and (optimizer_of_step(module, n) or f.helper(n, "step"))
                              for n in loop_nodes(loop))
    return table[id(loop)]


def _stuck_in_eval(loop, module):
    if not _steps(module, loop):
        return None  # no backward, or backward without an optimizer step (gradient inspection)
    f = facts(module)
    nodes = list(loop_nodes(loop))
    evals: list[tuple[ast.AST, str]] = []
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        mode = train_mode_call(module, n)
        if mode is not None:
            if mode[0] == "train":
                return None
            evals.append((n, mode[1]))
            continue
        if f.helper(n, "train"):
            return None
        for model in _helper_evals(module, n):
            evals.append((n, model))
    for call, model in evals:
        if next((lp for lp in enclosing_loops(module, call) if _steps(module, lp)), None) is not loop:
            continue  # the innermost training loop around it judges (and reports) it
        if not _is_trained(module, loop, nodes, model):
            continue
        via = "" if train_mode_call(module, call) else f" (through {text(module, call.func, 30)}())"
        return Violation(call, f"{model}.eval(){via} switches the model to evaluation mode inside the training loop "
                               f"at line {loop.lineno}, and nothing in the loop calls {model}.train(): from the next "
                               "iteration on, dropout stays off and batch norm uses frozen statistics while training",
                         LintFix(f"Call {model}.train() at the start of every iteration, before the training step "
                                 "(or at the end of the evaluation)"))
    return None


def _helper_evals(module, call) -> list[str]:
    """Models a module-local helper leaves in eval mode, as the caller names them."""
    name = callee_simple_name(call)
    if name is None:
        return []
    out = []
    for fdef, last_eval, last_train in _eval_summary(module, name):
        params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
        if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
            params = params[1:]
        for receiver, line in last_eval.items():
            if line < last_train:
                continue
            root, _, rest = receiver.partition(".")
            if root in params:
                i = params.index(root)
                arg = call.args[i] if i < len(call.args) else next((k.value for k in call.keywords
                                                                     if k.arg == root), None)
                key = key_of(module, arg) if arg is not None else None
                if key:
                    out.append(f"{key}.{rest}" if rest else key)
            elif root == "self" and isinstance(call.func, ast.Attribute):
                out.append(receiver)
            elif root not in params:
                out.append(receiver)
    return out


def _eval_summary(module, name):
    """[(def, {receiver: line of its last eval()}, line of the last train())] for each def of `name`."""
    table = cached(module, "td104_eval_summary", dict)
    if name not in table:
        rows = []
        if name in facts(module).function_names:
            for fdef in facts(module).functions.get(name, ()):
                last_eval: dict[str, int] = {}
                last_train = -1
                for n in body_nodes(fdef.body):
                    if isinstance(n, ast.Call):
                        mode = train_mode_call(module, n)
                        if mode and mode[0] == "eval":
                            last_eval[mode[1]] = max(last_eval.get(mode[1], -1), n.lineno)
                        elif mode or facts(module).helper(n, "train"):
                            last_train = max(last_train, n.lineno)
                if last_eval:
                    rows.append((fdef, last_eval, last_train))
        table[name] = rows
    return table[name]


def _is_trained(module, loop, nodes, model) -> bool:
    f = facts(module)
    if model in f.optimized:
        return True
    for n in nodes:
        if not isinstance(n, ast.Call):
            continue
        if calls_model(module, n, model) and not under_no_grad(module, n):
            return True
        if f.helper(n, "backward"):
            for a in [*n.args, *(k.value for k in n.keywords)]:
                if key_of(module, a) == model:
                    return True
            if model.startswith("self.") and isinstance(n.func, ast.Attribute) and \
                    key_of(module, n.func.value) == "self":
                return True
    return False
