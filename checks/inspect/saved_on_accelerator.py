from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import CkptExample, ckpt_rule


def _human(n: int) -> str:
    from torchdoctor.inspect.report import human_bytes

    return human_bytes(n)


@ckpt_rule(
    code="TI106",
    name="saved-on-accelerator",
    title="Storages were saved on the CPU (loading needs no particular GPU)",
    related=("checkpoint-on-cuda0", "cuda-unavailable-on-load"),
    examples=[
        CkptExample("warning", {"format": "zip", "storages": {"0": {"location": "cuda:0", "nbytes": 4096},
                                                              "1": {"location": "cuda:0", "nbytes": 64}}},
                    "saved from rank 0's GPU", contains='map_location={"cuda:0": f"cuda:{local_rank}"}'),
        CkptExample("warning", {"format": "zip", "storages": {"0": {"location": "cpu", "nbytes": 10},
                                                              "1": {"location": "mps", "nbytes": 10}}},
                    "one storage on MPS", contains="mps"),
        CkptExample("ok", {"format": "zip", "storages": {"0": {"location": "cpu", "nbytes": 4096}}}),
        CkptExample("ok", {"format": "zip", "storages": {"0": {"location": "meta", "nbytes": 0}}},
                    "meta tensors carry no data"),
    ],
)
def saved_on_accelerator(report):
    """
    ## What it checks
    The device tag each storage was saved with (`cpu`, `cuda:0`, `mps`, `xpu:1`...), read from the
    pickle's persistent ids, memo references included.

    ## Why it matters
    `torch.load` without `map_location` puts every storage back on the device it was saved from:
    with a checkpoint saved on `cuda:0`, every DDP rank allocates the whole checkpoint on GPU 0 (out
    of memory, or a hang; pytorch#23138), and on a machine without CUDA it fails with `Attempting
    to deserialize object on a CUDA device but torch.cuda.is_available() is False`.

    ## How to fix
    Load with `map_location="cpu"` (or `{"cuda:0": f"cuda:{local_rank}"}`), or re-save the
    checkpoint on the CPU with `torchdoctor ckpt convert IN OUT --to-cpu`.
    """
    by_loc: dict[str, int] = {}
    counts: dict[str, int] = {}
    for st in report.storages.values():
        loc = str(st.get("location", "cpu"))
        by_loc[loc] = by_loc.get(loc, 0) + int(st.get("nbytes", 0))
        counts[loc] = counts.get(loc, 0) + 1
    devices = sorted(loc for loc in by_loc if loc not in ("cpu", "meta"))
    if not devices:
        return ok("every storage was saved on the CPU" if by_loc else "no storages")
    evidence = {"storages by device": {loc: f"{counts[loc]} ({_human(by_loc[loc])})" for loc in sorted(by_loc)}}
    cuda = [d for d in devices if d.startswith("cuda")]
    if cuda:
        first = cuda[0] if ":" in cuda[0] else "cuda:0"
        message = (f"saved on {', '.join(devices)}: torch.load without map_location puts "
                   f"{_human(sum(by_loc[d] for d in cuda))} on {first} in EVERY process that loads it (all DDP ranks "
                   "on one GPU), and fails on a machine without CUDA")
        fix = Fix("Pass map_location: the CPU, or each rank's own GPU; or re-save it on the CPU once",
                  ('torch.load(path, map_location="cpu")',
                   f'torch.load(path, map_location={{"{first}": f"cuda:{{local_rank}}"}})',
                   "torchdoctor ckpt convert IN OUT --to-cpu"))
    else:
        message = (f"saved on {', '.join(devices)}: loading without map_location needs that device")
        fix = Fix("Pass map_location=\"cpu\" (or the device you want), or re-save it on the CPU",
                  ('torch.load(path, map_location="cpu")', "torchdoctor ckpt convert IN OUT --to-cpu"))
    return warning(message, fix=fix, evidence=evidence, related=("checkpoint-on-cuda0", "cuda-unavailable-on-load"))
