"""`graphsvc query '<context_query>' [--json]`: one call to `context_query`, printed."""

from __future__ import annotations

import json

import click

from graphsvc.query.engine import context_query


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
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.text())


def register(main: click.Group) -> None:
    main.add_command(query_command)
