from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import CkptExample, ckpt_rule


def _against(missing=(), unexpected=(), mismatch=(), explanations=(), matched=2):
    return {"reference": "model.py:build", "state_dict": "", "matched": matched, "missing": list(missing),
            "unexpected": list(unexpected), "shape_mismatch": list(mismatch), "explanations": list(explanations),
            "checkpoint_keys": matched + len(unexpected), "reference_keys": matched + len(missing)}


@ckpt_rule(
    code="TI112",
    name="state-dict-mismatch",
    title="The state dict fits the model given with --against (keys and shapes)",
    related=("state-dict-key-mismatch", "state-dict-size-mismatch", "state-dict-module-prefix"),
    examples=[
        CkptExample("error", {"format": "zip", "against": _against(
            ["fc.weight"], ["module.fc.weight"], explanations=[
                {"kind": "prefix", "detail": "every checkpoint key starts with 'module.'",
                 "fix": 'consume_prefix_in_state_dict_if_present(sd, "module.")'}], matched=0)},
            "DDP prefix", contains="'module.'"),
        CkptExample("error", {"format": "zip", "against": _against(mismatch=[
            {"key": "fc.weight", "checkpoint": [1000, 512], "model": [10, 512]}], explanations=[
                {"kind": "shape", "detail": "1 tensor(s) differ in shape", "fix": "strict=False"}])},
            "another number of classes", contains="fc.weight"),
        CkptExample("ok", {"format": "zip", "against": _against()}),
        CkptExample("skip", {"format": "zip", "against": None}, "no --against given"),
    ],
)
def state_dict_mismatch(report):
    """
    ## What it checks
    With `--against other.pth` or `--against pkg.module:factory`, the checkpoint's state dict (the
    one that fits best, at whatever nesting level) against the reference's keys and shapes.

    ## Why it matters
    `load_state_dict` fails with `Missing key(s)` / `Unexpected key(s)` / `size mismatch for ...`
    and lists hundreds of keys without saying the cause: a wrapper prefix, weights nested under
    `state_dict`, a renamed module, another number of classes, or another architecture.

    ## How to fix
    Apply the fix printed for the cause: strip the prefix, index the nested dict, rename the keys,
    or drop the mismatched head and load with `strict=False`.
    """
    a = report.against
    if not a:
        return skip("no --against reference given")
    missing, unexpected, mismatch = a.get("missing", []), a.get("unexpected", []), a.get("shape_mismatch", [])
    explanations = a.get("explanations", [])
    if not (missing or unexpected or mismatch):
        nest = [e for e in explanations if e.get("kind") == "nesting"]
        return ok(f"all {a.get('matched', 0)} keys match {a.get('reference')}"
                  + (f" ({nest[0]['detail']}; {nest[0]['fix']})" if nest else ""))
    evidence = {"reference": a.get("reference"), "matched": a.get("matched")}
    if missing:
        evidence["missing (in the model, not the checkpoint)"] = missing[:5] + ([f"... {len(missing) - 5} more"] if len(missing) > 5 else [])
    if unexpected:
        evidence["unexpected (in the checkpoint, not the model)"] = unexpected[:5] + ([f"... {len(unexpected) - 5} more"] if len(unexpected) > 5 else [])
    if mismatch:
        evidence["shape mismatch"] = [f"{m['key']}: checkpoint {m['checkpoint']} vs model {m['model']}" for m in mismatch[:5]]
    causes = [e["detail"] for e in explanations]
    fixes = tuple(e["fix"] for e in explanations if e.get("fix"))
    summary = "Because " + "; ".join(causes) if causes else "Compare the key lists; load with strict=False only if the difference is intended"
    return error(f"load_state_dict(strict=True) fails: {len(missing)} missing, {len(unexpected)} unexpected, "
                 f"{len(mismatch)} shape mismatch(es)" + (f" - {causes[0]}" if causes else ""),
                 fix=Fix(summary, fixes), evidence=evidence,
                 related=("state-dict-key-mismatch", "state-dict-size-mismatch", "state-dict-module-prefix"))
