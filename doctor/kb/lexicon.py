"""Words for a symptom that many knowledge entries' patterns share, written once.

A pattern names a word group as `(?&name)` (PCRE's call of a named subpattern; Python's `re` refuses
it, so a group left unexpanded cannot pass for literal text). Each entry spelling its own list of
words for "hangs" drifted: one list had "frozen" and no Chinese, another "卡死" and no "freeze", a
third bare "hang", which matches "change". One list, used by every pattern that means the same
thing, lets every entry read the next user's word for it.

Each group is case-insensitive wherever it is used: a sentence starts with "Stuck" as often as "stuck".
"""

from __future__ import annotations

import re

# The things that training, a DataLoader, a collective or a process can be said to do when it stops
# making progress without an error. "freeze" is also what people do to weights ("freeze the backbone",
# "frozen layers"), so those uses are left out.
_FROZEN_WHAT = (r"(?:weights?|layers?|params|parameters|backbone|encoder|decoder|blocks?|bn|batch ?norm\w*|embeddings?|"
                r"vit|bert|clip|lora|modules?|heads?|stats|statistics)\b")
_HANG = (r"\bhang(?:s|ing|ed)?\b|\bhung\b|\bstuck\b|\bstall(?:s|ed|ing)?\b|\bdead[ -]?lock(?:s|ed|ing)?\b|never returns|"
         r"\bfreez(?:e|es|ing)\b(?!\s+(?:the\s+|all\s+|some\s+|its\s+|my\s+|our\s+|part\s+of\s+the\s+)?" + _FROZEN_WHAT + ")"
         r"|\bfroze\b|\bfrozen\b(?!\s+" + _FROZEN_WHAT + ")"
         r"|卡住|卡主|卡死|卡在|卡着|假死|无响应|没有响应|没反应|不动")

# A quantity (memory, a loss) going up over time, said as a verb or a phrase.
_GROWS = (r"increas\w{0,6}|\bgrow(?:s|n|ing|th)?\b|\bgrew\b|\bclimb(?:s|ed|ing)?\b|\bris(?:e|es|ing)\b|\brose\b|"
          r"\bgo(?:es)? up\b|\bgoing up\b|\bwent up\b|\bballoon(?:s|ed|ing)?\b|\bcreep(?:s|ing)? up\b|"
          r"\bpil(?:es|ed|ing) up\b|more and more|增长|增加|上涨|上升|递增|升高|变大|涨|越来越(?:大|多|高)|越跑越(?:大|多|高)")

GROUPS: dict[str, str] = {
    "hang": _HANG,
    "grows": _GROWS,
}

_CALL = re.compile(r"\(\?&(\w+)\)")


class UnknownGroup(ValueError):
    pass


def expand(regex: str) -> str:
    """`regex` with each `(?&name)` replaced by that word group, case-insensitive in place."""
    def group(m: re.Match) -> str:
        name = m.group(1)
        if name not in GROUPS:
            raise UnknownGroup(f"(?&{name}) names no word group (known: {', '.join(sorted(GROUPS))})")
        return f"(?i:{GROUPS[name]})"
    return _CALL.sub(group, regex)
