from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import CkptExample, ckpt_rule

FIX = Fix("Download or copy the file again completely (check free disk space); if your training wrote it, "
          "save atomically from now on",
          ("ls -l FILE   # compare with the size the publisher gives",
           "rm FILE && wget -c -O FILE \"$URL\"",
           "torch.save(state, path + '.tmp'); os.replace(path + '.tmp', path)   # atomic save"))


@ckpt_rule(
    code="TI102",
    name="checkpoint-damaged",
    title="The checkpoint is complete: zip directory, pickle and every storage record present",
    related=("checkpoint-corrupt",),
    examples=[
        CkptExample("error", {"format": "zip", "readable": False, "file_size": 1500,
                              "problem": {"kind": "truncated", "detail": "the zip archive has no end-of-central-directory record",
                                          "tensors": 7, "needed_bytes": 96}},
                    "a download cut at 1500 bytes", contains="end-of-central-directory"),
        CkptExample("error", {"format": "zip", "readable": True,
                              "storage_problems": ["storage 3: declares 4,000 bytes but sd/data/3 holds 40"]},
                    "a storage record smaller than its tensor", contains="storage 3"),
        CkptExample("error", {"format": "legacy", "readable": False,
                              "problem": {"kind": "corrupt", "detail": "malformed pickle: at byte 80"}}, contains="malformed"),
        CkptExample("ok", {"format": "zip", "readable": True}),
        CkptExample("skip", {"format": "html", "readable": False, "problem": {"kind": "not-a-checkpoint", "detail": "HTML"}},
                    "not a checkpoint at all: TI101 says so"),
    ],
)
def checkpoint_damaged(report):
    """
    ## What it checks
    That the zip directory reads, the pickle runs to its STOP opcode, and every storage the pickle
    names has a record (zip) or data block (legacy) at least as large as its tensor.

    ## Why it matters
    A download or save that was cut short fails in `torch.load` with `PytorchStreamReader failed
    reading zip archive: failed finding central directory` or `Ran out of input`, which does not
    say that the file is simply incomplete.

    ## How to fix
    Fetch or copy the file again completely; for your own checkpoints, write to a temporary file
    and `os.replace` it into place so a crash never leaves half a file.
    """
    problem = report.problem or {}
    if problem.get("kind") in ("not-a-checkpoint", "limit"):
        return skip("not a readable checkpoint (see TI101 / TI111)")
    if problem.get("kind") in ("truncated", "corrupt"):
        evidence = {"file size": f"{report.file_size:,} bytes", "format": report.format}
        if "needed_bytes" in problem:
            evidence["tensors in its data.pkl"] = problem.get("tensors")
            evidence["tensor bytes it needs"] = f"{problem['needed_bytes']:,}"
        what = "truncated" if problem["kind"] == "truncated" else "corrupt"
        return error(f"the checkpoint is {what}: {problem.get('detail', '')}", fix=FIX, evidence=evidence,
                     related=("checkpoint-corrupt",))
    if report.storage_problems:
        shown = report.storage_problems[:5]
        more = len(report.storage_problems) - len(shown)
        return error(f"{len(report.storage_problems)} tensor or storage record(s) missing, too short or malformed: {shown[0]}",
                     fix=FIX, evidence={"storages": shown + ([f"... {more} more"] if more else [])},
                     related=("checkpoint-corrupt",))
    return ok("the checkpoint is complete")
