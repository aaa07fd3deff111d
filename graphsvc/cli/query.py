"""`graphsvc query '<context_query>' [--json]`: one call to `context_query`, printed."""

from __future__ import annotations

import json

import click

from graphsvc.query.engine import context_query
from graphsvc.query.results import ContextResult, Entity, Path


def _entity(e: Entity) -> str:
    where = f"  {e.file}:{e.start_line}" if e.file and e.start_line else ""
    return f"{e.id}  [{e.kind or e.label}]{where}"


def _path(p: Path) -> str:
    out = [p.nodes[0].id] if p.nodes else []
    for edge, node in zip(p.edges, p.nodes[1:]):
        arrow = f"-[{edge.type} {edge.confidence:g}]->" if edge.target == node.id else f"<-[{edge.type} {edge.confidence:g}]-"
        out.append(f"{arrow} {node.id}")
    return " ".join(out)


def render(result: ContextResult) -> str:
    lines: list[str] = []
    if result.search:
        for hit in result.search.hits:
            lines.append(f"{hit.score:7.2f}  {_entity(hit.entity)}  (matched: {', '.join(hit.matched) or '-'})")
        if not result.search.hits:
            lines.append("no matches")
        if result.search.truncated:
            lines.append("… more matches; raise limit=")
    elif result.neighborhood:
        n = result.neighborhood
        lines.append(f"{_entity(n.center)}: {len(n.nodes)} entities within {n.depth} hops")
        for node in sorted(n.nodes, key=lambda e: (e.level or 0, e.id)):
            lines.append(f"  {node.level}  {_entity(node)}")
        lines.append(f"{len(n.edges)} edges" + ("; truncated at limit " + str(n.limit) if n.truncated else ""))
    elif result.paths:
        p = result.paths
        if not p.paths:
            lines.append(f"no path from {p.source.id} to {p.target.id} within {p.max_hops} hops")
        lines.extend(_path(path) for path in p.paths)
    elif result.explain:
        x = result.explain
        lines.append(x.summary)
        lines.append("hubs by degree:   " + ", ".join(f"{h.entity.id} ({h.degree})" for h in x.hubs_by_degree))
        lines.append("hubs by PageRank: " + ", ".join(f"{h.entity.id} ({h.pagerank:.3f})" for h in x.hubs_by_pagerank))
        if x.path_to_hub:
            lines.append("path to nearest hub: " + _path(x.path_to_hub))
    elif result.communities:
        c = result.communities
        if c.hint:
            lines.append(c.hint)
        elif c.stored:
            over = f" of turn {c.turn_id}" if c.turn_id else ""
            lines.append(
                f"{c.community_count} stored communities{over} over {c.nodes} nodes / {c.edges} edges, "
                f"modularity {c.modularity:.3f} ({c.objective}, resolution {c.resolution:g}, seed {c.seed})"
            )
        else:
            lines.append(
                f"{c.community_count} communities over {c.nodes} nodes / {c.edges} edges, modularity "
                f"{c.modularity:.3f} ({c.objective}, resolution {c.resolution:g}, seed {c.seed}; not stored); "
                f"fetch {c.fetch_s:.2f} s, leiden {c.leiden_s:.2f} s"
            )
        for com in c.communities:
            top = ", ".join(m.name or m.id for m in com.top_members)
            lines.append(f"  {com.id:>14}  {com.size:6d}  {com.label}  [{top}]")
    elif result.key:
        lines.append(result.key.value if result.key.value is not None else f"(no {result.key.key} recorded)")
    elif result.overview:
        lines.extend(f"{c.count:8d}  {c.name}" for c in result.overview.counts)
    return "\n".join(lines)


@click.command("query")
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
def query_command(text: str, as_json: bool) -> None:
    """Run a context_query, e.g. `graphsvc query '@myrepo Model OR QuerySet'`.

    \b
    scope:   <turn id> | @<workspace>
    clauses: key= kind= prov= path=a->b neigh= explain= communities=1 limit=
             depth= hops= directed= rel= min_conf= resolution= seed= objective=
    keywords: ANDed; `OR` or `|` between two means either; "quoted phrase"

    communities=1 reads a workspace's stored communities (`graphsvc index --communities`
    computes them); for a turn it partitions the turn's subgraph without storing it.
    """
    result = context_query(text)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else render(result))


def register(main: click.Group) -> None:
    main.add_command(query_command)
