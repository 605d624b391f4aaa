"""Benchmark: `torchdoctor inspect` against `torch.load(weights_only=True, mmap=True)` and `picklescan`
on the same generated checkpoints, side by side, with ratios.

    python bench/inspect_bench.py                      # 10MB and 1GB checkpoints
    python bench/inspect_bench.py --sizes 10MB,100MB --repeat 5

Checkpoints are transformer-like state dicts (per layer: a [1024, 1024] weight, its bias, a
LayerNorm's weight and bias) written with torch.save into a temporary directory that is deleted
afterwards. Two measurements per tool:
  - warm: the call inside one process, median of --repeat runs (imports already done);
  - cold: a fresh process doing what a user would type (includes interpreter start and imports).
picklescan is pip-installed (1.0.5) into this interpreter when missing; it is never a dependency.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PICKLESCAN = "picklescan==1.0.5"


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for unit, mult in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * mult)
    return int(text)


def make_checkpoint(path: str, nbytes: int) -> int:
    import torch

    d = 1024
    per_layer = (d * d + 3 * d) * 4
    layers = max(1, nbytes // per_layer)
    sd = {}
    for i in range(layers):
        sd[f"layers.{i}.linear.weight"] = torch.empty(d, d).uniform_(-0.05, 0.05)
        sd[f"layers.{i}.linear.bias"] = torch.zeros(d)
        sd[f"layers.{i}.norm.weight"] = torch.ones(d)
        sd[f"layers.{i}.norm.bias"] = torch.zeros(d)
    torch.save(sd, path)
    return len(sd)


def ensure_picklescan() -> bool:
    try:
        import picklescan.scanner  # noqa: F401

        return True
    except ImportError:
        pass
    print(f"installing {PICKLESCAN} for the comparison ...", file=sys.stderr)
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", PICKLESCAN], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"could not install picklescan: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return False
    import importlib

    importlib.invalidate_caches()
    return True


def warm(fn, repeat: int) -> float:
    fn()  # first call: page cache and imports
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cold(argv: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:9.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10MB,1GB", help="comma-separated checkpoint sizes (default 10MB,1GB)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cold", action="store_true", help="skip the fresh-process measurements")
    args = ap.parse_args()

    import torch
    from torchdoctor.inspect import inspect_path, run_ckpt_rules

    have_ps = ensure_picklescan()
    if have_ps:
        from picklescan.scanner import scan_file_path
    tmp = tempfile.mkdtemp(prefix="td-inspect-bench-")
    try:
        print(f"torch {torch.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
              f"median of {args.repeat}")
        for size_text in args.sizes.split(","):
            size = parse_size(size_text)
            path = os.path.join(tmp, f"ckpt_{size_text.strip()}.pth")
            n = make_checkpoint(path, size)
            real = os.path.getsize(path)
            print(f"\n== {size_text.strip()}: {real / 2**20:.1f} MiB, {n} tensors ==")

            ours = warm(lambda p=path: run_ckpt_rules(inspect_path(p)), args.repeat)
            tl = warm(lambda p=path: torch.load(p, weights_only=True, mmap=True), args.repeat)
            rows = [("torchdoctor inspect (reader + rules)", ours), ("torch.load(weights_only, mmap)", tl)]
            if have_ps:
                ps = warm(lambda p=path: scan_file_path(p), args.repeat)
                rows.append(("picklescan scan_file_path", ps))
            print("  warm, in one process:")
            for name, t in rows:
                print(f"    {name:<40}{fmt(t)}   x{t / ours:6.1f} of ours")
            if not args.no_cold:
                td = [sys.executable, "-m", "torchdoctor", "inspect", path, "--format", "json"]
                tlc = [sys.executable, "-c", f"import torch; torch.load({path!r}, weights_only=True, mmap=True)"]
                crow = [("torchdoctor inspect FILE", cold(td, args.repeat)), ("python -c 'torch.load(...)'", cold(tlc, args.repeat))]
                if have_ps:
                    crow.append(("picklescan -p FILE", cold([sys.executable, "-m", "picklescan", "-p", path], args.repeat)))
                base = crow[0][1]
                print("  cold, a fresh process:")
                for name, t in crow:
                    print(f"    {name:<40}{fmt(t)}   x{t / base:6.1f} of ours")
            os.remove(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
