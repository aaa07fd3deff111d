"""`Entity.doc` (the first docstring paragraph) and `source` (an entity's lines read from the
workspace), on GraphQL, REST and the CLI, and their errors once a file changes or goes."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest

from graphsvc.errors import InputError, NotFoundError, SourceChangedError
from graphsvc.graph.driver import get_graph, reset_graph
from graphsvc.indexing.pipeline import index_symbols
from graphsvc.indexing.workspaces import drop_workspace
from graphsvc.query.engine import entity
from graphsvc.query.source import source
from graphsvc.settings import get_settings, reload_settings
from tests.api.conftest import running
from tests.indexing.conftest import run_cli

pytestmark = pytest.mark.neo4j

WS = "graphsvc-source-tests"
APP = '''"""The application."""


class App:
    """The application object, which runs
    until it is stopped.

    Make one per process.
    """

    def run(self, times):
        """Run it."""
        for _ in range(times):
            self.step()
        return times

    def step(self):
        pass
'''
RUN = APP.splitlines()[10:15]


@pytest.fixture(scope="module")
def project(neo4j_server, tmp_path_factory) -> Iterator:
    root = tmp_path_factory.mktemp("source-project")
    (root / "app.py").write_text(APP)
    (root / "other.py").write_text("def other():\n    return 1\n")
    saved = os.environ.get("GRAPHSVC_HOME")
    os.environ["GRAPHSVC_HOME"] = str(tmp_path_factory.mktemp("home"))
    reload_settings()
    reset_graph()
    index_symbols(root, workspace=WS, jobs=1)
    with running(get_settings()) as url:
        yield root, url
    drop_workspace(WS, get_graph())
    reset_graph()
    if saved is None:
        os.environ.pop("GRAPHSVC_HOME", None)
    else:
        os.environ["GRAPHSVC_HOME"] = saved
    reload_settings()


def _gql(url: str, query: str) -> dict:
    r = httpx.post(f"{url}/graphql", json={"query": query}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def test_doc_is_the_first_paragraph_and_source_the_lines(project):
    root, url = project
    assert entity("App", workspace=WS).doc == "The application object, which runs until it is stopped."
    got = source("App.run", workspace=WS)
    assert (got.start_line, got.end_line, got.source.splitlines(), got.truncated) == (11, 15, RUN, False)
    assert source("app.py", workspace=WS, max_lines=1).source == '"""The application."""'
    short = source("App.run", workspace=WS, max_lines=2)
    assert (short.source.splitlines(), short.end_line, short.truncated) == (RUN[:2], 12, True)
    with pytest.raises(InputError, match="no lines of its own"):
        source("/", workspace=WS)

    q = f'{{ entity(id: "App.run", workspace: "{WS}") {{ doc startLine endLine source(maxLines: 3) }} }}'
    assert _gql(url, q)["data"]["entity"] == {"doc": "Run it.", "startLine": 11, "endLine": 15,
                                              "source": "\n".join(RUN[:3])}
    r = httpx.get(f"{url}/api/context/source", params={"ref": "App.run", "workspace": WS, "max_lines": 2}, timeout=60)
    assert r.status_code == 200 and r.json()["source"] == "\n".join(RUN[:2]) and r.json()["truncated"]
    out = run_cli("source", "App.run", "-w", WS, "--max-lines", "2")
    assert out.returncode == 0 and out.stdout.splitlines()[1:] == [*RUN[:2], "… (more lines: raise --max-lines)"]


def test_a_changed_or_deleted_file_is_refused_with_what_to_do(project):
    root, url = project
    (root / "app.py").write_text(APP.replace("Run it.", "Run it now."))
    with pytest.raises(SourceChangedError, match=r"app\.py changed since it was indexed.*index workspace"):
        source("App.run", workspace=WS)
    q = f'{{ entity(id: "App.run", workspace: "{WS}") {{ id source }} }}'
    body = _gql(url, q)
    assert "changed since it was indexed" in body["errors"][0]["message"] and body["errors"][0]["path"] == [
        "entity", "source"]
    r = httpx.get(f"{url}/api/context/source", params={"ref": "App.run", "workspace": WS}, timeout=60)
    assert r.status_code == 409 and r.json()["code"] == "SOURCE_CHANGED"

    (root / "other.py").unlink()
    with pytest.raises(NotFoundError, match=r"other\.py is gone since"):
        source("other", workspace=WS)
    r = httpx.get(f"{url}/api/context/source", params={"ref": "other", "workspace": WS}, timeout=60)
    assert r.status_code == 404 and r.json()["code"] == "NOT_FOUND"
