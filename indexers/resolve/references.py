"""What a file says about other code besides calling it by name: functions and classes used as
values (REFERENCES), methods that override a base type's method (OVERRIDES), the calls a loop
makes without naming them, and the calls no target was found for (recorded on the caller, so
answers can say what the graph does not know).

Values are resolved by the same lookup as calls (scopes, ``self``, imports, module members),
but never by a guess from a name alone: a name used as a value is far more often a variable
than a function, and only functions, methods and types are referenced.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import starmap

from graphsvc.model import UnresolvedCalls
from indexers.extract import RECEIVER_EXPR, RECEIVER_NAME, RECEIVER_NONE, RECEIVER_OTHER, RECEIVER_SELF, RECEIVER_SUPER, CallRef
from indexers.bindings import ALTERNATIVES, EACH, ELEMENT
from indexers.import_refs import as_written
from indexers.resolve.common import (
    GUESS_REASONS, MAX_CANDIDATES, MAX_HIERARCHY, TYPE_KIND_NAMES, Prov, Reason, Rel, record_fields, record_rows,
)
from indexers.resolve.resolver import Resolver
from indexers.resolve.table import REFERABLE_KINDS

MAX_UNRESOLVED_SITES = 20  # call sites kept per caller; the count says how many there were

_VALUE_FIELDS = tuple(f.name for f in fields(CallRef))
_NAME = _VALUE_FIELDS.index("name")


def iteration_calls(r: Resolver) -> None:
    """A loop over an instance of a workspace type calls its iteration methods (Python's
    ``for x in obj`` calls ``obj.__iter__()`` and ``__next__()`` of what that returns).
    Only when the instance's type is known: a loop is no call to guess about."""
    if not r.spec.iteration_methods:
        return
    # Read from the encoded columns: a few bindings are loops, no record is built.
    for b_scope, value, context, line in record_fields(r.ext.bindings, "scope", "value", "context", "line"):
        if value is None or context is not None or value[0] == ALTERNATIVES:
            continue
        step = EACH if value.endswith(EACH) else ELEMENT if value.endswith(ELEMENT) else None
        if step is None:
            continue
        scope = b_scope.partition("#")[2]
        steps = r.types.iterated(r.types.value(value[: -len(step)], scope))
        for method in steps[:-1]:
            if method[0] == "method":
                r.stats.by_reason[Reason.TYPE] += 1
                for dst in method[1]:
                    r.edge(b_scope, dst, Rel.CALLS, Prov.INFERRED, 1.0, Reason.TYPE, line)


def references(r: Resolver) -> None:
    """REFERENCES edges from each value's enclosing symbol (or file) to what it names."""
    # A value read is no call: what it may be, as a guess, says nothing it refers to.
    r.reading_values = True
    try:
        _references(r)
    finally:
        r.reading_values = False


def _references(r: Resolver) -> None:
    memo: dict[tuple, tuple | None] = {}
    symbols = r.table.symbols
    # Most values are variables: no definition of the name is ever referenced. Only the others
    # are built from the encoded rows.
    referable = r.table.referable_names()
    key_of = r.key_of
    for row in record_rows(r.ext.values):
        if row[_NAME] not in referable:
            continue
        caller, name, rkind, receiver, line, local, _, block = row  # CallRef's fields in order
        key = key_of(caller, name, rkind, receiver, local, block, line)
        found = memo.get(key, memo)
        if found is memo:
            ref = CallRef(*row)
            found = memo[key] = _referenced(r, ref, key, symbols)
        if found is None:
            continue
        ids, reason, conf = found
        if len(ids) > 1:
            for dst in ids:
                r.edge(caller, dst, Rel.REFERENCES, Prov.INFERRED, conf / len(ids), Reason.CANDIDATE, line)
        else:
            r.edge(caller, ids[0], Rel.REFERENCES, r.prov_for(ids[0], reason), conf, reason, line)


def _referenced(r: Resolver, ref: CallRef, key: tuple, symbols: dict) -> tuple[list[str], str, float] | None:
    if ref.receiver_kind == RECEIVER_OTHER:
        return None
    found = r.resolved(ref, key)
    if found is None or found == "builtin":
        return None
    ent, reason, conf = found
    if ent[0] != "sym" or reason in GUESS_REASONS:
        return None
    # Only what the name itself defines: a field found to hold a class is not that class.
    ids = [i for i in ent[1] if i in symbols and symbols[i].kind in REFERABLE_KINDS and symbols[i].name == ref.name]
    if not ids or len(ids) > MAX_CANDIDATES:
        return None
    if ref.receiver_kind != RECEIVER_NONE and any("@" in symbols[i].qualified_name for i in ids):
        # A member defined again under its name (a property's getter and setter, overloads):
        # reading it refers to none of those definitions in particular.
        return None
    return ids, reason, conf


def overrides(r: Resolver) -> None:
    """OVERRIDES edges from each method of this file to the same-named methods of the nearest
    base types that define one."""
    if not r.spec.overriding:
        return
    symbols = r.table.symbols
    for sym in r.ext.symbols:
        if sym.kind != "method":
            continue
        parent = symbols.get(sym.parent)
        if parent is not None and parent.kind in TYPE_KIND_NAMES:
            owner = parent.id
        elif "." in sym.qualified_name:
            owner = r.enclosing_type(sym.qualified_name)
        else:
            continue
        if owner is None or not r.bases(owner):
            continue
        for dst, reason, conf in _overridden(r, owner, sym.name):
            if dst == sym.id:
                continue
            if conf == 1.0 and dst.startswith(r.prefix):
                r.edge(sym.id, dst, Rel.OVERRIDES, Prov.EXTRACTED, 1.0, Reason.SYNTAX, sym.start_line)
            else:
                r.edge(sym.id, dst, Rel.OVERRIDES, Prov.INFERRED, conf, reason, sym.start_line)


def _overridden(r: Resolver, type_id: str, name: str) -> list[tuple[str, str, float]]:
    """The methods called ``name`` on the first level of the hierarchy above ``type_id`` that
    has any, with how each base was known (its weakest step) and the confidence of the path."""
    symbols = r.table.symbols
    seen = {type_id}
    frontier = _steps(r, type_id, None, 1.0, seen)
    for _ in range(MAX_HIERARCHY):
        found: list[tuple[str, str, float]] = []
        nxt: list[tuple[str, str, float]] = []
        for tid, reason, conf in frontier:
            ids = [i for i in r.members_of(tid).get(name, ()) if symbols[i].kind == "method"]
            if len(ids) > 1:  # overloads or redefinitions: which one is not known by name
                found.extend((i, Reason.CANDIDATE, conf / len(ids)) for i in ids)
            elif ids:
                found.append((ids[0], reason, conf))
            else:
                nxt.extend(_steps(r, tid, reason, conf, seen))
        if found or not nxt:
            return found
        frontier = nxt
    return []


def _steps(r: Resolver, type_id: str, reason: str | None, conf: float,
           seen: set[str]) -> list[tuple[str, str, float]]:
    """The unseen bases of a type reached by a path known by ``reason`` (None: the type
    itself) with confidence ``conf``: (base, how the path to it is known, confidence). A path
    is known as its first step is, unless a later step is a guess."""
    bases = r.bases(type_id)
    candidates = sum(1 for _, how in bases if how == Reason.CANDIDATE)
    out = []
    for base, how in bases:
        if base in seen:
            continue
        seen.add(base)
        if how == Reason.CANDIDATE:
            out.append((base, Reason.CANDIDATE, conf / candidates))
        elif how == Reason.UNIQUE_NAME:
            weaker = reason if reason == Reason.CANDIDATE else Reason.UNIQUE_NAME
            out.append((base, weaker, conf * r.spec.unique_name_confidence))
        else:
            out.append((base, how if reason is None else reason, conf))
    return out


def unresolved_calls(r: Resolver) -> list[UnresolvedCalls]:
    """Per caller, how many calls were left unresolved and the first of them as written."""
    by_caller: dict[str, list[tuple]] = {}
    for row in r.missed:
        by_caller.setdefault(row[0], []).append(row)  # a CallRef's first field is its caller
    return [
        UnresolvedCalls(
            id=caller, unresolved_calls=len(rows),
            unresolved_sites=[f"{c.line}: {_written(r, c)}" for c in starmap(CallRef, rows[:MAX_UNRESOLVED_SITES])],
        )
        for caller, rows in by_caller.items()
    ]


def _written(r: Resolver, call: CallRef) -> str:
    kind = call.receiver_kind
    if not call.name:
        return f"{call.receiver}()"
    if kind == RECEIVER_NAME or kind == RECEIVER_EXPR:
        return f"{as_written(r.spec.require_function, call.receiver)}.{call.name}()"
    if kind == RECEIVER_SELF:
        return f"{'self' if 'self' in r.spec.self_names else 'this'}.{call.name}()"
    if kind == RECEIVER_SUPER:
        return f"super().{call.name}()"
    if kind == RECEIVER_OTHER:
        return f"(…).{call.name}()"
    return f"{call.name}()"
