"""`graphsvc workspaces list|show|drop`: thin wrappers over `graphsvc.indexing.workspaces`."""

from __future__ import annotations

import json
import sys

import click

from graphsvc.errors import InputError
from graphsvc.graph.workspaces import Workspace
from graphsvc.indexing.workspaces import drop_workspace, workspace, workspaces

_json = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
_COLUMNS = ("NAME", "NODES", "EDGES", "FILES", "SYMBOLS", "INDEXED (UTC)", "ROOT")


def _table(rows: list[Workspace]) -> str:
    cells = [_COLUMNS] + [
        (w.name, f"{w.nodes:,}", f"{w.edges:,}", f"{w.files:,}", f"{w.symbols:,}",
         (w.indexed_at or "-")[:19].replace("T", " "), w.root or "-")
        for w in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(_COLUMNS) - 1)]
    numeric = range(1, 5)
    lines = []
    for row in cells:
        parts = [cell.rjust(w) if i in numeric else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(parts + [row[-1]]))
    return "\n".join(lines)


def _can_ask() -> bool:
    return sys.stdin.isatty()


@click.group("workspaces")
def workspaces_group() -> None:
    """List, show and drop the workspaces of the graph.

    \b
    drop removes everything a workspace owns:
      - its nodes and relationships in Neo4j (tree, symbols, external symbols,
        mirrored turns, communities), deleted in batches of transactions;
      - this machine's incremental index state of it (the next index is a full one).
    It keeps the context store (events, turns, continuity, cached content): that is a
    record of the sessions, not derived from the code.
    """


@workspaces_group.command("list")
@_json
def list_cmd(as_json: bool) -> None:
    """Every workspace: node and edge counts, last index time, root directory."""
    rows = workspaces()
    if as_json:
        click.echo(json.dumps([w.to_dict() for w in rows], indent=2))
    elif rows:
        click.echo(_table(rows))
    else:
        click.echo("no workspaces; `graphsvc index PATH` creates one")


@workspaces_group.command("show")
@click.argument("name")
@_json
def show_cmd(name: str, as_json: bool) -> None:
    """One workspace's counts, last index time and root directory."""
    found = workspace(name)
    if as_json:
        click.echo(json.dumps(found.to_dict(), indent=2))
    else:
        for key, value in found.to_dict().items():
            click.echo(f"{key + ':':12} {value if value is not None else '-'}")


@workspaces_group.command("drop")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Drop without asking (needed when stdin is not a terminal).")
@_json
def drop_cmd(name: str, yes: bool, as_json: bool) -> None:
    """Delete a workspace's graph and its index state (see `graphsvc workspaces --help`)."""
    if not yes:
        if not _can_ask():
            raise InputError(f"not dropping workspace {name!r}: stdin is not a terminal to confirm on; pass --yes")
        held = workspace(name)
        click.confirm(
            f"drop workspace {name!r} ({held.nodes:,} nodes, {held.edges:,} edges, root {held.root or '-'})?",
            abort=True,
        )
    dropped = drop_workspace(name)
    if as_json:
        click.echo(json.dumps(dropped.to_dict(), indent=2))
    else:
        state = "; index state removed" if dropped.index_state_removed else ""
        click.echo(f"dropped workspace {name!r}: {dropped.nodes:,} nodes, {dropped.edges:,} edges{state}")


def register(main: click.Group) -> None:
    main.add_command(workspaces_group)
