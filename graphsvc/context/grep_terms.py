"""The grep index's terms: how text is split into them, and what a literal says about them.

The index (`graphsvc.context.grep_index`) keeps the words of each chunk of text: FTS5's
`ascii` tokenizer with '_' as a token character. A term is a maximal run of ASCII letters,
digits, '_' and non-ASCII characters, with its ASCII letters in lower case and nothing else
folded. `words` reproduces that byte for byte, for the vocabulary kept beside the index.

A literal found in a line tells which terms the line holds. Split into runs of token
characters, a run with a separator on each side inside the literal is a whole term; the
literal's first run, with a separator on its right only, is the end of a term; its last
run the start of one; a literal that is a single run lies anywhere inside a term (`Run`).

Case: the index folds ASCII letters only. A case-insensitive match (Python's `str.lower`
of both sides, or `re.IGNORECASE`) may also pair an ASCII letter of the pattern with one of
four non-ASCII letters of the text (`CASELESS`): terms holding those are looked up by their
`caseless` form. A run holding a non-ASCII character of its own is not used when case is
ignored (the index keeps such letters as written, and they fold in many ways).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"[0-9A-Za-z_\x80-\U0010ffff]+")

# Byte by byte: an ASCII separator becomes a space, an ASCII capital its lower case;
# UTF-8's bytes of non-ASCII characters (all >= 0x80) are token bytes, as in FTS5.
_BYTES = bytes(
    b + 32 if 65 <= b <= 90 else b if b >= 128 or chr(b).isalnum() or b == 95 else 32
    for b in range(256)
)

# The non-ASCII letters that Python's case-insensitive matching pairs with an ASCII letter:
# `str.lower` maps U+0130 to "i" + U+0307 and U+212A to "k"; `re.IGNORECASE` also pairs
# U+0131 with "i" and U+017F with "s". No other character does, nor any with a separator.
CASELESS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def words(text: str) -> set[bytes]:
    """The distinct terms of `text` as the index's tokenizer makes them (UTF-8)."""
    return set(text.encode().translate(_BYTES).split())


def fold(text: str) -> str:
    """ASCII letters in lower case, as the index keeps them."""
    return text.encode().lower().decode()  # bytes.lower() changes ASCII letters only


def caseless(term: str) -> str | None:
    """The term with `CASELESS` letters replaced by their ASCII partner; None when it has none."""
    if term.isascii():
        return None
    out = term.translate(CASELESS)
    return out if out != term else None


@dataclass(frozen=True, slots=True)
class Run:
    """A run of a literal's token characters (folded as the index folds them), and whether
    a term must start (`starts`) or end (`ends`) where it does."""

    text: str
    starts: bool
    ends: bool

    def allows(self, term: str) -> bool:
        if self.starts and self.ends:
            return term == self.text
        if self.starts:
            return term.startswith(self.text)
        if self.ends:
            return term.endswith(self.text)
        return self.text in term


def runs(literal: str, ignore_case: bool) -> list[Run]:
    """What `literal` says about the terms of a chunk holding it: each run must be a term,
    or a term's start, end or part (see the module's docstring)."""
    out = []
    for m in _TOKEN.finditer(literal):
        if ignore_case and not m.group().isascii():
            continue
        out.append(Run(fold(m.group()), starts=m.start() > 0, ends=m.end() < len(literal)))
    return out
