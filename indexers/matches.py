"""Query matches before they become records: what each pattern's matches are, and which of
several matches of one call to keep."""

from __future__ import annotations

import tree_sitter

SCOPE = "scope"
_ROLES: dict[str, dict[int, str]] = {}


def pattern_roles(lang: str) -> dict[int, str]:
    """Per query pattern, what its matches are (learned from the first match of each)."""
    roles = _ROLES.get(lang)
    if roles is None:
        roles = _ROLES[lang] = {}
    return roles


def role_of(caps: dict) -> str:
    for cap in caps:
        if cap.startswith(("definition.", "reference.")) or cap == SCOPE:
            return cap
    for cap in ("local", "field", "result", "return", "signature", "package", "declaration", "parameter",
                "parameter.rest", "block", "contents"):
        if cap in caps:
            return cap.partition(".")[0]
    return "declaration"


def narrowest_receivers(calls: list[tuple[tree_sitter.Node, dict]]) -> list[tuple[tree_sitter.Node, dict]]:
    """One match per called name: a call matched by a general and a specific pattern keeps
    the narrowest receiver (Go's ``(T{}).m()``: the literal's type ``T``, not the literal)."""
    best: dict[tuple[int, int], tuple[tree_sitter.Node, dict]] = {}
    for node, caps in calls:
        name, receiver = caps.get("name"), caps.get("receiver")
        if not name or not receiver or len(receiver) != 1:
            best[(node.start_byte, -1 - len(best))] = (node, caps)  # nothing to choose between
            continue
        key = (node.start_byte, name[0].start_byte)
        old = best.get(key)
        if old is None or _size(receiver[0]) < _size(old[1]["receiver"][0]):
            best[key] = (node, caps)
    return list(best.values())


def _size(node: tree_sitter.Node) -> int:
    return node.end_byte - node.start_byte
