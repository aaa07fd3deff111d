"""Overloaded functions (Python's ``@overload``): what a call of an implementation that does
not declare its result gives, read from the signatures declared before it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from indexers.arguments import VARIADIC, ParamRef
from indexers.bindings import DECORATED
from indexers.resolve.parameters import parameters_of

if TYPE_CHECKING:  # the types module imports this one
    from indexers.resolve.types import Types


def signatures(types: Types, func_id: str) -> list[str]:
    """Ids of the overload signatures before the implementation ``func_id`` (``f`` and ``f@2``
    before ``f@3``), in source order; [] for a function that is no such implementation."""
    decorators = types.spec.overload_decorators
    path, _, qual = func_id.partition("#")
    base, at, count = qual.rpartition("@")
    if not decorators or not at or not count.isdigit():
        return []
    ids = [f"{path}#{base}", *(f"{path}#{base}@{k}" for k in range(2, int(count)))]
    return [i for i in ids if any((b.value or "")[:-2] in decorators for b in types.table.bindings(i, DECORATED))]


def overload_result(types: Types, func_id: str, positional: int | None) -> tuple | None:
    """What every overload signature of ``func_id`` that takes ``positional`` arguments (None:
    any number) says a call gives, when they agree; None when they do not or there are none."""
    sigs = signatures(types, func_id)
    if positional is not None and sigs:
        params = parameters_of(types.table, func_id.partition("#")[0])
        sigs = [s for s in sigs if takes(params.get(s, ()), positional)]
    results = {types.result(s) for s in sigs}
    return results.pop() if len(results) == 1 else None


def takes(params: Iterable[ParamRef], positional: int) -> bool:
    """Whether a function of these parameters may be called with ``positional`` arguments
    (and any keywords): as many as it requires, no more than it has unless ``*args``."""
    ordered = [p for p in params if p.position is not None]
    required = sum(1 for p in ordered if p.default is None)
    return required <= positional and (positional <= len(ordered) or any(p.name == VARIADIC for p in params))
