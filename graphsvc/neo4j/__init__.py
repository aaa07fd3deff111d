"""The Neo4j server graphsvc talks to: a configured one, or a local one it manages itself."""

from graphsvc.neo4j.managed import (
    ConnectionInfo,
    ManagedNeo4j,
    Neo4jStatus,
    ensure_running,
    find_java,
    free_port,
)

__all__ = [
    "ConnectionInfo",
    "ManagedNeo4j",
    "Neo4jStatus",
    "ensure_running",
    "find_java",
    "free_port",
]
