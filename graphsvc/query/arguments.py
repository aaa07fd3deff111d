"""The arguments operations share, checked in one place: the scope (a workspace, or a turn
of the context store and its workspace), the length of ids, the relationship types and
provenances an operation follows and the confidence an edge must reach. `Walk` declares
them once for every operation that walks edges from an entity; `check_walk` checks them.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypedDict

from graphsvc.context.store import get_store
from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.reads import check_provs
from graphsvc.model import DEFAULT_MIN_CONFIDENCE, Rel
from graphsvc.settings import get_settings

# Edges followed unless the caller names others: code structure and runtime facts, but not
# community membership (every member would be two hops from every other).
DEFAULT_RELS = [r.value for r in Rel if r is not Rel.MEMBER_OF]
# Ids are paths plus qualified names, workspace names and turn ids are shorter still: longer
# input is refused before it reaches Neo4j (a megabyte id made suffix matching take seconds).
MAX_ID_CHARS = 4096
# A server answers with its own `server.max_results` (`results_at_most`), anything else with the settings'.
_MAX_RESULTS: ContextVar[int | None] = ContextVar("max_results", default=None)


@dataclass(frozen=True, slots=True)
class Scope:
    workspace: str
    turn_id: str | None = None
    turn: object | None = None


def check_length(value: str | None, what: str) -> None:
    """Refuse an id, workspace name or turn id over `MAX_ID_CHARS` (without echoing it)."""
    if value is not None and len(value) > MAX_ID_CHARS:
        raise InputError(f"{what} of {len(value)} characters: give at most {MAX_ID_CHARS}")


def resolve_scope(workspace: str | None = None, turn_id: str | None = None) -> Scope:
    """A workspace named directly, or the workspace of a turn in the context store."""
    check_length(workspace, "a workspace name")
    check_length(turn_id, "a turn id")
    if turn_id:
        turn = get_store().turns.get(turn_id)
        if turn is None:
            raise NotFoundError(f"no turn {turn_id!r}: list turns with `graphsvc turns list`")
        if workspace and workspace != turn.workspace:
            raise InputError(f"turn {turn_id!r} belongs to workspace {turn.workspace!r}, not {workspace!r}")
        return Scope(turn.workspace, turn_id, turn)
    if not workspace:
        raise InputError("name a workspace (@name) or a turn id")
    return Scope(workspace)


def rel_types(rels: list[str] | None, default: list[str] = DEFAULT_RELS) -> list[str]:
    """The relationship types named (any case), or `default`; an unknown one is refused."""
    if not rels:
        return list(default)
    out = []
    for r in rels:
        try:
            out.append(Rel(r.upper()).value)
        except ValueError:
            raise InputError(
                f"unknown relationship type {r!r}: use one of {', '.join(x.value for x in Rel)}"
            ) from None
    return out


def provenances(provs: list[str] | None) -> list[str]:
    """The provenances named (any case); none means every one."""
    try:
        return check_provs([p.upper() for p in provs or []])
    except ValueError as exc:
        raise InputError(f"{exc}: use EXTRACTED, INFERRED or RUNTIME") from None


def confidence_floor(value: float | None) -> float:
    """The confidence an edge must reach to be followed: `value` in [0, 1], or the default."""
    if value is None:
        return DEFAULT_MIN_CONFIDENCE
    if not 0.0 <= value <= 1.0:
        raise InputError(f"minConfidence must be between 0 and 1, got {value}")
    return value


@contextmanager
def results_at_most(most: int) -> Iterator[None]:
    """Operations run inside answer with at most `most` results (a server's own setting)."""
    token = _MAX_RESULTS.set(most)
    try:
        yield
    finally:
        _MAX_RESULTS.reset(token)


def result_limit(limit: int | None, default: int) -> int:
    """How many results to answer with: `limit` (at least 1) or `default`, at most `server.max_results`."""
    most = _MAX_RESULTS.get() or get_settings().server.max_results
    if limit is None:
        return min(default, most)
    if limit < 1:
        raise InputError(f"limit must be at least 1, got {limit}")
    return min(limit, most)


def refuse_unknown(given: Mapping[str, Any], declared: type) -> None:
    """A keyword argument that TypedDict `declared` does not name is a caller's error, as
    Python's own are for a function's named parameters."""
    unknown = sorted(given.keys() - typing.get_type_hints(declared).keys())
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")


class Walk(TypedDict, total=False):
    """The arguments of an operation that walks edges from an entity, each optional: where
    (a workspace, or a turn and its workspace), along which relationship types and
    provenances, above which confidence, and at most how many results."""

    workspace: str | None
    turn_id: str | None
    rels: list[str] | None
    provs: list[str] | None
    min_confidence: float | None
    limit: int | None


@dataclass(frozen=True, slots=True)
class CheckedWalk:
    scope: Scope
    rels: list[str]
    provs: list[str]
    min_confidence: float
    limit: int


def check_walk(walk: Walk, default_limit: int) -> CheckedWalk:
    """`walk` checked, with the defaults filled in (`default_limit` results)."""
    refuse_unknown(walk, Walk)
    return CheckedWalk(
        scope=resolve_scope(walk.get("workspace"), walk.get("turn_id")),
        rels=rel_types(walk.get("rels")),
        provs=provenances(walk.get("provs")),
        min_confidence=confidence_floor(walk.get("min_confidence")),
        limit=result_limit(walk.get("limit"), default_limit),
    )
