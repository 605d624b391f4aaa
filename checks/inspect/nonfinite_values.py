from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI109",
    name="nonfinite-values",
    title="No tensor holds NaN or Inf (with --tensors)",
    related=("nan-in-backward",),
    examples=[
        CkptExample("error", {"format": "zip", "stats": {"0.weight": {"numel": 6, "nan": 1, "inf": 0},
                                                         "0.bias": {"numel": 3, "nan": 0, "inf": 1}}},
                    "weights after a diverged step", contains="0.weight"),
        CkptExample("ok", {"format": "zip", "stats": {"0.weight": {"numel": 6, "nan": 0, "inf": 0, "min": -1, "max": 1}}}),
        CkptExample("skip", {"format": "zip", "stats": None}, "without --tensors the bytes are not read"),
    ],
)
def nonfinite_values(report):
    """
    ## What it checks
    With `--tensors`, every floating-point tensor's values, read from the storage bytes of the
    memory-mapped file (no torch): NaN and Inf counts, min, max and mean.

    ## Why it matters
    A checkpoint saved after training diverged loads fine and then produces NaN outputs and losses;
    resuming from it wastes the run.

    ## How to fix
    Resume from an earlier checkpoint, and find where training diverged (lower the learning rate,
    clip gradients, check the data and the loss for NaN).
    """
    if report.stats is None:
        return skip("tensor values not read (use --tensors)")
    bad = {name: s for name, s in report.stats.items() if s.get("nan") or s.get("inf")}
    if not bad:
        return ok(f"no NaN or Inf in {len(report.stats)} tensors")
    shown = {name: f"nan={s.get('nan', 0)} inf={s.get('inf', 0)} of {s.get('numel', '?')}" for name, s in list(bad.items())[:8]}
    return error(f"{len(bad)} tensor(s) hold NaN or Inf: {', '.join(list(bad)[:4])}",
                 fix=Fix("Resume from an earlier checkpoint and find where training diverged "
                         "(lower the learning rate, clip gradients, check the inputs for NaN)",
                         ("torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
                          "torch.autograd.set_detect_anomaly(True)   # while debugging")),
                 evidence={"tensors": shown}, related=("nan-in-backward",))
