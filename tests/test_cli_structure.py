"""Issue 14 item 12: the command line is one package, `torchdoctor.cli`: a module per command
group, the shared console/error/exit helpers in `common`, `__init__` wiring them. No module
imports another's private names, nothing imports the package back (no cycle), and starting the
CLI still loads none of the heavy parts."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CLI = Path(__file__).resolve().parent.parent / "doctor" / "cli"
GROUPS = ("env", "explain", "check", "inspect", "model", "runtime")


def _imports(path: Path) -> list[tuple[str, int, list[str]]]:
    """(module as written, relative level, imported names) of every `from ... import ...`."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, [a.name for a in node.names]))
    return out


def test_one_module_per_group_and_the_shared_helpers_apart():
    names = {p.stem for p in CLI.glob("*.py")}
    assert names == {"__init__", "common", *GROUPS}
    assert not (CLI.parent / "cli.py").exists() and not list(CLI.parent.glob("cli_*.py"))


def test_no_private_names_cross_modules_and_no_cycle():
    for path in CLI.glob("*.py"):
        for module, level, names in _imports(path):
            private = [n for n in names if n.startswith("_") and n != "__version__" and module != "__future__"]
            assert not private, f"{path.name} imports private {private} from {'.' * level}{module}"
            if path.stem != "__init__":
                # a group or common never imports the package itself (that is what made the circle)
                assert not (level == 1 and module == ""), f"{path.name} imports torchdoctor.cli"
                assert not (level == 0 and module == "torchdoctor.cli"), path.name
    common = _imports(CLI / "common.py")
    assert all(level != 1 for _, level, _ in common), "common must not import a command module"


def test_every_group_registers_and_startup_stays_light():
    code = ("import sys; import torchdoctor.cli as c; "
            "print(sorted(m for m in sys.modules if m.startswith('torchdoctor'))); "
            "print('torch' in sys.modules, 'torchdoctor.kb' in sys.modules, 'torchdoctor.render' in sys.modules); "
            "import typer; g = typer.main.get_command(c.app); print(g.list_commands(None)); "
            "print({n: g.get_command(None, n).__class__.__name__ for n in g.list_commands(None)}); "
            "print(sorted(g.commands))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.splitlines()
    loaded = eval(out[0])  # a printed list of str
    # Starting the CLI loads no command group: each is imported when one of its commands runs.
    assert set(loaded) == {"torchdoctor", "torchdoctor.cli", "torchdoctor.cli.common"}
    assert out[1] == "False False False"
    # The order of `torchdoctor --help`: commands, then groups of commands.
    assert eval(out[2]) == ["env", "explain", "check", "rule", "ci", "inspect", "model", "dist", "run", "kb", "ckpt"]
    assert set(eval(out[3]).values()) <= {"TyperCommand", "TyperGroup"}
    assert eval(out[4]) == ["check", "ci", "ckpt", "dist", "env", "explain", "inspect", "kb", "model", "rule", "run"]


def test_each_module_registers_exactly_its_commands():
    """COMMANDS, the table the lazy root group resolves names with, says which module registers
    each command: a command added to a module but not to the table would be unreachable."""
    import typer

    from torchdoctor.cli import COMMANDS

    assert set(COMMANDS.values()) == set(GROUPS)
    for module in GROUPS:
        app = typer.Typer()
        __import__(f"torchdoctor.cli.{module}", fromlist=["register"]).register(app)
        names = {c.name for c in app.registered_commands}  # named explicitly: the root group builds by name
        names |= {g.name for g in app.registered_groups}
        assert names == {n for n, m in COMMANDS.items() if m == module}, module


def test_a_command_loads_only_its_own_group():
    code = ("import sys; from torchdoctor.cli import main\n"
            "try:\n    main(['kb', 'show', 'no-such-entry'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('torchdoctor.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert eval(out[-1]) == ["torchdoctor.cli.common", "torchdoctor.cli.explain"]
