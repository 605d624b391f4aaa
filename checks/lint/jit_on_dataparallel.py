import ast

from torchdoctor.checks.lint._wrappers import call_name_if, wrapped
from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.registry import lint_rule

_JIT = {"torch.jit.script": "script", "torch.jit.trace": "trace", "torch.jit.trace_module": "trace_module"}
_LAST = frozenset(_JIT.values())


@lint_rule(
    code="TD108",
    name="jit-on-dataparallel",
    title="torch.jit.script/trace on a DataParallel or DistributedDataParallel wrapper",
    on=(ast.Call,),
    requires=("jit", "DataParallel"),
    related=("jit-script-dataparallel",),
    invalid=[
        """
import torch
import torch.nn as nn
model = Net().cuda()
model = nn.DataParallel(model)
scripted = torch.jit.script(model)  # <-
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
def export(net, example, local_rank):
    ddp = DDP(net.to(local_rank), device_ids=[local_rank]).train()
    return torch.jit.trace(ddp, example)  # <-
""",
        """
import torch
from torch import jit
traced = jit.script(torch.nn.DataParallel(Net()))  # <-
""",
        """
import torch
import torch.nn as nn
model = Net()
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model.train()
torch.jit.save(torch.jit.script(model), "model.pt")  # <-
""",
        """
import torch
class Exporter:
    def __init__(self, net):
        self.model = torch.nn.parallel.DistributedDataParallel(net)
    def export(self, x):
        return torch.jit.trace(self.model, x)  # <-
""",
    ],
    valid=[
        """
import torch
import torch.nn as nn
model = nn.DataParallel(Net().cuda())
scripted = torch.jit.script(model.module)  # the wrapped network: fine
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = Net()
if args.distributed:
    model = DDP(model)
else:
    traced = torch.jit.trace(model, example)  # the unwrapped branch
""",
        """
import torch
import torch.nn as nn
model = Net()
if args.distributed:
    model = nn.parallel.DistributedDataParallel(model)
train(model)
if not args.distributed:
    torch.jit.save(torch.jit.script(model), "model.pt")  # only where the wrapping did not happen
""",
        """
import torch
import torch.nn as nn
model = nn.DataParallel(Net())
model = model.module
torch.jit.script(model)
""",
        """
import torch
model = torch.compile(Net())
ddp_model = torch.nn.parallel.DistributedDataParallel(Net())
scripted = torch.jit.script(Net())
""",
        """
import torch
def export(model, path):
    torch.jit.save(torch.jit.script(model), path)  # a parameter: unknown, stay quiet
""",
        """
import torch
class Exporter:
    def __init__(self, net, dp):
        self.model = net
        if dp:
            self.model = torch.nn.DataParallel(net)
    def export(self, x):
        return torch.jit.trace(self.model, x)  # not every assignment wraps
""",
    ],
)
def jit_on_dataparallel(node, module):
    """
    ## What it does
    Finds `torch.jit.script(...)` / `torch.jit.trace(...)` applied to a model that is wrapped
    in `nn.DataParallel` or `DistributedDataParallel`: a wrapper call passed directly, or a
    name (or `self.` attribute) whose reaching assignment is one, through `.cuda()`/`.to()`.

    ## Why is this bad?
    The wrappers' `forward(*inputs, **kwargs)` cannot be compiled: scripting fails with
    `NotSupportedError: Compiled functions can't take variable number of arguments or use
    keyword-only arguments with defaults` (pytorch/pytorch#30635, #43658), and tracing
    records the scatter/gather machinery instead of the network. The exported file should
    contain the network itself, which the wrapper keeps in `.module`.

    ## Example
    ```python
    model = nn.DataParallel(model)
    scripted = torch.jit.script(model)
    ```
    Use instead:
    ```python
    scripted = torch.jit.script(model.module)
    ```
    """
    api = _JIT.get(call_name_if(module, node, _LAST) or "")
    if api is None:
        return None
    arg = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg in ("obj", "func", "mod")), None)
    if arg is None:
        return None
    w = wrapped(module, arg)
    if w is None or w.kind == "torch.compile":
        return None
    arg_text = ast.get_source_segment(module.text, arg) or "model"
    named = isinstance(arg, (ast.Name, ast.Attribute))
    if named:
        message = (f"torch.jit.{api}({arg_text}): {arg_text} is the {w.kind} wrapper {w.origin}; "
                   f"the wrapper's forward(*inputs, **kwargs) cannot be compiled")
    else:
        message = (f"torch.jit.{api}() of a {w.kind}(...) wrapper: its forward(*inputs, **kwargs) cannot be "
                   f"compiled")
    edits = ()
    if w.certain and named and arg.end_lineno is not None:
        edits = (Edit(arg.end_lineno, arg.end_col_offset, arg.end_lineno, arg.end_col_offset, ".module"),)
    if named:
        rest = ", ..." if api != "script" else ""
        summary = f"{api.capitalize()} the wrapped network: torch.jit.{api}({arg_text}.module{rest})"
    else:
        summary = f"{api.capitalize()} the network you pass to {w.kind}(...), not the wrapper"
    return Violation(node, message, LintFix(summary, edits, safe=bool(edits)))
