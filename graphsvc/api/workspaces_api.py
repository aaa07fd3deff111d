"""Workspaces over GraphQL (`workspaces`, `dropWorkspace`) and REST (`/api/workspaces`).

Thin calls into `graphsvc.indexing.workspaces`, on a worker thread: a drop deletes in many
transactions and waits for a running index of the workspace.
"""

from __future__ import annotations

import strawberry
from anyio import to_thread
from fastapi import APIRouter, Request
from strawberry.types import Info

from graphsvc.api.types import rest_model, shape, to_gql, to_rest
from graphsvc.indexing.workspaces import DroppedWorkspace, Workspace, drop_workspace, workspace, workspaces

GqlWorkspace = shape(Workspace, rest_name="WorkspaceOut")
GqlDroppedWorkspace = shape(DroppedWorkspace, rest_name="DroppedWorkspaceOut")


def _list(name: str | None) -> list[Workspace]:
    return workspaces() if name is None else [workspace(name)]


def _drop(source: Info | Request, name: str) -> DroppedWorkspace:
    request = source.context["request"] if isinstance(source, Info) else source
    return drop_workspace(name, settings=request.app.state.settings)


@strawberry.type
class WorkspacesQuery:
    @strawberry.field(description="Workspaces in the graph with their sizes, root and last index time, "
                      "by name; or the one called `name` (NOT_FOUND when the graph holds nothing of it).")
    async def workspaces(self, name: str | None = None) -> list[GqlWorkspace]:
        return to_gql(await to_thread.run_sync(_list, name))


@strawberry.type
class WorkspacesMutation:
    @strawberry.mutation(description="Delete a workspace's nodes and relationships and this server's index "
                         "state of it; the context store keeps its events and turns. NOT_FOUND for an "
                         "unknown name.")
    async def drop_workspace(self, info: Info, name: str) -> GqlDroppedWorkspace:
        return to_gql(await to_thread.run_sync(_drop, info, name))


router = APIRouter(prefix="/api/workspaces", tags=["workspaces"])


@router.get("", response_model=list[rest_model(Workspace)], summary="Workspaces with their sizes")
def list_workspaces() -> list[dict]:
    return to_rest(workspaces())


@router.get("/{name:path}", response_model=rest_model(Workspace), summary="One workspace (404 if unknown)")
def get_workspace(name: str) -> dict:
    return to_rest(workspace(name))


@router.delete(
    "/{name:path}",
    response_model=rest_model(DroppedWorkspace),
    summary="Drop a workspace: its graph and index state (404 if unknown)",
)
def delete_workspace(name: str, request: Request) -> dict:
    return to_rest(_drop(request, name))
