from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import ModelExample, model_rule

from ._common import frame, module_label, some

_OUTS = [{"path": "output", "finite": True, "nonfinite": ""}]


def _grad(name, grad):
    return {"name": name, "module": name.rpartition(".")[0], "requires_grad": True, "grad": grad}


@model_rule(
    code="TI207",
    name="nonfinite-values",
    title="No NaN/Inf in outputs, loss or gradients",
    examples=[
        ModelExample("error", {"outputs": [{"path": "output", "finite": False, "nonfinite": "nan"}],
                               "forward_nonfinite": {"module": "norm", "type": "MyNorm", "kind": "nan", "output": "output"},
                               "input_nonfinite": [], "params": [], "loss": {"finite": False}},
                     "a custom norm divides by zero", contains="norm (MyNorm)"),
        ModelExample("error", {"outputs": _OUTS, "forward_nonfinite": None, "input_nonfinite": [], "loss": {"finite": True},
                               "backward_done": True, "params": [_grad("fc.weight", "inf"), _grad("fc.bias", "ok")],
                               "backward_nonfinite": {"op": "SqrtBackward0", "kind": "inf",
                                                      "forward_frame": {"file": "m.py", "line": 12, "code": "y = torch.sqrt(h)"}}},
                     "sqrt(0) in forward: finite values, infinite gradient", contains="m.py:12 `y = torch.sqrt(h)`"),
        ModelExample("error", {"outputs": [{"path": "output", "finite": False, "nonfinite": "nan"}], "forward_nonfinite": None,
                               "input_nonfinite": [{"path": "args[0]", "kind": "nan"}], "params": []},
                     "the example input itself has NaN", contains="args[0]"),
        ModelExample("ok", {"outputs": _OUTS, "forward_nonfinite": None, "input_nonfinite": [], "loss": {"finite": True},
                            "backward_done": True, "params": [_grad("fc.weight", "ok"), _grad("fc.bias", "none")]},
                     "a missing gradient is TI201's business, not a NaN"),
        ModelExample("skip", {"errors": {"forward": {"type": "RuntimeError"}}}),
    ],
)
def nonfinite_values(record):
    """
    ## What it checks
    NaN and Inf in the example input, in every module's output (forward hooks; the first module
    whose inputs were finite and whose output was not is named), in the loss, and in every
    parameter's gradient. For gradients, backward is run again with a hook on every autograd node
    and forward stacks recorded: the first node that turned finite incoming gradients into
    non-finite ones is named with your forward line (anomaly mode's own check misses Inf).

    ## Why it matters
    One NaN spreads to every weight at the next optimizer step, and the loss curve only shows it
    afterwards. The first op that produced it is the one to fix.

    ## How to fix
    Guard the named op: add an epsilon (`torch.sqrt(x + 1e-8)`, `x / (n + 1e-6)`), clamp before
    `log`/`exp`, compute it in float32 under autocast, or clip gradients.
    """
    if "outputs" not in record:
        return skip("not checked: forward did not finish")
    bad_inputs = record.get("input_nonfinite") or []
    if bad_inputs:
        return error(f"the example input already contains non-finite values: "
                     f"{some([i['path'] + ' (' + i['kind'] + ')' for i in bad_inputs], 4)}",
                     fix=Fix("Check the data pipeline (torch.isfinite(x).all()) before blaming the model",
                             ("assert torch.isfinite(x).all(), 'non-finite input'",)),
                     evidence={"inputs": [i["path"] for i in bad_inputs]}, related=("nan-in-backward",))
    first = record.get("forward_nonfinite")
    bad_outs = [o for o in record["outputs"] if o.get("finite") is False]
    if first or bad_outs:
        where = (f"{module_label(first['module'])} ({first['type']}) is the first module whose output has "
                 f"{first['kind'].upper()} from finite inputs" if first else "the model's output is not finite")
        return error(f"forward produces non-finite values: {where}; outputs affected: "
                     f"{some([o['path'] + ' (' + o['nonfinite'] + ')' for o in bad_outs], 4) or '(intermediate only)'}",
                     fix=Fix("Guard the op in that module: add an epsilon, clamp before log/exp, or compute it in float32",
                             ("y = x / (norm + 1e-6)  # instead of x / norm", "torch.log(x.clamp_min(1e-12))")),
                     evidence={"first module": module_label(first["module"]) if first else "unknown",
                               "outputs": [o["path"] for o in bad_outs]}, related=("nan-in-backward",))
    loss = record.get("loss") or {}
    if loss.get("finite") is False:
        return error("the outputs are finite but the loss is not: the loss function produces the NaN/Inf",
                     fix=Fix("Check the loss inputs: log of 0, division by an empty count, targets out of range",
                             ("loss = criterion(logits.float(), target)  # compute the loss in float32",)),
                     evidence={"loss": str(loss.get("value"))}, related=("nan-in-backward",))
    grads = [p for p in record.get("params", []) if p.get("grad") in ("nan", "inf")]
    if grads:
        origin = record.get("backward_nonfinite")
        where = (f"the first backward op to produce it is {origin['op']} ({origin['kind'].upper()}), from forward line "
                 f"{frame(origin.get('forward_frame'))}" if origin else "the op that produced them was not isolated")
        return error(f"{len(grads)} parameters get non-finite gradients from a finite loss ({some([p['name'] for p in grads], 6)}); {where}",
                     fix=Fix("Guard that op (e.g. sqrt(x + eps): the derivative of sqrt at 0 is infinite), or clip gradients",
                             ("y = torch.sqrt(x + 1e-8)", "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)")),
                     evidence={"parameters": [p["name"] for p in grads][:20],
                               "backward op": origin["op"] if origin else "unknown",
                               "forward line": frame(origin.get("forward_frame")) if origin else "unknown"},
                     related=("nan-in-backward",))
    if not record.get("backward_done"):
        return ok("outputs and loss are finite (gradients not checked: backward did not run)")
    return ok("outputs, loss and gradients are finite")
