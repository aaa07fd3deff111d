"""The records the indexers emit: the graph model's node and edge records (`graphsvc.model`),
under the names the indexers use. Plain data; no database in here."""

from __future__ import annotations

from graphsvc.model import CodeEdge as EdgeRecord
from graphsvc.model import DirectoryNode as DirRecord
from graphsvc.model import FileNode as FileRecord
from graphsvc.model import SymbolNode as SymbolRecord

__all__ = ["DirRecord", "EdgeRecord", "FileRecord", "SymbolRecord"]
