"""`torchdoctor explain`, the parser under it, the Python API and the exception hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import torchdoctor
from torchdoctor.kb import explain
from torchdoctor.kb.parse import normalize_line, parse

ASSERT = """Traceback (most recent call last):
  File "train.py", line 214, in train_one_epoch
    total_loss += loss.item() * batch_size
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""


def cli(*args: str, input: str | bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchdoctor", *args], capture_output=True,
                          input=input.encode() if isinstance(input, str) else input,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "100", **(env or {})}, timeout=120)


# ------------------------------------------------------------------ normalisation and structure

@pytest.mark.parametrize("raw,clean", [
    ("\x1b[31mRuntimeError: boom\x1b[0m\r\n", "RuntimeError: boom"),
    ("[rank3]: RuntimeError: boom", "RuntimeError: boom"),
    ("[default0]:Traceback (most recent call last):", "Traceback (most recent call last):"),
    ("2024-05-01 12:00:00,123 - ERROR - RuntimeError: boom", "ERROR - RuntimeError: boom"),
    ("W0501 12:00:00.123000 1234 torch/distributed/run.py:792] Setting OMP_NUM_THREADS", "Setting OMP_NUM_THREADS"),
    ("epoch 1: 10%|#         | 1/10\repoch 1: 20%|##        | 2/10", "epoch 1: 20%|##        | 2/10"),
])
def test_normalize_line(raw, clean):
    assert normalize_line(raw) == clean


def test_chained_exception_marks_the_cause():
    text = textwrap.dedent("""\
        Traceback (most recent call last):
          File "a.py", line 3, in load
            return torch.load(p)
        RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory

        The above exception was the direct cause of the following exception:

        Traceback (most recent call last):
          File "main.py", line 9, in <module>
            load_model()
        ValueError: could not load the model
        """)
    blocks = parse(text).exceptions
    assert [(b.type, b.role) for b in blocks] == [("RuntimeError", "cause"), ("ValueError", "final")]
    assert blocks[0].frames == ["a.py:3 in load"]


def test_dataloader_worker_original_error_is_found_with_its_frames():
    text = textwrap.dedent("""\
        Traceback (most recent call last):
          File "train.py", line 10, in <module>
            for batch in loader:
          File "/venv/torch/utils/data/dataloader.py", line 1345, in _process_data
            data.reraise()
        KeyError: Caught KeyError in DataLoader worker process 0.
        Original Traceback (most recent call last):
          File "/venv/torch/utils/data/_utils/worker.py", line 308, in _worker_loop
            data = fetcher.fetch(index)
          File "dataset.py", line 20, in __getitem__
            return self.items[idx]
        KeyError: 'label'
        """)
    blocks = parse(text).exceptions
    assert [(b.message, b.role, b.in_worker) for b in blocks] == [
        ("Caught KeyError in DataLoader worker process 0.", "final", False), ("'label'", "worker", True)]
    assert blocks[1].frames[-1] == "dataset.py:20 in __getitem__"


def test_ranks_and_torchrun_summary():
    text = textwrap.dedent("""\
        [rank1]: Traceback (most recent call last):
        [rank1]:   File "train.py", line 5, in <module>
        [rank1]: RuntimeError: CUDA error: device-side assert triggered
        E0501 12:00:00.123000 1234 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1
        Traceback (most recent call last):
          File "/usr/bin/torchrun", line 8, in <module>
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
        ============================================================
        train.py FAILED
        """)
    blocks = parse(text).exceptions
    assert blocks[0].rank == 1 and blocks[0].role == "rank"
    assert blocks[-1].type.endswith("ChildFailedError") and blocks[-1].role == "final"
    # The wrapper is weak evidence; the rank's own error is the answer.
    assert torchdoctor.explain(text)[0].id == "cuda-device-side-assert"


def test_c10_error_what_line_counts_as_an_exception():
    text = "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: device-side assert triggered\n"
    assert [b.type for b in parse(text).exceptions] == ["c10::Error"]
    assert torchdoctor.explain(text)[0].id == "cuda-device-side-assert"


def test_logging_levels_in_front_of_an_exception():
    for line in ("ERROR:root:RuntimeError: boom", "2024-05-01 12:00:00,123 - trainer - ERROR - RuntimeError: boom"):
        assert [(b.type, b.message) for b in parse(line).exceptions] == [("RuntimeError", "boom")]


def test_ctrl_c_echo_and_exc_module_types():
    text = "^CTraceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nKeyboardInterrupt\n"
    assert [(b.type, b.frames) for b in parse(text).exceptions] == [("KeyboardInterrupt", ["t.py:1 in <module>"])]
    blocks = parse("torch._inductor.exc.TritonMissing: Cannot find a working triton installation.\n").exceptions
    assert [b.type for b in blocks] == ["torch._inductor.exc.TritonMissing"]


def test_undecodable_bytes_are_replaced_not_fatal():
    blocks = parse(b"RuntimeError: caf\xe9 \xff\xfe CUDA error: device-side assert triggered\n").exceptions
    assert blocks and "\ufffd" in blocks[0].message


def test_a_warning_far_up_does_not_outrank_the_final_error():
    text = ("UserWarning: CUDA error: device-side assert triggered was seen in a previous run\n"
            + "step 1 loss 0.5\n" * 200 + ASSERT)
    best = torchdoctor.explain(text)[0]
    assert best.id == "cuda-device-side-assert"
    assert best.evidence[0].line > 200, "the evidence is the final error, not the warning"


# ------------------------------------------------------------------ CLI

def test_explain_text_argument():
    proc = cli("explain", ASSERT)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert out.startswith("CUDA device-side assert triggered")
    for section in ("What happened", "Why", "Fix", "CUDA_LAUNCH_BLOCKING=1 python train.py"):
        assert section in out


def test_explain_stdin_and_file(tmp_path):
    proc = cli("explain", "-", input=ASSERT)
    assert proc.returncode == 0 and b"cuda-device-side-assert" in proc.stdout
    log = tmp_path / "train.log"
    log.write_bytes(b"epoch 1 step 1 loss 2.0\n" * 1000 + ASSERT.encode())
    proc = cli("explain", "--file", str(log), "--format", "json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert data["schema"] == "torchdoctor.explain/v1"
    assert data["error"]["type"] == "RuntimeError" and data["error"]["line"] == 1004
    assert data["matches"][0]["id"] == "cuda-device-side-assert"
    assert set(data["matches"][0]) >= {"id", "title", "confidence", "captures", "evidence", "fixes"}


def test_no_match_says_so_and_exits_1():
    proc = cli("explain", "ValueError: the frobnicator is out of flux")
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "No confident match" in out and "ValueError: the frobnicator is out of flux" in out
    data = json.loads(cli("explain", "ValueError: the frobnicator is out of flux", "--format", "json").stdout)
    assert data["matches"] == [] and data["error"]["type"] == "ValueError"


@pytest.mark.parametrize("args", [(), ("x", "--file", "y"), ("",)])
def test_explain_usage_errors(args):
    proc = cli("explain", *args)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert proc.stderr.decode().count("\n") == 1


def test_explain_missing_file(tmp_path):
    proc = cli("explain", "--file", str(tmp_path / "nope.log"))
    assert proc.returncode == 2 and b"No such file" in proc.stderr


def test_explain_with_env_reports_what_this_machine_says():
    data = json.loads(cli("explain", ASSERT, "--env", "--format", "json").stdout)
    match = data["matches"][0]
    assert "env" in match  # TE209 (debug switches) is this entry's related check
    assert all(n["code"] in match["related"] for n in match["env"])


def test_kb_commands():
    assert cli("kb", "list").returncode == 0
    shown = cli("kb", "show", "cuda-device-side-assert")
    assert shown.returncode == 0 and b"CUDA_LAUNCH_BLOCKING" in shown.stdout
    missing = cli("kb", "show", "cuda-device-side-asert")
    assert missing.returncode == 2 and b"did you mean cuda-device-side-assert" in missing.stderr
    found = cli("kb", "search", "device", "assert")
    assert found.returncode == 0 and found.stdout.startswith(b"cuda-device-side-assert")
    assert cli("kb", "search", "zzyzx-nothing").returncode == 1


def test_explain_never_imports_torch():
    code = ("import sys; from torchdoctor.cli import main\n"
            "try:\n    main(['explain', 'RuntimeError: CUDA error: device-side assert triggered'])\n"
            "except SystemExit: pass\n"
            "assert 'torch' not in sys.modules, 'explain imported torch'\n"
            "try:\n    main(['kb', 'list'])\n"
            "except SystemExit: pass\n"
            "assert 'torch' not in sys.modules, 'kb imported torch'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ API and hook

def test_python_api():
    matches = torchdoctor.explain(ASSERT)
    assert matches[0].id == "cuda-device-side-assert" and 0.5 <= matches[0].confidence <= 1
    assert torchdoctor.explain("all good, nothing failed") == []


HOOKED = """
import sys, threading, torchdoctor
torchdoctor.install()
if sys.argv[1] == "thread":
    t = threading.Thread(target=lambda: (_ for _ in ()).throw(RuntimeError("CUDA error: device-side assert triggered")))
    t.start(); t.join()
    sys.exit(0)
raise RuntimeError("CUDA error: device-side assert triggered")
"""


def test_hook_keeps_traceback_and_status_and_adds_the_explanation(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(HOOKED)
    plain = subprocess.run([sys.executable, "-c", "raise RuntimeError('CUDA error: device-side assert triggered')"],
                           capture_output=True, text=True)
    hooked = subprocess.run([sys.executable, str(script), "main"], capture_output=True, text=True)
    assert hooked.returncode == plain.returncode == 1
    assert "Traceback (most recent call last)" in hooked.stderr
    assert hooked.stderr.index("RuntimeError: CUDA error") < hooked.stderr.index("torchdoctor: CUDA device-side assert")
    threaded = subprocess.run([sys.executable, str(script), "thread"], capture_output=True, text=True)
    assert threaded.returncode == 0 and "torchdoctor: CUDA device-side assert" in threaded.stderr


def test_hook_module_runs_a_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import sys\nprint('args', sys.argv[1:])\nraise RuntimeError('CUDA error: device-side assert triggered')\n")
    proc = subprocess.run([sys.executable, "-m", "torchdoctor.hook", str(script), "--lr", "0.1"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "args ['--lr', '0.1']" in proc.stdout
    assert "[cuda-device-side-assert" in proc.stderr


def test_hook_is_quiet_for_unknown_errors_and_keyboard_interrupt(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torchdoctor\ntorchdoctor.install()\nraise ValueError('my own bug')\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert proc.returncode == 1 and "torchdoctor:" not in proc.stderr and "ValueError: my own bug" in proc.stderr


def test_ipython_handler_is_installed_and_explains():
    ipython = pytest.importorskip("IPython")
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    import io

    from torchdoctor import hook

    out = io.StringIO()
    try:
        hook.install(stream=out)
        assert hook._installed.get("ipython") is shell
        shell.run_cell("raise RuntimeError('CUDA error: device-side assert triggered')")
    finally:
        hook.uninstall()
    assert "[cuda-device-side-assert" in out.getvalue()
    assert ipython is not None


def test_large_file_parallel_scan_equals_sequential(tmp_path):
    # > PARALLEL_MIN_BYTES, with tracebacks straddling the 4 Mi-character chunk boundaries.
    from torchdoctor.kb import parse as P

    filler = "epoch 1 step 17 loss 0.1234 lr 3e-4 tok/s 51234 " * 2 + "\n"
    parts, size, k = [], 0, 0
    while size < P.PARALLEL_MIN_BYTES + (2 << 20):
        parts.append(filler * 30000)
        parts.append(ASSERT.replace("214", str(k)))
        size += len(filler) * 30000 + len(ASSERT)
        k += 1
    text = "".join(parts)
    path = tmp_path / "big.log"
    path.write_text(text)
    with open(path, "rb") as fh:
        parallel = P.parse(fh)
    sequential = P.parse(text)
    key = lambda p: [(b.type, b.message, b.line_no, b.role, tuple(b.frames)) for b in p.exceptions]  # noqa: E731
    assert key(parallel) == key(sequential)
    assert parallel.total_lines == sequential.total_lines == text.count("\n")
    assert len(parallel.exceptions) == k
    # line numbers are right: each exception sits on the line its text says
    lines = text.split("\n")
    for block in parallel.exceptions:
        assert lines[block.line_no - 1].startswith("RuntimeError: CUDA error")


WARNING_AFTER_ERROR = '''Traceback (most recent call last):
  File "train.py", line 3, in <module>
    loss = crit(out, y)
RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity)
/usr/lib/python3/site-packages/torch/optim/lr_scheduler.py:136: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order
'''


def test_a_warning_printed_after_the_error_is_not_more_of_its_message():
    # Python's warnings format ("<file>.py:<line>: <Category>: ...") starts a record of its own: the warning is
    # evidence at a warning's rank, below the exception it followed.
    parsed = parse(WARNING_AFTER_ERROR)
    assert parsed.final.text.endswith("10.76 GiB total capacity)")
    assert [m.id for m in explain(parsed)] == ["cuda-out-of-memory", "lr-scheduler-step-order"]


def test_a_message_line_that_quotes_a_py_path_is_still_its_message():
    text = ('Traceback (most recent call last):\n  File "run.py", line 9, in <module>\n'
            "RuntimeError: Error(s) in loading state_dict for Net:\n"
            '\tMissing key(s) in state_dict: "fc.weight" (see models/net.py:12 for the layer)\n')
    assert "Missing key(s)" in parse(text).final.text
