import ast

from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule


@lint_rule(
    code="TD106",
    name="grad-disabled-globally",
    title="torch.set_grad_enabled(False) at module level",
    on=(ast.Call,),
    requires=("set_grad_enabled",),
    related=("no-grad-fn",),
    invalid=[
        """
import torch
if __name__ == "__main__":
    torch.set_grad_enabled(False)  # <-
    train(model, loader)  # the training loop in another module: every backward() there fails
""",
        """
import torch
torch.set_grad_enabled(False)  # <-
model = torch.nn.Linear(3, 1)
""",
        """
from torch import set_grad_enabled as sge
sge(False)  # <-
""",
        """
import torch
if True:
    torch.set_grad_enabled(mode=False)  # <-
""",
    ],
    valid=[
        """
import torch
with torch.set_grad_enabled(False):  # a context manager: scoped, restored on exit
    y = model(x)
""",
        """
import torch
def evaluate(model, x):
    torch.set_grad_enabled(False)  # inside a function: the caller decides
    return model(x)
""",
        """
import torch
torch.set_grad_enabled(True)
""",
        """
import argparse
import torch
parser = argparse.ArgumentParser()
args = parser.parse_args()
if __name__ == "__main__":
    torch.set_grad_enabled(False)  # an inference script (detect.py) that never trains
    net = load_model(Net(), args.trained_model).eval()
    for path in images:
        boxes = net(load(path))
""",
        """
import torch
torch.set_grad_enabled(is_training)
""",
    ],
)
def grad_disabled_globally(node, module):
    """
    ## What it does
    Finds `torch.set_grad_enabled(False)` called as a statement at module level (not as a
    `with` block, not inside a function).

    ## Why is this bad?
    It switches autograd off for the whole process from the moment the module is imported,
    including for code in other modules. Training then fails far away from the cause:
    "element 0 of tensors does not require grad and does not have a grad_fn", or parameters
    that never change — the founding notes' "requires_grad stopped working".

    ## Example
    ```python
    torch.set_grad_enabled(False)        # at the top of a module
    ```
    Use instead:
    ```python
    with torch.no_grad():                # or @torch.inference_mode() on the function
        predictions = model(batch)
    ```
    """
    if module.call_name(node) != "torch.set_grad_enabled":
        return None
    parent = module.parents.get(node)
    if not isinstance(parent, ast.Expr):  # `with ...:` or an assignment: not a global switch
        return None
    if module.enclosing_function(node) is not None:
        return None
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mode"), None)
    if not (isinstance(arg, ast.Constant) and arg.value is False):
        return None
    if _under_main_guard(module, node) and not _calls_backward(module):
        return None  # an inference script's own process (never run on import) that never trains
    return Violation(node, "torch.set_grad_enabled(False) at module level turns autograd off for the whole "
                           "process: every later backward() fails with 'does not require grad'",
                     LintFix("Scope it: `with torch.no_grad():` around the inference code, or "
                             "@torch.inference_mode() on the function"))


def _under_main_guard(module, node) -> bool:
    for anc in module.ancestors(node):
        if isinstance(anc, ast.If) and isinstance(anc.test, ast.Compare) and \
                isinstance(anc.test.left, ast.Name) and anc.test.left.id == "__name__" and \
                any(isinstance(c, ast.Constant) and c.value == "__main__" for c in anc.test.comparators):
            return True
    return False


def _calls_backward(module) -> bool:
    """The file trains, or may: backward()/autograd.grad, an optimizer, or a call of train*/fit*."""
    for n in module.by_type.get(ast.Call, ()):
        name = module.call_name(n) or ""
        simple = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
        if simple in ("backward", "manual_backward") or name in ("torch.autograd.backward", "torch.autograd.grad") \
                or name.startswith("torch.optim.") or simple.lower().startswith(("train", "fit")):
            return True
    return False
