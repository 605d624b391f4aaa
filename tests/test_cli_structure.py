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
            "import typer; print(sorted(typer.main.get_command(c.app).commands))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.splitlines()
    loaded = eval(out[0])  # a printed list of str
    assert set(loaded) == {"torchdoctor", "torchdoctor.facts", "torchdoctor.facts._probe_launch",
                           "torchdoctor.facts._run", "torchdoctor.cli", *(f"torchdoctor.cli.{m}" for m in ("common", *GROUPS))}
    assert out[1] == "False False False"
    assert eval(out[2]) == ["check", "ci", "ckpt", "dist", "env", "explain", "inspect", "kb", "model", "rule", "run"]
