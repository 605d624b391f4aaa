from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import Example, env_check

# Below this, DataLoader workers that pass many tensors through file descriptors run out.
RECOMMENDED = 4096


@env_check(
    code="TE403",
    name="open-files-limit-low",
    title="Open-files limit high enough for DataLoader workers",
    area="host & data loading",
    needs=("host.nofile_soft", "host.nofile_hard"),
    examples=[
        Example("warning", {"host": {"nofile_soft": 1024, "nofile_hard": 1048576}},
                "the common default soft limit", contains="ulimit -n 1048576"),
        Example("warning", {"host": {"nofile_soft": 1024, "nofile_hard": 1024}},
                "hard limit low too: needs the administrator", contains="limits.conf"),
        Example("ok", {"host": {"nofile_soft": 65536, "nofile_hard": 1048576}}),
        Example("ok", {"host": {"nofile_soft": 4096, "nofile_hard": 4096}}, "exactly at the threshold"),
    ],
)
def open_files_limit_low(facts):
    """
    ## What it checks
    The soft limit on open file descriptors (`ulimit -n`) of the shell torchdoctor runs in.

    ## Why it matters
    With `num_workers > 0`, DataLoader workers hand tensors to the main process through shared
    memory, one file descriptor per tensor under the default `file_descriptor` sharing strategy.
    A low limit ends in `RuntimeError: received 0 items of ancdata` or `Too many open files`
    (pytorch#973, pytorch#14768).

    ## How to fix
    Raise the soft limit before training (`ulimit -n <hard limit>`), or switch the sharing
    strategy with `torch.multiprocessing.set_sharing_strategy("file_system")`.
    """
    soft, hard = facts.host.nofile_soft, facts.host.nofile_hard
    evidence = {"ulimit -n (soft)": soft, "hard limit": hard}
    if soft >= RECOMMENDED:
        return ok(f"open-files limit is {soft}", **evidence)
    if hard > soft:
        fix = Fix(f"Raise the soft limit before training (up to the hard limit, {hard}), or share tensors through the file system",
                  (f"ulimit -n {hard}",
                   "python -c \"import torch.multiprocessing as mp; mp.set_sharing_strategy('file_system')\"  # or call it at the top of train.py"))
    else:
        fix = Fix("The hard limit is low as well: ask the administrator to raise nofile in /etc/security/limits.conf "
                  "(or the container's --ulimit nofile=65536:65536), or share tensors through the file system",
                  ("docker run --ulimit nofile=65536:65536 ...",
                   "torch.multiprocessing.set_sharing_strategy('file_system')  # at the top of train.py"))
    return warning(f"open-files limit is {soft} (below {RECOMMENDED}): DataLoader workers can fail with "
                   "'received 0 items of ancdata' or 'Too many open files'",
                   fix=fix, evidence=evidence, related=("too-many-open-files",))
