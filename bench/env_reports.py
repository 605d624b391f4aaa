"""`torchdoctor env --facts` on real pasted reports: tests/fixtures/env_reports/.

Each report in the manifest was copied from a public issue and labelled with the problem the
thread established (TE codes) or `healthy`; its split (dev or heldout) was computed from the URL
before any tuning: heldout if int(sha1(url), 16) % 5 < 2. For each split this prints:

- read: the report was accepted by `--facts` (the same loader the CLI uses);
- problem found: every expected TE code came back as an error or a warning;
- healthy clean: no TE1xx/TE2xx error on a report whose environment was fine;
- partial: how many reports leave checks unrun for want of facts (those must never close with
  "No problems found").

`--baseline REF` also runs the code of a git commit (exported to a temporary directory) over the
same reports and prints both side by side; the default REF is the commit whose reader was the one
this benchmark was first run on. `--corpus-at REF` keeps only the reports the manifest listed at
commit REF (the corpus as it was then), to compare figures on an older corpus. `--misses` lists
the reports that fail a figure (dev only unless `--show-heldout`: tuning looks at dev failures alone).

`--by-layout` prints the figures for the reports in collect_env's layout (torch's script or a project's copy)
apart from every other paste (prose, package lists, logs, other tools' printouts).

Usage: python bench/env_reports.py [--baseline REF | --no-baseline] [--corpus-at REF] [--by-label] [--by-layout]
       [--misses] [--show-heldout]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "env_reports"
# The merge of main into wt-env before any change to the collect_env reader or the env checks.
DEFAULT_BASELINE = "049c0eb"


def evaluate(fixtures: Path) -> list[dict]:
    """One row per report: read?, codes reported (error/warning), TE1xx/TE2xx errors, skipped for unknowns."""
    try:
        from torchdoctor.cli.common import UsageError
        from torchdoctor.cli.env import load_facts
    except ImportError:  # before the CLI became a package
        from torchdoctor.cli import UsageError
        from torchdoctor.cli import _load_facts as load_facts
    from torchdoctor.model import Status
    from torchdoctor.runner import run_env_checks

    try:
        from torchdoctor.facts.collect_env_text import looks_like_collect_env
    except ImportError:
        looks_like_collect_env = None

    manifest = json.loads((fixtures / "manifest.json").read_text())
    rows = []
    for entry in manifest["reports"]:
        text = (fixtures / entry["file"]).read_text(encoding="utf-8", errors="replace")
        layout = "collect_env" if looks_like_collect_env and looks_like_collect_env(text) else "other"
        row = {"file": entry["file"], "split": entry["split"], "labels": entry["labels"], "read": False,
               "reported": [], "errors": [], "skipped": 0, "why": "", "layout": layout}
        try:
            facts = load_facts(fixtures / entry["file"])
        except UsageError as exc:
            row["why"] = str(exc).split(": ", 1)[-1]
            rows.append(row)
            continue
        except Exception as exc:  # noqa: BLE001 - an older baseline's bug on a newer report: not read, said why
            row["why"] = f"internal error: {type(exc).__name__}: {exc}"
            rows.append(row)
            continue
        row["read"] = True
        findings = run_env_checks(facts)
        row["reported"] = sorted({f.code for f in findings if f.status in (Status.ERROR, Status.WARNING)})
        row["errors"] = sorted({f.code for f in findings if f.status is Status.ERROR and f.code[:3] in ("TE1", "TE2")})
        row["skipped"] = sum(1 for f in findings if f.status is Status.SKIP and "unknown" in f.message)
        rows.append(row)
    return rows


def _found(row: dict) -> bool:
    return all(code in row["reported"] for code in row["labels"])


def figures(rows: list[dict], split: str) -> dict:
    part = [r for r in rows if r["split"] == split]
    problems = [r for r in part if r["labels"] != ["healthy"]]
    healthy = [r for r in part if r["labels"] == ["healthy"]]
    return {
        "read": (sum(r["read"] for r in part), len(part)),
        "problem found": (sum(_found(r) for r in problems), len(problems)),
        "healthy clean": (sum(r["read"] and not r["errors"] for r in healthy), len(healthy)),
    }


def _baseline_rows(ref: str) -> list[dict]:
    """Export `doctor/`, `checks/` and `knowledge/` at REF as a `torchdoctor` package and evaluate there."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "doctor", "checks", "knowledge"],
                                 check=True, capture_output=True).stdout
        src = Path(tmp) / "src"
        src.mkdir()
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(src)
        pkg = Path(tmp) / "pkg" / "torchdoctor"
        pkg.parent.mkdir()
        (src / "doctor").rename(pkg)
        (src / "checks").rename(pkg / "checks")
        (src / "knowledge").rename(pkg / "knowledge")
        code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[3]); "
                "import torchdoctor; assert torchdoctor.__file__.startswith(sys.argv[1]), torchdoctor.__file__; "
                "from env_reports import evaluate; from pathlib import Path; "
                "print(json.dumps(evaluate(Path(sys.argv[2]))))")
        out = subprocess.run([sys.executable, "-c", code, str(pkg.parent), str(FIXTURES), str(ROOT / "bench")],
                             capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
        if out.returncode != 0:
            raise SystemExit(f"baseline {ref} could not be evaluated:\n{out.stderr[-2000:]}")
        return json.loads(out.stdout)


def _cell(pair: tuple[int, int]) -> str:
    done, total = pair
    pct = 100.0 * done / total if total else 100.0
    return f"{done:>3}/{total:<3} {pct:5.1f}%"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="git ref to compare with (default: %(default)s)")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--corpus-at", metavar="REF", help="only the reports the manifest listed at git REF")
    ap.add_argument("--misses", action="store_true", help="list dev reports that fail a figure")
    ap.add_argument("--show-heldout", action="store_true", help="with --misses, list held-out ones too")
    ap.add_argument("--by-label", action="store_true", help="per expected code: how often it was found (figures only)")
    ap.add_argument("--by-layout", action="store_true",
                    help="the figures for collect_env reports (and its projects' copies) apart from every other paste")
    args = ap.parse_args()

    rows = evaluate(FIXTURES)
    base = None if args.no_baseline else _baseline_rows(args.baseline)
    if args.corpus_at:
        listed = subprocess.run(["git", "-C", str(ROOT), "show",
                                 f"{args.corpus_at}:{(FIXTURES / 'manifest.json').relative_to(ROOT)}"],
                                check=True, capture_output=True, text=True).stdout
        keep = {r["file"] for r in json.loads(listed)["reports"]}
        rows = [r for r in rows if r["file"] in keep]
        base = [r for r in base if r["file"] in keep] if base else base
    print(f"{len(rows)} reports in {FIXTURES.relative_to(ROOT)}" + (f" (the manifest at {args.corpus_at})" if args.corpus_at else ""))
    for split in ("dev", "heldout"):
        now = figures(rows, split)
        then = figures(base, split) if base else None
        print(f"\n[{split}]" + (f"{'baseline ' + args.baseline:>37}{'now':>19}" if then else f"{'now':>37}"))
        for key, pair in now.items():
            print(f"  {key:<16}" + (f"{_cell(then[key]):>34}" if then else "") + f"{_cell(pair):>19}")
        partial = [r for r in rows if r["split"] == split and r["read"] and r["skipped"]]
        print(f"  {'partial facts':<16}" + " " * (34 if then else 0) +
              f"{len(partial):>9} reports leave checks unrun")
    if args.by_label:
        print(f"\n  {'per label':<16}{'dev':>19}{'heldout':>19}")
        labels = sorted({code for r in rows for code in r["labels"] if code != "healthy"})
        for code in labels:
            cells = []
            for split in ("dev", "heldout"):
                part = [r for r in rows if r["split"] == split and code in r["labels"]]
                cells.append(_cell((sum(code in r["reported"] for r in part), len(part))))
            print(f"  {code:<16}{cells[0]:>19}{cells[1]:>19}")
    if args.by_layout:
        print(f"\n  {'by layout':<30}{'dev':>19}{'heldout':>19}")
        for layout in ("collect_env", "other"):
            part = [r for r in rows if r.get("layout") == layout]
            figs = {split: figures(part, split) for split in ("dev", "heldout")}
            for key in figs["dev"]:
                print(f"  {layout + ' ' + key:<30}{_cell(figs['dev'][key]):>19}{_cell(figs['heldout'][key]):>19}")
    if args.misses:
        print()
        for r in rows:
            if r["split"] != "dev" and not args.show_heldout:
                continue
            healthy = r["labels"] == ["healthy"]
            if not r["read"]:
                print(f"  [{r['split']}] NOT READ   {r['file']}: {r['why']}")
            elif healthy and r["errors"]:
                print(f"  [{r['split']}] FALSE ERR  {r['file']}: {','.join(r['errors'])}")
            elif not healthy and not _found(r):
                print(f"  [{r['split']}] MISSED     {r['file']}: want {','.join(r['labels'])}, "
                      f"got {','.join(r['reported']) or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
