from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import CkptExample, ckpt_rule


@ckpt_rule(
    code="TI113",
    name="archive-ambiguous",
    title="The zip archive reads the same in torch and in every other zip reader",
    examples=[
        CkptExample("error", {"format": "zip", "archive_problems": [
            "the entry 'archive/data.pkl' appears 2 times: torch reads one of them, Python's zipfile the last"]},
                    "a second data.pkl: scanners and torch read different pickles", contains="appears 2 times"),
        CkptExample("error", {"format": "zip", "archive_problems": [
            "the entry 'archive/data.pkl' is marked encrypted: torch cannot read it"]}, contains="encrypted"),
        CkptExample("ok", {"format": "zip", "archive_problems": []}, "what torch.save writes"),
        CkptExample("skip", {"format": "legacy"}),
    ],
)
def archive_ambiguous(report):
    """
    ## What it checks
    The zip structure, read with torch's own rules (caffe2's inline_container over miniz): the same
    name twice or in two cases, a central directory that does not end where the end record begins
    (room for a second one), several end records, trailing data, entries outside the archive
    folder, a local header whose name differs from the directory's, a changed CRC, the encrypted
    flag, record names in another case than torch.save writes.

    ## Why it matters
    torch.save never writes any of these. They are how a hostile file shows a scanner (Python's
    `zipfile`, which takes the last of two same-named entries and the directory before the end
    record) one harmless pickle while torch loads another. torchdoctor reads every pickle torch
    might load, but a file built to be read two ways is not a checkpoint to trust.

    ## How to fix
    Do not load it. Download it again from its publisher; if it still looks like this, report it.
    """
    if report.format not in ("zip", "torchscript"):
        return skip(f"{report.format} file: no zip archive")
    problems = list(report.archive_problems or [])
    if not problems:
        return ok("the archive has one reading: no duplicate, hidden or encrypted entries")
    return error(f"the zip archive can be read more than one way: {problems[0]}"
                 + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
                 fix=Fix("Do not load it; download it again from its publisher, and report it if it still looks "
                         "like this (torch.save never writes such an archive)",
                         ("torchdoctor inspect FILE --format json   # every problem, for the report",)),
                 evidence={"archive problems": problems[:20]})
