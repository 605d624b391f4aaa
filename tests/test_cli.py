"""End to end: the real CLI in a subprocess, against this machine's CPU torch and against saved facts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def torchdoctor(*args: str, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "120", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          input=input, timeout=timeout, env=env)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("torchdoctor: error: ")
    return lines[0]


@pytest.fixture(scope="module")
def live_report() -> dict:
    proc = torchdoctor("env", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_env_json_describes_this_machine(live_report):
    from torchdoctor.registry import env_checks

    assert live_report["schema"] == "torchdoctor.env/v1"
    facts, findings = live_report["facts"], live_report["findings"]
    # The tests install the CPU build of torch 2.13.0 into this interpreter.
    assert facts["torch"]["import_status"] == "ok"
    assert facts["torch"]["version"] == "2.13.0+cpu"
    assert facts["torch"]["cuda"] is None
    assert facts["python"]["executable"] == sys.executable
    codes = [f["code"] for f in findings]
    assert sorted(codes) == sorted(c.code for c in env_checks()), "a finding for every check that ran"
    assert not [f for f in findings if f["status"] == "crash"], [f for f in findings if f["status"] == "crash"]
    by_code = {f["code"]: f for f in findings}
    assert by_code["TE101"]["status"] == "ok"  # torch imports
    assert by_code["TE102"]["status"] == "ok"  # one torch on the path
    for f in findings:
        assert set(f) >= {"code", "name", "status", "title", "message", "evidence", "fix"}


def test_cpu_machine_is_not_drowned_in_gpu_warnings(live_report):
    facts = live_report["facts"]
    if facts["nvidia"].get("gpus"):
        pytest.skip("this machine has an NVIDIA GPU")
    gpu_codes = {"TE201", "TE202", "TE204", "TE205", "TE206", "TE207"}
    noisy = [f for f in live_report["findings"] if f["code"] in gpu_codes and f["status"] in ("warning", "error")]
    assert noisy == []
    cpu_build = next(f for f in live_report["findings"] if f["code"] == "TE203")
    assert cpu_build["status"] == "ok"


def test_text_report_groups_by_area_and_closes_with_a_verdict():
    proc = torchdoctor("env")
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout
    for area in ("Python & packages", "torch", "NVIDIA driver & GPUs", "host & data loading"):
        assert area in out
    last = out.strip().splitlines()[-1]
    assert last == "No problems found." or "error" in last or "warning" in last or "not run for missing facts" in last


def test_quick_mode_skips_the_import_but_knows_the_version():
    proc = torchdoctor("env", "--quick", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert data["facts"]["torch"]["import_status"] == {"unknown": "not collected with --quick"}
    assert data["facts"]["torch"]["version"] == "2.13.0+cpu"


def test_saved_facts_round_trip(tmp_path, live_report):
    saved = tmp_path / "facts.json"
    saved.write_text(json.dumps(live_report))
    proc = torchdoctor("env", "--facts", str(saved), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    again = json.loads(proc.stdout)
    assert again["facts"]["meta"]["source"] == "json"
    assert [(f["code"], f["status"]) for f in again["findings"]] == \
        [(f["code"], f["status"]) for f in live_report["findings"]]


def test_facts_from_stdin(live_report):
    proc = torchdoctor("env", "--facts", "-", "--format", "json", input=json.dumps(live_report))
    assert proc.returncode in (0, 1), proc.stderr
    assert json.loads(proc.stdout)["facts"]["torch"]["version"] == "2.13.0+cpu"


@pytest.mark.parametrize("content,expected", [
    ("{not json", "invalid JSON"),
    ('{"schema": "something.else/v3", "facts": {}}', "expected 'torchdoctor.env/v1'"),
    ('{"schema": "torchdoctor.env/v1", "facts": {"torch": {"version": 3}}}', "torch.version"),
    ("", "empty"),
    ("hello, this is not a report\n", "neither torchdoctor JSON"),
])
def test_bad_facts_give_one_error_line(tmp_path, content, expected):
    path = tmp_path / "facts.json"
    path.write_text(content)
    assert expected in one_error_line(torchdoctor("env", "--facts", str(path)))


def test_facts_file_missing_or_a_directory(tmp_path):
    assert "No such file" in one_error_line(torchdoctor("env", "--facts", str(tmp_path / "nope.json")))
    assert "directory" in one_error_line(torchdoctor("env", "--facts", str(tmp_path)))


def test_bad_python_gives_one_error_line(tmp_path):
    one_error_line(torchdoctor("env", "--python", str(tmp_path / "no-such-python")))
    text = tmp_path / "python"
    text.write_text("not an interpreter\n")
    one_error_line(torchdoctor("env", "--python", str(text)))
    one_error_line(torchdoctor("env", "--python", str(tmp_path)))


def test_other_interpreter_is_diagnosed_in_its_own_environment(tmp_path):
    # A venv without torch: the report must say torch is missing there, although it is here.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python = tmp_path / "venv" / "bin" / "python"
    proc = torchdoctor("env", "--python", str(python), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    facts = json.loads(proc.stdout)["facts"]
    assert facts["python"]["executable"] == str(python)
    assert facts["torch"]["import_status"] == "not-installed"


def test_usage_errors():
    assert "no check named" in one_error_line(torchdoctor("env", "TE999"))
    one_error_line(torchdoctor("env", "--format", "yaml"))
    assert "--fix" in one_error_line(torchdoctor("env", "--fix", "--facts", "x.json"))


def test_list_and_subset():
    proc = torchdoctor("env", "--list")
    assert proc.returncode == 0
    assert "TE201  driver-too-old" in proc.stdout
    proc = torchdoctor("env", "TE403", "shm-too-small", "--format", "json")
    assert proc.returncode in (0, 1)
    assert [f["code"] for f in json.loads(proc.stdout)["findings"]] == ["TE403", "TE402"]


def test_json_report_matches_its_published_schema(live_report):
    import jsonschema

    from torchdoctor.data import load

    schema = load("env_report.schema")
    jsonschema.validate(live_report, schema)
    for fixture in (FIXTURES / "facts").glob("*.json"):
        proc = torchdoctor("env", "--facts", str(fixture), "--format", "json")
        jsonschema.validate(json.loads(proc.stdout), schema)


def test_fix_removes_only_the_stale_lock_and_reports_it(tmp_path):
    from ext_dirs import make_build_dir

    build = make_build_dir(tmp_path, age=3 * 24 * 3600)
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path), "NO_COLOR": "1"}
    before = subprocess.run([sys.executable, "-m", "torchdoctor", "env", "TE401", "--quick"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert before.returncode == 1 and "stale build lock for fused_adam" in before.stdout
    assert (build / "lock").exists(), "without --fix nothing is touched"

    fixed = subprocess.run([sys.executable, "-m", "torchdoctor", "env", "TE401", "--quick", "--fix"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert f"removed {build / 'lock'}" in fixed.stderr
    assert not (build / "lock").exists()
    assert (build / "build.ninja").exists(), "the build directory and its files stay"
    assert "no extension build locks" in fixed.stdout  # the report shows the machine after the fix


def test_fix_with_nothing_to_fix_says_so(tmp_path):
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "env", "TE401", "--quick", "--fix"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0 and "nothing to fix" in proc.stderr
