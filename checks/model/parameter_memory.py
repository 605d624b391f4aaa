from torchdoctor.model import ok, skip
from torchdoctor.registry import ModelExample, model_rule

from ._common import human_bytes


@model_rule(
    code="TI208",
    name="parameter-memory",
    title="Parameter, gradient and buffer memory per dtype",
    examples=[
        ModelExample("ok", {"params": [{"name": "a", "dtype": "float32", "nbytes": 4 * 1024 * 1024, "grad": "ok",
                                        "grad_dtype": "float32", "grad_nbytes": 4 * 1024 * 1024},
                                       {"name": "b", "dtype": "bfloat16", "nbytes": 2048, "grad": "none"}],
                            "buffers": [{"name": "bn.running_mean", "dtype": "float32", "nbytes": 1024}]},
                     contains="float32 4.0 MiB"),
        ModelExample("skip", {}),
    ],
)
def parameter_memory(record):
    """
    ## What it checks
    The bytes held by parameters, by their gradients after one backward, and by buffers, per dtype.

    ## Why it matters
    It is the floor of training memory before activations and optimizer state (Adam keeps two
    float32 tensors per parameter more), and shows a stray float64 layer at a glance.

    ## How to fix
    Nothing to fix; for a model that does not fit, see mixed precision, FSDP or activation
    checkpointing.
    """
    if "params" not in record:
        return skip("not checked: the model's layout was not recorded")

    def per_dtype(items, key, dkey):
        out: dict[str, int] = {}
        for t in items:
            if t.get(key) is not None:
                out[t.get(dkey) or "?"] = out.get(t.get(dkey) or "?", 0) + t[key]
        return out

    params = per_dtype(record["params"], "nbytes", "dtype")
    grads = per_dtype(record["params"], "grad_nbytes", "grad_dtype")
    buffers = per_dtype(record.get("buffers", []), "nbytes", "dtype")

    def show(d):
        return ", ".join(f"{k} {human_bytes(v)}" for k, v in sorted(d.items())) or "none"

    count = len(record["params"])
    total = sum(params.values()) + sum(grads.values()) + sum(buffers.values())
    return ok(f"{count} parameters: {show(params)}; gradients: {show(grads)}; buffers: {show(buffers)} "
              f"(total {human_bytes(total)})",
              parameters={k: human_bytes(v) for k, v in params.items()},
              gradients={k: human_bytes(v) for k, v in grads.items()},
              buffers={k: human_bytes(v) for k, v in buffers.items()},
              total_bytes=total)
