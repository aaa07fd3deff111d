"""graphsvc: a graph-database knowledge service for coding agents."""

__version__ = "0.1.0"
