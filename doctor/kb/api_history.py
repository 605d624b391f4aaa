"""When a torch name came or went, from torch's own releases (doctor/data/torch_api_history.json).

"module 'torch.fft' has no attribute 'rfftfreq'" is a torch older than the code when rfftfreq is a
name a later release added, and code older than the torch when the name is one a release removed;
for a name torch never had (a typo, another library's) the message says neither. A knowledge
pattern with `api_history` counts only when the name it captured is of that kind.

The table (430 KB of JSON) is read the first time such a pattern matches, never on a text without one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

# added / removed: a name of a module; argument: a keyword argument a torch callable gained later
KINDS = ("added", "removed", "argument")

# What a message calls the class whose attribute is missing, as the table names it.
_CLASSES = {"Tensor": "torch.Tensor", "torch.Tensor": "torch.Tensor", "Parameter": "torch.Tensor",
            "torch.nn.Parameter": "torch.Tensor", "torch.nn.parameter.Parameter": "torch.Tensor"}


class Change(NamedTuple):
    kind: str  # "added" or "removed" (a keyword argument's release: argument_added)
    version: str  # the first release with the name ("added"), or the first without it ("removed")


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    from ..data import load

    return load("torch_api_history")


def change(module: str, name: str) -> Change | None:
    """How `module.name` changed across torch releases, or None (always there, never there, or both)."""
    module = _CLASSES.get(module, module)
    table = _table()
    versions = table["versions"]
    first = table["added"].get(module, {}).get(name)
    if first is not None:
        return Change("added", versions[first])
    span = table["removed"].get(module, {}).get(name)
    if span is not None:
        return Change("removed", versions[span[1]])
    return None


def argument_added(callable_name: str, keyword: str) -> str | None:
    """The release from which the torch callable of that name takes the keyword (None: it always
    did, never did, or no torch callable has that name)."""
    table = _table()
    at = table["arguments"].get(callable_name, {}).get(keyword)
    return None if at is None else table["versions"][at]


def captures_fit(kind: str, captures: dict[str, str]) -> dict[str, str] | None:
    """A hit's captures when its `module` and `attribute` name an API of this kind (for `argument`:
    its `callable` and the keyword in `attribute`), None when they do not. They come back as what the
    entries' lines say: `api_name` (module.attribute) or `callable` and `keyword`, and `api_version`,
    the release it changed in; `module` and `attribute` are dropped, since an entry's own patterns
    give those other meanings (the missing module itself, a bare name)."""
    rest = {k: v for k, v in captures.items() if k not in ("module", "attribute")}
    name = captures.get("attribute")
    if kind == "argument":
        callable_name = captures.get("callable")
        version = argument_added(callable_name, name) if callable_name and name else None
        return None if version is None else {**rest, "keyword": name or "", "api_version": version}
    module = captures.get("module")
    if not module or not name:
        return None
    found = change(module, name)
    if found is None or found.kind != kind:
        return None
    return {**rest, "api_name": f"{module}.{name}", "api_version": found.version}
