from torchdoctor.model import Fix, ok, warning
from torchdoctor.registry import CkptExample, ckpt_rule

WRAPPERS = {
    "module.": "DataParallel / DistributedDataParallel",
    "_orig_mod.": "torch.compile",
    "_fsdp_wrapped_module.": "FullyShardedDataParallel (FSDP1)",
}


def _sd(path, keys):
    return {"path": path, "keys": keys, "prefixes": {p: sum(k.startswith(p) for k in keys)
                                                     for p in WRAPPERS if any(k.startswith(p) for k in keys)}}


@ckpt_rule(
    code="TI107",
    name="state-dict-wrapper-prefix",
    title="State-dict keys carry no wrapper prefix (module., _orig_mod., _fsdp_wrapped_module.)",
    related=("state-dict-module-prefix",),
    examples=[
        CkptExample("warning", {"format": "zip", "state_dicts": [_sd("", ["module.0.weight", "module.0.bias"])]},
                    "saved from a DDP-wrapped model", contains="consume_prefix_in_state_dict_if_present(sd, \"module.\")"),
        CkptExample("warning", {"format": "zip", "state_dicts": [_sd("model", ["_orig_mod.fc.weight"])]},
                    "saved from a torch.compile'd model", contains="torch.compile"),
        CkptExample("ok", {"format": "zip", "state_dicts": [_sd("", ["0.weight", "module_list.0.bias"])]},
                    "a module named module_list is no prefix"),
        CkptExample("ok", {"format": "zip", "state_dicts": [_sd("model", ["0.weight", "0.bias"])]},
                    "nested under 'model': the nesting is not a key prefix"),
    ],
)
def state_dict_wrapper_prefix(report):
    """
    ## What it checks
    Each state-dict-like dict in the checkpoint (a dict of tensors), for a prefix that every key
    shares and that a wrapper added: `module.` (DataParallel, DDP), `_orig_mod.` (torch.compile),
    `_fsdp_wrapped_module.` (FSDP1). Nested dicts are judged on their own keys, not on paths.

    ## Why it matters
    `model.load_state_dict(sd)` on the bare model fails with `Missing key(s) in state_dict:
    "0.weight"... Unexpected key(s) in state_dict: "module.0.weight"...`.

    ## How to fix
    Strip the prefix before loading (`consume_prefix_in_state_dict_if_present`), save
    `model.module.state_dict()` in the first place, or convert the file once with
    `torchdoctor ckpt convert IN OUT --strip-prefix module.`.
    """
    hits = []
    for sd in report.state_dicts:
        keys = sd.keys
        for prefix, count in sd.prefixes.items():
            if keys and count == len(keys):
                hits.append((sd.path, prefix, count))
    if not hits:
        return ok("no wrapper prefix on state-dict keys" if report.state_dicts else "no state dict found")
    path, prefix, count = hits[0]
    where = f"['{path}']" if path else ""
    access = f"ckpt{''.join(f'[{p!r}]' for p in path.split('.'))}" if path else "sd"
    return warning(f"all {count} keys of the state dict{(' at ' + repr(path)) if path else ''} start with "
                   f"{prefix!r} (saved from a {WRAPPERS[prefix]}-wrapped model): load_state_dict on the bare "
                   "model reports them all as missing/unexpected",
                   fix=Fix(f"Strip {prefix!r} before load_state_dict, or convert the file once",
                           (f"torch.nn.modules.utils.consume_prefix_in_state_dict_if_present({access}, \"{prefix}\")",
                            f"torchdoctor ckpt convert IN OUT --strip-prefix {prefix}")),
                   evidence={"state dict": f"ckpt{where}" if path else "the whole file",
                             "prefixed keys": f"{count} of {count}", "example": sd_example(report, path)},
                   related=("state-dict-module-prefix",))


def sd_example(report, path):
    for sd in report.state_dicts:
        if sd.path == path and sd.keys:
            return sd.keys[0]
    return ""
