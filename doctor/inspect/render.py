"""The terminal report of `torchdoctor inspect`: what the file is, its structure, then the findings
(printed the way `env` prints them). A pure function of the report and findings."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..model import Finding, Status
from ..render.human import _finding
from ..render.summary import closing_line
from ..text import plural
from .report import InspectReport, human_bytes

FORMAT_NAMES = {
    "zip": "torch.save zip", "legacy": "legacy torch.save stream", "safetensors": "safetensors",
    "torchscript": "TorchScript archive", "raw-pickle": "plain pickle", "tar": "torch 0.1 tar",
    "lfs-pointer": "Git LFS pointer", "html": "HTML page", "empty": "empty file", "npy": "numpy .npy",
    "unknown": "unknown data",
}


def render_text(report: InspectReport, findings: list[Finding], console: Console, *, verbose: bool = False,
                tree: bool = False, tensors: bool = False) -> None:
    head = Text("torchdoctor inspect", style="bold")
    head.append(f" · {report.path} ({human_bytes(report.file_size)}, {FORMAT_NAMES.get(report.format, report.format)}")
    if report.min_torch and report.readable:
        head.append(f"; readable by torch >= {report.min_torch}")
    head.append(")")
    console.print(head, soft_wrap=True)
    if report.readable:
        _structure(report, console)
    if tree and report.tree is not None:
        console.print()
        console.print(Text("Tree", style="bold underline"))
        _tree(report.tree, console, 1)
    if tensors and report.stats is not None:
        _stats(report, console, verbose)
    console.print()
    console.print(Text("Findings", style="bold underline"))
    shown = [f for f in findings if verbose or f.status.rank >= Status.WARNING.rank]
    for f in shown:
        _finding(f, console, verbose)
    if not shown:
        console.print(Text("  no problems found", style="green"))
    console.print()
    last = closing_line(findings)
    worst = max((f.status.rank for f in findings), default=0)
    style = "bold red" if worst >= Status.ERROR.rank else ("bold yellow" if worst >= Status.WARNING.rank else "bold green")
    console.print(Text(last, style=style))


def _structure(report: InspectReport, console: Console) -> None:
    line = Text("  structure: ", style="dim")
    kind = report.root_type or "?"
    line.append(kind + (f" with {plural(len(report.top_keys), 'key')}" if kind == "dict" and report.top_keys else ""))
    console.print(line, soft_wrap=True)
    for entry in report.top_keys[:20]:
        row = Text(f"    {entry['key']:<24} ", style="cyan")
        if entry["kind"] == "tensor":
            row.append(f"tensor {entry.get('dtype', '')}{entry.get('shape', '')}")
        elif "tensors" in entry:
            what = "state dict" if any(sd.path == entry["key"] for sd in report.state_dicts) else entry["kind"]
            row.append(f"{what}: {plural(entry['tensors'], 'tensor')}, {human_bytes(entry.get('bytes', 0))}"
                       + (f", {plural(entry['length'], 'entry')}" if "length" in entry and what != "state dict" else ""))
        else:
            row.append(f"{entry.get('value')!r}" if isinstance(entry.get("value"), str) else str(entry.get("value")))
        console.print(row, soft_wrap=True)
    if len(report.top_keys) > 20:
        console.print(Text(f"    ... {len(report.top_keys) - 20} more keys", style="dim"))
    if report.tensors:
        dtypes = ", ".join(f"{d}×{n}" for d, n in sorted(report.dtype_counts().items(), key=lambda x: -x[1]))
        locs = ", ".join(f"{loc} ({human_bytes(b)})" for loc, b in sorted(report.bytes_by_location().items()))
        console.print(Text(f"  tensors: {report.tensor_count} ({human_bytes(report.total_bytes)}) · {dtypes} · saved on {locs}"),
                      soft_wrap=True)
        largest = sorted(report.tensors, key=lambda t: -t.nbytes)[:3]
        console.print(Text("  largest: " + "; ".join(f"{t.name} {t.dtype}{t.shape} {human_bytes(t.nbytes)}" for t in largest)),
                      soft_wrap=True)
    for sd in report.state_dicts[:3]:
        pre = ", ".join(f"{p!r}×{n}" for p, n in sd.prefixes.items())
        where = f"ckpt['{sd.path}']" if sd.path else "the file"
        console.print(Text(f"  state dict at {where}: {plural(len(sd.keys), 'key')}" + (f", prefixes {pre}" if pre else "")),
                      soft_wrap=True)
    if report.globals:
        console.print(Text(f"  globals: {len(report.globals)} · pickle protocol {report.pickle_protocol}"), soft_wrap=True)


def _tree(node: Any, console: Console, depth: int) -> None:
    pad = "  " * depth
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (dict, list)) and v:
                console.print(Text(f"{pad}{k}", style="cyan"), soft_wrap=True)
                _tree(v, console, depth + 1)
            else:
                row = Text(f"{pad}{k}: ", style="cyan")
                row.append(str(v))
                console.print(row, soft_wrap=True)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, (dict, list)) and v:
                console.print(Text(f"{pad}[{i}]", style="cyan"), soft_wrap=True)
                _tree(v, console, depth + 1)
            else:
                row = Text(f"{pad}[{i}]: ", style="cyan")
                row.append(str(v))
                console.print(row, soft_wrap=True)
    else:
        console.print(Text(f"{pad}{node}"), soft_wrap=True)


def _stats(report: InspectReport, console: Console, verbose: bool) -> None:
    console.print()
    console.print(Text("Tensor values", style="bold underline"))
    items = list((report.stats or {}).items())
    limit = len(items) if verbose else 40
    for name, s in items[:limit]:
        if "skipped" in s or "error" in s:
            console.print(Text(f"  {name}: {s.get('skipped') or s.get('error')}", style="dim"), soft_wrap=True)
            continue
        bad = s.get("nan") or s.get("inf")
        row = Text(f"  {name}: ", style="cyan")
        row.append(f"nan={s.get('nan', 0)} inf={s.get('inf', 0)}", style="bold red" if bad else "")
        if "min" in s:
            row.append(f" min={s['min']} max={s['max']} mean={s['mean']}")
        console.print(row, soft_wrap=True)
    if len(items) > limit:
        console.print(Text(f"  ... {len(items) - limit} more (-v shows all)", style="dim"))
