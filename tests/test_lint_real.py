"""Every rule on real code: excerpts of public training scripts and libraries under
tests/fixtures/lint_real/, each with its source in a header comment and its expected findings
in a `# expect:` line (`CODE@LINE ...`, or `none`). All rules run (TD204 included), so a
fixture also proves that the other rules stay quiet on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from torchdoctor.lint import context
from torchdoctor.lint.engine import check_source

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "lint_real").glob("*.py"))
_EXPECT = re.compile(r"^#\s*expect:\s*(?P<spec>.*)$", re.MULTILINE)
_ITEM = re.compile(r"^(TD\d{3})@(\d+)$")


def _expected(text: str) -> set[tuple[str, int]]:
    m = _EXPECT.search(text)
    assert m, "a fixture declares `# expect: CODE@LINE ...` or `# expect: none` in its header"
    spec = m.group("spec").split("#")[0].strip()
    if spec == "none":
        return set()
    out = set()
    for item in spec.split():
        im = _ITEM.match(item)
        assert im, f"bad expectation {item!r}"
        out.add((im.group(1), int(im.group(2))))
    return out


def test_there_are_real_fixtures():
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_real_code_fixture(path, monkeypatch):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 75, "keep excerpts short (<= 60 lines of code plus the header)"
    head = "\n".join(text.splitlines()[:8])
    assert re.search(r"(source|from):", head, re.IGNORECASE), "the header names the source of the excerpt"
    monkeypatch.setattr(context, "TARGET_TORCH", "2.6")
    result = check_source(text, path=path.name, select=("TD",))
    assert not result.errors, result.errors
    found = {(f.code, f.line) for f in result.findings}
    assert found == _expected(text), [(f.code, f.line, f.message[:90]) for f in result.findings]
