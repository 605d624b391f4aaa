"""`--fix`: a stale extension lock is removed only after it is proved stale again, and nothing else is."""

from __future__ import annotations

import os
import time

from torchdoctor.facts import Target, extensions
from torchdoctor.facts.model import Facts, PythonFacts
from torchdoctor.fixes import apply
from torchdoctor.model import Action, Finding, Fix, Status
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

from ext_dirs import make_build_dir, start_sleeper, stop

TE401 = find_env_check("TE401")


def findings_for(tmp_path):
    """Collect the extensions section of the fake home and run TE401 on it, as `env --fix` does."""
    section = extensions.collect(Target(environ={}, home=str(tmp_path / "home")), PythonFacts(system="Linux"))
    return [run_check(TE401, Facts(extensions=section))]


def stale_build_dir(tmp_path, name="fused_adam"):
    return make_build_dir(tmp_path / "home" / ".cache" / "torch_extensions", name)


def only(applied):
    assert len(applied) == 1, applied
    return applied[0]


def test_fix_removes_a_stale_lock_and_keeps_the_build_dir(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    assert findings[0].status is Status.ERROR
    result = only(apply(findings))
    assert result.outcome == "removed" and result.done, result.describe()
    assert not (d / "lock").exists()
    assert d.is_dir() and (d / "build.ninja").read_text() == "rule cxx\n"
    assert str(d / "lock") in result.describe()
    # Afterwards the check is quiet and there is nothing left to fix.
    after = findings_for(tmp_path)
    assert after[0].status is Status.OK and apply(after) == []


def test_dry_run_removes_nothing(tmp_path):
    d = stale_build_dir(tmp_path)
    result = only(apply(findings_for(tmp_path), dry_run=True))
    assert result.outcome == "would-remove" and not result.done
    assert (d / "lock").exists()


def test_refuses_when_the_lock_was_replaced(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    # A new build took the lock: a new file (a new inode, created while the old one existed).
    (d / "lock.new").write_text("")
    os.replace(d / "lock.new", d / "lock")
    old = time.time() - 3600
    os.utime(d / "lock", (old, old))
    result = only(apply(findings))
    assert result.outcome == "refused" and "replaced" in result.detail
    assert (d / "lock").exists()


def test_refuses_when_the_lock_was_touched(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    os.utime(d / "lock")
    result = only(apply(findings))
    assert result.outcome == "refused" and "modified" in result.detail
    assert (d / "lock").exists()


def test_refuses_when_a_live_process_now_uses_the_build_dir(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    proc = start_sleeper(cwd=d)
    try:
        result = only(apply(findings))
    finally:
        stop(proc)
    assert result.outcome == "refused" and f"pid {proc.pid}" in result.detail
    assert (d / "lock").exists()


def test_a_held_lock_is_never_proposed(tmp_path):
    d = stale_build_dir(tmp_path)
    proc = start_sleeper(cwd=tmp_path, hold=str(d / "lock"))
    try:
        findings = findings_for(tmp_path)
        assert findings[0].status is Status.OK and f"pid {proc.pid}" in findings[0].message
        assert apply(findings) == []
    finally:
        stop(proc)
    assert (d / "lock").exists()


def test_refuses_when_the_lock_vanished(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    (d / "lock").unlink()
    result = only(apply(findings))
    assert result.outcome == "refused" and "gone" in result.detail
    assert d.is_dir()


def test_refuses_when_the_build_dir_changed_recently(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    (d / "fused_adam.o").write_bytes(b"\0")  # a compiler is writing here, perhaps from another host
    result = only(apply(findings))
    assert result.outcome == "refused" and "fused_adam.o" in result.detail
    assert (d / "lock").exists()


def test_never_follows_a_symlinked_lock_out_of_the_build_dir(tmp_path):
    d = stale_build_dir(tmp_path)
    outside = tmp_path / "precious"
    outside.write_text("keep me")
    (d / "lock").unlink()
    os.symlink(outside, d / "lock")
    st = os.lstat(d / "lock")
    action = Action("remove-stale-lock", str(d / "lock"), "test", {"inode": st.st_ino, "mtime": st.st_mtime})
    finding = Finding("TE401", "stale-extension-lock", "CUDA toolkit & extensions", Status.ERROR, "t", "m",
                      fix=Fix("remove", actions=(action,)))
    result = only(apply([finding]))
    assert result.outcome == "refused" and "symbolic link" in result.detail
    assert os.path.islink(d / "lock") and outside.read_text() == "keep me"


def test_refuses_anything_but_a_file_named_lock(tmp_path):
    d = stale_build_dir(tmp_path)
    st = os.stat(d / "build.ninja")
    action = Action("remove-stale-lock", str(d / "build.ninja"), "test", {"inode": st.st_ino, "mtime": st.st_mtime})
    finding = Finding("TE401", "stale-extension-lock", "a", Status.ERROR, "t", "m", fix=Fix("x", actions=(action,)))
    result = only(apply([finding]))
    assert result.outcome == "refused" and (d / "build.ninja").exists()


def test_unknown_actions_are_reported_not_applied(tmp_path):
    action = Action("rm-rf-home", str(tmp_path), "no")
    finding = Finding("TE999", "x", "a", Status.ERROR, "t", "m", fix=Fix("x", actions=(action,)))
    result = only(apply([finding]))
    assert result.outcome == "unsupported" and tmp_path.is_dir()


def test_each_lock_is_handled_once_even_if_two_findings_propose_it(tmp_path):
    d = stale_build_dir(tmp_path)
    findings = findings_for(tmp_path)
    results = apply(findings + findings)
    assert [r.outcome for r in results] == ["removed"] and not (d / "lock").exists()


def test_two_stale_locks_both_removed(tmp_path):
    a, b = stale_build_dir(tmp_path, "ext_a"), stale_build_dir(tmp_path, "ext_b")
    findings = findings_for(tmp_path)
    assert len(findings[0].fix.actions) == 2
    assert [r.outcome for r in apply(findings)] == ["removed", "removed"]
    assert not (a / "lock").exists() and not (b / "lock").exists() and a.is_dir() and b.is_dir()


def test_the_proposal_survives_a_json_round_trip_of_the_facts(tmp_path):
    # `env --format json` then re-diagnosing: float mtimes must compare equal after the trip.
    stale_build_dir(tmp_path)
    section = extensions.collect(Target(environ={}, home=str(tmp_path / "home")), PythonFacts(system="Linux"))
    facts = Facts.from_json(Facts(extensions=section).to_json())
    result = only(apply([run_check(TE401, facts)], dry_run=True))
    assert result.outcome == "would-remove", result.detail

