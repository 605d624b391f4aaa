import re

from torchdoctor.model import Fix, error, ok, skip
from torchdoctor.registry import ModelExample, model_rule
from torchdoctor.text import shorten

from ._common import frame

_MSG = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.FloatTensor [4, 8]], which is output 0 of SigmoidBackward0, is at version 1; expected version 0 instead.")
_FOUND = {"op": "mul_", "aten": "aten.mul_.Tensor",
          "culprit": {"file": "models.py", "line": 29, "code": "y.mul_(2)", "function": "forward"},
          "saved_by": {"file": "models.py", "line": 28, "code": "y = torch.sigmoid(x)", "function": "forward"}}


def out_of_place(code: str) -> str | None:
    """`y.mul_(2)` -> `y = y.mul(2)`; `x += 1` -> `x = x + 1`; None when there is no obvious rewrite."""
    code = code.split("  #")[0].strip()
    m = re.match(r"^\s*([A-Za-z_][\w.\[\]]*)\.([a-z_]+?)_\((.*)\)\s*$", code)
    if m:
        return f"{m.group(1)} = {m.group(1)}.{m.group(2)}({m.group(3)})"
    m = re.match(r"^\s*([A-Za-z_][\w.\[\]]*)\s*([+\-*/])=\s*(.+)$", code)
    if m:
        return f"{m.group(1)} = {m.group(1)} {m.group(2)} {m.group(3)}"
    return None


@model_rule(
    code="TI206",
    name="inplace-breaks-autograd",
    title="No in-place operation overwrites a tensor saved for backward",
    examples=[
        ModelExample("error", {"errors": {"backward": {"type": "RuntimeError", "message": _MSG, "first_line": _MSG}},
                               "inplace": _FOUND},
                     "y.mul_(2) after y = torch.sigmoid(x)", contains="models.py:29 `y.mul_(2)`"),
        ModelExample("error", {"errors": {"backward": {"type": "RuntimeError", "message": _MSG, "first_line": _MSG}},
                               "inplace": None},
                     "the finder did not see the write (e.g. inside a custom autograd.Function)", contains="inplace"),
        ModelExample("ok", {"errors": {}, "backward_done": True}),
        ModelExample("skip", {"errors": {"backward": {"type": "RuntimeError", "message": "element 0 of tensors does not require grad"}}},
                     "backward failed for another reason (TI210 reports it)"),
    ],
)
def inplace_breaks_autograd(record):
    """
    ## What it checks
    When backward fails with "one of the variables needed for gradient computation has been
    modified by an inplace operation", forward is run again under an in-place finder: autograd's
    saved-tensor hooks record which storages backward needs (and the line that saved them), and a
    dispatch mode reports the first in-place aten op that writes to one of them, with your line.

    ## Why it matters
    PyTorch's message names the op that *saved* the tensor ("output 0 of SigmoidBackward0"), and
    anomaly mode points at that line too, not at the `x.mul_()`, `x += ...` or
    `nn.ReLU(inplace=True)` that overwrote it later.

    ## How to fix
    Make the named line out of place (`y = y.mul(2)`, `x = x + 1`), or set `inplace=False` on the
    activation module it calls; or `.clone()` the tensor before modifying it.
    """
    err = record.get("errors", {}).get("backward")
    if err is None:
        return ok("backward ran; no in-place conflict") if record.get("backward_done") else skip("not checked: backward did not run")
    if "modified by an inplace operation" not in (err.get("message") or ""):
        return skip("not checked: backward failed for another reason")
    found = record.get("inplace")
    if not found:
        return error(f"backward failed: {shorten(err.get('first_line', ''), 300)}; the in-place write was not seen by the finder "
                     "(it may happen inside a custom autograd.Function or C++ extension)",
                     fix=Fix("Look for x.op_(...), x += ..., x[idx] = ... and inplace=True modules after the tensor is used",
                             ("with torch.autograd.detect_anomaly(): loss.backward()  # names the op that saved it",)),
                     evidence={"error": err.get("first_line", "")}, related=("inplace-modified-for-grad",))
    culprit = found.get("culprit") or {}
    rewrite = out_of_place(culprit.get("code", ""))
    commands = (f"{rewrite}  # out of place, at {culprit.get('file')}:{culprit.get('line')}",) if rewrite else ()
    commands += ("nn.ReLU(inplace=False)  # if the line calls an activation module built with inplace=True",)
    return error(f"in-place {found.get('aten') or found.get('op')} at {frame(culprit)} modifies a tensor saved for backward "
                 f"by {frame(found.get('saved_by'))}; backward then fails with 'modified by an inplace operation'",
                 fix=Fix("Do that operation out of place (or clone the tensor first)", commands),
                 evidence={"in-place op": found.get("aten") or found.get("op"), "line that modified it": frame(culprit),
                           "line that saved it": frame(found.get("saved_by")), "error": shorten(err.get("first_line", ""), 300)},
                 related=("inplace-modified-for-grad",))
