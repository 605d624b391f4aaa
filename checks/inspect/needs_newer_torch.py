from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import CkptExample, ckpt_rule

NEWER = (2, 0)  # a file that needs more than torch 1.x is worth a warning


@ckpt_rule(
    code="TI108",
    name="needs-newer-torch",
    title="Which torch versions can read the checkpoint",
    related=("checkpoint-newer-format",),
    examples=[
        CkptExample("warning", {"format": "zip", "min_torch": "2.1", "globals": {"torch._utils._rebuild_tensor_v3": 1},
                                "min_torch_reasons": ["dtypes float8_e4m3fn need torch >= 2.1"]},
                    "float8 weights", contains="torch >= 2.1"),
        CkptExample("ok", {"format": "zip", "min_torch": "1.6",
                           "min_torch_reasons": ["zip format (torch.save default since 1.6); torch <= 1.5 cannot read it"]},
                    contains="torch >= 1.6"),
        CkptExample("ok", {"format": "legacy", "min_torch": "0.4"}, contains="torch >= 0.4"),
        CkptExample("skip", {"format": "safetensors", "min_torch": None}),
    ],
)
def needs_newer_torch(report):
    """
    ## What it checks
    The oldest torch that can read the file: the zip format needs torch >= 1.6 (older ones say
    "Attempted to read a PyTorch file with version 3, but the maximum supported version for reading
    is 2"); `_rebuild_tensor_v3` and the new dtypes (float8, uint16/32/64) need a recent torch 2.x.

    ## Why it matters
    A checkpoint written by a newer torch fails in an older one with an error that does not name
    the version it needs (pytorch#47243).

    ## How to fix
    Upgrade torch on the reading side, or re-save for the old reader: `torchdoctor ckpt convert IN
    OUT --legacy-format` for torch < 1.6, and cast new dtypes to float16/float32 first.
    """
    if report.min_torch is None:
        return skip("not a torch.save file")
    major, minor = (int(x) for x in report.min_torch.split(".")[:2])
    reasons = report.min_torch_reasons or []
    evidence = {"format": report.format}
    if report.format_version:
        evidence["zip version record"] = report.format_version
    if reasons:
        evidence["because"] = reasons
    if (major, minor) < NEWER:
        return ok(f"readable by torch >= {report.min_torch} ({report.format} format)", **evidence)
    return warning(f"only torch >= {report.min_torch} can read this file: {'; '.join(reasons)}",
                   fix=Fix("Read it with a recent torch, or cast the new dtypes to float16/float32 and re-save "
                           "for an older reader",
                           ("pip install -U torch", "sd = {k: v.float() if v.dtype.itemsize == 1 and v.is_floating_point() else v for k, v in sd.items()}")),
                   evidence=evidence, related=("checkpoint-newer-format",))
