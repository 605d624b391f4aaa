"""The model probe: one forward, a loss, one backward, and a record of what happened as plain data
(JSON-serializable). The TI2xx rules in checks/model/ read only that record.

Two ways in:
- `probe(model, args, kwargs, loss_fn)` in this process (the Python API, `torchdoctor.check_model`);
  the model is left as it was found (mode, gradients, buffers restored).
- `run_isolated(...)` for the CLI: a child `python -m torchdoctor.runtime.model_probe` builds the
  model from the factory and probes it; the parent kills it at the timeout. The child writes its
  record after every phase, so a model that hangs in backward still reports what forward found.

Unused parameters: the autograd graph is walked from the loss (DDP's `find_unused_parameters` walks
from the outputs; starting at the loss also names outputs the loss leaves out), and after backward
the ground truth is taken: parameters with requires_grad whose `.grad` stayed None — exactly the
list DDP reports as "Parameters which did not receive grad".
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from typing import Any

RECORD_VERSION = 1


# --------------------------------------------------------------------------- helpers
def _flatten(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    """Tensors in a nested output, with a path like `[0]`, `['logits']`, `.hidden` (dataclasses)."""
    import torch

    if isinstance(obj, torch.Tensor):
        return [(path or "output", obj)]
    out: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _flatten(v, f"{path}[{k!r}]")
    elif isinstance(obj, (list, tuple)):
        fields = getattr(obj, "_fields", None)  # namedtuple
        for i, v in enumerate(obj):
            out += _flatten(v, f"{path}.{fields[i]}" if fields else f"{path}[{i}]")
    elif hasattr(obj, "__dataclass_fields__"):
        for name in obj.__dataclass_fields__:
            out += _flatten(getattr(obj, name, None), f"{path}.{name}")
    elif hasattr(obj, "to_tuple") and hasattr(obj, "keys"):  # transformers ModelOutput
        for k in obj.keys():  # noqa: SIM118 - a ModelOutput, not a dict
            out += _flatten(obj[k], f"{path}[{k!r}]")
    return out


def _finite(t: Any) -> tuple[bool, str]:
    """(all finite, "nan" / "inf" / "") for a floating tensor; integers are always finite."""
    import torch

    if not (t.is_floating_point() or t.is_complex()) or t.numel() == 0:
        return True, ""
    with torch.no_grad():
        if bool(torch.isfinite(t).all()):
            return True, ""
        return False, "nan" if bool(torch.isnan(t).any()) else "inf"


def _describe(t: Any) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."), "device": str(t.device)}


def _error(exc: BaseException, tb_stack: list | None = None) -> dict[str, Any]:
    from .model_inplace import user_frame

    message = str(exc)
    frames = traceback.extract_tb(exc.__traceback__) if tb_stack is None else tb_stack
    first = message.strip().splitlines()[0] if message.strip() else ""
    return {"type": type(exc).__name__, "message": message[:4000], "first_line": first[:500],
            "user_frame": user_frame(list(frames)), "kb": _kb_ids(f"{type(exc).__name__}: {message}")}


def _kb_ids(text: str) -> list[str]:
    """Knowledge entries that explain an error text (the matcher is pure text, no torch)."""
    try:
        from ..kb import explain

        return [m.id for m in explain(text)[:3]]
    except Exception:  # noqa: BLE001
        return []


def _module_of(param_name: str) -> str:
    return param_name.rpartition(".")[0]


def default_loss(outputs: Any) -> Any:
    """The loss over every output: the sum of the mean of each floating tensor that needs grad."""
    import torch

    terms = [t.float().mean() if not t.is_complex() else t.abs().float().mean()
             for _, t in _flatten(outputs) if t.requires_grad and (t.is_floating_point() or t.is_complex())]
    if not terms:
        return None
    return torch.stack(terms).sum()


def graph_walk(roots: list[Any]) -> tuple[set[int], set[Any]]:
    """Leaves (ids of AccumulateGrad variables) and nodes reachable from these grad_fns."""
    seen: set[Any] = set()
    leaves: set[int] = set()
    stack = [r for r in roots if r is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        var = getattr(fn, "variable", None)
        if var is not None:
            leaves.add(id(var))
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return leaves, seen


# --------------------------------------------------------------------------- the probe
class _Saved:
    """Everything the probe changes on the user's model, put back afterwards."""

    def __init__(self, model: Any) -> None:
        self.training = {m: m.training for m in model.modules()}
        self.grads = {p: p.grad for p in model.parameters()}
        self.buffers = {b: b.detach().clone() for b in model.buffers()}

    def restore(self) -> None:
        import torch

        for m, mode in self.training.items():
            m.training = mode
        for p, g in self.grads.items():
            p.grad = g
        with torch.no_grad():
            for b, v in self.buffers.items():
                try:
                    b.copy_(v)
                except Exception:  # noqa: BLE001, S110
                    pass


def probe(model: Any, args: tuple = (), kwargs: dict | None = None, loss_fn: Callable | None = None, *,
          train: bool | None = None, export: bool = True, on_phase: Callable[[dict], None] | None = None,
          record: dict | None = None) -> dict[str, Any]:
    """Probe `model(*args, **kwargs)`: forward, loss, backward, and the follow-up analyses. Returns
    the record (plain data). `train=True` puts the model in train mode for the probe (the CLI),
    None leaves its mode alone (the API). `on_phase(record)` is called before each phase."""
    import torch

    kwargs = dict(kwargs or {})
    rec: dict[str, Any] = record if record is not None else {}
    rec.update({"version": RECORD_VERSION, "torch": torch.__version__.split("+")[0],
                "model_class": type(model).__qualname__, "errors": {}, "phase": "setup"})
    phase = _phases(rec, on_phase)
    saved = _Saved(model)
    try:
        if train is not None:
            model.train(train)
        rec["training"] = bool(model.training)
        _record_layout(model, rec)
        _record_inputs(args, kwargs, rec)
        with torch.enable_grad():
            _forward_backward(model, args, kwargs, loss_fn, rec, phase)
        if export:
            phase("export")
            from .model_export import try_exports

            saved.restore()  # export sees the model as the user built it
            if train is not None:
                model.train(train)
            rec["export"] = try_exports(model, args, kwargs, lambda p: _mark(rec, on_phase, p))
        phase("done")
    finally:
        saved.restore()
    return rec


def _mark(rec: dict, on_phase: Callable | None, name: str) -> None:
    rec["phase"] = name
    if on_phase is not None:
        on_phase(rec)


def _phases(rec: dict, on_phase: Callable | None) -> Callable[[str], None]:
    return lambda name: _mark(rec, on_phase, name)


def _record_layout(model: Any, rec: dict) -> None:
    import torch

    params = []
    for name, p in model.named_parameters():
        params.append({"name": name, "module": _module_of(name), **_describe(p),
                       "requires_grad": bool(p.requires_grad), "is_leaf": bool(p.is_leaf),
                       "nbytes": p.numel() * p.element_size()})
    rec["params"] = params
    rec["buffers"] = [{"name": n, "module": _module_of(n), **_describe(b), "nbytes": b.numel() * b.element_size()}
                      for n, b in model.named_buffers()]
    # Tensors kept as plain attributes: they don't move with .to(), and a requires-grad one that is
    # not a leaf (nn.Parameter(...).half(), .cuda() on a Parameter) is invisible to optimizers.
    attrs = []
    for mname, m in model.named_modules():
        for key, value in vars(m).items():
            if key.startswith("_") or not isinstance(value, torch.Tensor):
                continue
            attrs.append({"name": f"{mname}.{key}" if mname else key, "module": mname, **_describe(value),
                          "requires_grad": bool(value.requires_grad), "is_leaf": bool(value.is_leaf),
                          "grad_fn": type(value.grad_fn).__name__ if value.grad_fn is not None else None})
    rec["attr_tensors"] = attrs
    rec["modules"] = {name or "": {"type": type(m).__name__, "called": 0,
                                   "params": sum(1 for _ in m.parameters(recurse=False))}
                      for name, m in model.named_modules()}


def _record_inputs(args: tuple, kwargs: dict, rec: dict) -> None:
    tensors = _flatten(args, "args") + _flatten(kwargs, "kwargs")
    described = []
    nonfinite = []
    for path, t in tensors:
        ok, kind = _finite(t)
        described.append({"path": path, **_describe(t)})
        if not ok:
            nonfinite.append({"path": path, "kind": kind})
    rec["inputs"] = described
    rec["input_nonfinite"] = nonfinite
    rec["batch_size"] = described[0]["shape"][0] if described and described[0]["shape"] else None


def _forward_backward(model: Any, args: tuple, kwargs: dict, loss_fn: Callable | None, rec: dict,
                      phase: Callable[[str], None]) -> None:
    import torch

    names = {m: (n or "") for n, m in model.named_modules()}
    bn_types = (torch.nn.modules.batchnorm._BatchNorm,)
    bn: dict[str, dict[str, Any]] = {}
    first_bad: dict[str, Any] = {}
    order: list[str] = []

    def pre_hook(mod, inputs):
        name = names.get(mod, "?")
        rec["modules"][name]["called"] += 1

    def post_hook(mod, inputs, output):
        name = names.get(mod, "?")
        order.append(name)
        if isinstance(mod, bn_types) and inputs and isinstance(inputs[0], torch.Tensor):
            shape = list(inputs[0].shape)
            per_sample = 1
            for d in shape[2:]:
                per_sample *= d
            bn.setdefault(name, {"name": name, "type": type(mod).__name__, "training": bool(mod.training),
                                 "input_shape": shape, "values_per_channel_per_sample": per_sample,
                                 "track_running_stats": bool(mod.track_running_stats)})
        if not first_bad:
            for path, t in _flatten(output, "output"):
                ok, kind = _finite(t)
                if not ok:
                    inputs_ok = all(_finite(x)[0] for _, x in _flatten(inputs, "input"))
                    if inputs_ok:
                        first_bad.update({"module": name, "type": type(mod).__name__, "kind": kind,
                                          "output": path, "shape": list(t.shape)})
                    break

    handles = []
    for m in model.modules():
        handles.append(m.register_forward_pre_hook(pre_hook))
        handles.append(m.register_forward_hook(post_hook))
    for p in model.parameters():
        p.grad = None
    phase("forward")
    try:
        try:
            outputs = model(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            rec["errors"]["forward"] = _error(exc)
            rec["batchnorm"] = list(bn.values())
            return
    finally:
        for h in handles:
            h.remove()
    rec["batchnorm"] = list(bn.values())
    rec["forward_nonfinite"] = dict(first_bad) or None
    flat = _flatten(outputs)
    outs = []
    for path, t in flat:
        ok, kind = _finite(t)
        outs.append({"path": path, **_describe(t), "requires_grad": bool(t.requires_grad), "finite": ok,
                     "nonfinite": kind})
    rec["outputs"] = outs

    phase("loss")
    try:
        loss = loss_fn(outputs) if loss_fn is not None else default_loss(outputs)
    except Exception as exc:  # noqa: BLE001
        rec["errors"]["loss"] = _error(exc)
        return
    rec["loss"] = {"source": "user" if loss_fn is not None else "default"}
    if loss is None:
        rec["errors"]["loss"] = {"type": "NoGradOutput", "message": "no output is a floating tensor that requires grad",
                                 "first_line": "no output is a floating tensor that requires grad",
                                 "user_frame": None, "kb": ["no-grad-fn"]}
        return
    if not isinstance(loss, torch.Tensor):
        rec["errors"]["loss"] = {"type": "TypeError", "message": f"the loss function returned {type(loss).__name__}, not a tensor",
                                 "first_line": f"the loss function returned {type(loss).__name__}, not a tensor",
                                 "user_frame": None, "kb": []}
        return
    if loss.numel() != 1:
        rec["loss"]["reduced_from"] = list(loss.shape)
        loss = loss.sum()
    rec["loss"].update({"value": float(loss.detach().float()) if loss.numel() == 1 else None,
                        "finite": _finite(loss)[0], "requires_grad": bool(loss.requires_grad)})

    # Walk the graph from the loss (before backward frees it).
    params = dict(model.named_parameters())
    reached, seen = graph_walk([loss.grad_fn])
    for entry in rec["params"]:
        entry["reached"] = id(params[entry["name"]]) in reached
    pid = {id(p): n for n, p in params.items()}
    for out, (path, t) in zip(outs, flat):
        if not t.requires_grad:
            out["in_loss"] = None
            continue
        if t.grad_fn is None:
            out["in_loss"] = id(t) in reached
            continue
        out["in_loss"] = t.grad_fn in seen
        if not out["in_loss"]:
            own, _ = graph_walk([t.grad_fn])
            out["params"] = sorted(pid[i] for i in own if i in pid)
            out["params_only_here"] = sorted(pid[i] for i in own - reached if i in pid)

    phase("backward")
    try:
        if loss.requires_grad:
            loss.backward()
        else:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    except Exception as exc:  # noqa: BLE001
        rec["errors"]["backward"] = _error(exc)
        if "modified by an inplace operation" in str(exc):
            phase("inplace")
            from .model_inplace import find_inplace

            rec["inplace"] = find_inplace(lambda: _loss_of(model, args, kwargs, loss_fn))
        return
    rec["backward_done"] = True
    bad_grads = []
    for entry in rec["params"]:
        p = params[entry["name"]]
        if p.grad is None:
            entry["grad"] = "none"
            continue
        ok, kind = _finite(p.grad)
        entry["grad"] = "ok" if ok else kind
        entry["grad_dtype"] = str(p.grad.dtype).removeprefix("torch.")
        entry["grad_nbytes"] = p.grad.numel() * p.grad.element_size()
        if not ok:
            bad_grads.append(entry["name"])
    if bad_grads and rec["loss"].get("finite", True) and not rec.get("forward_nonfinite"):
        phase("nonfinite-grad")
        rec["backward_nonfinite"] = _first_nonfinite_backward(model, args, kwargs, loss_fn)


def _loss_of(model: Any, args: tuple, kwargs: dict, loss_fn: Callable | None) -> Any:
    import torch

    with torch.enable_grad():
        out = model(*args, **kwargs)
        loss = loss_fn(out) if loss_fn is not None else default_loss(out)
        if loss is not None and loss.numel() != 1:
            loss = loss.sum()
        return loss


def _first_nonfinite_backward(model: Any, args: tuple, kwargs: dict, loss_fn: Callable | None) -> dict | None:
    """Rerun with forward stacks recorded (anomaly mode, without its NaN check, which misses Inf)
    and a hook on every autograd node: the first node to emit a non-finite gradient from finite
    incoming gradients is where it started; its forward stack names the user's line."""
    import torch

    from .model_inplace import user_frame

    for p in model.parameters():
        p.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            loss = _loss_of(model, args, kwargs, loss_fn)
            if loss is None or loss.grad_fn is None:
                return None
            _, nodes = graph_walk([loss.grad_fn])
            found: list[dict[str, Any]] = []

            def make(node):
                def hook(grad_inputs, grad_outputs):
                    if found:
                        return
                    incoming_ok = all(_finite(g)[0] for g in grad_outputs if g is not None)
                    bad = [(_finite(g)[1]) for g in grad_inputs if g is not None and not _finite(g)[0]]
                    if incoming_ok and bad:
                        stack = node.metadata.get("traceback_", []) if hasattr(node, "metadata") else []
                        found.append({"op": node.name(), "kind": bad[0], "forward_frame": _frame_from_text(stack, user_frame)})
                    return
                return hook

            handles = [n.register_hook(make(n)) for n in nodes if not hasattr(n, "variable")]
            try:
                loss.backward()
            except Exception:  # noqa: BLE001, S110
                pass
            finally:
                for h in handles:
                    h.remove()
    for p in model.parameters():
        p.grad = None
    return found[0] if found else None


def _frame_from_text(stack: list[str], user_frame: Callable) -> dict | None:
    """Anomaly mode keeps forward stacks as formatted lines; pick the innermost user frame."""
    import re

    frames = []
    joined = "".join(stack)
    for m in re.finditer(r'File "([^"]+)", line (\d+), in (\S+)\n(?:\s+(.+)\n)?', joined):
        frames.append(traceback.FrameSummary(m.group(1), int(m.group(2)), m.group(3), line=(m.group(4) or "").strip()))
    return user_frame(frames) if frames else None


# --------------------------------------------------------------------------- the child process
def _write_atomic(path: str, rec: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(rec, fh, default=str)
    os.replace(tmp, path)


def child_main(argv: list[str]) -> int:
    """`python -m torchdoctor.runtime.model_probe REQUEST.json RECORD.json`."""
    with open(argv[0], encoding="utf-8") as fh:
        req = json.load(fh)
    out = argv[1]
    rec: dict[str, Any] = {"phase": "import torch", "errors": {}}
    write = lambda r: _write_atomic(out, r)
    write(rec)
    warnings.filterwarnings("ignore", message=".*Failed to initialize NumPy.*")
    from .model_spec import (
        LoadError,
        _one_line,
        load_callable,
        materialize,
        split_inputs,
    )

    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        rec["usage_error"] = f"cannot import torch: {_one_line(exc)}"
        write(rec)
        return 0
    rec["phase"] = "import factory"
    write(rec)
    try:
        factory = load_callable(req["factory"], "factory")
        loss_fn = load_callable(req["loss"], "--loss") if req.get("loss") else None
    except LoadError as exc:
        rec["usage_error"] = str(exc)
        write(rec)
        return 0
    rec["phase"] = "build"
    write(rec)
    try:
        model = factory()
    except Exception as exc:  # noqa: BLE001
        rec["usage_error"] = f"factory {req['factory']!r} raised {_one_line(exc)}"
        write(rec)
        return 0
    if not isinstance(model, torch.nn.Module):
        rec["usage_error"] = f"factory {req['factory']!r} returned a {type(model).__name__}, not a torch.nn.Module"
        write(rec)
        return 0
    device = req.get("device")
    try:
        if device:
            model = model.to(device)
        value = materialize(req["input"], device or "cpu")
    except Exception as exc:  # noqa: BLE001
        rec["usage_error"] = f"cannot place the model or the input on {device or 'cpu'}: {_one_line(exc)}"
        write(rec)
        return 0
    args, kwargs = split_inputs(value)
    start = time.monotonic()
    try:
        probe(model, args, kwargs, loss_fn, train=True, export=req.get("export", True), on_phase=write, record=rec)
    except SystemExit as exc:  # the model's code ended the process: no result, a failed probe
        rec["child_exit"] = f"the model's code called sys.exit({exc.code!r})"
        write(rec)
        return 0
    except Exception as exc:  # noqa: BLE001 - the probe's own step failed on this model: a finding, not a traceback
        rec["child_exit"] = f"the probe could not go on: {_one_line(exc)}"
        write(rec)
        return 0
    rec["seconds"] = round(time.monotonic() - start, 3)
    rec["finished"] = True  # without it, the process ended early (os._exit in forward, say)
    write(rec)
    return 0


def run_isolated(factory: str, input_spec: Any, *, loss: str | None = None, device: str | None = None,
                 timeout: float = 120.0, export: bool = True, python: str | None = None) -> dict[str, Any]:
    """Run the probe in a child process with a timeout. Returns the record; on a timeout the record
    carries {"timeout": {"seconds", "phase"}} with what the child had written so far."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="torchdoctor-model-") as tmp:
        req_path = os.path.join(tmp, "request.json")
        out_path = os.path.join(tmp, "record.json")
        with open(req_path, "w", encoding="utf-8") as fh:
            json.dump({"factory": factory, "input": input_spec, "loss": loss, "device": device, "export": export}, fh)
        env = dict(os.environ)
        cwd = os.getcwd()
        env["PYTHONPATH"] = cwd + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [python or sys.executable, "-m", "torchdoctor.runtime.model_probe", req_path, out_path]
        # The child's own prints go to our stderr: stdout stays the report (json stays parseable).
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno() if _has_fileno() else None,
                                env=env, cwd=cwd, start_new_session=True)
        timed_out = False
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
            code = None
        rec: dict[str, Any] = {}
        try:
            with open(out_path, encoding="utf-8") as fh:
                rec = json.load(fh)
        except (OSError, ValueError):
            rec = {"phase": "start", "errors": {}}
        if timed_out:
            rec["timeout"] = {"seconds": timeout, "phase": rec.get("phase", "start")}
        elif code != 0:
            rec["child_exit"] = _describe_exit(code)
        elif not rec.get("finished") and not rec.get("usage_error") and not rec.get("child_exit"):
            rec["child_exit"] = f"{_describe_exit(code)} before the probe finished (os._exit() in the model's code?)"
        rec.pop("finished", None)
        return rec


def _has_fileno() -> bool:
    try:
        sys.stderr.fileno()
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _kill(proc: Any) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        proc.kill()
    try:
        proc.wait(timeout=10)
    except Exception:  # noqa: BLE001, S110
        pass


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "unknown"
    if code < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))


# --------------------------------------------------------------------------- the Python API
def check_model(model: Any, example_inputs: Any, loss_fn: Callable | None = None, *,
                dataset_size: int | None = None, world_size: int = 1, drop_last: bool = False,
                export: bool = True, include_ok: bool = False) -> list:
    """See `torchdoctor.check_model`."""
    from ..model import Status
    from .model_report import run_model_rules
    from .model_spec import split_inputs

    args, kwargs = split_inputs(example_inputs)
    rec = probe(model, args, kwargs, loss_fn, train=None, export=export)
    if dataset_size is not None:
        rec["dataset"] = {"size": dataset_size, "world_size": world_size, "drop_last": drop_last}
    findings = run_model_rules(rec)
    if include_ok:
        return findings
    return [f for f in findings if f.status in (Status.WARNING, Status.ERROR, Status.CRASH)]
