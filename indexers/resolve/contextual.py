"""What a function's untyped parameters hold by where the function is written or called:
what a function passed as an argument, or held by a member of an object literal whose type
is declared, is given (the ``CALLBACK`` steps of ``indexers.bindings``), and what the callers
of a function that returns its parameter pass. ``types``:
the asking file's ``indexers.resolve.types.Types``."""

from __future__ import annotations

from indexers.bindings import GIVEN, RESULT, callback_parameter
from indexers.resolve.parameters import parameter_values

_UNKNOWN = ("unknown",)


def given(types, ids: tuple[str, ...], position: int | str) -> tuple:
    """What the functions ``ids`` are given as their parameter at ``position``, as its declared
    type says (``start(opts: Options)``: an ``Options``); every function must agree."""
    values = {types.bound(fid, callback_parameter(position, GIVEN), None) for fid in ids}
    return values.pop() if len(values) == 1 else _UNKNOWN


def member_passes(types, type_ids: tuple[str, ...], member: str, parameter: str) -> tuple:
    """What a value of one type passes as ``parameter`` (a position) to the function its
    ``member`` holds: the member's declared function type (``effect: (action: A, api: Api) =>
    void``) in the type or a base, or the declared parameter of the method of that name."""
    if len(type_ids) != 1 or not parameter.isdigit():
        return _UNKNOWN
    step = callback_parameter(member, parameter)
    for t in types.r.linearization(type_ids[0]):
        if types.table.bindings(t, step):
            return types.bound(t, step, None)
    found = types.member(type_ids, member, instance=True, skip_self=False)
    return given(types, found[1], parameter) if found[0] == "method" else _UNKNOWN


def returned_parameter(types, scope: str, name: str) -> tuple | None:
    """What the parameter ``name`` of the function ``scope`` holds when the function returns
    it and its callers all pass one same function or class (``def deco(cls): return cls``,
    called once: the result is what that call passes); None otherwise."""
    if not any(b.value == name for b in types.table.bindings(scope, RESULT)):
        return None
    passed = parameter_values(types.r, scope, name)
    return ("sym", passed) if len(passed) == 1 else None
