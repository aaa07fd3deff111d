"""`graphsvc serve` runs the API; `graphsvc graphql-schema` exports (or checks) the SDL."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlparse

import click

from graphsvc.api.auth import is_loopback
from graphsvc.errors import ConfigError
from graphsvc.settings import SCHEMA_DIR, get_settings

SDL_PATH = SCHEMA_DIR / "graphql" / "schema.graphql"


def browser_url() -> str:
    settings = get_settings()
    if settings.neo4j.uri:
        host = urlparse(settings.neo4j.uri).hostname or "127.0.0.1"
        return f"http://{host}:{settings.neo4j.http_port}/browser/"
    from graphsvc.neo4j import ManagedNeo4j

    return ManagedNeo4j(settings.neo4j).status().browser_url


@click.command("serve")
@click.option("--host", default=None, help="Address to bind (default server.host, 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port (default server.port, 8080).")
@click.option("--access-log", is_flag=True, help="Log one line per request (off: it costs each request a write).")
@click.option("--watch", "watched", multiple=True, metavar="[WORKSPACE=]PATH",
              help="Keep PATH's graph in step with its files while serving, as `graphsvc watch` does; "
                   "answers then say when it is behind (stale, pendingFiles). Repeatable.")
def serve_command(host: str | None, port: int | None, access_log: bool, watched: tuple[str, ...]) -> None:
    """Serve GraphQL (/graphql, GraphiQL in a browser) and REST (/api, /docs)."""
    import uvicorn

    from graphsvc.api.app import create_app

    settings = get_settings()
    host = host or settings.server.host
    port = port or settings.server.port
    if not is_loopback(host) and not settings.server.token:
        raise ConfigError(
            f"refusing to bind {host} without a token: set GRAPHSVC_SERVER__TOKEN (clients send "
            "'Authorization: Bearer <token>') or bind 127.0.0.1"
        )
    settings.server.host, settings.server.port = host, port
    watch = [_watched(w) for w in watched]
    app = create_app(settings, watch=watch, on_batch=lambda batch: click.echo(batch.line(), err=True))
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"GraphiQL:      http://{shown}:{port}/graphql")
    click.echo(f"REST / OpenAPI: http://{shown}:{port}/docs")
    click.echo(f"Neo4j Browser: {browser_url()}  (style: :style http://localhost:{port}/browser/graphsvc.grass)")
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=access_log)


def _watched(given: str) -> tuple[str, str | None]:
    """`--watch [WORKSPACE=]PATH` as (path, workspace or None for the directory's name)."""
    workspace, sep, path = given.partition("=")
    if Path(given).is_dir() or not sep:
        path, workspace = given, None
    if not Path(path).is_dir():
        raise click.BadParameter(f"{path}: not a directory", param_hint="--watch")
    return path, workspace or None


@click.command("graphql-schema")
@click.option("--check", is_flag=True, help="Exit 1 if the file differs from the code's schema.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=str(SDL_PATH), show_default=True)
def graphql_schema_command(check: bool, output: str) -> None:
    """Export the GraphQL SDL (schema/graphql/schema.graphql)."""
    from graphsvc.api.app import schema_sdl

    sdl = schema_sdl()
    path = Path(output)
    if check:
        if not path.exists() or path.read_text() != sdl:
            click.echo(f"{path} is out of date: run `graphsvc graphql-schema`", err=True)
            sys.exit(1)
        click.echo(f"{path} is up to date")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sdl)
    click.echo(f"wrote {path}")


def register(main: click.Group) -> None:
    main.add_command(serve_command)
    main.add_command(graphql_schema_command)
