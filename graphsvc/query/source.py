"""`source`: an entity's lines, read from the workspace's directory as it is now.

The graph knows where an entity starts and ends in the content it indexed, so the lines are
given only while the file still has that content (its sha256 is the one stored on the File
node); otherwise `SourceChangedError` says to index again, and a file that is gone is
`NotFoundError`. Directories, the workspace and external entities have no lines of their own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from graphsvc.errors import InputError, NotFoundError, SourceChangedError
from graphsvc.graph import reads
from graphsvc.graph.driver import Graph, get_graph
from graphsvc.model import Entity, Label
from graphsvc.query.arguments import resolve_scope
from graphsvc.query.engine import to_entity
from graphsvc.query.results import SourceResult
from graphsvc.query.symbols import resolve

DEFAULT_SOURCE_LINES = 200
MAX_SOURCE_LINES = 5000


def source(ref: str, *, workspace: str, max_lines: int = DEFAULT_SOURCE_LINES, graph: Graph | None = None) -> SourceResult:
    """The lines of the entity `ref` names (a file's from its first), at most `maxLines`, read
    from the workspace's directory; refused when the file changed since it was indexed."""
    ws = resolve_scope(workspace).workspace
    graph = graph or get_graph()
    return entity_source(to_entity(resolve(graph, ws, ref)), max_lines=max_lines, graph=graph)


def entity_source(entity: Entity, *, max_lines: int = DEFAULT_SOURCE_LINES, graph: Graph | None = None) -> SourceResult:
    """The lines of `entity`, as `source` gives them."""
    if not 1 <= max_lines <= MAX_SOURCE_LINES:
        raise InputError(f"maxLines must be 1..{MAX_SOURCE_LINES}, got {max_lines}")
    is_file = entity.label == Label.FILE
    if not (is_file or (entity.label == Label.SYMBOL and entity.file and entity.start_line)):
        raise InputError(f"{entity.id} ({entity.kind or entity.label}) has no lines of its own: give a file or a symbol")
    file = entity.id if is_file else entity.file
    where = reads.file_content(graph or get_graph(), entity.workspace, file)
    if where["root"] is None or not where["known"]:
        raise NotFoundError(f"{file} is not a file of workspace {entity.workspace!r}: index it again")
    path = Path(where["root"]) / file
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"{path} is gone since {file} was indexed: index the workspace again") from None
    except OSError as exc:
        raise NotFoundError(f"{path} cannot be read ({exc.strerror}): check its permissions") from None
    if hashlib.sha256(data).hexdigest() != where["hash"]:
        raise SourceChangedError(
            f"{path} changed since it was indexed, so the graph's lines for {entity.id} may be wrong: "
            f"index workspace {entity.workspace!r} again (`graphsvc index {where['root']} -w {entity.workspace}`)"
        )
    lines = data.decode("utf-8", "replace").splitlines()
    start = 1 if is_file else entity.start_line
    end = len(lines) if is_file else min(entity.end_line or start, len(lines))
    last = min(end, start + max_lines - 1)
    return SourceResult(entity=entity, path=str(path), start_line=start, end_line=last,
                        source="\n".join(lines[start - 1 : last]), truncated=last < end)
