"""The text of a query file cut in two: the patterns that may match anywhere, and those rooted
at the grammar's root node, which a cursor that does not descend matches
(`LanguageSpec.root_query`)."""

from __future__ import annotations

import re


def split_root_patterns(source: str, root_type: str) -> tuple[str, str | None]:
    """``source`` with the top-level patterns rooted at ``root_type`` blanked, and those
    patterns alone (None when there are none). Each text keeps the other's lines as blank
    lines, so a compile error names the line of the query file."""
    chunks = _top_level_chunks(source)
    rooted = re.compile(rf"\(*\s*{re.escape(root_type)}(?![\w.])")
    at_root = [rooted.match(chunk) is not None for chunk in chunks]
    if not any(at_root):
        return source, None
    anywhere = "".join(_blank(c) if r else c for c, r in zip(chunks, at_root))
    return anywhere, "".join(c if r else _blank(c) for c, r in zip(chunks, at_root))


def _top_level_chunks(source: str) -> list[str]:
    """``source`` cut before each bracket that opens a top-level pattern (outside comments
    and strings); each chunk holds one pattern with what follows it up to the next."""
    cuts, depth, i, n = [0], 0, 0, len(source)
    while i < n:
        ch = source[i]
        if ch == ";":
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif ch == '"':
            i += 1
            while i < n and source[i] != '"':
                i += 2 if source[i] == "\\" else 1
        elif ch in "([":
            if depth == 0 and i:
                cuts.append(i)
            depth += 1
        elif ch in ")]":
            depth -= 1
        i += 1
    cuts.append(n)
    return [source[a:b] for a, b in zip(cuts, cuts[1:])]


def _blank(text: str) -> str:
    return "\n" * text.count("\n")
