"""What an index run reports: the CLI's lines, and the JSON of the CLI and of a job."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

# progress(done, total or None, message)
Progress = Callable[[int, int | None, str], None]


@dataclass(slots=True)
class TreeSummary:
    workspace: str
    root: str
    directories: int = 0
    files: int = 0
    indexed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    bytes_read: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items())) or "none"
        return (
            f"{self.workspace}: {self.directories} dirs, {self.files} files ({self.indexed} indexed; "
            f"skipped: {skipped}); +{self.added} ~{self.changed} -{self.removed} "
            f"={self.unchanged} in {self.seconds:.2f} s"
        )


@dataclass(slots=True)
class SymbolSummary:
    workspace: str
    mode: str = "incremental"  # or "full"
    full_reason: str | None = None  # why a full run: first run, indexer changed, ...
    files: int = 0  # files in a supported language
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    resolved_files: int = 0  # files whose outgoing edges were re-resolved
    symbols: int = 0  # symbols in the workspace after the run
    symbols_written: int = 0
    symbols_removed: int = 0
    edges_written: dict[str, int] = field(default_factory=dict)  # by relationship type
    edges_by_reason: dict[str, int] = field(default_factory=dict)
    calls: dict = field(default_factory=dict)  # resolver statistics (ResolveStats.as_dict)
    syntax_error_files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    parse_seconds: float = 0.0
    resolve_seconds: float = 0.0
    write_seconds: float = 0.0
    grep_written: int = 0  # files whose text the grep index took
    grep_removed: int = 0
    grep_seconds: float = 0.0  # beside resolving and writing, on a thread of its own
    seconds: float = 0.0
    tree: TreeSummary | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        edges = sum(self.edges_written.values())
        by_type = ", ".join(f"{n} {t}" for t, n in sorted(self.edges_written.items())) or "none"
        by_reason = ", ".join(f"{n} {r}" for r, n in sorted(self.edges_by_reason.items())) or "none"
        lines = []
        if self.tree is not None:
            lines.append("tree     " + self.tree.line())
        lines.append(
            f"symbols  {self.workspace} ({self.mode}{': ' + self.full_reason if self.full_reason else ''}): "
            f"{self.files} source files, {self.parsed} parsed, "
            f"{self.unchanged} unchanged, {self.deleted} deleted; {self.symbols} symbols "
            f"(+{self.symbols_written} -{self.symbols_removed}); {self.syntax_error_files} files with "
            f"syntax errors; {self.parse_seconds:.2f} s parse, {self.resolve_seconds:.2f} s resolve, "
            f"{self.write_seconds:.2f} s write, {self.seconds:.2f} s in all"
        )
        lines.append(f"edges    {edges} written: {by_type}")
        if self.grep_written or self.grep_removed:
            lines.append(f"grep     {self.grep_written} files written, {self.grep_removed} removed in "
                         f"{self.grep_seconds:.2f} s")
        lines.append(f"reasons  {by_reason}")
        if self.calls:
            c = self.calls
            resolved = ", ".join(f"{n} {r}" for r, n in c["resolved_by_reason"].items()) or "none"
            lines.append(
                f"calls    {c['calls']} call sites: resolved {resolved}; {c['candidate_calls']} left as "
                f"candidates, {c['external']} external, {c['builtin']} builtin, {c['unresolved']} unresolved"
            )
        if self.skipped:
            lines.append("skipped  " + ", ".join(f"{n} {k}" for k, n in sorted(self.skipped.items())))
        return "\n".join(lines)
