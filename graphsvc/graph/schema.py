"""Ordered, idempotent schema migrations from ``schema/neo4j/NNN_*.cypher``.

Each file is applied in order; its number is recorded on the ``(:GraphsvcMeta {key:'schema'})``
node so `applied_version` tells what the database has. Statements use ``IF NOT EXISTS``, so
re-applying is harmless and a half-applied migration is completed on the next start.

``IF NOT EXISTS`` only looks for an index or constraint *of that name*: one whose population
failed (e.g. the disk filled while it was built) stays, and the constraint that owned it may
never have been created. So before applying, our indexes in state ``FAILED``, and a
constraint's backing index left without its constraint, are dropped (the migrations create
them again), and any schema error names the index and what to do.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from neo4j.exceptions import Neo4jError

from graphsvc.errors import ConfigError, Neo4jSchemaError
from graphsvc.settings import SCHEMA_DIR

MIGRATIONS_DIR = SCHEMA_DIR / "neo4j"
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.cypher$")
# The name a CREATE [FULLTEXT|RANGE|…] INDEX or CREATE CONSTRAINT statement gives.
_DROPS = re.compile(r"^\s*DROP\s+(?:CONSTRAINT|INDEX)\s+`?(\w+)`?\s+IF\s+EXISTS\b", re.IGNORECASE)
_CREATES = re.compile(r"^\s*CREATE\s+(?:CONSTRAINT|(?:[A-Z]+\s+)?INDEX)\s+(?!IF\b)`?(\w+)`?", re.IGNORECASE)
# How long to wait for new indexes to be populated before saying so.
AWAIT_INDEXES_S = 60.0
# How long an unowned index named like one of our constraints must stand still (not online,
# no progress) before it is taken for the leftover of a constraint creation that died.
ORPHAN_SETTLE_S = 5.0

log = logging.getLogger("graphsvc.graph")


class Graph(Protocol):
    """What migrations need of a connection: `graphsvc.graph.driver.Graph`, which applies
    them when it first opens (so this module cannot import it)."""

    def read(self, cypher: str, timeout_s: float | None = None, **params: Any) -> list[dict]: ...

    def write(self, cypher: str, timeout_s: float | None = None, **params: Any) -> list[dict]: ...

_READ_VERSION = "MATCH (m:GraphsvcMeta {key: 'schema'}) RETURN m.version AS version"
_WRITE_VERSION = """
MERGE (m:GraphsvcMeta {key: 'schema'})
SET m.version = $version, m.applied_at = datetime()
"""
_SHOW_INDEXES = """
SHOW INDEXES YIELD name, state, failureMessage, owningConstraint, populationPercent
RETURN name, state, failureMessage, owningConstraint, populationPercent
"""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    path: Path

    def statements(self) -> list[str]:
        text = "\n".join(
            line for line in self.path.read_text().splitlines() if not line.strip().startswith("//")
        )
        return [s.strip() for s in text.split(";") if s.strip()]


def migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found = []
    for path in sorted(directory.glob("*.cypher")):
        match = _NAME.match(path.name)
        if not match:
            raise ConfigError(f"{path}: migration files must be named NNN_lowercase_words.cypher")
        found.append(Migration(int(match.group(1)), path))
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise ConfigError(f"{directory}: two migrations share a number: {versions}")
    return found


def created_names(found: list[Migration], constraints_only: bool = False) -> set[str]:
    """Names of the indexes and constraints (or only the constraints) the migrations create."""
    return {
        m.group(1)
        for migration in found
        for s in migration.statements()
        if (m := _CREATES.match(s)) and (not constraints_only or "CONSTRAINT" in s[: m.start(1)].upper())
    }


def applied_version(graph: Graph) -> int:
    rows = graph.read(_READ_VERSION)
    return int(rows[0]["version"]) if rows and rows[0]["version"] is not None else 0


def _first_line(message: str | None) -> str:
    lines = (message or "").strip().splitlines()
    return lines[0][:300].rstrip(".") if lines else "no reason given"


def _orphans(graph: Graph, constraints: set[str]) -> dict[str, dict]:
    """Indexes named like one of our constraints, owned by none and not online."""
    return {
        r["name"]: r
        for r in graph.read(_SHOW_INDEXES)
        if r["name"] in constraints and not r["owningConstraint"] and r["state"] != "ONLINE"
    }


def drop_broken(graph: Graph, names: set[str], constraints: set[str]) -> list[str]:
    """Drop what an earlier start left half-built, so the migrations create it again.

    That is: those of `names` whose index is in state FAILED (with the constraint owning
    it), and the backing index of one of our `constraints` whose creation died (on a full
    disk: no constraint, and an index left POPULATING for good, even after a restart). An
    unowned index that is still making progress may be another process creating the same
    constraint right now: it is left alone.
    """
    dropped = []
    for row in graph.read(_SHOW_INDEXES):
        if row["state"] != "FAILED" or row["name"] not in names:
            continue
        owner = row["owningConstraint"]
        graph.write(f"DROP CONSTRAINT `{owner}` IF EXISTS" if owner else f"DROP INDEX `{row['name']}` IF EXISTS")
        log.warning(
            "Neo4j index %s had failed (%s); dropped it to create it again",
            row["name"], _first_line(row["failureMessage"]),
        )
        dropped.append(row["name"])
    orphans = _orphans(graph, constraints)
    if orphans:
        time.sleep(ORPHAN_SETTLE_S)
        for name, row in _orphans(graph, constraints).items():
            if name in orphans and row["populationPercent"] == orphans[name]["populationPercent"]:
                graph.write(f"DROP INDEX `{name}` IF EXISTS")
                log.warning(
                    "Neo4j index %s was left %s without its constraint by an earlier start; "
                    "dropped it to create the constraint again", name, row["state"],
                )
                dropped.append(name)
    return dropped


def _await_online(graph: Graph, names: set[str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        rows = [r for r in graph.read(_SHOW_INDEXES) if r["name"] in names]
        failed = [r for r in rows if r["state"] == "FAILED"]
        if failed:
            row = failed[0]
            raise Neo4jSchemaError(
                f"Neo4j could not build index {row['name']}: {_first_line(row['failureMessage'])}. "
                "If its disk is full, free space (see its log: `graphsvc neo4j logs` for the managed "
                "server) and start again: graphsvc drops a failed index and creates it again"
            )
        pending = sorted(r["name"] for r in rows if r["state"] != "ONLINE")
        if not pending:
            return
        if time.monotonic() > deadline:
            raise Neo4jSchemaError(
                f"Neo4j index(es) {', '.join(pending)} still not online after {timeout_s:g} s: a large "
                "graph takes longer to index, so try again later; if it does not finish, check "
                "Neo4j's free disk space and its log (`graphsvc neo4j logs`)"
            )
        time.sleep(0.2)


def _schema_error(migration: Migration, statement: str, exc: Neo4jError) -> Neo4jSchemaError:
    match = _CREATES.match(statement)
    name = match.group(1) if match else statement.split("\n")[0][:80]
    prefix = f"{migration.path.name}: Neo4j refused to create {name}: {_first_line(exc.message)}. "
    if "AlreadyExists" in (exc.code or ""):
        return Neo4jSchemaError(
            prefix + f"Something of that name is left over in Neo4j: drop it (`DROP INDEX {name}` or "
            f"`DROP CONSTRAINT {name}` in cypher-shell or the Neo4j Browser) and start again; "
            "graphsvc creates it again"
        )
    return Neo4jSchemaError(
        prefix + "If Neo4j's disk is full, free space (see its log: `graphsvc neo4j logs` for the "
        "managed server) and start again"
    )


def _in_place(found: list[Migration], version: int, rows: list[dict]) -> bool:
    """Whether every statement of the migrations has taken effect: the newest version is
    recorded, what they create is online (a constraint with its own index), what they drop
    is gone. Any other kind of statement is never taken as done."""
    if not found or version < max(m.version for m in found):
        return False
    indexes = {r["name"]: r for r in rows}
    for migration in found:
        for statement in migration.statements():
            if created := _CREATES.match(statement):
                row = indexes.get(created.group(1))
                constraint = "CONSTRAINT" in statement[: created.start(1)].upper()
                if (row is None or row["state"] != "ONLINE"
                        or row["owningConstraint"] != (created.group(1) if constraint else None)):
                    return False
            elif dropped := _DROPS.match(statement):
                if dropped.group(1) in indexes:
                    return False
            else:
                return False
    return True


def apply_schema(graph: Graph, directory: Path = MIGRATIONS_DIR) -> int:
    """Apply every migration (idempotently) and record the newest version; returns it.
    When everything is in place already (every command after the first), one read says so
    instead of a write per statement."""
    found = migrations(directory)
    version = applied_version(graph)
    if _in_place(found, version, graph.read(_SHOW_INDEXES)):
        return version
    names = created_names(found)
    drop_broken(graph, names, created_names(found, constraints_only=True))
    for migration in found:
        for statement in migration.statements():
            try:
                graph.write(statement)
            except Neo4jError as exc:
                if ".Schema." not in (exc.code or ""):
                    raise
                raise _schema_error(migration, statement, exc) from exc
        if migration.version > version:
            version = migration.version
            graph.write(_WRITE_VERSION, version=version)
    _await_online(graph, names, AWAIT_INDEXES_S)
    return version
