"""`graphsvc neo4j install|start|stop|status|logs`: thin wrappers over `ManagedNeo4j`."""

from __future__ import annotations

import json

import click

from graphsvc.neo4j import ManagedNeo4j, Neo4jStatus
from graphsvc.settings import get_settings


def _server() -> ManagedNeo4j:
    return ManagedNeo4j(get_settings().neo4j)


def _print_status(status: Neo4jStatus) -> None:
    if status.state == "running":
        click.echo(f"running (pid {status.pid}), Neo4j {status.version}")
        click.echo(f"  Bolt:     {status.bolt_uri}")
        click.echo(f"  Browser:  {status.browser_url}")
        click.echo(f"  user:     {status.user}, password in {status.password_file}")
    elif status.state == "stale":
        click.echo(
            f"stale: pid file {status.pid} names no running Neo4j of this instance; "
            "`graphsvc neo4j start` replaces it"
        )
    else:
        click.echo(f"stopped (instance {status.instance_dir})")
    click.echo(f"  log:      {status.log_file}")


@click.group("neo4j")
def neo4j_group() -> None:
    """Manage the local Neo4j server (used when NEO4J_URI is not set)."""


@neo4j_group.command()
def install() -> None:
    """Download Neo4j and the Browser with Maven (once)."""
    server = _server()
    if not server.install():
        click.echo(f"Neo4j {server.settings.version} already installed in {server.lib_dir}")


@neo4j_group.command()
@click.option("--free-ports", is_flag=True, help="Use unused ports if the configured ones are busy.")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def start(free_ports: bool, as_json: bool) -> None:
    """Start the server (installing it first if needed) and wait until it answers."""
    status = _server().start(free_ports=free_ports)
    if as_json:
        click.echo(json.dumps(status.to_dict(), indent=2))
    else:
        _print_status(status)


@neo4j_group.command()
@click.option("--timeout", default=60.0, show_default=True, help="Seconds before SIGKILL.")
def stop(timeout: float) -> None:
    """Shut the server down cleanly."""
    if not _server().stop(timeout_s=timeout):
        click.echo("Neo4j is not running")


@neo4j_group.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status(as_json: bool) -> None:
    """Say whether the server runs, where, and how to log in."""
    current = _server().status()
    if as_json:
        click.echo(json.dumps(current.to_dict(), indent=2))
    else:
        _print_status(current)


@neo4j_group.command()
@click.option("-n", "lines", default=50, show_default=True, help="Lines to show.")
@click.option("-f", "follow", is_flag=True, help="Keep printing new lines.")
def logs(lines: int, follow: bool) -> None:
    """Print the tail of the server log."""
    server = _server()
    if follow:
        for line in server.follow_log(lines):
            click.echo(line)
        return
    tail = server.log_tail(lines)
    if not tail:
        click.echo(f"no log yet at {server.log_file}", err=True)
    for line in tail:
        click.echo(line)


def register(main: click.Group) -> None:
    main.add_command(neo4j_group)
