import ast

from torchdoctor.checks.lint._wrappers import DISTRIBUTED_DATA_PARALLEL, call_name_if
from torchdoctor.lint.model import LintFix, Violation
from torchdoctor.registry import lint_rule

_LIGHTNING = ("lightning", "pytorch_lightning", "lightning_fabric")
_LAST = frozenset({"DistributedDataParallel", "DDPStrategy", "DistributedDataParallelKwargs", "TrainingArguments",
                   "Seq2SeqTrainingArguments", "Trainer", "Fabric"})


@lint_rule(
    code="TD203",
    name="find-unused-parameters",
    title="DistributedDataParallel(find_unused_parameters=True)",
    on=(ast.Call,),
    requires=("find_unused_parameters",),
    severity="warning",
    related=("ddp-unused-parameters",),
    invalid=[
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)  # <-
""",
        """
import torch.nn as nn
FIND_UNUSED = True
model = nn.parallel.DistributedDataParallel(
    model,
    device_ids=[args.gpu],
    find_unused_parameters=FIND_UNUSED,  # <-
)
""",
        """
from accelerate import Accelerator, DistributedDataParallelKwargs
accelerator = Accelerator(kwargs_handlers=[DistributedDataParallelKwargs(find_unused_parameters=True)])  # <-
""",
        """
import lightning as L
from lightning.pytorch.strategies import DDPStrategy
trainer = L.Trainer(strategy="ddp_find_unused_parameters_true", devices=8)  # <-
trainer = L.Trainer(strategy=DDPStrategy(find_unused_parameters=True))  # <-
""",
        """
from transformers import TrainingArguments
args = TrainingArguments(output_dir="out", ddp_find_unused_parameters=True)  # <-
""",
    ],
    valid=[
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank], find_unused_parameters=False)
model = DDP(model, device_ids=[local_rank], static_graph=True)
""",
        """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(model, device_ids=[local_rank], find_unused_parameters=args.find_unused)  # a choice made at run time
""",
        """
import lightning as L
trainer = L.Trainer(strategy="ddp_find_unused_parameters_false", devices=8)
""",
        """
def wrap(model, find_unused_parameters=True):  # a default in a signature, not a DDP call
    return model
""",
    ],
)
def find_unused_parameters(node, module):
    """
    ## What it does
    Finds `DistributedDataParallel(..., find_unused_parameters=True)` with a literal `True` (or
    a module-level constant that is `True`), and the framework spellings: Lightning
    `strategy="ddp_find_unused_parameters_true"` / `DDPStrategy(find_unused_parameters=True)`,
    accelerate `DistributedDataParallelKwargs(find_unused_parameters=True)`, transformers
    `TrainingArguments(ddp_find_unused_parameters=True)`.

    ## Why is this bad?
    With the flag DDP walks the autograd graph from the outputs after every forward pass to
    find parameters that will get no gradient: extra work on every step, and it keeps
    gradient buckets from being reduced while backward is still running. It is usually set
    once to silence "Expected to have finished reduction in the prior iteration" and then
    kept although nothing is unused any more (PyTorch then warns on every rank that it "did
    not find any unused parameters"). When parameters really are unused, they are better
    frozen or removed, which also saves their optimizer state.

    ## Example
    ```python
    model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)
    ```
    Use instead (after finding and freezing/removing the parameters that get no gradient):
    ```python
    model = DDP(model, device_ids=[local_rank])  # or static_graph=True for a fixed set
    ```
    """
    name = call_name_if(module, node, _LAST) or ""
    keyword = None
    if name in DISTRIBUTED_DATA_PARALLEL:
        keyword, where = "find_unused_parameters", "DistributedDataParallel"
    elif name.split(".")[0] in _LIGHTNING and name.endswith("DDPStrategy"):
        keyword, where = "find_unused_parameters", "DDPStrategy"
    elif name.startswith("accelerate") and name.endswith("DistributedDataParallelKwargs"):
        keyword, where = "find_unused_parameters", "DistributedDataParallelKwargs"
    elif name.startswith("transformers") and name.endswith("TrainingArguments"):
        keyword, where = "ddp_find_unused_parameters", name.rsplit(".", 1)[-1]
    elif name.split(".")[0] in _LIGHTNING and name.endswith((".Trainer", ".Fabric")):
        strategy = next((k.value for k in node.keywords if k.arg == "strategy"), None)
        if isinstance(strategy, ast.Constant) and isinstance(strategy.value, str) \
                and strategy.value.endswith("find_unused_parameters_true"):
            return _violation(strategy, f'{name.rsplit(".", 1)[-1]}(strategy="{strategy.value}")')
        return None
    if keyword is None:
        return None
    value = next((k.value for k in node.keywords if k.arg == keyword), None)
    if value is None or not _is_true(module, value):
        return None
    return _violation(value, f"{where}(..., {keyword}=True)")


def _violation(node, what):
    return Violation(
        node,
        f"{what}: DDP walks the autograd graph after every forward pass to find parameters that get no "
        f"gradient (extra work every step, later gradient reduction); the flag is usually left over from "
        f"silencing an 'Expected to have finished reduction' error",
        LintFix("Find which parameters really get no gradient (`torchdoctor model` lists them), freeze "
                "(requires_grad=False) or remove them, and drop the flag; use static_graph=True if the set of "
                "used parameters never changes"))


def _is_true(module, value) -> bool:
    if isinstance(value, ast.Constant):
        return value.value is True
    if isinstance(value, ast.Name):
        values = [n.value for n in module.tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return bool(values) and all(isinstance(v, ast.Constant) and v.value is True for v in values)
    return False
