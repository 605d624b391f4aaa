"""The model probe and `torchdoctor.check_model` on small real models (CPU, in-process), and the
input-spec grammar (parsed, never evaluated)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from torchdoctor.runtime.model_spec import SpecError, batch_size, parse_input_spec

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "models.py"


@pytest.fixture(scope="module")
def models():
    spec = importlib.util.spec_from_file_location("td_fixture_models", FIXTURES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def codes(findings, status=None):
    return {f.code for f in findings if status is None or f.status.value == status}


# --------------------------------------------------------------------------- the input grammar
@pytest.mark.parametrize("text,expect", [
    ("randn(8,3,224,224)", {"tensor": "randn", "shape": [8, 3, 224, 224], "dtype": None}),
    ("torch.zeros((2, 3), dtype=torch.float16)", {"tensor": "zeros", "shape": [2, 3], "dtype": "float16"}),
    ("randint(0, 10, (8,))", {"tensor": "randint", "shape": [8], "low": 0, "high": 10}),
    ("randint(5, (4, 2), dtype=int32)", {"tensor": "randint", "shape": [4, 2], "low": 0, "high": 5, "dtype": "int32"}),
    ("ones(2, 4, device='cpu', requires_grad=True)", {"device": "cpu", "requires_grad": True}),
    ("full((2,), -0.5)", {"tensor": "full", "value": -0.5}),
])
def test_tensor_specs(text, expect):
    got = parse_input_spec(text)
    for k, v in expect.items():
        assert got[k] == v, (k, got)


def test_containers():
    got = parse_input_spec("(randn(2, 4), {'mask': ones(2, 4, dtype=bool)}, [1, 2.5, None, 'x', True])")
    assert isinstance(got, tuple) and got[1]["mask"]["dtype"] == "bool" and got[2] == [1, 2.5, None, "x", True]
    assert batch_size(got) == 2
    assert batch_size({"ids": parse_input_spec("randint(100, (6, 16))")}) == 6


@pytest.mark.parametrize("text,says", [
    ("__import__('os').system('touch /tmp/pwned')", "is not allowed"),
    ("randn(2).__class__", "not allowed"),
    ("open('x')", "open(...) is not allowed"),
    ("randn(2, 3", "does not parse"),
    ("randn(2, -3)", "non-negative"),
    ("randn(2, dtype=float99)", "dtype must be one of"),
    ("randn(2, foo=1)", "unknown keyword"),
    ("randn()", "needs a shape"),
    ("randn(100000, 100000, 1000)", "more than an example input needs"),
    ("[x for x in (1,)]", "not allowed"),
    ("", "empty"),
])
def test_bad_specs_are_refused_with_a_reason(text, says):
    with pytest.raises(SpecError) as info:
        parse_input_spec(text)
    assert says in str(info.value)


def test_parsing_never_evaluates(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(SpecError):
        parse_input_spec(f"__import__('os').system('touch {marker}')")
    assert not marker.exists()


def test_materialize():
    import torch
    from torchdoctor.runtime.model_spec import materialize, split_inputs

    value = materialize(parse_input_spec("(randn(2, 3), {'k': randint(0, 4, (2,))}, 7)"))
    args, kwargs = split_inputs(value)
    assert args[0].shape == (2, 3) and args[1]["k"].dtype == torch.int64 and args[2] == 7 and kwargs == {}
    assert split_inputs({"x": 1}) == ((), {"x": 1})


# --------------------------------------------------------------------------- the probe on real models
def test_two_heads_names_the_unused_modules_and_the_output(models):
    import torch
    import torchdoctor

    torch.manual_seed(0)
    findings = torchdoctor.check_model(models.two_heads(), torch.randn(8, 4), models.loss_a_only, export=False)
    by = {f.code: f for f in findings}
    assert codes(findings) == {"TI201", "TI202"}
    assert "head_b (Linear: its output ['b'] is not in the loss)" in by["TI201"].message
    assert "unused (Linear: never called in forward)" in by["TI201"].message
    assert by["TI201"].evidence["DDP parameter indices"] == [4, 5, 6, 7]
    assert by["TI202"].evidence["outputs not in the loss"] == ["['b']"]
    # The near miss: the same model with both heads in the loss only has the never-called layer.
    findings = torchdoctor.check_model(models.two_heads(), torch.randn(8, 4), models.loss_both, export=False)
    assert codes(findings) == {"TI201"}
    assert "head_b" not in findings[0].message and "unused" in findings[0].message


def test_graph_walk_agrees_with_grad_is_none(models):
    import torch
    from torchdoctor.runtime.model_probe import probe

    rec = probe(models.two_heads(), (torch.randn(8, 4),), {}, models.loss_a_only, export=False)
    by_grad = {p["name"] for p in rec["params"] if p["grad"] == "none"}
    by_walk = {p["name"] for p in rec["params"] if not p["reached"]}
    assert by_grad == by_walk == {"head_b.weight", "head_b.bias", "unused.weight", "unused.bias"}


def test_check_model_leaves_the_model_as_it_was(models):
    import torch
    import torchdoctor

    model = models.healthy().eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert torchdoctor.check_model(model, torch.randn(4, 3, 8, 8), export=False) == []
    assert not model.training and all(p.grad is None for p in model.parameters())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_batchnorm_after_pooling_and_the_dataset_arithmetic(models):
    import torch
    import torchdoctor

    model = models.pooled_bn().train()
    (f,) = torchdoctor.check_model(model, torch.randn(100, 3, 8, 8), export=False, dataset_size=1001, world_size=2)
    assert f.code == "TI203" and f.status.value == "error" and "head_bn" in f.message
    assert f.evidence["last batch per rank"] == 1 and "batchnorm-single-value" in f.related
    assert torchdoctor.check_model(model, torch.randn(100, 3, 8, 8), export=False, dataset_size=1001, world_size=2,
                                   drop_last=True) == []
    # Healthy: BatchNorm2d on 8x8 maps has 64 values per channel even at batch size 1.
    assert torchdoctor.check_model(models.healthy(), torch.randn(100, 3, 8, 8), export=False,
                                   dataset_size=1001, world_size=2) == []


def test_batch_of_one_fails_forward_with_the_explanation(models):
    import torch
    import torchdoctor

    (f,) = torchdoctor.check_model(models.pooled_bn().train(), torch.randn(1, 3, 8, 8), export=False)
    assert f.code == "TI210" and "Expected more than 1 value per channel" in f.message
    assert "batchnorm-single-value" in f.related and "models.py" in f.message


def test_mixed_dtypes_and_non_leaf(models):
    import torch
    import torchdoctor

    (f,) = torchdoctor.check_model(models.mixed(), torch.randn(2, 4), export=False)
    assert f.code == "TI204" and "float64" in f.message
    (f,) = torchdoctor.check_model(models.non_leaf(), torch.randn(2, 3), export=False)
    assert f.code == "TI205" and "scale" in f.message and "non-leaf-optimize" in f.related


def test_inplace_names_the_line_that_modified_the_tensor(models):
    import torch
    import torchdoctor

    (f,) = torchdoctor.check_model(models.inplace(), torch.randn(2, 4), export=False)
    assert f.code == "TI206"
    assert "y.mul_(2)" in f.evidence["line that modified it"]
    assert "torch.sigmoid" in f.evidence["line that saved it"]
    assert f.fix.commands[0].startswith("y = y.mul(2)")


def test_nan_in_forward_names_the_first_module(models):
    import torch
    import torchdoctor

    (f,) = torchdoctor.check_model(models.nan_forward(), torch.randn(2, 4), export=False)
    assert f.code == "TI207" and f.evidence["first module"] == "norm"


def test_inf_gradient_names_the_backward_op_and_the_forward_line(models):
    import torch
    import torchdoctor

    (f,) = torchdoctor.check_model(models.inf_grad(), torch.randn(2, 4), export=False)
    assert f.code == "TI207" and f.evidence["backward op"] == "SqrtBackward0"
    assert ".sqrt()" in f.evidence["forward line"]


def test_exports(models):
    import torch
    import torchdoctor

    findings = torchdoctor.check_model(models.data_parallel(), torch.randn(2, 4), include_ok=True)
    f = next(f for f in findings if f.code == "TI209")
    assert f.status.value == "warning" and "model.module" in f.message and "jit-script-dataparallel" in f.related
    assert "ONNX skipped" in f.message or "ONNX ok" in f.message or (
        "ONNX failed" in f.message and importlib.util.find_spec("onnx") is not None)  # DataParallel: as the GPU image showed


def test_exports_keep_what_they_print_out_of_the_output(models, capsys):
    # On an H200 the ONNX exporter printed its progress into `torchdoctor model`'s output; tracing also re-runs forward.
    import torch
    from torchdoctor.runtime.model_export import try_exports

    out = try_exports(models.printer(), (torch.randn(2, 4),), {})
    assert out["jit_trace"]["status"] == "ok"
    assert "hello from forward" not in capsys.readouterr().out


def test_importing_torchdoctor_does_not_import_torch():
    code = "import torchdoctor, sys; torchdoctor.check_model; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
