import ast

from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import body_nodes
from torchdoctor.checks.lint._training_loop import calls_backward
from torchdoctor.registry import lint_rule

from ._training_loop import (_NOT_OPTIMIZER, _OPTIMIZER, LOOPS, facts, is_backward, is_zeroing, key_of, loop_nodes,
                             loop_trains, optimizer_of_step, scope_body, scope_of, text)


@lint_rule(
    code="TD103",
    name="zero-grad-missing",
    title="a training loop runs backward() and optimizer.step() but never resets the gradients",
    on=(ast.For, ast.AsyncFor, ast.While),
    requires=("backward", calls_backward),
    related=("nan-in-backward",),
    invalid=[
        """
import torch
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()  # <-
""",
        """
import torch
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    optimizer.zero_grad()          # once per epoch: batches still add up
    for x, y in loader:
        scaler.scale(loss_fn(model(x), y)).backward()
        scaler.step(optimizer)  # <-
        scaler.update()
""",
        """
import torch
def train_step(model, opt, batch):
    loss = model(batch).loss
    loss.backward()
    opt.step()

def fit(model, opt, loader):
    for batch in loader:
        train_step(model, opt, batch)  # <-
""",
        """
import torch
while step < max_steps:
    accelerator.backward(model(**batch).loss)
    if step % 4 == 0:
        optim.step()  # <-
        lr_scheduler.step()
    step += 1
""",
        """
# GAN: the generator's optimizer is reset, the discriminator's never is
import torch
for imgs, _ in dataloader:
    optimizer_G.zero_grad()
    g_loss = adversarial_loss(discriminator(generator(z)), valid)
    g_loss.backward()
    optimizer_G.step()
    d_loss = adversarial_loss(discriminator(imgs), valid)
    d_loss.backward()
    optimizer_D.step()  # <-
""",
        """
# pytorch/examples distributed/tensor_parallelism/tensor_parallel_example.py (BSD-3), shortened
import torch
for i in range(num_iters):
    inp = torch.rand(20, 10, device="cuda")
    output = tp_model(inp)
    output.sum().backward()
    optimizer.step()  # <-
""",
    ],
    valid=[
        """
import torch
for x, y in loader:
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
""",
        """
import torch
for i, (x, y) in enumerate(loader):       # gradient accumulation: reset every `accum` steps
    loss = criterion(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
        """
import torch
def reset(model):
    for p in model.parameters():
        p.grad = None

for x, y in loader:
    loss_fn(model(x), y).backward()
    optimizer.step()
    reset(model)                          # the reset happens in a helper
""",
        """
import torch
for batch in loader:
    optimizer.zero_grad()
    for micro in batch.split(8):          # inner loop: only backward, the step is outside
        model(micro).sum().backward()
    optimizer.step()
""",
        """
import torch
for x, y in loader:
    def closure():                        # LBFGS: the closure resets and runs backward
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)
""",
        """
import torch
for x, y in loader:
    model_engine.backward(model_engine(x).loss)
    model_engine.step()                   # DeepSpeed's engine step resets the gradients itself
    scheduler.step()
""",
        """
import torch
for imgs, _ in dataloader:                # both optimizers reset; a list of optimizers reset in a loop
    optimizer_G.zero_grad()
    adversarial_loss(discriminator(generator(z)), valid).backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    adversarial_loss(discriminator(imgs), valid).backward()
    optimizer_D.step()
    for opt in optimizers:
        opt.zero_grad()
    model(imgs).sum().backward()
    optimizers[0].step()
""",
        """
# pytorch/examples distributed/rpc/ddp_rpc/main.py (BSD-3): distributed autograd keeps the
# gradients in the context, not in .grad
import torch.distributed.autograd as dist_autograd
for indices, offsets, target in get_next_batch(rank):
    with dist_autograd.context() as context_id:
        loss = criterion(model(indices, offsets), target)
        dist_autograd.backward(context_id, [loss])
        opt.step(context_id)
""",
        """
import torch
for state in states:
    action = policy(state)
    state, reward = env.step(action)      # not an optimizer
    reward.backward()
""",
    ],
)
def zero_grad_missing(node, module):
    """
    ## What it does
    Finds the innermost loop that calls `backward()` (also `scaler.scale(l).backward()`,
    `accelerator.backward(l)`, `self.manual_backward(l)`) and an optimizer step
    (`optimizer.step()`, `scaler.step(optimizer)`), directly or through a helper function of
    the same file, but never resets the gradients: no `zero_grad()`, no `p.grad = None`, no
    `p.grad.zero_()`, neither in the loop nor in a helper it calls.

    Gradient accumulation is fine as long as the reset happens somewhere in the loop, e.g. under
    `if (step + 1) % accum == 0:`.

    ## Why is this bad?
    `backward()` adds into `.grad`; it never overwrites. Without a reset every step applies the
    sum of all gradients since the start (or since the one reset before the loop), so the
    effective learning rate grows with each iteration and training diverges or stalls without
    any error.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```
    Use instead:
    ```python
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```
    """
    if loop_trains(module, node) is None:
        return None
    scan = _scan(module, node)
    if scan.backward is None or scan.step is None or scan.generic_zero:
        return None
    # Innermost: a nested loop that runs both is the one to judge (and to report).
    for inner in loop_nodes(node):
        if isinstance(inner, LOOPS) and inner is not node and loop_trains(module, inner) is not None:
            sub = _scan(module, inner)
            if sub.backward is not None and sub.step is not None:
                return None
    backward, step, optimizer = scan.backward, scan.step, scan.optimizer
    if scan.opt_zero:
        # Some optimizers are reset, one is not (a GAN's discriminator): only a precise mapping counts.
        if not scan.opt_zero <= {o for _, o in scan.steps}:
            return None
        missing = next(((n, o) for n, o in scan.steps if o not in scan.opt_zero), None)
        if missing is None:
            return None
        step, optimizer = missing
        reset = ", ".join(f"{o}.zero_grad()" for o in sorted(scan.opt_zero))
        message = (f"the loop at line {node.lineno} calls {optimizer}.step() but resets only with {reset}: "
                   f"{optimizer}'s gradients add up across iterations (including those every other backward() "
                   "leaves on its parameters)")
        return _violation(module, step, optimizer, message)
    # A reset that runs outside this loop (before it, or in an enclosing loop) does not help.
    outside = None
    scope = scope_of(module, node)
    for n in body_nodes(scope_body(scope)):
        if is_zeroing(module, n) and not _inside(module, n, node):
            outside = n
            break
    if backward is step:
        what = f"{text(module, step)}, which runs backward() and an optimizer step,"
    else:
        b = text(module, backward) + ("" if is_backward(module, backward) else " (runs backward())")
        o = f"{optimizer}.step()" if optimizer is not None else f"{text(module, step)} (runs an optimizer step)"
        what = f"{b} and {o}"
    detail = f"; the reset at line {outside.lineno} runs outside this loop" if outside is not None else ""
    message = (f"the loop at line {node.lineno} calls {what} but never resets the gradients (zero_grad() or "
               f"`p.grad = None`): backward() adds into .grad, so every step applies the sum of all past "
               f"gradients{detail}")
    return _violation(module, step, optimizer, message)


def _violation(module, step, optimizer, message):
    fix_target = optimizer or "optimizer"
    edits: tuple[Edit, ...] = ()
    parent = module.parents.get(step)
    if optimizer is not None and isinstance(parent, ast.Expr) and parent.lineno == parent.end_lineno:
        indent = module.lines[parent.lineno - 1][: parent.col_offset]
        if not indent.strip():
            line_end = len(module.lines[parent.end_lineno - 1].encode("utf-8"))
            edits = (Edit(parent.end_lineno, line_end, parent.end_lineno, line_end,
                          f"\n{indent}{fix_target}.zero_grad(set_to_none=True)"),)
    return Violation(step, message,
                     LintFix(f"Call {fix_target}.zero_grad(set_to_none=True) in the loop, right after the step "
                             "(or before backward()); with gradient accumulation, under the same condition as the "
                             "step", edits=edits, safe=False))


def _inside(module, node, container) -> bool:
    return any(a is container for a in module.ancestors(node))


class _Scan:
    def __init__(self) -> None:
        self.backward = None  # first backward (or helper that runs one)
        self.step = None  # first optimizer step (or helper that runs one)
        self.optimizer = None  # its optimizer's text; None for a helper
        self.steps: list = []  # (node, optimizer text) of the direct steps
        self.generic_zero = False  # model.zero_grad(), p.grad = None, a helper that resets...
        self.opt_zero: set[str] = set()  # optimizers reset by name: {"optimizer_G"}


def _optimizer_reset(module, node) -> str | None:
    """`optimizer_G.zero_grad()` -> "optimizer_G" when the receiver is an optimizer."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "zero_grad"):
        return None
    owner = key_of(module, node.func.value)
    if owner is None:
        return None
    last = owner.split(".")[-1]
    if owner in facts(module).optimizers or (_OPTIMIZER.search(last) and not _NOT_OPTIMIZER.search(last)):
        return text(module, node.func.value)
    return None


def _scan(module, loop):
    f = facts(module)
    scan = _Scan()
    for n in loop_nodes(loop):
        if is_zeroing(module, n):
            name = _optimizer_reset(module, n)
            if name is None:
                scan.generic_zero = True
            else:
                scan.opt_zero.add(name)
            continue
        if not isinstance(n, ast.Call):
            continue
        if f.helper(n, "zero"):
            scan.generic_zero = True
            continue
        if scan.backward is None and is_backward(module, n):
            scan.backward = n
            continue
        opt = optimizer_of_step(module, n)
        if opt is not None:
            scan.steps.append((n, opt))
            if scan.step is None or scan.optimizer is None:
                scan.step, scan.optimizer = n, opt
            continue
        if f.helper(n, "backward_straight") and f.helper(n, "step_straight"):
            # one helper call does both (`train_step(...)`); only a reset can clear it.
            if scan.backward is None:
                scan.backward = n
            if scan.step is None:
                scan.step = n
            continue
        if scan.backward is None and f.helper(n, "backward_straight"):
            scan.backward = n
        elif scan.step is None and f.helper(n, "step_straight"):
            scan.step = n
    return scan
