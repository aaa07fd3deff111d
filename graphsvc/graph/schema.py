"""Ordered, idempotent schema migrations from ``schema/neo4j/NNN_*.cypher``.

Each file is applied in order; its number is recorded on the ``(:GraphsvcMeta {key:'schema'})``
node so `applied_version` tells what the database has. Statements use ``IF NOT EXISTS``, so
re-applying is harmless and a half-applied migration is completed on the next start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from graphsvc.errors import ConfigError
from graphsvc.graph.driver import Graph
from graphsvc.settings import SCHEMA_DIR

MIGRATIONS_DIR = SCHEMA_DIR / "neo4j"
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.cypher$")

_READ_VERSION = "MATCH (m:GraphsvcMeta {key: 'schema'}) RETURN m.version AS version"
_WRITE_VERSION = """
MERGE (m:GraphsvcMeta {key: 'schema'})
SET m.version = $version, m.applied_at = datetime()
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


def applied_version(graph: Graph) -> int:
    rows = graph.read(_READ_VERSION)
    return int(rows[0]["version"]) if rows and rows[0]["version"] is not None else 0


def apply_schema(graph: Graph, directory: Path = MIGRATIONS_DIR) -> int:
    """Apply every migration (idempotently) and record the newest version; returns it."""
    version = applied_version(graph)
    for migration in migrations(directory):
        for statement in migration.statements():
            graph.write(statement)
        if migration.version > version:
            version = migration.version
            graph.write(_WRITE_VERSION, version=version)
    graph.write("CALL db.awaitIndexes(60)")
    return version
