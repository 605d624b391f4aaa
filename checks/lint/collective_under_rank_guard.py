import ast
from dataclasses import dataclass

from torchdoctor.checks.lint._rank import (RankAnalysis, mentions_a_guard, Site, analysis, bindings,
                                           is_test_file, path_facts, reachable, short)
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.lint.module import body_nodes, final_identifier
from torchdoctor.registry import lint_rule

# torch.distributed functions every rank of the group must enter (lint-anchors §4a).
_TORCH = {
    "all_reduce": "all_reduce", "all_reduce_coalesced": "all_reduce", "all_gather": "all_gather",
    "all_gather_into_tensor": "all_gather", "all_gather_coalesced": "all_gather", "_all_gather_base": "all_gather",
    "all_gather_object": "all_gather_object", "all_to_all": "all_to_all", "all_to_all_single": "all_to_all",
    "broadcast": "broadcast", "broadcast_object_list": "broadcast_object_list", "reduce": "reduce",
    "reduce_scatter": "reduce_scatter", "reduce_scatter_tensor": "reduce_scatter",
    "_reduce_scatter_base": "reduce_scatter", "gather": "gather", "gather_object": "gather_object",
    "scatter": "scatter", "scatter_object_list": "scatter_object_list", "barrier": "barrier",
    "monitored_barrier": "barrier", "new_group": "new_group", "new_subgroups": "new_group",
    "new_subgroups_by_enumeration": "new_group",
}
_TORCH_MODULES = {"torch.distributed", "torch.distributed.distributed_c10d", "torch.distributed.nn",
                  "torch.distributed.nn.functional", "torch.distributed._functional_collectives",
                  "deepspeed.comm", "deepspeed", "deepspeed.comm.comm"}
_XLA = {"all_reduce": "all_reduce", "all_gather": "all_gather", "reduce_scatter": "reduce_scatter",
        "all_to_all": "all_to_all", "rendezvous": "barrier", "mesh_reduce": "all_gather",
        "collective_broadcast": "broadcast"}
_ACCELERATE_FUNCS = {"gather": "all_gather", "gather_object": "all_gather_object", "reduce": "all_reduce",
                     "broadcast": "broadcast", "broadcast_object_list": "broadcast_object_list",
                     "pad_across_processes": "all_gather", "wait_for_everyone": "barrier"}
_DCP = {"torch.distributed.checkpoint.save", "torch.distributed.checkpoint.load",
        "torch.distributed.checkpoint.async_save", "torch.distributed.checkpoint.save_state_dict",
        "torch.distributed.checkpoint.load_state_dict"}
_FSDP_CLASSES = {"torch.distributed.fsdp.FullyShardedDataParallel",
                 "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"}
_FSDP_STATIC = {"full_optim_state_dict", "optim_state_dict", "sharded_optim_state_dict",
                "scatter_full_optim_state_dict", "summon_full_params"}
# Framework methods by receiver (accelerate, Lightning strategy/Fabric).
_ANY_RECEIVER = {"wait_for_everyone": "barrier", "gather_for_metrics": "all_gather",
                 "pad_across_processes": "all_gather", "reduce_boolean_decision": "all_reduce"}
_ACCELERATOR = {"gather": "all_gather", "reduce": "all_reduce", "gather_for_metrics": "all_gather"}
_STRATEGY = {"barrier": "barrier", "reduce": "all_reduce", "broadcast": "broadcast", "all_gather": "all_gather"}
_FABRIC = {"barrier": "barrier", "all_reduce": "all_reduce", "all_gather": "all_gather", "broadcast": "broadcast"}
_WRAPPERS = {
    "torch.nn.parallel.DistributedDataParallel": "ddp", "torch.nn.parallel.distributed.DistributedDataParallel": "ddp",
    "torch.nn.DistributedDataParallel": "ddp", "apex.parallel.DistributedDataParallel": "ddp",
    **{c: "fsdp" for c in _FSDP_CLASSES},
    "torch.distributed.fsdp.fully_shard": "fsdp", "torch.distributed._composable.fsdp.fully_shard": "fsdp",
    "torch.distributed._composable.fully_shard": "fsdp",
}
_WRAPPER_SIMPLE = {q.rsplit(".", 1)[-1] for q in _WRAPPERS}
_WRAPPER_TOKENS = ("DistributedDataParallel", "FullyShardedDataParallel", "fully_shard", "DDP", "FSDP")
_CANDIDATES = (set(_TORCH) | set(_XLA) | set(_ACCELERATE_FUNCS) | _FSDP_STATIC | set(_ANY_RECEIVER)
               | set(_ACCELERATOR) | set(_STRATEGY) | set(_FABRIC)
               | {"save", "load", "async_save", "save_state_dict", "load_state_dict", "log", "log_dict",
                  "forward", "state_dict", "full_tensor", "save_checkpoint", "load_checkpoint"})
_RETURNS_SELF = {"to", "cuda", "cpu", "train", "eval", "float", "half", "bfloat16", "double", "xpu"}

# substring prefilter: a file without any of these cannot call a collective. Each word stands for
# every name that contains it ("reduce": all_reduce, reduce_scatter, mesh_reduce, dist.reduce;
# "gather": all_gather*, gather_object, gather_for_metrics; "DataParallel": DDP and FSDP classes);
# the commonest come first, since the search stops at the first hit.
_COLLECTIVE_TOKENS = ("distributed", "reduce", "gather", "broadcast", "barrier", "scatter", "all_to_all", "DDP",
                      "DataParallel", "fully_shard", "new_group", "new_subgroups", "wait_for_everyone",
                      "pad_across_processes", "rendezvous", "sync_dist", "accelerat", "strategy", "fabric",
                      "deepspeed", "dcp", "xla_model")


@dataclass(frozen=True)
class _Coll:
    key: str  # what must match across ranks ("barrier", "all_reduce", "ddp", ...)
    display: str  # "dist.all_reduce()"
    strong: bool  # False: may hang (a DDP forward: only when it has buffers to broadcast)
    kind: str  # "collective", "ddp", "fsdp", "new_group", "dcp", "deepspeed"


class _Facts:
    """Collective call sites and the module-local functions that reach one."""

    def __init__(self, module, a: RankAnalysis) -> None:
        self.module = module
        self.a = a
        self.lightning = any(q.split(".")[0] in ("lightning", "pytorch_lightning") for q in module.aliases.values())
        self._wrapper_defs: dict[int, dict[str, list[tuple[int, str | None]]]] = {}
        self.wrapper_simple = _WRAPPER_SIMPLE | {n for n, q in module.aliases.items() if q in _WRAPPERS}
        self.wrapper_names, self.attr_wrappers = self._wrappers()
        names = _CANDIDATES | self.wrapper_names | {d.rsplit(".", 1)[-1] for d in self.attr_wrappers}
        self.direct: dict[int, _Coll] = {}  # id(call) -> collective
        self.direct_calls: list[ast.Call] = []
        for call in a.calls:
            if final_identifier(call.func) in names:
                c = self._classify(call)
                if c is not None:
                    self.direct[id(call)] = c
                    self.direct_calls.append(call)
        self.fn_nodes: dict[int, ast.AST] = {}
        self.direct_by_fn: dict[int, list[ast.Call]] = {}
        self.calls_by_fn: dict[int, list[tuple[ast.Call, ast.AST]]] = {}
        self.reach = self._propagate()

    # -------------------------------------------------------------- wrappers (DDP/FSDP models)
    def _wrapper_kind(self, value: ast.AST) -> str | None:
        while (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
               and value.func.attr in _RETURNS_SELF):
            value = value.func.value
        if isinstance(value, ast.Call) and final_identifier(value.func) in self.wrapper_simple:
            return _WRAPPERS.get(self.a.resolved(value.func) or "")
        return None

    def _wrappers(self) -> tuple[set[str], dict[str, str]]:
        """Names assigned a DDP/FSDP wrapper anywhere, and `self.x` attributes so assigned; also
        the DeepSpeed engines (`engine, opt, _, _ = deepspeed.initialize(...)`)."""
        names: set[str] = set()
        attrs: dict[str, str] = {}
        self.deepspeed_engines: set[str] = set()
        if "deepspeed" in self.module.text:
            for call in self.a.calls:
                if final_identifier(call.func) == "initialize" and self.a.resolved(call.func) == "deepspeed.initialize":
                    parent = self.a.parents.get(call)
                    if isinstance(parent, ast.Assign):
                        for t in parent.targets:
                            first = t.elts[0] if isinstance(t, (ast.Tuple, ast.List)) and t.elts else t
                            d = self.module.dotted(first)
                            if d:
                                self.deepspeed_engines.add(d)
        if not any(t in self.module.text for t in _WRAPPER_TOKENS):
            return names, attrs
        for call in self.a.calls:
            kind = self._wrapper_kind(call)
            if not kind:
                continue
            parent = self.a.parents.get(call)
            while isinstance(parent, ast.Call) or isinstance(parent, ast.Attribute):
                parent = self.a.parents.get(parent)  # DDP(m).cuda()
            if isinstance(parent, ast.Assign):
                for t in parent.targets:
                    if isinstance(t, ast.Name):
                        names.add(t.id)
                    elif isinstance(t, ast.Attribute):
                        d = self.module.dotted(t)
                        if d and d.startswith("self."):
                            attrs[d] = kind
            elif isinstance(parent, ast.Expr) and kind == "fsdp" and call.args and isinstance(call.args[0], ast.Name):
                names.add(call.args[0].id)  # fully_shard(model) wraps in place
        return names, attrs

    def wrapper_at(self, expr: ast.AST, scope: ast.AST, line: int) -> str | None:
        """"ddp"/"fsdp" when `expr` (a name) holds a wrapped model here (its last assignment
        before this line, in this scope)."""
        if isinstance(expr, ast.Attribute):
            d = self.module.dotted(expr)
            return self.attr_wrappers.get(d) if d else None
        if not isinstance(expr, ast.Name) or expr.id not in self.wrapper_names:
            return None
        table = self._wrapper_defs.get(id(scope))
        if table is None:
            table = {}
            body = scope.body if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)) else []
            for node in body_nodes(body):
                if isinstance(node, ast.Assign):
                    kind = self._wrapper_kind(node.value)
                    for t in node.targets:
                        if isinstance(t, ast.Name):
                            table.setdefault(t.id, []).append((node.lineno, kind))
                elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                    if self._wrapper_kind(node.value) == "fsdp" and node.value.args and \
                            isinstance(node.value.args[0], ast.Name):
                        table.setdefault(node.value.args[0].id, []).append((node.lineno, "fsdp"))
            for defs in table.values():
                defs.sort(key=lambda d: d[0])
            self._wrapper_defs[id(scope)] = table
        kind = None
        for lineno, k in table.get(expr.id, ()):
            if lineno < line:
                kind = k
        return kind

    # -------------------------------------------------------------- classification
    def _classify(self, call: ast.Call) -> _Coll | None:
        f = call.func
        q = self.a.resolved(f)
        if q:
            head, _, last = q.rpartition(".")
            if head in _TORCH_MODULES and last in _TORCH:
                kind = "new_group" if _TORCH[last] == "new_group" else "collective"
                return _Coll(_TORCH[last], f"{short(f, 40)}()", True, kind)
            if head == "torch_xla.core.xla_model" and last in _XLA:
                return _Coll(_XLA[last], f"{short(f, 40)}()", True, "collective")
            if head in ("accelerate.utils", "accelerate.utils.operations") and last in _ACCELERATE_FUNCS:
                return _Coll(_ACCELERATE_FUNCS[last], f"{short(f, 40)}()", True, "collective")
            if q in _DCP:
                return _Coll("dcp", f"{short(f, 40)}()", True, "dcp")
            if head in _FSDP_CLASSES and last in _FSDP_STATIC:
                return _Coll("fsdp", f"{short(f, 40)}()", True, "fsdp")
        if isinstance(f, ast.Attribute):
            m = f.attr
            recv = self.module.dotted(f.value) or ""
            last_recv = recv.rsplit(".", 1)[-1].lower()
            if m in _ANY_RECEIVER and not (q or "").startswith("torch."):
                return _Coll(_ANY_RECEIVER[m], f"{short(f, 40)}()", True, "collective")
            if last_recv.endswith("accelerator") and m in _ACCELERATOR:
                return _Coll(_ACCELERATOR[m], f"{short(f, 40)}()", True, "collective")
            if last_recv == "strategy" and m in _STRATEGY:
                return _Coll(_STRATEGY[m], f"{short(f, 40)}()", True, "collective")
            if last_recv == "fabric" and m in _FABRIC:
                return _Coll(_FABRIC[m], f"{short(f, 40)}()", True, "collective")
            if recv == "self" and m == "all_gather" and self.lightning:
                return _Coll("all_gather", "self.all_gather()", True, "collective")
            if recv == "self" and m in ("log", "log_dict") and self.lightning and any(
                    k.arg == "sync_dist" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in call.keywords) and not any(
                    k.arg == "rank_zero_only" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                    for k in call.keywords):
                return _Coll("all_reduce", f"self.{m}(..., sync_dist=True)", True, "collective")
            if m in ("save_checkpoint", "load_checkpoint") and recv in self.deepspeed_engines:
                return _Coll("deepspeed", f"{short(f, 40)}()", True, "deepspeed")
            if m in ("state_dict", "forward", "full_tensor") and (self.wrapper_names or self.attr_wrappers):
                kind = self.wrapper_at(f.value, self.a.scope_of(call), call.lineno)
                if kind == "fsdp":
                    return _Coll("fsdp", f"{short(f, 40)}()", True, "fsdp")
                if kind == "ddp" and m == "forward":
                    return _Coll("ddp", f"{short(f, 40)}()", False, "ddp")
        if self.wrapper_names or self.attr_wrappers:
            kind = self.wrapper_at(f, self.a.scope_of(call), call.lineno)
            if kind:
                return _Coll(kind, f"{short(f, 40)}(...)", kind == "fsdp", kind)
        return None

    def _propagate(self) -> dict[int, tuple[frozenset, bool, list[str]]]:
        """id(function) -> (collective keys it may run, strong?, the chain to the first one)."""
        a = self.a
        reach: dict[int, tuple[frozenset, bool, list[str]]] = {}
        for call in self.direct_calls:
            scope = a.scope_of(call)
            self.direct_by_fn.setdefault(id(scope), []).append(call)
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                c = self.direct[id(call)]
                self.fn_nodes[id(scope)] = scope
                keys, strong, chain = reach.get(id(scope), (frozenset(), False, []))
                reach[id(scope)] = (keys | {c.key}, strong or c.strong, chain or [c.display])
        if not reach:
            return reach
        edges: list[tuple[ast.AST, ast.AST]] = []  # caller -> callee
        for call in a.local_calls():
            scope = a.scope_of(call)
            for callee in a.callees(call, scope):
                if callee is not scope:
                    self.calls_by_fn.setdefault(id(scope), []).append((call, callee))
                    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        edges.append((scope, callee))
        for _ in range(25):
            changed = False
            for caller, callee in edges:
                r = reach.get(id(callee))
                if r is None:
                    continue
                keys, strong, chain = reach.get(id(caller), (frozenset(), False, []))
                new_keys = keys | r[0]
                new_strong = strong or r[1]
                if new_keys != keys or new_strong != strong or not chain:
                    reach[id(caller)] = (new_keys, new_strong, chain or [f"{callee.name}()", *r[2]])
                    self.fn_nodes[id(caller)] = caller
                    changed = True
            if not changed:
                break
        return reach

    def reaches_with(self, fn: ast.AST, env: dict[str, object], known: frozenset, depth: int = 0,
                     active: frozenset = frozenset()) -> bool:
        """Does `fn`, called with these constant parameter values and with these facts known at
        the call, still reach a collective?"""
        if (not env and not known) or depth > 6 or id(fn) in active:
            return True
        a = self.a
        for call in self.direct_by_fn.get(id(fn), ()):
            if reachable(a, call, env, known):
                return True
        for call, callee in self.calls_by_fn.get(id(fn), ()):
            if id(callee) in self.reach and reachable(a, call, env, known):
                inner = known | path_facts(a, call)
                if self.reaches_with(callee, bindings(call, callee, env), inner, depth + 1, active | {id(fn)}):
                    return True
        return False

    def via(self, site: Site) -> tuple[ast.AST, tuple[frozenset, bool, list[str]]] | None:
        for callee in self.a.callees(site.call, site.scope):
            if callee is site.scope:
                continue
            r = self.reach.get(id(callee))
            if r is not None:
                return callee, r
        return None

    def wrapped_argument(self, site: Site) -> tuple[ast.AST, str, str] | None:
        """`evaluate(ddp_model)` where the local `evaluate` calls that parameter:
        (callee, parameter, kind)."""
        for callee in self.a.callees(site.call, site.scope):
            params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
            if params and params[0] in ("self", "cls") and isinstance(site.call.func, ast.Attribute):
                params = params[1:]
            pairs = list(zip(params, site.call.args))
            pairs += [(k.arg, k.value) for k in site.call.keywords if k.arg]
            for param, arg in pairs:
                if isinstance(arg, ast.Starred):
                    break
                kind = self.wrapper_at(arg, site.scope, site.call.lineno)
                if not kind:
                    continue
                if any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store)
                       for n in body_nodes(callee.body)):
                    continue  # `model = model.module` inside: it runs the unwrapped model
                for n in body_nodes(callee.body):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == param:
                        return callee, param, kind
                    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                            and isinstance(n.func.value, ast.Name) and n.func.value.id == param
                            and (n.func.attr == "forward" or (kind == "fsdp" and n.func.attr == "state_dict"))):
                        return callee, param, kind
        return None



@lint_rule(
    code="TD101",
    name="collective-under-rank-guard",
    title="a collective reached only under a rank-dependent condition (deadlock)",
    on=(ast.Module,),
    requires=(mentions_a_guard, _COLLECTIVE_TOKENS),
    related=("collective-under-rank-guard", "nccl-collective-timeout"),
    invalid=[
        """
import torch.distributed as dist

def train(model, loader, rank):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        if rank == 0:
            dist.all_reduce(loss)  # <-
            print(loss.item())
""",
        """
import torch
import torch.distributed as dist

def reduce_metrics(t):
    dist.all_reduce(t)
    return t / dist.get_world_size()

def evaluate(model, loader):
    correct = torch.zeros(1)
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum()
    return reduce_metrics(correct)

def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    if local_rank in [-1, 0]:
        acc = evaluate(model, val_loader)  # <-
""",
        """
import torch.distributed as dist

def save(model, rank):
    if rank != 0:
        return
    torch.save(model.state_dict(), "ckpt.pt")
    dist.barrier()  # <-
""",
        """
import torch.distributed as dist

def log_results(results, rank):
    is_master = rank == 0
    if is_master:
        gathered = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, results)  # <-
    else:
        pass
""",
        """
import torch.distributed as dist
from pytorch_lightning.utilities import rank_zero_only

@rank_zero_only
def log_hparams(logger, value):
    dist.broadcast(value, src=0)  # <-
""",
        """
from accelerate import Accelerator
accelerator = Accelerator()

for epoch in range(3):
    train_one_epoch()
    if accelerator.is_main_process:
        preds = accelerator.gather_for_metrics(all_preds)  # <-
        accelerator.save_state("ckpt")
""",
        """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main(rank):
    dist.init_process_group("nccl")
    model = DDP(Net().to(rank), device_ids=[rank])
    for epoch in range(10):
        train(model)
        if not dist.get_rank() == 0:
            continue
        with torch.no_grad():
            out = model(val_batch)  # <-
""",
        """
import torch.distributed as dist

def build_groups(rank, ranks):
    if rank in ranks:
        group = dist.new_group(ranks)  # <-
        return group
""",
        """
import torch.distributed as dist

def sync(rank, t, group):
    if rank == 0:
        dist.all_reduce(t, group=group)  # <-
""",
        """
# transformers examples/run_glue.py before huggingface/transformers#1081: evaluate() on the main
# process reaches the second barrier of load_and_cache_examples; the others already left
import torch

def load_and_cache_examples(args, task, tokenizer, evaluate=False):
    if args.local_rank not in [-1, 0]:
        torch.distributed.barrier()
    features = convert_examples(args, task, tokenizer, evaluate)
    if args.local_rank == 0:
        torch.distributed.barrier()
    return features

def evaluate(args, model, tokenizer, prefix=""):
    eval_dataset = load_and_cache_examples(args, args.task_name, tokenizer, evaluate=True)
    return run_eval(model, eval_dataset)

def main(args):
    torch.distributed.init_process_group(backend="nccl")
    train_dataset = load_and_cache_examples(args, args.task_name, tokenizer, evaluate=False)
    if args.do_eval and args.local_rank in [-1, 0]:
        result = evaluate(args, model, tokenizer, prefix="")  # <-
""",
        """
# FSDP: state_dict() all-gathers the shards, so it must run on every rank
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

def save(model, rank):
    model = FSDP(model)
    if rank == 0:
        torch.save(model.state_dict(), "model.pt")  # <-
""",
        """
# Lightning: sync_dist=True all-reduces the value across ranks
import lightning.pytorch as pl

class LitModel(pl.LightningModule):
    def validation_step(self, batch, batch_idx):
        loss = self.compute_loss(batch)
        if self.trainer.is_global_zero:
            self.log("val_loss", loss, sync_dist=True)  # <-
        return loss
""",
        """
# DeepSpeed: every rank saves its own ZeRO shard in save_checkpoint()
import deepspeed
import torch.distributed as dist

def train(args, model, loader):
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for step, batch in enumerate(loader):
        engine.backward(engine(batch))
        engine.step()
        if dist.get_rank() == 0 and step % 1000 == 0:
            engine.save_checkpoint(args.save_dir, step)  # <-
""",
        """
import torch
import torch.distributed as dist

def save_checkpoint(model, path, should_write):
    if should_write:                   # what every caller passes: rank == 0
        torch.save(model.state_dict(), path)
        dist.barrier()  # <-

def train(model, loader, optimizer, epochs):
    rank = dist.get_rank()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        save_checkpoint(model, f"ckpt_{epoch}.pt", rank == 0)
""",
    ],
    valid=[
        """
import torch.distributed as dist

def train(model, loader, rank):
    for batch in loader:
        loss = model(batch)
        dist.all_reduce(loss)          # every rank reduces ...
        if rank == 0:
            print(loss.item())         # ... only rank 0 prints
""",
        """
# ultralytics utils/torch_utils.py: the balanced "rank 0 goes first" idiom
import torch.distributed as dist
from contextlib import contextmanager

@contextmanager
def torch_distributed_zero_first(local_rank: int):
    initialized = dist.is_available() and dist.is_initialized()
    if initialized and local_rank not in {-1, 0}:
        dist.barrier(device_ids=[local_rank])
    yield
    if initialized and local_rank == 0:
        dist.barrier(device_ids=[0])
""",
        """
# ultralytics validators: gather_object under RANK == 0 matched by the one under RANK > 0
import torch.distributed as dist
RANK = int(os.getenv("RANK", -1))

class Validator:
    def gather_stats(self):
        if RANK == 0:
            gathered = [None] * dist.get_world_size()
            dist.gather_object(self.metrics.stats, gathered, dst=0)
        elif RANK > 0:
            dist.gather_object(self.metrics.stats, None, dst=0)
        if self.args.plots and RANK > -1:
            dist.reduce(self.matrix, dst=0)
""",
        """
# uniform guards: "is this run distributed?" is the same on every rank
import torch.distributed as dist

def reduce_loss(loss, rank, world_size):
    if rank == -1 or not dist.is_initialized():
        return loss
    if world_size > 1 and rank != -1:
        dist.all_reduce(loss)
    return loss / world_size
""",
        """
# HF TrainingArguments.main_process_first: barrier under `not is_main_process` and `is_main_process`
import torch.distributed as dist
from contextlib import contextmanager

@contextmanager
def main_process_first(self, local=True):
    if local:
        is_main_process = self.local_process_index == 0
    else:
        is_main_process = self.process_index == 0
    try:
        if not is_main_process:
            dist.barrier()
        yield
    finally:
        if is_main_process:
            dist.barrier()
""",
        """
# accelerate: the guard is inside, collectives run on every rank
from accelerate import Accelerator
accelerator = Accelerator()
preds = accelerator.gather_for_metrics(all_preds)
accelerator.wait_for_everyone()
if accelerator.is_main_process:
    accelerator.save(accelerator.unwrap_model(model).state_dict(), "model.pt")
""",
        """
# point-to-point is meant to be rank-guarded; evaluating model.module on rank 0 is the fix
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main(rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    if rank == 0:
        dist.send(tensor, dst=1)
        out = model.module(val_batch)
    else:
        dist.recv(tensor, src=0)
""",
        """
# a broadcast whose payload is prepared on rank 0: the collective itself is unconditional
import torch.distributed as dist

def share_config(rank):
    objs = [load_config()] if rank == 0 else [None]
    dist.broadcast_object_list(objs, src=0)
    return objs[0]
""",
        """
# every rank creates every group; only membership is rank-dependent
import torch.distributed as dist

def build_groups(rank, world_size):
    mine = None
    for start in range(0, world_size, 2):
        ranks = list(range(start, start + 2))
        group = dist.new_group(ranks)
        if rank in ranks:
            mine = group
    return mine
""",
        """
# a loop variable named rank is not this process's rank
import torch.distributed as dist

def gather_all(tensors, world_size):
    out = []
    for rank in range(world_size):
        if rank == 0:
            out.append(tensors[0])
    dist.barrier()
    return out
""",
        """
# transformers examples/run_glue.py after huggingface/transformers#1081: evaluate=True skips
# both barriers, so evaluating on the main process alone is safe
import torch

def load_and_cache_examples(args, task, tokenizer, evaluate=False):
    if args.local_rank not in [-1, 0] and not evaluate:
        torch.distributed.barrier()
    features = convert_examples(args, task, tokenizer, evaluate)
    if args.local_rank == 0 and not evaluate:
        torch.distributed.barrier()
    return features

def evaluate(args, model, tokenizer, prefix=""):
    eval_dataset = load_and_cache_examples(args, args.task_name, tokenizer, evaluate=True)
    return run_eval(model, eval_dataset)

def main(args):
    train_dataset = load_and_cache_examples(args, args.task_name, tokenizer, evaluate=False)
    if args.do_eval and args.local_rank in [-1, 0]:
        result = evaluate(args, model, tokenizer, prefix="")
""",
        """
# Megatron-LM bridge_communicator.py: the leader and the members take different branches of one
# if/elif chain and each joins the same broadcast
import torch.distributed as dist

def send_forward(self, tensor, rank_info):
    if rank_info.role == CommRole.LEADER:
        dist.broadcast(tensor, src=self.current_rank, group=self.broadcast_pg)
    elif rank_info.role == CommRole.MEMBER and self.current_rank in self.broadcast_ranks:
        dist.broadcast(tensor, src=self.leader_rank, group=self.broadcast_pg)
""",
        """
# accelerate logging.py: `elif in_order` contradicts the `not in_order` part of the first test,
# so every rank reaches wait_for_everyone()
from accelerate.state import PartialState

def log(self, level, msg, main_process_only=True, in_order=False):
    if not in_order and self._should_log(main_process_only):
        self.logger.log(level, msg)
    elif in_order:
        state = PartialState()
        for i in range(state.num_processes):
            if i == state.process_index:
                self.logger.log(level, msg)
            state.wait_for_everyone()
""",
        """
# transformers trainer.py: TrainerControl.should_save is a flag set on every rank (unlike
# TrainingArguments.should_save, which is true on the main process only)
import torch.distributed as dist

class MyTrainer(Trainer):
    def _maybe_save(self, model, trial):
        if self.control.should_save:
            self._save_checkpoint(model, trial)

    def _save_checkpoint(self, model, trial):
        dist.barrier()
""",
        """
# a rank-dependent `raise` is an error path, not a rank split (Megatron-LM uneven_dtensor.py)
import torch.distributed as dist

def split(chunks, dim):
    for s in chunks:
        if s.start < 0 or s.stop < s.start and dist.get_rank() == 0:
            raise ValueError(f"invalid split {s}")
        dist.all_gather_object(out, s)
""",
        """
# Megatron-LM checkpointing.py: `U or dp_rank == 0` is rank-dependent only while U is false;
# the branch below requires U, where every rank takes it
import torch

def save_checkpoint(ckpt_type, dp_rank, state_dict, writer):
    if not torch.distributed.is_initialized() or ckpt_type != CheckpointType.LEGACY or dp_rank == 0:
        if ckpt_type == CheckpointType.GLOBAL:
            torch.distributed.checkpoint.save(state_dict=state_dict, storage_writer=writer)
""",
        """
# the helper unwraps the DDP model before running it
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def validate(model, loader):
    model = model.module
    return [model(x) for x in loader]

def main(rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    if rank == 0:
        validate(model, val_loader)
""",
        """
import torch
import torch.distributed as dist

def save_checkpoint(model, path, should_write):
    if should_write:                   # every rank gets the same answer: the epoch number
        torch.save(model.state_dict(), path)
        dist.barrier()

def train(model, loader, epochs):
    for epoch in range(epochs):
        run_epoch(model, loader)
        save_checkpoint(model, f"ckpt_{epoch}.pt", epoch % 5 == 0)
""",
    ],
)
def collective_under_rank_guard(node, module):
    """
    ## What it does
    Finds a torch.distributed collective — `all_reduce`, `all_gather`, `reduce`, `broadcast`,
    `barrier`, `gather`, `scatter`, `all_to_all`, `reduce_scatter`, the `*_object` variants,
    `monitored_barrier`, `new_group`, distributed-checkpoint `save`/`load`, accelerate's
    `gather`/`gather_for_metrics`/`wait_for_everyone`, Lightning's strategy/Fabric collectives and
    `self.log(..., sync_dist=True)`, DeepSpeed's `engine.save_checkpoint()` — or a module-local
    helper that calls one (transitively: "evaluate() -> reduce_metrics() -> dist.all_reduce()"),
    or a call of a DDP/FSDP-wrapped model (FSDP `state_dict()` too), that only some ranks reach: under `if rank == 0`,
    `local_rank in [-1, 0]`, `dist.get_rank() == 0`, `is_main_process()`,
    `trainer.is_global_zero`, a boolean assigned from such a test, a parameter whose callers all
    pass such a test (the value-flow engine finds them, in this file or the project's files that
    import it: `save_checkpoint(model, path, rank == 0)`), after an early `if rank != 0: return`,
    or inside a `@rank_zero_only` function.

    Conditions that are the same on every rank (`rank == -1`, `rank != -1`, `world_size > 1`,
    `dist.is_initialized()`) are not guards. The same collective called under a condition and
    under its negation in one function (the `torch_distributed_zero_first` /
    `main_process_first` idioms, `gather_object(..., dst=0)` under `RANK == 0` and `RANK > 0`)
    is balanced and stays quiet, as is one matched in another branch of the same if/elif chain.
    A helper called with constants that switch its collectives off
    (`load_and_cache_examples(..., evaluate=True)`) is quiet. A collective on a sub-group
    (`group=`) is reported as a note; a DDP forward (which only syncs buffers) as a warning.

    ## Why is this bad?
    Collectives are matched across ranks by call order: every rank of the group must call the
    same collective. When rank 0 enters `all_reduce` and the other ranks skip it, rank 0 waits
    for partners that never come; the job hangs silently until the NCCL watchdog kills it
    (10–30 minutes later) with "Watchdog caught collective operation timeout", or pairs the
    call with a different collective and exchanges garbage. A DDP model called on rank 0 only
    can hang the same way: its forward broadcasts buffers (BatchNorm) and its backward
    all-reduces gradients; an FSDP model all-gathers parameters in forward and `state_dict()`.

    ## Example
    ```python
    if rank == 0:
        dist.all_reduce(val_loss)          # only rank 0 gets here: hang
        print(val_loss.item() / world_size)
    ```
    Use instead:
    ```python
    dist.all_reduce(val_loss)              # every rank
    if rank == 0:
        print(val_loss.item() / world_size)
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
    facts = module.memo("TD101:facts", lambda: _Facts(module, a))

    # every guarded call that reaches a collective
    found: list[tuple[Site, frozenset, str, str, bool, str]] = []  # site, keys, what, kind, strong, chain
    for call in facts.direct_calls:
        site = a.site(call)
        if site is not None and site.guards:
            c = facts.direct[id(call)]
            found.append((site, frozenset({c.key}), c.display, c.kind, c.strong, ""))
    if facts.reach or facts.wrapper_names or facts.attr_wrappers:
        for call in a.local_calls():
            if id(call) in facts.direct:
                continue
            callees = a.callees(call)
            if not callees:
                continue
            if not any(id(fn) in facts.reach for fn in callees) and not (facts.wrapper_names or facts.attr_wrappers):
                continue
            site = a.site(call)
            if site is None or not site.guards:
                continue
            v = facts.via(site)
            if v is not None and not facts.reaches_with(v[0], bindings(call, v[0], {}), path_facts(a, call)):
                continue  # e.g. load_and_cache_examples(..., evaluate=True) skips its barriers
            if v is not None:
                callee, (keys, strong, chain) = v
                kind = "ddp" if keys == {"ddp"} else ("fsdp" if keys == {"fsdp"} else "collective")
                found.append((site, keys, f"{callee.name}()", kind, strong,
                              " -> ".join([f"{callee.name}()", *chain])))
                continue
            w = facts.wrapped_argument(site)
            if w is not None:
                callee, param, kind = w
                arg = short(_arg_for(site.call, callee, param), 30)
                found.append((site, frozenset({kind}), f"{callee.name}()", kind, kind == "fsdp",
                              f"`{arg}`" + ("" if arg == param else f" (its parameter `{param}`)")))
    if not found:
        return None

    # balanced branches: the same collective under G and under not-G in one scope
    sides: dict[int, list[tuple[int, frozenset]]] = {}
    for site, keys, *_ in found:
        sides.setdefault(id(site.scope), []).append((site.guard.polarity, keys))
    for fid, (keys, _strong, _chain) in facts.reach.items():  # callables defined in a guarded branch
        fn = facts.fn_nodes.get(fid)
        if fn is None:
            continue
        guards = a.def_guards(fn)
        if guards:
            scope = a.scope_of(fn)
            if id(scope) in sides:
                sides[id(scope)].append((guards[-1].polarity, keys))

    out = []
    reported: set[int] = set()
    for site, keys, what, kind, strong, chain in sorted(found, key=lambda f: (f[0].call.lineno, f[0].call.col_offset)):
        if id(site.stmt) in reported:
            continue
        pol = site.guard.polarity
        if any(p == -pol and keys & k for p, k in sides.get(id(site.scope), ())):
            continue
        if _other_branch_has(a, facts, site, keys) or _membership_gated(module, site):
            continue
        reported.add(id(site.stmt))
        out.append(_violation(site, what, kind, strong, chain))
    return out


def _group_of(call: ast.Call) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == "group"), None)


def _membership_gated(module, site: Site) -> bool:
    """`if rank in dist.get_process_group_ranks(g): dist.all_reduce(t, group=g)`: the guard
    selects exactly the members of the collective's group."""
    group = _group_of(site.call)
    name = module.dotted(group) if group is not None else None
    if not name:
        return False
    for g in site.guards:
        for n in ast.walk(g.node):
            if isinstance(n, (ast.Name, ast.Attribute)) and module.dotted(n) == name:
                return True
    return False


def _other_branch_has(a: RankAnalysis, facts: _Facts, site: Site, keys: frozenset) -> bool:
    """Another branch of the same if/elif/else chain as the guard calls the same collective (the
    leader broadcasts under `if role == LEADER`, members under `elif rank in members`): each rank
    takes one branch and every branch joins in."""
    g = site.guard
    if g.how not in ("if", "else"):
        return False
    p = a.parents.get(g.node)
    if not isinstance(p, ast.If) or p.test is not g.node:
        return False
    top = p
    while True:
        q = a.parents.get(top)
        if isinstance(q, ast.If) and len(q.orelse) == 1 and q.orelse[0] is top:
            top = q
        else:
            break
    chain = [top]
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
        chain.append(chain[-1].orelse[0])
    ids = {id(i) for i in chain}
    last = chain[-1]

    def branch(node: ast.AST):
        c, q = node, a.parents.get(node)
        while q is not None:
            if id(q) in ids:
                if any(s is c for s in q.body):
                    return id(q), "body"
                if q is last and any(s is c for s in q.orelse):
                    return id(q), "orelse"
            c, q = q, a.parents.get(q)
        return None

    mine = branch(site.call)
    if mine is None:
        return False
    others: list[tuple[ast.Call, frozenset]] = []
    for call in facts.direct_by_fn.get(id(site.scope), ()):
        others.append((call, frozenset({facts.direct[id(call)].key})))
    for call, callee in facts.calls_by_fn.get(id(site.scope), ()):
        r = facts.reach.get(id(callee))
        if r is not None:
            others.append((call, r[0]))
    for call, k in others:
        if call is not site.call and keys & k:
            b = branch(call)
            if b is not None and b != mine:
                return True
    return False


_WRAPPER_NAME = {"ddp": "DistributedDataParallel", "fsdp": "FSDP"}


def _arg_for(call: ast.Call, callee, param: str) -> ast.AST:
    params = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)]
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        params = params[1:]
    for p, arg in zip(params, call.args):
        if p == param:
            return arg
    return next((k.value for k in call.keywords if k.arg == param), call)


def _violation(site: Site, what: str, kind: str, strong: bool, chain: str) -> Violation:
    g = site.guard
    where = f"{g.who}, {g.describe()}"
    severity = None
    if kind == "ddp":
        if chain.startswith("`"):
            lead = f"{what} runs the DistributedDataParallel-wrapped {chain} {where}"
        elif chain:
            lead = f"{what} runs the DistributedDataParallel-wrapped model ({chain}) {where}"
        else:
            lead = f"`{what[:-2]}(...)` runs the DistributedDataParallel-wrapped model {where}"
        msg = (f"{lead}: DDP's forward broadcasts buffers (BatchNorm) and its backward all-reduces gradients, "
               f"so the ranks that run it can wait forever for the ranks that skip it (a hang until the NCCL "
               f"timeout)")
        fix = LintFix("Evaluate the unwrapped model (`model.module`) on the main rank, or run the model on every "
                      "rank and reduce the results")
        severity = "warning"
    elif kind == "fsdp":
        if chain.startswith("`"):
            lead = f"{what} runs the FSDP-wrapped {chain} {where}"
        elif chain:
            lead = f"{what} gathers FSDP-sharded parameters ({chain}) {where}"
        else:
            lead = f"{what} gathers FSDP-sharded parameters {where}"
        msg = f"{lead}: FSDP's forward and state_dict() are collectives; {g.hang}"
        fix = LintFix("Call it on every rank (FSDP forward/state_dict()/optim_state_dict() are collectives), "
                      "then keep only the saving or logging under the rank test")
    elif kind == "deepspeed":
        msg = (f"{what} is called {where}: DeepSpeed's save_checkpoint()/load_checkpoint() are collectives that "
               f"every rank must call (each saves its own shard); {g.hang}")
        fix = LintFix(f"Call {what} on every rank; DeepSpeed already writes the shared files from one process")
    elif kind == "new_group":
        msg = (f"{what} is called {where}: every rank of the default group must call new_group() for every "
               f"group, members or not; {g.hang}")
        fix = LintFix("Create every group on every rank (outside the rank test) and keep only the choice of "
                      "this rank's group under it")
    else:
        if chain:
            msg = f"{what} runs a collective ({chain}) and is called {where}: {g.hang}"
            fix = LintFix(f"Call {what} on every rank (move it {g.escape()}), or keep only "
                          "the non-collective work (printing, saving) under the rank test")
        else:
            msg = f"{what} is reached {where}: {g.hang}"
            fix = LintFix(f"Call {what} on every rank (move it {g.escape()}) and keep only the "
                          "main-rank work (printing, saving) under the rank test")
        if not strong:
            severity = "warning"
    group = _group_of(site.call)
    if group is not None and not (isinstance(group, ast.Constant) and group.value is None) and \
            final_identifier(group) != "WORLD":
        msg = (f"{what} on the sub-group `{short(group, 30)}` is reached {where}: fine only if every member of "
               f"that group, and no other rank, gets here; members that skip it leave the others waiting forever")
        fix = LintFix(f"Check that `{g.text}` holds on exactly the members of `{short(group, 30)}`, or call {what} "
                      "on every member of the group")
        severity = "note"
    return Violation(site.call, msg, fix, severity=severity)
