from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI110",
    name="torchscript-archive",
    title="The file is a torch.save checkpoint, not a TorchScript archive",
    examples=[
        CkptExample("warning", {"format": "torchscript", "globals": {"__torch__.Net": 1}}, contains="torch.jit.load"),
        CkptExample("ok", {"format": "zip"}),
    ],
)
def torchscript_archive(report):
    """
    ## What it checks
    Whether the zip holds `constants.pkl` or `code/`, the marks of `torch.jit.save`.

    ## Why it matters
    `torch.load` hands TorchScript archives to `torch.jit.load`, and refuses them under
    `weights_only=True`; `model.load_state_dict(torch.load(f))` then fails in confusing ways.

    ## How to fix
    Load it with `torch.jit.load(path, map_location="cpu")`; take `.state_dict()` of the result if
    you need the weights for an eager model.
    """
    if report.format != "torchscript":
        return ok(f"{report.format} file, not TorchScript")
    return warning("a TorchScript archive (torch.jit.save), not a torch.save checkpoint: torch.load(weights_only=True) "
                   "refuses it",
                   fix=Fix("Load it with torch.jit.load; take its state_dict for an eager model",
                           ('m = torch.jit.load(path, map_location="cpu"); sd = m.state_dict()',)),
                   evidence={"archive": report.archive})
