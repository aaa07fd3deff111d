"""Overloaded functions (Python's ``@overload``): what a call of an implementation that does
not declare its result gives, read from the signatures declared before it; and calls of
generic identities (``def wrap(fn: C) -> C``), which give their argument."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from indexers.arguments import VARIADIC, ParamRef
from indexers.bindings import ARGUMENTS, DECORATED, RESULT, Binding
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
    names = {d.rpartition(".")[2] for d in decorators}  # `@t.overload` of `import typing as t` too
    return [i for i in ids if any((b.value or "")[:-2].rpartition(".")[2] in names
                                  for b in types.table.bindings(i, DECORATED))]


def overload_result(types: Types, func_id: str, positional: int | None,
                    keywords: frozenset[str] | None = None) -> tuple | None:
    """What every overload signature of ``func_id`` that takes ``positional`` arguments (None:
    any number) and the ``keywords`` (None: not known) says a call gives, when they agree;
    None when they do not or there are none."""
    sigs = signatures(types, func_id)
    if positional is not None and sigs:
        params = parameters_of(types.table, func_id.partition("#")[0])
        sigs = [s for s in sigs if takes(params.get(s, ()), positional, keywords)]
    results = {types.result(s) for s in sigs}
    return results.pop() if len(results) == 1 else None


def takes(params: Iterable[ParamRef], positional: int, keywords: frozenset[str] | None = None) -> bool:
    """Whether a function of these parameters may be called with ``positional`` arguments and
    the ``keywords`` (None: any): as many as it requires, no more than it has unless
    ``*args``, and every keyword-only one it requires."""
    ordered = [p for p in params if p.position is not None]
    required = sum(1 for p in ordered if p.default is None)
    if keywords is not None and any(p.position is None and p.default is None and p.name != VARIADIC
                                    and p.name not in keywords for p in params):
        return False  # `def group(*, cls: Type[G])` is not what `group(chain=True)` calls
    return required <= positional and (positional <= len(ordered) or any(p.name == VARIADIC for p in params))


def identity_value(types: Types, bind: Binding, scope: str) -> tuple | None:
    """What a top-level name bound to a call of a generic identity gives: the argument the
    function's result is (``def wrap(name: str, fn: C) -> C`` with ``C = TypeVar(...)``;
    ``alias = wrap("alias", method)`` is ``method``). None when it is no such call."""
    passed = [b for b in types.table.bindings(scope, bind.name + ARGUMENTS) if b.line == bind.line]
    if len(passed) != 1 or not bind.value or not bind.value.endswith("()"):
        return None
    callee = types._in_file_of(scope, "value", bind.value[:-2], bind.block)
    if callee[0] != "sym" or len(callee[1]) != 1:
        return None
    func = types.table.symbols.get(callee[1][0])
    declared = [b.type for b in types.table.bindings(func.id, RESULT) if b.type] if func is not None else []
    if len(declared) != 1 or not declared[0].isidentifier() or not _type_variable(types, func.file, declared[0]):
        return None
    params = [p for p in parameters_of(types.table, func.file).get(func.id, ()) if p.position is not None]
    positions = [p.position for p in params if any(b.type == declared[0] for b in types.table.bindings(func.id, p.name))]
    arguments = passed[0].value.split("\t")
    if len(positions) != 1 or positions[0] >= len(arguments) or not arguments[positions[0]]:
        return None
    return types._in_file_of(scope, "value", arguments[positions[0]], bind.block)


def _type_variable(types: Types, path: str, name: str) -> bool:
    """Whether ``name`` in the module ``path`` is a type variable (``T = TypeVar("T")``
    there, or imported from where it is one)."""
    table = types.table
    if any((b.value or "").endswith("TypeVar()") for b in table.bindings(path, name)):
        return True
    found = types.r.other(path).lookup(name, "")
    syms = [table.symbols.get(i) for i in found[0][1]] if found is not None and found[0][0] == "sym" else []
    return len(syms) == 1 and syms[0] is not None and any(
        (b.value or "").endswith("TypeVar()") for b in table.bindings(syms[0].file, syms[0].name))
