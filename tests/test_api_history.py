"""The torch API history (doctor/data/torch_api_history.json) and the knowledge patterns that read it.

The table is checked against the torch these tests install (2.13.0): every name it says a release up
to 2.13 added must be there, and every name it says a release up to 2.13 removed must be gone. That is
the installed torch answering for the table, not the table for itself.
"""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from torchdoctor.data import load
from torchdoctor.kb import api_history, explain
from torchdoctor.kb.schema import SchemaError

INSTALLED = (2, 13)
# The modules people name in these errors (every one the corpus's texts name, and their neighbours).
CHECKED = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
           "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.utils.data.dataloader",
           "torch.utils.checkpoint", "torch.utils._pytree", "torch.cuda", "torch.cuda.amp", "torch.amp", "torch.fft",
           "torch.linalg", "torch.special", "torch.onnx", "torch.jit", "torch.hub", "torch.library", "torch.autograd",
           "torch.distributions", "torch.backends.cudnn", "torch.utils.cpp_extension", "torch.distributed")


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def _has(target, module: str, name: str) -> bool:
    """An attribute, or a submodule (an attribute once imported, and importable by that name)."""
    if hasattr(target, name):
        return True
    try:
        return module != "torch.Tensor" and importlib.util.find_spec(f"{module}.{name}") is not None
    except (ImportError, ValueError):
        return False


def _resolve(module: str):
    if module == "torch.Tensor":
        import torch

        return torch.Tensor
    return importlib.import_module(module)


def _installed():
    """The table, and each checked module of the installed torch."""
    pytest.importorskip("torch")
    return load("torch_api_history"), [(module, _resolve(module)) for module in CHECKED]


@pytest.mark.parametrize("kind", ["added", "removed"])
def test_what_the_table_says_of_releases_up_to_the_installed_torch_holds_there(kind):
    """A name added by 2.13 is in the installed torch; a name removed by 2.13 is not."""
    table, targets = _installed()
    versions = table["versions"]
    wrong, checked = [], 0
    for module, target in targets:
        for name, at in table[kind].get(module, {}).items():
            changed = versions[at] if kind == "added" else versions[at[1]]
            if _minor(changed) <= INSTALLED:
                checked += 1
                if _has(target, module, name) != (kind == "added"):
                    wrong.append(f"{module}.{name} ({kind} in {changed})")
    assert checked > 100
    assert not wrong, wrong


def test_keywords_the_table_says_were_added_are_taken_by_the_installed_torch():
    import inspect

    table, targets = _installed()
    refused, checked = [], 0
    for module, target in targets:
        for name, keywords in table["arguments"].items():
            obj = getattr(target, name, None)
            if obj is None or not callable(obj):
                continue
            try:
                params = inspect.signature(obj).parameters
            except (TypeError, ValueError):  # a C function without a Python signature
                continue
            takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
            for keyword, first in keywords.items():
                if _minor(table["versions"][first]) <= INSTALLED:
                    checked += 1
                    if keyword not in params and not takes_any:
                        refused.append(f"{module}.{name}({keyword}=) (added in {table['versions'][first]})")
    assert checked > 50
    assert not refused, refused


@pytest.mark.parametrize("module, name, kind, version", [
    ("torch.fft", "rfftfreq", "added", "1.8"),  # torch.fft became a module in 1.8
    ("torch.optim.lr_scheduler", "CyclicLR", "added", "1.1"),
    ("torch.nn", "RMSNorm", "added", "2.4"),
    ("Tensor", "mT", "added", "1.11"),
    ("torch.onnx", "set_training", "removed", "1.6"),
    ("torch", "_six", "removed", "2.0"),
])
def test_the_table_knows_when_well_known_apis_came_and_went(module, name, kind, version):
    assert api_history.change(module, name) == api_history.Change(kind, version)


@pytest.mark.parametrize("module, name", [
    ("torch.nn", "Linear"),  # every torch has it
    ("torch", "tensor"),
    ("torch.optim", "AdamWeightDecay"),  # never torch's (another library's name)
    ("torchvision.ops", "nms"),  # not a torch module
])
def test_names_that_did_not_change_say_nothing(module, name):
    assert api_history.change(module, name) is None


def _answer(text: str) -> tuple[str | None, dict[str, str]]:
    matches = explain(text)
    return (matches[0].id, matches[0].captures) if matches else (None, {})


def test_a_name_a_later_torch_added_says_the_torch_is_too_old():
    text = """Traceback (most recent call last):
  File "/opt/conda/lib/python3.8/site-packages/pytorch_lightning/utilities/cloud_io.py", line 12, in <module>
    freqs = torch.fft.rfftfreq(n)
AttributeError: module 'torch.fft' has no attribute 'rfftfreq'
"""
    answer, captures = _answer(text)
    assert answer == "torch-too-old-for-package"
    assert captures.get("api_version") == "1.8"
    # The same words for a name every torch since 1.0 has: a shadowed or broken torch, not an old one.
    assert _answer(text.replace("torch.fft' has no attribute 'rfftfreq'", "torch.nn' has no attribute 'Linear'")
                   .replace("torch.fft.rfftfreq", "torch.nn.Linear"))[1].get("api_version") is None


def test_a_private_name_a_later_torch_added_is_not_a_removed_private_api():
    # "_T_co" looks like an internal a newer torch dropped; torch 2.5 added it to the DataLoader module.
    text = "ImportError: cannot import name '_T_co' from 'torch.utils.data.dataloader' (/usr/lib/python3/site-packages/torch/utils/data/dataloader.py)"
    answer, captures = _answer(text)
    assert (answer, captures.get("api_version")) == ("torch-too-old-for-package", "2.5")


def test_a_public_name_a_torch_removed_says_the_code_is_too_old():
    text = """  File "/home/u/envs/py36/lib/python3.6/site-packages/nni/_graph_utils.py", line 71, in _trace
    with torch.onnx.set_training(model, False):
AttributeError: module 'torch.onnx' has no attribute 'set_training'
"""
    answer, captures = _answer(text)
    assert (answer, captures.get("api_version")) == ("removed-private-api", "1.6")
    # A close name torch still has is no evidence of a removal.
    quiet = text.replace("set_training", "select_model_mode_for_export")
    assert _answer(quiet)[0] != "removed-private-api"


def test_the_happened_line_names_the_release():
    match = explain("AttributeError: module 'torch.fft' has no attribute 'rfftfreq'")[0]
    assert any("torch 1.8 and later" in line for line in match.to_json()["happened"])


def test_the_schema_refuses_an_unknown_kind_and_a_pattern_without_its_groups():
    from torchdoctor.kb import validate

    base = {"id": "x-entry", "title": "t", "area": "Also frequent", "summary": "s", "explanation": "e",
            "fixes": [{"summary": "f"}], "examples": [{"text": "x", "source": "https://example.org/1"}]}
    with pytest.raises(SchemaError, match="api_history"):
        validate.entry_from_dict({**base, "patterns": [
            {"regex": "module '(?P<module>torch)' has no attribute '(?P<attribute>\\w+)'", "api_history": "renamed"}]}, "x.toml")
    with pytest.raises(SchemaError, match="must capture `attribute`"):
        validate.entry_from_dict({**base, "patterns": [
            {"regex": "module '(?P<module>torch)' has no attribute '(?P<name>\\w+)'", "api_history": "added"}]}, "x.toml")


def test_python_before_3_7_names_the_module_in_the_import_line_not_the_message():
    text = """Traceback (most recent call last):
  File "train.py", line 12, in <module>
    from torch.optim.lr_scheduler import CyclicLR, StepLR
ImportError: cannot import name 'CyclicLR'
"""
    answer, captures = _answer(text)
    assert (answer, captures.get("api_name"), captures.get("api_version")) == (
        "torch-too-old-for-package", "torch.optim.lr_scheduler.CyclicLR", "1.1")
    # A name torch has had since 1.0, from the same line: a circular import or a shadowing file, not an old torch.
    assert _answer(text.replace("'CyclicLR'", "'StepLR'"))[1].get("api_version") is None
    # Imported from another package, the name says nothing of torch.
    assert _answer(text.replace("torch.optim.lr_scheduler", "timm.scheduler"))[1].get("api_version") is None


def _wheel(path, files: dict[str, str]) -> str:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return str(path)


def test_the_builder_reads_what_each_release_binds(tmp_path):
    """Three made-up releases through the builder: what counts as added, removed, or neither."""
    from torchdoctor.data import api_history_build as build

    common = {"torch/_C/_VariableFunctions.pyi": "def matmul(a, b): ...\n",
              "torch/_tensor.py": "class Tensor:\n    def view(self): ...\n"}
    releases = []
    for version, init, fft in [
        ("1.6", "import os\nhas_cuda = True\n", "old_fn = 1\n"),
        ("1.7", "has_cuda = True\nfrom .stable import *\nif _C.has_ucc:\n    ProcessGroupUCC = 1\n",
         "old_fn = 1\nrfftfreq = 2\n"),
        ("1.8", "from typing import TYPE_CHECKING\nfrom .stable import *\nif TYPE_CHECKING:\n    from .types import Device\n"
                "gone_later = 1\ndel gone_later\n"
                "def __getattr__(name):\n    if name == 'has_cuda':\n        return True\n", "rfftfreq = 2\n"),
    ]:
        wheel = _wheel(tmp_path / f"torch-{version}.0-cp310-none-any.whl", {
            **common, "torch/__init__.py": init, "torch/fft/__init__.py": fft,
            "torch/stable.py": "__all__ = ['kept']\nkept = 1\nhelper = 2\n",
            "torch/serialization.py": {
                "1.6": "def load(f, weights_only=False): ...\ndef save(obj): ...\n",
                "1.7": "def load(f, weights_only=False): ...\ndef save(obj, **kw): ...\n",
                "1.8": "def load(f, weights_only=False, mmap=False): ...\ndef save(obj, protocol=2): ...\n"}[version],
            "torch/utils/data.py": "class Loader:\n    def __init__(self, ds, workers=0%s): ...\n"
                                   % (", pin=False" if version == "1.8" else ""),
            "torch/quant.py": "class Loader:\n    def __init__(self, ds): ...\n"})
        releases.append((version, build.surface(wheel)))
    table = build.history(releases)
    added, removed, versions = table["added"], table["removed"], table["versions"]
    assert versions[added["torch.fft"]["rfftfreq"]] == "1.7"
    assert versions[removed["torch.fft"]["old_fn"][1]] == "1.8"
    assert versions[added["torch"]["kept"]] == "1.7"  # `from .stable import *` takes stable's __all__ ...
    assert "helper" not in added["torch"]  # ... and nothing else
    assert "ProcessGroupUCC" not in added.get("torch", {})  # bound under an if: the build decides
    assert "Device" not in added.get("torch", {})  # only a type checker sees it
    assert "gone_later" not in added.get("torch", {})  # deleted again at import
    assert "has_cuda" not in removed.get("torch", {})  # still answered by the module's __getattr__
    assert "os" not in removed.get("torch", {})  # an import of the standard library is not torch's API
    arguments = table["arguments"]
    assert versions[arguments["load"]["mmap"]] == "1.8"  # refused in 1.7, taken since
    assert "weights_only" not in arguments["load"]  # there from the start
    assert "protocol" not in arguments.get("save", {})  # **kw before it was named: taken or not, unknown
    # "workers" was there from the start; "pin", added in 1.8, is refused by another public Loader today
    assert "Loader" not in arguments


def test_a_keyword_a_later_torch_added_says_the_torch_is_too_old():
    # Python 3.10+ names the class; earlier ones said "__init__()" and the traceback's line has the call.
    named = "TypeError: DataLoader.__init__() got an unexpected keyword argument 'in_order'"
    answer, captures = _answer(named)
    assert (answer, captures.get("callable"), captures.get("api_version")) == ("torch-too-old-for-package", "DataLoader", "2.6")
    old_python = """Traceback (most recent call last):
  File "train.py", line 40, in <module>
    loader = DataLoader(ds, batch_size=8, num_workers=4, persistent_workers=True)
TypeError: __init__() got an unexpected keyword argument 'persistent_workers'
"""
    answer, captures = _answer(old_python)
    assert (answer, captures.get("callable"), captures.get("api_version")) == ("torch-too-old-for-package", "DataLoader", "1.7")
    assert any("`DataLoader` takes `persistent_workers` from torch 1.7 on" in line
               for line in explain(old_python)[0].to_json()["happened"])


def test_a_keyword_no_torch_callable_gained_says_nothing():
    # Another library's class with a torch-like keyword, and a torch class with a keyword it never took.
    for text in ("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'",
                 "TypeError: DataLoader.__init__() got an unexpected keyword argument 'n_workers'"):
        assert explain(text) == [] or explain(text)[0].captures.get("api_version") is None, text


def test_a_removed_name_is_said_of_itself_not_of_the_module_that_held_it():
    happened = explain("AttributeError: module 'torch.onnx' has no attribute 'set_training'")[0].to_json()["happened"]
    assert "`torch.onnx.set_training` was removed in torch 1.6: the code was written for an older release." in happened
    assert not any(line.startswith("`torch.onnx` no longer exists") for line in happened), happened


def test_a_module_a_release_removed_is_read_and_one_still_there_is_not():
    answer, captures = _answer("ModuleNotFoundError: No module named 'torch.distributed.pipeline'")
    assert (answer, captures.get("api_name"), captures.get("api_version")) == (
        "removed-private-api", "torch.distributed.pipeline", "2.4")
    # torch.distributed.fsdp is in every torch since 1.11: its absence is an old torch, never a removal.
    assert _answer("ModuleNotFoundError: No module named 'torch.distributed.fsdp'")[0] != "removed-private-api"
