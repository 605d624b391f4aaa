from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import ModelExample, model_rule
from torchdoctor.text import plural

from ._common import human_bytes, module_label, some


def _p(name, grad="ok", reached=True, requires_grad=True, nbytes=40):
    return {"name": name, "module": name.rpartition(".")[0], "requires_grad": requires_grad, "grad": grad,
            "reached": reached, "nbytes": nbytes, "dtype": "float32", "device": "cpu", "shape": [10]}


_TWO_HEADS = {
    "backward_done": True,
    "modules": {"": {"type": "Net", "called": 1}, "trunk": {"type": "Linear", "called": 1},
                "head_b": {"type": "Linear", "called": 1}, "unused": {"type": "Linear", "called": 0}},
    "params": [_p("trunk.weight"), _p("trunk.bias"), _p("head_b.weight", "none", False),
               _p("head_b.bias", "none", False), _p("unused.weight", "none", False), _p("unused.bias", "none", False)],
    "outputs": [{"path": "['a']", "in_loss": True},
                {"path": "['b']", "in_loss": False, "params_only_here": ["head_b.bias", "head_b.weight"]}],
}


@model_rule(
    code="TI201",
    name="unused-parameters",
    title="Every trainable parameter receives a gradient (what DDP needs)",
    examples=[
        ModelExample("error", _TWO_HEADS, "a head left out of the loss and a layer never called",
                     contains="head_b (Linear: its output ['b'] is not in the loss)"),
        ModelExample("error", _TWO_HEADS, "the DDP error it prevents", contains="Expected to have finished reduction"),
        ModelExample("error", {**_TWO_HEADS, "backward_done": False, "loss": {"source": "user"}, "params": [_p("a.w"), _p("b.w", reached=False)],
                               "modules": {"a": {"type": "Linear", "called": 1}, "b": {"type": "Linear", "called": 1}}},
                     "backward failed: the graph walk decides", contains="b (Linear"),
        ModelExample("ok", {**_TWO_HEADS, "params": [_p("trunk.weight"), _p("trunk.bias"),
                                                     _p("frozen.weight", "none", False, requires_grad=False)]},
                     "a frozen parameter (requires_grad=False) is not unused: DDP skips it too"),
        ModelExample("skip", {"errors": {"forward": {"type": "RuntimeError"}}, "params": [_p("a.w")]},
                     "forward failed: nothing to judge"),
    ],
)
def unused_parameters(record):
    """
    ## What it checks
    After one forward, the loss and one backward: every parameter with `requires_grad=True` whose
    `.grad` is still None, which is exactly DDP's "Parameters which did not receive grad" list. When
    backward itself failed, the autograd graph walked from the loss decides instead (the walk DDP's
    `find_unused_parameters=True` does every step). Each module is named with the reason: never
    called in forward, or called but its output does not reach the loss.

    ## Why it matters
    DistributedDataParallel waits for a gradient from every parameter before it all-reduces a
    bucket. A parameter that gets none leaves its bucket unreduced, and the *next* iteration fails
    with "Expected to have finished reduction in the prior iteration before starting a new one"
    (or hangs, with some ranks ahead of others). `find_unused_parameters=True` avoids that at the
    cost of a graph walk every step; `static_graph=True` does not help when an output is left out of
    the loss.

    ## How to fix
    Use every output in the loss, or do not compute it during training; delete or freeze
    (`requires_grad_(False)`) modules that are never called; only if the unused set really changes
    from step to step, pass `find_unused_parameters=True` to DDP.
    """
    params = record.get("params")
    errors = record.get("errors", {})
    if params is None or "forward" in errors or "loss" in errors or ("loss" not in record and not record.get("backward_done")):
        return skip("not checked: the model did not get through forward and the loss")
    trainable = [p for p in params if p.get("requires_grad")]
    if record.get("backward_done"):
        unused = [p for p in trainable if p.get("grad") == "none"]
        basis = "their .grad is None after backward"
    else:
        unused = [p for p in trainable if p.get("reached") is False]
        basis = "the autograd graph from the loss does not reach them (backward did not finish)"
    frozen = len(params) - len(trainable)
    if not unused:
        note = f" ({frozen} frozen parameters are ignored, as DDP ignores them)" if frozen else ""
        return ok(f"all {len(trainable)} trainable parameters receive a gradient{note}")
    modules = record.get("modules", {})
    via: dict[str, str] = {}
    for out in record.get("outputs", []):
        for name in out.get("params_only_here", []) or []:
            via.setdefault(name, out["path"])
    groups: dict[str, list[dict]] = {}
    for p in unused:
        groups.setdefault(p["module"], []).append(p)
    described, never, not_in_loss = [], [], []
    for mod, ps in groups.items():
        info = modules.get(mod, {})
        kind = info.get("type", "?")
        outs = sorted({via[p["name"]] for p in ps if p["name"] in via})
        if info.get("called", 1) == 0:
            why = "never called in forward"
            never.append(mod)
        elif outs:
            why = f"its output {', '.join(outs)} is not in the loss"
            not_in_loss.append(mod)
        else:
            why = "called, but its result does not reach the loss"
            not_in_loss.append(mod)
        described.append(f"{module_label(mod)} ({kind}: {why})")
    index = {p["name"]: i for i, p in enumerate(trainable)}
    names = [p["name"] for p in unused]
    commands = []
    if not_in_loss:
        commands.append("loss = loss_a + loss_b  # every output that needs training must reach the loss")
    if never:
        commands.append(f"for p in model.{never[0] or 'module'}.parameters(): p.requires_grad_(False)  "
                        "# or delete the module if it is never meant to run")
    commands.append("model = DDP(model, device_ids=[local_rank], find_unused_parameters=True)  "
                    "# only if the unused set changes between steps; costs a graph walk per step")
    fix = Fix("Make every trainable parameter reach the loss: use each output in the loss (or don't compute it "
              "in training), and freeze or delete modules that never run", tuple(commands))
    return error(
        f"{plural(len(unused), 'trainable parameter')} in {plural(len(groups), 'module')} "
        f"receive{'s' if len(unused) == 1 else ''} no gradient: {some(described, 6)}. "
        "Under DDP the next iteration fails with 'Expected to have finished reduction in the prior iteration "
        "before starting a new one'",
        fix=fix,
        evidence={"parameters": some(names, 12), "DDP parameter indices": [index[n] for n in names][:32],
                  "how it was decided": basis,
                  "unused bytes": human_bytes(sum(p.get("nbytes", 0) for p in unused))},
        related=("ddp-unused-parameters",))
