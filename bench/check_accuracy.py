"""How much of the real bugs `torchdoctor check` finds, and how often it speaks on near misses.

The corpus is tests/fixtures/check_real/: real files from public training repositories, one
folder per repository (its own relative paths kept, so imports between its files resolve), each
file with its source URL, commit, line range and license in a header. manifest.json labels each
file by hand per rule:

  positive   the bug the rule exists for is really there, at these lines (fixture line numbers);
             found when the rule reports at one of them
  near_miss  code that looks like the bug but is fine; a false positive when the rule reports
             anywhere in the file

and records the split, chosen by repository before any rule was tuned:
heldout if int(sha1(repo_url).hexdigest(), 16) % 5 < 2 else dev. Tune on dev only; `--failures`
lists dev failures and never held-out ones.

Each file is checked twice: alone (`check_paths([file])`, the way an editor or a pre-commit hook
sees it) and as a project (`check_paths([repository folder])`: the cross-file pass sees the other
files of the same repository in the corpus).

Usage: python bench/check_accuracy.py [--split dev|heldout|both] [--mode alone|project|both]
                                      [--failures] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "check_real"
MANIFEST = CORPUS / "manifest.json"


def split_of(repo_url: str) -> str:
    return "heldout" if int(hashlib.sha1(repo_url.encode()).hexdigest(), 16) % 5 < 2 else "dev"


def load_manifest() -> list[dict]:
    files = json.loads(MANIFEST.read_text(encoding="utf-8"))["files"]
    for f in files:
        if f["split"] != ("dev" if f.get("moved_to_dev") else split_of(f["repo"])):
            raise SystemExit(f"{f['fixture']}: recorded split {f['split']} is not the one its repository hashes to")
    return files


def findings_alone(corpus: Path, files: list[dict]) -> dict[str, set[tuple[str, int]]]:
    from torchdoctor.lint.engine import Selection, check_paths

    out: dict[str, set[tuple[str, int]]] = {}
    for f in files:
        result = check_paths([str(corpus / f["fixture"])], Selection(select=("TD",)), jobs=1, cache=None)
        _no_errors(result, f["fixture"])
        out[f["fixture"]] = {(x.code, x.line) for x in result.findings}
    return out


def findings_project(corpus: Path, files: list[dict]) -> dict[str, set[tuple[str, int]]]:
    from torchdoctor.lint.engine import Selection, check_paths

    out: dict[str, set[tuple[str, int]]] = {f["fixture"]: set() for f in files}
    for repo_dir in sorted({f["fixture"].split("/", 1)[0] for f in files}):
        result = check_paths([str(corpus / repo_dir)], Selection(select=("TD",)), jobs=1, cache=None)
        _no_errors(result, repo_dir)
        for x in result.findings:
            rel = Path(x.path).resolve().relative_to(corpus.resolve()).as_posix()
            if rel in out:
                out[rel].add((x.code, x.line))
    return out


def _no_errors(result, where: str) -> None:
    if result.errors:
        raise SystemExit(f"{where}: {result.errors[0].path}: {result.errors[0].message}")


def score(files: list[dict], found: dict[str, set[tuple[str, int]]]) -> dict:
    """Per split and rule: positives found / positives, near misses reported / near misses."""
    table: dict = defaultdict(lambda: defaultdict(lambda: {"tp": 0, "pos": 0, "fp": 0, "near": 0,
                                                            "missed": [], "false": []}))
    for f in files:
        hits = found[f["fixture"]]
        for label in f["labels"]:
            cell = table[f["split"]][label["rule"]]
            lines = {line for code, line in hits if code == label["rule"]}
            if label["kind"] == "positive":
                cell["pos"] += 1
                if lines & set(label["lines"]):
                    cell["tp"] += 1
                else:
                    cell["missed"].append(f"{f['fixture']}:{label['lines']}")
            else:
                cell["near"] += 1
                if lines:
                    cell["fp"] += 1
                    cell["false"].append(f"{f['fixture']}:{sorted(lines)}")
    return table


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f}%" if b else "    -"


def report(table: dict, mode: str, splits: list[str]) -> list[str]:
    lines = [f"== {mode}: each file {'alone' if mode == 'alone' else 'with the rest of its repository'}"]
    head = f"{'rule':6} " + " ".join(f"{s + ' recall':>21} {s + ' false pos':>21}" for s in splits)
    lines.append(head)
    rules = sorted({r for s in splits for r in table[s]})
    totals = {s: [0, 0, 0, 0] for s in splits}
    for rule in rules:
        row = f"{rule:6} "
        for s in splits:
            c = table[s][rule]
            row += f"{c['tp']:>4}/{c['pos']:<4} {_pct(c['tp'], c['pos']):>12} {c['fp']:>4}/{c['near']:<4} {_pct(c['fp'], c['near']):>12}"
            t = totals[s]
            t[0] += c["tp"]; t[1] += c["pos"]; t[2] += c["fp"]; t[3] += c["near"]  # noqa: E702
        lines.append(row)
    row = f"{'all':6} "
    for s in splits:
        t = totals[s]
        row += f"{t[0]:>4}/{t[1]:<4} {_pct(t[0], t[1]):>12} {t[2]:>4}/{t[3]:<4} {_pct(t[2], t[3]):>12}"
    lines.append(row)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("dev", "heldout", "both"), default="both")
    ap.add_argument("--mode", choices=("alone", "project", "both"), default="both")
    ap.add_argument("--failures", action="store_true", help="list the dev split's misses and false positives")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    from torchdoctor.lint import context

    context.TARGET_TORCH = "2.6"  # TD402's advice depends on it; the corpus is judged for torch 2.6
    files = load_manifest()
    splits = ["dev", "heldout"] if args.split == "both" else [args.split]
    files = [f for f in files if f["split"] in splits]
    repos = {f["repo"] for f in files}
    print(f"corpus: {len(files)} files from {len(repos)} repositories; "
          + ", ".join(f"{s}: {sum(f['split'] == s for f in files)} files" for s in splits))
    figures: dict = {}
    # Checked from a copy outside tests/: rules rightly treat files under a tests/ folder as test
    # code (TD110 and TD101 skip it), and the fixtures are real training code, not tests.
    workdir = tempfile.mkdtemp(prefix="td-check-accuracy-")
    corpus = Path(workdir) / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("manifest.json", "conftest.py"))
    try:
        for mode in (["alone", "project"] if args.mode == "both" else [args.mode]):
            found = findings_alone(corpus, files) if mode == "alone" else findings_project(corpus, files)
            table = score(files, found)
            print("\n".join(report(table, mode, splits)))
            figures[mode] = {s: {r: {k: v for k, v in c.items() if k in ("tp", "pos", "fp", "near")}
                                 for r, c in table[s].items()} for s in splits}
            if args.failures and "dev" in splits:
                for rule, c in sorted(table["dev"].items()):
                    for m in c["missed"]:
                        print(f"  dev miss  {rule} {m}")
                    for m in c["false"]:
                        print(f"  dev false {rule} {m}")
            print()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
