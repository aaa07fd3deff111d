"""Shared helpers for the extraction and resolution tests over tests/fixtures/symbols/<lang>/."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from indexers.extract import FileExtraction, extract_file
from indexers.languages import language_for_path
from indexers.records import EdgeRecord
from indexers.resolve import ResolveStats, SymbolTable, resolve_all

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "symbols"


@dataclass
class Project:
    exts: dict[str, FileExtraction]
    table: SymbolTable
    edges: list[EdgeRecord]
    stats: ResolveStats

    def symbols(self, path: str) -> list[tuple[str, str, int, int]]:
        return [(s.id, s.kind, s.start_line, s.end_line) for s in self.exts[path].symbols]

    def outline(self, path: str) -> str:
        """A file's symbols, one line each: qualified name, kind, first line (-last line)."""
        return "\n".join(
            f"{s.qualified_name} {s.kind} {s.start_line}" + (f"-{s.end_line}" if s.end_line != s.start_line else "")
            for s in self.exts[path].symbols
        )

    def symbol(self, sid: str):
        return self.table.symbols[sid]

    def edge(self, rel: str, src: str, dst: str) -> EdgeRecord | None:
        for e in self.edges:
            if e.type == rel and e.src == src and e.dst == dst:
                return e
        return None

    def targets(self, rel: str, src: str) -> dict[str, tuple[str, float]]:
        return {e.dst: (e.reason, e.confidence) for e in self.edges if e.type == rel and e.src == src}


def extract_tree(root: Path) -> dict[str, FileExtraction]:
    exts = {}
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root).as_posix()
        spec = language_for_path(rel)
        if spec is None:
            continue
        exts[rel] = extract_file(rel, p.read_bytes(), spec.name)
    return exts


def load_project(lang_dir: str) -> Project:
    exts = extract_tree(FIXTURES / lang_dir)
    table = SymbolTable(exts.values())
    edges, stats = resolve_all(table)
    return Project(exts, table, edges, stats)


def outline(text: str) -> str:
    """An expected ``Project.outline``, written as an indented block of lines (``  # ...``
    ends a line with a comment)."""
    lines = (line.partition("  #")[0].strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def targets_by_source(edges: Iterable[EdgeRecord], rel: str = "CALLS") -> dict[str, dict[str, tuple[str, float]]]:
    """The edges of one relation as ``{src: {dst: (reason, confidence)}}``."""
    out: dict[str, dict[str, tuple[str, float]]] = {}
    for e in edges:
        if e.type == rel:
            out.setdefault(e.src, {})[e.dst] = (e.reason, e.confidence)
    return out
