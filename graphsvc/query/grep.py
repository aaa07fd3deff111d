"""`grep`: lines of the indexed files that hold a literal or match a regular expression.

Read from the grep index the indexer keeps in the context store (`graphsvc.context.grep_index`),
not from Neo4j: the files' text in an FTS5 index of its words, and each file's symbol ranges
for a hit's enclosing symbol.

- A literal of three characters or more is looked up by the words it holds, starts, ends
  or lies in (`graphsvc.context.grep_terms`), and every candidate is checked in Python; a
  shorter one, or one the words do not narrow, scans the workspace's text.
- A regular expression (Python's `re` syntax, matched against one line at a time) is looked
  up in the same way by the literal runs every match must contain (`required`; of `a|b`, one
  alternative's), when it has any, else it scans; each candidate line is checked with `re`.
- Case-sensitive unless `ignore_case` (Unicode lower case of both sides; for a regex,
  `re.IGNORECASE`).
- `paths`: globs over the file's path in the workspace (`*` crosses `/`, as in `fnmatch`);
  a glob without `/` may match the file name alone (`*.py`).
- The work is bounded: finding the hits by `SCAN_SECONDS` and `SCAN_CHARS` of text, counting
  the lines past them by `COUNT_SECONDS` (from the start) and `COUNT_AT_MOST`. Past a bound
  `complete` is false and `total` counts the lines found so far.
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from graphsvc.context.grep_index import Condition, GrepIndex, chunk_place, reader
from graphsvc.errors import InputError, NotFoundError
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.graph.workspaces import show_workspace
from graphsvc.query.arguments import check_length, result_limit
from graphsvc.query.results import Freshness
from graphsvc.settings import get_settings

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

DEFAULT_LIMIT = 20  # with LINE_CHARS, a default answer stays under 8 KB of JSON
LINE_CHARS = 160  # of a hit's line, around the match
MAX_PATTERN_CHARS = 1000
SCAN_SECONDS = 1.0
SCAN_CHARS = 256 * 1024 * 1024
COUNT_AT_MOST = 10_000  # matching lines counted; past it `total` is a lower bound
COUNT_SECONDS = 0.05  # counting the lines past the hits shown: a common word reads most chunks


@dataclass(kw_only=True)
class GrepHit:
    """One matching line: its text (a long one cut around the match, `…` where cut), the
    1-based column of the first match, and the innermost symbol whose lines span it."""

    file: str
    line: int
    column: int
    text: str
    symbol: str | None = None  # the symbol's id
    symbol_kind: str | None = None


@dataclass(kw_only=True)
class GrepResult(Freshness):
    """Matching lines in file and line order. `total` counts every matching line (a lower
    bound when `complete` is false: the scan stopped at its bound); `truncated` when more
    matched than `limit`."""

    workspace: str
    pattern: str
    regex: bool
    ignore_case: bool
    hits: list[GrepHit]
    total: int
    limit: int
    truncated: bool
    complete: bool

    def text(self) -> str:
        """As grep -n prints it, with each hit's symbol, then the count."""
        lines = [f"{h.file}:{h.line}: {h.text}" + (f"    [{h.symbol}]" if h.symbol else "") for h in self.hits]
        more = f"{self.total}{'' if self.complete else '+'} matching lines"
        lines.append(f"{more}, {len(self.hits)} shown" if self.truncated else more)
        return "\n".join(lines)


def grep(
    pattern: str,
    *,
    workspace: str,
    regex: bool = False,
    paths: list[str] | None = None,
    ignore_case: bool = False,
    limit: int | None = None,
    graph: Graph | None = None,
) -> GrepResult:
    """Lines of the workspace's indexed files holding `pattern` (a regular expression with
    `regex`), with their enclosing symbols."""
    check_length(workspace, "a workspace name")
    if not pattern:
        raise InputError("give a pattern to grep for")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InputError(f"a pattern of {len(pattern)} characters: give at most {MAX_PATTERN_CHARS}")
    limit = result_limit(limit, DEFAULT_LIMIT)
    lines_of, condition, folds = _matcher(pattern, regex, ignore_case)
    graph = graph or get_graph()
    index = reader(get_settings())
    ws_id = index.workspace_id(graph.uri, workspace)
    if ws_id is None:
        show_workspace(graph, workspace)  # NotFoundError for an unknown workspace
        raise NotFoundError(f"workspace {workspace!r} has no text index yet: index it again "
                            "(`graphsvc index PATH`) to fill it")
    allowed = _matching_files(index.files(ws_id), paths) if paths else None
    found: list[tuple[int, int, int, str]] = []  # chunk rowid, line in it, column, the chunk's text
    total, complete = 0, True
    started, budget = time.perf_counter(), SCAN_CHARS
    for rowid, text in index.chunks(ws_id, condition, folds):
        if allowed is not None and chunk_place(rowid)[0] not in allowed:
            continue
        budget -= len(text)
        for offset, column in lines_of(text):
            total += 1
            if len(found) < limit:
                found.append((rowid, offset, column, text))
        spent = time.perf_counter() - started
        if budget < 0 or total >= COUNT_AT_MOST or spent > SCAN_SECONDS or (
                len(found) == limit and spent > COUNT_SECONDS):
            complete = False
            break
    return _result(index, workspace, pattern, regex, ignore_case, found, total, limit, complete)


def _result(index: GrepIndex, workspace: str, pattern: str, regex: bool, ignore_case: bool,
            found: list, total: int, limit: int, complete: bool) -> GrepResult:
    """The hits with their paths, lines and enclosing symbols."""
    at = [(chunk_place(rowid)[0], chunk_place(rowid)[1] + offset) for rowid, offset, _, _ in found]
    paths = index.paths(file_id for file_id, _ in at)
    symbols = index.enclosing(at)
    hits = []
    for (file_id, line), (_, offset, column, text) in zip(at, found):
        symbol, kind = symbols.get((file_id, line), (None, None, None))[:2]
        hits.append(GrepHit(file=paths[file_id], line=line, column=column + 1,
                            text=_trimmed(text.split("\n")[offset], column, len(pattern)),
                            symbol=symbol, symbol_kind=kind))
    return GrepResult(workspace=workspace, pattern=pattern, regex=regex, ignore_case=ignore_case, hits=hits,
                      total=total, limit=limit, truncated=total > len(hits) or not complete, complete=complete)


# (offset of the line in the chunk, 0-based column of the first match) of each matching line
LineMatches = Callable[[str], list[tuple[int, int]]]


def _matcher(pattern: str, regex: bool, ignore_case: bool) -> tuple[LineMatches, Condition | None, bool]:
    """How to find matching lines in a chunk, what every matching chunk holds (None:
    nothing known, every chunk is a candidate), and whether it is matched ignoring case
    anywhere (a regex's `(?i:...)` too)."""
    if not regex:
        return _literal_lines(pattern, ignore_case), [[[pattern]]] if len(pattern) >= 3 else None, ignore_case
    try:
        compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise InputError(f"invalid regular expression {pattern!r}: {exc}") from None
    return _regex_lines(compiled), required(compiled) or None, _ignores_case(compiled)


def _literal_lines(needle: str, ignore_case: bool) -> LineMatches:
    """Each match found in the whole chunk, then the line it is on: no split per line."""
    if ignore_case:
        needle = needle.lower()

    def lines(text: str) -> list[tuple[int, int]]:
        # Lower case keeps every '\n' where it was: lines count the same in both. It may
        # lengthen a line (rarely): the column is then approximate.
        hay = text.lower() if ignore_case else text
        pos = hay.find(needle)
        if pos < 0 or "\n" in needle:
            return []
        out = []
        line, start = hay.count("\n", 0, pos), hay.rfind("\n", 0, pos) + 1
        while pos >= 0:
            out.append((line, pos - start))
            end = hay.find("\n", pos)
            if end < 0:
                break
            pos = hay.find(needle, end + 1)
            if pos >= 0:
                line += 1 + hay.count("\n", end + 1, pos)
                start = hay.rfind("\n", end, pos) + 1
        return out

    return lines


def _regex_lines(compiled: re.Pattern) -> LineMatches:
    # A chunk in which the pattern matches nowhere, lines joined, has no matching line: the
    # test runs over the whole chunk first, unless the pattern looks at where the text starts
    # or ends, or around a match, which joined lines would change.
    whole = None if _bounded(compiled) else re.compile(compiled.pattern, compiled.flags | re.MULTILINE)

    def lines(text: str) -> list[tuple[int, int]]:
        if whole is not None and whole.search(text) is None:
            return []
        out = []
        for i, line in enumerate(text.split("\n")):
            m = compiled.search(line)
            if m is not None:
                out.append((i, m.start()))
        return out

    return lines


def _bounded(compiled: re.Pattern) -> bool:
    """Whether the pattern has \\A, \\Z or a lookaround (text beyond its line may change it)."""
    return _any_item(compiled, lambda op, arg: op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT) or (
        op is sre_constants.AT and arg in (sre_constants.AT_BEGINNING_STRING, sre_constants.AT_END_STRING)))


def _ignores_case(compiled: re.Pattern) -> bool:
    """Whether any part of the pattern is matched ignoring case: its flags or a group's."""
    return bool(compiled.flags & re.IGNORECASE) or _any_item(
        compiled, lambda op, arg: op is sre_constants.SUBPATTERN and bool(arg[1] & re.IGNORECASE))


def _any_item(compiled: re.Pattern, test: Callable[[object, object], bool]) -> bool:
    """Whether `test(op, arg)` holds for an item of the pattern's parse tree, at any depth."""
    found = False

    def walk(items) -> None:
        nonlocal found
        for op, arg in items:
            if test(op, arg):
                found = True
            elif isinstance(arg, (list, tuple)):
                for a in arg:
                    if isinstance(a, sre_parse.SubPattern):
                        walk(a)
                    elif isinstance(a, (list, tuple)):
                        for b in a:
                            if isinstance(b, sre_parse.SubPattern):
                                walk(b)
            if isinstance(arg, sre_parse.SubPattern):
                walk(arg)

    walk(sre_parse.parse(compiled.pattern, compiled.flags))
    return found


def required(compiled: re.Pattern) -> Condition:
    """The literal runs (three characters or more) every match of `compiled` contains: runs
    in sequence, groups and repeats of at least one; of a branch, one alternative's (when
    each has some). A class or an optional part breaks a run. As written in the pattern:
    the index's lookup knows what ignoring case may pair them with."""
    return _required(sre_parse.parse(compiled.pattern, compiled.flags))


def _required(items) -> Condition:
    out: Condition = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 3:
            out.append([["".join(run)]])
        run.clear()

    for op, arg in items:
        if op is sre_constants.LITERAL:
            run.append(chr(arg))
            continue
        flush()
        if op is sre_constants.SUBPATTERN:
            out.extend(_required(arg[-1]))
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
            low, _, body = arg
            if low >= 1:
                out.extend(_required(body))
        elif op is sre_constants.ATOMIC_GROUP:
            out.extend(_required(arg))
        elif op is sre_constants.BRANCH:
            # An alternative's literals are those of its one-way clauses (fewer: a weaker test).
            alternatives = [[lit for clause in _required(alt) if len(clause) == 1 for lit in clause[0]]
                            for alt in arg[1]]
            if all(alternatives):
                out.append(alternatives)
    flush()
    return out


def _matching_files(files: dict[int, str], globs: list[str]) -> set[int]:
    names = [g for g in globs if "/" not in g]
    return {
        fid for fid, path in files.items()
        if any(fnmatch.fnmatchcase(path, g) for g in globs)
        or any(fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], g) for g in names)
    }


def _trimmed(line: str, column: int, width: int) -> str:
    line = line.rstrip("\r")
    if len(line) <= LINE_CHARS:
        return line
    start = max(0, min(column - (LINE_CHARS - width) // 2, len(line) - LINE_CHARS))
    text = line[start:start + LINE_CHARS]
    return ("…" if start > 0 else "") + text + ("…" if start + LINE_CHARS < len(line) else "")
