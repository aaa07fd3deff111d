"""What a method's receiver name is worth at the head of a chain: the instance (``self``), or,
where the language names the class of the receiver (`LanguageSpec.class_receivers`,
`LanguageSpec.class_of`), the class: ``cls(...)`` in a classmethod and ``type(self)(...)``
make an instance of whatever type the method is called on, as ``-> Self`` says."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from indexers.resolve.resolver import Resolver
    from indexers.resolve.types import Types

_FIRST_PARAMETER = re.compile(r"[^(]*\(\s*(\w+)")
# The bases that make a class a metaclass, whose ``cls`` is a class of another type.
_METACLASS_BASES = frozenset({"type"})


def receiver_value(types: Types, name: str, steps: list, qual: str) -> tuple[tuple, int] | None:
    """The value of the receiver name ``name`` (one of the language's self names) followed by
    ``steps`` in a method of ``qual``, with the number of steps it took; None outside a type."""
    r = types.r
    tid = r.enclosing_type(qual) if qual else None
    if tid is None:
        return None
    spec = types.spec
    if name in spec.class_receivers:
        if not _parameter_only(types, name, qual):
            return ("this", tid), 0  # `cls = self.client_class`: a local of that name
        used = 0
    elif spec.class_of[1] and steps[:1] == [spec.class_of[1]]:
        used = 1  # `self.__class__`
    else:
        return ("this", tid), 0
    if used == 0 and steps[:1] not in ([], [None]) or is_metaclass(r, tid):
        return ("this", tid), 0  # `cls.create()`: read as members of the receiver are
    if steps[used:used + 1] == [None]:
        return ("this", tid), used + 1  # `cls(...)`: an instance of the receiver's type
    return ("sym", (tid,)), used  # the class itself


def _parameter_only(types: Types, name: str, qual: str) -> bool:
    """Whether the only binding of ``name`` at ``qual`` is its function's first parameter (no
    value, no type): not a local, nor a later parameter (a test's ``def test(self, cls)``)."""
    where = types.binder(name, qual)
    binds = types.table.bindings(where[0], name) if where is not None else ()
    if len(binds) != 1 or binds[0].value is not None or binds[0].type is not None:
        return False
    sym = types.table.symbols.get(where[0])
    first = _FIRST_PARAMETER.match(sym.signature) if sym is not None else None
    return first is not None and first.group(1) == name


def is_metaclass(r: Resolver, tid: str) -> bool:
    """Whether the type or one of its workspace bases derives from the language's ``type``, or
    a base whose name ends in ``Meta`` (``ABCMeta``, ``EnumMeta``): its receiver is a class."""
    key = ("metaclass", tid)
    found = r.table.recursive.values.get(key)
    if found is None:
        found = r.table.recursive.values[key] = any(_metaclass_bases(r, t) for t in r.linearization(tid))
    return found


def _metaclass_bases(r: Resolver, tid: str) -> bool:
    sym = r.table.symbols.get(tid)
    ext = r.table.files.get(sym.file) if sym is not None else None
    for ref in ext.inherits if ext is not None else ():
        if ref.type_id == tid:
            last = ref.base.rpartition(".")[2]
            if last in _METACLASS_BASES or last.endswith("Meta"):
                return True
    return False
