"""Where tree-sitter's error recovery has been at work in a parse tree."""

from __future__ import annotations

import tree_sitter

MAX_ERROR_CHILDREN = 2000
MAX_ERROR_SCAN = 200_000


def scan_errors(root: tree_sitter.Node) -> tuple[int, bool]:
    """Count ERROR and MISSING nodes, descending only into subtrees that contain errors.

    Also reports error nodes with so many children that tree-sitter queries over them turn
    quadratic (thousands of unbalanced brackets); such files are not queried at all.
    """
    count = 0
    visited = 0
    stack = [root]
    while stack:
        node = stack.pop()
        visited += 1
        if node.is_missing:
            count += 1
        if node.is_error:
            count += 1
            if node.child_count > MAX_ERROR_CHILDREN:
                return count, True
        if visited > MAX_ERROR_SCAN:
            break
        stack.extend(c for c in node.children if c.has_error)
    return max(count, 1), False


def inside_error(node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.is_error:
            return True
        parent = parent.parent
    return False


def parsed_again(parser: tree_sitter.Parser, data: bytes, cleaned: bytes, tree: tree_sitter.Tree, errors: int,
                 old_tree: tree_sitter.Tree | None = None, pathological: bool = False,
                 ) -> tuple[tree_sitter.Node, bytes, int, bool]:
    """The tree of ``cleaned`` (``data`` rewritten, byte offsets kept) with the bytes it was
    parsed from, its error count and whether it is pathological, unless it has more errors
    than ``tree`` (of ``data``, with ``errors``; ``pathological`` or not) or is pathological
    where ``tree`` is not: then ``tree``'s. ``old_tree``: ``tree`` told where ``cleaned``
    differs, for an incremental parse."""
    root = tree.root_node
    if cleaned == data:
        return root, data, errors, pathological
    retry = (parser.parse(cleaned, old_tree) if old_tree is not None else parser.parse(cleaned)).root_node
    if not retry.has_error:
        return retry, cleaned, 0, False
    count, worse = scan_errors(retry)
    if (count > errors or worse) and not pathological:
        return root, data, errors, False
    return retry, cleaned, count, worse
