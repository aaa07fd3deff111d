"""What encloses a node, for the extractor's calls (`indexers.extract`): the nearest enclosing
definition that is a symbol, the receiver name a method declares (Go's ``func (s *T)``), and
the local names a definition sees, its own and those of the definitions and closures around it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the extractor imports this module
    from indexers.extract import _Def


def with_symbols(defs: list[_Def | None]) -> list[_Def | None]:
    """Each of ``defs`` replaced by the nearest of it and the definitions around it that is a
    symbol (in place)."""
    for i, d in enumerate(defs):
        if d is not None and d.sym is None:
            while d is not None and d.sym is None:
                d = d.parent
            defs[i] = d
    return defs


def receiver_of(d: _Def, memo: dict[int, str | None]) -> str | None:
    key = id(d)
    if key not in memo:
        memo[key] = _self_of(d)
    return memo[key]


def visible_locals(d: _Def | None, local_names: dict[int | str, dict[str, bool]],
                    memo: dict[int, list[dict[str, bool]]], blocks_around) -> list[dict[str, bool]]:
    """The local names of ``d`` and the definitions around it, innermost first, then those of
    the closures around the outermost one (`describe(() => { const x = ...; function f() {} })`)."""
    key = id(d)
    found = memo.get(key)
    if found is None:
        found = memo[key] = []
        top = d
        while d is not None:
            names = local_names.get(id(d))
            if names:
                found.append(names)
            top, d = d, d.parent
        around = blocks_around(top.start - 1) if top is not None and top.start else ""
        while around:
            found.extend((local_names[around],) if around in local_names else ())
            around = around.rpartition("/")[0]
    return found


def _self_of(d: _Def) -> str | None:
    while d is not None:
        if d.self_name:
            return d.self_name
        d = d.parent
    return None
