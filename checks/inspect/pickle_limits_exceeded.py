from torchdoctor.model import Fix, error, ok
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI111",
    name="pickle-limits-exceeded",
    title="The pickle stays within sane limits (no pickle bomb)",
    related=("checkpoint-corrupt",),
    examples=[
        CkptExample("error", {"format": "zip", "readable": False,
                              "problem": {"kind": "limit", "detail": "MARKs nested deeper than 5,000"}},
                    "deep nesting", contains="nested deeper"),
        CkptExample("ok", {"format": "zip", "readable": True}),
        CkptExample("ok", {"format": "zip", "readable": False, "problem": {"kind": "truncated", "detail": "cut"}}),
    ],
)
def pickle_limits_exceeded(report):
    """
    ## What it checks
    That reading the pickle stayed within torchdoctor's limits: opcodes, items, nesting depth, memo
    entries, the size of data.pkl and the time taken.

    ## Why it matters
    A pickle can be crafted to exhaust memory or time when loaded (deeply nested marks, a huge memo,
    a data.pkl that declares gigabytes). No real checkpoint comes near these limits; one that does is
    damaged or hostile, and `torch.load` on it may hang or run out of memory.

    ## How to fix
    Do not load the file. Get it again from its source, and ask the publisher for a safetensors copy.
    """
    problem = report.problem or {}
    if problem.get("kind") != "limit":
        return ok("the pickle is within limits")
    return error(f"the pickle exceeds a safety limit: {problem.get('detail', '')}; treat the file as hostile or damaged",
                 fix=Fix("Do not torch.load this file; get it again from a trusted source, preferably as safetensors"),
                 evidence={"format": report.format, "file size": f"{report.file_size:,} bytes"},
                 related=("checkpoint-corrupt",))
