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
    return Violation(node, "torch.set_grad_enabled(False) at module level turns autograd off for the whole "
                           "process: every later backward() fails with 'does not require grad'",
                     LintFix("Scope it: `with torch.no_grad():` around the inference code, or "
                             "@torch.inference_mode() on the function"))
