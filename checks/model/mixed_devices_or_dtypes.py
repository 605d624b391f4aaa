from torchdoctor.model import Fix, error, ok, skip, warning
from torchdoctor.registry import ModelExample, model_rule

from ._common import some


def _t(name, device="cpu", dtype="float32", **extra):
    return {"name": name, "module": name.rpartition(".")[0], "device": device, "dtype": dtype, **extra}


@model_rule(
    code="TI204",
    name="mixed-devices-or-dtypes",
    title="Parameters, buffers and inputs share one device and one floating dtype",
    examples=[
        ModelExample("warning", {"params": [_t("a.weight"), _t("b.weight", "cuda:0")], "buffers": [], "inputs": []},
                     "one layer moved by hand", contains="cuda:0: b.weight"),
        ModelExample("warning", {"params": [_t("a.weight"), _t("b.weight", dtype="float16")], "buffers": [], "inputs": []},
                     "one layer halved by hand", contains="float16"),
        ModelExample("warning", {"params": [_t("a.weight")], "buffers": [],
                                 "attr_tensors": [_t("pos", "cuda:0", requires_grad=False)], "inputs": []},
                     "a plain tensor attribute does not move with .to()", contains="register_buffer"),
        ModelExample("error", {"params": [_t("a.weight", "cuda:0")], "buffers": [],
                               "inputs": [{"path": "args[0]", "device": "cpu", "dtype": "float32"}]},
                     "input on cpu, model on cuda", contains="args[0]"),
        ModelExample("ok", {"params": [_t("a.weight"), _t("bn.weight")],
                            "buffers": [_t("bn.running_mean"), _t("bn.num_batches_tracked", dtype="int64")],
                            "inputs": [{"path": "args[0]", "device": "cpu", "dtype": "float32"}]},
                     "an int64 counter buffer is not a mixed dtype"),
        ModelExample("skip", {}),
    ],
)
def mixed_devices_or_dtypes(record):
    """
    ## What it checks
    The devices and floating dtypes of every parameter and buffer, of tensors kept as plain module
    attributes (which `.to()` does not move), and of the example inputs.

    ## Why it matters
    A layer left on another device or in another dtype fails at the first op that mixes them
    ("Expected all tensors to be on the same device", "expected scalar type Float but found
    Half"), or, when it does not fail, silently computes in the wrong precision. Tensor attributes
    stay behind when the model moves to the GPU.

    ## How to fix
    Move and cast the whole model once (`model.to(device, dtype)`), register constant tensors with
    `self.register_buffer(...)`, and send the inputs to the model's device.
    """
    if "params" not in record:
        return skip("not checked: the model's layout was not recorded")
    tensors = record["params"] + record.get("buffers", [])
    floating = [t for t in tensors if t["dtype"].startswith(("float", "bfloat", "complex"))]
    devices: dict[str, list[str]] = {}
    for t in tensors:
        devices.setdefault(t["device"], []).append(t["name"])
    dtypes: dict[str, list[str]] = {}
    for t in floating:
        dtypes.setdefault(t["dtype"], []).append(t["name"])
    model_devices = set(devices)
    problems, evidence = [], {}
    if len(devices) > 1:
        minority = sorted(devices, key=lambda d: len(devices[d]))
        problems.append("parameters and buffers are on " + " and ".join(f"{d} ({len(devices[d])})" for d in devices))
        evidence["devices"] = "; ".join(f"{d}: {some(devices[d], 4)}" for d in minority)
    if len(dtypes) > 1:
        problems.append("floating parameters and buffers have dtypes " + ", ".join(f"{d} ({len(dtypes[d])})" for d in dtypes))
        evidence["dtypes"] = "; ".join(f"{d}: {some(v, 4)}" for d, v in sorted(dtypes.items(), key=lambda kv: len(kv[1])))
    stray = [a for a in record.get("attr_tensors", []) if model_devices and a["device"] not in model_devices]
    if stray:
        problems.append("tensor attributes are on another device, because .to() does not move tensors that are "
                        "not registered with register_buffer: " + some([f"{a['name']} ({a['device']})" for a in stray], 4))
    commands = ["model = model.to(device=device, dtype=torch.float32)  # once, after building it"]
    if stray or record.get("attr_tensors"):
        commands.append("self.register_buffer('pos', torch.zeros(...))  # instead of self.pos = torch.zeros(...)")
    inputs_off = [i for i in record.get("inputs", []) if model_devices and i["device"] not in model_devices]
    if inputs_off:
        evidence["inputs"] = some([f"{i['path']} on {i['device']}" for i in inputs_off], 4)
        evidence["model"] = ", ".join(sorted(model_devices))
        return error(f"the inputs are not on the model's device: {evidence['inputs']}, model on {evidence['model']}"
                     + (f"; also {'; '.join(problems)}" if problems else ""),
                     fix=Fix("Move the batch to the model's device before the forward",
                             ("x = x.to(next(model.parameters()).device, non_blocking=True)",) + tuple(commands)),
                     evidence=evidence, related=("device-mismatch",))
    if not problems:
        return ok(f"{len(tensors)} parameters and buffers on {', '.join(sorted(devices)) or 'no device'}"
                  + (f", floating dtype {next(iter(dtypes))}" if dtypes else ""))
    return warning("; ".join(problems), fix=Fix("Move and cast the whole model once; register constant tensors "
                                                "as buffers so they move with it", tuple(commands)),
                   evidence=evidence, related=("device-mismatch", "dtype-mismatch"))
