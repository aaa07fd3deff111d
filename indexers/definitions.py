"""What a definition says of itself besides its name: its signature and its documentation."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter

from indexers.languages import LanguageSpec
from indexers.text import first_paragraph, strip_comment, strip_string

MAX_SIGNATURE = 300
_WS = re.compile(r"\s+")


def signature(data: bytes, node: tree_sitter.Node, kind: str) -> str:
    """A definition's first line as written, up to its body, white space folded."""
    body = node.child_by_field_name("body")
    start = node.start_byte
    if body is not None and body.start_byte > start:
        end = body.start_byte
    else:
        end = data.find(b"\n", start, node.end_byte)
        if end < 0:
            end = node.end_byte
    raw = data[start : min(end, start + 4 * MAX_SIGNATURE)]
    sig = _WS.sub(" ", raw.decode("utf-8", "replace")).strip()
    sig = sig.rstrip("{ ") if kind not in ("variable", "constant") else sig
    if body is not None:
        sig = sig.rstrip(":= ").rstrip()
    return sig[:MAX_SIGNATURE]


def documentation(spec: LanguageSpec, text: Callable[[tree_sitter.Node], str], node: tree_sitter.Node,
                  doc_node: tree_sitter.Node | None) -> str:
    """The first paragraph of a definition's doc: its docstring (``doc_node``), or in the
    languages that document with comments, the comments right above it."""
    if doc_node is not None:
        return first_paragraph(strip_string(text(doc_node)))
    if spec.doc_style != "comment":
        return ""
    comments = spec.comment_node_types
    skip = spec.doc_skip_node_types
    # Climb through wrappers on the same line (export, template, declarator lists) so the
    # comment above the wrapper is found.
    for _ in range(3):
        prev = node.prev_named_sibling
        while prev is not None and prev.type in skip:
            prev = prev.prev_named_sibling
        if prev is not None:
            break
        parent = node.parent
        if parent is None or parent.parent is None or parent.start_point[0] != node.start_point[0]:
            break
        node = parent
    prev = node.prev_named_sibling
    expected = node.start_point[0]
    while prev is not None and prev.type in skip:
        expected = prev.start_point[0]
        prev = prev.prev_named_sibling
    block: list[tree_sitter.Node] = []
    while prev is not None and prev.type in comments and prev.end_point[0] >= expected - 1:
        block.append(prev)
        expected = prev.start_point[0]
        prev = prev.prev_named_sibling
    prefixes = spec.comment_prefixes
    return first_paragraph("\n".join(strip_comment(text(c), prefixes) for c in reversed(block)))
