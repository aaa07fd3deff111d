"""A loop's variable inside its body (Python): ``for x in xs:`` binds ``x`` to an element of
``xs`` in the body, whatever else the function binds to ``x`` elsewhere.

Python scopes names to the function, so a name bound by a loop and by an assignment elsewhere
in the function has no single value there. In the loop's body, before anything binds the name
again, it is the loop's element: each such body is a block (as the query's ``@block``) with a
binding match as the query would give one (``@local`` the body, at the block's start;
``@local.narrowed`` the name; ``@local.element`` the iterable). A body that binds the name
itself (``x = transform(x)``, a nested loop over ``x``) is left as it was.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import tree_sitter

_LOOP = "for_statement"


def loop_bodies(binds: list[tuple[str, dict]], text: Callable[[tree_sitter.Node], str]
                ) -> tuple[list[tuple[int, int]], list[tuple[str, dict]]]:
    """The blocks and binding matches of the single-name loops among ``binds`` (the query's
    binding matches) whose body does not bind the name again."""
    loops = []
    for role, caps in binds:
        nodes = caps.get("local") if role == "local" and "local.element" in caps else None
        loop = nodes[0].parent if nodes and len(nodes) == 1 else None
        if loop is not None and loop.type == _LOOP:
            loops.append((nodes[0], caps["local.element"][0], loop.child_by_field_name("body")))
    if not loops:
        return [], []
    # Where each loop's name is bound: only nodes of a loop name's length are read as text.
    names = {text(name) for name, _, _ in loops}
    lengths = {name.end_byte - name.start_byte for name, _, _ in loops}
    starts: dict[str, list[int]] = defaultdict(list)
    for role, caps in binds:
        for node in caps.get("local", ()) if role == "local" else ():
            if node.end_byte - node.start_byte in lengths and not node.named_child_count and (t := text(node)) in names:
                starts[t].append(node.start_byte)
    blocks: list[tuple[int, int]] = []
    found: list[tuple[str, dict]] = []
    for name, iterable, body in loops:
        if body is None or any(body.start_byte <= s < body.end_byte for s in starts[text(name)]):
            continue
        blocks.append((body.start_byte, body.end_byte))
        found.append(("local", {"local": [body], "local.narrowed": [name], "local.element": [iterable]}))
    return blocks, found
