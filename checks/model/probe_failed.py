from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import ModelExample, model_rule
from torchdoctor.text import shorten

from ._common import frame

_BN1 = ("Expected more than 1 value per channel when training, got input size torch.Size([1, 64])")


@model_rule(
    code="TI210",
    name="probe-failed",
    title="One forward, the loss and one backward run to the end",
    examples=[
        ModelExample("error", {"phase": "forward", "errors": {}, "timeout": {"seconds": 5, "phase": "forward"}},
                     "a forward that never returns", contains="did not return within 5 s"),
        ModelExample("error", {"phase": "forward", "errors": {"forward": {
            "type": "ValueError", "message": _BN1, "first_line": _BN1, "kb": ["batchnorm-single-value"],
            "user_frame": {"file": "net.py", "line": 9, "code": "return self.bn(self.fc(x))"}}}},
            "batch size 1 into BatchNorm1d", contains="net.py:9"),
        ModelExample("error", {"phase": "backward", "errors": {}, "child_exit": "killed by SIGSEGV"},
                     "the process crashed", contains="SIGSEGV"),
        ModelExample("ok", {"phase": "done", "errors": {}, "backward_done": True, "loss": {"value": 0.25}}),
        ModelExample("skip", {"phase": "backward", "errors": {"backward": {
            "type": "RuntimeError", "message": "one of the variables needed for gradient computation has been modified by an inplace operation"}}},
            "TI206 explains in-place failures"),
    ],
)
def probe_failed(record):
    """
    ## What it checks
    That the model builds on the chosen device, runs one forward on the example input, produces a
    loss and runs one backward, within `--timeout`. A failure is shown with the user's line and
    the knowledge entry that explains the error.

    ## Why it matters
    Everything else in this report needs one complete step; and a step that fails or hangs here
    fails or hangs in training too, only later and more expensively.

    ## How to fix
    Follow the error's explanation (`torchdoctor explain "<message>"`); for a hang, run the step
    under `py-spy dump` or `faulthandler.dump_traceback_later` to see where it waits.
    """
    if record.get("timeout"):
        t = record["timeout"]
        return error(f"the model did not return within {t['seconds']:g} s (stopped during {t['phase']})",
                     fix=Fix("Find where it waits: dump the stacks of the hung step",
                             ("python -X faulthandler -c \"import faulthandler; faulthandler.dump_traceback_later(60); ...\"",
                              "py-spy dump --pid <pid>  # while it hangs")),
                     evidence={"phase": t["phase"], "timeout": f"{t['seconds']:g} s"})
    if record.get("child_exit"):
        return error(f"the probe process died ({record['child_exit']}) during {record.get('phase', '?')}",
                     fix=Fix("Run the step under faulthandler to see where it crashed",
                             ("python -X faulthandler train.py",)),
                     evidence={"phase": record.get("phase", "?"), "exit": record["child_exit"]})
    errors = record.get("errors", {})
    for phase in ("forward", "loss", "backward"):
        err = errors.get(phase)
        if not err:
            continue
        if phase == "backward" and "modified by an inplace operation" in (err.get("message") or ""):
            return skip("backward failed on an in-place operation: see TI206")
        where = f" at {frame(err.get('user_frame'))}" if err.get("user_frame") else ""
        related = tuple(err.get("kb") or ())
        first = err.get("first_line") or err.get("message", "")
        return error(f"{phase} failed{where}: {err.get('type')}: {shorten(first, 300)}",
                     fix=Fix("Fix the error at that line" + (f"; `torchdoctor kb show {related[0]}` explains it" if related else ""),
                             (f"torchdoctor explain \"{shorten(first, 120).rstrip('…')}\"",)),
                     evidence={"phase": phase, "error": f"{err.get('type')}: {shorten(first, 300)}"}, related=related)
    if not record.get("backward_done"):
        return skip("not checked: the step was not run to the end")
    loss = (record.get("loss") or {}).get("value")
    return ok("forward, loss and backward ran" + (f" (loss {loss:.4g})" if isinstance(loss, float) else ""))
