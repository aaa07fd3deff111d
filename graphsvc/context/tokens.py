"""Token counting for budgets: a real BPE tokenizer when one works offline, else an estimate.

The tokenizer is `bpe-openai` (the `o200k_base` vocabulary ships inside its wheel, so counting
never touches the network). `tiktoken` is deliberately not used: it downloads its vocabularies
on first use.

The estimate, used when no tokenizer is importable, is one token per three UTF-8 bytes,
rounded up. BPE vocabularies average about four bytes per token on English prose and three
on source code, so the estimate errs on the side of counting too many: a budget computed
with it is never exceeded by the real count of those texts.

Every caller reports `method` next to the count, so a reader knows which one it got.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Callable

ENCODING = "o200k_base"
ESTIMATE_METHOD = "estimate: 1 token per 3 UTF-8 bytes"
_CACHE_SIZE = 4096


class TokenCounter:
    """Counts tokens; remembers recent texts so ranking the same ring twice is cheap."""

    def __init__(self, method: str, count: Callable[[str], int]):
        self.method = method
        self._count = count
        self._memo: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            found = self._memo.get(text)
            if found is not None:
                self._memo.move_to_end(text)
                return found
        counted = self._count(text)
        with self._lock:
            self._memo[text] = counted
            if len(self._memo) > _CACHE_SIZE:
                self._memo.popitem(last=False)
        return counted


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 3)


def _load_bpe() -> TokenCounter | None:
    try:
        import bpe_openai
    except ImportError:
        return None
    try:
        encoding = bpe_openai.get_encoding(ENCODING)
        encoding.encode_ordinary("probe")
    except Exception:  # a broken install must not break budgets: fall back to the estimate
        return None
    return TokenCounter(
        f"bpe-openai {ENCODING}", lambda text: len(encoding.encode_ordinary(text))
    )


_counter: TokenCounter | None = None
_counter_lock = threading.Lock()


def get_counter(prefer_tokenizer: bool = True) -> TokenCounter:
    """The process-wide counter (the tokenizer loads once, on first use, in about 2 s)."""
    global _counter
    if not prefer_tokenizer:
        return TokenCounter(ESTIMATE_METHOD, estimate_tokens)
    with _counter_lock:
        if _counter is None:
            _counter = _load_bpe() or TokenCounter(ESTIMATE_METHOD, estimate_tokens)
        return _counter


def truncate_middle(text: str, max_chars: int) -> tuple[str, bool]:
    """Keep the start (the objective) and the end (the outcome); cut the middle, visibly.

    Returns the text (at most `max_chars` characters, marker included) and whether it was cut.
    """
    if len(text) <= max_chars:
        return text, False
    marker = "\n[… {} characters cut …]\n"
    room = max_chars - len(marker.format(len(text)))
    if room < 2:
        return text[:max_chars], True
    head = (room + 1) // 2
    tail = room - head
    cut = len(text) - head - tail
    return text[:head] + marker.format(cut) + (text[-tail:] if tail else ""), True
