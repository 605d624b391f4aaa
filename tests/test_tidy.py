"""The meta-test: the project's structure stays consistent as it grows."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from torchdoctor.registry import env_checks

ROOT = Path(__file__).resolve().parents[1]
MAPPING = {"doctor": "torchdoctor", "checks": "torchdoctor.checks", "knowledge": "torchdoctor.knowledge"}


def test_every_package_directory_is_listed_in_pyproject():
    # An editable install imports an unlisted package; the built wheel silently omits it.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set()
    for top, name in MAPPING.items():
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / top)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found - listed == set(), f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert listed - found == set(), f"listed but missing: {sorted(listed - found)}"


def test_codes_and_names_are_unique_and_well_formed():
    checks = env_checks()
    codes = [c.code for c in checks]
    names = [c.name for c in checks]
    assert len(codes) == len(set(codes)) and len(names) == len(set(names))


FIXED_CODES = {
    "TE101": "torch-import-failure", "TE102": "multiple-torch-installs", "TE103": "torch-family-mismatch",
    "TE104": "numpy-abi-mismatch", "TE105": "python-unsupported", "TE201": "driver-too-old",
    "TE202": "gpu-arch-unsupported", "TE203": "cpu-build-with-gpu", "TE204": "cuda-libs-conflict",
    "TE205": "cuda-visible-devices-invalid", "TE206": "gpu-memory-orphaned", "TE207": "gpu-unhealthy",
    "TE208": "extension-toolchain-mismatch", "TE209": "debug-env-left-on", "TE210": "nv-compute-cache",
    "TE301": "nccl-env-suspicious", "TE302": "master-port-in-use", "TE401": "stale-extension-lock",
    "TE402": "shm-too-small", "TE403": "open-files-limit-low",
}


def test_the_fixed_codes_exist_with_their_names():
    registered = {c.code: c.name for c in env_checks()}
    for code, name in FIXED_CODES.items():
        assert registered.get(code) == name, f"{code} must be registered as {name}"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_checks_and_renderers_never_touch_the_machine_or_torch():
    forbidden = {"torch", "subprocess", "pynvml", "psutil", "socket", "ctypes"}
    for folder in ("checks", "doctor/render"):
        for path in (ROOT / folder).rglob("*.py"):
            bad = _imports(path) & forbidden
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}: only doctor/facts/ touches the machine"


def test_no_module_imports_torch_at_top_level():
    for path in (ROOT / "doctor").rglob("*.py"):
        source = path.read_text()
        assert not re.search(r"^(import torch|from torch\b)", source, re.M), path


def test_readme_documents_every_check():
    readme = (ROOT / "README.md").read_text()
    for check in env_checks():
        assert f"| {check.code} | {check.name} |" in readme, f"README's check table lacks {check.code}"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    command = 'python -m pip install -e ".[test]" && python -m pytest -q'
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text()


def test_related_ids_are_knowledge_base_ids():
    # The catalog of knowledge-base ids lives beside the repository (shared/); on a checkout
    # without it there is nothing to compare against.
    catalog = ROOT.parent / "shared" / "kb-catalog.md"
    if not catalog.exists():
        import pytest

        pytest.skip("shared/kb-catalog.md is not beside this checkout")
    ids = set(re.findall(r"^\| ([a-z0-9-]+) \|", catalog.read_text(), re.M))
    from torchdoctor.facts.model import Facts
    from torchdoctor.runner import run_check

    for check in env_checks():
        for example in check.examples:
            finding = run_check(check, Facts.partial(**example.facts))
            unknown = set(finding.related) - ids
            assert not unknown, f"{check.code} links to {unknown}, which are not knowledge-base ids"


def test_readme_documents_every_lint_rule():
    from torchdoctor.registry import lint_rules

    readme = (ROOT / "README.md").read_text()
    for rule in lint_rules():
        assert f"| {rule.code} | {rule.name} |" in readme, f"README's rule table lacks {rule.code}"
