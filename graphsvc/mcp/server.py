"""The MCP server over the tools of `graphsvc.mcp.tools`: on stdin/stdout (`graphsvc mcp`) and as
the streamable HTTP endpoint `/mcp` of the API server (`HttpEndpoint`, mounted by the app).

The tools module (and with it the query engine, the Neo4j driver and the settings) is imported
on the first `tools/list` or `tools/call`, not before: a client spawning `graphsvc mcp` has its
`initialize` answered once the SDK is loaded.
"""

from __future__ import annotations

import importlib
from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager

import graphsvc

NAME = "graphsvc"
INSTRUCTIONS = (
    "A code graph of indexed repositories: symbols, calls, inheritance, imports. Every tool takes "
    "`workspace` (an indexed repository) and most take `ref`: an id (src/app.py#App.run), a dotted "
    "name (pkg.mod.Class.method), file:line or a unique id suffix. Start with find_symbol or search."
)


def _tools() -> Any:
    # Deferred (see the module's docstring): importing it costs more than the SDK itself.
    return importlib.import_module("graphsvc.mcp.tools")


def build_server(*, workspace: str | None = None, max_results: int | None = None) -> Server:
    """The MCP server; `workspace`: the default of every `workspace` argument; `max_results`: the
    most results any answer holds (a server's own `server.max_results`)."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = _tools()
        return types.ListToolsResult(tools=[
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=tools.input_schema(tool.name, workspace),
                annotations=types.ToolAnnotations(
                    read_only_hint=not tool.writes,
                    destructive_hint=False,
                    idempotent_hint=not tool.writes,
                    open_world_hint=False,
                ),
            )
            for tool in tools.TOOLS.values()
        ])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tools = _tools()
        # The engine blocks on Neo4j and SQLite: on a worker thread, the loop keeps serving.
        answer = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments or {}, workspace, max_results)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)],
            structured_content=answer.structured,
            is_error=answer.is_error,
        )

    return Server(NAME, version=graphsvc.__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(workspace: str | None = None) -> None:
    """Serve one client on stdin/stdout until it closes them."""
    server = build_server(workspace=workspace)

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


class HttpEndpoint:
    """The streamable HTTP transport as one ASGI app (`asgi`); `run()` must be entered in the
    hosting app's lifespan: it owns the task group the sessions run in."""

    def __init__(self, max_results: int | None = None):
        # Host and Origin are checked by the hosting app (`graphsvc.api.auth.SameOrigin`).
        self._manager = StreamableHTTPSessionManager(build_server(max_results=max_results))
        self.asgi = StreamableHTTPASGIApp(self._manager)

    def run(self) -> AbstractAsyncContextManager[None]:
        return self._manager.run()
