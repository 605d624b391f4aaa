import ast

from torchdoctor.checks.lint._wrappers import call_name_if, reaching, unchain, wrapper_kind
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
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def build(cfg, local_rank):
    net = Net(cfg).cuda(local_rank)
    model = DDP(net, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer

def export(cfg, local_rank, example):
    model, _ = build(cfg, local_rank)
    traced = torch.jit.trace(model, example)  # <-
    traced.save("model.pt")
""",
        """
import torch
import torch.nn as nn

def export(model, path):
    torch.jit.save(torch.jit.script(model), path)  # <-

model = nn.DataParallel(Net()).cuda()
export(model, "model.pt")
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
        """
import torch
import torch.nn as nn

def export(model, path):
    torch.jit.save(torch.jit.script(model), path)

model = nn.DataParallel(Net()).cuda()
export(model.module, "model.pt")  # the network inside the wrapper
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

def build(cfg, local_rank, distributed):
    net = Net(cfg).cuda(local_rank)
    model = DDP(net, device_ids=[local_rank]) if distributed else net
    return model, net

def export(cfg, local_rank, example):
    _, net = build(cfg, local_rank, True)
    torch.jit.trace(net, example).save("model.pt")  # the second element: the plain network
""",
    ],
)
def jit_on_dataparallel(node, module):
    """
    ## What it does
    Finds `torch.jit.script(...)` / `torch.jit.trace(...)` applied to a model that is wrapped
    in `nn.DataParallel` or `DistributedDataParallel`: a wrapper call passed directly, or a value
    the value-flow engine traces to one on every path: a name (or `self.` attribute) assigned
    one, a helper's return (also one element of a returned tuple), a parameter whose callers
    pass one, through `.cuda()`/`.to()`. Where any path gives the plain network (`.module`,
    `x if wrapped else net`) or something unknown, it stays quiet.

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
    found = _wrapper_origins(module, arg)
    if found is None:
        return None
    kind, where, certain = found
    arg_text = module.segment(arg) or "model"
    named = isinstance(arg, (ast.Name, ast.Attribute))
    if named:
        message = (f"torch.jit.{api}({arg_text}): {arg_text} is the {kind} wrapper {where}; "
                   f"the wrapper's forward(*inputs, **kwargs) cannot be compiled")
    else:
        message = (f"torch.jit.{api}() of a {kind} wrapper ({where}): its forward(*inputs, **kwargs) cannot be "
                   f"compiled")
    edits = ()
    if certain and named and arg.end_lineno is not None:
        edits = (Edit(arg.end_lineno, arg.end_col_offset, arg.end_lineno, arg.end_col_offset, ".module"),)
    if named:
        rest = ", ..." if api != "script" else ""
        summary = f"{api.capitalize()} the wrapped network: torch.jit.{api}({arg_text}.module{rest})"
    else:
        summary = f"{api.capitalize()} the network you pass to {kind}(...), not the wrapper"
    return Violation(node, message, LintFix(summary, edits, safe=bool(edits)))


def _wrapper_origins(module, arg):
    """(kind, where it was made, certain) when every value the value-flow engine finds for `arg`
    is a DataParallel/DDP wrapper (through names, `self.x` across methods, helpers' returns,
    parameters to what callers pass, `.cuda()`/`.to()` chains); None when any is not, or is unknown."""
    origins = module.flow.origins(arg)
    if not origins:
        return None
    kinds = set()
    made = []
    for o in origins:
        call = unchain(o.node)
        kind = wrapper_kind(o.module, call)
        if kind is None or kind == "torch.compile":
            return None  # unknown, the plain network, the unwrapping idiom, or a compiled module
        kinds.add(kind)
        made.append((o.module, call))
    kind = kinds.pop() if len(kinds) == 1 else "DataParallel/DistributedDataParallel"
    first_module, first = made[0]
    if first is unchain(arg):
        return kind, "made here", True
    where = f"made at line {first.lineno}"
    if first_module is not module:
        where = f"made at {first_module.path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{first.lineno}"
    elif module.enclosing_function(first) is not module.enclosing_function(arg) and \
            not isinstance(arg, ast.Attribute):
        where += f" in {_function_name(module, first)}"
    elif isinstance(arg, ast.Attribute):
        where += " (the class only ever assigns wrappers to it)" if len(made) > 1 or not _local(module, arg) else ""
    certain = len(made) == 1 and first_module is module and _certain(module, arg)
    if len(made) == 1 and not certain and first_module is module and not isinstance(arg, ast.Attribute) \
            and module.enclosing_function(first) is module.enclosing_function(arg):
        where += ", when that branch runs"
    return kind, where, certain


def _function_name(module, node) -> str:
    fn = module.enclosing_function(node)
    return f"{fn.name}()" if fn is not None else "module-level code, and passed in"


def _local(module, arg) -> bool:
    d = reaching(module, arg)
    return d is not None and d.local


def _certain(module, arg) -> bool:
    """The wrapper reaches `arg` on every path, in the same scope (the `.module` fix is then safe)."""
    if not isinstance(arg, (ast.Name, ast.Attribute)):
        return False
    d = reaching(module, arg)
    return d is not None and d.certain and d.local and d.value is not None and \
        wrapper_kind(module, unchain(d.value)) is not None
