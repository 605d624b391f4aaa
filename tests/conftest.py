"""Test-session isolation: `torchdoctor check` keeps its cache in the user's cache directory
($XDG_CACHE_HOME/torchdoctor/check); the tests, and the torchdoctor processes they start, use a
temporary one instead of the real ~/.cache."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache_home(tmp_path_factory):
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if saved is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = saved
