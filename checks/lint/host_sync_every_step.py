import ast

from torchdoctor.checks.lint._training_loop import enclosing_loops, loop_trains, text
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

# Tensor methods that copy a value to the host, so the CPU waits for every queued kernel.
_SYNCING_METHODS = {"item", "tolist", "cpu", "numpy"}
_SYNCING_BUILTINS = {"float", "int", "bool"}


@lint_rule(
    code="TD205",
    name="host-sync-every-step",
    title="A GPU-to-host copy (.item(), .cpu(), float(t)) on every iteration of the training loop",
    on=(ast.Call,),
    requires=("backward", ("item", "tolist", "cpu", "numpy", "float(")),
    severity="note",
    default=False,
    related=(),
    invalid=[
        """
import torch
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running += loss.item()  # <-
""",
        """
import torch
def train(model, loader, opt):
    for x, y in loader:
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        correct += (out.argmax(1) == y).sum().cpu()  # <-
        history.append(float(loss))  # <-
""",
    ],
    valid=[
        """
import torch
for step, (x, y) in enumerate(loader):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    running += loss.detach()            # stays on the GPU
    if step % 100 == 0:
        print(running.item() / 100)     # a sync every 100 steps: fine
        running.zero_()
""",
        """
import torch
for epoch in range(10):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(f"epoch {epoch}: {loss.item():.3f}")  # once per epoch, after the inner loop
""",
        """
import torch
with torch.no_grad():
    for x, y in val_loader:
        acc += (model(x).argmax(1) == y).sum().item()  # evaluation: no backward in this loop
""",
        """
import torch
for x, y in loader:
    lr = float(args.lr)  # a Python value, not a tensor
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
""",
    ],
)
def host_sync_every_step(node, module):
    """
    ## What it does
    Finds `.item()`, `.tolist()`, `.cpu()`, `.numpy()` and `float(t)`/`int(t)` on a tensor that
    run on every iteration of a training loop (a loop that runs backward): not under an `if`
    inside the loop (logging every N steps is fine), not in an evaluation loop. A hint, off by
    default: select it with `--select TD205` when tuning throughput.

    ## Why is this bad?
    CUDA runs asynchronously: the CPU queues the next step's kernels while the GPU works. A copy
    to the host makes the CPU wait until every queued kernel has finished, on every step, so the
    GPU idles while Python prepares the next batch. On small models this costs 10-30% of the
    step time.

    ## Example
    ```python
    running += loss.item()
    ```
    Use instead:
    ```python
    running += loss.detach()          # on the GPU, no wait
    if step % log_every == 0:
        print(running.item() / log_every)
    ```
    """
    what = _syncing(node)
    if what is None:
        return None
    loops = enclosing_loops(module, node)
    if not loops:
        return None
    loop = loops[0]
    trains = loop_trains(module, loop)
    if trains is None or (enclosing_loops(module, trains) or [None])[0] is not loop:
        return None  # no backward here, or only in a nested loop (this is the epoch loop)
    child = node
    for a in module.ancestors(node):  # conditional inside the loop: not every step
        if a is loop:
            break
        if isinstance(a, (ast.If, ast.IfExp, ast.Try, ast.ExceptHandler)) or (
                isinstance(a, ast.BoolOp) and child is not a.values[0]):
            return None
        child = a
    return Violation(node, f"{text(module, node, 40)} copies a tensor to the host on every iteration of the training "
                           f"loop (line {loop.lineno}): the CPU waits for all queued GPU work at each step ({what})",
                     LintFix("Keep the value on the GPU (`running += loss.detach()`) and read it every N steps or "
                             "once per epoch"))


def _syncing(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _SYNCING_METHODS and not call.args and not call.keywords:
        return f".{func.attr}()"
    if isinstance(func, ast.Name) and func.id in _SYNCING_BUILTINS and len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
        # float(loss) / float(out.sum()): a tensor-ish expression, not float(args.lr) or int("3")
        if isinstance(arg, ast.Name) and "loss" in arg.id.lower() or isinstance(arg, ast.Call) and \
                isinstance(arg.func, ast.Attribute) and arg.func.attr in ("sum", "mean", "max", "min", "norm"):
            return f"{func.id}()"
    return None
