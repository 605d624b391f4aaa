"""Side by side on the same interpreter: `torchdoctor env`, `torchdoctor env --quick`,
`python -m torch.utils.collect_env` and a bare `python -c "import torch"`.

Prints the median wall time of each and the ratios the project targets:
  env / bare import   <= 1.2   (importing torch is the floor of any doctor that verifies it)
  env / collect_env   <= 0.8
  env --quick         <= 0.3 s (absolute)

Runs are interleaved (A B C D, A B C D, ...) so that a slow moment of the machine hits every
command alike. Usage: python bench/env_bench.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

PY = sys.executable

COMMANDS = {
    "import torch": [PY, "-c", "import torch"],
    "collect_env": [PY, "-m", "torch.utils.collect_env"],
    "torchdoctor env": [PY, "-m", "torchdoctor", "env", "--format", "json"],
    "torchdoctor env --quick": [PY, "-m", "torchdoctor", "env", "--quick", "--format", "json"],
}


def time_once(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1 = findings on this machine; still a complete run
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    for argv in COMMANDS.values():  # warm the page cache; not measured
        time_once(argv)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            times[name].append(time_once(argv))

    med = {name: statistics.median(ts) for name, ts in times.items()}
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cpus · {args.runs} interleaved runs each (median, min-max)")
    for name, ts in times.items():
        print(f"  {name:<26} {med[name]:6.3f} s   ({min(ts):.3f}-{max(ts):.3f})")
    env, quick = med["torchdoctor env"], med["torchdoctor env --quick"]
    r_import = env / med["import torch"]
    r_collect = env / med["collect_env"]
    print()
    print(f"  env / bare import torch    {r_import:5.2f}x   target <= 1.2   {'met' if r_import <= 1.2 else 'MISSED'}")
    print(f"  env / collect_env          {r_collect:5.2f}x   target <= 0.8   {'met' if r_collect <= 0.8 else 'MISSED'}")
    print(f"  env --quick                {quick:5.3f} s   target <= 0.3 s {'met' if quick <= 0.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
