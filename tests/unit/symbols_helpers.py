"""Shared helpers for the extraction and resolution tests over tests/fixtures/symbols/<lang>/."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from indexers.extract import FileExtraction, extract_file
from indexers.languages import language_for_path
from indexers.records import EdgeRecord
from indexers.resolve import ResolveStats, SymbolTable, affected_files, resolve_all, resolve_file

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


def one_file_calls(path: str, source: bytes) -> dict[str, dict[str, tuple[str, float]]]:
    """The CALLS edges of one file resolved alone, ``targets_by_source``'s form with the
    file's prefix (``m.py#``) left out of every id."""
    edges, _ = resolve_all(SymbolTable([extract_file(path, source, language_for_path(path).name)]))
    prefix = f"{path}#"
    return {src.removeprefix(prefix): {dst.removeprefix(prefix): v for dst, v in targets.items()}
            for src, targets in targets_by_source(edges).items()}


def incremental_equals_clean(files: dict[str, str], path: str, new: str | None,
                             setup: Callable[[SymbolTable], None] = lambda table: None) -> set[str]:
    """Change the file `path` of `files` (None: delete it); re-resolving the files it affects
    gives what a clean run over the changed files gives. Returns the affected files."""
    def table_of(texts: dict[str, str]) -> SymbolTable:
        table = SymbolTable(extract_file(p, t.encode(), language_for_path(p).name) for p, t in texts.items())
        setup(table)
        return table

    table = table_of(files)
    before = {p: set(resolve_file(e, table)) for p, e in table.files.items()}
    old_ext = table.remove_file(path)
    new_ext = extract_file(path, new.encode(), language_for_path(path).name) if new is not None else None
    if new_ext is not None:
        table.add_file(new_ext)
    affected = affected_files([path], {path: old_ext} if old_ext else {}, {path: new_ext} if new_ext else {}, table)
    incremental = {p: e for p, e in before.items() if p in table.files and p not in affected}
    incremental.update({p: set(resolve_file(table.files[p], table)) for p in affected})
    changed = {k: v for k, v in files.items() if k != path} | ({path: new} if new is not None else {})
    clean_table = table_of(changed)
    assert incremental == {p: set(resolve_file(e, clean_table)) for p, e in clean_table.files.items()}
    return affected
