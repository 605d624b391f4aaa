import ast
import re

from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import body_nodes
from torchdoctor.registry import lint_rule

from ._training_loop import (cached, end_pos, is_atom, pos, replace_node, scope_body, scope_of, span, text,
                             under_no_grad)

_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# Methods that return a new tensor (a copy or a view) with a grad_fn when the input requires grad.
# `.float()`/`.cpu()`/`.contiguous()` are left out: they usually return the tensor itself (no-op).
_MOVES = frozenset({"cuda", "to", "double", "half", "bfloat16", "type", "xpu", "npu", "view", "reshape", "t",
                    "transpose", "permute", "unsqueeze", "squeeze", "flatten", "expand", "repeat", "clone",
                    "view_as", "reshape_as", "expand_as"})
_TENSOR_METHODS = _MOVES | {"float", "cpu", "contiguous", "detach", "requires_grad_", "normal_", "uniform_",
                            "zero_", "fill_"}
_INTEGER_DTYPES = frozenset(f"torch.{t}" for t in ("long", "int", "int64", "int32", "int16", "int8", "uint8", "bool",
                                                   "short", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor",
                                                   "cuda.LongTensor", "cuda.IntTensor"))



_LEAF_WORDS = ("Parameter(", "requires_grad")
_USED_ON_THE_SPOT = re.compile(r"(?:Parameter\(|requires_grad)[^\n]*\)\s*(?:\.\s*[a-z_]+\s*\(|[-+*/@%])")


def _leaf_outside_self_or_used_on_the_spot(text: str) -> bool:
    """A leaf made on a line that does not assign `self.x` (`w = nn.Parameter(...)`, `x =
    torch.randn(..., requires_grad=True)`: the rule never judges attributes), or one used on the
    spot even on a `self.x =` line (`nn.Parameter(w).cuda()`, `Parameter(w) * 2`). One pass over
    the leaf words: the second pattern is tried only where the first found one (searched on its
    own it has no literal prefix, and scanned whole model files slowly). Each word is found with
    str.find: a pattern of the two alternatives has no literal prefix either (0.16 s of prefilter
    time over five libraries' model files). The words cannot overlap, so every occurrence of
    each is looked at, as a scan for either would."""
    for word in _LEAF_WORDS:
        at = text.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            if not text[start:at].lstrip().startswith("self."):
                return True
            if _USED_ON_THE_SPOT.match(text, at):
                return True
            at = text.find(word, at + 1)
    return False


@lint_rule(
    code="TD107",
    name="non-leaf-parameter",
    title=".cuda()/.to()/arithmetic applied after requires_grad=True or to nn.Parameter(...)",
    on=(ast.Call, ast.BinOp),
    requires=(("requires_grad", "Parameter"), _leaf_outside_self_or_used_on_the_spot),
    related=("non-leaf-optimize", "no-grad-fn"),
    invalid=[
        """
import torch
w = torch.randn(3, requires_grad=True).cuda()  # <-
b = torch.zeros(3, requires_grad=True).to(device)  # <-
optimizer = torch.optim.SGD([w, b], lr=0.1)
""",
        """
import torch
import torch.nn as nn
class Scale(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(3)).to(device)  # <-
        self.gamma = nn.Parameter(torch.ones(1)) * 0.5  # <-
""",
        """
from torch import randn
weights = randn(784, 10, requires_grad=True) / 28.0  # <-
""",
        """
import torch
w = torch.empty(10, 10).requires_grad_()
w = w.cuda()  # <-
""",
    ],
    valid=[
        """
import torch
def compute_loss(parts):
    loss = torch.tensor(0.0, requires_grad=True)  # an accumulator, never given to an optimizer
    for p in parts:
        loss = loss + p.sum()
    loss.backward()
""",
        """
import torch
w = torch.randn(3, device=dev, requires_grad=True)
b = torch.zeros(3).to(device).requires_grad_()
weights = (torch.randn(784, 10) / 28.0).requires_grad_()
""",
        """
import torch
import torch.nn as nn
class Scale(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(3).to(device))
        self.gamma = nn.Parameter(torch.ones(1) * 0.5)
        self.conv = nn.Conv2d(3, 8, 3).requires_grad_(False).to(device)   # a module, not a tensor
""",
        """
import torch
x = torch.ones(2, 2, requires_grad=True)
y = x + 2                                   # a new name: x stays the leaf
z = (x * 3).to(device)
""",
        """
import torch
with torch.no_grad():                       # accelerate-style: written straight into _parameters
    module._parameters[name] = torch.nn.Parameter(value, requires_grad=False).to(device)
""",
        """
# eriklindernoren/PyTorch-GAN cluster_gan (MIT), shortened: WGAN-GP differentiates with autograd.grad,
# which works for a non-leaf input
import torch
from torch.autograd import Variable, grad as torch_grad
def calc_gradient_penalty(netD, real_data, generated_data):
    interpolated = alpha * real_data.data + (1 - alpha) * generated_data.data
    interpolated = Variable(interpolated, requires_grad=True)
    interpolated = interpolated.cuda()
    prob_interpolated = netD(interpolated)
    return torch_grad(outputs=prob_interpolated, inputs=interpolated, create_graph=True)[0]
""",
        """
import torch
w = torch.randn(3, requires_grad=True).cuda().detach().requires_grad_()   # made a leaf again
v = torch.nn.Parameter(torch.randn(3, requires_grad=True).cuda())       # wrapped: a leaf Parameter
""",
    ],
)
def non_leaf_parameter(node, module):
    """
    ## What it does
    Finds a device move, dtype cast, view or arithmetic applied to a tensor right after gradients
    were requested: `torch.randn(3, requires_grad=True).cuda()`,
    `torch.zeros(3).requires_grad_().to(dev)`, `nn.Parameter(t).to(device)`,
    `nn.Parameter(t) * 0.1`, `torch.randn(n, requires_grad=True) / 28`, and the two-statement form
    `w = torch.randn(3, requires_grad=True)` followed by `w = w.cuda()`. A running sum
    (`loss = torch.tensor(0.0, requires_grad=True)` then `loss = loss + part`) that no optimizer
    and no `.grad` read ever touches is an accumulator, not a parameter, and stays quiet.

    ## Why is this bad?
    The move or the arithmetic is itself recorded by autograd, so the result is a *non-leaf*
    tensor (`grad_fn=ToCopyBackward0`): its `.grad` stays None after `backward()` and
    `torch.optim` raises "ValueError: can't optimize a non-leaf Tensor". An `nn.Parameter`
    passed through `.to()`/`.cuda()`/arithmetic comes back as a plain tensor: assigned to a
    module attribute it is not registered in `parameters()` or `state_dict()`, so it is never
    trained and never saved.

    ## Example
    ```python
    w = torch.randn(3, requires_grad=True).cuda()
    self.scale = nn.Parameter(torch.ones(1)).to(device)
    ```
    Use instead:
    ```python
    w = torch.randn(3, device="cuda", requires_grad=True)   # or torch.randn(3).cuda().requires_grad_()
    self.scale = nn.Parameter(torch.ones(1).to(device))     # or move the whole module: model.to(device)
    ```
    """
    if isinstance(node, ast.Call):
        func = node.func
        if type(func) is not ast.Attribute or func.attr not in _MOVES:
            return None
        operands = [func.value]
        if type(func.value) not in (ast.Call, ast.Name):
            return None
        what = f"`.{func.attr}()`"
    else:
        operands = [node.left, node.right]
        if type(node.left) not in (ast.Call, ast.Name) and type(node.right) not in (ast.Call, ast.Name):
            return None
        what = "arithmetic"
    if isinstance(node, ast.Call) and _integer_cast(module, node):
        return None
    for operand in operands:
        kind = _leaf_kind(module, operand)
        if kind is not None:
            if _exempt(module, node):
                return None
            return _report(module, node, operand, kind, what)
    for operand in operands:
        if isinstance(operand, ast.Name):
            return _reassigned(module, node, operand, what)
    return None


def _integer_cast(module, call) -> bool:
    return any(module.qualname(a) in _INTEGER_DTYPES for a in [*call.args, *(k.value for k in call.keywords)])


def _leaf_kind(module, expr):
    """"parameter" for nn.Parameter(...), "requires_grad" for a torch factory with
    requires_grad=True, "marked" for `<tensor>.requires_grad_()`; else None."""
    if not isinstance(expr, ast.Call):
        return None
    name = module.call_name(expr) or ""
    if name in _PARAMETER:
        return "parameter"
    if name.startswith("torch.") and not name.startswith("torch.nn."):
        kw = next((k for k in expr.keywords if k.arg == "requires_grad"), None)
        if kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is True:
            return "requires_grad"
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
        arg = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "requires_grad"), None)
        if arg is not None and not (isinstance(arg, ast.Constant) and arg.value is True):
            return None
        if _tensor_expr(module, func.value):
            return "marked"
    return None


def _tensor_expr(module, expr) -> bool:
    while isinstance(expr, ast.Call):
        name = module.call_name(expr) or ""
        if name.startswith("torch.") and not name.startswith("torch.nn."):
            return True
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _TENSOR_METHODS:
            expr = expr.func.value
            continue
        return False
    return False


def _grad_inputs(module, stmt) -> bool:
    """The assigned name is only differentiated with torch.autograd.grad(..., inputs=name), which
    works for non-leaf tensors (WGAN-GP gradient penalties)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    name = stmt.targets[0].id
    scope = scope_of(module, stmt)
    for n in body_nodes(scope_body(scope)):
        if isinstance(n, ast.Call) and module.call_name(n) == "torch.autograd.grad":
            inputs = next((k.value for k in n.keywords if k.arg == "inputs"), n.args[1] if len(n.args) > 1 else None)
            if inputs is not None and any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(inputs)):
                return True
    return False


def _exempt(module, node) -> bool:
    parent = module.parents.get(node)
    # `.detach()` right after makes a fresh leaf; nn.Parameter(...) around it makes a leaf Parameter.
    if isinstance(parent, ast.Attribute) and parent.attr in ("detach", "detach_", "data"):
        return True
    if isinstance(parent, ast.Call) and module.call_name(parent) in _PARAMETER and any(a is node for a in parent.args):
        return True
    stmt = node
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = module.parents.get(stmt)
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute) and sub.attr in ("_parameters", "_buffers"):
                    return True
        if stmt.value is node and _grad_inputs(module, stmt):
            return True
    return _writes_parameters(module, node)


def _writes_parameters(module, node) -> bool:
    """The enclosing function stores into `module._parameters[...]` itself (accelerate's
    set_module_tensor_to_device): it manages registration deliberately."""
    fn = module.enclosing_function(node)
    if fn is None:
        return False
    table = cached(module, "td107_writes_parameters", dict)
    if id(fn) not in table:
        table[id(fn)] = any(
            isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute)
                                              and t.value.attr in ("_parameters", "_buffers") for t in n.targets)
            for n in body_nodes(fn.body))
    return table[id(fn)]


def _report(module, node, operand, kind, what):
    shown = text(module, node, 60)
    if kind == "parameter":
        message = (f"{what} on nn.Parameter(...) returns a plain tensor, not the Parameter: `{shown}` is not "
                   "registered in the module's parameters() or state_dict(), so it is never trained or saved "
                   "(an optimizer given it raises \"can't optimize a non-leaf Tensor\")")
        fix = "Apply it to the data before wrapping: `nn.Parameter(t.to(device))`, or move the whole module with " \
              "`model.to(device)`"
    else:
        if under_no_grad(module, node):
            effect = "under no_grad the result does not require grad at all, so it is never trained"
        else:
            effect = ("the result is a non-leaf copy: its .grad stays None after backward() and torch.optim "
                      "raises \"can't optimize a non-leaf Tensor\"")
        message = f"{what} after requires_grad=True in `{shown}`: {effect}"
        fix = "Create the tensor where and how it should live, then ask for gradients last: " \
              "`torch.randn(3, device=dev, requires_grad=True)` or `torch.randn(3).to(dev).requires_grad_()`"
    new = _rewrite(module, node, operand, kind)
    edits = (replace_node(module, node, new),) if new else ()
    return Violation(node, message, LintFix(fix, edits=edits, safe=False))


def _rewrite(module, node, leaf, kind) -> str | None:
    """`nn.Parameter(x).to(d)` -> `nn.Parameter(x.to(d))`; `torch.randn(3, requires_grad=True).cuda()`
    -> `torch.randn(3).cuda().requires_grad_()`; None when the text does not allow a clean rewrite."""
    n0, n1, l0, l1 = pos(node), end_pos(node), pos(leaf), end_pos(leaf)
    try:
        if kind == "parameter":
            if not leaf.args:
                return None
            x = leaf.args[0]
            x0, x1 = pos(x), end_pos(x)
            xs = span(module, x0, x1)
            if not is_atom(x):
                xs = f"({xs})"
            if isinstance(node, ast.BinOp) and node.right is leaf:
                inner = span(module, n0, l0) + xs
            else:
                inner = xs + span(module, l1, n1)
            new = span(module, l0, x0) + inner + span(module, x1, l1)
        else:
            if kind == "requires_grad":
                kw = next(k for k in leaf.keywords if k.arg == "requires_grad")
                items = sorted([*leaf.args, *leaf.keywords], key=pos)
                i = next(j for j, it in enumerate(items) if it is kw)
                if i > 0:
                    cut = (end_pos(items[i - 1]), end_pos(kw))
                elif i + 1 < len(items):
                    cut = (pos(kw), pos(items[i + 1]))
                else:
                    cut = (pos(kw), end_pos(kw))
                base = span(module, l0, cut[0]) + span(module, cut[1], l1)
                grad = ".requires_grad_()"
            else:
                recv = leaf.func.value
                base = span(module, l0, end_pos(recv))
                grad = span(module, end_pos(recv), l1)
            body = span(module, n0, l0) + base + span(module, l1, n1)
            new = f"{body}{grad}" if isinstance(node, ast.Call) else f"({body}){grad}"
        ast.parse(new.strip(), mode="eval")
    except (SyntaxError, StopIteration, ValueError, IndexError):
        return None
    return new


def _reassigned(module, node, name, what):
    """`w = w.cuda()` where `w` was just created with requires_grad=True."""
    stmt = module.parents.get(node)
    if not (isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name.id):
        return None
    # The text tests first, each answered once per file or scope: `x = x + y` is everywhere in
    # model code, and each of them searched the whole file (and its function) again.
    if not cached(module, "td107_text_requires_grad", lambda: "requires_grad" in module.text):
        return None
    scope = scope_of(module, stmt)
    if scope is not module.tree and not _scope_says_requires_grad(module, scope):
        return None
    if isinstance(node, ast.BinOp) and under_no_grad(module, node):
        return None  # `w = w - lr * w.grad` under no_grad is a (clumsy) manual update, not this rule
    events = [e for e in _scope_events(module, scope).get(name.id, ()) if e[0] < pos(stmt)]
    if not events:
        return None
    _, kind, where = events[-1]
    if kind == "def":
        leaf = _leaf_kind(module, where.value)
        if leaf is None:
            return None
    elif kind == "mark":
        defs = [e for e in events if e[1] != "mark" and e[0] < pos(where)]
        if not defs or defs[-1][1] != "def" or not _tensor_expr(module, defs[-1][2].value):
            return None
        leaf = "marked"
    else:
        return None
    if leaf == "parameter":
        return None  # `p = p.to(d)` of a local Parameter: rare, and a module attribute would raise loudly
    if _grad_inputs(module, stmt):
        return None
    if _accumulator(module, node, name.id):
        return None
    return Violation(stmt, f"`{text(module, stmt, 50)}` replaces `{name.id}`, which requires grad since line "
                           f"{where.lineno}, by the result of {what}: a non-leaf copy whose .grad stays None "
                           "after backward(); torch.optim raises \"can't optimize a non-leaf Tensor\"",
                     LintFix(f"Create `{name.id}` on its device/dtype first and request gradients last "
                             f"(`torch.randn(..., device=dev, requires_grad=True)`), or call "
                             f"`{name.id}.requires_grad_()` after the move"))


def _scope_says_requires_grad(module, scope) -> bool:
    table = cached(module, "td107_scope_requires_grad", dict)
    said = table.get(id(scope))
    if said is None:
        said = table[id(scope)] = "requires_grad" in span(module, pos(scope), end_pos(scope))
    return said


_OPTIMIZER_USES = ("optim", "Optimizer", "param_groups", "add_param_group", "params")


def _accumulator(module, node, name) -> bool:
    """`loss = torch.tensor(0.0, requires_grad=True)` then `loss = loss + part`: a running sum that
    is backpropagated, never handed to an optimizer, so its .grad is never wanted."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return False
    other = node.right if isinstance(node.left, ast.Name) and node.left.id == name else node.left
    if isinstance(other, ast.Constant):
        return False  # `w = w * 0.01`: a scaled weight meant to be trained
    for call in module.nodes(ast.Call):
        callee = module.call_name(call) or module.dotted(call.func) or ""
        if any(u in callee for u in _OPTIMIZER_USES):
            for a in [*call.args, *(k.value for k in call.keywords)]:
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(a)):
                    return False
    for attr in module.nodes(ast.Attribute):
        if attr.attr == "grad" and isinstance(attr.value, ast.Name) and attr.value.id == name:
            return False
    return True


def _scope_events(module, scope):
    """name -> [(position, "def" | "other" | "mark", statement)] in source order, for one scope."""
    table = cached(module, "td107_events", dict)
    events = table.get(id(scope))
    if events is None:
        events = {}
        for n in body_nodes(scope_body(scope)):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        events.setdefault(t.id, []).append((pos(n), "def", n))
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
                events.setdefault(n.target.id, []).append((pos(n), "other", n))
            elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and \
                    isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "requires_grad_" and \
                    isinstance(n.value.func.value, ast.Name) and not n.value.args:
                events.setdefault(n.value.func.value.id, []).append((pos(n), "mark", n))
        for lst in events.values():
            lst.sort(key=lambda e: e[0])
        table[id(scope)] = events
    return events
