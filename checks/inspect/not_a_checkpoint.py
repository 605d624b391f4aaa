from torchdoctor.model import Fix, error, ok
from torchdoctor.registry import CkptExample, ckpt_rule

_FIXES = {
    "lfs-pointer": Fix("Fetch the real weights: install git-lfs and pull inside the clone (or download the file itself)",
                       ("git lfs install", "git lfs pull", "ls -l FILE   # megabytes, not ~130 bytes")),
    "html": Fix("Download the file again with a tool that follows the hub's or drive's confirmation step; "
                "the saved page says what went wrong (login, quota, 404)",
                ("head -c 300 FILE", "huggingface-cli download ORG/REPO FILE --local-dir .")),
    "empty": Fix("The file is empty: download or save it again (check free disk space first)",
                 ("df -h .", "rm FILE && wget -c -O FILE \"$URL\"")),
    "tar": Fix("Only if it comes from a source you trust: load it once with weights_only=False and re-save it "
               "with a modern torch",
               ("python -c \"import torch; torch.save(torch.load('FILE', weights_only=False), 'new.pth')\"",)),
}
_DEFAULT = Fix("Look at the file: its size and first bytes tell what it is; download or save it again",
               ("ls -l FILE", "head -c 200 FILE | cat -v", "sha256sum FILE   # compare with the publisher's checksum"))


@ckpt_rule(
    code="TI101",
    name="not-a-checkpoint",
    title="The file is a checkpoint (not an LFS pointer, a web page or an empty file)",
    related=("checkpoint-corrupt",),
    examples=[
        CkptExample("error", {"format": "lfs-pointer", "readable": False, "file_size": 133,
                              "problem": {"kind": "not-a-checkpoint", "detail": "a Git LFS pointer"},
                              "details": {"size": "438000000"}}, "git clone without git-lfs", contains="git lfs pull"),
        CkptExample("error", {"format": "html", "readable": False, "file_size": 2048,
                              "problem": {"kind": "not-a-checkpoint", "detail": "an HTML page: 'Sign in'"}},
                    "a login page saved as model.pth", contains="HTML page"),
        CkptExample("error", {"format": "empty", "readable": False,
                              "problem": {"kind": "not-a-checkpoint", "detail": "the file is empty (0 bytes)"}},
                    contains="empty"),
        CkptExample("ok", {"format": "zip", "readable": True, "file_size": 1000}),
        CkptExample("ok", {"format": "zip", "readable": False, "problem": {"kind": "truncated", "detail": "cut"}},
                    "a truncated checkpoint is damaged (TI102), but it is a checkpoint"),
    ],
)
def not_a_checkpoint(report):
    """
    ## What it checks
    What the first bytes of the file are: a torch.save zip or legacy stream, safetensors or a pickle,
    versus a Git LFS pointer, an HTML page, an empty file, a numpy array or random bytes.

    ## Why it matters
    `torch.load` reports these as `invalid load key, 'v'` / `Unsupported operand 118` (an LFS pointer),
    `'<'` / `60` (an HTML page) or `Ran out of input` (empty): messages that do not say the weights
    were never downloaded (pytorch#150998).

    ## How to fix
    Fetch the real file: `git lfs pull` for an LFS pointer, download again for an HTML page or an
    empty file.
    """
    problem = report.problem or {}
    if problem.get("kind") != "not-a-checkpoint":
        return ok(f"the file is a {report.format} checkpoint" if report.readable else "the file starts like a checkpoint")
    evidence = {"file": report.path or "(recorded)", "size": f"{report.file_size:,} bytes", "format": report.format}
    evidence.update({k: v for k, v in report.details.items() if k in ("oid", "size", "title", "first_bytes")})
    if "size" in report.details:
        evidence["size the weights should have"] = f"{int(report.details['size']):,} bytes" \
            if str(report.details["size"]).isdigit() else report.details["size"]
        evidence["size"] = f"{report.file_size:,} bytes"
    fix = _FIXES.get(report.format, _DEFAULT)
    return error(f"not a checkpoint: {problem.get('detail', report.format)}", fix=fix, evidence=evidence,
                 related=("checkpoint-corrupt",))
