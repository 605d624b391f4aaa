"""Shared by TD102, TD103, TD104, TD107: what a training loop looks like to stdlib `ast`
(lint-anchors §4g).

* backward calls (`loss.backward()`, `scaler.scale(loss).backward()`, `accelerator.backward(loss)`,
  `self.manual_backward(loss)`, `torch.autograd.backward(loss)`) and optimizer steps
  (`optimizer.step()`, `scaler.step(optimizer)`, `xm.optimizer_step(optimizer)`; the receiver
  must look like an optimizer: bound to a `torch.optim`-like constructor in the file, or named
  like one, never like a scheduler);
* gradient resets (`zero_grad(...)`, `p.grad = None`, `p.grad.zero_()`, `set_to_none=`);
* model calls: a name bound in the file to an `nn.Module` (a `torch.nn` layer, a local
  `nn.Module` subclass, a DDP/DataParallel/compile wrapper, `from_pretrained`), `self(...)` inside
  an `nn.Module` subclass, or — for function parameters, whose binding the file cannot show —
  the conventional names (`model`, `net`, `*_model`, `backbone`, `encoder`, ...; anchors §4.0
  allow such a short allow-list);
* grad-disabled regions (`with torch.no_grad()/inference_mode()/set_grad_enabled(False)`, the
  same as decorators);
* a light per-module call graph: which functions (transitively) run backward / an optimizer
  step / a gradient reset / `.train()` outside their own loops.

Per-file facts are computed once and cached on the SourceModule.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator

from torchdoctor.lint.model import Edit
from torchdoctor.lint.module import (  # noqa: F401 - cached, scope_*, source: re-exported to the rules
    SourceModule, body_nodes, cached, callee_simple_name, scope_body, scope_of, source,
)

LOOPS = (ast.For, ast.AsyncFor, ast.While)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)

NO_GRAD = frozenset({
    "torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
    "torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode",
})
SET_GRAD = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled",
                      "torch.autograd.grad_mode.set_grad_enabled"})

# Receivers of `.backward(x)` that are not tensors: the argument is the loss.
_BACKWARD_OWNER = re.compile(r"(?i)accel|engine|fabric|trainer|runner|strategy|scaler|amp|deepspeed|booster|"
                             r"plugin|^self$|model|lightning")
_OPTIMIZER = re.compile(r"(?i)optim|^opt|opt$|_opt|opt_")
_NOT_OPTIMIZER = re.compile(r"(?i)sched|lr|warm|ema|swa")
_ZERO_NAMES = frozenset({"zero_grad", "zero_grads", "clear_grad", "clear_grads", "clear_gradients",
                         "reset_grad", "reset_grads", "zero_gradients", "_foreach_zero_"})
MODEL_NAME = re.compile(
    r"(?i)^(model|models|net|network|module|backbone|encoder|decoder|generator|discriminator|netg|netd|"
    r"critic|actor|policy|classifier|student|teacher|unet|vae|autoencoder|model_engine|engine)$"
    r"|_model$|^model_|_net$|^net_|^ddp_|_ddp$")
LOSS_NAME = re.compile(r"(?i)(^|_)(loss|losses|criterion|crit)(_|$)|^loss|loss$|criterion")
_LOSS_FUNCTIONAL = frozenset({"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                              "kl_div", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                              "ctc_loss", "poisson_nll_loss", "gaussian_nll_loss", "cosine_embedding_loss",
                              "margin_ranking_loss", "hinge_embedding_loss", "multilabel_margin_loss",
                              "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss",
                              "triplet_margin_loss", "triplet_margin_with_distance_loss"})
_MODEL_FACTORY = re.compile(r"(?i)(from_pretrained|create_model|build_model|get_model|load_model|make_model)$")
_NOT_MODEL = re.compile(r"(?i)^(build|create|get|load|make|init|setup|prepare|save|export|wrap|unwrap|compile|"
                        r"freeze|print|count|convert|set|update|reset|is|has|check|copy|clone|register)_")
_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train", "eval",
                           "requires_grad_", "xpu", "type"})
_MODULE_BASE = re.compile(r"(Module|Model|Net|Network|LightningModule|PreTrainedModel)$")


# ------------------------------------------------------------------ small utilities

def text(module: SourceModule, node: ast.AST, limit: int = 60) -> str:
    seg = source(module, node) or "..."
    seg = " ".join(seg.split())
    return seg if len(seg) <= limit else seg[: limit - 3] + "..."


def strip_subscripts(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def key_of(module: SourceModule, node: ast.AST) -> str | None:
    """The dotted name of a Name/Attribute chain (`self.model`), else None."""
    return module.dotted(node)






def pos(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def end_pos(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)


def loop_nodes(loop: ast.AST) -> Iterator[ast.AST]:
    """The nodes that run on every iteration (the body; not the iterable, not `else`)."""
    return body_nodes(loop.body)  # type: ignore[attr-defined]


def enclosing_loops(module: SourceModule, node: ast.AST) -> list[ast.AST]:
    """Loops around `node` inside its own scope, innermost first (a node in a loop's `iter` or
    `else` is not counted as inside it)."""
    out: list[ast.AST] = []
    child = node
    for a in module.ancestors(node):
        if isinstance(a, _NESTED):
            break
        if isinstance(a, LOOPS) and _in_list(child, a.body):
            out.append(a)
        child = a
    return out


def _in_list(node: ast.AST, stmts: list[ast.stmt]) -> bool:
    return any(node is s for s in stmts)








def span(module: SourceModule, a: tuple[int, int], b: tuple[int, int]) -> str:
    return module.text[module.char_offset(*a):module.char_offset(*b)]


def replace_node(module: SourceModule, node: ast.AST, replacement: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,  # type: ignore[attr-defined]
                replacement)


def is_atom(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
                             ast.Dict, ast.Set, ast.ListComp))




# ------------------------------------------------------------------ grad mode

def disables_grad(module: SourceModule, expr: ast.AST) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(False)`, the bare
    decorator form `@torch.no_grad`, or a project's own wrapper named for what it does (yolov5's
    `@smart_inference_mode()`)."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    name = module.qualname(target)
    if name in NO_GRAD:
        if not isinstance(expr, ast.Call):
            return True
        mode = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "mode"), None)
        return not (isinstance(mode, ast.Constant) and mode.value is False)
    if name in SET_GRAD:
        if not isinstance(expr, ast.Call):
            return False
        mode = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "mode"), None)
        return isinstance(mode, ast.Constant) and mode.value is False
    if name is not None and name.startswith("torch."):
        return False
    last = (module.dotted(target) or "").split(".")[-1].lower()
    return "no_grad" in last or "inference_mode" in last


def under_no_grad(module: SourceModule, node: ast.AST) -> bool:
    """Inside a grad-disabling `with` block or a function decorated with one."""
    for a in module.ancestors(node):
        if isinstance(a, (ast.With, ast.AsyncWith)) and any(disables_grad(module, i.context_expr) for i in a.items):
            return True
        if isinstance(a, FUNCS) and any(disables_grad(module, d) for d in a.decorator_list):
            return True
    return False


# ------------------------------------------------------------------ backward / step / zero_grad

def backward_targets(module: SourceModule, call: ast.Call) -> list[ast.expr] | None:
    """The expressions a backward call differentiates; None when `call` is not a backward."""
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if last not in ("backward", "manual_backward", "grad"):
        return None
    qual = module.call_name(call) or ""
    if qual.startswith("torch.distributed."):  # distributed autograd: gradients live in the context, not .grad
        return None
    if isinstance(func, ast.Attribute):
        if func.attr == "backward":
            if call.args:
                owner = key_of(module, strip_subscripts(func.value))
                if owner and _BACKWARD_OWNER.search(owner.split(".")[-1]):
                    return [call.args[0]]
            return [func.value]
        if func.attr == "manual_backward" and call.args:
            return [call.args[0]]
    name = module.call_name(call)
    if name in ("torch.autograd.backward", "torch.autograd.grad"):
        first = call.args[0] if call.args else next((k.value for k in call.keywords
                                                      if k.arg in ("tensors", "outputs")), None)
        return [first] if first is not None else []
    return None


def is_backward(module: SourceModule, call: ast.Call) -> bool:
    """A backward that accumulates into `.grad` (torch.autograd.grad does not)."""
    if module.call_name(call) == "torch.autograd.grad":
        return False
    return backward_targets(module, call) is not None


def optimizer_of_step(module: SourceModule, call: ast.Call) -> str | None:
    """The optimizer's text when `call` is an optimizer step, else None."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "optimizer_step" and call.args:  # torch_xla: xm.optimizer_step(optimizer)
        return text(module, call.args[0])
    if func.attr != "step":
        return None
    recv = strip_subscripts(func.value)
    if isinstance(recv, ast.Call):  # self.optimizers().step()
        recv = recv.func
    owner = key_of(module, recv)
    if owner is None:
        return None
    last = owner.split(".")[-1]
    if "scaler" in last.lower():
        return text(module, call.args[0]) if call.args else None
    if _NOT_OPTIMIZER.search(last):
        return None
    if _OPTIMIZER.search(last) or owner in facts(module).optimizers:
        return text(module, func.value)
    return None


def is_zeroing(module: SourceModule, node: ast.AST) -> bool:
    """zero_grad(), p.grad = None, p.grad.zero_(), a call with set_to_none=..."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name and (name in _ZERO_NAMES or name.endswith("zero_grad") or name.endswith("zero_grads")):
            return True
        if any(k.arg == "set_to_none" for k in node.keywords):
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("zero_", "fill_", "detach_", "mul_"):
            chain = func.value
            while isinstance(chain, (ast.Attribute, ast.Subscript)):
                if isinstance(chain, ast.Attribute) and chain.attr == "grad":
                    return True
                chain = chain.value
        return False
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute) and sub.attr == "grad":
                    return True
    return False


def _receiver_train_mode(module: SourceModule, call: ast.Call) -> tuple[str, str] | None:
    """("train"|"eval", receiver text) for `X.train()`, `X.train(False)`, `X.eval()`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in ("train", "eval"):
        return None
    receiver = func.value
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute) and \
            receiver.func.attr in _RETURNS_SELF:  # `model.to(device).train()`
        receiver = receiver.func.value
    recv = key_of(module, receiver)
    if recv is None:
        return None
    if func.attr == "eval":
        if call.args or call.keywords:
            return None
        return "eval", recv
    mode = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if isinstance(mode, ast.Constant) and mode.value is False:
        return "eval", recv
    if len(call.args) > 1:
        return None
    return "train", recv


def train_mode_call(module: SourceModule, call: ast.Call) -> tuple[str, str] | None:
    return _receiver_train_mode(module, call)


# ------------------------------------------------------------------ models and losses

def is_loss_callee(module: SourceModule, call: ast.Call) -> bool:
    name = module.call_name(call)
    if name and name.startswith("torch.nn.functional."):
        last = name.rsplit(".", 1)[1]
        return last in _LOSS_FUNCTIONAL or last.endswith("_loss")
    target = strip_subscripts(call.func)
    owner = key_of(module, target)
    if owner is None:
        return False
    if owner in facts(module).losses:
        return True
    if name and name.startswith("torch."):
        return False
    return bool(LOSS_NAME.search(owner.split(".")[-1]))


def model_callee(module: SourceModule, call: ast.Call) -> str | None:
    """The model's text when `call` runs a model's forward (`model(x)`, `self.net(x)`,
    `model.forward(x)`, `self(x)` in an nn.Module), else None."""
    target = call.func
    if isinstance(target, ast.Attribute) and target.attr == "forward":
        target = target.value
    target = strip_subscripts(target)
    owner = key_of(module, target)
    if owner is None:
        return None
    f = facts(module)
    if owner == "self":
        cls = next((a for a in module.ancestors(call) if isinstance(a, ast.ClassDef)), None)
        return "self" if cls is not None and cls.name in f.module_classes else None
    if owner in f.models:
        return owner
    if owner in f.losses:
        return None
    qual = module.qualname(target)
    if qual is not None and qual.split(".")[0] in ("torch", "torchvision", "numpy", "math", "random", "os"):
        return None
    parts = owner.split(".")
    last = parts[-1].lstrip("_")
    if LOSS_NAME.search(last) or _NOT_MODEL.search(last) or _MODEL_FACTORY.search(last):
        return None
    if any(p[:1].isupper() for p in parts[:-1]):
        return None  # `Request.model_validate(...)`: a class attribute, not a model instance
    if isinstance(target, ast.Name) and (target.id in module.aliases or target.id in f.function_names):
        return None  # an imported or locally defined function (`reparameterize_model(m)`), not a model
    return owner if MODEL_NAME.search(last) else None


def calls_model(module: SourceModule, call: ast.Call, model: str) -> bool:
    """`call` runs `model` (`model(x)`, `model.forward(x)`, `model.module(x)`)."""
    target = call.func
    if isinstance(target, ast.Attribute) and target.attr == "forward":
        target = target.value
    owner = key_of(module, strip_subscripts(target))
    return owner is not None and (owner == model or owner == f"{model}.module")


# ------------------------------------------------------------------ per-file facts

_BUCKETS = (ast.Call, ast.Assign, ast.AnnAssign, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def nodes_of(module: SourceModule) -> dict[type, list[ast.AST]]:
    """The file's nodes of a few types, from the engine's node-by-type index (a loop over every
    node of a model file here cost a third of the rules using it). Not in source order."""
    def compute() -> dict[type, list[ast.AST]]:
        return {t: list(module.by_type.get(t, ())) for t in _BUCKETS}
    return cached(module, "nodes_of", compute)


def _owner_function(module: SourceModule, node: ast.AST) -> tuple[ast.AST | None, bool]:
    """(the innermost enclosing def or None for module level / lambdas, whether `node` sits in a
    loop body of that scope)."""
    in_loop = False
    child = node
    for a in module.ancestors(node):
        if isinstance(a, FUNCS):
            return a, in_loop
        if isinstance(a, (ast.Lambda, ast.ClassDef)):
            return None, in_loop
        if not in_loop and isinstance(a, LOOPS) and _in_list(child, a.body):
            in_loop = True
        child = a
    return None, in_loop


class Facts:
    def __init__(self, module: SourceModule) -> None:
        self.module = module
        nodes = nodes_of(module)
        self.module_classes = self._module_classes(nodes[ast.ClassDef])
        self.models: set[str] = set()
        self.optimizers: set[str] = set()
        self.losses: set[str] = set()
        self.optimized: set[str] = set()  # models whose parameters() go to an optimizer
        self._bindings(nodes[ast.Assign] + nodes[ast.AnnAssign])
        self.functions: dict[str, list[ast.AST]] = {}  # simple name -> defs (module.functions walks the tree)
        for fdef in sorted(nodes[ast.FunctionDef] + nodes[ast.AsyncFunctionDef], key=pos):
            self.functions.setdefault(fdef.name, []).append(fdef)
        self.function_names = set(self.functions)
        self._calls_by_name: dict[str, list[ast.Call]] | None = None
        self._fn: dict[str, dict[str, bool]] | None = None
        self._training_loops: dict[int, ast.AST] | None = None

    def _module_classes(self, classes: list[ast.AST]) -> set[str]:
        module = self.module
        found: set[str] = set()
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls.name in found:
                    continue
                for base in cls.bases:
                    qual = module.qualname(base) or ""
                    dotted = module.dotted(base) or ""
                    last = dotted.split(".")[-1]
                    if qual.startswith("torch.nn.") or last in found or _MODULE_BASE.search(last):
                        found.add(cls.name)
                        changed = True
                        break
        return found

    def _value_kind(self, value: ast.AST) -> str | None:
        module = self.module
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                value.func.attr in ("to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16"):
            value = value.func.value
        if not isinstance(value, ast.Call):
            return None
        name = module.call_name(value) or ""
        dotted = module.dotted(value.func) or ""
        last = dotted.split(".")[-1]
        if name.startswith("torch.optim.") and "lr_scheduler" not in name and not name.startswith("torch.optim.swa"):
            return "optimizer"
        if (("optim" in dotted.lower() or last in ("Adam", "AdamW", "SGD", "RMSprop", "Adagrad", "LAMB", "Lion",
                                                  "Adafactor", "FusedAdam", "FusedLAMB"))
                and not _NOT_OPTIMIZER.search(dotted)):
            return "optimizer"
        if name.startswith("torch.nn.") and last.endswith("Loss"):
            return "loss"
        if name.startswith("torch.nn.") and last[:1].isupper() and last not in ("Parameter", "ParameterList",
                                                                              "ParameterDict"):
            return "model"
        if last in self.module_classes or _MODEL_FACTORY.search(last) or name.startswith("torchvision.models."):
            return "model"
        if name in ("torch.compile",) or last in ("DDP", "DistributedDataParallel", "DataParallel", "FSDP",
                                                   "FullyShardedDataParallel"):
            return "model"
        return None

    def _bindings(self, assigns: list[ast.AST]) -> None:
        module = self.module
        for node in assigns:
            if node.value is None:
                continue
            kind = self._value_kind(node.value)
            if kind is None:
                continue
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                key = module.dotted(t)
                if key is not None:
                    {"optimizer": self.optimizers, "loss": self.losses, "model": self.models}[kind].add(key)
            if kind == "optimizer":
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                            sub.func.attr in ("parameters", "named_parameters"):
                        key = module.dotted(sub.func.value)
                        if key:
                            self.optimized.add(key)

    @property
    def calls_by_name(self) -> dict[str, list[ast.Call]]:
        if self._calls_by_name is None:
            table: dict[str, list[ast.Call]] = {}
            for call in nodes_of(self.module)[ast.Call]:
                simple = callee_simple_name(call)
                if simple:
                    table.setdefault(simple, []).append(call)
            self._calls_by_name = table
        return self._calls_by_name

    # -------------------------------------------------------------- call graph facts
    def fn(self) -> dict[str, dict[str, bool]]:
        """For each module function (by simple name): does it, transitively, run
        `backward` / `step` outside its own loops (`*_straight`), or a backward / a gradient reset /
        `.train()` anywhere (`backward`, `zero`, `train`)."""
        if self._fn is not None:
            return self._fn
        module = self.module
        nodes = nodes_of(module)
        direct = {name: {"backward": False, "backward_straight": False, "step": False, "step_straight": False,
                         "zero": False, "train": False} for name in self.function_names}
        calls: dict[str, list[tuple[str, bool]]] = {name: [] for name in self.function_names}
        names = self.function_names
        for node in nodes[ast.Assign] + nodes[ast.AnnAssign]:
            if is_zeroing(module, node):
                fdef, _ = _owner_function(module, node)
                if fdef is not None:
                    direct[fdef.name]["zero"] = True
        for call in nodes[ast.Call]:
            func = call.func
            attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            simple = callee_simple_name(call)
            interesting = attr in ("backward", "manual_backward", "step", "optimizer_step", "train") or \
                (simple is not None and simple in names) or \
                (attr is not None and ("grad" in attr or "zero" in attr or attr.endswith("backward"))) or \
                (call.keywords and any(k.arg == "set_to_none" for k in call.keywords))
            if not interesting:
                continue
            fdef, in_loop = _owner_function(module, call)
            if fdef is None:
                continue
            d = direct[fdef.name]
            if is_zeroing(module, call):
                d["zero"] = True
            elif is_backward(module, call):
                d["backward"] = True
                if not in_loop:
                    d["backward_straight"] = True
            elif optimizer_of_step(module, call):
                d["step"] = True
                if not in_loop:
                    d["step_straight"] = True
            else:
                mode = train_mode_call(module, call)
                if mode and mode[0] == "train":
                    d["train"] = True
            if simple in names and simple != fdef.name:
                calls[fdef.name].append((simple, in_loop))
        changed = True
        while changed:
            changed = False
            for name, out in calls.items():
                d = direct[name]
                for callee, in_loop in out:
                    c = direct[callee]
                    for k in ("backward", "step", "zero", "train"):
                        if c[k] and not d[k]:
                            d[k] = changed = True
                    if not in_loop:
                        for k in ("backward_straight", "step_straight"):
                            if c[k] and not d[k]:
                                d[k] = changed = True
        self._fn = direct
        return direct

    def helper(self, call: ast.Call, fact: str) -> bool:
        name = callee_simple_name(call)
        if name is None or name not in self.function_names:
            return False
        d = self.fn().get(name)
        return bool(d and d[fact])

    def training_loops(self) -> dict[int, ast.AST]:
        """id(loop) -> the first call in it that runs backward (directly, or a helper that does), for
        every loop of the file that has one in its body (same scope)."""
        if self._training_loops is None:
            module = self.module
            found: dict[int, ast.AST] = {}
            for call in nodes_of(module)[ast.Call]:
                ok = is_backward(module, call) or (callee_simple_name(call) in self.function_names
                                                   and self.helper(call, "backward"))
                if not ok:
                    continue
                for loop in enclosing_loops(module, call):
                    prev = found.get(id(loop))
                    if prev is None or pos(call) < pos(prev):
                        found[id(loop)] = call
            self._training_loops = found
        return self._training_loops


def facts(module: SourceModule) -> Facts:
    return cached(module, "facts", lambda: Facts(module))


def loop_trains(module: SourceModule, loop: ast.AST) -> ast.AST | None:
    """The first backward call in the loop (or the call of a helper that runs one), else None."""
    if not mentions_backward(module):
        return None
    return facts(module).training_loops().get(id(loop))


_METHOD_BACKWARD = re.compile(r"\.(?:manual_)?backward\s*\(")
_AUTOGRAD_CALL = re.compile(r"autograd\.(?:backward|grad)\s*\(")
_BACKWARD_WORD = re.compile(r"\bbackward\b")


def calls_backward(text: str) -> bool:
    """`.backward(`, `.manual_backward(`, `autograd.backward(` / `autograd.grad(`, or `backward`
    imported (`from torch.autograd import backward`): the text of a file that can run a training
    step. Looked for from the literal words (str.find) and matched only there: a pattern of
    these alternatives has no literal prefix, and scanned whole files slowly."""
    at = text.find("backward")
    while at != -1:
        if (at >= 1 and _METHOD_BACKWARD.match(text, at - 1)) or (at >= 8 and _METHOD_BACKWARD.match(text, at - 8)):
            return True
        if _BACKWARD_WORD.match(text, at) and "import" in text[text.rfind("\n", 0, at) + 1:at]:
            return True
        at = text.find("backward", at + 1)
    at = text.find("autograd.")
    while at != -1:
        if _AUTOGRAD_CALL.match(text, at):
            return True
        at = text.find("autograd.", at + 1)
    return False


def mentions_backward(module: SourceModule) -> bool:
    """A cheap gate for the helpers every loop rule asks (loop_trains): no backward call, no
    training loop."""
    return module.memo("mentions_backward", lambda: "backward" in module.text and calls_backward(module.text))
