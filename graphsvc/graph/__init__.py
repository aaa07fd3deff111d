"""Everything that talks to Neo4j lives in this package: the driver, the schema, and the Cypher."""

from graphsvc.graph.driver import Graph, connect, get_graph

__all__ = ["Graph", "connect", "get_graph"]
