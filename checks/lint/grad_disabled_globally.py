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
        """
import torch

class Predictor:
    \"\"\"A library's inference wrapper: whoever builds one loses autograd everywhere.\"\"\"

    def __init__(self, weights, device="cpu"):
        torch.set_grad_enabled(False)  # <-
        self.model = torch.jit.load(weights, map_location=device).eval()

    def __call__(self, images):
        return self.model(images.to(next(self.model.parameters()).device))
""",
        """
import torch

def setup_inference():
    torch.backends.cudnn.benchmark = True
    torch.set_grad_enabled(False)  # <-

setup_inference()  # at import time
""",
        """
import torch
GRAD_ENABLED = False
torch.set_grad_enabled(GRAD_ENABLED)  # <-
""",
        """
import torch

def configure(training):
    torch.set_grad_enabled(training)  # <-

configure(training=False)
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
        """
import torch

class Trainer:
    def __init__(self, model):
        torch.set_grad_enabled(False)  # the class switches the mode itself, both ways
        self.model = model

    def train_epoch(self, loader):
        torch.set_grad_enabled(True)
        for x, y in loader:
            loss = self.model(x, y)
            loss.backward()
""",
        """
import torch

def setup_inference():
    torch.set_grad_enabled(False)

def main():
    setup_inference()  # inside the program's own entry point, not at import
    run()
""",
        """
import torch

def configure(training):
    torch.set_grad_enabled(training)

configure(training=True)
""",
    ],
)
def grad_disabled_globally(node, module):
    """
    ## What it does
    Finds `torch.set_grad_enabled(False)` called as a statement (not as a `with` block) where it
    switches autograd off for the process: at module level, in a class's `__init__` (a library
    constructor: building the object switches it off), or in a function that runs at module level.
    The argument is followed by the value-flow engine (a name bound to False, a parameter whose
    callers pass False); a function whose callers decide (not called at import), an inference
    script's `__main__` block, and a file that also switches autograd back on stay quiet.

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
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "mode"), None)
    if arg is None or not _always_false(module, arg):
        return None
    fix = LintFix("Scope it: `with torch.no_grad():` around the inference code, or "
                  "@torch.inference_mode() on the function")
    fn = module.enclosing_function(node)
    if fn is None:
        if _under_main_guard(module, node) and not _calls_backward(module):
            return None  # an inference script's own process (never run on import) that never trains
        return Violation(node, "torch.set_grad_enabled(False) at module level turns autograd off for the whole "
                               "process: every later backward() fails with 'does not require grad'", fix)
    # Inside a function the switch outlives the call: it matters where the function runs.
    cls = module.parents.get(fn)
    if fn.name == "__init__" and isinstance(cls, ast.ClassDef) and not _re_enables(module) \
            and not (module.is_script and not _calls_backward(module)):
        return Violation(node, f"torch.set_grad_enabled(False) in {cls.name}.__init__ turns autograd off for the "
                               f"whole process (not just this object) whenever a {cls.name} is built: training "
                               "code that builds one fails later with 'does not require grad'", fix)
    for cm, call in module.flow.call_sites(fn):
        if cm.enclosing_function(call) is None and not (_under_main_guard(cm, call) and not _calls_backward(cm)):
            where = "" if cm is module else f" of {cm.path.replace(chr(92), '/').rsplit('/', 1)[-1]}"
            return Violation(node, f"torch.set_grad_enabled(False) in {fn.name}(), which runs at module level (line "
                                   f"{call.lineno}{where}): importing the file turns autograd off for the whole "
                                   "process, and every later backward() fails with 'does not require grad'", fix)
    return None


def _always_false(module, arg) -> bool:
    """Every value the argument may have is the constant False (through names, and parameters
    to what their callers pass)."""
    origins = module.flow.origins(arg)
    return bool(origins) and all(isinstance(o.node, ast.Constant) and o.node.value is False for o in origins)


def _re_enables(module) -> bool:
    """The file also calls set_grad_enabled with something other than False: it manages the mode."""
    for n in module.by_type.get(ast.Call, ()):
        if module.call_name(n) == "torch.set_grad_enabled":
            arg = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg == "mode"), None)
            if not (isinstance(arg, ast.Constant) and arg.value is False):
                return True
    return False


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
