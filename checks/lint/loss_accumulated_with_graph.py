import ast

from torchdoctor.lint.model import Edit, LintFix, Violation
from torchdoctor.lint.module import body_nodes, callee_simple_name
from torchdoctor.checks.lint._training_loop import calls_backward
from torchdoctor.registry import lint_rule

from ._training_loop import (_BACKWARD_OWNER, LOSS_NAME, backward_targets, cached, enclosing_loops, facts, is_atom,
                             is_backward, is_loss_callee, key_of, loop_trains, model_callee, pos,
                             scope_body, scope_of, source, strip_subscripts, text, under_no_grad)


@lint_rule(
    code="TD102",
    name="loss-accumulated-with-graph",
    title="a loss (or model output) that requires grad is accumulated across training iterations",
    on=(ast.AugAssign, ast.Assign, ast.Expr),
    requires=("backward", calls_backward),
    related=("cuda-out-of-memory", "backward-twice"),
    invalid=[
        """
import torch
total_loss = 0
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss  # <-
""",
        """
import torch
def train_epoch(model, loader, optimizer):
    losses, outputs = [], []
    for batch in loader:
        out = model(batch["x"])
        loss = torch.nn.functional.cross_entropy(out, batch["y"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss)  # <-
        outputs.append(out)  # <-
    return sum(losses) / len(losses)
""",
        """
import torch
running = 0.0
for i, (x, y) in enumerate(loader):
    out = net(x)
    loss = criterion(out, y)
    scaler.scale(loss).backward()
    running += criterion(out, y) * x.size(0)  # <-
    if i % 100 == 99:
        print(running / 100)
        running = 0.0                      # reset only every 100 steps
""",
        """
import torch
for batch in loader:
    outputs = model(**batch)
    accelerator.backward(outputs.loss)
    optimizer.step()
    optimizer.zero_grad()
    stats["loss"] = stats["loss"] + outputs.loss  # <-
""",
        """
import torch

class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0
    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

def train(model, loader, optimizer, criterion):
    losses = AverageMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))  # <-
""",
    ],
    valid=[
        """
import torch

class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0
    def update(self, val, n=1):
        self.sum += float(val) * n  # converts: no graph kept
        self.count += n

def train(model, loader, optimizer, criterion, pbar):
    losses = AverageMeter()
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))
        pbar.update(1)
""",
        """
import torch
total_loss = 0.0
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss.item()
    history.append(loss.detach())
    running = running + float(loss)
""",
        """
import torch
for i, (x, y) in enumerate(loader):       # gradient accumulation: loss scaled, then backward
    loss = criterion(model(x), y)
    loss = loss / accum
    loss.backward()
    if (i + 1) % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
""",
        """
import torch
for x, y in loader:
    feats = model(x)
    loss = 0
    for head, target in zip(heads, y):    # composing this step's loss is the point
        loss += criterion(head(feats), target)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
""",
        """
import torch
micro_losses = []
for chunk in batch.split(4):              # accumulated on purpose: backward once at the end
    micro_losses.append(criterion(model(chunk), chunk.y))
total = torch.stack(micro_losses).mean()
total.backward()
""",
        """
import torch
correct = 0
for x, y in loader:
    out = model(x)
    loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    _, pred = out.max(1)
    correct += (pred == y).sum()          # comparisons carry no graph
    correct += out.argmax(1).eq(y).sum()
    with torch.no_grad():
        total += loss
""",
        """
import torch
for batch in loader:
    losses = []
    for task, head in heads.items():          # per-iteration list, summed and backpropagated
        losses.append(criterion(head(model(batch)), batch[task]))
    loss = sum(losses)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
""",
        """
# pytorch/examples fast_neural_style (BSD-3), shortened: .item() before accumulating
import torch
for batch_id, (x, _) in enumerate(train_loader):
    optimizer.zero_grad()
    y = transformer(x)
    content_loss = args.content_weight * mse_loss(vgg(y).relu2_2, vgg(x).relu2_2)
    style_loss = 0.
    for ft_y, gm_s in zip(vgg(y), gram_style):
        style_loss += mse_loss(gram_matrix(ft_y), gm_s)
    total_loss = content_loss + style_loss
    total_loss.backward()
    optimizer.step()
    agg_content_loss += content_loss.item()
    agg_style_loss += style_loss.item()
""",
        """
import torch
def evaluate(model, loader):
    total = 0
    for x, y in loader:                   # no backward here: TD104's business, not this rule's
        total += criterion(model(x), y)
    return total
""",
        """
import torch
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    loss = loss.item()
    epoch_loss += loss
""",
    ],
)
def loss_accumulated_with_graph(node, module):
    """
    ## What it does
    Finds, inside a training loop (a loop that runs `backward()` itself or through a helper),
    `total += loss`, `total = total + loss`, `losses.append(loss)`, `acc = torch.cat([acc, out])`,
    `running += criterion(out, y)` or `meter.update(loss)` (when the meter's class, in this file or
    the project, adds its argument into an attribute: `self.sum += val * n`) where the accumulated value still carries the autograd
    graph: the loss that is backpropagated, a value computed from it, a loss call, or a model
    output. `.item()`, `.detach()`, `float(...)`, `.tolist()`, comparisons and `argmax` end the
    graph and stay quiet, as do accumulators that are themselves backpropagated later (composing
    a loss from parts, micro-batch sums), accumulators reset on every iteration, and code under
    `torch.no_grad()`.

    ## Why is this bad?
    The accumulator holds a reference to every iteration's graph (PyTorch FAQ, "My model reports
    cuda runtime error(2): out of memory": `total_loss += loss` "is accumulating history across
    your training loop"). Memory grows step after step; appended model outputs keep whole
    activations alive, so the run ends in CUDA out of memory long after the line that caused it.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    ```
    Use instead:
    ```python
        total_loss += loss.item()      # or loss.detach() to stay on the GPU without a sync
    ```
    """
    if type(node) is ast.Expr and type(node.value) is not ast.Call:
        return None
    found = _accumulation(module, node)
    if found is None:
        return None
    target, values = found
    loop = next((lp for lp in enclosing_loops(module, node) if loop_trains(module, lp) is not None), None)
    if loop is None or under_no_grad(module, node):
        return None
    scope = scope_of(module, node)
    flows = cached(module, "td102_flows", dict)
    flow = flows.get(id(scope))
    if flow is None:
        flow = flows[id(scope)] = Flow(module, scope)
    value = next((v for v in values if flow.carries(v)), None)
    if value is None:
        return None
    acc = key_of(module, strip_subscripts(target))
    if acc is not None and acc in flow.ancestors:
        return None
    if _reset_each_iteration(module, node, target, loop):
        return None
    return _violation(module, scope, node, target, value, loop, flow)


def _violation(module, scope, stmt, target, value, loop, flow):
    trained = loop_trains(module, loop)
    acc = text(module, target, 30)
    val = text(module, value, 40)
    edits: tuple[Edit, ...] = ()
    if not isinstance(value, (ast.List, ast.Tuple)):
        seg = source(module, value) or ""
        new = f"{seg}.detach()" if is_atom(value) else f"({seg}).detach()"
        edits = (Edit(value.lineno, value.col_offset, value.end_lineno, value.end_col_offset, new),)
    root = strip_subscripts(target)
    while isinstance(root, ast.Attribute):
        root = root.value
    returned = isinstance(root, ast.Name) and any(
        isinstance(n, ast.Return) and n.value is not None and any(isinstance(s, ast.Name) and s.id == root.id
                                                                   for s in ast.walk(n.value))
        for n in body_nodes(scope_body(scope)))
    message = (f"`{text(module, stmt, 50)}` keeps the autograd graph of every iteration alive: `{val}` requires "
               f"grad (the loop at line {loop.lineno} backpropagates at line {trained.lineno}), so `{acc}` "
               f"references all past graphs and memory grows until CUDA runs out")
    shown = val if is_atom(value) else f"({val})"
    if LOSS_NAME.search(val.split("(")[0].split(".")[-1].split("[")[0]) or isinstance(stmt, ast.AugAssign):
        summary = (f"Accumulate a detached value: `{shown}.detach()` (or `{shown}.item()` for a Python float, at "
                   "the cost of a GPU sync each step)")
    else:
        summary = f"Keep a detached copy: `{shown}.detach()` (add `.cpu()` to release the GPU memory too)"
    fix = LintFix(summary, edits=edits, safe=not returned)
    return Violation(stmt, message, fix)


def _accumulation(module, stmt):
    """(accumulator target, [candidate values]) for an accumulating statement, else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        return stmt.target, [stmt.value]
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        if not ((type(value) is ast.BinOp and type(value.op) is ast.Add) or
                (type(value) is ast.Call and value.args and type(value.args[0]) in (ast.List, ast.Tuple))):
            return None
        tdump = ast.dump(target, annotate_fields=False).replace("Store()", "Load()")
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            if ast.dump(value.left, annotate_fields=False) == tdump:
                return target, [value.right]
            if ast.dump(value.right, annotate_fields=False) == tdump:
                return target, [value.left]
        if isinstance(value, ast.Call) and value.args and isinstance(value.args[0], (ast.List, ast.Tuple)) and \
                module.call_name(value) in ("torch.cat", "torch.stack", "torch.concat", "torch.concatenate",
                                            "torch.hstack", "torch.vstack"):
            elts = value.args[0].elts
            if any(ast.dump(e, annotate_fields=False) == tdump for e in elts):
                return target, [e for e in elts if ast.dump(e, annotate_fields=False) != tdump]
        return None
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        func = call.func
        if isinstance(func, ast.Attribute) and call.args:
            if func.attr in ("append", "add_"):
                return func.value, [call.args[0]]
            if func.attr == "extend":
                return func.value, [call.args[0]]
            if func.attr == "insert" and len(call.args) == 2:
                return func.value, [call.args[1]]
            if func.attr == "update" and _meter_accumulates(module, func.value):
                return func.value, [call.args[0]]
    return None


def _meter_accumulates(module, receiver) -> bool:
    """`losses.update(loss, n)` where `losses` is built from a class of this file or the project
    (an AverageMeter) whose update() adds its argument into an attribute: `self.sum += val * n`
    keeps every iteration's graph, like `total += loss` does. Unknown classes stay quiet."""
    for o in module.flow.origins(receiver):
        if not isinstance(o.node, ast.Call) or not isinstance(o.node.func, ast.Name):
            continue
        cls = _class_named(o.module, o.node.func.id)
        update = next((b for b in cls.body if isinstance(b, ast.FunctionDef) and b.name == "update"), None) \
            if cls is not None else None
        if update is None or len(update.args.args) < 2:
            continue
        value = update.args.args[1].arg
        for n in ast.walk(update):
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Attribute) \
                    and isinstance(n.target.value, ast.Name) and n.target.value.id == "self" \
                    and any(isinstance(x, ast.Name) and x.id == value for x in ast.walk(n.value)) \
                    and not any(isinstance(x, ast.Call) and (getattr(x.func, "attr", "") in ("item", "detach")
                                                             or getattr(x.func, "id", "") == "float")
                                for x in ast.walk(n.value)):
                return True
    return False


def _class_named(module, name):
    if name in module.classes:
        return module.classes[name]
    for node in module.nodes(ast.ImportFrom):
        for a in node.names:
            if (a.asname or a.name) == name:
                other = module.project.import_target(module.path, node.module or "", node.level)
                return other.classes.get(a.name) if other is not None else None
    return None


def _same_target(a, b) -> bool:
    return ast.dump(a, annotate_fields=False).replace("Store()", "Load()") == \
        ast.dump(b, annotate_fields=False).replace("Store()", "Load()")


def _reset_each_iteration(module, stmt, target, loop) -> bool:
    """An assignment (not an accumulation) to the accumulator, or to the container it lives in,
    runs before `stmt` on every iteration of `loop`."""
    candidates = [target]
    root = target
    while isinstance(root, (ast.Subscript, ast.Attribute)):
        root = root.value
        if isinstance(root, (ast.Name, ast.Attribute)):
            candidates.append(root)
    cur = stmt
    while cur is not loop:
        parent = module.parents.get(cur)
        if parent is None:
            return False
        for field in ("body", "orelse", "finalbody", "handlers"):
            stmts = getattr(parent, field, None)
            if not isinstance(stmts, list) or not any(s is cur for s in stmts):
                continue
            for s in stmts:
                if s is cur:
                    break
                if _resets(s, candidates):
                    return True
        cur = parent
    return False


def _resets(s, candidates) -> bool:
    if isinstance(s, ast.Assign):
        targets = s.targets
    elif isinstance(s, ast.AnnAssign) and s.value is not None:
        targets = [s.target]
    elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
            and s.value.func.attr == "clear":
        return any(_same_target(s.value.func.value, c) for c in candidates)
    else:
        return False
    flat = []
    for t in targets:
        flat.extend(t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
    for t in flat:
        for c in candidates:
            if _same_target(t, c):
                uses_itself = any(_same_target(sub, c) for sub in ast.walk(s.value) if isinstance(sub, type(c)))
                if not uses_itself:
                    return True
    return False


# ------------------------------------------------------------------ a light dataflow: "does this require grad?"

_DETACH_BUILTINS = frozenset({"float", "int", "bool", "len", "str", "repr", "format", "round", "isinstance",
                              "hasattr", "type", "id", "print", "math.isnan", "math.isfinite"})
_DETACH_METHODS = frozenset({"item", "detach", "tolist", "numpy", "size", "dim", "numel", "argmax", "argmin",
                             "eq", "ne", "lt", "gt", "le", "ge", "long", "int", "bool", "nonzero", "isnan", "isinf",
                             "isfinite", "any", "all", "data_ptr", "element_size", "get_device", "is_contiguous",
                             "byte", "short", "sign", "count_nonzero", "argsort", "equal", "allclose", "isclose",
                             "__len__", "keys", "backward", "manual_backward", "step", "zero_grad"})
_NONDIFF_ATTRS = frozenset({"data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf", "ndim", "names",
                            "is_cuda", "layout"})
_TORCH_NONDIFF = frozenset({"argmax", "argmin", "tensor", "as_tensor", "no_grad", "isnan", "isinf", "isfinite",
                            "eq", "ne", "lt", "gt", "le", "ge", "equal", "allclose", "isclose", "numel",
                            "count_nonzero", "argsort", "bucketize", "searchsorted", "zeros_like", "ones_like",
                            "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "is_tensor",
                            "sign", "nonzero", "unique", "bincount", "histc"})
_INDEX_RESULTS = frozenset({"max", "min", "topk", "sort", "kthvalue", "median", "mode", "cummax", "cummin"})


class Flow:
    """Reaching definitions by source order inside one scope, and a "carries the graph" test."""

    def __init__(self, module, scope):
        self.module = module
        self.defs: dict[str, list[tuple[tuple[int, int], tuple]]] = {}
        self.backwarded: set[tuple[str, int | None]] = set()
        self.ancestors: set[str] = set()
        self._memo: dict[tuple[str, int | None], bool] = {}
        self._busy: set[tuple[str, int | None]] = set()
        body = scope_body(scope)
        backward_exprs = []
        for n in body_nodes(body):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    self._bind(t, ("expr", n.value), n)
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                self._bind(n.target, ("expr", n.value), n)
            elif isinstance(n, ast.AugAssign):
                key = key_of(module, n.target)
                if key:
                    self._add(key, ("aug", key, n.value, n), n)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                self._bind(n.target, ("opaque",), n, at=pos(n))
            elif isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:
                    if item.optional_vars is not None:
                        self._bind(item.optional_vars, ("opaque",), n, at=pos(n))
            elif isinstance(n, ast.NamedExpr):
                self._bind(n.target, ("expr", n.value), n)
            elif isinstance(n, ast.Call):
                targets = backward_targets(module, n)
                if targets:
                    backward_exprs.extend(targets)
        for lst in self.defs.values():
            lst.sort(key=lambda d: d[0])
        for expr in backward_exprs:
            for key, at in _keys(module, expr):
                self.backwarded.add((key, self._reaching(key, at)))
            for sub in ast.walk(expr):  # broad on purpose: an ancestor only ever silences a finding
                if isinstance(sub, (ast.Name, ast.Attribute)):
                    key = key_of(module, sub)
                    if key:
                        self.ancestors.add(key)
        # Ancestors: every name a backpropagated value is computed from (flow-insensitive).
        todo = list(self.ancestors)
        while todo:
            key = todo.pop()
            for _, spec in self.defs.get(key, ()):
                value = spec[1] if spec[0] in ("expr", "index") else spec[2] if spec[0] == "aug" else None
                if value is None:
                    continue
                for sub in ast.walk(value):
                    if isinstance(sub, (ast.Name, ast.Attribute)):
                        k = key_of(module, sub)
                        if k and k not in self.ancestors:
                            self.ancestors.add(k)
                            todo.append(k)

    # -------------------------------------------------------------- definitions
    def _add(self, key, spec, stmt, at=None):
        at = at or (stmt.end_lineno, stmt.end_col_offset)
        self.defs.setdefault(key, []).append((at, spec))

    def _bind(self, target, spec, stmt, at=None):
        if isinstance(target, (ast.Tuple, ast.List)):
            value = spec[1] if spec[0] == "expr" else None
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self._bind(t, ("expr", v), stmt, at)
            else:
                for i, t in enumerate(target.elts):
                    self._bind(t, ("index", value, i) if value is not None else ("opaque",), stmt, at)
            return
        if isinstance(target, ast.Starred):
            self._bind(target.value, ("opaque",), stmt, at)
            return
        key = key_of(self.module, target)
        if key:
            self._add(key, spec, stmt, at)

    def _reaching(self, key, at) -> int | None:
        found = None
        for i, (where, _) in enumerate(self.defs.get(key, ())):
            if where <= at:
                found = i
            else:
                break
        return found

    def carries_key(self, key, at) -> bool:
        idx = self._reaching(key, at)
        k = (key, idx)
        if k in self.backwarded:
            return True
        if idx is None:
            return False
        if k in self._memo:
            return self._memo[k]
        if k in self._busy:
            return False
        self._busy.add(k)
        try:
            spec = self.defs[key][idx][1]
            if spec[0] == "expr":
                result = self.carries(spec[1])
            elif spec[0] == "index":
                value, i = spec[1], spec[2]
                result = not (i > 0 and _returns_indices(self.module, value)) and self.carries(value)
            elif spec[0] == "aug":
                stmt = spec[3]
                result = self.carries(spec[2]) or self.carries_key(key, (stmt.lineno, stmt.col_offset))
            else:
                result = False
        finally:
            self._busy.discard(k)
        self._memo[k] = result
        return result

    # -------------------------------------------------------------- expressions
    def carries(self, expr) -> bool:
        module = self.module
        if isinstance(expr, ast.Name):
            return self.carries_key(expr.id, pos(expr))
        if isinstance(expr, ast.Attribute):
            key = key_of(module, expr)
            if key is not None and (key in self.defs or any(b[0] == key for b in self.backwarded)):
                return self.carries_key(key, pos(expr))
            if expr.attr in _NONDIFF_ATTRS:
                return False
            return self.carries(expr.value)
        if isinstance(expr, ast.Subscript):
            return self.carries(expr.value)
        if isinstance(expr, ast.Call):
            return self._call(expr)
        if isinstance(expr, ast.BinOp):
            return self.carries(expr.left) or self.carries(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return not isinstance(expr.op, ast.Not) and self.carries(expr.operand)
        if isinstance(expr, ast.IfExp):
            return self.carries(expr.body) or self.carries(expr.orelse)
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return any(self.carries(e) for e in expr.elts)
        if isinstance(expr, ast.Dict):
            return any(self.carries(v) for v in expr.values)
        if isinstance(expr, (ast.Starred, ast.NamedExpr, ast.Await)):
            return self.carries(expr.value)
        return False

    def _args_carry(self, call) -> bool:
        return any(self.carries(a) for a in call.args) or any(self.carries(k.value) for k in call.keywords)

    def _call(self, call) -> bool:
        module = self.module
        func = call.func
        if isinstance(func, ast.Name) and func.id in _DETACH_BUILTINS:
            return False
        if isinstance(func, ast.Attribute) and func.attr in _DETACH_METHODS:
            return False
        name = module.call_name(call)
        if name in _DETACH_BUILTINS:
            return False
        if name and name.split(".")[0] in ("torch", "numpy", "math", "np"):
            last = name.rsplit(".", 1)[1]
            if not name.startswith("torch.") or last in _TORCH_NONDIFF:
                return False
            if name.startswith("torch.nn.") and not name.startswith("torch.nn.functional."):
                return False
            return self._args_carry(call)
        if model_callee(module, call):
            return True
        if is_loss_callee(module, call):
            return self._args_carry(call)
        simple = callee_simple_name(call)
        if simple and _returns_graph(module, simple):
            return True
        if isinstance(func, ast.Attribute):
            if self.carries(func.value):
                return True
            root = func.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("self", "cls"):
                return self._args_carry(call)
        return False


def _returns_indices(module, value) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr in _INDEX_RESULTS:
        return True
    name = module.call_name(value) or ""
    return name.startswith("torch.") and name.rsplit(".", 1)[1] in _INDEX_RESULTS


def _keys(module, expr):
    """(key, position) of the values a backward target is computed from (`scaler.scale(loss)` ->
    loss; `(loss / n).backward()` -> loss; `outputs.loss` -> outputs.loss)."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        key = key_of(module, expr)
        if key is not None:
            yield key, pos(expr)
            return
    if isinstance(expr, ast.Call):
        # A model or loss call's arguments are inputs and targets, not the graph: the call
        # itself is recognised as carrying the graph.
        if model_callee(module, expr) or is_loss_callee(module, expr):
            return
        func = expr.func
        if isinstance(func, ast.Attribute):
            owner = key_of(module, strip_subscripts(func.value))
            if owner and _BACKWARD_OWNER.search(owner.split(".")[-1]):
                for a in expr.args:  # scaler.scale(loss), accelerator.gather(loss)
                    yield from _keys(module, a)
            else:
                yield from _keys(module, func.value)  # loss.mean(), (loss / n).sum()
            return
        name = module.call_name(expr) or (func.id if isinstance(func, ast.Name) else "")
        if name == "sum" or name.startswith("torch."):  # sum(losses), torch.stack(losses).mean()
            for a in expr.args:
                yield from _keys(module, a)
        return
    for child in ast.iter_child_nodes(expr):
        if isinstance(child, ast.expr):
            yield from _keys(module, child)


def _returns_graph(module, name) -> bool:
    """A module function that runs backward itself and returns the (undetached) loss."""
    table = cached(module, "td102_returns_graph", dict)
    if name in table:
        return table[name]
    table[name] = False  # recursion guard
    result = False
    for fdef in facts(module).functions.get(name, ()):
        nodes = list(body_nodes(fdef.body))
        if not any(isinstance(n, ast.Call) and is_backward(module, n) for n in nodes):
            continue
        flow = Flow(module, fdef)
        if any(isinstance(n, ast.Return) and n.value is not None and flow.carries(n.value) for n in nodes):
            result = True
            break
    table[name] = result
    return result
