"""`graphsvc mcp`: the MCP server on stdin/stdout, for a coding agent to spawn."""

from __future__ import annotations

import click


@click.command("mcp")
@click.option("--workspace", "-w", default=None, help="The workspace a tool call uses when it names none.")
def mcp_command(workspace: str | None) -> None:
    """Serve the graph's tools over MCP on stdin/stdout (register this command with an agent)."""
    # Imported here: the SDK takes most of a second to load and no other command needs it.
    from graphsvc.mcp.server import serve_stdio

    serve_stdio(workspace=workspace)


def register(main: click.Group) -> None:
    main.add_command(mcp_command)
