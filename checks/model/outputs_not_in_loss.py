from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import ModelExample, model_rule

from ._common import some

_BASE = {"loss": {"source": "user", "finite": True}, "errors": {}}


@model_rule(
    code="TI202",
    name="outputs-not-in-loss",
    title="Every forward output that needs grad reaches the loss",
    examples=[
        ModelExample("warning", {**_BASE, "outputs": [
            {"path": "['a']", "requires_grad": True, "in_loss": True},
            {"path": "['b']", "requires_grad": True, "in_loss": False,
             "params": ["head_b.weight", "trunk.weight"], "params_only_here": ["head_b.weight"]}]},
            "a head's output left out of the loss", contains="['b']"),
        ModelExample("ok", {**_BASE, "outputs": [
            {"path": "[0]", "requires_grad": True, "in_loss": True},
            {"path": "[1]", "requires_grad": True, "in_loss": False, "params": ["trunk.weight"], "params_only_here": []}]},
            "an auxiliary output whose parameters all get gradients elsewhere: harmless for DDP",
            contains="[1]"),
        ModelExample("ok", {**_BASE, "outputs": [{"path": "output", "requires_grad": True, "in_loss": True},
                                                 {"path": "[1]", "requires_grad": False, "in_loss": None}]},
                     "an integer output (argmax) needs no grad"),
        ModelExample("skip", {"errors": {"forward": {"type": "RuntimeError"}}}),
    ],
)
def outputs_not_in_loss(record):
    """
    ## What it checks
    Each tensor the model returns (through tuples, lists, dicts, dataclasses) that requires grad:
    does the autograd graph walked back from the loss contain it? One that is not, and that is the
    only path to some parameters, is why those parameters get no gradient (TI201).

    ## Why it matters
    DDP's `find_unused_parameters=True` starts its walk from the outputs, so it cannot tell you
    which output the loss ignores; with the default DDP settings the next iteration fails with
    "Expected to have finished reduction in the prior iteration". Lightning says the same as "make
    sure all forward function outputs participate in calculating loss".

    ## How to fix
    Add the output to the loss (with a weight if it is auxiliary), or return it only when it is
    used (e.g. not in training), or detach it on purpose (`out.detach()`).
    """
    outs = record.get("outputs")
    if outs is None or "loss" not in record:
        return skip("not checked: the model did not get through forward and the loss")
    left = [o for o in outs if o.get("in_loss") is False]
    needing = [o for o in outs if o.get("requires_grad")]
    if not left:
        how = "the default loss sums every output" if record["loss"].get("source") == "default" else "the loss uses them all"
        return ok(f"all {len(needing)} outputs that need grad reach the loss ({how})")
    harmful = [o for o in left if o.get("params_only_here")]
    if not harmful:
        return ok(f"outputs {', '.join(o['path'] for o in left)} are not in the loss, but every parameter behind them "
                  "gets a gradient through other outputs, so DDP is unaffected",
                  outputs=[o["path"] for o in left])
    paths = ", ".join(o["path"] for o in harmful)
    only = sorted({n for o in harmful for n in o["params_only_here"]})
    return warning(
        f"output {paths} is computed but not used by the loss; parameters {some(only, 6)} feed only that output, "
        "so they get no gradient and DDP fails on the next iteration",
        fix=Fix("Use the output in the loss, or don't compute it in training, or detach it on purpose",
                (f"loss = criterion(out{harmful[0]['path'] if harmful[0]['path'] != 'output' else ''}, target) + main_loss"
                 + "  # weight it if it is auxiliary",)),
        evidence={"outputs not in the loss": [o["path"] for o in harmful],
                  "parameters reached only through them": some(only, 12),
                  "loss": "your --loss / loss_fn" if record["loss"].get("source") == "user" else "the default loss"},
        related=("ddp-unused-parameters",))
