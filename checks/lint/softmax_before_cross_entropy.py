import ast

from torchdoctor.checks.lint._callflow import (
    argument,
    cached,
    reaching_value,
    self_attribute_values,
    source,
)
from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.registry import lint_rule

# Losses that apply log_softmax themselves (want logits), and those that want log-probabilities.
_CE_FUNCS = {"torch.nn.functional.cross_entropy"}
_CE_CLASSES = {"torch.nn.CrossEntropyLoss", "torch.nn.modules.loss.CrossEntropyLoss"}
_NLL_FUNCS = {"torch.nn.functional.nll_loss"}
_NLL_CLASSES = {"torch.nn.NLLLoss", "torch.nn.modules.loss.NLLLoss"}
_LOSS_CLASSES = _CE_CLASSES | _NLL_CLASSES
_SOFTMAX_FUNCS = {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"}
_SOFTMAX_CLASSES = {"torch.nn.Softmax", "torch.nn.modules.activation.Softmax"}


@lint_rule(
    code="TD114",
    name="softmax-before-cross-entropy",
    title="Probabilities (softmax) passed to a loss that wants logits or log-probabilities",
    on=(ast.Call,),
    requires=(("softmax", "Softmax"), ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss")),
    severity="error",
    related=("loss-target-format",),
    invalid=[
        """
import torch.nn.functional as F
def train_step(model, x, y):
    probs = F.softmax(model(x), dim=1)
    loss = F.cross_entropy(probs, y)  # <-
    loss.backward()
""",
        """
import torch
import torch.nn as nn
class Trainer:
    def __init__(self, model):
        self.model = model
        self.criterion = nn.CrossEntropyLoss()
    def step(self, x, y):
        out = self.model(x)
        return self.criterion(out.softmax(dim=-1), y)  # <-
""",
        """
import torch
import torch.nn as nn
criterion = nn.NLLLoss()
def step(model, x, y):
    return criterion(torch.softmax(model(x), 1), y)  # <-
""",
        """
import torch.nn as nn
head = nn.Sequential(nn.Linear(512, 10))
act = nn.Softmax(dim=1)
loss = nn.CrossEntropyLoss()(act(head(x)), y)  # <-
""",
    ],
    valid=[
        """
import torch.nn.functional as F
def train_step(model, x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    probs = F.softmax(logits, dim=1)  # for the metrics: fine
    return loss, probs.argmax(1)
""",
        """
import torch
import torch.nn.functional as F
def step(model, x, y):
    return F.nll_loss(F.log_softmax(model(x), dim=1), y)  # log-probabilities: what nll_loss wants
""",
        """
import torch.nn.functional as F
def distill(student_logits, teacher_logits, T=2.0):
    soft_targets = F.softmax(teacher_logits / T, dim=-1)  # probabilities as the *target*: correct
    return F.cross_entropy(student_logits / T, soft_targets)
""",
        """
import torch.nn.functional as F
def step(model, x, y):
    probs = F.softmax(model(x), dim=1)
    probs = model.head(x)  # rebound to logits before the loss
    return F.cross_entropy(probs, y)
""",
    ],
)
def softmax_before_cross_entropy(node, module):
    """
    ## What it does
    Finds `F.cross_entropy(p, y)` / `nn.CrossEntropyLoss()(p, y)` where `p` is a softmax
    output (`F.softmax`, `torch.softmax`, `x.softmax()`, `nn.Softmax()(x)`, inline or assigned
    in the same function), and `F.nll_loss` / `nn.NLLLoss` fed softmax instead of log_softmax.
    Softmax as the *target* (distillation) and log_softmax into nll_loss are fine.

    ## Why is this bad?
    CrossEntropyLoss applies log_softmax itself: given probabilities it computes
    log_softmax(softmax(x)). The outputs are squashed into [0, 1], the loss can never go
    much below its starting value, gradients are tiny, and training stalls while looking like
    it runs. NLLLoss wants log-probabilities: given probabilities its loss is meaningless.

    ## Example
    ```python
    loss = F.cross_entropy(F.softmax(logits, dim=1), y)
    ```
    Use instead:
    ```python
    loss = F.cross_entropy(logits, y)          # softmax only for predictions/metrics
    loss = F.nll_loss(F.log_softmax(logits, dim=1), y)
    ```
    """
    loss = _loss_kind(module, node)
    if loss is None:
        return None
    kind, loss_text = loss
    arg = argument(node, "input", 0)
    if arg is None:
        return None
    softmax = _softmax_call(module, arg)
    if softmax is None:
        return None
    inner = _softmax_input(module, softmax)
    shown = source(module, softmax) or "softmax(...)"
    edits: tuple[Edit, ...] = ()
    if kind == "logits":
        message = (f"{loss_text} receives probabilities from `{_short(shown)}`: cross-entropy applies log_softmax "
                   f"itself, so this computes log_softmax(softmax(x)); the loss barely moves and training stalls")
        summary = "Pass the raw logits to the loss; apply softmax only for predictions or metrics"
        if arg is softmax and inner is not None:
            edits = (_replace(softmax, source(module, inner)),)
    else:
        message = (f"{loss_text} receives probabilities from `{_short(shown)}`, but it expects log-probabilities: "
                   f"the loss is not a likelihood and its gradients are wrong")
        summary = "Use log_softmax (F.log_softmax(x, dim=1)), or pass logits to F.cross_entropy instead"
    return Violation(node, message, LintFix(summary, edits=edits, safe=False))


def _short(text: str, limit: int = 50) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _replace(node: ast.AST, text: str | None) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text or "")


def _loss_kind(module, call):
    """("logits", text) for a cross-entropy call, ("log-probabilities", text) for an NLL call."""
    name = module.call_name(call)
    if name in _CE_FUNCS:
        return "logits", "F.cross_entropy()"
    if name in _NLL_FUNCS:
        return "log-probabilities", "F.nll_loss()"
    func = call.func
    if isinstance(func, (ast.Name, ast.Attribute)) and _final(func) not in _loss_holders(module):
        return None  # no `x = nn.CrossEntropyLoss()` in the file binds this name: not a loss
    ctor = _constructor(module, func)
    if ctor in _CE_CLASSES:
        return "logits", "CrossEntropyLoss"
    if ctor in _NLL_CLASSES:
        return "log-probabilities", "NLLLoss"
    return None


def _final(node):
    return node.id if isinstance(node, ast.Name) else node.attr


def _loss_holders(module):
    """The names (`criterion`, `self.loss_fct` as `loss_fct`) that the file assigns a CE/NLL loss
    object to. `_constructor` only follows a name to a constructor call assigned to it, so any
    other name cannot be a loss; asking the flow about every call of a model file cost more than
    parsing it."""
    def compute():
        out = set()
        for call in module.nodes(ast.Call):
            if module.call_name(call) in _LOSS_CLASSES:
                parent = module.parents.get(call)
                targets = parent.targets if isinstance(parent, ast.Assign) else \
                    [parent.target] if isinstance(parent, ast.AnnAssign) else []
                out.update(_final(t) for t in targets if isinstance(t, (ast.Name, ast.Attribute)))
        return out
    return cached(module, "cross_entropy_loss_holders", compute)


def _constructor(module, func):
    """The class a callable was built from: `nn.CrossEntropyLoss()(...)`, `criterion(...)` with
    `criterion = nn.CrossEntropyLoss()`, `self.criterion(...)` assigned so in the class."""
    values = []
    if isinstance(func, ast.Call):
        values = [func]
    elif isinstance(func, ast.Name):
        v = reaching_value(module, func)
        values = [v] if v is not None else []
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        values = self_attribute_values(module, func) or []
    if not values or not all(isinstance(v, ast.Call) for v in values):
        return None  # unknown, or bound to something that is not a constructor call
    names = {module.call_name(v) for v in values}
    return names.pop() if len(names) == 1 else None


def _softmax_call(module, expr, depth=0):
    if depth > 3:
        return None
    if isinstance(expr, ast.Name):
        value = reaching_value(module, expr)
        return _softmax_call(module, value, depth + 1) if value is not None else None
    if not isinstance(expr, ast.Call):
        return None
    name = module.call_name(expr)
    if name in _SOFTMAX_FUNCS:
        return expr
    if isinstance(expr.func, ast.Attribute) and expr.func.attr == "softmax" and name is None:
        return expr  # `logits.softmax(dim=1)`: a tensor method
    if _constructor(module, expr.func) in _SOFTMAX_CLASSES:
        return expr
    return None


def _softmax_input(module, call):
    if module.call_name(call) in _SOFTMAX_FUNCS:
        return argument(call, "input", 0)
    if isinstance(call.func, ast.Attribute) and call.func.attr == "softmax" and module.call_name(call) is None:
        return call.func.value
    return call.args[0] if call.args else None

