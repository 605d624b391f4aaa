"""Issue 11, section 4: whatever a command is given, torchdoctor answers with its report or with one
`torchdoctor: error: ...` line and a non-zero status: never a traceback, never an internal error,
never a check that crashed on the input (☠).

Each command's inputs are fuzzed with hypothesis, in this process through `torchdoctor.cli.main`
(the entry point the console script calls), from realistic seeds mutated: saved facts with leaves
replaced by other types or non-version strings, checkpoints with bytes flipped or cut, logs in
other encodings, source files with odd bytes, input specs, rule codes, knowledge ids.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchdoctor.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FUZZ = settings(max_examples=int(os.environ.get("TORCHDOCTOR_FUZZ_EXAMPLES", "40")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


class _Kept(io.BytesIO):
    """Outlives its TextIOWrapper (which closes what it wraps when collected)."""

    def close(self) -> None:
        pass


@contextmanager
def _streams(stdin: bytes | None):
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = _Kept(), _Kept()
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    try:
        yield out, err
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved


def call(argv: list[str], stdin: bytes | None = None, cwd: str | None = None) -> tuple[int, str, str]:
    here = os.getcwd()
    env_before = os.environ.get("TORCHDOCTOR_DEBUG")
    os.environ.pop("TORCHDOCTOR_DEBUG", None)
    try:
        if cwd:
            os.chdir(cwd)
        with _streams(stdin) as (out, err):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0
        return code, out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    finally:
        os.chdir(here)
        if env_before is not None:
            os.environ["TORCHDOCTOR_DEBUG"] = env_before


def assert_clean(code: int, out: str, err: str, argv) -> None:
    where = f"{argv}: status {code}, stderr {err[-500:]!r}"
    assert "Traceback" not in err, where  # (stdout may quote the user's own traceback)
    assert "internal error" not in err, where
    # The crash marker opens a result line; a hostile value quoted inside a message may hold it too.
    crashed = [line for line in out.splitlines() if line.lstrip().startswith("☠")]
    assert not crashed and "the check itself failed" not in out, where + f" stdout {out[-800:]!r}"
    if code == 2:
        lines = err.splitlines()
        assert len(lines) >= 1 and lines[-1].startswith("torchdoctor: "), where
        assert len([line for line in lines if line.startswith("torchdoctor: error")]) <= 1, where
    assert code in (0, 1, 2), where


# --------------------------------------------------------------------------- env --facts

def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _leaves(v, path + (i,))
    else:
        yield path


FACT_SEEDS = sorted((FIXTURES / "facts").glob("*.json"))
hostile_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=True),
    st.text(max_size=30), st.sampled_from(["not a version ¤", "", "12.x", "-1", "v", "9" * 400, "nan", "sm_80"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.recursive(st.none(), lambda inner: st.lists(inner, max_size=2), max_leaves=4),
)


@FUZZ
@given(seed=st.sampled_from(FACT_SEEDS), data=st.data())
def test_env_facts_fuzz(seed, data):
    doc = json.loads(seed.read_text())
    leaves = [p for p in _leaves(doc["facts"])]
    for _ in range(data.draw(st.integers(1, 4))):
        path = data.draw(st.sampled_from(leaves))
        node = doc["facts"]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = data.draw(hostile_values)
    with tempfile.TemporaryDirectory() as tmp:
        facts = os.path.join(tmp, "facts.json")
        with open(facts, "w") as fh:
            json.dump(doc, fh)
        for fmt in ("text", "json"):
            argv = ["env", "--facts", facts, "--format", fmt]
            assert_clean(*call(argv), argv)


@FUZZ
@given(text=st.one_of(st.binary(max_size=2000), st.text(max_size=2000).map(str.encode)))
def test_env_facts_bytes_fuzz(text):
    seed = (FIXTURES / "facts" / "laptop-no-gpu.json").read_bytes()
    for payload in (text, seed[: len(text) % max(1, len(seed))] + text):
        argv = ["env", "--facts", "-"]
        assert_clean(*call(argv, stdin=payload), argv)


# --------------------------------------------------------------------------- explain

LOG_SEED = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
            "of 15.78 GiB of which 1.10 GiB is free.\n")


@FUZZ
@given(extra=st.text(max_size=500), encoding=st.sampled_from(["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1"]),
       cut=st.integers(0, 400), junk=st.binary(max_size=64))
def test_explain_fuzz(extra, encoding, cut, junk):
    text = LOG_SEED + extra
    data = text.encode(encoding, "replace")
    data = data[: len(data) - cut % max(1, len(data))] + junk
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.txt")
        with open(log, "wb") as fh:
            fh.write(data)
        for argv, stdin in ((["explain", "--file", log], None), (["explain", "-"], data),
                            (["explain", "-f", "json", "--file", log], None)):
            assert_clean(*call(argv, stdin=stdin), argv)
    argv = ["explain", text.replace("\x00", "")]
    if text.replace("\x00", ""):
        assert_clean(*call(argv), argv)


def test_explain_reads_utf16_logs_as_powershell_writes_them(tmp_path):
    for encoding, bom in (("utf-16", b""), ("utf-16-le", b""), ("utf-16-be", b"")):
        log = tmp_path / f"{encoding}.txt"
        log.write_bytes(bom + LOG_SEED.replace("\n", "\r\n").encode(encoding))
        code, out, err = call(["explain", "--file", str(log)])
        assert code == 0 and "cuda-out-of-memory" in out, (encoding, err)


def test_explain_with_stdin_closed_is_one_line():
    saved = sys.stdin
    sys.stdin = None  # what Python sets when fd 0 is closed (`torchdoctor explain - <&-`)
    try:
        with _streams(None) as (out, err):
            sys.stdin = None
            try:
                main(["explain", "-"])
            except SystemExit as exc:
                code = exc.code
        text = err.getvalue().decode()
    finally:
        sys.stdin = saved
    assert code == 2 and text == "torchdoctor: error: standard input is closed: pipe the log in, or give --file LOG\n"


# --------------------------------------------------------------------------- check

@FUZZ
@given(source=st.one_of(st.binary(max_size=400), st.text(max_size=400).map(lambda t: t.encode("utf-8", "surrogatepass"))),
       pyproject=st.one_of(st.none(), st.binary(max_size=200),
                           st.sampled_from([b"[tool.torchdoctor]\nselect = 3\n", b"[tool.torchdoctor]\nexclude = [1]\n",
                                            b"[tool]\ntorchdoctor = 1\n", b"[" * 5000])),
       fmt=st.sampled_from(["text", "json", "sarif", "github"]))
def test_check_fuzz(source, pyproject, fmt):
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "train.py").write_bytes(b"import torch\ntorch.set_grad_enabled(False)\n" + source)
        Path(tmp, "other.py").write_bytes(source)
        if pyproject is not None:
            Path(tmp, "pyproject.toml").write_bytes(pyproject)
        for argv in (["check", "--no-cache", "-j", "1", "--format", fmt], ["check", "--no-cache", "-j", "1", "--diff"]):
            assert_clean(*call(argv, cwd=tmp), argv)


@pytest.mark.parametrize("args", [["-o", "."], ["-o", "no/such/dir/report.txt"], ["--select", "☠"], ["--target-torch", "x.y"],
                                  ["no-such-path.py"], ["--jobs", "0"]])
def test_check_bad_arguments_are_one_line(tmp_path, args):
    (tmp_path / "train.py").write_text("import torch\n")
    code, out, err = call(["check", "--no-cache", *args], cwd=str(tmp_path))
    assert_clean(code, out, err, args)
    assert code != 0


# --------------------------------------------------------------------------- inspect, ci, ckpt convert

_SEED_MAKER = """
import sys, torch
out = sys.argv[1]
sd = {"layer.weight": torch.randn(3, 4), "layer.bias": torch.zeros(3), "steps": torch.tensor([7]),
      "mask": torch.ones(2, dtype=torch.bool), "half": torch.randn(2, 2).half()}
torch.save(sd, out + "/zip.pt")
torch.save({"model": sd, "epoch": 3, "args": {"lr": 0.1, "name": "run"}}, out + "/nested.pt")
torch.save(sd, out + "/legacy.pt", _use_new_zipfile_serialization=False)
torch.save({"view": torch.arange(12.0).reshape(3, 4)[:, 1:3]}, out + "/view.pt")
"""


def _checkpoint_seeds() -> dict[str, bytes]:
    """Real checkpoints, written by torch in a child process (this one never imports torch)."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        made = subprocess.run([sys.executable, "-c", _SEED_MAKER, tmp], capture_output=True, timeout=300)
        if made.returncode != 0:
            return {}
        return {name: Path(tmp, name).read_bytes() for name in sorted(os.listdir(tmp))}


CKPT_SEEDS = _checkpoint_seeds()


def _encrypted(data: bytes) -> bytes:
    """The zip's entries marked encrypted (general purpose flag bit 0), as in the report."""
    b = bytearray(data)
    for sig, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = b.find(sig)
        while i >= 0:
            b[i + at] |= 1
            i = b.find(sig, i + 4)
    return bytes(b)


@pytest.mark.skipif(not CKPT_SEEDS, reason="no checkpoint fixtures")
@FUZZ
@given(seed=st.sampled_from(sorted(CKPT_SEEDS) or ["none"]), data=st.data())
def test_inspect_fuzz(seed, data):
    raw = bytearray(CKPT_SEEDS[seed])
    how = data.draw(st.sampled_from(["flip", "cut", "encrypt", "splice"]))
    if how == "flip" and raw:
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
    elif how == "cut":
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    elif how == "encrypt":
        raw = bytearray(_encrypted(bytes(raw)))
    else:
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(max_size=64))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        with open(path, "wb") as fh:
            fh.write(bytes(raw))
        for argv in (["inspect", path], ["inspect", "--tensors", "--tree", "-f", "json", path],
                     ["ci", "--quick", "--checkpoint", path, tmp]):
            code, out, err = call(argv, cwd=tmp)
            assert_clean(code, out, err, argv)


@pytest.mark.skipif(not CKPT_SEEDS, reason="no checkpoint fixtures")
def test_convert_hostile_inputs_are_one_line(tmp_path):
    for seed, raw in CKPT_SEEDS.items():
        for name, data in (("enc", _encrypted(raw)), ("cut", raw[:100])):
            if data == raw:  # the legacy format has no zip entries to mark
                continue
            src = tmp_path / f"{seed}-{name}.pt"
            src.write_bytes(data)
            argv = ["ckpt", "convert", str(src), str(tmp_path / "out.pt")]
            code, out, err = call(argv)
            assert_clean(code, out, err, argv)
            assert code != 0 and not (tmp_path / "out.pt").exists()


# --------------------------------------------------------------------------- model --input, kb, rule

@FUZZ
@given(spec=st.one_of(
    st.text(max_size=80),
    st.integers(0, 300).map(lambda n: f"randn({', '.join(['1'] * n)})"),
    st.integers(0, 3000).map(lambda n: "[" * n + "randn(2, 4)" + "]" * n),
    st.integers(0, 3000).map(lambda n: "tensor(" + "[" * n + "1" + "]" * n + ")"),
    st.sampled_from(["randn(-1)", "randn(2**80)", "zeros(1e9, 1e9)", "randint(5, 1, (2,))", "{1.5: randn(2)}",
                     "randn(2, dtype='evil')", "__import__('os')", "randn(2)" * 3]),
))
def test_model_input_spec_fuzz(spec):
    from torchdoctor.runtime.model_spec import SpecError, parse_input_spec

    try:
        parse_input_spec(spec)
    except SpecError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400


def test_model_input_over_64_dimensions_is_one_line(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\ndef lin():\n    return torch.nn.Linear(4, 2)\n")
    for spec in ("randn(" + ", ".join(["1"] * 70) + ")", "[" * 3000 + "randn(2, 4)" + "]" * 3000):
        code, out, err = call(["model", "m.py:lin", "--input", spec], cwd=str(tmp_path))
        assert code == 2 and err.count("\n") == 1 and err.startswith("torchdoctor: error: --input: "), err
        assert len(err) < 400


@FUZZ
@given(word=st.text(max_size=40))
def test_kb_and_rule_lookups_fuzz(word):
    for argv in (["kb", "show", word], ["rule", word], ["env", word, "--facts", str(FIXTURES / "facts" / "laptop-no-gpu.json")]):
        if word.startswith("-"):
            argv = argv[:2] + ["--", word] if argv[0] == "kb" else argv
        assert_clean(*call(argv), argv)
    if word.strip():
        argv = ["kb", "search", word]
        assert_clean(*call(argv), argv)


def test_run_with_stdout_closed_is_one_line():
    saved = sys.stdout
    try:
        with _streams(None) as (out, err):
            sys.stdout = None
            try:
                main(["run", "--", sys.executable, "-c", "print(1)"])
            except SystemExit as exc:
                code = exc.code
            text = err.getvalue().decode()
    finally:
        sys.stdout = saved
    assert code == 2 and text.startswith("torchdoctor: error: standard output is closed") and text.count("\n") == 1
