import ast
import re

from torchdoctor.checks.lint._rank import (RankAnalysis, Site, analysis, is_test_file, mentions_rank,
                                           short, under_single_process)
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import body_nodes, final_identifier
from torchdoctor.registry import lint_rule

# Substring prefilter for "the file runs under DDP" (confirmed by the calls below).
_DDP_TOKENS = ("distributed", "dist.", "DataParallel", "accelerate", "init_process_group")
# Calls that show the file runs in several processes (not just imports of torch.distributed
# utilities, as a single-process checkpoint-conversion tool does).
_DDP_RUNTIME = {"init_process_group", "get_rank", "get_world_size", "barrier", "all_reduce", "all_gather",
                "broadcast", "reduce", "gather", "scatter", "is_initialized", "destroy_process_group", "new_group",
                "all_gather_object", "broadcast_object_list", "gather_object", "monitored_barrier", "get_local_rank"}
_DDP_CLASSES = {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
                "torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.fsdp.fully_shard",
                "torch.multiprocessing.spawn", "torch.multiprocessing.start_processes", "accelerate.Accelerator",
                "torch.distributed.launcher.api.elastic_launch", "torch.nn.DistributedDataParallel"}
_IN_MEMORY = ("BytesIO", "SpooledTemporaryFile", "NamedTemporaryFile", "TemporaryFile", "mkstemp")
_BUFFER_NAME = re.compile(r"^(?:buf|buff|buffer|bio|stream|bytes_?io|byte_stream|mem_?file|[a-z_]*_buffer)$", re.I)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@lint_rule(
    code="TD110",
    name="save-on-every-rank",
    title="torch.save of a checkpoint outside a main-rank guard in DDP code",
    on=(ast.Module,),
    requires=("save", _DDP_TOKENS),
    severity="warning",
    related=("checkpoint-corrupt", "collective-under-rank-guard"),
    invalid=[
        """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main():
    dist.init_process_group("nccl")
    model = DDP(Net().cuda())
    for epoch in range(10):
        train_one_epoch(model)
        torch.save(model.module.state_dict(), "checkpoint.pt")  # <-

if __name__ == "__main__":
    main()
""",
        """
import torch
import torch.distributed as dist

def save_checkpoint(state, filename="checkpoint.pth.tar"):
    torch.save(state, filename)  # <-

def main_worker(gpu, args):
    dist.init_process_group("nccl", rank=args.rank)
    for epoch in range(args.epochs):
        train(model)
        if args.save:
            save_checkpoint({"epoch": epoch, "state_dict": model.state_dict()})
""",
        """
import os
import torch
import torch.distributed as dist

def worker(rank, world_size):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = train(rank)
    path = os.path.join("runs", "last.pt")
    torch.save({"model": model.state_dict()}, path)  # <-

if __name__ == "__main__":
    torch.multiprocessing.spawn(worker, args=(2,), nprocs=2)
""",
        """
# a Trainer class: the checkpoint helper is called from the epoch loop on every rank
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

class Trainer:
    def __init__(self, model, local_rank):
        self.model = DDP(model.to(local_rank), device_ids=[local_rank])

    def _save_checkpoint(self, epoch):
        torch.save({"epoch": epoch, "model": self.model.module.state_dict()}, "last.pt")  # <-

    def train(self, epochs):
        for epoch in range(epochs):
            self._run_epoch(epoch)
            self._save_checkpoint(epoch)

if __name__ == "__main__":
    dist.init_process_group("nccl")
    Trainer(build_model(), int(os.environ["LOCAL_RANK"])).train(100)
""",
        """
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
def train(model, rank):
    dist.init_process_group("nccl")
    model = DDP(model, device_ids=[rank])
    if dist.get_rank() != 0:  # meant `== 0`: every rank but the main one writes
        torch.save(model.module.state_dict(), "last.pt")  # <-
""",
    ],
    valid=[
        """
import torch
import torch.distributed as dist

def main():
    dist.init_process_group("nccl")
    for epoch in range(10):
        train_one_epoch(model)
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), "checkpoint.pt")
        dist.barrier()
""",
        """
# pytorch/examples imagenet: the helper is only called under the main-rank test
import torch
import torch.distributed as dist

def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    torch.save(state, filename)

def main_worker(gpu, ngpus_per_node, args):
    dist.init_process_group(backend=args.dist_backend, rank=args.rank)
    for epoch in range(args.start_epoch, args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)
        if not args.multiprocessing_distributed or (args.multiprocessing_distributed
                and args.rank % ngpus_per_node == 0):
            save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict()}, False)
""",
        """
# per-rank shards: each rank writes its own file
import torch
import torch.distributed as dist

def save_shard(model, out_dir):
    rank = dist.get_rank()
    torch.save(model.state_dict(), f"{out_dir}/shard_rank{rank}.pt")
""",
        """
# detr util/misc.py: save_on_master with an is_main_process() predicate, early exit form too
import torch
import torch.distributed as dist

def get_rank():
    if not dist.is_available() or not dist.is_initialized():
        return 0
    return dist.get_rank()

def is_main_process():
    return get_rank() == 0

def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)

def save_last(model, args):
    if not is_main_process():
        return
    torch.save(model.state_dict(), args.output_dir + "/last.pth")
""",
        """
# in-memory serialization (to broadcast an object), not a file
import io
import torch
import torch.distributed as dist

def serialize(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()
""",
        """
# nanoGPT: master_process = ddp_rank == 0
import os
import torch
from torch.distributed import init_process_group

ddp_rank = int(os.environ["RANK"])
master_process = ddp_rank == 0
init_process_group(backend="nccl")
for it in range(max_iters):
    if it % eval_interval == 0 and master_process:
        torch.save(checkpoint, os.path.join(out_dir, "ckpt.pt"))
""",
        """
# not DDP code: a single-process script saves wherever it likes
import torch

for epoch in range(10):
    train(model)
    torch.save(model.state_dict(), "checkpoint.pt")
""",
        """
# pytorch/examples distributed/ddp-tutorial-series/multigpu.py: gpu_id is the rank from mp.spawn
import torch
import torch.multiprocessing as mp
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP

class Trainer:
    def __init__(self, model, gpu_id, save_every):
        self.gpu_id = gpu_id
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])
        self.save_every = save_every

    def _save_checkpoint(self, epoch):
        torch.save(self.model.module.state_dict(), "checkpoint.pt")

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)
            if self.gpu_id == 0 and epoch % self.save_every == 0:
                self._save_checkpoint(epoch)

def main(rank, world_size):
    init_process_group(backend="nccl", rank=rank, world_size=world_size)
    Trainer(build(), rank, 10).train(100)

if __name__ == "__main__":
    mp.spawn(main, args=(2,), nprocs=2)
""",
        """
# transformers trainer.py _save_rng_state: one process, or one file per process
import os
import torch
import torch.distributed as dist

def save_rng_state(args, output_dir, rng_states):
    if dist.is_initialized():
        dist.barrier()
    if args.world_size <= 1:
        torch.save(rng_states, os.path.join(output_dir, "rng_state.pth"))
    else:
        torch.save(rng_states, os.path.join(output_dir, f"rng_state_{args.process_index}.pth"))
""",
        """
# Megatron-LM offline_feature_extract.py: each rank writes the samples of its own stride
import os
import torch
import torch.distributed as dist

def extract_feature(dataset, model, output_dir, start, end):
    for i in range(start + dist.get_rank(), end, dist.get_world_size()):
        file_path = os.path.join(output_dir, "{:08d}.pt".format(i - start))
        torch.save(model(dataset[i]), file_path)
    dist.barrier()
""",
        """
# lightning_fabric consolidate_checkpoint.py: a single-process tool that only imports
# torch.distributed.checkpoint utilities
import torch
from torch.distributed.checkpoint import FileSystemReader

if __name__ == "__main__":
    args = parse_cli_args()
    checkpoint = load_distributed_checkpoint(args.checkpoint_folder)
    torch.save(checkpoint, args.output_file)
""",
        """
# the main process writes the cache first; the others find it and load it
import os
import torch
import torch.distributed as dist
from utils.torch_utils import torch_distributed_zero_first

def build_cache(path, local_rank):
    dist.init_process_group("nccl")
    with torch_distributed_zero_first(local_rank):
        if not os.path.exists(path):
            torch.save(preprocess(), path)
    return torch.load(path)
""",
    ],
)
def save_on_every_rank(node, module):
    """
    ## What it does
    Finds `torch.save(...)` in DDP code (the file uses DistributedDataParallel, FSDP,
    `init_process_group` or `torch.distributed`) that every rank executes: not under a
    main-rank guard (`if rank == 0`, `if dist.get_rank() == 0`, `is_main_process()`,
    `accelerator.is_main_process`, an early `if rank != 0: return`, `@rank_zero_only`), not in a
    helper whose every call in the file is so guarded, not writing a per-rank path (one that
    contains the rank, `os.getpid()`, or an in-memory `io.BytesIO`), not in a branch that only
    runs without distribution (`world_size == 1`, `not dist.is_initialized()`), and not inside
    `with torch_distributed_zero_first(rank):` / `main_process_first()` or a file lock. A helper
    whose callers are in other files is judged only in scripts (a library's caller may guard it).

    A guard that keeps only rank 0 out (`if rank != 0: torch.save(...)`) still lets every
    other rank write, and is reported too.

    ## Why is this bad?
    Every process opens and writes the same file at the same moment. The file ends up holding
    byte ranges written by different ranks — whose contents need not agree (RNG states,
    rank-local counters) — or is cut short when a late rank's open truncates it while another
    rank is still writing: resuming then fails ("PytorchStreamReader failed reading zip
    archive") or, worse, loads a mixture. It also multiplies I/O by the world size and, on shared
    filesystems, can stall every rank.

    ## Example
    ```python
    for epoch in range(epochs):
        train_one_epoch(model)
        torch.save(model.module.state_dict(), "checkpoint.pt")   # every rank writes
    ```
    Use instead:
    ```python
    for epoch in range(epochs):
        train_one_epoch(model)
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), "checkpoint.pt")
        dist.barrier()   # others wait before reading it
    ```
    """
    try:
        return _check(module)
    except RecursionError:  # a pathologically nested expression: say nothing rather than guess
        return None


def _check(module):
    if is_test_file(module.path):  # (the file's words were checked by the prefilter, requires=)
        return None
    a = analysis(module)
    if not _runs_distributed(a):
        return None
    out = []
    script = None
    for call in a.calls:
        if final_identifier(call.func) != "save" or a.resolved(call.func) != "torch.save":
            continue
        site = a.site(call)
        if site is None:
            continue
        if site.guards and not _only_other_ranks(site):
            continue
        path = _path_arg(site.call)
        if path is None or _per_process(path, site, a) or under_single_process(a, call) or _serialized(a, call):
            continue
        scope = site.scope
        why = ""
        if script is None:
            script = module.is_script or _launches(a)
        if isinstance(scope, _FUNCS):
            only = a.main_only(scope)
            if only is True:
                continue
            if only is None:
                # never called here: report only a script's top-level worker (mp.spawn(main))
                if not script or a.enclosing_class(scope) is not None or a.scope_of(scope) is not module.tree:
                    continue
            elif only == "unknown" and not script:
                continue  # a library helper whose callers are elsewhere may be guarded there
            else:
                call = _unguarded_call(a, scope)
                if call is not None and isinstance(call.scope, _FUNCS):
                    why = f" around the call of {scope.name}() at line {call.call.lineno}"
        who = "every rank" if not site.guards else f"every rank but rank 0 ({site.guard.describe()})"
        guard_text = "no main-rank guard" if not site.guards else "the guard excludes the main rank, not the others"
        msg = (f"torch.save() to {short(path, 40)} runs on {who}: {guard_text}{why}. The processes open and write "
               f"the same file at the same time, so it ends up holding byte ranges written by different ranks "
               f"(their contents need not agree: RNG states, rank-local counters), or is cut short when a late "
               f"rank's open truncates it under another rank's writes; the I/O is multiplied by the world size")
        fix = LintFix("Save from one process: wrap it in `if dist.get_rank() == 0:` (then `dist.barrier()` before "
                      "other ranks read the file), or put the rank in the file name for per-rank shards")
        out.append(Violation(site.call, msg, fix, severity=None if script else "note"))
    return out


def _only_other_ranks(site: Site) -> bool:
    """`if rank != 0: torch.save(...)`: every guard around the call keeps rank 0 out and lets all
    the other ranks in, so several processes still write."""
    return all(g.polarity < 0 and g.about_rank_zero and g.how in ("if", "else") for g in site.guards)


def _runs_distributed(a: RankAnalysis) -> bool:
    known = a.__dict__.get("_td110_distributed")
    if known is None:
        known = False
        for call in a.calls:
            name = final_identifier(call.func)
            if name in _DDP_RUNTIME:
                q = a.resolved(call.func) or ""
                if q.startswith("torch.distributed.") or q.startswith("accelerate."):
                    known = True
                    break
            elif name in _DDP_SIMPLE:
                if (a.resolved(call.func) or "") in _DDP_CLASSES:
                    known = True
                    break
            elif name in a.module.aliases and a.module.aliases[name] in _DDP_CLASSES:
                known = True
                break
        a.__dict__["_td110_distributed"] = known
    return known


_LAUNCH = {"torch.distributed.init_process_group", "accelerate.Accelerator", "torch.multiprocessing.spawn",
           "torch.multiprocessing.start_processes"}


def _launches(a: RankAnalysis) -> bool:
    """The file starts the distributed job itself (an entry point even without `__main__`)."""
    for call in a.calls:
        name = final_identifier(call.func)
        if name in ("init_process_group", "Accelerator", "spawn", "start_processes") and \
                (a.resolved(call.func) or "") in _LAUNCH:
            return True
    return False


_DDP_SIMPLE = {q.rsplit(".", 1)[-1] for q in _DDP_CLASSES}


def _serialized(a: RankAnalysis, call: ast.Call) -> bool:
    """Inside `with torch_distributed_zero_first(rank):` / `main_process_first()` (the main process
    writes first, the others then find the file) or a file lock: the writes do not race."""
    for anc in a.module.ancestors(call):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(anc, (ast.With, ast.AsyncWith)):
            for item in anc.items:
                name = (final_identifier(item.context_expr) or "").lower()
                if name.endswith("first") or "lock" in name:
                    return True
    return False


def _path_arg(call: ast.Call) -> ast.AST | None:
    if len(call.args) >= 2:
        arg = call.args[1]
        return None if isinstance(arg, ast.Starred) else arg
    for k in call.keywords:
        if k.arg == "f":
            return k.value
    return None  # torch.save(*args, **kwargs): a forwarding wrapper, judged at its callers


def _per_process(path: ast.AST, site: Site, a: RankAnalysis) -> bool:
    """A path unique to this process, or no file at all (an io.BytesIO buffer)."""
    exprs = [path]
    seen = 0
    while exprs and seen < 8:
        e = exprs.pop()
        seen += 1
        if mentions_rank(e, a, site.scope):
            return True
        if isinstance(e, ast.Name) and _BUFFER_NAME.match(e.id):
            return True
        for n in ast.walk(e):
            if isinstance(n, ast.Call) and (a.module.dotted(n.func) or "").endswith(_IN_MEMORY):
                return True
            if isinstance(n, ast.Name):
                exprs.extend(_bindings(n.id, site))
    return False


def _bindings(name: str, site: Site) -> list[ast.AST]:
    """The values bound to `name` earlier in the scope: assignments and `with ... as name`."""
    out: list[ast.AST] = []
    body = getattr(site.scope, "body", [])
    line = site.call.lineno
    for n in body_nodes(body):
        if getattr(n, "lineno", line) > line:
            continue
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets):
            out.append(n.value)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.target.id == name and n.value:
            out.append(n.value)
        elif isinstance(n, ast.withitem) and isinstance(n.optional_vars, ast.Name) and n.optional_vars.id == name:
            out.append(n.context_expr)
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and \
                any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(n.target)):
            out.append(n.iter)  # for i in range(rank, n, world_size): a per-rank index
    return out[-3:]


def _unguarded_call(a: RankAnalysis, fn) -> Site | None:
    for call in a.callers().get(id(fn), []):
        site = a.site(call)
        if site is None:
            continue
        if site.guards and not _only_other_ranks(site):
            continue
        if not (isinstance(site.scope, _FUNCS) and a.main_only(site.scope) is True):
            return site
    return None
