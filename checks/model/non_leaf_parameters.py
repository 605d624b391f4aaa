from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import ModelExample, model_rule

from ._common import some


@model_rule(
    code="TI205",
    name="non-leaf-parameters",
    title="Trainable tensors are leaf nn.Parameters the optimizer can see",
    examples=[
        ModelExample("warning", {"params": [{"name": "fc.weight", "is_leaf": True}], "attr_tensors": [
            {"name": "scale", "module": "", "requires_grad": True, "is_leaf": False, "grad_fn": "ToCopyBackward0",
             "dtype": "float64", "device": "cpu"}]},
            "self.scale = nn.Parameter(torch.ones(3)).double()", contains="scale"),
        ModelExample("ok", {"params": [{"name": "fc.weight", "is_leaf": True}], "attr_tensors": [
            {"name": "mask", "module": "", "requires_grad": False, "is_leaf": True, "grad_fn": None,
             "dtype": "float32", "device": "cpu"}]},
            "a constant tensor attribute that needs no grad"),
        ModelExample("skip", {}),
    ],
)
def non_leaf_parameters(record):
    """
    ## What it checks
    Parameters that are not leaves of the autograd graph, and tensors stored on a module as plain
    attributes that require grad but are not leaves — the result of `nn.Parameter(x).double()`,
    `.cuda()` or `.half()` applied to a Parameter inside `__init__`.

    ## Why it matters
    Casting or moving a Parameter returns a new, non-leaf tensor that is not a Parameter: it is not
    in `model.parameters()`, the optimizer never updates it, `.grad` on it stays None (with a
    warning about non-leaf tensors), and `optim.SGD([t])` refuses it ("can't optimize a non-leaf
    Tensor").

    ## How to fix
    Convert the data first and wrap last: `nn.Parameter(torch.ones(3, dtype=torch.float64))`; move
    the whole model with `model.to(...)` after building it.
    """
    if "params" not in record:
        return skip("not checked: the model's layout was not recorded")
    bad = [p["name"] for p in record["params"] if p.get("is_leaf") is False]
    bad += [f"{a['name']} (made by {a.get('grad_fn') or 'an op'})" for a in record.get("attr_tensors", [])
            if a.get("requires_grad") and a.get("is_leaf") is False]
    if not bad:
        return ok(f"all {len(record['params'])} parameters are leaves")
    return warning(f"{len(bad)} trainable tensors on the model are not leaf parameters, so no optimizer updates them: "
                   f"{some(bad, 6)}",
                   fix=Fix("Convert or move the data first, then wrap it in nn.Parameter (and move whole models with model.to)",
                           ("self.scale = nn.Parameter(torch.ones(3, dtype=torch.float64))  # not nn.Parameter(torch.ones(3)).double()",)),
                   evidence={"tensors": bad}, related=("non-leaf-optimize",))
