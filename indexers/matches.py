"""Query matches before they become records: what each pattern's matches are, and which of
several matches of one call to keep."""

from __future__ import annotations

import tree_sitter

from indexers.bindings import BINDING_ROLES
from indexers.languages import LANGUAGES

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
    for cap in ("local", "field", "result", "return", "signature", "generic", "package", "declaration", "parameter",
                "parameter.rest", "block", "contents", "exports"):
        if cap in caps:
            return cap.partition(".")[0]
    return "declaration"


def group_of(role: str) -> str:
    """Which list the extractor sorts a match of ``role`` into: every definition (and scope)
    in one, every binding in one, base types in one; each other role in its own."""
    if role.startswith("definition.") or role == SCOPE:
        return "definition"
    if role in BINDING_ROLES:
        return "binding"
    if role in ("reference.inherits", "reference.implements"):
        return "inherits"
    return role


def grouped_matches(lang: str, queries: tuple[tree_sitter.Query, tree_sitter.Query | None],
                    root: tree_sitter.Node) -> dict[str, list[tuple[int, dict]]]:
    """The matches of a language's query and root query (`LanguageSpec.root_query`) under
    ``root`` in lists by what their pattern finds (`group_of`), each list in match order (the
    root query's after the others). A root query's pattern is numbered after the query's
    patterns. One list lookup per match: a file has tens of thousands of them."""
    query, root_query = queries
    roles = pattern_roles(lang)
    groups: dict[str, list[tuple[int, dict]]] = {}
    count = query.pattern_count
    sinks: list[list | None] = [None] * (count + (root_query.pattern_count if root_query is not None else 0))
    matches = tree_sitter.QueryCursor(query).matches(root)
    if root_query is not None:
        for top in (root, *recovered_blocks(lang, root)):
            cursor = tree_sitter.QueryCursor(root_query)
            cursor.set_max_start_depth(0)  # matches start at the root; the others do not descend
            matches.extend((pattern + count, caps) for pattern, caps in cursor.matches(top))
    for match in matches:
        sink = sinks[match[0]]
        if sink is None:
            role = roles.get(match[0])
            if role is None:
                role = roles[match[0]] = role_of(match[1])
            sink = sinks[match[0]] = groups.setdefault(group_of(role), [])
        sink.append(match)
    return groups


MAX_RECOVERED = 64  # blocks of a file read as its top level after errors, at most


def recovered_blocks(lang: str, root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The blocks a grammar's error recovery left a file's later top-level statements in
    (`LanguageSpec.recovered_root`): TypeScript's parser, lost in a construct it does not
    know, may read the rest of the file as one ``{ ... }`` after the error, whose constants
    are the module's all the same. Each such block directly after an ERROR, and in turn in it."""
    kind = LANGUAGES[lang].recovered_root
    if not kind or not root.has_error:
        return []
    found: list[tree_sitter.Node] = []
    parents = [root]
    while parents and len(found) < MAX_RECOVERED:
        children = parents.pop().children
        for before, node in zip(children, children[1:]):
            if node.type == kind and before.type == "ERROR" and len(found) < MAX_RECOVERED:
                found.append(node)
                if node.has_error:
                    parents.append(node)
    return found


def narrowest_receivers(calls: list[tuple[tree_sitter.Node, dict]]) -> list[tuple[tree_sitter.Node, dict]]:
    """One match per called name: a call matched by a general and a specific pattern keeps
    the narrowest receiver (Go's ``(T{}).m()``: the literal's type ``T``, not the literal)."""
    starts = {node.start_byte for node, _ in calls}
    if len(starts) == len(calls):
        return calls  # one match per call node (every Python call): nothing to choose between
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
