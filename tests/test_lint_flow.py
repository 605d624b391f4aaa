"""The shared value-flow engine (torchdoctor.lint.flow): where a value comes from, in one file and
across the files of a run, and the rules that ask it across files."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from torchdoctor.lint.engine import Selection, check_paths
from torchdoctor.lint.module import SourceModule
from torchdoctor.lint.project import scan


def _module(src: str) -> SourceModule:
    return SourceModule.parse("m.py", textwrap.dedent(src))


def _origins_of_loop(m: SourceModule, line: int) -> list[str]:
    loop = next(n for n in m.nodes(ast.For) if n.lineno == line)
    return [ast.unparse(o.node) for o in m.flow.origins(loop.iter)]


def test_origins_follow_wrappers_tuples_and_returns():
    m = _module("""
        def build(ds):
            loader = DataLoader(ds, batch_size=8)
            return loader, None

        train_loader, _ = build(ds)
        it = tqdm(train_loader) if main else train_loader
        for i, batch in enumerate(it):
            pass
    """)
    assert _origins_of_loop(m, 8) == ["DataLoader(ds, batch_size=8)", "DataLoader(ds, batch_size=8)"]


def test_origins_follow_parameters_to_every_call_site():
    m = _module("""
        def run(loader):
            for batch in loader:
                pass

        run(DataLoader(a))
        run(loader=DataLoader(b))
    """)
    assert sorted(_origins_of_loop(m, 3)) == ["DataLoader(a)", "DataLoader(b)"]


def test_origins_through_an_infinite_generator():
    m = _module("""
        def cycle(dl):
            while True:
                for data in dl:
                    yield data

        loader = DataLoader(ds)
        for batch in cycle(loader):
            pass
    """)
    assert _origins_of_loop(m, 8) == ["DataLoader(ds)"]


def test_unknown_stays_unknown():
    m = _module("""
        def run(loader):  # nobody calls it here
            for batch in loader:
                pass
    """)
    assert _origins_of_loop(m, 3) == ["loader"]


def test_constructor_arguments_and_a_class_held_in_a_variable():
    m = _module("""
        class Lazy:
            def __init__(self, raw):
                self.raw = raw

        cls = Lazy if lazy else Eager
        ds = cls(json.load(f))
    """)
    init = m.classes["Lazy"].body[0]
    raw = init.body[0].value
    assert [ast.unparse(o.node) for o in m.flow.origins(raw)] == ["json.load(f)"]


def test_branches_ruled_out_by_a_constant_argument():
    m = _module("""
        def load(path, as_tensor=False):
            data = read(path)
            if as_tensor:
                return torch.tensor(data), 1
            return data, 1

        x, _ = load(p)
        y, _ = load(p, as_tensor=True)
        use(x, y)
    """)
    call = next(c for c in m.nodes(ast.Call) if getattr(c.func, "id", "") == "use")
    x, y = call.args
    assert [ast.unparse(o.node) for o in m.flow.origins(x)] == ["read(path)"]
    # the branch may run, so it counts (the engine does not model that a return ends the function)
    assert "torch.tensor(data)" in [ast.unparse(o.node) for o in m.flow.origins(y)]


def test_recursion_answers_unknown_instead_of_looping():
    m = _module("""
        def f(x):
            return f(x)
        y = f(1)
    """)
    y = next(n for n in m.nodes(ast.Name) if n.id == "y" and isinstance(n.ctx, ast.Store))
    assert m.flow.origins(y)  # terminates with something, whatever it is


def test_project_resolves_imports_next_to_the_importing_file(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "data.py").write_text("def make():\n    return [1, 2]\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.py").write_text("def make():\n    return None\n")
    train = tmp_path / "pkg" / "train.py"
    train.write_text("from data import make\nx = make()\n")
    paths = [str(p) for p in sorted(tmp_path.rglob("*.py"))]
    project = scan([], paths)
    m = SourceModule.parse(str(train), train.read_text())
    m.project = project
    call = next(c for c in m.nodes(ast.Call))
    other, fn = m.flow.resolve_function(call)
    assert Path(other.path) == tmp_path / "pkg" / "data.py" and fn.name == "make"


_DATA = """
import torch
from torch.utils.data import DataLoader, DistributedSampler

def build(train_set, val_set):
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set)
    return DataLoader(train_set, sampler=train_sampler), DataLoader(val_set, sampler=val_sampler), val_sampler
"""


def _td105(tmp_path, train_src: str) -> list[tuple[str, int]]:
    (tmp_path / "data.py").write_text(_DATA)
    (tmp_path / "train.py").write_text(textwrap.dedent(train_src))
    result = check_paths([str(tmp_path)], Selection(select=("TD105",)), jobs=1)
    assert not result.errors
    return [(Path(f.path).name, f.line) for f in result.findings]


def test_td105_across_files_a_comment_or_the_validation_sampler_do_not_count(tmp_path):
    found = _td105(tmp_path, """
        from data import build
        train_loader, val_loader, val_sampler = build(train_set, val_set)
        for epoch in range(10):
            val_sampler.set_epoch(epoch)  # set_epoch on the validation sampler only
            for batch in train_loader:
                step(batch)
    """)
    assert found == [("data.py", 6)]


def test_td105_across_files_set_epoch_on_loader_sampler_counts(tmp_path):
    found = _td105(tmp_path, """
        from data import build
        train_loader, val_loader, val_sampler = build(train_set, val_set)
        for epoch in range(10):
            train_loader.sampler.set_epoch(epoch)
            for batch in train_loader:
                step(batch)
    """)
    assert found == []


def test_td105_file_alone_says_nothing_without_the_loop(tmp_path):
    (tmp_path / "data.py").write_text(_DATA)
    result = check_paths([str(tmp_path / "data.py")], Selection(select=("TD105",)), jobs=1)
    assert result.findings == []


def test_td401_a_checkpoint_helper_called_from_ddp_code_in_another_file(tmp_path):
    (tmp_path / "ckpt.py").write_text(textwrap.dedent("""
        import torch

        def load_checkpoint(model, path):
            od = torch.load(path, weights_only=True)
            state = od["model"]
            model.load_state_dict(state)
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import os
        import torch.distributed as dist
        from ckpt import load_checkpoint

        if __name__ == "__main__":
            dist.init_process_group("nccl")
            load_checkpoint(model, os.environ["CKPT"])
    """))
    project = check_paths([str(tmp_path)], Selection(select=("TD401",)), jobs=1)
    assert [(Path(f.path).name, f.line) for f in project.findings] == [("ckpt.py", 5)]
    alone = check_paths([str(tmp_path / "ckpt.py")], Selection(select=("TD401",)), jobs=1)
    assert alone.findings == []  # no DDP in sight: nothing to say


def test_arguments_for_gives_each_call_sites_argument_or_the_default():
    m = _module("""
        def configure(training, verbose=False):
            pass

        configure(False)
        configure(training=True, verbose=True)
        configure(flag)
    """)
    fn = m.functions["configure"][0]
    assert [ast.unparse(a) for _, a in m.flow.arguments_for(fn, "training")] == ["False", "True", "flag"]
    assert [ast.unparse(a) for _, a in m.flow.arguments_for(fn, "verbose")] == ["False", "True", "False"]


def test_arguments_for_refuses_a_claim_when_a_call_cannot_be_read():
    m = _module("""
        def configure(training):
            pass

        configure(False)
        configure(*args)
    """)
    assert m.flow.arguments_for(m.functions["configure"][0], "training") is None


def test_a_per_call_question_does_not_narrow_the_next_callers_search(tmp_path):
    # origins(across_files=False) must not leave the engine searching only this file afterwards
    (tmp_path / "helpers.py").write_text("def load(path):\n    return path\n")
    (tmp_path / "train.py").write_text("from helpers import load\nload('x')\n")
    paths = [str(p) for p in sorted(tmp_path.rglob("*.py"))]
    project = scan([], paths)
    m = project.module(str(tmp_path / "helpers.py"))
    m.flow.origins(m.nodes(ast.Name)[0], across_files=False)
    assert [Path(cm.path).name for cm, _ in m.flow.call_sites(m.functions["load"][0])] == ["train.py"]


def test_importers_can_be_limited_to_files_that_mention_a_word(tmp_path):
    (tmp_path / "helpers.py").write_text("def load(path):\n    return path\n")
    (tmp_path / "train.py").write_text("import torch.distributed as dist\nfrom helpers import load\n"
                                       "dist.init_process_group('nccl')\nload('x')\n")
    (tmp_path / "export.py").write_text("from helpers import load\nload('y')\n")
    paths = [str(p) for p in sorted(tmp_path.rglob("*.py"))]
    project = scan([], paths)
    helpers = str(tmp_path / "helpers.py")
    assert [Path(m.path).name for m in project.importers(helpers, "load", ("init_process_group",))] == ["train.py"]
    assert str(tmp_path / "export.py") not in project._modules  # not even parsed
    assert sorted(Path(m.path).name for m in project.importers(helpers, "load")) == ["export.py", "train.py"]


def test_a_checked_file_leaves_no_reference_cycle_behind():
    # Every checked file used to stay alive until a full collection (the flow engine and a
    # recursive closure pointed back at it): the collector then walked all of them, again and again.
    import gc

    from torchdoctor.lint.engine import check_module
    from torchdoctor.lint.model import CheckResult
    from torchdoctor.registry import lint_rules

    src = textwrap.dedent(_DATA) + textwrap.dedent("""
        train_loader, val_loader, val_sampler = build(train_set, val_set)
        for epoch in range(10):
            for batch in train_loader:
                a, b = batch
                loss = model(a, b)
                loss.backward()
    """)
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        m = SourceModule.parse("m.py", src)
        check_module(m, Selection().rules(lint_rules()), Selection(), CheckResult())
        m.release()
        del m
        assert not any(type(o).__name__ == "SourceModule" for o in gc.get_objects())
        assert gc.collect() < 50  # stdlib helpers (ast.dump) leave a few small cycles, not a file
    finally:
        if was:
            gc.enable()


def test_td106_a_helper_that_runs_at_import_in_another_file(tmp_path):
    (tmp_path / "setup_utils.py").write_text(textwrap.dedent("""
        import torch

        def inference_defaults():
            torch.set_grad_enabled(False)
    """))
    (tmp_path / "serve.py").write_text("from setup_utils import inference_defaults\ninference_defaults()\n")
    project = check_paths([str(tmp_path)], Selection(select=("TD106",)), jobs=1)
    assert [(Path(f.path).name, f.line) for f in project.findings] == [("setup_utils.py", 5)]
    assert "serve.py" in project.findings[0].message
    (tmp_path / "serve.py").write_text("from setup_utils import inference_defaults\n\ndef main():\n"
                                       "    inference_defaults()\n")
    assert check_paths([str(tmp_path)], Selection(select=("TD106",)), jobs=1).findings == []


def test_td104_an_evaluation_helper_called_under_no_grad_from_another_file(tmp_path):
    (tmp_path / "engine.py").write_text(textwrap.dedent("""
        import torch

        def evaluate(model, loader):
            model.eval()
            return [model(x) for x, _ in loader]
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch
        from engine import evaluate

        with torch.no_grad():
            evaluate(model, val_loader)
    """))
    project = check_paths([str(tmp_path)], Selection(select=("TD104",)), jobs=1)
    assert project.findings == []
    alone = check_paths([str(tmp_path / "engine.py")], Selection(select=("TD104",)), jobs=1)
    assert [f.line for f in alone.findings] == [6]  # alone, nothing shows the caller's no_grad


def test_td101_a_guard_flag_passed_from_another_file(tmp_path):
    (tmp_path / "ckpt.py").write_text(textwrap.dedent("""
        import torch
        import torch.distributed as dist

        def save_checkpoint(model, path, should_write):
            if should_write:
                torch.save(model.state_dict(), path)
                dist.barrier()

        def load_checkpoint(model, path, local_rank):
            state = torch.load(path, map_location=f"cuda:{local_rank}", weights_only=True)
            model.load_state_dict(state)
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch.distributed as dist
        from ckpt import save_checkpoint

        def main(model):
            dist.init_process_group("nccl")
            save_checkpoint(model, "last.pt", dist.get_rank() == 0)
    """))
    project = check_paths([str(tmp_path)], Selection(select=("TD101",)), jobs=1)
    assert [(Path(f.path).name, f.line) for f in project.findings] == [("ckpt.py", 8)]
    alone = check_paths([str(tmp_path / "ckpt.py")], Selection(select=("TD101",)), jobs=1)
    assert alone.findings == []  # alone, `should_write` could be anything
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text().replace("dist.get_rank() == 0", "True"))
    assert check_paths([str(tmp_path)], Selection(select=("TD101",)), jobs=1).findings == []  # every rank writes


def test_a_question_that_fans_out_everywhere_is_cut_off_as_unknown():
    # Every parameter is filled at 40 call sites, six levels up: 40**6 paths. The engine looks at
    # a bounded number of expressions per question and calls the rest unknown (the asker stays quiet).
    from torchdoctor.lint.flow import MAX_STEPS

    levels = ["def f0(x):\n    for batch in x:\n        pass\n"]
    for i in range(1, 7):
        calls = "".join(f"    f{i - 1}(x)\n" for _ in range(40))
        levels.append(f"def f{i}(x):\n{calls}")
    levels.append("f6(DataLoader(ds))\n")
    m = SourceModule.parse("m.py", "\n".join(levels))
    loop = m.nodes(ast.For)[0]
    found = m.flow.origins(loop.iter)
    assert 0 < len(found) <= MAX_STEPS
    assert any(isinstance(o.node, ast.Name) for o in found)  # some paths were left unknown
