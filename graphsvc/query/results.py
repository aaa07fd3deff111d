"""What the query engine answers: plain dataclasses shared by the CLI (`--json`), GraphQL and REST."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from graphsvc.model import Entity  # a node as read back: generated from the model's node records


@dataclass(kw_only=True)
class Freshness:
    """Whether the graph that answered is behind the workspace's files: `stale` when a watcher
    in the serving process (`graphsvc serve --watch`) has seen `pending_files` changed files
    it has not indexed yet; null when no watcher runs there for the workspace, so the graph
    is as fresh as its last index and nothing more is known."""

    stale: bool | None = None
    pending_files: int = 0


@dataclass(kw_only=True)
class Edge:
    """A relationship with its provenance, confidence (0-1) and how it was resolved."""

    type: str
    source: str  # entity ids
    target: str
    prov: str | None
    confidence: float
    reason: str | None


@dataclass(kw_only=True)
class SearchHit:
    """One full-text match and the fields it matched in."""

    entity: Entity
    score: float
    matched: list[str]  # the fields a keyword matched: name, qualified_name, path, signature, doc
    doc: str | None = None


@dataclass(kw_only=True)
class SearchResult(Freshness):
    """Ranked full-text hits; `truncated` when more matched than the limit."""

    workspace: str | None
    terms: list[list[str]]
    hits: list[SearchHit]
    truncated: bool

    def text(self) -> str:
        lines = [f"{h.score:7.2f}  {_entity_line(h.entity)}  (matched: {', '.join(h.matched) or '-'})" for h in self.hits]
        if not self.hits:
            lines.append("no matches")
        if self.truncated:
            lines.append("… more matches; raise limit")
        return "\n".join(lines)


@dataclass(kw_only=True)
class Neighborhood:
    """The entities within `depth` hops of `center` and the edges among them."""

    center: Entity
    depth: int
    nodes: list[Entity]
    edges: list[Edge]
    truncated: bool
    limit: int

    def text(self) -> str:
        lines = [f"{_entity_line(self.center)}: {len(self.nodes)} entities within {self.depth} hops"]
        lines += [f"  {n.level}  {_entity_line(n)}" for n in sorted(self.nodes, key=lambda e: (e.level or 0, e.id))]
        lines.append(f"{len(self.edges)} edges" + (f"; truncated at limit {self.limit}" if self.truncated else ""))
        return "\n".join(lines)


@dataclass(kw_only=True)
class Path:
    """A path as its nodes in order and the edges between them."""

    nodes: list[Entity]
    edges: list[Edge]
    length: int

    def text(self) -> str:
        out = [self.nodes[0].id] if self.nodes else []
        for edge, node in zip(self.edges, self.nodes[1:]):
            forward = edge.target == node.id
            arrow = f"-[{edge.type} {edge.confidence:g}]->" if forward else f"<-[{edge.type} {edge.confidence:g}]-"
            out.append(f"{arrow} {node.id}")
        return " ".join(out)


@dataclass(kw_only=True)
class PathsResult:
    """The shortest paths found (empty when none within `max_hops`)."""

    source: Entity
    target: Entity
    max_hops: int
    directed: bool
    paths: list[Path]

    def text(self) -> str:
        if not self.paths:
            return f"no path from {self.source.id} to {self.target.id} within {self.max_hops} hops"
        return "\n".join(p.text() for p in self.paths)


@dataclass(kw_only=True)
class SymbolMatch:
    """An entity a ref may name, and how it matched: `id`, `module path` (the file's or the
    directory's), `re-export` (a module importing the defining file), `qualified name`,
    `name`, `file:line` or `suffix` (of the id)."""

    id: str
    kind: str | None
    file: str | None
    line: int | None
    match: str


@dataclass(kw_only=True)
class SymbolResult(Freshness):
    """What `ref` names: `entity` when it names one, else `candidates`, best first (the
    entities matched equally well), at most `limit` of `total`."""

    ref: str
    workspace: str
    entity: Entity | None
    match: str | None  # how `entity` matched
    candidates: list[SymbolMatch]
    total: int
    truncated: bool

    def text(self) -> str:
        if self.entity is not None:
            e = self.entity
            where = f"  {e.file}:{e.start_line}" if e.file and e.start_line else ""
            return f"{e.id}  [{e.kind or e.label}]{where}  ({self.match})"
        lines = [f"{self.ref!r} names {self.total} entities equally well; give one of:"]
        lines += [f"  {c.id}  [{c.kind}]  ({c.match})" for c in self.candidates]
        if self.truncated:
            lines.append("  … raise --limit for more")
        return "\n".join(lines)


@dataclass(kw_only=True)
class SourceResult(Freshness):
    """An entity's lines (a file's from its first) as the workspace's file holds them, which is
    unchanged since it was indexed; at most `max_lines` of them."""

    entity: Entity
    path: str  # the file read, absolute
    start_line: int
    end_line: int  # the last line given
    source: str
    truncated: bool  # the entity has more lines

    def text(self) -> str:
        more = "\n… (more lines: raise --max-lines)" if self.truncated else ""
        return f"# {self.path}:{self.start_line}-{self.end_line}\n{self.source}{more}"


@dataclass(kw_only=True)
class CallSite:
    """Calls from `caller` to `callee`: the first one's file and line, how many (`count`), how
    they were resolved; `depth` levels from the ref; `kind`: of the entity this row reaches."""

    caller: str
    callee: str
    kind: str | None
    file: str | None
    line: int | None
    count: int
    reason: str | None
    confidence: float
    depth: int

    def text(self, reached: str) -> str:
        return (f"  {self.depth}  {reached}  [{self.kind or '-'}]  {self.file or '-'}:{self.line or '-'}"
                f"  {self.reason} {self.confidence:g}" + (f"  x{self.count}" if self.count > 1 else ""))


@dataclass(kw_only=True)
class DepthCount:
    depth: int
    count: int


@dataclass(kw_only=True)
class UnresolvedSite:
    """A call the index found no target for, as written (`text`), where it is."""

    caller: str
    file: str | None
    line: int | None
    text: str


@dataclass(kw_only=True)
class CallersResult(Freshness):
    """Who calls `target`: `sites` (at most `limit` of `total`, level by level), counts per
    depth, and `unresolved_sites`: calls of a function of this name that the index could not
    resolve (recorded ones: the first 20 of each calling entity), a sample in `unresolved`."""

    target: SymbolMatch
    depth: int
    sites: list[CallSite]
    by_depth: list[DepthCount]
    total: int
    truncated: bool
    limit: int
    unresolved_sites: int
    unresolved: list[UnresolvedSite]

    def text(self) -> str:
        counts = ", ".join(f"depth {d.depth}: {d.count}" for d in self.by_depth) or "none"
        lines = [f"callers of {self.target.id}: {self.total} ({counts})"]
        lines += [s.text(s.caller) for s in self.sites]
        if self.truncated:
            lines.append(f"  … {self.total - len(self.sites)} more; raise --limit")
        lines.append(f"unresolved calls of this name: {self.unresolved_sites}")
        lines += [f"  {u.file}:{u.line}  {u.text}  (in {u.caller})" for u in self.unresolved]
        return "\n".join(lines)


@dataclass(kw_only=True)
class CalleesResult(Freshness):
    """What `source` calls: `sites` as for callers; `unresolved`: its own calls the index
    could not resolve, as written (`unresolved_calls` of them in all, the first 20 recorded)."""

    source: SymbolMatch
    depth: int
    sites: list[CallSite]
    by_depth: list[DepthCount]
    total: int
    truncated: bool
    limit: int
    unresolved_calls: int
    unresolved: list[UnresolvedSite]

    def text(self) -> str:
        counts = ", ".join(f"depth {d.depth}: {d.count}" for d in self.by_depth) or "none"
        lines = [f"callees of {self.source.id}: {self.total} ({counts})"]
        lines += [s.text(s.callee) for s in self.sites]
        if self.truncated:
            lines.append(f"  … {self.total - len(self.sites)} more; raise --limit")
        lines.append(f"unresolved calls: {self.unresolved_calls}")
        lines += [f"  {u.line}: {u.text}" for u in self.unresolved]
        return "\n".join(lines)


@dataclass(kw_only=True)
class FrontierEntry:
    """An entity a walk along calls reached (`depth` hops out) where the graph may not know
    everything: its unresolved calls and the candidate (or low-confidence) calls left out."""

    id: str
    depth: int
    unresolved_calls: int
    unresolved: list[str]  # "<line>: <call as written>", the first few
    skipped: list[str]  # targets of the calls the filters left out, the first few


@dataclass(kw_only=True)
class CallPathResult(Freshness):
    """The shortest chain of calls from `source` to `target` (`steps`, empty when `found` is
    false); when there is none within `max_hops`, the `frontier`: the entities the walk from
    `source` reached (`reached` in all) that have unresolved or left-out calls, nearest first,
    at most `limit` of `frontier_total`."""

    source: SymbolMatch
    target: SymbolMatch
    max_hops: int
    found: bool
    steps: list[CallSite]
    reached: int
    frontier: list[FrontierEntry]
    frontier_total: int
    truncated: bool

    def text(self) -> str:
        if self.found:
            return "\n".join([self.source.id] + [s.text(s.callee) for s in self.steps])
        lines = [f"no call path from {self.source.id} to {self.target.id} within {self.max_hops} hops; "
                 f"{self.reached} entities reached, {self.frontier_total} where it may continue:"]
        for f in self.frontier:
            more = [f"{f.unresolved_calls} unresolved: " + ", ".join(f.unresolved)] if f.unresolved_calls else []
            more += ["left out: " + ", ".join(f.skipped)] if f.skipped else []
            lines.append(f"  {f.depth}  {f.id}  " + "; ".join(more))
        if self.truncated:
            lines.append("  … raise --limit")
        return "\n".join(lines)


@dataclass(kw_only=True)
class Count:
    """A name and how often it occurs."""

    name: str
    count: int


@dataclass(kw_only=True)
class Hub:
    """A well-connected entity near the one explained."""

    entity: Entity
    degree: int
    pagerank: float


@dataclass(kw_only=True)
class Explanation:
    """An entity in context: its neighborhood in numbers, the hubs around it and the way there."""

    entity: Entity
    summary: str
    depth: int
    neighborhood_size: int
    truncated: bool
    neighbor_kinds: list[Count]
    edge_types: list[Count]
    hubs_by_degree: list[Hub]
    hubs_by_pagerank: list[Hub]
    nearest_hub: Hub | None
    path_to_hub: Path | None

    def text(self) -> str:
        lines = [
            self.summary,
            "hubs by degree:   " + ", ".join(f"{h.entity.id} ({h.degree})" for h in self.hubs_by_degree),
            "hubs by PageRank: " + ", ".join(f"{h.entity.id} ({h.pagerank:.3f})" for h in self.hubs_by_pagerank),
        ]
        if self.path_to_hub:
            lines.append("path to nearest hub: " + self.path_to_hub.text())
        return "\n".join(lines)


@dataclass(kw_only=True)
class CommunityMember:
    """A member of a community with its degree in the partitioned graph."""

    id: str
    name: str | None
    degree: int


@dataclass(kw_only=True)
class Community:
    """One Leiden community as stored (`community:<number>`), labelled by shared path or names."""

    id: str
    number: int
    label: str
    size: int
    top_members: list[CommunityMember]


@dataclass(kw_only=True)
class CommunitiesResult:
    """A Leiden run: sizes, modularity and the seconds spent fetching, clustering and writing back.

    `stored`: the workspace's stored partition (read back, or just written); false for a
    turn's subgraph partitioned on a read and not stored.
    """

    workspace: str
    turn_id: str | None
    objective: str
    algorithm: str  # igraph (built-in Leiden) or leidenalg
    resolution: float
    seed: int
    nodes: int
    edges: int
    community_count: int  # communities of at least `min_size` members, all written back
    unassigned: int  # nodes in smaller communities (no `community` property)
    modularity: float
    quality: float  # the objective's own value (CPM or modularity)
    communities: list[Community]  # the largest, up to the requested limit
    fetch_s: float
    leiden_s: float
    write_s: float
    total_s: float
    stored: bool
    hint: str | None = None  # what to do when nothing is stored yet

    def text(self) -> str:
        if self.hint:
            lines = [self.hint]
        elif self.stored:
            over = f" of turn {self.turn_id}" if self.turn_id else ""
            lines = [
                f"{self.community_count} stored communities{over} over {self.nodes} nodes / {self.edges} edges, "
                f"modularity {self.modularity:.3f} ({self.objective}, resolution {self.resolution:g}, seed {self.seed})"
            ]
        else:
            lines = [
                f"{self.community_count} communities over {self.nodes} nodes / {self.edges} edges, modularity "
                f"{self.modularity:.3f} ({self.objective}, resolution {self.resolution:g}, seed {self.seed}; not stored); "
                f"fetch {self.fetch_s:.2f} s, leiden {self.leiden_s:.2f} s"
            ]
        for com in self.communities:
            top = ", ".join(m.name or m.id for m in com.top_members)
            lines.append(f"  {com.id:>14}  {com.size:6d}  {com.label}  [{top}]")
        return "\n".join(lines)


@dataclass(kw_only=True)
class IdList:
    """Ids, at most `limit` of `total`; `truncated` when some were left out."""

    items: list[str]
    total: int
    limit: int
    truncated: bool


@dataclass(kw_only=True)
class CountList:
    """Names with how often each occurs, the most frequent first: at most `limit` of `total`."""

    items: list[Count]
    total: int
    limit: int
    truncated: bool


@dataclass(kw_only=True)
class Reached:
    """An entity reached along edges, `depth` hops from where the walk started: `rel` is the
    edge joining it to `via`, the entity one hop nearer the start, with that edge's
    `confidence` and `reason`."""

    id: str
    kind: str | None
    line: int | None
    depth: int
    rel: str
    via: str
    confidence: float
    reason: str | None

    def text(self, incoming: bool = True) -> str:
        arrow = f"-{self.rel}->" if incoming else f"<-{self.rel}-"
        line = f":{self.line}" if self.line else ""
        return f"{self.id}{line}  [{self.kind}]  {arrow} {self.via}  ({self.confidence:g} {self.reason})"


@dataclass(kw_only=True)
class ImpactLevel:
    """The entities first reached `depth` hops from the change: at most `limit` of `total`,
    nearest to certain first. `unresolved_sites`: call sites the index left unresolved whose
    called name is that of an entity one hop nearer, which could add to this level."""

    depth: int
    total: int
    entities: list[Reached]
    limit: int
    truncated: bool
    unresolved_sites: int


@dataclass(kw_only=True)
class ImpactResult(Freshness):
    """What depends on the `changed` entities, transitively up to `depth` hops, grouped by
    depth, with the files and the tests reached. `complete` is false when a level had more
    entities than are walked (its total is then a lower bound)."""

    workspace: str
    summary: str
    changed: IdList
    not_indexed: IdList  # files named (or in the diff) that the workspace does not hold
    depth: int
    rels: list[str]
    levels: list[ImpactLevel]
    files: CountList  # files of the entities reached, with how many of them each holds
    tests: IdList  # entities reached that are tests by their language's conventions
    unresolved_sites: int
    complete: bool

    def text(self) -> str:
        lines = [self.summary]
        for level in self.levels:
            more = f", the first {len(level.entities)}" if level.truncated else ""
            lines.append(f"hop {level.depth}: {level.total}{more}")
            lines += [f"  {e.text()}" for e in level.entities]
        lines += _listed("files", [f"{c.name} ({c.count})" for c in self.files.items], self.files.total)
        lines += _listed("tests", self.tests.items, self.tests.total)
        lines += _listed("not indexed", self.not_indexed.items, self.not_indexed.total)
        return "\n".join(lines)


@dataclass(kw_only=True)
class ChangedSymbol:
    """An entity a change touches: where the graph has it, and how many entities depend on it
    directly (`dependents`)."""

    id: str
    kind: str | None
    file: str | None
    line: int | None
    end_line: int | None
    dependents: int


@dataclass(kw_only=True)
class ChangesResult(Freshness):
    """What a change (files as they are now against a git ref, or a unified diff) touches and
    what depends on that: `changed` (at most `limit` of `changed_total`, most depended on
    first), the files it changes, and `impact` of every changed entity. `risk` is low, medium
    or high (none when nothing indexed changed); `summary` says it in one line."""

    workspace: str
    since: str  # the ref as given, or "diff"
    commit: str | None  # what the ref names
    summary: str
    risk: str
    changed: list[ChangedSymbol]
    changed_total: int
    files: IdList  # the files the change touches, as the diff (and git's untracked list) names them
    untracked: IdList  # new files git does not track yet, taken as wholly changed
    impact: ImpactResult

    def text(self) -> str:
        lines = [self.summary]
        more = f" (the first {len(self.changed)} of {self.changed_total})" if self.changed_total > len(self.changed) else ""
        if self.changed:
            lines.append(f"changed{more}:")
        for c in self.changed:
            where = f":{c.line}-{c.end_line}" if c.line else ""
            lines.append(f"  {c.id}{where}  [{c.kind}]  {c.dependents} direct dependents")
        lines += _listed("files changed", self.files.items, self.files.total)
        lines += self.impact.text().splitlines()[1:]
        return "\n".join(lines)


@dataclass(kw_only=True)
class HierarchyResult(Freshness):
    """Classes or methods related to `entity` along `rel` edges: one hop, or every hop
    (`transitive`), nearest first, at most `limit` of `total`."""

    entity: Entity
    relation: str  # subclasses, superclasses, overrides or overriddenBy
    rel: list[str]
    transitive: bool
    entities: list[Reached]
    total: int
    limit: int
    truncated: bool

    def text(self) -> str:
        incoming = self.relation in ("subclasses", "overriddenBy")
        lines = [f"{self.entity.id}: {self.total} {self.relation}" + (" (transitive)" if self.transitive else "")]
        lines += [f"  {e.depth}  {e.text(incoming)}" for e in self.entities]
        if self.truncated:
            lines.append("  … raise --limit for more")
        return "\n".join(lines)


@dataclass(kw_only=True)
class NeighbourCommunity:
    """Another stored community and the edges between its members and the ones of the
    community described."""

    number: int
    label: str
    edges: int


@dataclass(kw_only=True)
class CommunityDetail(Freshness):
    """One stored Leiden community: its label, size, the files most of its members are in,
    its members of highest degree and the communities it has most edges with. `member`: the
    entity asked about, when the community was found through one of its members."""

    workspace: str
    id: str
    number: int
    label: str
    size: int
    member: str | None
    top_files: CountList
    top_members: list[CommunityMember]
    neighbours: list[NeighbourCommunity]
    neighbours_total: int
    limit: int  # of top files and of neighbours
    truncated: bool  # some neighbours were left out

    def text(self) -> str:
        lines = [f"{self.id}  {self.label}  ({self.size} members)" + (f", holding {self.member}" if self.member else "")]
        lines += _listed("files", [f"{c.name} ({c.count})" for c in self.top_files.items], self.top_files.total)
        lines += _listed("top members", [f"{m.id} ({m.degree})" for m in self.top_members], len(self.top_members))
        lines += _listed("neighbours", [f"community:{n.number} {n.label} ({n.edges} edges)" for n in self.neighbours],
                         self.neighbours_total)
        return "\n".join(lines)


def _listed(title: str, items: list[str], total: int) -> list[str]:
    """A titled list for the CLI, saying how many were left out."""
    if not total:
        return []
    more = f" (the first {len(items)} of {total})" if total > len(items) else ""
    return [f"{title}{more}:", *(f"  {item}" for item in items)]


@dataclass(kw_only=True)
class KeyValue:
    """A value recorded for a turn (`key=`)."""

    turn_id: str
    key: str
    value: str | None
    known_keys: list[str]

    def text(self) -> str:
        return self.value if self.value is not None else f"(no {self.key} recorded)"


@dataclass(kw_only=True)
class Overview:
    """How many entities of each kind a workspace holds."""

    workspace: str
    counts: list[Count]

    def text(self) -> str:
        return "\n".join(f"{c.count:8d}  {c.name}" for c in self.counts)


@dataclass(kw_only=True)
class ContextResult(Freshness):
    """The answer to a `context_query`: `operation` names which one of the parts is set."""

    operation: str
    workspace: str | None
    turn_id: str | None
    search: SearchResult | None = None
    neighborhood: Neighborhood | None = None
    paths: PathsResult | None = None
    explain: Explanation | None = None
    communities: CommunitiesResult | None = None
    key: KeyValue | None = None
    overview: Overview | None = None
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, without the parts that are not set."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def text(self) -> str:
        """The part that is set, as its own `text()` gives it."""
        parts = (self.search, self.neighborhood, self.paths, self.explain, self.communities, self.key, self.overview)
        return next((part.text() for part in parts if part), "")


def _entity_line(e: Entity) -> str:
    where = f"  {e.file}:{e.start_line}" if e.file and e.start_line else ""
    return f"{e.id}  [{e.kind or e.label}]{where}"
