"""TypeScript the grammar does not read, rewritten byte for byte before a second parse.

tree-sitter-typescript 0.23.2 fails on forms real packages write (a tenth of the TypeScript
files of the packages measured here had errors): variance annotations on type parameters
(``interface Store<in out T>``, TypeScript 4.7), ``const`` type parameters (``<const P>``,
5.0) and a generic call signature on the line after a member written without a separator
(``foo: number`` then ``<T>(value: T): T``), which it reads as a comparison. An error at the top of a file may leave the rest of it in one block,
every constant after it lost. The rewrite blanks the modifiers and turns the last space of
such a signature's indentation into ``;``: every byte offset, line and name stays the file's.
"""

from __future__ import annotations

import re

_GAP = rb"(?:[ \t\r\n]|/\*.*?\*/|//[^\n]*\n)*"  # spaces and comments
_VARIANCE = re.compile(rb"([<,]" + _GAP + rb")(in[ \t\r\n]+out|in|out|const)(?=[ \t\r\n]+[A-Za-z_$])", re.S)
_SIGNATURE = re.compile(rb"(\n[ \t]*)[ \t](?=<[ \t\r\n]*[A-Za-z_$][\w$]*[ \t\r\n]*(?:extends\b|[,>=]))")


def without_variance(data: bytes) -> bytes:
    """``data`` with variance annotations and ``const`` modifiers of type parameters blanked
    (TypeScript and TSX)."""
    if b"in" not in data and b"out" not in data and b"const" not in data:
        return data
    return _VARIANCE.sub(lambda m: m.group(1) + b" " * len(m.group(2)), data)


def readable(data: bytes) -> bytes:
    """``data`` as the TypeScript grammar reads it: variance annotations blanked, a separator
    before each generic call signature that starts a line after a member (not TSX: there
    ``<`` starts JSX)."""
    data = without_variance(data)
    if b"\n" not in data or b"<" not in data:
        return data

    def separated(m: re.Match) -> bytes:
        # After a member (`foo: number`, `run(): void`, `bar: Baz<T>`), not after `{`, `=`,
        # `(`, `,`, `=>` or `:` (a generic arrow function written on the next line); lines
        # of comments and block comments (a signature's JSDoc) between are passed over.
        end = m.start()
        for _ in range(MAX_LINES_BACK):
            start = data.rfind(b"\n", 0, end) + 1
            if data[start:end].rstrip().endswith(b"*/"):
                end = data.rfind(b"/*", 0, end)
                if end < 0:
                    break
                continue
            line = data[start:end].split(b"//", 1)[0].rstrip()
            if line:
                return m.group(1) + b";" if line[-1:] in _MEMBER_ENDS and not line.endswith(b"=>") else m.group(0)
            if start == 0:
                break
            end = start - 1
        return m.group(0)
    return _SIGNATURE.sub(separated, data)


MAX_LINES_BACK = 8  # blank lines, comment lines and block comments passed over before a signature, at most
_MEMBER_ENDS = frozenset(bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$)]}>")
