import ast
import re

from torchdoctor.checks.lint._callflow import (
    argument, cached, insert_keyword, is_const, is_torch_load, mentions_name, passes,
    short_call, source,
)
from torchdoctor.checks.lint._rank import analysis
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import SourceModule, body_nodes
from torchdoctor.registry import lint_rule

# load_state_dict receivers whose state holds no tensors (LR schedulers, AMP grad scalers).
_NO_TENSORS = re.compile(r"sched|scaler", re.IGNORECASE)
_DDP_CALLS = {
    "torch.distributed.init_process_group": "init_process_group",
    "torch.nn.parallel.DistributedDataParallel": "DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "DistributedDataParallel",
}

# A file can only show _ddp_evidence if its text holds one of these.
_DDP_WORDS = (*sorted(set(_DDP_CALLS.values())), "LOCAL_RANK")


@lint_rule(
    code="TD401",
    name="load-without-map-location",
    title="torch.load without map_location in DDP code",
    on=(ast.Call,),
    requires=(re.compile(r"load\b"), ("torch.load", "serialization", "import torch as", "from torch import")),
    severity="warning",
    related=("checkpoint-on-cuda0", "cuda-out-of-memory", "cuda-unavailable-on-load"),
    invalid=[
        """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(build_model().cuda(), device_ids=[local_rank])
    ckpt = torch.load(args.resume)  # <-
    model.module.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])

if __name__ == "__main__":
    main()
""",
        """
import os
import torch

local_rank = int(os.environ.get("LOCAL_RANK", 0))
model.load_state_dict(torch.load("best.pt", weights_only=True))  # <-
""",
        """
import os
import torch
import torch.distributed as dist

if __name__ == "__main__":
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    state = torch.load("init.pt", map_location="cuda:0")  # <-
    device = torch.device("cuda", 0)
    extra = torch.load("extra.pt", map_location=device)  # <-
    model.load_state_dict(state)
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:  # library code: reported (as a note) only where the checkpoint feeds load_state_dict
    def wrap(self, model, rank):
        return DistributedDataParallel(model, device_ids=[rank])

    def resume(self, path):
        state = torch.load(path)  # <-
        self.model.load_state_dict(state["model"])
""",
    ],
    valid=[
        """
import os
import torch
import torch.distributed as dist

if __name__ == "__main__":
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    state = torch.load("init.pt", map_location=device)  # each rank's own GPU, through a variable
""",
        """
import os
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
ckpt = torch.load(args.resume, map_location="cpu")
ckpt2 = torch.load(args.resume, map_location=f"cuda:{local_rank}")
ckpt3 = torch.load(args.resume, {"cuda:0": f"cuda:{local_rank}"})
ckpt4 = torch.load(args.resume, map_location=lambda storage, loc: storage)
""",
        """
import torch
# single-process training: nothing distributed in this file
model.load_state_dict(torch.load("best.pt"))
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel

def unwrap(model):
    return model.module if isinstance(model, DistributedDataParallel) else model

def load_vocab(path):  # library code, and the result never reaches load_state_dict
    return torch.load(path)

def wrap(model, rank):
    return DistributedDataParallel(model, device_ids=[rank])
""",
        """
import torch
import torch.distributed as dist

def main(rank):
    dist.init_process_group("nccl")
    if rank in [-1, 0]:  # one process reads it: nothing piles up on GPU 0
        run_id = torch.load(weights).get("wandb_id")

if __name__ == "__main__":
    main(0)
""",
        """
import torch
import torch.distributed as dist

def main_worker(gpu, args):
    dist.init_process_group(backend="nccl", rank=args.rank)
    if args.gpu is None:  # one process per node drives all its GPUs
        checkpoint = torch.load(args.resume)
    else:
        checkpoint = torch.load(args.resume, map_location=f"cuda:{args.gpu}")
    model.load_state_dict(checkpoint["state_dict"])

if __name__ == "__main__":
    main_worker(0, args)
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel

class Trainer:
    def wrap(self, model, rank):
        return DistributedDataParallel(model, device_ids=[rank])

    def load_scheduler(self, path):  # an LR scheduler's state is plain numbers
        self.lr_scheduler.load_state_dict(torch.load(path))
""",
        """
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
opts = {"map_location": "cpu"}
ckpt = torch.load(path, **opts)
""",
        """
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
# no LOCAL_RANK, no set_device: each process may see only its own GPU (CUDA_VISIBLE_DEVICES per task)
state = torch.load("init.pt", map_location="cuda:0")
""",
    ],
)
def load_without_map_location(node, module):
    """
    ## What it does
    Finds `torch.load(...)` without `map_location` in code that runs under DDP: the file calls
    `init_process_group`, wraps a model in `DistributedDataParallel`, or reads `LOCAL_RANK`.
    In a training script every such call is reported; in library code only a load whose
    result reaches `load_state_dict` (as a note). In a script that places each rank on its GPU
    by local rank, a `map_location` that names the same GPU on every rank (`"cuda:0"`,
    `torch.device("cuda", 0)`, also through a variable or a parameter: the value-flow engine
    follows it) is reported too.

    ## Why is this bad?
    `torch.save` records each tensor's device and `torch.load` puts it back there. A checkpoint
    written by rank 0 comes back on cuda:0 in every process, so with N ranks GPU 0 receives N
    copies of the weights and optimizer state: `CUDA out of memory` on GPU 0 only, during the
    load or the first steps after resuming, while the other GPUs have room (and on a host
    without that GPU: "Attempting to deserialize object on CUDA device 0 but ...").

    ## Example
    ```python
    dist.init_process_group("nccl")
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    ```
    Use instead:
    ```python
    ckpt = torch.load(args.resume, map_location="cpu")   # load_state_dict copies onto each rank's GPU
    # or: map_location=f"cuda:{local_rank}"
    ```
    """
    if not is_torch_load(module, node):
        return None
    evidence = _ddp_evidence(module) or _called_from_ddp_code(node, module)
    if evidence is None:
        return None
    if _main_rank_only(node, module):
        return None  # one process loads: no pile-up on one GPU (rank 0 normally is cuda:0 anyway)
    if passes(node, "map_location", 1):
        return _same_gpu_everywhere(node, module, evidence)
    if _other_branch_maps(node, module):
        return None  # `if args.gpu is None: torch.load(p) else: torch.load(p, map_location=loc)`: a decision
    consumers = _state_dict_consumers(node, module)
    if consumers and all(_NO_TENSORS.search(c) for c in consumers):
        return None  # an LR scheduler's or a GradScaler's state: plain numbers, nothing lands on a GPU
    feeds = bool(consumers)
    if module.is_script:
        severity = None
    elif feeds:
        severity = "note"
    else:
        return None
    call = short_call(module, node)
    edit = insert_keyword(node, 'map_location="cpu"')
    where = evidence[0] if " is called at " in evidence[0] else f"{evidence[0]} at line {evidence[1]}"
    return Violation(node, f"{call} without map_location in DDP code ({where}): every rank restores the tensors "
                           "onto the GPU they were saved from, usually cuda:0, so GPU 0 holds one copy per rank and "
                           "runs out of memory",
                     LintFix('Pass map_location="cpu" (load_state_dict then copies onto each rank\'s device) or '
                             'map_location=f"cuda:{local_rank}"',
                             edits=(edit,) if edit else (), safe=bool(feeds and edit)),
                     severity=severity)


def _ddp_evidence(module: SourceModule) -> tuple[str, int] | None:
    """(what, line) of the first sign that this file runs under DDP."""
    def compute():
        found: list[tuple[int, str]] = []
        for n in module.nodes(ast.Call, ast.Constant):
            if isinstance(n, ast.Call):
                what = _DDP_CALLS.get(module.call_name(n) or "")
                if what:
                    found.append((n.lineno, what))
            elif isinstance(n, ast.Constant) and n.value == "LOCAL_RANK":
                found.append((n.lineno, "LOCAL_RANK"))
        if not found:
            return None
        line, what = min(found)
        return what, line
    return cached(module, "ddp_evidence", compute)


def _called_from_ddp_code(node: ast.Call, module: SourceModule) -> tuple[str, int] | None:
    """A checkpoint helper in a file without DDP of its own (`ssd/train.py: load_checkpoint`),
    called from a file of the project that runs DDP: the value-flow engine finds the callers."""
    if not module.project.paths:
        return None
    fn = module.enclosing_function(node)
    if fn is None or module.parents.get(fn) is not module.tree:
        return None
    for caller, call in module.flow.call_sites(fn, mentioning=_DDP_WORDS):
        if caller is module:
            continue
        found = _ddp_evidence(caller)
        if found is not None:
            return (f"{fn.name}() is called at {caller.path.rsplit('/', 1)[-1]}:{call.lineno}, a file with "
                    f"{found[0]}"), call.lineno
    return None


def _main_rank_only(node: ast.Call, module: SourceModule) -> bool:
    """Under a main-rank guard (`if rank in (-1, 0):`, `is_main_process()`, @rank_zero_only...),
    as classified by the shared rank analysis of TD101/TD110."""
    a = analysis(module)
    if hasattr(a, "site"):
        site = a.site(node)
    else:  # an earlier shape of the shared analysis: every call site in a list
        site = cached(module, "rank_sites", lambda: {id(s.call): s for s in getattr(a, "sites", ())}).get(id(node))
    if site is None:
        return False
    if any(g.polarity > 0 for g in site.guards):
        return True
    return isinstance(site.scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and a.main_only(site.scope) is True


def _other_branch_maps(node: ast.Call, module: SourceModule) -> bool:
    """The nearest `if` around the call loads with a map_location in its other branch."""
    child: ast.AST = node
    for anc in module.ancestors(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(anc, (ast.If, ast.IfExp)):
            if isinstance(anc, ast.IfExp):
                other = [anc.orelse] if child is anc.body else [anc.body] if child is anc.orelse else []
            else:
                other = anc.orelse if any(child is s for s in anc.body) else \
                    anc.body if any(child is s for s in anc.orelse) else []
            if other:
                return any(isinstance(n, ast.Call) and is_torch_load(module, n) and passes(n, "map_location", 1)
                           for o in other for n in ast.walk(o))
        child = anc
    return False


def _places_by_local_rank(module: SourceModule) -> bool:
    """Ranks pick their GPU by index here (so all GPUs are visible to each process)."""
    def compute():
        for n in ast.walk(module.tree):
            if isinstance(n, ast.Constant) and n.value == "LOCAL_RANK":
                return True
            if isinstance(n, ast.Call) and module.call_name(n) == "torch.cuda.set_device" and n.args \
                    and not isinstance(n.args[0], ast.Constant):
                return True
        return False
    return cached(module, "places_by_local_rank", compute)


def _same_gpu_everywhere(node: ast.Call, module: SourceModule, evidence: tuple[str, int]):
    loc = argument(node, "map_location", 1)
    if loc is None or not module.is_script or not _places_by_local_rank(module):
        return None
    origins = [loc] if isinstance(loc, ast.Constant) else [o for o in module.flow.origins(loc)]
    fixed = [o for o in origins if _fixed_gpu(getattr(o, "module", module), getattr(o, "node", o))]
    if not fixed or len(fixed) != len(origins):
        return None  # some path gives a rank-dependent (or unknown) device
    written = " ".join((source(module, loc) or "'cuda:0'").split())
    first = fixed[0]
    via = ""
    if getattr(first, "node", first) is not loc:
        where_from = " ".join((source(first.module, first.node) or "cuda:0").split())
        via = f" (= {where_from}, line {first.node.lineno})"
    return Violation(node, f"map_location={written}{via} in DDP code ({evidence[0]} at line {evidence[1]}) sends "
                           "every rank's copy of the checkpoint to GPU 0",
                     LintFix('Use map_location="cpu" or map_location=f"cuda:{local_rank}"'))


def _fixed_gpu(module: SourceModule, loc: ast.AST) -> bool:
    """"cuda:0" / torch.device("cuda:0") / torch.device("cuda", 0): the same GPU whatever the rank."""
    if is_const(loc, "cuda:0"):
        return True
    if isinstance(loc, ast.Call) and module.call_name(loc) == "torch.device":
        return (len(loc.args) == 1 and is_const(loc.args[0], "cuda:0")) or \
            (len(loc.args) == 2 and is_const(loc.args[0], "cuda") and is_const(loc.args[1], 0))
    return False


def _state_dict_consumers(node: ast.Call, module: SourceModule) -> list[str]:
    """The receivers (`model`, `self.lr_scheduler`) of the `X.load_state_dict(...)` calls the
    loaded object reaches: directly, or through the name it is assigned to in the same scope
    (`ckpt = torch.load(p)` ... `m.load_state_dict(ckpt["model"])`)."""
    for anc in module.ancestors(node):
        if isinstance(anc, ast.Call) and _is_load_state_dict(anc):
            return [module.dotted(anc.func.value) or "?"]  # type: ignore[union-attr]
        if isinstance(anc, ast.stmt):
            break
    parent = module.parents.get(node)
    if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node):
        return []
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    if not names:
        return []
    func = module.enclosing_function(node)
    body = func.body if func is not None else module.tree.body
    out: list[str] = []
    for n in body_nodes(body):
        later = (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)) > (node.lineno, node.col_offset)
        if later and isinstance(n, ast.Call) and _is_load_state_dict(n):
            args = [*n.args, *(k.value for k in n.keywords)]
            # directly (`m.load_state_dict(ckpt["model"])`) or through a name the flow follows back
            # (`state = ckpt["model"]; m.load_state_dict(state)`)
            values = args + [o.node for a in args if isinstance(a, ast.Name) for o in module.flow.origins(a)]
            if any(mentions_name(v, name) for v in values for name in names):
                out.append(module.dotted(n.func.value) or "?")  # type: ignore[union-attr]
    return out


def _is_load_state_dict(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in ("load_state_dict", "set_state_dict")

