from torchdoctor.inspect.allowlist import TORCHSCRIPT, verdict
from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI110",
    name="torchscript-archive",
    title="The file is a torch.save checkpoint, not a TorchScript archive",
    examples=[
        CkptExample("warning", {"format": "torchscript", "globals": {"__torch__.Net": 1},
                                "global_uses": {"__torch__.Net": ["class"]}}, contains="torch.jit.load"),
        CkptExample("ok", {"format": "zip"}),
    ],
)
def torchscript_archive(report):
    """
    ## What it checks
    Whether the zip holds `constants.pkl` (torch.load's own test, the mark of `torch.jit.save`).

    ## Why it matters
    `torch.load` hands TorchScript archives to `torch.jit.load`, and refuses them under
    `weights_only=True`; `model.load_state_dict(torch.load(f))` then fails in confusing ways. The
    `__torch__.*` globals in it are TorchScript's reconstruction of the scripted module, resolved
    against the archive's own compiled code, not Python imports; that code (`code/`) is TorchScript,
    which torchdoctor does not analyse.

    ## How to fix
    If you trust its source, load it with `torch.jit.load(path, map_location="cpu")`; take
    `.state_dict()` of the result if you need the weights for an eager model.
    """
    if report.format != "torchscript":
        return ok(f"{report.format} file, not TorchScript")
    own = sorted(verdict(report).get(TORCHSCRIPT, {}))
    return warning("a TorchScript archive (torch.jit.save), not a torch.save checkpoint: torch.load(weights_only=True) "
                   f"refuses it; its {len(own)} TorchScript class(es) are rebuilt from the archive's compiled code",
                   fix=Fix("If you trust its source, load it with torch.jit.load (it runs the archive's TorchScript "
                           "code); take its state_dict for an eager model",
                           ('m = torch.jit.load(path, map_location="cpu"); sd = m.state_dict()',)),
                   evidence={"archive": report.archive, "TorchScript globals": own[:20]})
