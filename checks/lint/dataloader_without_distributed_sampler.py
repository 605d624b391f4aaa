import ast

from torchdoctor.checks.lint._callflow import (
    argument,
    cached,
    has_star_kwargs,
    is_const,
    short_call,
)
from torchdoctor.checks.lint._wrappers import DISTRIBUTED_DATA_PARALLEL
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

_DATALOADER = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
_INIT = {"torch.distributed.init_process_group"}
# Frameworks that shard the loader themselves (accelerate's prepare, Lightning's Trainer) or files
# that split the data per rank by hand: the loader may legitimately have no sampler.
_SHARDED_ELSEWHERE = ("DistributedSampler", "accelerate", "lightning", "num_replicas", "split_dataset_by_node",
                      "shard(", "ElasticDistributedSampler")


@lint_rule(
    code="TD113",
    name="dataloader-without-distributed-sampler",
    title="A shuffling DataLoader in DDP code without a DistributedSampler",
    on=(ast.Call,),
    requires=("DataLoader", ("init_process_group", "DistributedDataParallel")),
    severity="warning",
    related=("ddp-unused-parameters",),
    invalid=[
        """
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(Net().cuda(local_rank), device_ids=[local_rank])
    loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)  # <-
    for epoch in range(10):
        for x, y in loader:
            loss = model(x).sum()
""",
        """
import torch
import torch.distributed as dist
dist.init_process_group(backend="gloo")
train_loader = torch.utils.data.DataLoader(dataset, 32, True)  # <-
""",
    ],
    valid=[
        """
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
dist.init_process_group("nccl")
sampler = DistributedSampler(train_set, shuffle=True)
loader = DataLoader(train_set, batch_size=64, sampler=sampler)
""",
        """
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
dist.init_process_group("nccl")
val_loader = DataLoader(val_set, batch_size=64, shuffle=False)  # evaluation: every rank sees all, by choice
""",
        """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(train_set, batch_size=64, shuffle=True)  # a single-process script
""",
        """
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from accelerate import Accelerator
accelerator = Accelerator()
loader = DataLoader(train_set, batch_size=64, shuffle=True)
model, loader = accelerator.prepare(model, loader)  # accelerate shards the loader per process
""",
        """
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
dist.init_process_group("nccl")
loader = DataLoader(train_set, batch_size=64, shuffle=True, **loader_kwargs)  # sampler may be in there
""",
    ],
)
def dataloader_without_distributed_sampler(node, module):
    """
    ## What it does
    Finds a `DataLoader(..., shuffle=True)` without `sampler=`/`batch_sampler=` in a file that
    runs DistributedDataParallel (`init_process_group` or a DDP wrapper in the same file). Quiet
    for loaders that do not shuffle (evaluation on every rank is often deliberate), when the file
    uses a DistributedSampler anywhere, passes `**kwargs`, or hands the loader to a framework
    that shards it (accelerate's `prepare`, Lightning).

    ## Why is this bad?
    Without a DistributedSampler every rank iterates the whole dataset: an epoch costs
    world_size times the work, and the ranks average gradients over the same samples, so adding
    GPUs does not speed training up (and the learning-rate scaling for the global batch is wrong).

    ## Example
    ```python
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    ```
    Use instead:
    ```python
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
    ```
    """
    if module.call_name(node) not in _DATALOADER:
        return None
    if has_star_kwargs(node) or argument(node, "sampler", 3) is not None or argument(node, "batch_sampler", 4) is not None:
        return None
    if not is_const(argument(node, "shuffle", 2), True):
        return None
    evidence = cached(module, "TD113:ddp", lambda: _ddp_evidence(module))
    if evidence is None or any(t in module.text for t in _SHARDED_ELSEWHERE):
        return None
    what, line = evidence
    dataset = argument(node, "dataset", 0)
    name = ast.get_source_segment(module.text, dataset) if dataset is not None else "dataset"
    return Violation(
        node,
        f"{short_call(module, node)} in DDP code ({what} at line {line}) has no DistributedSampler: every rank "
        f"iterates all of {name}, so each epoch does world_size times the work and the ranks average "
        f"gradients over the same samples",
        LintFix(f"Shard the data: sampler = DistributedSampler({name}, shuffle=True); pass sampler=sampler "
                f"instead of shuffle=True, and call sampler.set_epoch(epoch) at the start of every epoch"))


def _ddp_evidence(module):
    found = []
    for call in module.nodes(ast.Call):
        name = module.call_name(call)
        if name in _INIT:
            found.append((call.lineno, "init_process_group"))
        elif name in DISTRIBUTED_DATA_PARALLEL:
            found.append((call.lineno, "DistributedDataParallel"))
    if not found:
        return None
    line, what = min(found)
    return what, line
