from torchdoctor.model import Fix, ok, skip, warning
from torchdoctor.registry import ModelExample, model_rule
from torchdoctor.text import shorten

from ._common import frame

LABELS = {"jit_trace": "torch.jit.trace", "jit_script": "torch.jit.script", "torch_export": "torch.export",
          "onnx": "ONNX"}
_OK = {"status": "ok"}
_SKIP_ONNX = {"status": "skipped", "error": "the onnx package is not installed"}
_SCRIPT_FAIL = {"status": "failed", "type": "NotSupportedError", "kb": [],
                "error": "Compiled functions can't take variable number of arguments or use keyword-only arguments with defaults:"}


@model_rule(
    code="TI209",
    name="not-exportable",
    title="The model traces and exports (jit.trace, torch.export, ONNX)",
    examples=[
        ModelExample("warning", {"export": {"wrapper": "DataParallel", "signature": {"known": True, "keyword_only": [],
                                                                                     "var_positional": "inputs", "var_keyword": "kwargs"},
                                            "jit_trace": _OK, "jit_script": _SCRIPT_FAIL,
                                            "torch_export": {"status": "failed", "type": "UserError", "kb": [],
                                                             "error": "torch.export cannot export DataParallel"},
                                            "onnx": _SKIP_ONNX}},
                     "a DataParallel wrapper", contains="model.module"),
        ModelExample("warning", {"export": {"wrapper": None, "signature": {"known": True, "keyword_only": ["mask"],
                                                                           "var_positional": None, "var_keyword": None},
                                            "jit_trace": _OK, "jit_script": _SCRIPT_FAIL,
                                            "torch_export": {"status": "failed", "type": "TypeError", "kb": [],
                                                             "error": "forward() missing 1 required keyword-only argument: 'mask'"},
                                            "onnx": _SKIP_ONNX}},
                     "a keyword-only forward argument", contains="keyword-only"),
        ModelExample("ok", {"export": {"wrapper": None, "signature": {"known": True, "keyword_only": []},
                                       "jit_trace": _OK, "jit_script": {**_SCRIPT_FAIL, "error": "Python builtin <built-in function id> is currently not supported in Torchscript"},
                                       "torch_export": _OK, "onnx": _SKIP_ONNX}},
                     "only TorchScript (deprecated) fails: not worth a warning", contains="ONNX skipped"),
        ModelExample("skip", {}),
    ],
)
def not_exportable(record):
    """
    ## What it checks
    Whether the model, in eval mode with the example input, goes through `torch.jit.trace`,
    `torch.jit.script`, `torch.export.export` and (when the `onnx` package is installed)
    `torch.onnx.export`; each failure is shown with its first line and the knowledge entry that
    explains it.

    ## Why it matters
    Finding out at deployment time that the model only runs in eager mode costs a refactor under
    pressure. The usual causes are a DataParallel/DDP wrapper (export `model.module`),
    keyword-only or variadic `forward` arguments, and data-dependent Python control flow.

    ## How to fix
    Export the unwrapped module; give `forward` explicit positional parameters; replace
    data-dependent `if` on tensor values with `torch.where` or `torch.cond`. TorchScript alone
    failing is reported but not flagged: it is deprecated in favour of torch.export.
    """
    exp = record.get("export")
    if not exp:
        return skip("not checked: export was not attempted")
    parts, failed, related = [], [], []
    for key, label in LABELS.items():
        r = exp.get(key)
        if not r:
            continue
        if r["status"] == "ok":
            parts.append(f"{label} ok")
        elif r["status"] == "skipped":
            parts.append(f"{label} skipped: {r.get('error', '')}")
        else:
            parts.append(f"{label} failed")
            failed.append((key, label, r))
            related += [k for k in r.get("kb", []) if k not in related]
    sig = exp.get("signature") or {}
    hints, commands = [], []
    if exp.get("wrapper"):
        hints.append(f"the model is wrapped in {exp['wrapper']}, whose forward(*inputs, **kwargs) cannot be "
                     "compiled: export model.module")
        commands.append("torch.export.export(model.module.eval(), (x,))")
        related.insert(0, "jit-script-dataparallel")
    elif sig.get("keyword_only") or sig.get("var_positional") or sig.get("var_keyword"):
        what = [f"keyword-only {', '.join(sig['keyword_only'])}"] if sig.get("keyword_only") else []
        what += [f"*{sig['var_positional']}"] if sig.get("var_positional") else []
        what += [f"**{sig['var_keyword']}"] if sig.get("var_keyword") else []
        hints.append(f"forward takes {' and '.join(what)}: TorchScript refuses keyword-only and variadic arguments, "
                     "and export needs every input in example_inputs/kwargs")
        commands.append("def forward(self, x, mask=None):  # positional-or-keyword, not after *")
    blocking = [f for f in failed if f[0] != "jit_script"]
    evidence = {label: (shorten(f"{r['type']}: {r['error']}", 300) + (f" at {frame(r['user_frame'])}" if r.get("user_frame") else ""))
                for _, label, r in failed}
    summary = "; ".join(parts)
    if exp.get("wrapper") and not blocking:
        return warning(f"{summary}; {hints[0]}" + " (on CPU the wrapper passes through, on GPUs it does not)",
                       fix=Fix("Export the wrapped network, not the wrapper", tuple(commands)),
                       evidence=evidence, related=tuple(dict.fromkeys(related)))
    if not blocking:
        return ok(summary + (" (TorchScript is deprecated; torch.export is what matters)" if failed else ""), **evidence)
    related = [r for r in related if r]
    return warning(f"{summary}" + (f"; {hints[0]}" if hints else ""),
                   fix=Fix("Export the unwrapped module with explicit positional inputs, and replace data-dependent "
                           "Python control flow (torch.where / torch.cond)",
                           tuple(commands) or ("exported = torch.export.export(model.eval(), (x,))  # read the first error above",)),
                   evidence=evidence, related=tuple(dict.fromkeys(related)))
