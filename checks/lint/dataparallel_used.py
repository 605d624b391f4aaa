import ast

from torchdoctor.checks.lint._wrappers import DATA_PARALLEL, call_name_if
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

_FUNCTIONAL = {"torch.nn.parallel.data_parallel", "torch.nn.parallel.data_parallel.data_parallel"}
_LAST = frozenset({"DataParallel", "data_parallel"})


@lint_rule(
    code="TD202",
    name="dataparallel-used",
    title="nn.DataParallel instead of DistributedDataParallel",
    on=(ast.Call,),
    requires=(("DataParallel", "data_parallel"),),
    severity="warning",
    related=("dataparallel-attribute",),
    invalid=[
        """
import torch
import torch.nn as nn
if __name__ == "__main__":
    model = Net().cuda()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)  # <-
    train(model)
""",
        """
import argparse
from torch.nn.parallel import DataParallel as DP
parser = argparse.ArgumentParser()
args = parser.parse_args()
model = DP(Net(), device_ids=[0, 1]).cuda()  # <-
""",
        """
import torch
def build(net):  # a library module: reported as a note
    return torch.nn.DataParallel(net)  # <-
""",
    ],
    valid=[
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
if __name__ == "__main__":
    model = DDP(Net().cuda(), device_ids=[local_rank])
""",
        """
import torch.nn as nn
def unwrap(model):
    return model.module if isinstance(model, (nn.DataParallel, nn.parallel.DistributedDataParallel)) else model
""",
        """
class DataParallel:  # a project class of the same name
    pass
model = DataParallel()
""",
    ],
)
def dataparallel_used(node, module):
    """
    ## What it does
    Finds `nn.DataParallel(...)` (also `torch.nn.parallel.DataParallel` and the functional
    `data_parallel(...)`). In training scripts (a `__main__` block, argparse or
    `init_process_group`) it is a warning; in library modules a note.

    ## Why is this bad?
    DataParallel runs one Python process that copies the model to every GPU on every
    forward, scatters the batch and gathers all outputs on GPU 0, where the loss runs: GPU 0
    runs out of memory first and the others wait on the GIL. PyTorch recommends
    DistributedDataParallel "even if there is only a single node"; it is faster and the
    same code scales to several machines. DataParallel is also in maintenance mode.

    ## Example
    ```python
    model = nn.DataParallel(model).cuda()
    ```
    Use instead (launched with `torchrun --nproc-per-node=NUM_GPUS train.py`):
    ```python
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DistributedDataParallel(model.cuda(local_rank), device_ids=[local_rank])
    ```
    """
    name = call_name_if(module, node, _LAST)
    if name not in DATA_PARALLEL and name not in _FUNCTIONAL:
        return None
    what = "data_parallel()" if name in _FUNCTIONAL else "nn.DataParallel"
    severity = None if module.is_script else "note"
    return Violation(
        node,
        f"{what} drives every GPU from one process: it re-copies the model to each GPU on every forward and "
        f"gathers all outputs on GPU 0 (which runs out of memory first); DistributedDataParallel is faster, "
        f"even on one machine",
        LintFix("Use DistributedDataParallel with one process per GPU, launched with "
                "`torchrun --nproc-per-node=NUM_GPUS train.py`"),
        severity=severity)
