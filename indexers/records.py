"""Records the indexers hand to the graph writer. Plain data; no database in here."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class DirRecord:
    id: str  # model.dir_id
    name: str
    path: str  # repository-relative, "" for the root
    skip_reason: str | None = None  # set when the directory could not be listed


@dataclass(slots=True)
class FileRecord:
    id: str  # model.file_id
    name: str
    path: str
    size: int
    lang: str | None
    hash: str | None  # sha256 hex of the content; None when unreadable
    skip_reason: str | None = None  # binary, too-large, unreadable, invalid-name, ...


@dataclass(slots=True)
class SymbolRecord:
    id: str  # model.symbol_id(path, qualified_name)
    name: str
    qualified_name: str
    kind: str  # model.SymbolKind value
    file: str  # file id the symbol is defined in
    parent: str  # id of the containing file or type symbol (CONTAINS source)
    start_line: int  # 1-based
    end_line: int
    lang: str
    signature: str = ""
    doc: str = ""


@dataclass(slots=True)
class EdgeRecord:
    src: str
    dst: str
    type: str  # model.Rel value
    prov: str  # model.Prov value
    confidence: float = 1.0
    reason: str = "syntax"
    line: int | None = None
    props: dict = field(default_factory=dict)
