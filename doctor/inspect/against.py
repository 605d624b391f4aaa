"""`--against`: compare a checkpoint's state dict with another checkpoint's, or with a model built by
`pkg.module:factory` (that one imports torch and runs the factory: the user's own code, not the file's).

The comparison says what `load_state_dict(strict=True)` would report (missing keys, unexpected keys,
shape mismatches) and why: a wrapper prefix, a different nesting level, a renamed module, or another
architecture altogether."""

from __future__ import annotations

import os
from typing import Any

from .report import InspectReport, StateDict

Shapes = dict[str, list[int]]


def reference_shapes(spec: str) -> tuple[Shapes, str]:
    """The reference state dict: from a checkpoint file (read symbolically) or a `module:factory`."""
    if os.path.exists(spec) or ":" not in spec or spec.endswith((".pt", ".pth", ".bin", ".ckpt", ".safetensors")):
        from .reader import inspect_path

        other = inspect_path(spec)
        if not other.readable:
            raise ValueError(f"{spec}: cannot be read ({(other.problem or {}).get('detail', 'unreadable')})")
        if not other.state_dicts:
            raise ValueError(f"{spec}: holds no state dict (no dict of tensors)")
        best = max(other.state_dicts, key=lambda s: len(s.keys))
        return dict(best.shapes), f"{spec}" + (f"['{best.path}']" if best.path else "")
    return _factory_shapes(spec), spec


def _factory_shapes(spec: str) -> Shapes:
    from ..runtime.model_spec import load_callable  # the loader `torchdoctor model` uses (LoadError is a ValueError)

    obj = load_callable(spec, "--against")
    # A class or factory function is called; a module instance (callable too) is used as it is.
    model = obj() if isinstance(obj, type) or not hasattr(obj, "state_dict") else obj
    if not hasattr(model, "state_dict"):
        raise ValueError(f"--against {spec!r}: it did not give an nn.Module (got {type(model).__name__})")
    return {k: list(v.shape) for k, v in model.state_dict().items()}


def _matches(ck: Shapes, ref: Shapes) -> int:
    return len(set(ck) & set(ref))


def _strip(keys: Shapes, prefix: str) -> Shapes:
    return {(k.removeprefix(prefix)): v for k, v in keys.items()}


def _common_prefix(keys: list[str]) -> str | None:
    """The first dotted component every key shares ('module.'), if any."""
    if not keys or any("." not in k for k in keys):
        return None
    first = {k.split(".", 1)[0] for k in keys}
    return f"{first.pop()}." if len(first) == 1 else None


def compare(report: InspectReport, ref: Shapes, ref_name: str) -> dict[str, Any]:
    """Pick the checkpoint's state dict that fits the reference best and explain the differences."""
    explanations: list[dict[str, str]] = []
    candidates: list[StateDict] = report.state_dicts or [StateDict("", [], {})]

    def score(sd: StateDict) -> int:
        shapes = dict(sd.shapes)
        p = _common_prefix(list(shapes))
        best = _matches(shapes, ref)
        if p:
            best = max(best, _matches(_strip(shapes, p), ref))
        return best

    chosen = max(candidates, key=lambda s: (score(s), len(s.keys)))
    ck = dict(chosen.shapes)
    if chosen.path:
        access = "".join(f"[{p!r}]" for p in chosen.path.split("."))
        explanations.append({"kind": "nesting",
                             "detail": f"the weights are nested at ckpt{access}, not at the top level of the file",
                             "fix": f"model.load_state_dict(ckpt{access})"})
    missing = sorted(set(ref) - set(ck))
    unexpected = sorted(set(ck) - set(ref))
    if missing and unexpected:
        p_ck, p_ref = _common_prefix(list(ck)), _common_prefix(list(ref))
        if p_ck and _matches(_strip(ck, p_ck), ref) > _matches(ck, ref):
            explanations.append({"kind": "prefix",
                                 "detail": f"every checkpoint key starts with {p_ck!r}; the model's keys do not",
                                 "fix": f'torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "{p_ck}")'})
        elif p_ref and _matches(ck, _strip(ref, p_ref)) > _matches(ck, ref):
            explanations.append({"kind": "prefix",
                                 "detail": f"every model key starts with {p_ref!r} (a wrapped model); the checkpoint's do not",
                                 "fix": "load into the bare model: model.module.load_state_dict(sd)"})
    # Renamed modules: a missing and an unexpected key with the same tail and shape.
    renames: dict[tuple[str, str], int] = {}
    by_tail: dict[tuple[str, tuple], list[str]] = {}
    for k in unexpected:
        head, _, tail = k.partition(".")
        by_tail.setdefault((tail, tuple(ck[k])), []).append(head)
    for k in missing:
        head, _, tail = k.partition(".")
        for old in by_tail.get((tail, tuple(ref[k])), []):
            if old != head:
                renames[(old, head)] = renames.get((old, head), 0) + 1
    used_old: set[str] = set()
    used_new: set[str] = set()
    for (old, new), n in sorted(renames.items(), key=lambda x: (-x[1], x[0])):
        # Greedy one-to-one: each checkpoint module maps to one model module, best evidence first.
        if old in used_old or new in used_new or len(used_old) >= 5:
            continue
        used_old.add(old)
        used_new.add(new)
        if not any(e["kind"] == "prefix" for e in explanations):
            explanations.append({"kind": "renamed",
                                 "detail": f"module {old!r} in the checkpoint looks renamed to {new!r} in the model "
                                           f"({n} keys with the same tail and shape)",
                                 "fix": f'sd = {{("{new}." + k[len("{old}."):] if k.startswith("{old}.") else k): v '
                                        f'for k, v in sd.items()}}'})
    mismatched = [{"key": k, "checkpoint": ck[k], "model": ref[k]} for k in sorted(set(ck) & set(ref)) if ck[k] != ref[k]]
    matched = len(set(ck) & set(ref)) - len(mismatched)
    best = max(score(chosen), matched)
    if ref and best < 0.5 * len(ref) and not any(e["kind"] in ("prefix", "renamed") for e in explanations):
        explanations.append({"kind": "architecture",
                             "detail": f"only {best} of the model's {len(ref)} keys exist in the checkpoint: "
                                       "it was saved from another architecture or configuration",
                             "fix": "build the model with the configuration the checkpoint was trained with"})
    if mismatched:
        explanations.append({"kind": "shape",
                             "detail": f"{len(mismatched)} tensor(s) differ in shape, e.g. {mismatched[0]['key']}: "
                                       f"checkpoint {mismatched[0]['checkpoint']} vs model {mismatched[0]['model']} "
                                       "(another number of classes, vocabulary or width)",
                             "fix": "drop those keys and load with strict=False to fine-tune: "
                                    "sd = {k: v for k, v in sd.items() if k not in MISMATCHED}"})
    return {"reference": ref_name, "state_dict": chosen.path, "checkpoint_keys": len(ck), "reference_keys": len(ref),
            "matched": matched, "missing": missing, "unexpected": unexpected, "shape_mismatch": mismatched,
            "explanations": explanations}
