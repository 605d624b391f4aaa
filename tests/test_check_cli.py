"""`torchdoctor check` end to end: formats, exit status, selection, noqa, configuration, and
files that cannot be checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

BAD = "import torch\ntorch.set_grad_enabled(False)\n"


def run(cwd, *args: str) -> subprocess.CompletedProcess:
    # The cache lives in the user's cache directory: one beside the test's tree, never ~/.cache.
    cache = os.path.join(os.path.dirname(os.path.abspath(cwd)), os.path.basename(os.path.abspath(cwd)) + "-xdg-cache")
    return subprocess.run([sys.executable, "-m", "torchdoctor", "check", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "XDG_CACHE_HOME": cache},
                          timeout=120)


def cache_dir(cwd):
    return os.path.join(os.path.dirname(os.path.abspath(cwd)), os.path.basename(os.path.abspath(cwd)) + "-xdg-cache",
                        "torchdoctor", "check")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "ok.py").write_text("import torch\nx = torch.zeros(3)\n")
    return tmp_path


def test_a_tree_without_python_files_is_not_called_clean(tmp_path):
    # A wrong path in a CI gate checks nothing: saying "All checks passed" would vouch for unread code.
    (tmp_path / "notes.txt").write_text("not python\n")
    proc = run(tmp_path)
    assert "nothing was checked" in proc.stdout and "All checks passed" not in proc.stdout
    (tmp_path / "train.py").write_text("import torch\n")
    assert "All checks passed (1 file)." in run(tmp_path).stdout


def test_text_output_and_exit_status(project):
    proc = run(project)
    assert proc.returncode == 1
    assert proc.stdout.startswith("train.py:2:1: TD106 ")
    assert "fix: " in proc.stdout and "Found 1 finding in 2 files." in proc.stdout
    (project / "train.py").write_text("import torch\n")
    clean = run(project)
    assert clean.returncode == 0 and "All checks passed (2 files)." in clean.stdout


def test_exit_zero_and_statistics(project):
    proc = run(project, "--exit-zero", "--statistics")
    assert proc.returncode == 0 and "    1  TD106  grad-disabled-globally" in proc.stdout


def test_json_matches_its_schema(project):
    import jsonschema

    from torchdoctor.data import load

    data = json.loads(run(project, "--format", "json").stdout)
    jsonschema.validate(data, load("check_report.schema"))
    f = data["findings"][0]
    assert (f["code"], f["path"], f["line"], f["column"]) == ("TD106", "train.py", 2, 1)


def test_github_annotations(project):
    out = run(project, "--format", "github").stdout
    assert out.startswith("::error file=train.py,line=2,col=1,") and "title=TD106 grad-disabled-globally::" in out


def test_sarif_is_valid_against_the_official_schema(project):
    import jsonschema

    schema_path = os.environ.get("TORCHDOCTOR_SARIF_SCHEMA")
    if not schema_path or not os.path.exists(schema_path):
        pytest.skip("the official SARIF 2.1.0 schema is provided by .ci/run (TORCHDOCTOR_SARIF_SCHEMA)")
    doc = json.loads(run(project, "--format", "sarif").stdout)
    with open(schema_path) as fh:
        jsonschema.validate(doc, json.load(fh))
    result = doc["runs"][0]["results"][0]
    assert result["ruleId"] == "TD106"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.py"


def test_select_ignore_and_noqa(project):
    assert run(project, "--ignore", "TD1").returncode == 0
    assert run(project, "--select", "TD106").returncode == 1
    (project / "train.py").write_text("import torch\ntorch.set_grad_enabled(False)  # noqa: TD106\n")
    proc = run(project)
    assert proc.returncode == 0 and "(1 suppressed by noqa)" in proc.stdout
    (project / "train.py").write_text("import torch\ntorch.set_grad_enabled(False)  # noqa: TD101\n")
    assert run(project).returncode == 1, "a noqa for another code does not hide this one"


def test_pyproject_configuration(project):
    (project / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.torchdoctor]
        ignore = ["TD106"]
        """))
    assert run(project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.torchdoctor]\nper-file-ignores = { "train.py" = ["TD1"] }\n')
    assert run(project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.torchdoctor]\nexclude = ["train.py"]\n')
    assert run(project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.torchdoctor]\nselct = ["TD1"]\n')
    proc = run(project)
    assert proc.returncode == 2 and "unknown key(s) selct" in proc.stderr


def test_gitignore_is_respected(project):
    (project / ".gitignore").write_text("generated/\n*_tmp.py\n")
    (project / "generated").mkdir()
    (project / "generated" / "x.py").write_text(BAD)
    (project / "scratch_tmp.py").write_text(BAD)
    data = json.loads(run(project, "--format", "json").stdout)
    assert [f["path"] for f in data["findings"]] == ["train.py"]


def test_files_that_cannot_be_checked_are_reported_and_the_run_goes_on(project):
    (project / "broken.py").write_text("def f(:\n")
    (project / "latin.py").write_bytes(b"# -*- coding: utf-8 -*-\nx = '\xff\xfe'\n")
    os.symlink(project, project / "loop")
    proc = run(project, "--format", "json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    errors = {e["path"]: e["message"] for e in data["errors"]}
    assert errors["broken.py"].startswith("syntax error") and "cannot decode" in errors["latin.py"]
    assert [f["path"] for f in data["findings"]] == ["train.py"]


def test_usage_errors(project):
    for args in (("--select", "TD999"), ("--format", "xml"), ("missing-dir/",)):
        proc = run(project, *args)
        assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr
    assert run(project, "--select", "TD999").returncode == 2
    missing = run(project, "nope.py", "--format", "json")
    assert json.loads(missing.stdout)["errors"][0]["message"] == "no such file or directory"


def test_rule_documentation():
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "rule", "TD106"], capture_output=True, text=True)
    assert proc.returncode == 0 and "## Why is this bad?" in proc.stdout
    listing = subprocess.run([sys.executable, "-m", "torchdoctor", "rule", "--list"], capture_output=True, text=True)
    assert "TD106  grad-disabled-globally" in listing.stdout


def test_check_never_imports_torch(project):
    code = ("import sys, os; os.chdir(sys.argv[1]); from torchdoctor.cli import main\n"
            "try:\n    main(['check', '.'])\nexcept SystemExit: pass\n"
            "assert 'torch' not in sys.modules, 'check imported torch'\n")
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_ci_gate_combines_env_and_check(project):
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "ci", "--quick", "."], capture_output=True, text=True,
                          cwd=project, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}, timeout=120)
    assert proc.returncode == 1 and "gate failed" in proc.stdout and "TD106" in proc.stdout
    (project / "train.py").write_text("import torch\n")
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "ci", "--quick", "."], capture_output=True, text=True,
                          cwd=project, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}, timeout=120)
    env_errors = "no environment errors" not in proc.stdout
    assert proc.returncode == (1 if env_errors else 0), proc.stdout


def test_ci_gate_inspects_checkpoints(project):
    def ci(*args):
        return subprocess.run([sys.executable, "-m", "torchdoctor", "ci", "--quick", *args, "ok.py"], capture_output=True,
                              text=True, cwd=project, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}, timeout=120)

    import torch

    torch.save({"model": torch.nn.Linear(2, 2).state_dict()}, project / "good.pt")
    (project / "weights.pt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 4096\n")
    clean = ci("--checkpoint", "good.pt")
    env_errors = "no environment errors" not in clean.stdout
    assert clean.returncode == (1 if env_errors else 0) and "1 checkpoint: no problems" in clean.stdout
    bad = ci("--checkpoint", "good.pt", "--checkpoint", "weights.pt")
    assert bad.returncode == 1 and "weights.pt: TI101 not a checkpoint: a Git LFS pointer" in bad.stdout
    assert "1 checkpoint error)" in bad.stdout
    missing = ci("--checkpoint", "nope.pt")
    assert missing.returncode == 2 and missing.stderr == "torchdoctor: error: --checkpoint nope.pt: no such file\n"


def test_cache_gives_the_same_answer_and_follows_edits(project):
    first = run(project, "--format", "json").stdout
    assert not (project / ".torchdoctor_cache").exists()  # nothing written into the repository
    assert [p for _, _, files in os.walk(cache_dir(project)) for p in files]
    assert run(project, "--format", "json").stdout == first  # warm: read from the cache
    (project / "train.py").write_text("import torch\n")
    assert json.loads(run(project, "--format", "json").stdout)["findings"] == []
    (project / "train.py").write_text(BAD)
    assert run(project, "--format", "json").stdout == first


def test_no_cache_writes_nothing(project):
    run(project, "--no-cache")
    assert not (project / ".torchdoctor_cache").exists() and not os.path.exists(cache_dir(project))


def test_parallel_and_serial_agree(tmp_path):
    for i in range(30):
        (tmp_path / f"m{i:02d}.py").write_text(BAD if i % 3 == 0 else "import torch\n")
    serial = run(tmp_path, "--no-cache", "-j", "1", "--format", "json").stdout
    parallel = run(tmp_path, "--no-cache", "-j", "2", "--format", "json").stdout
    assert serial == parallel and len(json.loads(serial)["findings"]) == 10


def test_a_file_reached_twice_through_links_is_checked_once(tmp_path):
    from torchdoctor.lint.engine import Selection, discover

    real = tmp_path / "src"
    (real / "pkg").mkdir(parents=True)
    (real / "pkg" / "a.py").write_text("x = 1\n")
    (real / "pkg" / "b.py").symlink_to(real / "pkg" / "a.py")  # the same file under another name
    outside = tmp_path / "outside.py"
    outside.write_text("y = 2\n")
    (real / "pkg" / "c.py").symlink_to(outside)  # a link out of the tree: its target, once
    (tmp_path / "alias").symlink_to(real)  # the tree given again under a linked directory name
    found = list(discover([str(real), str(tmp_path / "alias")], Selection()))
    assert [os.path.basename(p) for p in found] == ["a.py", "c.py"]
    assert all(os.path.dirname(p) == str(real / "pkg") for p in found)
