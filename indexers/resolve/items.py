"""Members and items of literal containers as `types` reads them: an object literal's members
(its entries and its spreads'), a module's container's items assigned by a literal key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexers.bindings import ANY_KEY, SPREAD
from indexers.resolve.common import UNKNOWN
from indexers.text import literal_items

if TYPE_CHECKING:  # `types` imports this module
    from indexers.resolve.types import Types


def literal_member(types: Types, entries: tuple, name: str) -> tuple:
    """A member of an object literal: its last entry of that name, or a member of a spread
    after it (`{...a, ...b}`: b's, then a's); unknown past an entry of any name."""
    for key, value in reversed(entries):
        if key == f"s:{name}" or key == ANY_KEY:
            return value if key != ANY_KEY else UNKNOWN
        if key == SPREAD and (found := types.attribute(value, name))[0] != "missing":
            return found
    return UNKNOWN


def literal_methods(table, sym, name: str) -> list[str]:
    """The methods of ``name`` an object literal defines (`const v = {run() {}}`: `v.run`),
    of a variable bound once there and whose members its file assigns nowhere."""
    found = table.members_of(sym.id).get(name)
    if not found or len(table.bindings(sym.parent, sym.name)) != 1 or sym.name in table.changed(sym.file):
        return []
    return found


def assigned_item(types: Types, name: str, step: str, qual: str, block: str) -> tuple[tuple, int] | None:
    """``d["k"]`` of a module's container whose item is assigned by that key (`d["k"] = f`):
    what every such assignment and the container's literal agree it holds, with the one step
    taken; None when no item of that key is assigned, or ``name`` is local to ``qual``."""
    path, table = types.r.ext.path, types.table
    binds = table.bindings(path, name + step)
    if not binds or types.local(name, qual, block) is not None or not (module := table.bindings(path, name)):
        return None
    if name in table.changed(path, keyed=False):  # changed otherwise too (`d.update()`, `d[k] = g`)
        return UNKNOWN, 1
    values = {types.raw(b.value, "") if b.value else UNKNOWN for b in binds}
    values.update(types.raw(v, "") for b in module if (b.value or "")[:1] == "{"  # the literal's entry, if any
                  for k, v in literal_items(b.value) if k == step[1:-1] or k == ANY_KEY)
    return (values.pop() if len(values) == 1 else UNKNOWN), 1
