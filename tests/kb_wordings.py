"""The two tests every list of real wordings runs (tests/test_kb_*_wordings.py): each wording names
its cause first, and each close text does not name that cause at all."""

from __future__ import annotations

import pytest
from torchdoctor.kb import explain


def wording_tests(wordings: list[tuple[str, str]], not_these: list[tuple[str, str]], *, not_id: str = "{e}-not-{i}"):
    """(test_wording_names_its_cause_first, test_close_text_is_not_this_cause), to bind at module level."""

    @pytest.mark.parametrize("entry_id,text", wordings, ids=[f"{e}-{i}" for i, (e, _) in enumerate(wordings)])
    def test_wording_names_its_cause_first(entry_id, text):
        matches = explain(text)
        assert matches and matches[0].id == entry_id, [(m.id, round(m.confidence, 2)) for m in matches[:3]]

    @pytest.mark.parametrize("entry_id,text", not_these,
                             ids=[not_id.format(e=e, i=i) for i, (e, _) in enumerate(not_these)])
    def test_close_text_is_not_this_cause(entry_id, text):
        assert entry_id not in [m.id for m in explain(text)]

    return test_wording_names_its_cause_first, test_close_text_is_not_this_cause
