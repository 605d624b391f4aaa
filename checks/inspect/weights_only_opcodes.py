import pickletools

from torchdoctor.inspect.allowlist import OPCODES
from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import CkptExample, ckpt_rule

_CODE = {op.name: op.code for op in pickletools.opcodes}


@ckpt_rule(
    code="TI105",
    name="weights-only-opcodes",
    title="The pickle uses only opcodes torch's weights_only unpickler implements",
    related=("weights-only-unpickling",),
    examples=[
        CkptExample("warning", {"format": "zip", "pickle_protocol": 4,
                                "opcodes": ["BINPERSID", "FRAME", "MEMOIZE", "PROTO", "SHORT_BINUNICODE", "STACK_GLOBAL", "STOP"]},
                    "torch.save(..., pickle_protocol=4)", contains="Unsupported operand 149"),
        CkptExample("ok", {"format": "zip", "pickle_protocol": 2,
                           "opcodes": ["BINPERSID", "BINPUT", "BINUNICODE", "GLOBAL", "PROTO", "REDUCE", "STOP"]}),
        CkptExample("skip", {"format": "safetensors"}),
    ],
)
def weights_only_opcodes(report):
    """
    ## What it checks
    The pickle opcodes the file uses, against those `torch.load(weights_only=True)` implements
    (protocol 2 plus a few): FRAME, MEMOIZE, SHORT_BINUNICODE, STACK_GLOBAL (protocol 4) are not.

    ## Why it matters
    A checkpoint saved with `pickle_protocol=4` (or any pickle.dump with a newer protocol) fails
    under the default `weights_only=True` with `Unsupported operand 149`, even when it holds
    nothing but tensors (pytorch#118092, still open).

    ## How to fix
    Re-save it with the default protocol 2 (`torch.save(obj, path)`), for example with
    `torchdoctor ckpt convert IN OUT`, which reads it without running code.
    """
    if report.format == "safetensors":
        return skip("safetensors holds no pickle")
    if not report.opcodes:
        return ok("no pickle opcodes to check")
    extra = sorted(set(report.opcodes) - OPCODES)
    if not extra:
        return ok(f"pickle protocol {report.pickle_protocol}: every opcode is one weights_only implements")
    first = extra[0]
    codes = ", ".join(f"{n} ({ord(_CODE[n]) if n in _CODE else '?'})" for n in extra)
    # FRAME follows PROTO at once, so it is what torch trips on first when present.
    example = "FRAME" if "FRAME" in extra else min(extra, key=lambda n: ord(_CODE.get(n, "\xff")))
    return warning(f"torch.load(weights_only=True) fails on this file with 'Unsupported operand "
                   f"{ord(_CODE.get(example, chr(0)))}': pickle protocol {report.pickle_protocol} uses opcodes its "
                   f"unpickler does not implement ({codes})",
                   fix=Fix("Re-save with the default pickle protocol 2; `torchdoctor ckpt convert` does it without running the file's code",
                           ("torchdoctor ckpt convert IN OUT",
                            "torch.save(obj, path)   # no pickle_protocol argument")),
                   evidence={"pickle protocol": report.pickle_protocol, "unsupported opcodes": extra, "first": first},
                   related=("weights-only-unpickling",))
