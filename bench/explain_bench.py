"""`torchdoctor explain` speed, side by side with the floor of any typer + rich CLI.

1. Cold start: median wall time of `torchdoctor explain "<one traceback>"` against
   `python -c "import typer, rich.console"`; target ratio <= 1.5.
2. Throughput: a generated 100 MB training log (progress lines, warnings, a DataLoader worker
   re-raise in the middle, a torchrun failure at the end) through `torchdoctor explain --file`;
   target >= 50 MB/s, with the child's peak memory printed (it streams: memory stays flat).

Both sides of the cold-start ratio run with their bytecode cached, as `pip install` leaves every
package: typer and rich have theirs in site-packages, so torchdoctor's own sources are compiled
first (`compileall`, into their `__pycache__`) when the checkout has none or a stale one, e.g. an editable install
run under PYTHONDONTWRITEBYTECODE=1. The ratio as found, before compiling, is printed beside it.

Usage: python bench/explain_bench.py [--runs 11] [--size-mb 100]
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PY = sys.executable
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [os.path.join(ROOT, d) for d in ("doctor", "checks", "knowledge")]
TRACEBACK = """Traceback (most recent call last):
  File "train.py", line 214, in train_one_epoch
    total_loss += loss.item() * batch_size
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def make_log(path: str, size_mb: int) -> int:
    lines = [
        "[rank0]: 2026-11-21 10:00:{s:02d},123 - INFO - epoch {e} step {i} loss {l:.4f} lr 3.0e-04 grad_norm 1.23 tok/s 51234\n",
        "[rank0]: Epoch {e}: {p}%|#####     | {i}/20000 [01:23<01:23, 120.00it/s, loss={l:.3f}]\n",
        "[rank1]: 2026-11-21 10:00:{s:02d},456 - INFO - saved checkpoint to /ckpt/step_{i}.pt\n",
        "[rank0]: /venv/lib/python3.11/site-packages/torch/optim/lr_scheduler.py:143: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.\n",
    ]
    target = size_mb * 1024 * 1024
    written = 0
    i = 0
    with open(path, "w") as fh:
        while written < target:
            line = lines[i % 3 if i % 50 else 3].format(s=i % 60, e=i // 20000, i=i % 20000, l=1 / (1 + i % 97), p=i % 100)
            if i == 400_000:
                line += ("[rank1]: KeyError: Caught KeyError in DataLoader worker process 0.\n"
                         "[rank1]: Original Traceback (most recent call last):\n"
                         "[rank1]:   File \"dataset.py\", line 20, in __getitem__\n[rank1]: KeyError: 'label'\n")
            fh.write(line)
            written += len(line)
            i += 1
        fh.write(TRACEBACK)
    return os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--size-mb", type=int, default=100)
    args = parser.parse_args()

    floor = [PY, "-c", "import typer, rich.console"]
    explain = [PY, "-m", "torchdoctor", "explain", TRACEBACK]

    def cold(runs: int) -> tuple[float, float]:
        for argv in (floor, explain):
            timed(argv)  # warm the page cache
        t_floor, t_explain = [], []
        for _ in range(runs):
            t_floor.append(timed(floor))
            t_explain.append(timed(explain))
        return statistics.median(t_floor), statistics.median(t_explain)

    found = None
    if not all(_has_bytecode(d) for d in SOURCES if os.path.isdir(d)):
        found = cold(args.runs)
        for d in SOURCES:
            if os.path.isdir(d):
                compileall.compile_dir(d, quiet=1)
    m_floor, m_explain = cold(args.runs)

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "train.log")
        size = make_log(log, args.size_mb)
        argv = [PY, "-m", "torchdoctor", "explain", "--file", log, "--format", "json"]
        timed(argv)  # page cache
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t_log = min(timed(argv) for _ in range(3))
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    mb = size / 1e6
    rate = mb / t_log

    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cpus · {args.runs} interleaved runs (median)")
    print(f"  import typer, rich.console     {m_floor:6.3f} s")
    print(f"  torchdoctor explain '<tb>'     {m_explain:6.3f} s")
    print(f"  {mb:.0f} MB log (best of 3)       {t_log:6.3f} s   peak RSS of a child {peak_kib / 1024:.0f} MiB"
          f"{' (max over runs)' if before else ''}")
    print()
    ratio = m_explain / m_floor
    print(f"  explain / typer+rich floor    {ratio:5.2f}x      target <= 1.5     {'met' if ratio <= 1.5 else 'MISSED'}")
    if found:
        print(f"    (as found, torchdoctor's bytecode not cached: {found[1] / found[0]:.2f}x; "
              "compiled once before measuring, as pip install does)")
    print(f"  log throughput                {rate:5.1f} MB/s  target >= 50 MB/s {'met' if rate >= 50 else 'MISSED'}")


def _has_bytecode(folder: str) -> bool:
    """Every module under `folder` has current bytecode (a checkout run with bytecode writing off has
    none; a source edited since its last import has a stale one, which Python recompiles on every run)."""
    import importlib.util

    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                src = os.path.join(here, f)
                pyc = importlib.util.cache_from_source(src)
                if not os.path.exists(pyc) or os.path.getmtime(pyc) < os.path.getmtime(src):
                    return False
    return True


if __name__ == "__main__":
    main()
