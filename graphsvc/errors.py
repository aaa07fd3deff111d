"""One exception hierarchy. Every message says what went wrong, where, and what to do."""

from __future__ import annotations


class GraphsvcError(Exception):
    """Base of every error graphsvc raises on purpose; the CLI prints it as one line."""

    exit_code = 1


class ConfigError(GraphsvcError):
    """A setting or the environment (Java, Maven, paths) is not usable."""

    exit_code = 2


class InputError(GraphsvcError):
    """The caller gave something we cannot use (bad path, bad id, bad query)."""

    exit_code = 2


class NotFoundError(InputError):
    """An id, turn or workspace that does not exist."""


class AmbiguousError(InputError):
    """An id matched several entities; `candidates` lists them."""

    def __init__(self, message: str, candidates: list[str]):
        super().__init__(message)
        self.candidates = candidates


class SourceChangedError(InputError):
    """A file changed on disk since it was indexed: the graph's lines no longer match it."""


class Neo4jUnavailable(GraphsvcError):
    """Neo4j cannot be reached, refused our credentials, or died mid-operation."""

    exit_code = 3


class Neo4jSchemaError(Neo4jUnavailable):
    """Neo4j's indexes or constraints cannot be brought to what ``schema/neo4j`` says."""


class ManagedNeo4jError(GraphsvcError):
    """Installing, starting or stopping the managed Neo4j failed."""

    exit_code = 3


class StoreError(GraphsvcError):
    """The embedded SQLite store is unreadable, corrupt or locked."""

    exit_code = 4


class StoreCorrupt(StoreError):
    """The store file is not a SQLite database, or its pages are damaged."""
