"""Issue 11, section 3: no hang and no memory blow-up from hostile input.

- `check` reads only regular files, bounded on the open descriptor (a FIFO named `*.py`, a
  `*.py -> /dev/zero` link in a pull request).
- The child probes (`import torch`, `--python`) run in their own session: a grandchild that keeps
  the pipe open cannot keep torchdoctor waiting, it does not outlive the probe, and a hang is TE101.
- `model`: a forward that exits the process is a failed probe, not a healthy model.
- `run`: merged stdout/stderr keep their order; a grandchild's late output is not dropped.

The subprocess timeouts below are not thresholds on speed: each is far above a healthy run and
only turns the old infinite wait into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from torchdoctor.facts import Target, torch_probe
from torchdoctor.facts.model import Facts, PythonFacts
from torchdoctor.registry import find_env_check
from torchdoctor.runner import run_check

BAD = "import torch\ntorch.set_grad_enabled(False)\n"


def torchdoctor(cwd, *args, env=None, timeout=120, stdin=None):
    full = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True, text=True,
                          cwd=cwd, env=full, timeout=timeout, stdin=stdin)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int) -> bool:
    for _ in range(100):  # the kill is sent before the probe returns; reaping is init's business
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


# --------------------------------------------------------------------------- check: what it reads

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_check_skips_a_fifo_and_a_link_to_dev_zero(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    os.mkfifo(tmp_path / "pipe.py")  # nothing ever writes to it: reading it waits forever
    (tmp_path / "zero.py").symlink_to("/dev/zero")  # endless bytes
    os.mkfifo(tmp_path / ".gitignore")
    proc = torchdoctor(tmp_path, "check", "--no-cache", timeout=60)
    assert proc.returncode == 1 and "TD106" in proc.stdout
    assert "pipe.py: error: not checked: not a regular file (a named pipe)" in proc.stdout
    assert "zero.py: error: not checked: not a regular file (a character device)" in proc.stdout
    named = torchdoctor(tmp_path, "check", "--no-cache", "pipe.py", timeout=60)  # given by name
    assert named.returncode == 1 and "not a regular file" in named.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_check_never_waits_on_a_fifo_for_its_configuration(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    os.mkfifo(tmp_path / "pyproject.toml")
    proc = torchdoctor(tmp_path, "check", "--no-cache", timeout=60)
    assert proc.returncode == 1 and "TD106" in proc.stdout


# --------------------------------------------------------------------------- child probes

def fake_torch(root, init):
    (root / "torch").mkdir(parents=True)
    (root / "torch" / "__init__.py").write_text(textwrap.dedent(init))
    (root / "torch" / "version.py").write_text("__version__ = '2.99.0'\ncuda = None\n")
    return root


# A child that inherits the probe's stdout and stderr and never closes them.
KEEPER = textwrap.dedent("""
    import os, subprocess, sys
    keeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    open(os.environ["KEEPER_PID"], "w").write(str(keeper.pid))
""")


def test_an_import_that_leaves_a_child_holding_the_pipe_is_collected_and_the_child_killed(tmp_path):
    root = fake_torch(tmp_path / "site", KEEPER + "\nfrom .version import __version__\n")
    env = {**os.environ, "PYTHONPATH": str(root), "KEEPER_PID": str(tmp_path / "pid")}
    t = torch_probe.collect(Target(python=sys.executable, is_current=False, environ=env, probe_timeout=60.0),
                            PythonFacts())
    assert t.import_status == "ok" and t.version == "2.99.0"
    assert wait_gone(int((tmp_path / "pid").read_text()))  # no grandchild survives the probe


def test_a_hung_import_with_a_child_holding_the_pipe_is_te101_not_a_skip(tmp_path):
    root = fake_torch(tmp_path / "site", KEEPER + "\nimport time\ntime.sleep(300)\n")
    proc = torchdoctor(tmp_path, "env", "TE101", "--timeout", "3", "--format", "json", timeout=90,
                       env={"PYTHONPATH": str(root), "KEEPER_PID": str(tmp_path / "pid")})
    (finding,) = json.loads(proc.stdout)["findings"]
    assert (finding["code"], finding["status"]) == ("TE101", "error"), finding
    assert proc.returncode == 1
    assert wait_gone(int((tmp_path / "pid").read_text()))


def test_an_import_that_prints_without_end_keeps_bounded_output(tmp_path):
    # 64 MiB on stdout, then the report: only the tail is kept, and it holds the report.
    root = fake_torch(tmp_path / "site", """
        import os
        block = b"x" * (1 << 20)
        for _ in range(64):
            os.write(1, block)
        from .version import __version__
    """)
    env = {**os.environ, "PYTHONPATH": str(root)}
    t = torch_probe.collect(Target(python=sys.executable, is_current=False, environ=env, probe_timeout=60.0),
                            PythonFacts())
    assert t.import_status == "ok" and t.version == "2.99.0"


def test_env_python_on_a_wrapper_that_backgrounds_a_child_returns(tmp_path):
    wrapper = tmp_path / "python"
    wrapper.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {tmp_path / 'pid'}\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    proc = torchdoctor(tmp_path, "env", "--python", str(wrapper), "--quick", "--format", "json", timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    assert json.loads(proc.stdout)["facts"]["python"]["executable"]
    assert wait_gone(int((tmp_path / "pid").read_text()))


def test_env_python_on_an_endless_writer_is_one_error_line_in_bounded_memory(tmp_path):
    writer = tmp_path / "python"
    writer.write_text("#!/bin/sh\nexec yes torchdoctor\n")
    writer.chmod(0o755)
    # torchdoctor runs under a fresh interpreter whose only child it is, so that interpreter's
    # RUSAGE_CHILDREN is torchdoctor's own peak memory.
    measure = ("import resource, subprocess, sys\n"
               "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n' + str(p.returncode) + '\\n' + p.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "torchdoctor", "env", "--python", str(writer),
                           "--quick", "--timeout", "5"], capture_output=True, text=True, cwd=tmp_path, timeout=90)
    peak_kib, code, stderr = proc.stdout.split("\n", 2)
    assert code == "2" and stderr.startswith("torchdoctor: error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    # Only the tail of the output is kept: a normal run's memory, not gigabytes of `yes`.
    assert int(peak_kib) < 512 * 1024, peak_kib


# --------------------------------------------------------------------------- model

EXITING_MODELS = '''
import os, sys
import torch


class Exits(torch.nn.Module):
    def __init__(self, how):
        super().__init__()
        self.lin = torch.nn.Linear(4, 2)
        self.how = how

    def forward(self, x):
        if self.how == "sys":
            sys.exit(0)
        os._exit(0)


def sys_exit():
    return Exits("sys")


def os_exit():
    return Exits("os")


def healthy():
    return torch.nn.Linear(4, 2)
'''


@pytest.mark.parametrize("factory, says", [("sys_exit", "sys.exit(0)"), ("os_exit", "exit status 0 before the probe finished")])
def test_a_forward_that_exits_the_process_is_a_failed_probe(tmp_path, factory, says):
    (tmp_path / "exiting.py").write_text(EXITING_MODELS)
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "model", f"exiting.py:{factory}", "--input", "randn(2, 4)",
                           "--no-export", "--format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    failed = [f for f in json.loads(proc.stdout)["findings"] if f["status"] == "error"]
    assert failed and says in failed[0]["message"] and "forward" in failed[0]["message"]


def test_a_healthy_model_still_passes(tmp_path):
    (tmp_path / "exiting.py").write_text(EXITING_MODELS)
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "model", "exiting.py:healthy", "--input", "randn(2, 4)",
                           "--no-export", "--format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout


# --------------------------------------------------------------------------- run

INTERLEAVED = "import sys\nfor i in range(300):\n    print('out', i, flush=True)\n    print('err', i, file=sys.stderr, flush=True)\n"


def test_run_keeps_the_order_of_merged_stdout_and_stderr(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(INTERLEAVED)
    direct = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    # `torchdoctor run -- python train.py 2>&1 | tee log`: both of our streams are one pipe.
    via = subprocess.run([sys.executable, "-m", "torchdoctor", "run", "--", sys.executable, str(script)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    assert via.returncode == 0 and via.stdout == direct.stdout


def test_run_with_separate_streams_still_separates_them(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(INTERLEAVED)
    via = subprocess.run([sys.executable, "-m", "torchdoctor", "run", "--", sys.executable, str(script)],
                         capture_output=True, timeout=60)
    assert via.stdout == b"".join(b"out %d\n" % i for i in range(300))
    assert via.stderr == b"".join(b"err %d\n" % i for i in range(300))


def test_run_does_not_drop_a_grandchilds_late_output(tmp_path):
    script = tmp_path / "train.py"
    # The child exits at once; its background job (stderr closed) prints after it is gone.
    script.write_text("import subprocess\nsubprocess.Popen(['sh', '-c', 'exec 2>&-; sleep 6; echo late output'])\n"
                      "print('child done', flush=True)\n")
    via = subprocess.run([sys.executable, "-m", "torchdoctor", "run", "--", sys.executable, str(script)],
                         capture_output=True, timeout=60)
    assert via.returncode == 0
    assert via.stdout == b"child done\nlate output\n"
