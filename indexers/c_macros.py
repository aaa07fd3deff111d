"""Macros in C and C++ declarations, blanked before a second parse.

Tree-sitter parses ``int ZEXPORT deflate(...)`` without the macro definitions and recovers
with error nodes that hide the name. ``blank_macros`` finds, with a token scan and the
language's ``MacroHints``, the words of a declaration that can only be macros and replaces
them with spaces, byte for byte, so offsets, lines and names stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from indexers.languages import MacroHints

_C_TOKEN = re.compile(
    rb"""(?P<comment>/\*.*?(?:\*/|\Z)|//(?:\\\n|[^\n])*)
    |(?P<directive>^[ \t]*\#(?:/\*.*?\*/|\\.|[^\n])*)
    |(?P<literal>"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|[0-9][\w.]*(?:\s*,\s*[0-9][\w.]*)*)
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<punct>\S)""",
    re.S | re.M | re.X,
)
# Tokens after which a declaration may begin, and tokens that may end a declarator's name.
_DECL_START = frozenset({b";", b"{", b"}", b"(", b","})
_NAME_END = frozenset({b"(", b"[", b"=", b";", b",", b")"})
_TYPE_END = frozenset({b",", b")"})


def blank_macros(data: bytes, hints: MacroHints) -> bytes:
    """``data`` with the macros of declarations replaced by spaces, byte for byte.

    A declaration head is the run of words and ``*`` from where a declaration may begin up to
    the declared name. It names one type: either type keywords (``unsigned char``,
    ``struct tag``) or one type name. Other bare words in it are macros: all of them next to a
    type keyword, all but one type name otherwise (the last not written in capitals: in
    ``local ptr_table t``, ``uch FAR *p`` and ``ZEXTERN uLong ZEXPORT f(...)`` the type is
    ``ptr_table``, ``uch``, ``uLong``), and a word between a ``*`` and the name. Comments,
    literals and preprocessor lines are left alone. An ALL_CAPS word between a name and ``((`` is a
    prototype wrapper: it and its outer parentheses are blanked. Types without a name (casts,
    unnamed parameters) are read the same way.
    """
    tokens = [(m.lastgroup, m.group(), m.start()) for m in _C_TOKEN.finditer(data)
              if m.lastgroup != "comment"]
    words = _macro_words(hints)
    reserved = words.reserved
    blank: list[tuple[int, int]] = []
    head: list[tuple[bytes, int]] | None = []
    for i, (kind, text, start) in enumerate(tokens):
        if kind == "word":
            if (hints.prototype_wrappers and text.isupper() and i + 2 < len(tokens)
                    and tokens[i + 1][1] == b"(" and tokens[i + 2][1] == b"("
                    and i > 0 and tokens[i - 1][0] == "word" and tokens[i - 1][1] not in reserved):
                close = _matching_paren(tokens, i + 1)
                if close is not None:
                    blank += [(start, tokens[i + 1][2] + 1), (tokens[close][2], tokens[close][2] + 1)]
            elif head is not None:
                head.append((text, start))
            continue
        if kind == "punct" and text == b"*":
            if head is not None:
                head.append((text, start))
            continue
        if head and kind == "punct" and text in _NAME_END:
            if head[-1][0] == b"*":
                if text in _TYPE_END:  # a type without a name: `(uch FAR *)p`, `f(void FAR *, int)`
                    blank += _head_macros(head, words)
            elif head[-1][0] not in reserved:
                blank += _head_macros(head[:-1], words)
        head = [] if kind == "directive" or (kind == "punct" and text in _DECL_START) else None
    if not blank:
        return data
    out = bytearray(data)
    for start, end in blank:
        out[start:end] = b" " * (end - start)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class _MacroWords:
    """A language's ``MacroHints`` as byte strings, the form the token scan compares."""

    reserved: frozenset[bytes]  # every reserved word
    types: frozenset[bytes]  # type and tag keywords
    tags: frozenset[bytes]
    not_in_declarations: frozenset[bytes]


@cache
def _macro_words(hints: MacroHints) -> _MacroWords:
    def b(words: frozenset[str]) -> frozenset[bytes]:
        return frozenset(w.encode() for w in words)

    types = b(hints.type_keywords) | b(hints.tag_keywords)
    return _MacroWords(types | b(hints.specifiers) | b(hints.keywords), types, b(hints.tag_keywords),
                       b(hints.keywords))


def _head_macros(head: list[tuple[bytes, int]], words: _MacroWords) -> list[tuple[int, int]]:
    """Byte ranges of the words of a declaration head (the name excluded) that are macros."""
    before: list[tuple[bytes, int]] = []  # bare words before the first `*`
    after: list[tuple[bytes, int]] = []  # bare words after it, followed by a word
    typed = False
    pointer = False
    previous = b""
    for k, (text, start) in enumerate(head):
        if text in words.not_in_declarations:
            return []  # `return a * b`, `if (x and y)`: an expression
        if text == b"*":
            pointer = True
        elif text in words.types:
            typed = True
        elif text not in words.reserved and previous not in words.tags:
            if not pointer:
                before.append((text, start))
            elif k + 1 == len(head) or head[k + 1][0] != b"*":
                after.append((text, start))  # `* ZEXPORT name`, not `a * N * b`
        previous = text
    if not typed and before:
        lower = [w for w in before if not w[0].isupper()]
        keep = lower[-1] if lower else before[0]
        before = [w for w in before if w is not keep]
    return [(start, start + len(text)) for text, start in before + after]


def _matching_paren(tokens: list[tuple[str, bytes, int]], open_at: int) -> int | None:
    depth = 0
    for j in range(open_at, len(tokens)):
        text = tokens[j][1]
        if text == b"(":
            depth += 1
        elif text == b")":
            depth -= 1
            if depth == 0:
                return j
    return None
