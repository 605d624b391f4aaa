"""Reference tables (CUDA -> driver, torch releases, compute capabilities, ...) as versioned JSON
files with a source per table. Loaded lazily and cached; nothing here touches the machine."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=None)
def load(name: str) -> Any:
    """`load("cuda_driver")` reads cuda_driver.json beside this file."""
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    return json.loads(text)
