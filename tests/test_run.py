"""`torchdoctor run -- COMMAND`: output passed through unchanged, exit status preserved, the failure
explained (per rank under torchrun, and inside torchrun's own Root Cause summary)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from torchdoctor.runtime import supervise

PY = sys.executable


def td_run(*argv, cwd=None, timeout=120):
    return subprocess.run(check=False, args=[PY, "-m", "torchdoctor", "run", "--", *argv], capture_output=True, cwd=cwd,
                          timeout=timeout)


OOM = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; "
       "13.20 GiB already allocated; 1.10 GiB free; 14.00 GiB reserved in total by PyTorch)")


def test_failing_child_keeps_output_and_status_and_is_explained(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import sys\nfor i in range(3):\n    print('step', i)\n    print('log', i, file=sys.stderr)\n"
                      f"raise RuntimeError({OOM.split(': ', 1)[1]!r})\n")
    plain = subprocess.run(check=False, args=[PY, str(script)], capture_output=True)
    run = td_run(PY, str(script))
    assert run.returncode == plain.returncode == 1
    assert run.stdout == plain.stdout  # stdout untouched, byte for byte
    assert run.stderr.startswith(plain.stderr)  # the child's stderr first, unchanged
    note = run.stderr[len(plain.stderr):].decode()
    assert "torchdoctor run: " in note and "exited with status 1" in note
    assert "[cuda-out-of-memory" in note and "GPU 0 could not allocate 2.00 GiB" in note


def test_real_torch_error_on_cpu(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nbn = torch.nn.BatchNorm1d(4)\nbn(torch.randn(1, 4))\n")
    run = td_run(PY, str(script))
    assert run.returncode == 1
    err = run.stderr.decode()
    assert err.index("ValueError: Expected more than 1 value per channel") < err.index("[batchnorm-single-value")


def test_success_prints_nothing_extra(tmp_path):
    script = tmp_path / "ok.py"
    script.write_text("import sys\nprint('hello')\nsys.stdout.write('no newline at the end')\n"
                      "print('warn', file=sys.stderr)\n")
    plain = subprocess.run(check=False, args=[PY, str(script)], capture_output=True)
    run = td_run(PY, str(script))
    assert (run.returncode, run.stdout, run.stderr) == (0, plain.stdout, plain.stderr)


@pytest.mark.parametrize("code, expected", [("sys.exit(7)", 7), ("os.kill(os.getpid(), signal.SIGKILL)", 137),
                                             ("sys.exit(0)", 0)])
def test_exit_status_is_preserved(code, expected):
    run = td_run(PY, "-c", f"import os, signal, sys\n{code}")
    assert run.returncode == expected
    if expected == 137:
        assert "was killed by SIGKILL (exit status 137)" in run.stderr.decode()
    if expected == 0:
        assert run.stderr == b""


def test_sigint_is_forwarded_to_the_child(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(textwrap.dedent("""\
        import time
        try:
            print('ready', flush=True)
            time.sleep(60)
        except KeyboardInterrupt:
            print('child got SIGINT', flush=True)
            raise SystemExit(42)
        """))
    proc = subprocess.Popen([PY, "-m", "torchdoctor", "run", "--", PY, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout.readline() == b"ready\n"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 42 and b"child got SIGINT" in out
    assert b"torchdoctor run" not in err  # an interrupted run is not "explained"


def test_usage_errors():
    r = subprocess.run(check=False, args=[PY, "-m", "torchdoctor", "run"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("torchdoctor: error:")
    r = subprocess.run(check=False, args=[PY, "-m", "torchdoctor", "run", "--", "no-such-command-xyz"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == "torchdoctor: error: no-such-command-xyz: command not found\n"


def test_is_torchrun():
    assert supervise.is_torchrun(["torchrun", "--nproc_per_node", "2", "train.py"])
    assert supervise.is_torchrun(["/venv/bin/torchrun", "train.py"])
    assert supervise.is_torchrun(["python3", "-m", "torch.distributed.run", "train.py"])
    assert not supervise.is_torchrun(["python", "train.py", "-m", "torchrun"])
    assert not supervise.is_torchrun(["python", "-m", "torchdoctor"])


def test_error_file_keeps_a_record_traceback_and_adds_the_explanation(tmp_path):
    path = tmp_path / "error.json"
    record = {"message": {"message": "ValueError: x", "extraInfo": {"py_callstack": "Traceback ...\nValueError: x\n",
                                                                    "timestamp": "1"}}}
    path.write_text(json.dumps(record))
    supervise._write_error_file(str(path), "ValueError: x", "tb", "torchdoctor: note\n", thread=False)
    data = json.loads(path.read_text())
    assert data["message"]["extraInfo"]["py_callstack"] == "Traceback ...\nValueError: x\n\ntorchdoctor: note\n"
    supervise._write_error_file(str(path), "ValueError: x", "tb", "torchdoctor: note\n", thread=False)
    assert json.loads(path.read_text()) == data  # idempotent


# Rank 1 fails only once rank 0 is up: on a fast machine (a lent H200, session 17) rank 1 otherwise failed, and
# torchrun stopped rank 0, before rank 0 had printed its line.
TORCHRUN_TRAIN = """
import os, time, torch
rank = int(os.environ["RANK"])
print(f"rank {rank} up", flush=True)
if rank == 0:
    open("rank0-up", "w").close()
if rank == 1:
    for _ in range(600):
        if os.path.exists("rank0-up"):
            break
        time.sleep(0.1)
    torch.nn.BatchNorm1d(4)(torch.randn(1, 4))
time.sleep(60)
"""


def test_torchrun_rank_failure_is_explained_per_rank_and_in_root_cause(tmp_path):
    torchrun = os.path.join(os.path.dirname(PY), "torchrun")
    if not os.path.exists(torchrun):
        pytest.skip("torchrun not installed next to this python")
    script = tmp_path / "train.py"
    script.write_text(TORCHRUN_TRAIN)
    run = td_run(torchrun, "--standalone", "--nproc_per_node", "2", str(script), cwd=tmp_path)
    err = run.stderr.decode()
    assert run.returncode == 1, err
    assert b"rank 0 up" in run.stdout and b"rank 1 up" in run.stdout
    root = err[err.index("Root Cause (first observed failure)"):]
    assert "rank      : 1 (local_rank: 1)" in root and "error_file: <N/A>" not in root
    assert "[batchnorm-single-value" in root  # torchrun's own summary carries the explanation
    ours = err[err.index("\ntorchdoctor run: "):]
    assert "rank 1 failed" in ours and "ValueError: Expected more than 1 value per channel" in ours
    assert "more: torchdoctor kb show batchnorm-single-value" in ours
    assert "rank 0 failed" not in ours  # rank 0 was stopped by torchrun: collateral


def _recorded_rank_records(run_dir, log):
    """The per-rank records the child hook wrote for the H200 torchrun job in tests/fixtures/gpu_machine."""
    from torchdoctor.hook import explanation_text

    def rank_traceback(rank):
        return "\n".join(line[len(f"[rank{rank}]: "):] for line in log.splitlines() if line.startswith(f"[rank{rank}]: "))

    for rank, error, when in ((1, "AcceleratorError: CUDA error: device-side assert triggered", 1.0),
                              (0, "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:547] "
                                  "Connection closed by peer [127.0.0.1]:1415", 2.0)):
        tb = rank_traceback(rank)
        (run_dir / f"rank_{rank}_{100 + rank}.json").write_text(json.dumps(
            {"rank": rank, "pid": 100 + rank, "error": error, "traceback": tb,
             "explanation": explanation_text(tb), "time": when}))


def test_a_rank_s_device_side_assert_is_explained_by_the_kernel_line_in_the_log(tmp_path):
    # Recorded on an H200: the kernel's assertion reaches stderr unprefixed, never a traceback.
    log = (Path(__file__).parent / "fixtures" / "gpu_machine" / "m2-torchrun-rank1-assert.txt").read_text()
    _recorded_rank_records(tmp_path, log)
    text = supervise.explain_failure(["torchrun", "--nproc_per_node", "2", "rank_fails.py"], 1, "", log, str(tmp_path))
    root, collateral = text.split("torchdoctor run: rank 0 failed:")
    assert "rank 1 failed first (the root cause)" in root and "[embedding-index-out-of-range" in root
    assert "collateral of rank 1's failure above" in collateral and "no knowledge entry" not in collateral


def test_without_a_kernel_line_the_assert_stays_generic_and_a_lone_rank_is_not_called_collateral(tmp_path):
    log = (Path(__file__).parent / "fixtures" / "gpu_machine" / "m2-torchrun-rank1-assert.txt").read_text()
    _recorded_rank_records(tmp_path, log)
    no_kernel_line = "\n".join(line for line in log.splitlines() if "Assertion `" not in line)
    text = supervise.explain_failure(["torchrun", "rank_fails.py"], 1, "", no_kernel_line, str(tmp_path))
    assert "[cuda-device-side-assert" in text and "[embedding-index-out-of-range" not in text
    (tmp_path / "rank_1_101.json").unlink()
    alone = supervise.explain_failure(["torchrun", "rank_fails.py"], 1, "", no_kernel_line, str(tmp_path))
    assert "collateral of" not in alone and "[gloo-peer-connection-closed" in alone
