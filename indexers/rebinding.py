"""A name a function binds again holds, in the statements straight after one of its
assignments, what that assignment gave (Python).

Python scopes names to the function, so a name assigned twice (``g = MultiGraph()`` ...
``g = Graph(g)``) has no single value there; a type checker reads each use as the assignment
above it. Where that is certain, the statements after an assignment written straight in the
function's body (not in a loop, branch or ``with``: nothing can come back to them from a
later binding) are a block (as the query's ``@block``) with a binding match of their own, as
`indexers.narrowing` gives one: ``@local`` a leaf at the block's start, ``@local.narrowed``
the name, ``@local.value`` the assigned value. The block ends before the first statement that
binds the name again, or that defines a function, lambda or class naming it (a closure may
run after a later binding), or imports something. A function declaring the name
``global`` or ``nonlocal`` somewhere, or an assignment whose value names the name itself
(``node = node.parent``), gives no block. Only names the function binds more than once: a
name bound once has its one value everywhere already.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable

import tree_sitter

_BODY, _FUNCTION, _STATEMENT, _ASSIGNMENT = "block", "function_definition", "expression_statement", "assignment"
# A statement holding one of these may define a closure or bind a name the bindings miss.
_OPAQUE = re.compile(rb"\blambda\b|\bdef\b|\bclass\b|\bimport\b")
_DECLARED = re.compile(rb"\b(?:global|nonlocal)\b([^\n]*)")
MAX_STATEMENTS = 60  # a block's statements at most: a longer run is cut there


def straight_regions(binds: list[tuple[str, dict]], text: Callable[[tree_sitter.Node], str], data: bytes
                     ) -> tuple[list[tuple[int, int]], list[tuple[str, dict]]]:
    """The blocks and binding matches of the assignments among ``binds`` (the query's binding
    matches) that a name bound more than once in its function holds after them."""
    assignments = []
    for role, caps in binds:
        if role == "local" and len(caps) == 2 and "local.value" in caps and len(caps["local"]) == 1:
            found = _straight_statement(caps["local"][0])
            if found is not None:
                assignments.append((caps["local"][0], caps["local.value"][0], *found, text(caps["local"][0])))
    if not assignments:
        return [], []
    # Where each of their names is bound in the file: only nodes of such a name's length are read.
    names = {assignment[-1] for assignment in assignments}
    lengths = {len(n.encode()) for n in names}
    starts: dict[str, list[int]] = defaultdict(list)
    for role, caps in binds:
        if role != "local":
            continue
        for cap in ("local", "local.narrowed"):
            for node in caps.get(cap, ()):
                if node.end_byte - node.start_byte in lengths and not node.named_child_count \
                        and (t := text(node)) in names:
                    starts[t].append(node.start_byte)
    for found in starts.values():
        found.sort()
    declared: dict[int, set[str]] = {}
    blocks: list[tuple[int, int]] = []
    regions: list[tuple[str, dict]] = []
    for name_node, value, statement, function, name in assignments:
        bound = starts[name]
        if bisect_left(bound, function.end_byte) - bisect_left(bound, function.start_byte) < 2 \
                or name in _declared_names(function, data, declared):
            continue
        word = re.compile(rb"\b%s\b" % re.escape(name.encode()))
        if word.search(data, value.start_byte, value.end_byte):
            continue  # `node = node.parent`: read from the name's own earlier value
        region = _region(statement, word, bound, data)
        if region is not None:
            first, last = region
            leaf = first
            while leaf.child_count:
                leaf = leaf.child(0)
            blocks.append((first.start_byte, last.end_byte))
            regions.append(("local", {"local": [leaf], "local.narrowed": [name_node], "local.value": [value]}))
    return blocks, regions


def _straight_statement(name: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """The statement of ``name = value`` and the function, when it stands straight in its body."""
    assignment = name.parent
    if assignment is None or assignment.type != _ASSIGNMENT or assignment.child_by_field_name("left") != name:
        return None
    statement = assignment.parent
    body = statement.parent if statement is not None and statement.type == _STATEMENT else None
    function = body.parent if body is not None and body.type == _BODY else None
    return (statement, function) if function is not None and function.type == _FUNCTION else None


def _region(statement: tree_sitter.Node, word: re.Pattern[bytes], bound: list[int], data: bytes
            ) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """The first and last statement after ``statement`` that see its value of the name
    (``word``, bound at ``bound``)."""
    first = last = None
    node = statement.next_named_sibling
    for _ in range(MAX_STATEMENTS):
        if node is None:
            break
        i = bisect_left(bound, node.start_byte)
        if i < len(bound) and bound[i] < node.end_byte:
            break  # bound again here
        if _OPAQUE.search(data, node.start_byte, node.end_byte) and word.search(data, node.start_byte, node.end_byte):
            break  # (searched in place: a long statement is not copied once per assignment above it)
        first, last = first or node, node
        node = node.next_named_sibling
    return (first, last) if first is not None else None


def _declared_names(function: tree_sitter.Node, data: bytes, seen: dict[int, set[str]]) -> set[str]:
    """The names a function (or one nested in it) declares ``global`` or ``nonlocal``."""
    found = seen.get(function.id)
    if found is None:
        source = data[function.start_byte:function.end_byte]
        found = seen[function.id] = {n.decode() for m in _DECLARED.finditer(source)
                                     for n in re.findall(rb"\w+", m.group(1))} if b"global" in source or \
            b"nonlocal" in source else set()
    return found
