from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import ModelExample, model_rule

from ._common import module_label, some

BN_1D = {"name": "head.bn", "type": "BatchNorm1d", "training": True, "input_shape": [8, 64],
         "values_per_channel_per_sample": 1}
BN_2D = {"name": "stem.bn", "type": "BatchNorm2d", "training": True, "input_shape": [8, 16, 32, 32],
         "values_per_channel_per_sample": 1024}
BN_POOLED = {"name": "neck.bn", "type": "BatchNorm2d", "training": True, "input_shape": [8, 256, 1, 1],
             "values_per_channel_per_sample": 1}


def last_batches(size: int, world: int, batch: int, drop_last: bool) -> tuple[int, int]:
    """(samples per rank, size of each rank's last batch; 0 when the DataLoader drops it).
    DistributedSampler pads every rank to ceil(size / world) samples."""
    per_rank = -(-size // world)
    rest = per_rank % batch
    if drop_last:
        return per_rank, (batch if rest == 0 else 0)
    return per_rank, rest or batch


def bad_batch_sizes(per_rank: int, limit: int = 4096) -> list[int]:
    """Batch sizes (>1) whose last batch on each rank holds exactly one sample."""
    return [b for b in range(2, min(per_rank, limit) + 1) if per_rank % b == 1]


@model_rule(
    code="TI203",
    name="batchnorm-batch-of-one",
    title="BatchNorm layers survive a last batch of one sample",
    examples=[
        ModelExample("error", {"batchnorm": [BN_1D], "batch_size": 100,
                               "dataset": {"size": 1001, "world_size": 2, "drop_last": False}},
                     "N=1001 on 2 ranks at batch 100: each rank's last batch is 1", contains="last batch of 1"),
        ModelExample("warning", {"batchnorm": [BN_POOLED, BN_2D], "batch_size": 8},
                     "a BatchNorm after global pooling: [1, C, 1, 1] at batch 1", contains="neck.bn"),
        ModelExample("ok", {"batchnorm": [BN_1D], "batch_size": 100,
                            "dataset": {"size": 1001, "world_size": 2, "drop_last": True}},
                     "drop_last=True drops the short batch", contains="drop_last"),
        ModelExample("ok", {"batchnorm": [BN_1D], "batch_size": 64,
                            "dataset": {"size": 1001, "world_size": 2, "drop_last": False}},
                     "remainder 53, not 1", contains="avoid"),
        ModelExample("ok", {"batchnorm": [BN_2D], "batch_size": 8},
                     "BatchNorm2d on 32x32 maps still has 1024 values per channel at batch 1"),
        ModelExample("ok", {"batchnorm": [{**BN_1D, "training": False}], "batch_size": 8},
                     "eval mode uses running statistics"),
        ModelExample("skip", {"errors": {"forward": {"type": "RuntimeError"}}}),
    ],
)
def batchnorm_batch_of_one(record):
    """
    ## What it checks
    Every BatchNorm layer that ran in training mode, with the shape it saw: it fails when the
    batch times the spatial size is 1 (`BatchNorm1d` on `[N, C]`, or `BatchNorm2d` after global
    pooling on `[N, C, 1, 1]`). With `--dataset-size N --world-size W [--drop-last]` it works out
    each rank's last batch (DistributedSampler pads every rank to ceil(N/W) samples) and lists the
    batch sizes that leave exactly one sample.

    ## Why it matters
    Training runs for hours and then dies on the last batch of the first epoch with "ValueError:
    Expected more than 1 value per channel when training, got input size torch.Size([1, 256])".

    ## How to fix
    `DataLoader(..., drop_last=True)` (and `DistributedSampler(..., drop_last=True)`), or pick a
    batch size whose remainder is not 1, or use GroupNorm/LayerNorm for layers that see one value
    per channel.
    """
    if "batchnorm" not in record:
        return skip("not checked: forward did not run")
    training = [b for b in record["batchnorm"] if b.get("training")]
    if not record["batchnorm"]:
        return ok("no BatchNorm layer ran in forward")
    if not training:
        return ok(f"{len(record['batchnorm'])} BatchNorm layers ran in eval mode (running statistics; batch size 1 is fine)")
    fragile = [b for b in training if b.get("values_per_channel_per_sample") == 1]
    if not fragile:
        return ok(f"{len(training)} BatchNorm layers in training mode all see more than one value per channel "
                  "even at batch size 1")
    names = [f"{module_label(b['name'])} ({b['type']}, input {b['input_shape']})" for b in fragile]
    layers = some(names, 5)
    batch = record.get("batch_size")
    ds = record.get("dataset") or {}
    evidence = {"layers": names}
    drop_fix = Fix("Drop the short last batch (or choose a batch size whose remainder is not 1)",
                   ("DataLoader(dataset, batch_size=bs, sampler=DistributedSampler(dataset, drop_last=True), drop_last=True)",))
    if ds.get("size") and batch:
        world = ds.get("world_size") or 1
        per_rank, last = last_batches(ds["size"], world, batch, bool(ds.get("drop_last")))
        bad = bad_batch_sizes(per_rank)
        evidence.update({"dataset size": ds["size"], "world size": world, "samples per rank": per_rank,
                         "batch size": batch, "last batch per rank": last or "dropped (drop_last)",
                         "batch sizes giving a last batch of 1": some([str(b) for b in bad], 15) if bad else "(none)"})
        if per_rank == 1 and not ds.get("drop_last"):
            return error(f"each rank gets a single sample ({ds['size']} samples over {world} ranks): {layers} will fail",
                         fix=drop_fix, evidence=evidence, related=("batchnorm-single-value",))
        if last == 1:
            good = next((b for b in range(batch + 1, batch * 2) if per_rank % b != 1), None)
            fix = Fix(drop_fix.summary, drop_fix.commands + ((f"batch_size = {good}  # last batch per rank: {per_rank % good or good}",) if good else ()))
            return error(f"with {ds['size']} samples on {world} ranks ({per_rank} per rank) and batch size {batch}, "
                         f"every rank ends the epoch on a last batch of 1: {layers} then fail with 'Expected more than "
                         "1 value per channel when training'", fix=fix, evidence=evidence,
                         related=("batchnorm-single-value",))
        if ds.get("drop_last"):
            return ok(f"{layers} would fail on a batch of 1, but drop_last drops the short last batch",
                      **evidence)
        return ok(f"{layers} would fail on a batch of 1; the last batch here is {last}. Batch sizes to avoid: "
                  f"{some([str(b) for b in bad], 10) if bad else 'none'}", **evidence)
    evidence["batch sizes that fail"] = "1 (and any batch size whose last batch is 1)"
    return warning(f"{layers} fail on a batch of one sample ('Expected more than 1 value per channel when "
                   "training'); the last batch of an epoch is the usual way to get one. Give --dataset-size "
                   "(and --world-size) to check your numbers",
                   fix=Fix("Drop the short last batch, or use a normalization that works per sample for these layers",
                           drop_fix.commands + ("nn.GroupNorm(num_groups=32, num_channels=C)  # instead of BatchNorm on [N, C, 1, 1]",)),
                   evidence=evidence, related=("batchnorm-single-value",))
