"""The checkpoint gate against hostile files (issue 11) and its grading of benign ones (issue 14):
every file of the generated corpus (tests/hostile_checkpoints.py) is an error for `inspect` and a
failed `ci --checkpoint` gate, while plain state dicts, optimizer states and torch.save of tensors,
dicts and lists are clean. The payloads are proved real by one sandboxed control: a subprocess whose
working directory is a temporary directory loads them with torch.load(weights_only=False)."""

from __future__ import annotations

import argparse
import ast
import os
import pickle
import struct
import subprocess
import sys
from collections import OrderedDict

import pytest
from hostile_checkpoints import (
    AMBIGUOUS,
    LEGACY_MAGIC,
    PAYLOADS,
    corpus,
    duplicate_entry,
    g,
    legacy,
    os_system,
    u,
)
from torchdoctor.inspect import inspect_path, run_ckpt_rules
from torchdoctor.inspect.allowlist import RUNS_CODE, verdict
from torchdoctor.model import Status

ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400"}


def by_code(report):
    return {f.code: f for f in run_ckpt_rules(report)}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    files = corpus(lambda name: str(root / f"{name}.SENTINEL"))
    paths = {}
    for name, (data, runs) in files.items():
        path = root / f"{name}.pt"
        path.write_bytes(data)
        paths[name] = (path, runs)
    return root, paths


NAMES = sorted(corpus(lambda name: name))


@pytest.mark.parametrize("name", NAMES)
def test_every_hostile_file_is_an_error_and_nothing_runs(hostile, name):
    root, paths = hostile
    path, _ = paths[name]
    report = inspect_path(path, tensors=True, tree=True)
    found = by_code(report)
    assert not (root / f"{name}.SENTINEL").exists(), "inspecting ran the payload"
    errors = {code for code, f in found.items() if f.status is Status.ERROR}
    assert not {code for code, f in found.items() if f.status is Status.CRASH}, found
    if name in AMBIGUOUS:
        assert "TI113" in errors, (name, report.archive_problems)
    else:
        if name.startswith("legacy-tar"):
            assert "TI101" in errors
        assert "TI103" in errors, (name, report.format, report.globals, report.global_uses)
        assert found["TI104"].status is Status.SKIP  # nothing in a code-running file is offered for allowlisting
    if name.startswith("zip-") and name[4:] in {"duplicate-data-pkl", "two-central-directories",
                                                "DATA.PKL-case-decoy", "case-collision"}:
        assert "TI113" in errors, report.archive_problems


def test_the_payloads_really_run_under_torch_load(hostile, tmp_path):
    """The control, sandboxed: a subprocess in a temporary directory loads every file whose payload
    should run, with weights_only=False, and each creates its sentinel there."""
    root, paths = hostile
    runnable = [(name, str(path)) for name, (path, runs) in paths.items() if runs]
    for name, _ in runnable:
        if "imp-load-source" in name:  # the file imp.load_source executes
            (root / f"{name}.SENTINEL.py").write_text(f"open({str(root / (name + '.SENTINEL'))!r}, 'w').close()\n")
    code = ("import sys, warnings; warnings.simplefilter('ignore'); import torch\n"
            "for p in sys.argv[1:]:\n"
            "    try:\n        torch.load(p, weights_only=False)\n"
            "    except BaseException:\n        pass\n")
    subprocess.run([sys.executable, "-c", code, *[p for _, p in runnable]], cwd=tmp_path, capture_output=True,
                   timeout=300, env=ENV)
    missing = [name for name, _ in runnable if not (root / f"{name}.SENTINEL").exists()]
    for name in paths:  # before asserting: the other tests look for these files
        (root / f"{name}.SENTINEL").unlink(missing_ok=True)
    if sys.version_info >= (3, 12):
        missing = [m for m in missing if "imp-load-source" not in m]  # imp is gone from Python 3.12
    assert not missing, f"these payloads did not run, so their tests prove nothing: {missing}"


def test_ci_gate_fails_on_every_hostile_file(hostile, tmp_path):
    _, paths = hostile
    (tmp_path / "ok.py").write_text("x = 1\n")
    args = [a for path, _ in paths.values() for a in ("--checkpoint", str(path))]
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "ci", "--quick", *args, "ok.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=ENV)
    assert proc.returncode == 1 and "gate failed" in proc.stdout, proc.stderr[-2000:]
    flagged = {line.split(": ", 1)[0].split(" ", 3)[-1] for line in proc.stdout.splitlines() if "✗ " in line}
    missed = [name for name, (path, _) in paths.items() if str(path) not in flagged]
    assert not missed, missed


# --------------------------------------------------------------------------- benign files are clean
def _legacy_ordered_dict_pairs(prefix: str) -> bytes:
    """An old torch.save stream whose state dict is OrderedDict([[key, tensor], ...]), the form of
    the weights shipped in the lpips wheel: two float32 tensors [2] and [3]."""
    def tensor(key, n):
        storage = b"(" + u("storage") + g("torch", "FloatStorage") + u(key) + u("cpu") + b"J" + struct.pack("<i", n) + b"NtQ"
        return (g("torch._utils", "_rebuild_tensor_v2") + b"(" + storage + b"K\x00K" + bytes([n]) + b"\x85K\x01\x85"
                + b"\x89" + g("collections", "OrderedDict") + b")RtR")

    pairs = b"](" + b"".join(b"](" + u(f"{prefix}{k}") + tensor(str(i), n) + b"e" for i, (k, n) in
                             enumerate([("net.weight", 2), ("net.bias", 3)])) + b"e"
    obj = b"\x80\x02" + g("collections", "OrderedDict") + b"(" + pairs + b"tR."
    data = b"".join(struct.pack("<q", n) + struct.pack(f"<{n}f", *range(n)) for n in (2, 3))
    return legacy(obj, keys=pickle.dumps(["0", "1"], protocol=2)) + data


def _benign(root):
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))
    model(torch.randn(5, 4)).sum().backward()
    files = {}

    def save(name, obj, **kw):
        files[name] = root / name
        torch.save(obj, files[name], **kw)

    save("state_dict.pth", model.state_dict())
    save("state_dict_legacy.pth", model.state_dict(), _use_new_zipfile_serialization=False)
    for opt in (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), torch.optim.Adam(model.parameters()),
                torch.optim.AdamW(model.parameters(), weight_decay=0.1)):
        opt.step()
        save(f"optimizer_{type(opt).__name__}.pth", opt.state_dict())
    sched = torch.optim.lr_scheduler.StepLR(torch.optim.SGD(model.parameters(), lr=0.1), 3)
    save("training_state.pth", {"model": model.state_dict(), "optimizer": opt.state_dict(),
                                "scheduler": sched.state_dict(), "epoch": 3, "step": 120, "best": 0.25,
                                "name": "run-1", "losses": [1.0, 0.5], "flags": (True, None)})
    save("tensor.pth", torch.arange(10.0))
    save("tensors_list.pth", [torch.zeros(2, 2), torch.ones(3)])
    save("tensors_tuple.pth", (torch.zeros(1), {"x": torch.ones(1, dtype=torch.int8)}))
    save("dtypes.pth", {"bf16": torch.ones(2, dtype=torch.bfloat16), "fp16": torch.ones(2, dtype=torch.float16),
                        "bool": torch.tensor([True]), "u8": torch.ones(2, dtype=torch.uint8), "empty": torch.empty(0)})
    save("parameter.pth", torch.nn.Parameter(torch.ones(2)))
    save("empty.pth", {})
    files["legacy_pairs.pth"] = root / "legacy_pairs.pth"
    files["legacy_pairs.pth"].write_bytes(_legacy_ordered_dict_pairs(""))
    return files


@pytest.fixture(scope="module")
def benign(tmp_path_factory):
    return _benign(tmp_path_factory.mktemp("benign"))


def test_benign_files_are_clean(benign):
    for name, path in benign.items():
        report = inspect_path(path, tensors=True)
        noisy = {f.code: f.message for f in run_ckpt_rules(report) if f.status not in (Status.OK, Status.SKIP)}
        assert not noisy, (name, noisy)
        assert not verdict(report).get(RUNS_CODE) and not report.archive_problems, name


def test_benign_files_pass_the_ci_gate(benign, tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    args = [a for path in benign.values() for a in ("--checkpoint", str(path))]
    proc = subprocess.run([sys.executable, "-m", "torchdoctor", "ci", "--quick", *args, "ok.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=ENV)
    assert f"{len(benign)} checkpoints: no problems" in proc.stdout, proc.stdout[-3000:]
    assert "0 checkpoint errors" in proc.stdout


def test_torch_reads_the_hand_made_legacy_pairs_file(benign):
    import torch

    sd = torch.load(benign["legacy_pairs.pth"], weights_only=True)
    assert list(sd) == ["net.weight", "net.bias"] and sd["net.bias"].tolist() == [0.0, 1.0, 2.0]


def test_legacy_ordered_dict_pairs_is_a_state_dict(tmp_path, benign):
    """Issue 14 item 4: OrderedDict built from [key, value] pairs shows as a state dict, so the
    prefix rule and --against see it."""
    path = tmp_path / "dp_pairs.pth"
    path.write_bytes(_legacy_ordered_dict_pairs("module."))
    report = inspect_path(path)
    assert [sd.keys for sd in report.state_dicts] == [["module.net.weight", "module.net.bias"]]
    assert report.state_dicts[0].shapes == {"module.net.weight": [2], "module.net.bias": [3]}
    assert by_code(report)["TI107"].status is Status.WARNING
    from torchdoctor.inspect.against import compare, reference_shapes

    ref, label = reference_shapes(str(benign["legacy_pairs.pth"]))
    result = compare(report, ref, label)
    assert result["matched"] == 0 and result["missing"] == ["net.bias", "net.weight"]
    assert [e["kind"] for e in result["explanations"]] == ["prefix"]


# --------------------------------------------------------------------------- grading (issue 14 item 3)
SAVE_MAIN = """
import sys, torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
torch.save(Net(), sys.argv[1])
"""


def test_own_class_from_main_is_a_warning_not_code(tmp_path):
    path = tmp_path / "main_model.pth"
    subprocess.run([sys.executable, "-c", SAVE_MAIN, str(path)], check=True, timeout=120, cwd=tmp_path)
    found = by_code(inspect_path(path))
    assert found["TI103"].status is Status.OK, found["TI103"].message
    ti104 = found["TI104"]
    assert ti104.status is Status.WARNING and "__main__.Net" in ti104.message
    (snippet,) = [c for c in ti104.fix.commands if "add_safe_globals" in c]
    ast.parse(snippet)
    assert "add_safe_globals([Net, Linear])" in snippet and "__main__.Net" in snippet
    assert "state_dict" in ti104.fix.summary and "weights_only=False" in " ".join(ti104.fix.commands)


def test_own_package_class_snippet_makes_weights_only_load_work(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "models.py").write_text("import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
                                   "        super().__init__()\n        self.fc = torch.nn.Linear(2, 2)\n")
    path = tmp_path / "pkg_model.pth"
    env = {**ENV, "PYTHONPATH": str(tmp_path)}
    subprocess.run([sys.executable, "-c", "import sys, torch; from mypkg.models import Net; torch.save(Net(), sys.argv[1])",
                    str(path)], check=True, timeout=120, env=env)
    found = by_code(inspect_path(path))
    assert found["TI103"].status is Status.OK
    (snippet,) = [c for c in found["TI104"].fix.commands if "add_safe_globals" in c]
    assert "from mypkg.models import Net" in snippet
    done = subprocess.run([sys.executable, "-c", f"{snippet}\nimport sys; m = torch.load(sys.argv[1], weights_only=True)\n"
                           "assert type(m).__name__ == 'Net'", str(path)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]


def test_torchscript_archive_is_a_warning_with_jit_load(tmp_path):
    import torch

    path = tmp_path / "scripted.pt"
    torch.jit.save(torch.jit.script(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())), path)
    found = by_code(inspect_path(path))
    assert found["TI103"].status is Status.OK and found["TI113"].status is Status.OK
    assert found["TI110"].status is Status.WARNING and "torch.jit.load" in " ".join(found["TI110"].fix.commands)
    assert found["TI104"].status is Status.SKIP
    every_fix = " ".join(c for f in found.values() if f.fix for c in f.fix.commands)
    assert "__torch__" not in every_fix


def test_a_referenced_function_is_never_offered_for_allowlisting(tmp_path):
    import torch

    path = tmp_path / "encoder.pth"
    torch.save(torch.nn.TransformerEncoderLayer(4, 2), path)  # holds torch.nn.functional.relu as its activation
    ti104 = by_code(inspect_path(path))["TI104"]
    assert ti104.status is Status.WARNING
    assert "torch.nn.functional.relu" in ti104.evidence["functions and references (never allowlist)"]
    (snippet,) = [c for c in ti104.fix.commands if "add_safe_globals" in c]
    assert "relu" not in snippet and ast.parse(snippet)


def test_payload_classes_cover_the_issue():
    wanted = {"duplicate", "two-central", "DATA.PKL", "magic-protocol", "dotted-torch-os", "print-self-exec",
              "computed-stack", "pydoc", "pkgutil", "doctest", "dictconfig", "imp-", "importlib", "torch-fx",
              "distributed-run", "nested-torch-load", "nested-pickle", "inst-protocol-0"}
    names = " ".join(NAMES)
    assert all(w in names for w in wanted), [w for w in wanted if w not in names]
    assert len(PAYLOADS) >= 20


# --------------------------------------------------------------------------- the reader's corners
def test_protocol_0_inst_is_read_not_called_corrupt(tmp_path):
    path = tmp_path / "inst.pkl"
    path.write_bytes(b"(iargparse\nNamespace\n.")
    assert pickle.loads(path.read_bytes()) == argparse.Namespace()  # a valid pickle
    report = inspect_path(path)
    assert report.readable and report.root_type == "object argparse.Namespace"
    assert report.global_uses["argparse.Namespace"] == ["call"]
    assert by_code(report)["TI103"].status is Status.OK  # a data type, called: plain data


def test_legacy_magic_is_a_value_not_a_byte_string(tmp_path):
    benign_obj = pickle.dumps(OrderedDict(a=1), protocol=2)
    for protocol in (0, 1, 2, 4):
        path = tmp_path / f"magic{protocol}.pth"
        path.write_bytes(legacy(benign_obj, magic=pickle.dumps(LEGACY_MAGIC, protocol=protocol)))
        report = inspect_path(path)
        assert report.format == "legacy" and report.details["pickles"] == 5, protocol


def test_a_plain_pickle_is_read_once(tmp_path):
    path = tmp_path / "ns.pkl"
    path.write_bytes(pickle.dumps(argparse.Namespace(lr=0.1), protocol=2) + b"trailing bytes torch never reads")
    report = inspect_path(path)
    assert report.format == "raw-pickle" and report.readable


def test_encrypted_flag_and_ambiguity_are_findings_not_crashes(tmp_path, capsys):
    from torchdoctor.cli import main

    path = tmp_path / "enc.pth"
    path.write_bytes(AMBIGUOUS["zip-encrypted-flag"]())
    with pytest.raises(SystemExit) as exc:
        main(["inspect", str(path)])
    out = capsys.readouterr()
    assert exc.value.code == 1 and "TI113" in out.out and "Traceback" not in out.err


def test_convert_refuses_an_ambiguous_archive(tmp_path):
    from torchdoctor.inspect.convert import ConvertError, convert

    src = tmp_path / "dup.pth"
    src.write_bytes(duplicate_entry(pickle.dumps({"w": 1}, protocol=2)))
    with pytest.raises(ConvertError, match="ambiguous zip archive"):
        convert(src, tmp_path / "out.pth", trust=True)
    assert not (tmp_path / "out.pth").exists()


def test_the_first_of_two_data_pkl_is_what_torch_loads(tmp_path):
    # The reader's premise, checked against torch itself: with two same-named entries torch loads the first.
    import torch

    path = tmp_path / "two.pth"
    path.write_bytes(duplicate_entry(pickle.dumps({"first": 1}, protocol=2)))
    assert torch.load(path, weights_only=True) == {"first": 1}
    report = inspect_path(path)
    assert report.top_keys[0]["key"] == "first" and report.archive_problems


def test_a_hostile_payload_is_not_hidden_by_a_benign_structure(tmp_path):
    path = tmp_path / "sd_with_hook.pth"
    path.write_bytes(legacy(os_system(str(tmp_path / "never"))))
    assert by_code(inspect_path(path))["TI103"].status is Status.ERROR


def test_numpy_values_are_refused_data_not_code(tmp_path):
    np = pytest.importorskip("numpy")
    import torch

    path = tmp_path / "with_numpy.pth"
    torch.save({"rng": np.random.get_state(), "best": np.float32(0.5), "gen": np.random.default_rng(0),
                "weights": torch.ones(2)}, path)
    found = by_code(inspect_path(path))
    assert found["TI103"].status is Status.OK, found["TI103"].message
    ti104 = found["TI104"]
    assert ti104.status is Status.WARNING
    (snippet,) = [c for c in ti104.fix.commands if "add_safe_globals" in c]
    ast.parse(snippet)
    assert "_reconstruct" not in snippet and "scalar" not in snippet and "ctor" not in snippet
    assert any("_reconstruct" in name for name in ti104.evidence["functions and references (never allowlist)"])


class Mode(__import__("enum").Enum):
    TRAIN = "train"


def test_a_called_class_that_is_not_known_data_is_an_error_worded_as_unproven(tmp_path):
    # An Enum member is rebuilt by calling its class, exactly as a payload calls a function: nothing
    # static tells the two apart, so it is an error, worded as what cannot be proved.
    import torch

    path = tmp_path / "enum.pth"
    torch.save({"mode": Mode.TRAIN, "w": torch.ones(1)}, path)
    f = by_code(inspect_path(path))["TI103"]
    assert f.status is Status.ERROR and "CAN RUN CODE" in f.message and "test_hostile_corpus.Mode" in f.message
    assert "unless you know" in f.fix.summary


def test_convert_refuses_every_hostile_file(hostile, tmp_path):
    from torchdoctor.inspect.convert import ConvertError, convert

    root, paths = hostile
    for name, (path, _) in paths.items():
        with pytest.raises(ConvertError):
            convert(path, tmp_path / f"{name}.out.pth")
        assert not (root / f"{name}.SENTINEL").exists(), name
        assert not (tmp_path / f"{name}.out.pth").exists(), name


@pytest.mark.parametrize("helper,args", [
    (("numpy.random._pickle", "__randomstate_ctor"), [u("MT19937"), g("mylib.jobs", "launch")]),
    (("torch._tensor", "_rebuild_from_type_v2"), [g("mylib.jobs", "launch"), g("torch", "Tensor"), b"(t", b"}"]),
    (("copyreg", "_reconstructor"), [g("builtins", "object"), g("mylib.jobs", "launch"), u("x")]),
])
def test_what_a_rebuild_helper_calls_counts_as_called(tmp_path, helper, args):
    # mylib.jobs.launch is only an argument here, but the helper calls it: an error, not a reference
    from hostile_checkpoints import call, p2

    path = tmp_path / "helper.pkl"
    path.write_bytes(p2(call(g(*helper), *args)))
    report = inspect_path(path)
    assert "call" in report.global_uses["mylib.jobs.launch"]
    assert by_code(report)["TI103"].status is Status.ERROR


def test_a_frame_running_past_stop_is_damage(tmp_path):
    """In a stream of pickles, the C unpickler (torch's) goes on after STOP and Python's own after the
    frame: a FRAME longer than its pickle gives two readings of what follows, so it is an error."""
    import io
    import pickle as pure

    rest = pickle.dumps(1001, protocol=2) + pickle.dumps({}, protocol=2) + pickle.dumps({"w": 1}, protocol=2)
    body = b"\x8a\x0a" + LEGACY_MAGIC.to_bytes(10, "little") + b"." + rest
    magic = b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body
    stream = magic + pickle.dumps(1001, protocol=2)
    c_reader, py_reader = io.BufferedReader(io.BytesIO(stream)), io.BufferedReader(io.BytesIO(stream))
    assert pickle.load(c_reader) == pure._Unpickler(py_reader).load() == LEGACY_MAGIC
    assert c_reader.tell() != py_reader.tell()  # the premise: two readers, two next pickles
    path = tmp_path / "framed.pth"
    path.write_bytes(stream)
    report = inspect_path(path)
    assert by_code(report)["TI102"].status is Status.ERROR and "FRAME" in report.problem["detail"]
