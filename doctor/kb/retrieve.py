"""Possible causes when no pattern is confident: BM25 over the knowledge entries' words.

A pattern names a failure exactly; people often do not paste it. They paste half a message, a
message reworded by a framework, or a sentence ("training hangs after the first epoch"). For
those, the entries are ranked by lexical similarity to the text: titles, summaries, symptoms (the
failure in words, in any language), the messages of their examples, and the words of the real
reports of the corpus's dev split labelled with them (knowledge/report_words.json, `report_words`).
The index is built with the knowledge index (knowledge/retrieval.json) and read only when it is needed.

A retrieval rank is a guess and is never shown as an answer: `explain` lists it under "possible
causes", with the words that made it rise.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from typing import Any, Iterable, NamedTuple

from .schema import Entry

# Chosen on the dev split with each case's own thread and near-copies left out of the index
# (bench/retrieval_leaveout.py --styles all, 1916 cases): k1 2.0 and b 0.6 rank the right entry first in 79.8%
# and in the first three in 90.4% (78.9% and 89.4% with the textbook 1.2 and 0.75). A higher k1 lets a word the query
# repeats and an entry holds often count more; a lower b punishes long entries (many examples) less.
K1 = 2.0
B = 0.6
# How much an entry's share of the real reports counts beside the words: PRIOR * log(1 + the number of
# dev reports labelled with it) is added to its BM25 score. A common cause is the likelier reading of a
# vague text ("memory keeps growing") when the words fit several entries about as well. Chosen with the
# leave-out measurement (bench/retrieval_leaveout.py, each case's own thread left out of the counts too):
# on the dev split's symptoms and titles top-1 66.2% -> 68.0% and top-3 80.4% -> 81.3%, on its other
# pastes 79.8% -> 80.3% and 89.1% -> 89.6% (0.5 and 1.5 do about as well; a multiplicative prior no better).
PRIOR = 1.0
# Below this share of the query's weight matched, a candidate is noise and is not shown.
MIN_COVERAGE = 0.18
MAX_QUERY_CHARS = 20000

# Words, and runs of characters beyond ASCII, from which the Chinese runs are cut (a character
# class of the CJK range would cost ~1 ms to compile on every `explain`).
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+|[^\x00-\x7f]+")
# The words of a CamelCase name (FullEmbeddingDropout, CUDAGraphTree).
_CAMEL_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# Read only when the index is built (re compiles and caches it then).
_FRAME_LINE = r'^\s*(?:File "|frame #\d|at [\w.$]+\(|\S+\.py:\d+|-+$|=+$)'
# Words that every traceback and every bug report carries: they say nothing about the cause.
STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does doing done for from had has have how i if in into is
it its me my no not of on or our so some such than that the their them then there these they this to too
us was we were what when where which while who why will with would you your yes also just get got gets getting
after before during again any all am here only own same very should now one two use used using want wanted try
tried trying run running ran error errors exception traceback most recent call last file line lines py python
lib site packages self return returns returned module main code following occurred issue problem help please
thanks hi hello anyone know idea work works working fine solve solved question message following raise raised
info warning warn print output input see seems seem like look looks make makes made new old time times first
end many much more less still even every each other another since until without within about over under
training train trains trained script scripts pytorch torch program programs project application app
don doesn didn isn wasn aren weren haven hasn hadn won wouldn couldn shouldn ve ll re
think thought being thank something anything everything nothing really actually maybe sure directly
""".split())


# Chinese has no spaces: a run of characters is cut into pairs. Pairs that every Chinese bug report
# carries ("报错", "训练", "问题", ...) and pairs with a function character in them say nothing.
CJK_STOP_PAIRS = frozenset("""
报错 错误 出现 问题 解决 如何 怎么 什么 时候 运行 一个 这个 那个 我们 可以 没有 代码 模型 使用 训练 请问 大佬 各位 谢谢
方法 原因 情况 然后 但是 因为 所以 如果 已经 还是 就是 不是 进行 需要 发现 显示 提示 结果 之后 之前 现在 这样 这种 这里
一下 一直 一样 文件 程序 执行 安装 版本 环境 数据 输出 输入 导致 通过 可能 所有 相关 其中 以下 如下 下面 上面 最后 开始
""".split())
_CJK_FUNCTION_CHARS = frozenset("的了是在我你他她它这那就也都和与或把被个为以之中有不吗呢啊吧么着过到对从而")


def tokens(text: str) -> list[str]:
    """Lower-case words of a text, without stop words; a run of Chinese characters becomes its
    character pairs (there are no spaces to split on). A word or phrase with a plainer synonym
    (`SYNONYMS`, `CJK_SYNONYMS`) also yields the synonym's words."""
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = raw.lower()
        if word[0] > "\x7f":
            for w in _chinese_runs(word):
                for i in range(max(1, len(w) - 1)):
                    pair = w[i:i + 2]
                    if len(pair) == 2 and pair not in CJK_STOP_PAIRS and not (_CJK_FUNCTION_CHARS & set(pair)):
                        out.append(pair)
                for phrase, also in CJK_SYNONYMS:
                    if phrase in w:
                        out.extend(also)
        elif word not in STOPWORDS and not word.startswith("0x"):
            stem = _stem(word)
            out.append(stem)
            out.extend(SYNONYMS.get(stem, ()))
            if ("_" not in raw and not raw.islower() and not raw.isupper() and not raw[1:].islower()
                    and not raw.endswith(("Error", "Exception", "Warning"))):
                # A class or function name says what it is in its parts: the words count too.
                out.extend(_stem(p.lower()) for p in _CAMEL_PART.findall(raw)
                           if len(p) > 2 and p.lower() not in STOPWORDS)
    return out


def _stem(word: str) -> str:
    """One form for a word's inflections ("hangs", "hanging", "hung" -> "hang"; "workers" ->
    "worker"): people describe a failure in other forms of the entry's words."""
    if len(word) <= 4 or "_" in word or word[-1].isdigit():
        return _IRREGULAR.get(word, word)
    if word.endswith(("ss", "us", "is")):  # process, status, axis: not plurals
        return _IRREGULAR.get(word, word)
    if word.endswith("ies"):  # memories, libraries, dependencies
        return _IRREGULAR.get(word[:-3] + "y", word[:-3] + "y")
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if suffix == "es" and not stem.endswith(("ss", "sh", "ch", "x")):
                stem = word[:-1]
            if suffix in ("ing", "ed") and len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in "ls":
                stem = stem[:-1]
            return _IRREGULAR.get(stem, stem)
    return _IRREGULAR.get(word, word)


_IRREGULAR = {"hung": "hang", "froze": "freez", "frozen": "freez", "freeze": "freez"}


# People describe one failure in many words; the entries use one of them. Each word below, in any
# inflection, also counts as the entries' word, so "stuck", "deadlocked" and "卡住" find an entry
# whose symptoms say "hangs". Only words whose meaning in a PyTorch bug report is unambiguous:
# "freeze" is left out (frozen layers are not a hang), so is "block" (a network's blocks).
_SYNONYM_WORDS = (
    ("stuck deadlock unresponsive", "hang"),
    ("slower slowly slowdown sluggish", "slow"),
    ("leak increase accumulate climb balloon creep", "grow"),
    ("leakage", "leak grow"),
    ("gpus", "gpu"), ("vram", "gpu memory"), ("multigpu", "multi gpu"), ("multiple", "multi"),
    ("oom ram", "memory"),
    ("diverge explode", "nan"),
)
# Chinese phrases and the English words the entries use for them, matched inside a run of
# ideographs (there are no spaces to split on); a phrase holding another adds both, as intended
# ("显存不足" is also "显存").
_CJK_SYNONYM_WORDS = (
    ("卡住 卡死 卡在 不动 停住 阻塞 假死 挂起 无响应 没反应", "hang"), ("死锁", "hang deadlock"),
    ("慢 耗时", "slow"), ("速度", "speed"),
    ("泄漏 泄露", "leak grow"), ("增长 增加 上涨 升高 增大 越来越", "grow"), ("释放", "release"),
    ("显存", "gpu memory"), ("内存", "memory"), ("不足 溢出 爆", "out"),
    ("多卡 张卡 块卡 卡并行", "multi gpu"), ("单卡 单张", "single gpu"), ("并行", "parallel"), ("显卡", "gpu"), ("多进程", "multiprocessing"),
    ("分布式", "distributed"), ("梯度", "gradient"), ("损失", "loss"), ("权重", "weight"), ("参数", "parameter"),
    ("更新", "update"), ("准确率 正确率", "accuracy"), ("混合精度", "amp mixed precision"), ("半精度", "half fp16"),
    ("进度条", "progress"), ("数据加载", "dataloader"), ("加载", "load"), ("保存", "save"), ("推理", "inference"),
    ("验证", "validation"), ("测试", "test"), ("评估", "eval"), ("利用率", "utilization"), ("占用", "usage"),
    ("杀死 被杀", "killed"), ("进程", "process"), ("线程", "thread"), ("崩溃", "crash"),
    ("段错误", "segmentation fault"), ("共享内存", "shared shm"), ("随机", "random"), ("复现", "reproduce"),
    ("不一致 不同", "differ"), ("编译", "compile"), ("初始化", "init"), ("通信", "communication"),
    ("超时", "timeout"), ("端口", "port"), ("预训练", "pretrained"), ("断点 恢复训练 继续训练", "resume"),
)


def _inflections(word: str) -> set[str]:
    if word.endswith("e"):
        return {word, word + "s", word + "d", word[:-1] + "ing"}
    return {word, word + "s", word + "es", word + "ed", word + "ing"}


SYNONYMS: dict[str, tuple[str, ...]] = {
    key: tuple(_stem(w) for w in also.split())
    for words, also in _SYNONYM_WORDS for word in words.split() for key in {_stem(f) for f in _inflections(word)}
}
CJK_SYNONYMS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (phrase, tuple(_stem(w) for w in also.split())) for phrases, also in _CJK_SYNONYM_WORDS for phrase in phrases.split()
)


def _chinese_runs(text: str) -> list[str]:
    """The runs of CJK ideographs (U+4E00..U+9FFF) in a text."""
    runs: list[str] = []
    start = -1
    for i, ch in enumerate(text):
        if "\u4e00" <= ch <= "\u9fff":
            if start < 0:
                start = i
        elif start >= 0:
            runs.append(text[start:i])
            start = -1
    if start >= 0:
        runs.append(text[start:])
    return runs


def _message_lines(text: str) -> str:
    """An example's text without its frame lines and source lines: the messages, which is what
    another user's text shares with it."""
    return "\n".join(line for line in text.splitlines() if line.strip() and not re.match(_FRAME_LINE, line)
                     and not line.startswith("    "))


def document_parts(entry: Entry) -> list[tuple[str, list[str], int]]:
    """(kind, words, weight) of each text an entry is retrieved by: its title and symptoms count double,
    an example's message words once each."""
    return [("title", tokens(entry.title), 2), ("summary", tokens(entry.summary), 1),
            *(("symptom", tokens(s), 2) for s in entry.symptoms),
            *(("example", sorted(set(tokens(_message_lines(x.text)))), 1) for x in entry.examples)]


def entry_document(entry: Entry) -> Counter[str]:
    """The bag of words an entry is retrieved by."""
    bag: Counter[str] = Counter()
    for _, words, weight in document_parts(entry):
        for t in words:
            bag[t] += weight
    return bag


def build(entries: Iterable[Entry], reports: dict[str, dict[str, int]] | None = None,
          counts: dict[str, int] | None = None) -> dict[str, Any]:
    """The BM25 index of the entries; `reports` (knowledge/report_words.json): per entry, the words of
    the real reports labelled with it, each counted once per report that holds it; `counts`: how many
    reports are labelled with each entry (the prior, `PRIOR`)."""
    docs: dict[str, dict[str, int]] = {}
    for e in entries:
        bag = entry_document(e)
        bag.update((reports or {}).get(e.id, {}))
        docs[e.id] = dict(bag)
    return {"postings": {**postings(docs), "priors": priors(list(docs), counts or {})}}


def priors(ids: list[str], counts: dict[str, int]) -> list[float]:
    """Per entry (in `ids` order), log(1 + its number of labelled reports)."""
    return [round(math.log1p(counts.get(i, 0)), 4) for i in ids]


# A word of the real reports counts only where this many reports hold it: a project's or a user's own
# words (a repository name, a file path) say nothing of the cause.
REPORT_WORD_MIN_REPORTS = 3


def report_words(reports: Iterable[tuple[str, list[str]]], known: set[str]) -> dict[str, dict[str, int]]:
    """Per entry, from (label, words of one report): how many of its reports hold each word, for the
    words that at least REPORT_WORD_MIN_REPORTS reports (of any label) hold. Unknown labels are left out."""
    sets = [(label, set(words)) for label, words in reports]
    held = Counter(w for _, words in sets for w in words)
    out: dict[str, Counter[str]] = {}
    for label, words in sets:
        if label in known:
            out.setdefault(label, Counter()).update(w for w in words if held[w] >= REPORT_WORD_MIN_REPORTS)
    return {label: dict(sorted(bag.items())) for label, bag in sorted(out.items())}


# Every this-many words of the postings, the word and where its record starts: a lookup bisects these
# and searches one block.
POSTINGS_BLOCK = 64


def postings(docs: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The BM25 index of the entries' bags of words, worked out when the knowledge index is built:
    the entries' ids, each entry's length norm, and per word its idf and the entries that hold it
    ("word=idf i:tf i:tf ...", i an entry's place in `ids`). The words' records are one string,
    ";"-separated in sorted order, with every POSTINGS_BLOCK-th word and its offset beside it: a run
    reads one JSON string and finds its query's words (a dict of every word took 6 ms to read, a
    twentieth of explain's whole budget). Words hold neither ";" nor "=" (`tokens`)."""
    n = len(docs) or 1
    lengths = [sum(bag.values()) for bag in docs.values()]
    avg = sum(lengths) / n if lengths else 1.0
    held: dict[str, list[str]] = {}
    for i, bag in enumerate(docs.values()):
        for t, f in bag.items():
            held.setdefault(t, []).append(f"{i}:{f}")
    records, blocks, offset = [], [], 0
    for k, (t, h) in enumerate(sorted(held.items())):
        # repr: the idf read back is the very float computed here
        record = ";" + t + "=" + " ".join([repr(math.log(1 + (n - len(h) + 0.5) / (len(h) + 0.5))), *h])
        if k % POSTINGS_BLOCK == 0:
            blocks.append([t, offset])
        records.append(record)
        offset += len(record)
    return {"ids": list(docs), "norms": [K1 * (1 - B + B * length / avg) for length in lengths],
            "blocks": blocks, "words": "".join(records) + ";"}


class Candidate(NamedTuple):
    id: str
    score: float  # share of the query's weight that the entry matched, 0..1
    words: list[str]  # the query words that made it rise, most telling first
    bm25: float  # what candidates are ranked by: BM25 with the entry's prior

    def to_json(self, title: str) -> dict[str, Any]:
        return {"id": self.id, "title": title, "score": round(self.score, 3), "why": self.words}


class Retriever:
    def __init__(self, index: dict[str, Any]) -> None:
        self.ids: list[str] = index["ids"]
        self.norms: list[float] = index["norms"]
        self._records: str = index["words"]  # ";word=idf i:tf i:tf ...;..." (`postings`)
        self._block_words = [w for w, _ in index["blocks"]]
        self._block_starts = [at for _, at in index["blocks"]]
        self.priors: list[float] = index.get("priors") or [0.0] * len(self.ids)

    def postings(self, word: str) -> str | None:
        """"idf i:tf i:tf ..." of a word, or None when no entry holds it."""
        k = bisect.bisect_right(self._block_words, word) - 1
        if k < 0:
            return None
        end = self._block_starts[k + 1] + 1 if k + 1 < len(self._block_starts) else len(self._records)
        at = self._records.find(";" + word + "=", self._block_starts[k], end)
        if at < 0:
            return None
        start = at + len(word) + 2
        return self._records[start:self._records.index(";", start)]

    def rank(self, text: str, limit: int = 3) -> list[Candidate]:
        query = Counter(tokens(text[:MAX_QUERY_CHARS]))
        posted = {t: p for t in query if (p := self.postings(t)) is not None}
        if not posted:
            return []
        held: dict[str, list[str]] = {}
        idf: dict[str, float] = {}
        for t, p in posted.items():
            first, *held[t] = p.split(" ")
            idf[t] = float(first)
        # A word repeated in a long log counts a little more, not a hundred times more.
        qweight = {t: idf[t] * (1 + math.log(query[t])) for t in posted}
        total = sum(qweight.values())
        score: dict[int, float] = {}
        matched: dict[int, float] = {}
        words: dict[int, list[tuple[float, str]]] = {}
        for t, w in qweight.items():  # per entry, the sums run in the query's order
            for posting in held[t]:
                i, f = map(int, posting.split(":"))
                score[i] = score.get(i, 0.0) + w * f * (K1 + 1) / (f + self.norms[i])
                matched[i] = matched.get(i, 0.0) + w
                words.setdefault(i, []).append((w, t))
        scored: list[Candidate] = []
        for i, found in words.items():
            found.sort(reverse=True)
            scored.append(Candidate(self.ids[i], matched[i] / total, [t for _, t in found[:6]],
                                    score[i] + PRIOR * self.priors[i]))
        # Noise is dropped before the cut, so a larger knowledge base cannot push a real
        # candidate out of the list with candidates that would not have been shown anyway.
        scored = [c for c in scored if c.score >= MIN_COVERAGE]
        scored.sort(key=lambda c: (-c.bm25, c.id))
        return scored[:limit]
